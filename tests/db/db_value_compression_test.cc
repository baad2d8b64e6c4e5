// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Options::value_compression_min_size end to end: large values go into
// tables compressed on their own (kTypeValueCompressed), small or
// incompressible ones as they are; compactions carry them over unchanged;
// every read path returns them uncompressed; a damaged one reads as
// Corruption, never as wrong bytes.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "db/db_impl.h"
#include "db/dbformat.h"
#include "db/value_compression.h"
#include "tests/testutil/test_util.h"
#include "util/compression.h"
#include "util/random.h"

namespace cascadedb {
namespace {

std::string Key(int i) { return "key" + std::to_string(100000 + i); }

// Half random, half a run of one byte: compresses to about half.
std::string HalfCompressible(Random* rnd, size_t len) {
  std::string s;
  for (size_t i = 0; i < len / 2; ++i) {
    s.push_back(static_cast<char>(rnd->Uniform(256)));
  }
  return s + std::string(len - len / 2, 'c');
}

std::string Incompressible(Random* rnd, size_t len) {
  std::string s;
  for (size_t i = 0; i < len; ++i) {
    s.push_back(static_cast<char>(rnd->Uniform(256)));
  }
  return s;
}

class DBValueCompressionTest : public ::testing::Test {
 protected:
  DBValueCompressionTest() {
    options_.create_if_missing = true;
    options_.compression = kSnappyCompression;
    options_.value_compression_min_size = 512;
  }

  void Open() { ASSERT_OK(DB::Open(options_, dir_.path(), &db_)); }

  // Writes keys 0..n-1: every third 1000 bytes half compressible, every
  // third 1000 bytes random, the rest 100 bytes half compressible.
  void Fill(int n) {
    Random rnd(301);
    for (int i = 0; i < n; ++i) {
      std::string v = i % 3 == 0   ? HalfCompressible(&rnd, 1000)
                      : i % 3 == 1 ? Incompressible(&rnd, 1000)
                                   : HalfCompressible(&rnd, 100);
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), v));
      model_[Key(i)] = v;
    }
  }

  // The stored type of each key's newest entry.
  std::map<std::string, ValueType> StoredTypes() {
    std::map<std::string, ValueType> types;
    SequenceNumber sequence = 0;
    std::unique_ptr<Iterator> it(
        static_cast<DBImpl*>(db_.get())->NewInternalIterator(ReadOptions(),
                                                             &sequence));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ParsedInternalKey ikey;
      EXPECT_OK(ParseInternalKey(it->key(), &ikey));
      types.emplace(ikey.user_key.ToString(), ikey.type);  // newest first
    }
    EXPECT_OK(it->status());
    return types;
  }

  // Get, a forward scan, a backward scan and seeks all return model_.
  void CheckReads() {
    for (const auto& [key, value] : model_) {
      std::string got;
      ASSERT_OK(db_->Get(ReadOptions(), key, &got)) << key;
      ASSERT_EQ(value, got) << key;
    }
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    auto m = model_.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_NE(model_.end(), m);
      ASSERT_EQ(m->first, it->key().ToString());
      ASSERT_EQ(m->second, it->value().ToString()) << m->first;
    }
    ASSERT_OK(it->status());
    EXPECT_EQ(model_.end(), m);
    auto r = model_.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
      ASSERT_NE(model_.rend(), r);
      ASSERT_EQ(r->first, it->key().ToString());
      ASSERT_EQ(r->second, it->value().ToString()) << r->first;
    }
    ASSERT_OK(it->status());
    EXPECT_EQ(model_.rend(), r);
    for (int i = 0; i < 30; i += 7) {
      it->Seek(Key(i));
      ASSERT_TRUE(it->Valid());
      EXPECT_EQ(model_[Key(i)], it->value().ToString());
    }
  }

  test::TempDir dir_;
  Options options_;
  std::unique_ptr<DB> db_;
  std::map<std::string, std::string> model_;
};

TEST_F(DBValueCompressionTest, LargeCompressibleValuesAreStoredCompressed) {
  Open();
  Fill(300);
  ASSERT_OK(db_->Flush(FlushOptions()));
  std::map<std::string, ValueType> types = StoredTypes();
  ASSERT_EQ(300u, types.size());
  for (int i = 0; i < 300; ++i) {
    // Random values would not save 12.5%; small ones stay in blocks.
    EXPECT_EQ(i % 3 == 0 ? kTypeValueCompressed : kTypeValue, types[Key(i)])
        << Key(i);
  }
  CheckReads();

  // A compaction carries them over as they are, and a reopen reads them.
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(types, StoredTypes());
  CheckReads();
  db_.reset();
  Open();
  EXPECT_EQ(types, StoredTypes());
  CheckReads();
}

TEST_F(DBValueCompressionTest, NothingIsCompressedAloneWhenOff) {
  for (const bool no_codec : {false, true}) {
    SCOPED_TRACE(no_codec ? "compression none" : "min size 0");
    if (no_codec) {
      options_.compression = kNoCompression;
    } else {
      options_.value_compression_min_size = 0;
    }
    Open();
    Fill(90);
    ASSERT_OK(db_->Flush(FlushOptions()));
    for (const auto& [key, type] : StoredTypes()) {
      EXPECT_EQ(kTypeValue, type) << key;
    }
    CheckReads();
    db_.reset();
    ASSERT_OK(DestroyDB(dir_.path(), options_));
    options_ = Options();
    options_.create_if_missing = true;
    options_.compression = kSnappyCompression;
    options_.value_compression_min_size = 512;
    model_.clear();
  }
}

// Tables written with the option off are read, and compacted into tables
// with it on, by the same DB.
TEST_F(DBValueCompressionTest, TablesWrittenWithTheOptionOffStayReadable) {
  options_.value_compression_min_size = 0;
  Open();
  Fill(90);
  ASSERT_OK(db_->Flush(FlushOptions()));
  db_.reset();
  options_.value_compression_min_size = 512;
  Open();
  CheckReads();
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  std::map<std::string, ValueType> types = StoredTypes();
  for (int i = 0; i < 90; ++i) {
    EXPECT_EQ(i % 3 == 0 ? kTypeValueCompressed : kTypeValue, types[Key(i)]);
  }
  CheckReads();
}

// A compressed value damaged on disk (checksums not verified, so the read
// reaches it) is a Corruption naming the value, from Get and from a scan.
TEST_F(DBValueCompressionTest, DamagedValueReadsAsCorruption) {
  options_.paranoid_checks = false;
  Open();
  Random rnd(7);
  const std::string value = HalfCompressible(&rnd, 2000);
  ASSERT_OK(db_->Put(WriteOptions(), "k", value));
  ASSERT_OK(db_->Flush(FlushOptions()));
  std::vector<LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  ASSERT_EQ(1u, files.size());
  db_.reset();

  std::string stored;
  ASSERT_TRUE(CompressValue(kSnappyCompression, kDefaultCompressionLevel, value,
                            &stored));
  const std::string path = dir_.path() + "/" + files[0].name;
  std::string contents;
  ASSERT_OK(ReadFileToString(Env::Default(), path, &contents));
  const size_t at = contents.find(stored);
  ASSERT_NE(std::string::npos, at);
  contents[at] = 0;  // the codec byte: "no compression" is never stored
  ASSERT_OK(WriteStringToFile(Env::Default(), contents, path, false));

  Open();
  ReadOptions unverified;
  unverified.verify_checksums = false;
  std::string got;
  Status s = db_->Get(unverified, "k", &got);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("compressed value"))
      << s.ToString();
  std::unique_ptr<Iterator> it(db_->NewIterator(unverified));
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
  // With checksums verified, the block itself is the damage reported.
  s = db_->Get(ReadOptions(), "k", &got);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

TEST(ValueCompressionTest, RoundTripsAndRefusesWhatDoesNotSave) {
  Random rnd(11);
  const std::string half = HalfCompressible(&rnd, 1024);
  std::string stored;
  for (CompressionType type : {kSnappyCompression, kLZ4Compression, kZSTD}) {
    SCOPED_TRACE(CompressionTypeName(type));
    ASSERT_TRUE(CompressValue(type, kDefaultCompressionLevel, half, &stored));
    EXPECT_EQ(static_cast<char>(type), stored[0]);
    EXPECT_LE(stored.size(), half.size() - half.size() / 8);
    std::string back;
    ASSERT_OK(UncompressValue(stored, &back));
    EXPECT_EQ(half, back);
  }
  EXPECT_FALSE(
      CompressValue(kNoCompression, kDefaultCompressionLevel, half, &stored));
  EXPECT_FALSE(CompressValue(kSnappyCompression, kDefaultCompressionLevel,
                             Incompressible(&rnd, 1024), &stored));
  EXPECT_FALSE(CompressValue(static_cast<CompressionType>(0x55),
                             kDefaultCompressionLevel, half, &stored));
  // Above what a reader accepts as a compressed payload's size, a value
  // stays plain (it would otherwise read as damage).
  const std::string huge(kMaxUncompressedBlockSize + 1, 'h');
  EXPECT_FALSE(CompressValue(kSnappyCompression, kDefaultCompressionLevel, huge,
                             &stored));
}

TEST(ValueCompressionTest, MalformedEncodingsAreCorruption) {
  Random rnd(13);
  std::string stored;
  ASSERT_TRUE(CompressValue(kSnappyCompression, kDefaultCompressionLevel,
                            HalfCompressible(&rnd, 1024), &stored));
  std::string out;
  const std::vector<std::string> bad = {
      std::string(),                              // empty
      std::string(1, '\0') + stored.substr(1),    // "no compression"
      std::string(1, '\x55') + stored.substr(1),  // unknown codec
      stored.substr(0, stored.size() / 2),        // cut short
      stored.substr(0, 1),                        // codec byte only
  };
  for (const std::string& b : bad) {
    Status s = UncompressValue(b, &out);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("compressed value"))
        << s.ToString();
  }
}

}  // namespace
}  // namespace cascadedb

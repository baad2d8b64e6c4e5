// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/db_iter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/comparator.h"
#include "db/dbformat.h"
#include "db/value_compression.h"
#include "tests/table/iterator_test_util.h"
#include "tests/testutil/test_util.h"
#include "util/compression.h"
#include "util/random.h"

namespace cascadedb {
namespace {

struct Version {
  SequenceNumber sequence;
  ValueType type;     // kTypeValue or kTypeDeletion, as the user wrote it
  std::string value;  // as the user wrote it
  // As a table may store it: a third of the values are longer and stored
  // compressed on their own (kTypeValueCompressed).
  ValueType stored_type;
  std::string stored_value;
};

// Random versions of random user keys: the internal entries a merging
// iterator would hand the DBIter, and the user view at any sequence.
class History {
 public:
  History(const Comparator* ucmp, size_t key_size, uint32_t seed)
      : ucmp_(ucmp), icmp_(ucmp), rnd_(seed) {
    SequenceNumber sequence = 1;
    for (int i = 0; i < 400; ++i) {
      std::string user_key = Key(rnd_.Uniform(120), key_size);
      const ValueType type = rnd_.Uniform(4) == 0 ? kTypeDeletion : kTypeValue;
      std::string value =
          type == kTypeValue ? "v" + std::to_string(sequence) : "";
      ValueType stored_type = type;
      std::string stored_value = value;
      if (type == kTypeValue && rnd_.Uniform(3) == 0) {
        value += std::string(300, 'x');
        EXPECT_TRUE(CompressValue(kSnappyCompression, kDefaultCompressionLevel,
                                  value, &stored_value));
        stored_type = kTypeValueCompressed;
      }
      versions_[user_key].push_back(
          {sequence++, type, value, stored_type, stored_value});
    }
    last_sequence_ = sequence - 1;
  }

  const InternalKeyComparator* icmp() const { return &icmp_; }
  SequenceNumber last_sequence() const { return last_sequence_; }
  Random* rnd() { return &rnd_; }

  // Every version, in internal-key order.
  std::vector<test::Entry> Internal() const {
    std::vector<test::Entry> entries;
    for (const auto& [user_key, versions] : versions_) {
      for (const Version& v : versions) {
        std::string key;
        AppendInternalKey(
            &key, ParsedInternalKey(user_key, v.sequence, v.stored_type));
        entries.emplace_back(key, v.stored_value);
      }
    }
    std::sort(entries.begin(), entries.end(),
              [this](const test::Entry& a, const test::Entry& b) {
                return icmp_.Compare(a.first, b.first) < 0;
              });
    return entries;
  }

  // What a reader at sequence sees, in user-key order.
  std::vector<test::Entry> Visible(SequenceNumber sequence) const {
    std::vector<test::Entry> entries;
    for (const auto& [user_key, versions] : versions_) {
      const Version* newest = nullptr;
      for (const Version& v : versions) {
        if (v.sequence <= sequence &&
            (newest == nullptr || v.sequence > newest->sequence)) {
          newest = &v;
        }
      }
      if (newest != nullptr && newest->type == kTypeValue) {
        entries.emplace_back(user_key, newest->value);
      }
    }
    std::sort(entries.begin(), entries.end(),
              [this](const test::Entry& a, const test::Entry& b) {
                return ucmp_->Compare(a.first, b.first) < 0;
              });
    return entries;
  }

  // Key i, zero-padded to key_size bytes (longer than a KeyBuffer's inline
  // 64 bytes when key_size is).
  static std::string Key(uint32_t i, size_t key_size) {
    std::string key = std::to_string(i);
    return std::string(key_size - key.size(), '0') + key;
  }

 private:
  const Comparator* const ucmp_;
  const InternalKeyComparator icmp_;
  Random rnd_;
  std::map<std::string, std::vector<Version>> versions_;
  SequenceNumber last_sequence_ = 0;
};

struct Param {
  bool bytewise;
  size_t key_size;
};

class DBIterModelTest : public ::testing::TestWithParam<Param> {};

// Full scans both ways, then random seeks and steps in both directions,
// against the user view at several sequence numbers: older versions and
// deleted keys stay hidden, whatever the key length and comparator.
TEST_P(DBIterModelTest, MatchesTheVisibleVersions) {
  const Comparator* ucmp = GetParam().bytewise
                               ? BytewiseComparator()
                               : test::ReverseBytewiseComparator();
  History history(ucmp, GetParam().key_size, 301);
  const std::vector<test::Entry> internal = history.Internal();
  for (SequenceNumber sequence :
       {SequenceNumber{1}, history.last_sequence() / 3,
        history.last_sequence() / 2, history.last_sequence(),
        kMaxSequenceNumber}) {
    SCOPED_TRACE("sequence " + std::to_string(sequence));
    const std::vector<test::Entry> visible = history.Visible(sequence);
    std::unique_ptr<Iterator> it(NewDBIterator(
        ucmp, new test::VectorIterator(history.icmp(), internal), sequence));
    std::vector<test::Entry> forward;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      forward.emplace_back(it->key().ToString(), it->value().ToString());
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_EQ(visible, forward);
    std::vector<test::Entry> backward;
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      backward.emplace_back(it->key().ToString(), it->value().ToString());
    }
    std::reverse(backward.begin(), backward.end());
    EXPECT_EQ(visible, backward);
    const size_t key_size = GetParam().key_size;
    test::CheckAgainstModel(it.get(), ucmp, visible, history.rnd(), 2000,
                            [key_size](Random* rnd) {
                              return History::Key(rnd->Uniform(130), key_size);
                            });
  }
}

INSTANTIATE_TEST_SUITE_P(KeysAndComparators, DBIterModelTest,
                         ::testing::Values(Param{true, 16}, Param{true, 100},
                                           Param{false, 16},
                                           Param{false, 100}));

// A stored key too short for its trailer, or with a type this version does
// not know, ends the walk with an error naming it, in either direction.
TEST(DBIterTest, MalformedKeysEndTheWalkWithAnError) {
  const InternalKeyComparator icmp(BytewiseComparator());
  std::string good;
  AppendInternalKey(&good, ParsedInternalKey("a", 5, kTypeValue));
  std::string unknown_type;
  AppendInternalKey(&unknown_type, ParsedInternalKey("b", 6, kTypeValue));
  // The trailer is little-endian: its first byte is the type.
  unknown_type[unknown_type.size() - kInternalKeyTrailerSize] = 0x7f;
  for (const std::string& bad : {std::string("b"), unknown_type}) {
    const std::vector<test::Entry> entries = {{good, "1"}, {bad, "2"}};
    std::unique_ptr<Iterator> it(NewDBIterator(
        BytewiseComparator(), new test::VectorIterator(&icmp, entries),
        kMaxSequenceNumber));
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ("a", it->key().ToString());
    it->Next();
    EXPECT_FALSE(it->Valid());
    EXPECT_FALSE(it->status().ok());
    it->SeekToLast();
    EXPECT_FALSE(it->Valid());
    EXPECT_FALSE(it->status().ok());
    EXPECT_NE(std::string::npos, it->status().ToString().find("internal key"))
        << it->status().ToString();
  }
}

// A value compressed on its own that does not uncompress ends the walk
// with a Corruption naming its key, in either direction; the entries before
// it read as usual.
TEST(DBIterTest, DamagedCompressedValueEndsTheWalkWithCorruption) {
  const InternalKeyComparator icmp(BytewiseComparator());
  const std::string value(400, 'z');
  std::string stored;
  ASSERT_TRUE(CompressValue(kSnappyCompression, kDefaultCompressionLevel, value,
                            &stored));
  std::string a;
  AppendInternalKey(&a, ParsedInternalKey("a", 5, kTypeValueCompressed));
  std::string b;
  AppendInternalKey(&b, ParsedInternalKey("b", 6, kTypeValueCompressed));
  std::string c;
  AppendInternalKey(&c, ParsedInternalKey("c", 7, kTypeValueCompressed));
  const std::vector<test::Entry> entries = {
      {a, stored}, {b, stored.substr(0, stored.size() / 2)}, {c, stored}};
  std::unique_ptr<Iterator> it(NewDBIterator(
      BytewiseComparator(), new test::VectorIterator(&icmp, entries),
      kMaxSequenceNumber));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(value, it->value().ToString());
  it->Next();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
  EXPECT_NE(std::string::npos, it->status().ToString().find("value of 'b'"))
      << it->status().ToString();
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("c", it->key().ToString());
  EXPECT_EQ(value, it->value().ToString());
  it->Prev();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
  it->Seek("c");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(value, it->value().ToString());
}

}  // namespace
}  // namespace cascadedb

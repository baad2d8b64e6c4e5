// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// RepairDB: rebuilding the MANIFEST from the tables and WALs of a database
// whose CURRENT/MANIFEST is lost or damaged, moving damaged files to lost/,
// and the error cases (missing directory, no database files, DB open).

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "db/dbformat.h"
#include "db/filename.h"
#include "db/table_file_writer.h"
#include "db/version_edit.h"
#include "table/table_options.h"
#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace {

class RepairTest : public testing::Test {
 protected:
  RepairTest() {
    options_.create_if_missing = true;
    options_.stats_dump_period_sec = 0;
  }

  Status TryOpen() {
    db_.reset();
    return DB::Open(options_, dir_.path(), &db_);
  }

  void Close() { db_.reset(); }

  Status Repair() { return RepairDB(dir_.path(), options_); }

  std::string Get(const std::string& key) {
    std::string value;
    Status s = db_->Get(ReadOptions(), key, &value);
    return s.ok() ? value : (s.IsNotFound() ? "NOT_FOUND" : s.ToString());
  }

  // The names in dir (default: the DB directory) ending with suffix.
  std::vector<std::string> Files(const std::string& suffix,
                                 const std::string& dir = "") {
    return test::FilesWithSuffix(dir.empty() ? dir_.path() : dir, suffix);
  }

  std::vector<std::string> LostFiles(const std::string& suffix = "") {
    return Files(suffix, dir_.File("lost"));
  }

  std::string ReadFile(const std::string& name) {
    std::string data;
    EXPECT_OK(ReadFileToString(Env::Default(), dir_.File(name), &data));
    return data;
  }
  void WriteFile(const std::string& name, const std::string& data) {
    ASSERT_OK(WriteStringToFile(Env::Default(), data, dir_.File(name)));
  }

  // Removes CURRENT and every MANIFEST.
  void LoseManifest() {
    ASSERT_OK(Env::Default()->RemoveFile(dir_.File("CURRENT")));
    for (const std::string& m : Files("")) {
      if (m.compare(0, 9, "MANIFEST-") == 0) {
        ASSERT_OK(Env::Default()->RemoveFile(dir_.File(m)));
      }
    }
  }

  // Writes table number into the DB directory with the given entries
  // (already in internal-key order).
  void WriteTable(uint64_t number,
                  const std::vector<std::pair<InternalKey, std::string>>& kvs) {
    InternalKeyComparator icmp(BytewiseComparator());
    TableOptions options;
    options.comparator = &icmp;
    options.key_format = InternalKeyFormat::Get();
    TableFileWriter writer(Env::Default(), EnvOptions(), nullptr,
                           RateLimiter::IOPriority::kHigh);
    ASSERT_OK(writer.Open(dir_.path(), number, options));
    for (const auto& kv : kvs) writer.Add(kv.first.Encode(), kv.second);
    FileMetaData meta;
    ASSERT_OK(writer.Finish(&meta));
  }

  test::TempDir dir_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(RepairTest, LostManifestKeepsTablesAndWalData) {
  ASSERT_OK(TryOpen());
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), "t" + std::to_string(i), "flushed"));
  }
  ASSERT_OK(db_->Delete(WriteOptions(), "t7"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Put(WriteOptions(), "t1", "overwritten in the WAL"));
  ASSERT_OK(db_->Put(WriteOptions(), "w", "only in the WAL"));
  ASSERT_OK(db_->Delete(WriteOptions(), "t2"));
  const uint64_t last_sequence = db_->GetLatestSequenceNumber();
  Close();
  ASSERT_EQ(1u, Files(".sst").size());
  ASSERT_EQ(1u, Files(".log").size());
  const std::string wal = Files(".log")[0];
  LoseManifest();
  options_.create_if_missing = false;
  EXPECT_FALSE(TryOpen().ok());  // no CURRENT: not a database any more

  ASSERT_OK(Repair());
  ASSERT_OK(TryOpen());
  EXPECT_EQ("flushed", Get("t0"));
  EXPECT_EQ("overwritten in the WAL", Get("t1"));
  EXPECT_EQ("NOT_FOUND", Get("t2"));
  EXPECT_EQ("NOT_FOUND", Get("t7"));
  EXPECT_EQ("flushed", Get("t99"));
  EXPECT_EQ("only in the WAL", Get("w"));
  EXPECT_EQ(last_sequence, db_->GetLatestSequenceNumber());
  // New writes get sequence numbers above the recovered ones and win.
  ASSERT_OK(db_->Put(WriteOptions(), "t1", "after repair"));
  EXPECT_EQ("after repair", Get("t1"));
  std::vector<LiveFileMetaData> live;
  db_->GetLiveFilesMetaData(&live);
  ASSERT_EQ(2u, live.size());  // the old table and the converted WAL
  for (const LiveFileMetaData& f : live) EXPECT_EQ(0, f.level);
  Close();

  // The converted WAL went to lost/; it is not replayed again.
  EXPECT_EQ(std::vector<std::string>{wal}, LostFiles(".log"));
  const std::string log = ReadFile("LOG.old");  // the repair's LOG
  EXPECT_NE(std::string::npos, log.find("saved to")) << log;
  EXPECT_NE(std::string::npos, log.find("Repair done")) << log;

  // Reopening again finds the same data (nothing replayed twice).
  ASSERT_OK(TryOpen());
  EXPECT_EQ("after repair", Get("t1"));
  EXPECT_EQ("only in the WAL", Get("w"));
}

// An obsolete table kept for recycling (NNNNNN.recycle) holds data the DB
// has moved past: Repair must not take it back (here, a deleted key and
// an overwritten value, both compacted away).
TEST_F(RepairTest, RecycledTableFilesAreNotTakenBack) {
  ASSERT_OK(TryOpen());
  ASSERT_OK(db_->Put(WriteOptions(), "gone", "old"));
  ASSERT_OK(db_->Put(WriteOptions(), "kept", "old"));
  ASSERT_OK(db_->Delete(WriteOptions(), "gone"));
  ASSERT_OK(db_->Put(WriteOptions(), "kept", "new"));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  Close();
  // The old data, as the table it once was, under the name of a kept file
  // (a process that died while keeping it).
  WriteTable(90, {{InternalKey("gone", 1, kTypeValue), "old"},
                  {InternalKey("kept", 2, kTypeValue), "old"}});
  ASSERT_OK(Env::Default()->RenameFile(dir_.File("000090.sst"),
                                       dir_.File("000090.recycle")));
  LoseManifest();
  ASSERT_OK(Repair());
  ASSERT_OK(TryOpen());
  EXPECT_EQ("NOT_FOUND", Get("gone"));
  EXPECT_EQ("new", Get("kept"));
}

TEST_F(RepairTest, CorruptTableMovedToLostRestKept) {
  options_.compression = kNoCompression;
  ASSERT_OK(TryOpen());
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), "a" + std::to_string(i), "first"));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), "b" + std::to_string(i), "second"));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  Close();
  const std::vector<std::string> ssts = Files(".sst");
  ASSERT_EQ(2u, ssts.size());
  // Flip a byte in the first data block of the first table.
  std::string data = ReadFile(ssts[0]);
  data[20] ^= 0x01;
  WriteFile(ssts[0], data);
  EXPECT_TRUE(TryOpen().ok());  // the damage is only seen when read
  EXPECT_FALSE(db_->Get(ReadOptions(), "a1", &data).ok());
  Close();

  ASSERT_OK(Repair());
  EXPECT_EQ(std::vector<std::string>{ssts[0]}, LostFiles(".sst"));
  EXPECT_EQ(std::vector<std::string>{ssts[1]}, Files(".sst"));
  ASSERT_OK(TryOpen());
  EXPECT_EQ("NOT_FOUND", Get("a1"));
  EXPECT_EQ("second", Get("b1"));
  EXPECT_EQ("second", Get("b49"));
  Close();
  const std::string log = ReadFile("LOG.old");
  EXPECT_NE(std::string::npos, log.find(ssts[0] + ": moved to lost/")) << log;
}

TEST_F(RepairTest, ManifestThatLostItsTailIsRepaired) {
  ASSERT_OK(TryOpen());
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  const std::string current = ReadFile("CURRENT");
  const std::string manifest = current.substr(0, current.size() - 1);
  const std::string before_flush = ReadFile(manifest);
  ASSERT_OK(db_->Flush(FlushOptions()));  // logs an edit, deletes the WAL
  ASSERT_OK(db_->Put(WriteOptions(), "b", "2"));
  Close();
  WriteFile(manifest, before_flush);  // the flush's edit is lost
  Status s = TryOpen();
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();

  ASSERT_OK(Repair());
  ASSERT_OK(TryOpen());
  EXPECT_EQ("1", Get("a"));
  EXPECT_EQ("2", Get("b"));
  Close();
  // The damaged MANIFEST is kept in lost/.
  const std::vector<std::string> lost = LostFiles();
  EXPECT_NE(lost.end(), std::find(lost.begin(), lost.end(), manifest));
}

TEST_F(RepairTest, DamagedWalRecordIsSkipped) {
  ASSERT_OK(TryOpen());
  // ~50 KB records: damage in the second one's first fragment (block 1)
  // loses it, and the reader picks up again at the third (block 3).
  for (int i = 1; i <= 3; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), "k" + std::to_string(i),
                       std::string(50000, static_cast<char>('a' + i))));
  }
  Close();
  LoseManifest();
  const std::string wal = Files(".log")[0];
  std::string data = ReadFile(wal);
  ASSERT_GT(data.size(), 150000u);
  data[55000] ^= 0x40;
  WriteFile(wal, data);

  ASSERT_OK(Repair());
  ASSERT_OK(TryOpen());
  EXPECT_EQ(std::string(50000, 'b'), Get("k1"));
  EXPECT_EQ("NOT_FOUND", Get("k2"));
  EXPECT_EQ(std::string(50000, 'd'), Get("k3"));
  Close();
  const std::string log = ReadFile("LOG.old");
  EXPECT_NE(std::string::npos, log.find("checksum mismatch")) << log;
}

// Tables from different levels can overlap in keys and in sequence
// numbers. Level 0 alone would then return an older version, so repair
// merges them into one sorted run.
TEST_F(RepairTest, InterleavedSequenceRangesAreRewritten) {
  ASSERT_OK(Env::Default()->CreateDirIfMissing(dir_.path()));
  // Like a deep compaction output: an old "a" but a recent "z".
  WriteTable(10, {{InternalKey("a", 1, kTypeValue), "old"},
                  {InternalKey("m", 2, kTypeValue), "m"},
                  {InternalKey("z", 10, kTypeValue), "z"}});
  // Like a shallower file: a newer "a" and a deletion of "m".
  WriteTable(11, {{InternalKey("a", 5, kTypeValue), "new"},
                  {InternalKey("m", 6, kTypeDeletion), ""}});
  ASSERT_OK(Repair());
  ASSERT_OK(TryOpen());
  EXPECT_EQ("new", Get("a"));
  EXPECT_EQ("NOT_FOUND", Get("m"));
  EXPECT_EQ("z", Get("z"));
  EXPECT_EQ(10u, db_->GetLatestSequenceNumber());
  std::vector<LiveFileMetaData> live;
  db_->GetLiveFilesMetaData(&live);
  ASSERT_EQ(1u, live.size());
  EXPECT_EQ(options_.num_levels - 1, live[0].level);
  EXPECT_EQ(12u, live[0].file_number);
  Close();
  // The merged tables are gone (the new one holds every entry).
  EXPECT_EQ(std::vector<std::string>{"000012.sst"}, Files(".sst"));
  EXPECT_TRUE(LostFiles(".sst").empty());
}

TEST_F(RepairTest, DisjointSequenceRangesStayAtLevel0) {
  ASSERT_OK(Env::Default()->CreateDirIfMissing(dir_.path()));
  WriteTable(10, {{InternalKey("a", 1, kTypeValue), "old"},
                  {InternalKey("z", 2, kTypeValue), "z"}});
  WriteTable(11, {{InternalKey("a", 5, kTypeValue), "new"}});
  ASSERT_OK(Repair());
  ASSERT_OK(TryOpen());
  EXPECT_EQ("new", Get("a"));
  std::vector<LiveFileMetaData> live;
  db_->GetLiveFilesMetaData(&live);
  ASSERT_EQ(2u, live.size());
  for (const LiveFileMetaData& f : live) EXPECT_EQ(0, f.level);
}

TEST_F(RepairTest, UnreadableFilesAreMovedNotDeleted) {
  ASSERT_OK(TryOpen());
  ASSERT_OK(db_->Put(WriteOptions(), "k", "v"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  Close();
  WriteFile("000900.sst", "not a table at all");
  ASSERT_OK(Repair());
  EXPECT_EQ(std::vector<std::string>{"000900.sst"}, LostFiles(".sst"));
  EXPECT_EQ("not a table at all", ReadFile("lost/000900.sst"));
  ASSERT_OK(TryOpen());
  EXPECT_EQ("v", Get("k"));
  // The new MANIFEST is numbered above every file seen.
  const std::string current = ReadFile("CURRENT");
  EXPECT_GT(current, std::string("MANIFEST-000900"));
}

TEST_F(RepairTest, MissingDirectoryIsNotFoundNamingIt) {
  const std::string missing = dir_.File("no_such_db");
  Status s = RepairDB(missing, options_);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(missing)) << s.ToString();
  EXPECT_TRUE(Env::Default()->FileExists(missing).IsNotFound());
}

TEST_F(RepairTest, DirectoryWithoutDatabaseFilesIsLeftAlone) {
  ASSERT_OK(Env::Default()->CreateDirIfMissing(dir_.path()));
  WriteFile("notes.txt", "hello");
  Status s = Repair();
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("no MANIFEST, SST or WAL"))
      << s.ToString();
  EXPECT_EQ(std::vector<std::string>{"notes.txt"}, Files(""));
}

TEST_F(RepairTest, OpenDatabaseIsBusy) {
  ASSERT_OK(TryOpen());
  ASSERT_OK(db_->Put(WriteOptions(), "k", "v"));
  Status s = Repair();
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  EXPECT_EQ("v", Get("k"));
}

TEST_F(RepairTest, BadOptionsAreInvalidArgument) {
  ASSERT_OK(TryOpen());
  Close();
  options_.num_levels = 0;
  EXPECT_TRUE(Repair().IsInvalidArgument());
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// End-to-end tests of the DB: reads and writes, iterators, snapshots,
// flushes and compactions checked against a std::map model, reopening.

#include "cascadedb/db.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/env.h"
#include "cascadedb/filter_policy.h"
#include "cascadedb/listener.h"
#include "cascadedb/options.h"
#include "cascadedb/statistics.h"
#include "cascadedb/write_batch.h"
#include "tests/table/iterator_test_util.h"
#include "tests/testutil/env_wrappers.h"
#include "tests/testutil/test_util.h"
#include "util/mutex.h"
#include "util/random.h"
#include "util/thread_pool.h"
#include "util/writable_file_wrapper.h"

namespace cascadedb {
namespace {

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%08d", i);
  return buf;
}

class DBTest : public testing::Test {
 protected:
  DBTest() {
    options_.create_if_missing = true;
    // Small buffers so a few thousand writes flush and compact.
    options_.write_buffer_size = 64 << 10;
    options_.target_file_size_base = 64 << 10;
    options_.max_bytes_for_level_base = 256 << 10;
    options_.level0_file_num_compaction_trigger = 2;
    options_.stats_dump_period_sec = 0;
  }

  ~DBTest() override { db_.reset(); }

  void Open() { ASSERT_OK(DB::Open(options_, dir_.path(), &db_)); }
  Status TryOpen() { return DB::Open(options_, dir_.path(), &db_); }
  void Reopen() {
    db_.reset();
    Open();
  }

  std::string Get(const std::string& key, const Snapshot* snapshot = nullptr) {
    ReadOptions ro;
    ro.snapshot = snapshot;
    std::string value;
    Status s = db_->Get(ro, key, &value);
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return s.ToString();
    return value;
  }

  std::string Contents(const Snapshot* snapshot = nullptr) {
    ReadOptions ro;
    ro.snapshot = snapshot;
    std::unique_ptr<Iterator> it(db_->NewIterator(ro));
    std::string result;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      result += it->key().ToString() + "=" + it->value().ToString() + ",";
    }
    EXPECT_OK(it->status());
    return result;
  }

  int NumFilesAtLevel(int level) {
    uint64_t n = 0;
    EXPECT_TRUE(db_->GetIntProperty(
        "cascadedb.num-files-at-level" + std::to_string(level), &n));
    return static_cast<int>(n);
  }

  // Tables in the current Version, all levels.
  int TotalFiles() {
    int n = 0;
    for (int level = 0; level < options_.num_levels; ++level) {
      n += NumFilesAtLevel(level);
    }
    return n;
  }

  // rounds flushed tables, each holding Key(0..keys) = "v<round>".
  void WriteFlushedRounds(int rounds, int keys) {
    for (int round = 0; round < rounds; ++round) {
      for (int i = 0; i < keys; ++i) {
        ASSERT_OK(
            db_->Put(WriteOptions(), Key(i), "v" + std::to_string(round)));
      }
      ASSERT_OK(db_->Flush(FlushOptions()));
    }
  }

  // Key(0..keys) with 100-byte values drawn from seed, flushed and
  // compacted. Half of each value repeats, so blocks compress: a mapped
  // table's uncompressed blocks are read in place and never cached.
  void WriteCompressibleTable(int keys, uint32_t seed) {
    uint32_t state = seed;
    for (int i = 0; i < keys; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i),
                         test::RandomBytes(&state, 50) + std::string(50, 'v')));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    ASSERT_OK(db_->WaitForCompact());
  }

  // Bodies shared by tests that run them with different options.
  void RunRandomOpsMatchModel();
  void RunParallelMemtableInserts();

  test::TempDir dir_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(DBTest, PutGetDelete) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), "b", "2"));
  EXPECT_EQ("1", Get("a"));
  EXPECT_EQ("2", Get("b"));
  EXPECT_EQ("NOT_FOUND", Get("c"));
  ASSERT_OK(db_->Put(WriteOptions(), "a", "3"));
  EXPECT_EQ("3", Get("a"));
  ASSERT_OK(db_->Delete(WriteOptions(), "a"));
  EXPECT_EQ("NOT_FOUND", Get("a"));
  ASSERT_OK(db_->Delete(WriteOptions(), "never-there"));
  EXPECT_EQ("b=2,", Contents());
}

TEST_F(DBTest, EmptyKeyAndValue) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "", "empty-key"));
  ASSERT_OK(db_->Put(WriteOptions(), "k", ""));
  EXPECT_EQ("empty-key", Get(""));
  EXPECT_EQ("", Get("k"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_EQ("empty-key", Get(""));
  EXPECT_EQ("", Get("k"));
}

TEST_F(DBTest, WriteBatchIsAtomicAndOrdered) {
  Open();
  WriteBatch batch;
  ASSERT_OK(batch.Put("x", "1"));
  ASSERT_OK(batch.Delete("x"));
  ASSERT_OK(batch.Put("y", "2"));
  ASSERT_OK(db_->Write(WriteOptions(), &batch));
  EXPECT_EQ("NOT_FOUND", Get("x"));
  EXPECT_EQ("2", Get("y"));
  EXPECT_EQ(3u, db_->GetLatestSequenceNumber());
}

TEST_F(DBTest, ValuesSurviveReopen) {
  Open();
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), "v" + std::to_string(i)));
  }
  ASSERT_OK(db_->Delete(WriteOptions(), Key(7)));
  Reopen();
  EXPECT_EQ("v3", Get(Key(3)));
  EXPECT_EQ("NOT_FOUND", Get(Key(7)));
  EXPECT_EQ(101u, db_->GetLatestSequenceNumber());
  // Writes continue after the recovered sequence.
  ASSERT_OK(db_->Put(WriteOptions(), Key(3), "new"));
  Reopen();
  EXPECT_EQ("new", Get(Key(3)));
}

TEST_F(DBTest, FlushThenReadFromTable) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), "b", "2"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_EQ(1, NumFilesAtLevel(0));
  ASSERT_OK(db_->Delete(WriteOptions(), "a"));
  EXPECT_EQ("NOT_FOUND", Get("a"));
  EXPECT_EQ("2", Get("b"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_EQ("NOT_FOUND", Get("a"));
  EXPECT_EQ("b=2,", Contents());
  Reopen();
  EXPECT_EQ("NOT_FOUND", Get("a"));
  EXPECT_EQ("b=2,", Contents());
}

TEST_F(DBTest, IteratorDirectionsAndSeeks) {
  Open();
  for (const char* k : {"a", "c", "e", "g"}) {
    ASSERT_OK(db_->Put(WriteOptions(), k, std::string(k) + "v"));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Delete(WriteOptions(), "e"));
  ASSERT_OK(db_->Put(WriteOptions(), "d", "dv"));
  std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
  it->SeekToLast();
  std::string backward;
  for (; it->Valid(); it->Prev()) backward += it->key().ToString();
  EXPECT_EQ("gdca", backward);
  it->Seek("b");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("c", it->key().ToString());
  it->Next();
  EXPECT_EQ("d", it->key().ToString());
  it->Prev();
  EXPECT_EQ("c", it->key().ToString());
  it->Prev();
  EXPECT_EQ("a", it->key().ToString());
  it->Next();
  EXPECT_EQ("c", it->key().ToString());
  it->SeekForPrev("f");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("d", it->key().ToString());
  EXPECT_EQ("dv", it->value().ToString());
  it->Seek("h");
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev("0");
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());
}

TEST_F(DBTest, SnapshotsSeeTheirPast) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "k", "v1"));
  const Snapshot* s1 = db_->GetSnapshot();
  ASSERT_OK(db_->Put(WriteOptions(), "k", "v2"));
  ASSERT_OK(db_->Delete(WriteOptions(), "gone"));
  const Snapshot* s2 = db_->GetSnapshot();
  ASSERT_OK(db_->Delete(WriteOptions(), "k"));
  EXPECT_EQ("v1", Get("k", s1));
  EXPECT_EQ("v2", Get("k", s2));
  EXPECT_EQ("NOT_FOUND", Get("k"));
  // Flushes and compactions keep what snapshots can see.
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ("v1", Get("k", s1));
  EXPECT_EQ("v2", Get("k", s2));
  EXPECT_EQ("k=v1,", Contents(s1));
  EXPECT_EQ("NOT_FOUND", Get("k"));
  db_->ReleaseSnapshot(s1);
  db_->ReleaseSnapshot(s2);
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ("NOT_FOUND", Get("k"));
  EXPECT_EQ("", Contents());
}

TEST_F(DBTest, RandomOpsMatchModelThroughFlushesAndCompactions) {
  RunRandomOpsMatchModel();
}

// The same with each memtable structure named explicitly, whatever the
// default.
TEST_F(DBTest, RandomOpsMatchModelWithSkipListMemtable) {
  options_.memtable_rep = MemTableRep::kSkipList;
  RunRandomOpsMatchModel();
}

TEST_F(DBTest, RandomOpsMatchModelWithBTreeMemtable) {
  options_.memtable_rep = MemTableRep::kBTree;
  RunRandomOpsMatchModel();
}

// With blocks of a few entries, compactions copy many blocks whole
// (Options::compaction_copy_blocks); the results must not change.
TEST_F(DBTest, RandomOpsMatchModelWithBlocksCopied) {
  options_.block_size = 256;
  options_.statistics = CreateDBStatistics();
  RunRandomOpsMatchModel();
  EXPECT_GT(options_.statistics->getTickerCount(kCompactCopiedBytes), 0u);
}

// A sparse L0 over a dense bottom level: the bottom level's blocks between
// the new keys are written out whole, except those holding a key that is
// overwritten or deleted; a snapshot from before still sees the old
// values, and each key is found by Get (the copied keys are in the output
// tables' filters). With the option off, nothing is copied and the
// results are the same.
class DBCopyBlocksTest : public DBTest,
                         public ::testing::WithParamInterface<bool> {};

TEST_P(DBCopyBlocksTest, SparseUpdatesOverADenseLevel) {
  const bool copy = GetParam();
  options_.compaction_copy_blocks = copy;
  options_.block_size = 1024;
  options_.write_buffer_size = 4 << 20;  // the updates in one L0 file
  options_.target_file_size_base = 256 << 10;
  options_.statistics = CreateDBStatistics();
  Open();
  uint32_t state = 301;
  std::map<std::string, std::string> model;
  for (int i = 0; i < 3000; ++i) {
    const std::string value = test::RandomBytes(&state, 300);
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), value));
    model[Key(i)] = value;
  }
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  const uint64_t copied_before =
      options_.statistics->getTickerCount(kCompactCopiedBytes);
  const std::map<std::string, std::string> old_model = model;
  const Snapshot* before = db_->GetSnapshot();
  for (int i = 0; i < 3000; i += 61) {
    if (i % 2 == 0) {
      ASSERT_OK(db_->Delete(WriteOptions(), Key(i)));
      model.erase(Key(i));
    } else {
      const std::string value = test::RandomBytes(&state, 300);
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), value));
      model[Key(i)] = value;
    }
    const std::string between = Key(i + 30) + "x";
    ASSERT_OK(db_->Put(WriteOptions(), between, "new"));
    model[between] = "new";
  }
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  const uint64_t copied =
      options_.statistics->getTickerCount(kCompactCopiedBytes) - copied_before;
  if (copy) {
    EXPECT_GT(copied, 100u << 10);
  } else {
    EXPECT_EQ(0u, copied);
  }

  auto contents = [](const std::map<std::string, std::string>& m) {
    std::string result;
    for (const auto& [k, v] : m) result += k + "=" + v + ",";
    return result;
  };
  for (int round = 0; round < 2; ++round) {
    ASSERT_EQ(contents(model), Contents()) << "round " << round;
    ASSERT_EQ(contents(old_model), Contents(before)) << "round " << round;
    for (const auto& [k, v] : model) ASSERT_EQ(v, Get(k)) << k;
    for (int i = 0; i < 3000; i += 61) {
      ASSERT_EQ(old_model.at(Key(i)), Get(Key(i), before));
    }
    if (round == 0) {
      // The snapshot's old entries go with it; the result stays the same.
      db_->ReleaseSnapshot(before);
      before = nullptr;
      ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
      Reopen();
      before = db_->GetSnapshot();
      ASSERT_EQ(contents(model), Contents(before));
      db_->ReleaseSnapshot(before);
      break;
    }
  }
}

// Keys 20 apart, with a suffix, make most index keys shortened separators
// ("key0000013" between "key00000120-entry" and "key00000140-entry"),
// whose trailer carries kValueTypeForSeek. Blocks under such index keys
// are copied like any other: with a few updates spread over the level,
// most of it is written out as stored.
TEST_F(DBTest, BlocksUnderShortenedIndexKeysAreCopied) {
  options_.compaction_copy_blocks = true;
  options_.block_size = 1024;
  options_.write_buffer_size = 4 << 20;
  options_.target_file_size_base = 4 << 20;  // one bottom file
  options_.statistics = CreateDBStatistics();
  Open();
  auto key = [](int i) { return Key(20 * i) + "-entry"; };
  uint32_t state = 301;
  for (int i = 0; i < 3000; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), key(i), test::RandomBytes(&state, 300)));
  }
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  uint64_t level_bytes = 0;
  ASSERT_TRUE(
      db_->GetIntProperty("cascadedb.live-sst-files-size", &level_bytes));
  const uint64_t copied_before =
      options_.statistics->getTickerCount(kCompactCopiedBytes);
  for (int i = 0; i < 3000; i += 100) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(20 * i + 10), "new"));
  }
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  const uint64_t copied =
      options_.statistics->getTickerCount(kCompactCopiedBytes) - copied_before;
  EXPECT_GT(copied, level_bytes * 8 / 10)
      << copied << " of " << level_bytes << " bytes copied";
  for (int i = 0; i < 3000; i += 7) {
    ASSERT_EQ(300u, Get(key(i)).size()) << key(i);
  }
  EXPECT_EQ("new", Get(Key(20 * 2900 + 10)));
}

// A Get consults every L0 table whose range holds its key, newest first,
// after prefetching their filters' lines (Version::Get). Versions and
// deletions of keys spread over six L0 tables, some of them covering only
// part of the key space, and over L1, under a snapshot and without: every
// Get, for keys present, deleted and absent, agrees with a model.
TEST_F(DBTest, GetsMatchModelOverManyL0Tables) {
  options_.disable_auto_compactions = true;
  options_.filter_policy = NewBloomFilterPolicy(10);
  Open();
  std::map<std::string, std::string> model;
  for (int i = 0; i < 400; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), "l1-" + std::to_string(i)));
    model[Key(i)] = "l1-" + std::to_string(i);
  }
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  std::map<std::string, std::string> old_model;
  const Snapshot* snapshot = nullptr;
  for (int t = 0; t < 6; ++t) {
    // Odd tables cover a third of the keys only.
    const int begin = t % 2 == 0 ? 0 : 100 * (t / 2);
    const int end = t % 2 == 0 ? 400 : begin + 130;
    for (int i = begin; i < end; i += 2 + t) {
      const std::string v = "t" + std::to_string(t) + "-" + std::to_string(i);
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), v));
      model[Key(i)] = v;
    }
    for (int i = begin + t; i < end; i += 9 + t) {
      ASSERT_OK(db_->Delete(WriteOptions(), Key(i)));
      model.erase(Key(i));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    if (t == 2) {
      snapshot = db_->GetSnapshot();
      old_model = model;
    }
  }
  ASSERT_EQ(6, NumFilesAtLevel(0));
  for (const bool at_snapshot : {false, true}) {
    const auto& m = at_snapshot ? old_model : model;
    for (int i = 0; i < 420; ++i) {
      for (const std::string& k : {Key(i), Key(i) + "x"}) {
        auto it = m.find(k);
        const std::string want = it == m.end() ? "NOT_FOUND" : it->second;
        ASSERT_EQ(want, Get(k, at_snapshot ? snapshot : nullptr))
            << k << " at snapshot: " << at_snapshot;
      }
    }
  }
  db_->ReleaseSnapshot(snapshot);
}

// Seeks skip positioning the memtable, L0 tables and levels whose filters
// rule out the target, and the older ones below the one holding it
// (table/merging_iterator.h). Versions of one key in every kind of child,
// deletions in the newer ones, and a snapshot from the middle: random
// seeks, Next and Prev agree with a model, now and as of the snapshot.
TEST_F(DBTest, SeeksMatchModelOverMemtableL0AndLevels) {
  options_.disable_auto_compactions = true;
  options_.filter_policy = NewBloomFilterPolicy(10);
  options_.statistics = CreateDBStatistics();
  Open();
  std::map<std::string, std::string> model;
  auto put = [&](const std::string& k, const std::string& v) {
    ASSERT_OK(db_->Put(WriteOptions(), k, v));
    model[k] = v;
  };
  auto del = [&](const std::string& k) {
    ASSERT_OK(db_->Delete(WriteOptions(), k));
    model.erase(k);
  };
  for (int i = 0; i < 600; ++i) put(Key(i), "a" + std::to_string(i));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  for (int i = 0; i < 600; i += 3) put(Key(i), "b" + std::to_string(i));
  for (int i = 0; i < 600; i += 17) put(Key(i) + "x", "bx");
  ASSERT_OK(db_->Flush(FlushOptions()));
  const Snapshot* snapshot = db_->GetSnapshot();
  const std::map<std::string, std::string> old_model = model;
  for (int i = 0; i < 600; i += 5) put(Key(i), "c" + std::to_string(i));
  for (int i = 0; i < 600; i += 7) del(Key(i));
  ASSERT_OK(db_->Flush(FlushOptions()));
  for (int i = 0; i < 600; i += 11) put(Key(i), "d" + std::to_string(i));
  for (int i = 0; i < 600; i += 13) del(Key(i));
  ASSERT_GE(NumFilesAtLevel(0), 2);

  Random rnd(test::RandomSeed());
  auto target = [](Random* r) {
    std::string t = Key(static_cast<int>(r->Uniform(620)));
    if (r->OneIn(5)) t += r->OneIn(2) ? "x" : "!";
    return t;
  };
  for (const bool at_snapshot : {false, true}) {
    const auto& m = at_snapshot ? old_model : model;
    const std::vector<test::Entry> entries(m.begin(), m.end());
    ReadOptions read_options;
    if (at_snapshot) read_options.snapshot = snapshot;
    std::unique_ptr<Iterator> it(db_->NewIterator(read_options));
    test::CheckAgainstModel(it.get(), BytewiseComparator(), entries, &rnd, 4000,
                            target);
    ASSERT_FALSE(HasFatalFailure()) << "at snapshot: " << at_snapshot;
  }
  db_->ReleaseSnapshot(snapshot);

  // The statistics count the children seeks positioned and saved: Key(3)
  // is newest in the older L0 table, so L1 (older still) is left alone
  // and, as the next seek shows, never needed.
  Statistics* stats = options_.statistics.get();
  EXPECT_GT(stats->getTickerCount(kSeekChildSeeks), 0u);
  const uint64_t saved = stats->getTickerCount(kSeekChildSeeksSaved);
  std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
  it->Seek(Key(3));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("b3", it->value().ToString());
  it->Seek(Key(6));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("b6", it->value().ToString());
  EXPECT_GT(stats->getTickerCount(kSeekChildSeeksSaved), saved);
}

// The deletion thread (cascadedb:del) removes table files (".sst") only
// after a pause: its work on them is still under way when a racing caller
// looks.
class SlowTableRemovalEnv : public EnvWrapper {
 public:
  SlowTableRemovalEnv() : EnvWrapper(Env::Default()) {}
  Status RemoveFile(const std::string& fname) override {
    if (test::EndsWith(fname, ".sst") &&
        test::CurrentThreadName() == "cascadedb:del") {
      Env::Default()->SleepForMicroseconds(100000);
    }
    return EnvWrapper::RemoveFile(fname);
  }
};

// A damaged block of the output level fails the compaction (its checksum
// is checked before it could be copied) and nothing of it is installed.
// The tables the compactions before it made obsolete are gone when
// CompactRange returns, as they are after a CompactRange that succeeds:
// the deletions are slowed down, and the recycling that would rename them
// instead is off, so a CompactRange that did not wait for them fails here.
TEST_P(DBCopyBlocksTest, CorruptBlockFailsTheCompaction) {
  static SlowTableRemovalEnv env;  // outlives the fixture's DB
  options_.env = &env;
  options_.recycle_table_bytes = 0;
  options_.compaction_copy_blocks = GetParam();
  options_.compression = kNoCompression;
  options_.block_size = 1024;
  options_.write_buffer_size = 4 << 20;
  options_.target_file_size_base = 4 << 20;  // one bottom file
  Open();
  for (int i = 0; i < 3000; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), std::string(300, 'v')));
  }
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  db_.reset();
  const std::vector<std::string> tables =
      test::FilesWithSuffix(dir_.path(), ".sst");
  ASSERT_EQ(1u, tables.size());
  const std::string name = dir_.path() + "/" + tables[0];
  std::string contents;
  ASSERT_OK(ReadFileToString(Env::Default(), name, &contents));
  contents[contents.size() / 2] ^= 0x40;  // a value byte in a data block
  ASSERT_OK(WriteStringToFile(Env::Default(), contents, name));
  Open();
  for (int i = 0; i < 3000; i += 500) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i) + "x", "new"));
  }
  Status s = db_->CompactRange(CompactRangeOptions(), nullptr, nullptr);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("checksum")) << s.ToString();
  // The failed job's outputs are deleted, and so is the flushed table the
  // compaction into L1 replaced: only the live tables remain, the damaged
  // one among them.
  const int live = TotalFiles();
  const std::vector<std::string> after =
      test::FilesWithSuffix(dir_.path(), ".sst");
  EXPECT_EQ(static_cast<size_t>(live), after.size());
  EXPECT_NE(after.end(), std::find(after.begin(), after.end(), tables[0]));
}

INSTANTIATE_TEST_SUITE_P(CopyOnAndOff, DBCopyBlocksTest, ::testing::Bool());

// Random puts and deletes checked against a std::map through flushes,
// compactions, a reopen and a full compaction.
void DBTest::RunRandomOpsMatchModel() {
  Open();
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  std::map<std::string, std::string> model;
  for (int i = 0; i < 20000; ++i) {
    const std::string key = Key(static_cast<int>(rnd.Uniform(3000)));
    if (rnd.OneIn(5)) {
      ASSERT_OK(db_->Delete(WriteOptions(), key));
      model.erase(key);
    } else {
      const std::string value(10 + rnd.Uniform(90), 'a' + (i % 26));
      ASSERT_OK(db_->Put(WriteOptions(), key, value));
      model[key] = value;
    }
    if (i % 5000 == 4999) {
      ASSERT_OK(db_->WaitForCompact());
      for (int k = 0; k < 3000; k += 37) {
        auto it = model.find(Key(k));
        ASSERT_EQ(it == model.end() ? "NOT_FOUND" : it->second, Get(Key(k)))
            << "seed " << seed << " key " << Key(k);
      }
    }
  }
  ASSERT_OK(db_->WaitForCompact());
  uint64_t deeper = 0;
  for (int level = 1; level < options_.num_levels; ++level) {
    deeper += NumFilesAtLevel(level);
  }
  EXPECT_GT(deeper, 0u) << "compactions should have moved data below L0";

  auto check_all = [&] {
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    auto m = model.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_NE(m, model.end());
      ASSERT_EQ(m->first, it->key().ToString()) << "seed " << seed;
      ASSERT_EQ(m->second, it->value().ToString());
    }
    ASSERT_OK(it->status());
    EXPECT_EQ(m, model.end());
    auto r = model.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
      ASSERT_NE(r, model.rend());
      ASSERT_EQ(r->first, it->key().ToString());
    }
    EXPECT_EQ(r, model.rend());
  };
  check_all();
  Reopen();
  check_all();
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  check_all();
}

TEST_F(DBTest, ConcurrentWritersAndReaders) {
  Open();
  constexpr int kThreads = 8;
  constexpr int kPerThread = 1000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string key = Key(t * kPerThread + i);
        WriteOptions wo;
        wo.sync = (i % 500 == 0);
        EXPECT_OK(db_->Put(wo, key, key));
        if (i % 7 == 0) {
          std::string v;
          EXPECT_OK(db_->Get(ReadOptions(), key, &v));
          EXPECT_EQ(key, v);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_OK(db_->WaitForCompact());
  for (int i = 0; i < kThreads * kPerThread; i += 13) {
    ASSERT_EQ(Key(i), Get(Key(i)));
  }
  EXPECT_EQ(static_cast<uint64_t>(kThreads * kPerThread),
            db_->GetLatestSequenceNumber());
  Reopen();
  for (int i = 0; i < kThreads * kPerThread; i += 13) {
    ASSERT_EQ(Key(i), Get(Key(i)));
  }
}

TEST_F(DBTest, ParallelMemtableInsertsLoseNothing) {
  RunParallelMemtableInserts();
}

TEST_F(DBTest, ParallelMemtableInsertsLoseNothingWithSkipList) {
  options_.memtable_rep = MemTableRep::kSkipList;
  RunParallelMemtableInserts();
}

TEST_F(DBTest, ParallelMemtableInsertsLoseNothingWithBTree) {
  options_.memtable_rep = MemTableRep::kBTree;
  RunParallelMemtableInserts();
}

void DBTest::RunParallelMemtableInserts() {
  options_.allow_concurrent_memtable_write = true;
  Open();
  constexpr int kThreads = 8;
  constexpr int kPerThread = 1500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < kPerThread; ++i) {
        WriteBatch batch;  // two records per write: sequences must interleave
        const std::string key = Key(t * kPerThread + i);
        EXPECT_OK(batch.Put(key, key));
        EXPECT_OK(batch.Put(key + "b", key));
        EXPECT_OK(db_->Write(WriteOptions(), &batch));
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(static_cast<uint64_t>(2 * kThreads * kPerThread),
            db_->GetLatestSequenceNumber());
  for (int i = 0; i < kThreads * kPerThread; i += 7) {
    ASSERT_EQ(Key(i), Get(Key(i)));
    ASSERT_EQ(Key(i), Get(Key(i) + "b"));
  }
  Reopen();
  for (int i = 0; i < kThreads * kPerThread; i += 7) {
    ASSERT_EQ(Key(i), Get(Key(i) + "b"));
  }
}

TEST_F(DBTest, CompactRangeLeavesOneLevel) {
  Open();
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 500; ++i) {
      ASSERT_OK(
          db_->Put(WriteOptions(), Key(i), std::string(100, 'a' + round)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(0, NumFilesAtLevel(0));
  int levels_with_files = 0;
  for (int level = 0; level < options_.num_levels; ++level) {
    if (NumFilesAtLevel(level) > 0) ++levels_with_files;
  }
  EXPECT_EQ(1, levels_with_files);
  EXPECT_EQ(std::string(100, 'd'), Get(Key(10)));
}

TEST_F(DBTest, MissingDBAndErrorIfExists) {
  options_.create_if_missing = false;
  Status s = TryOpen();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("does not exist"));
  options_.create_if_missing = true;
  Open();
  db_.reset();
  options_.error_if_exists = true;
  s = TryOpen();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("exists"));
}

TEST_F(DBTest, BadOptionsAreAllReported) {
  options_.write_buffer_size = 1;
  options_.num_levels = 1;
  Status s = TryOpen();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(std::string::npos, s.ToString().find("write_buffer_size"));
  EXPECT_NE(std::string::npos, s.ToString().find("num_levels"));
  EXPECT_EQ(nullptr, db_);
}

TEST_F(DBTest, SecondOpenIsRefusedByTheLock) {
  Open();
  std::unique_ptr<DB> second;
  Status s = DB::Open(options_, dir_.path(), &second);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string::npos, s.ToString().find("LOCK")) << s.ToString();
}

TEST_F(DBTest, ComparatorMismatchIsRefused) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  db_.reset();
  options_.comparator = test::ReverseBytewiseComparator();
  Status s = TryOpen();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

TEST_F(DBTest, ReadOnlyOpenChangesNothing) {
  Open();
  for (int i = 0; i < 300; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), std::string(200, 'x')));
  }
  ASSERT_OK(db_->Put(WriteOptions(), "in-wal-only", "yes"));
  db_.reset();
  auto snapshot_dir = [&] {
    std::vector<std::string> children;
    EXPECT_OK(Env::Default()->GetChildren(dir_.path(), &children));
    std::map<std::string, std::string> contents;
    for (const std::string& c : children) {
      std::string data;
      EXPECT_OK(ReadFileToString(Env::Default(), dir_.File(c), &data));
      contents[c] = data;
    }
    return contents;
  };
  const auto before = snapshot_dir();
  std::unique_ptr<DB> ro;
  ASSERT_OK(DB::OpenForReadOnly(options_, dir_.path(), &ro));
  std::string value;
  ASSERT_OK(ro->Get(ReadOptions(), "in-wal-only", &value));
  EXPECT_EQ("yes", value);
  ASSERT_OK(ro->Get(ReadOptions(), Key(5), &value));
  EXPECT_TRUE(ro->Put(WriteOptions(), "a", "b").IsNotSupported());
  // Replaying the WAL wrote to a memtable, but no writes will follow: no
  // memtable blocks are prepared ahead of them.
  WritersHelper()->WaitForJobs();
  uint64_t prepared = 1;
  ASSERT_TRUE(
      ro->GetIntProperty("cascadedb.memtable-blocks-prepared", &prepared));
  EXPECT_EQ(0u, prepared);
  ro.reset();
  EXPECT_TRUE(before == snapshot_dir());
}

TEST_F(DBTest, DestroyRemovesEverything) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_FALSE(DestroyDB(dir_.path(), options_).ok());  // still open
  db_.reset();
  ASSERT_OK(DestroyDB(dir_.path(), options_));
  EXPECT_TRUE(Env::Default()->FileExists(dir_.path()).IsNotFound());
}

// Records the bytes_per_sync each new table and WAL is opened with.
class SyncOptionsEnv : public test::WritableFileHookEnv {
 public:
  SyncOptionsEnv() : WritableFileHookEnv(Env::Default()) {}
  std::set<uint64_t> Seen(const std::string& suffix) {
    std::lock_guard<std::mutex> l(mu_);
    return seen_[suffix];
  }

 private:
  Status OnWritableFile(const std::string& f, const EnvOptions& o,
                        const Status& s,
                        std::unique_ptr<WritableFile>* /*r*/) override {
    std::lock_guard<std::mutex> l(mu_);
    for (const char* suffix : {".sst", ".log"}) {
      if (test::EndsWith(f, suffix)) seen_[suffix].insert(o.bytes_per_sync);
    }
    return s;
  }
  std::mutex mu_;
  std::map<std::string, std::set<uint64_t>> seen_;
};

// bytes_per_sync is for tables (flushes and compactions), as in RocksDB;
// the WAL has wal_bytes_per_sync.
TEST_F(DBTest, BytesPerSyncIsForTablesAndWalBytesPerSyncForWals) {
  for (const auto& [sst, wal] :
       {std::pair<uint64_t, uint64_t>{1 << 20, 0}, {65536, 4096}}) {
    SyncOptionsEnv env;
    options_.env = &env;
    options_.bytes_per_sync = sst;
    options_.wal_bytes_per_sync = wal;
    Open();
    for (int round = 0; round < 5; ++round) {
      for (int i = 0; i < 100; ++i) {
        ASSERT_OK(db_->Put(WriteOptions(), Key(i), std::string(100, 'x')));
      }
      ASSERT_OK(db_->Flush(FlushOptions()));
    }
    ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    db_.reset();
    EXPECT_EQ(std::set<uint64_t>{sst}, env.Seen(".sst")) << sst;
    EXPECT_EQ(std::set<uint64_t>{wal}, env.Seen(".log")) << wal;
    ASSERT_OK(DestroyDB(dir_.path(), options_));
  }
  options_.env = Env::Default();
}

TEST_F(DBTest, ObsoleteFilesAreDeleted) {
  options_.recycle_log_file_num = 0;
  Open();
  for (int round = 0; round < 6; ++round) {
    for (int i = 0; i < 300; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), std::string(100, 'a')));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  std::vector<LiveFileMetaData> live;
  db_->GetLiveFilesMetaData(&live);
  EXPECT_EQ(live.size(), test::FilesWithSuffix(dir_.path(), ".sst").size());
  ASSERT_OK(db_->WaitForCompact());
  EXPECT_EQ(2u, test::FilesWithSuffix(dir_.path(), ".log").size())
      << "the live WAL and the next one, made ahead";
  db_.reset();
  EXPECT_EQ(1u, test::FilesWithSuffix(dir_.path(), ".log").size())
      << "Close deletes the unused next WAL";
}

// Fails the creation of the WAL that is made ahead after Open (the second
// one), leaving the others alone.
class FailSecondWalEnv : public test::WritableFileHookEnv {
 public:
  FailSecondWalEnv() : WritableFileHookEnv(Env::Default()) {}
  int wals() const { return wals_.load(); }

 private:
  Status OnWritableFile(const std::string& fname, const EnvOptions& /*options*/,
                        const Status& s,
                        std::unique_ptr<WritableFile>* result) override {
    if (s.ok() && test::EndsWith(fname, ".log") && ++wals_ == 2) {
      result->reset();
      return Status::IOError(fname, "injected");
    }
    return s;
  }

  std::atomic<int> wals_{0};
};

// The next WAL is made ahead of the memtable switch that needs it. If
// that fails, the switch makes it itself, and nothing is lost.
TEST_F(DBTest, ASwitchMakesTheWalThatCouldNotBeMadeAhead) {
  FailSecondWalEnv env;
  options_.env = &env;
  options_.recycle_log_file_num = 0;
  Open();
  ASSERT_OK(db_->WaitForCompact());
  ASSERT_EQ(2, env.wals()) << "the next WAL was tried ahead";
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(db_->Flush(FlushOptions()));  // a switch: a WAL made here
  ASSERT_OK(db_->Put(WriteOptions(), "b", "2"));
  ASSERT_OK(db_->WaitForCompact());
  EXPECT_EQ(4, env.wals()) << "the switch's own, then the next made ahead";
  Reopen();
  EXPECT_EQ("1", Get("a"));
  EXPECT_EQ("2", Get("b"));
  db_.reset();
}

// An Env that, when a background thread lists the DB's directory, checks
// that another thread can take the DB mutex meanwhile (by reading a
// property): every read and write takes that mutex, and a listing of a
// large directory takes long enough to hold them up.
class MutexProbingEnv : public EnvWrapper {
 public:
  MutexProbingEnv() : EnvWrapper(Env::Default()) {}
  ~MutexProbingEnv() override { JoinProbes(); }

  void Watch(DB* db, const std::string& dir) {
    MutexLock l(&mu_);
    db_ = db;
    dir_ = dir;
  }

  Status GetChildren(const std::string& dir,
                     std::vector<std::string>* result) override {
    DB* db = nullptr;
    {
      MutexLock l(&mu_);
      if (dir == dir_ &&
          test::CurrentThreadName().rfind("cascadedb:", 0) == 0) {
        db = db_;
        ++in_flight_;  // in the same hold as the check: Watch(nullptr)
                       // then JoinProbes sees every probe begun
      }
    }
    if (db != nullptr) {
      Probe(db);
      MutexLock l(&mu_);
      --in_flight_;
    }
    return EnvWrapper::GetChildren(dir, result);
  }

  // Waits for the probes begun before the last Watch, including those of
  // listings still going on and those still waiting for the DB mutex
  // (call before the DB goes).
  void JoinProbes() {
    for (;;) {
      {
        MutexLock l(&mu_);
        if (in_flight_ == 0) break;
      }
      Env::Default()->SleepForMicroseconds(1000);
    }
    std::vector<std::thread> probes;
    {
      MutexLock l(&mu_);
      probes.swap(probes_);
    }
    for (std::thread& t : probes) t.join();
  }

  int probes() const { return probes_done_.load() + blocked_.load(); }
  int blocked() const { return blocked_.load(); }

 private:
  void Probe(DB* db) {
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread probe([db, done] {
      uint64_t n = 0;
      db->GetIntProperty("cascadedb.num-immutable-mem-table", &n);
      done->store(true);
    });
    // The property takes microseconds, unless the listing holds the mutex
    // it needs: then it waits until the listing is over.
    if (test::WaitUntil([&done] { return done->load(); }, 1000, 500)) {
      probe.join();
      probes_done_++;
      return;
    }
    blocked_++;
    MutexLock l(&mu_);
    probes_.push_back(std::move(probe));
  }

  Mutex mu_;
  DB* db_ = nullptr;
  std::string dir_;
  std::vector<std::thread> probes_;
  int in_flight_ = 0;  // probes begun and not yet counted, under mu_
  std::atomic<int> probes_done_{0};
  std::atomic<int> blocked_{0};
};

// Flushes and compactions list the directory to find obsolete files
// without holding the DB mutex.
TEST_F(DBTest, ObsoleteFilesAreListedWithoutTheMutex) {
  MutexProbingEnv env;
  options_.env = &env;
  Open();
  env.Watch(db_.get(), dir_.path());
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 300; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), std::to_string(round)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  // The automatic compaction (L0 trigger 2), not CompactRange: a manual
  // compaction runs on the calling thread, whose listing is not probed,
  // and it could take the L0 files before the background one picked them.
  ASSERT_OK(db_->WaitForCompact());
  env.Watch(nullptr, "");
  env.JoinProbes();
  EXPECT_GE(env.probes(), 4);  // three flushes and a compaction at least
  EXPECT_EQ(0, env.blocked());
  db_.reset();
  options_.env = Env::Default();
}

// An Env that, once armed, holds the next listing of the DB's directory
// by one background thread, taken first, until a file has left the
// directory in a given way (a WAL written over under a new log's name, or
// a table removed): the listing then names a file that is gone.
class ListingHeldEnv : public EnvWrapper {
 public:
  enum class Until { kWalReused, kTableRemoved };

  ListingHeldEnv() : EnvWrapper(Env::Default()) {}

  Status ReuseWritableFile(const std::string& fname,
                           const std::string& old_fname,
                           std::unique_ptr<WritableFile>* result,
                           const EnvOptions& options) override {
    Status s = EnvWrapper::ReuseWritableFile(fname, old_fname, result, options);
    (s.ok() ? reuses_ : failed_reuses_)++;
    return s;
  }

  Status RemoveFile(const std::string& f) override {
    Status s = EnvWrapper::RemoveFile(f);
    if (s.ok() && test::EndsWith(f, ".sst")) removed_++;
    return s;
  }

  Status GetChildren(const std::string& dir,
                     std::vector<std::string>* result) override {
    Status s = EnvWrapper::GetChildren(dir, result);
    // dir_ and thread_ are read only once armed_ shows they were set.
    if (armed_.load() && dir == dir_ && test::CurrentThreadName() == thread_ &&
        armed_.exchange(false)) {
      std::atomic<int>& count =
          until_ == Until::kWalReused ? reuses_ : removed_;
      const int before = count.load();
      held_ = true;
      saw_it_ = test::WaitUntil([&] { return count.load() > before; }, 5000);
      held_ = false;
      held_done_ = true;
    }
    return s;
  }

  // thread: "cascadedb:high" (flushes) or "cascadedb:low" (compactions).
  void Arm(const std::string& dir, const std::string& thread, Until until) {
    dir_ = dir;
    thread_ = thread;
    until_ = until;
    armed_ = true;
  }
  bool held() const { return held_.load(); }
  bool held_done() const { return held_done_.load(); }
  // Whether the held listing saw what it waited for (not a timeout).
  bool saw_it() const { return saw_it_.load(); }
  int reuses() const { return reuses_.load(); }
  int failed_reuses() const { return failed_reuses_.load(); }

 private:
  std::string dir_;     // set before arming
  std::string thread_;  // set before arming
  Until until_ = Until::kWalReused;
  std::atomic<bool> armed_{false};
  std::atomic<bool> held_{false};
  std::atomic<bool> held_done_{false};
  std::atomic<bool> saw_it_{false};
  std::atomic<int> reuses_{0};
  std::atomic<int> failed_reuses_{0};
  std::atomic<int> removed_{0};
};

// A WAL written over while obsolete files were listed without the mutex
// is not kept for recycling again under its old name (which would make a
// later memtable switch rename a file that no longer exists).
TEST_F(DBTest, AWalWrittenOverDuringTheListingIsNotKeptAgain) {
  ListingHeldEnv env;
  options_.env = &env;
  options_.recycle_log_file_num = 2;
  Open();
  const std::string value(100, 'v');
  int next = 0;
  // Flushes make WALs obsolete, kept to be written over.
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 300; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(next++), value));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  ASSERT_GT(env.reuses(), 0);
  env.Arm(dir_.path(), "cascadedb:low", ListingHeldEnv::Until::kWalReused);
  // Writes fill memtables: the next compaction's listing is held, and
  // flushes and memtable switches go on meanwhile, keeping WALs and
  // writing over them.
  while (!env.held_done() && next < 200000) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(next++), value));
  }
  ASSERT_TRUE(env.held_done());
  ASSERT_TRUE(env.saw_it()) << "no WAL was written over during the listing";
  const int reuses = env.reuses();
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 300; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(next++), value));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  EXPECT_GT(env.reuses(), reuses);
  EXPECT_EQ(0, env.failed_reuses());
  Reopen();
  for (int i = 0; i < next; i += 97) EXPECT_EQ(value, Get(Key(i))) << i;
  EXPECT_EQ(value, Get(Key(next - 1)));
  db_.reset();
  options_.env = Env::Default();
}

class DeletionRecorder : public EventListener {
 public:
  void OnTableFileDeleted(const TableFileDeletionInfo& info) override {
    MutexLock l(&mu_);
    events_.emplace_back(info.file_number, info.status.ToString());
  }
  std::vector<std::pair<uint64_t, std::string>> events() {
    MutexLock l(&mu_);
    return events_;
  }

 private:
  Mutex mu_;
  std::vector<std::pair<uint64_t, std::string>> events_;
};

// A table deleted while a flush listed the directory without the mutex is
// not handed over again from that stale listing: listeners hear of each
// table's deletion once, and of none that failed.
TEST_F(DBTest, ATableDeletedDuringAStaleListingIsDeletedOnce) {
  ListingHeldEnv env;
  auto recorder = std::make_shared<DeletionRecorder>();
  options_.env = &env;
  options_.listeners.push_back(recorder);
  options_.disable_auto_compactions = true;
  options_.recycle_table_bytes = 0;  // obsolete tables are removed
  Open();
  const std::string value(100, 'v');
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 300; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), value));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  for (int i = 0; i < 300; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), value + "2"));
  }
  env.Arm(dir_.path(), "cascadedb:high", ListingHeldEnv::Until::kTableRemoved);
  // The flush's listing, taken with the three tables live, is held while
  // a compaction makes them obsolete and its deletions remove them.
  std::thread flusher([&] { ASSERT_OK(db_->Flush(FlushOptions())); });
  if (!test::WaitUntil([&env] { return env.held(); }, 5000)) {
    flusher.join();  // not left joinable: that would end the whole binary
    FAIL() << "the flush's listing was never held";
  }
  CompactRangeOptions cro;
  ASSERT_OK(db_->CompactRange(cro, nullptr, nullptr));
  flusher.join();
  // Flush returns once its table is installed, maybe before the listing.
  test::WaitUntil([&env] { return !env.held(); }, 10000);
  ASSERT_TRUE(env.saw_it()) << "no table was removed during the listing";
  ASSERT_OK(db_->CompactRange(cro, nullptr, nullptr));  // waits for deletions
  db_.reset();  // delivers the events still queued
  std::map<uint64_t, int> deletions;
  for (const auto& e : recorder->events()) {
    EXPECT_EQ("OK", e.second) << "table " << e.first;
    deletions[e.first]++;
  }
  EXPECT_GE(deletions.size(), 3u);
  for (const auto& d : deletions) {
    EXPECT_EQ(1, d.second) << "table " << d.first;
  }
  options_.env = Env::Default();
}

// An Env whose RemoveFile of tables blocks while held, recording the
// names of the threads that removed tables.
class HeldDeleteEnv : public EnvWrapper {
 public:
  HeldDeleteEnv() : EnvWrapper(Env::Default()) {}

  Status RemoveFile(const std::string& f) override {
    if (test::EndsWith(f, ".sst")) {
      const std::string name = test::CurrentThreadName();
      MutexLock l(&mu_);
      callers_.insert(name);
      ++waiting_;
      while (held_) cv_.Wait();
      --waiting_;
    }
    return EnvWrapper::RemoveFile(f);
  }

  void Hold() {
    MutexLock l(&mu_);
    held_ = true;
  }
  void Release() {
    MutexLock l(&mu_);
    held_ = false;
    cv_.SignalAll();
  }
  int Waiting() {
    MutexLock l(&mu_);
    return waiting_;
  }
  // Waits up to 10 s for a table removal to be held.
  bool WaitForHeldRemoval() {
    return test::WaitUntil([this] { return Waiting() > 0; }, 10000);
  }
  std::set<std::string> Callers() {
    MutexLock l(&mu_);
    return callers_;
  }

 private:
  Mutex mu_;
  CondVar cv_{&mu_};
  bool held_ = false;
  int waiting_ = 0;
  std::set<std::string> callers_;
};

int CountFiles(const std::string& dir, const std::string& suffix) {
  return static_cast<int>(test::FilesWithSuffix(dir, suffix).size());
}

// Tests with a HeldDeleteEnv: the DB goes before the Env does, even when a
// test stops at a failed ASSERT.
class DBDeleteTest : public DBTest {
 protected:
  DBDeleteTest() {
    options_.env = &env_;
    // Tables are deleted, not kept to be written over (the recycling has
    // tests of its own below).
    options_.recycle_table_bytes = 0;
  }
  ~DBDeleteTest() override { db_.reset(); }

  // Flushes, failing (and releasing the held removals, so the test can
  // end) if the flush takes 20 s: a flush may be done by the compaction
  // thread, which must not be stuck behind a held removal either.
  testing::AssertionResult FlushNotHeldUp() {
    auto flushed = std::async(std::launch::async,
                              [&] { return db_->Flush(FlushOptions()); });
    if (flushed.wait_for(std::chrono::seconds(20)) !=
        std::future_status::ready) {
      env_.Release();
      flushed.get().IgnoreError();
      return testing::AssertionFailure()
             << "a flush waited for a held table removal";
    }
    const Status s = flushed.get();
    if (!s.ok()) return testing::AssertionFailure() << s.ToString();
    return testing::AssertionSuccess();
  }

  HeldDeleteEnv env_;
};

TEST_F(DBDeleteTest, ObsoleteTablesAreDeletedOnAThreadOfTheirOwn) {
  // Deleting a table can wait for the device; compactions must not wait
  // for it. With every table removal held, compactions still finish; the
  // tables go once released, and WaitForCompact returns only after that.
  HeldDeleteEnv& env = env_;
  Open();
  env.Hold();
  int round = 0;
  auto write_round = [&] {
    // The same keys each round: L0 files overlap, so compactions merge
    // them (disjoint files would only be moved down).
    for (int i = 0; i < 300; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), "v" + std::to_string(round)));
    }
    ASSERT_TRUE(FlushNotHeldUp());
    ++round;
  };
  while (round < 20 && env.Waiting() == 0) write_round();
  ASSERT_TRUE(env.WaitForHeldRemoval());
  uint64_t before = 0, after = 0;
  ASSERT_TRUE(
      db_->GetIntProperty("cascadedb.compaction-bytes-written", &before));
  for (int i = 0; i < 4; ++i) write_round();
  // Compactions went on while a removal was held (WaitForCompact would
  // wait for the removal too).
  test::WaitUntil(
      [&] {
        return db_->GetIntProperty("cascadedb.compaction-bytes-written",
                                   &after) &&
               after > before;
      },
      10000);
  EXPECT_GT(after, before);
  EXPECT_GE(env.Waiting(), 1);
  env.Release();
  ASSERT_OK(db_->WaitForCompact());
  std::vector<LiveFileMetaData> live;
  db_->GetLiveFilesMetaData(&live);
  EXPECT_EQ(static_cast<int>(live.size()), CountFiles(dir_.path(), ".sst"));
  EXPECT_EQ(std::set<std::string>{"cascadedb:del"}, env.Callers());
  EXPECT_EQ("v" + std::to_string(round - 1), Get(Key(5)));
}

TEST_F(DBDeleteTest, CloseWaitsForHeldDeletions) {
  HeldDeleteEnv& env = env_;
  Open();
  env.Hold();
  for (int round = 0; round < 20 && env.Waiting() == 0; ++round) {
    ASSERT_OK(db_->Put(WriteOptions(), "k", std::to_string(round)));
    ASSERT_TRUE(FlushNotHeldUp());  // L0 compactions from 2 files
  }
  ASSERT_TRUE(env.WaitForHeldRemoval());
  std::thread releaser([&] {
    Env::Default()->SleepForMicroseconds(50 * 1000);
    env.Release();
  });
  db_.reset();  // Close: returns only after the held removal went through
  releaser.join();
  EXPECT_EQ(0, env.Waiting());
  Open();
  // A compaction the reopened DB starts at once has an output on disk that
  // is not live yet: let it finish before counting.
  ASSERT_OK(db_->WaitForCompact());
  std::vector<LiveFileMetaData> live;
  db_->GetLiveFilesMetaData(&live);
  EXPECT_EQ(static_cast<int>(live.size()), CountFiles(dir_.path(), ".sst"));
  EXPECT_NE("NOT_FOUND", Get("k"));
}

// Counts the tables created fresh and those written over recycled files
// (and how many of the latter were opened without truncate_on_sync).
class TableReuseCountingEnv : public EnvWrapper {
 public:
  TableReuseCountingEnv() : EnvWrapper(Env::Default()) {}

  Status NewWritableFile(const std::string& f, std::unique_ptr<WritableFile>* r,
                         const EnvOptions& o) override {
    if (test::EndsWith(f, ".sst")) ++fresh;
    return EnvWrapper::NewWritableFile(f, r, o);
  }
  Status ReuseWritableFile(const std::string& f, const std::string& old,
                           std::unique_ptr<WritableFile>* r,
                           const EnvOptions& o) override {
    if (test::EndsWith(f, ".sst")) {
      ++reused;
      if (!test::EndsWith(old, ".recycle")) ++not_from_recycled;
      if (!o.truncate_on_sync) ++not_cut_at_sync;
    }
    return EnvWrapper::ReuseWritableFile(f, old, r, o);
  }

  std::atomic<int> fresh{0};
  std::atomic<int> reused{0};
  std::atomic<int> not_from_recycled{0};
  std::atomic<int> not_cut_at_sync{0};
};

// Random writes and deletes that flush and compact many times, checked
// against a model, with obsolete tables kept (or not) for new ones.
void WriteRandomOpsWithModel(DB* db, uint32_t seed,
                             std::map<std::string, std::string>* model) {
  Random rnd(seed);
  for (int i = 0; i < 6000; ++i) {
    const std::string key = Key(static_cast<int>(rnd.Uniform(1500)));
    if (rnd.OneIn(8)) {
      ASSERT_OK(db->Delete(WriteOptions(), key));
      model->erase(key);
    } else {
      const std::string value(50 + rnd.Uniform(400),
                              static_cast<char>('a' + rnd.Uniform(26)));
      ASSERT_OK(db->Put(WriteOptions(), key, value));
      (*model)[key] = value;
    }
  }
}

TEST_F(DBTest, NewTablesAreWrittenOverRecycledObsoleteTables) {
  TableReuseCountingEnv env;
  options_.env = &env;
  options_.recycle_table_bytes = 200 << 10;  // about three tables
  Open();
  std::map<std::string, std::string> model;
  const uint32_t seed = test::RandomSeed();
  WriteRandomOpsWithModel(db_.get(), seed, &model);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK(db_->WaitForCompact());
  EXPECT_GT(env.fresh.load(), 0);  // before any table was obsolete
  // Tables are kept as the compactions that obsolete them end, which in a
  // slow build can be after the last flush above; once some are kept, the
  // next new table is written over one.
  ASSERT_GT(CountFiles(dir_.path(), ".recycle"), 0);
  const int reused_before = env.reused.load();
  WriteRandomOpsWithModel(db_.get(), seed + 1, &model);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_GT(env.reused.load(), reused_before);
  ASSERT_OK(db_->WaitForCompact());
  EXPECT_EQ(0, env.not_from_recycled.load());
  EXPECT_EQ(0, env.not_cut_at_sync.load());
  uint64_t kept_bytes = 0;
  for (const std::string& name :
       test::FilesWithSuffix(dir_.path(), ".recycle")) {
    uint64_t size = 0;
    ASSERT_OK(Env::Default()->GetFileSize(dir_.File(name), &size));
    kept_bytes += size;
  }
  EXPECT_LE(kept_bytes, 200u << 10);
  auto check = [&] {
    for (int i = 0; i < 1500; ++i) {
      auto it = model.find(Key(i));
      EXPECT_EQ(it == model.end() ? "NOT_FOUND" : it->second, Get(Key(i)))
          << Key(i);
    }
    std::unique_ptr<Iterator> iter(db_->NewIterator(ReadOptions()));
    auto m = model.begin();
    for (iter->SeekToFirst(); iter->Valid(); iter->Next(), ++m) {
      ASSERT_NE(model.end(), m);
      EXPECT_EQ(m->first, iter->key().ToString());
      EXPECT_EQ(m->second, iter->value().ToString());
    }
    EXPECT_OK(iter->status());
    EXPECT_EQ(model.end(), m);
  };
  check();
  // Close deletes the kept files; the tables written over old ones read
  // back after a reopen.
  db_.reset();
  EXPECT_EQ(0, CountFiles(dir_.path(), ".recycle"));
  Open();
  check();
  db_.reset();  // before the Env goes
}

TEST_F(DBTest, WithoutTableRecyclingEveryTableIsAFreshFile) {
  TableReuseCountingEnv env;
  options_.env = &env;
  options_.recycle_table_bytes = 0;
  Open();
  std::map<std::string, std::string> model;
  WriteRandomOpsWithModel(db_.get(), test::RandomSeed(), &model);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK(db_->WaitForCompact());
  EXPECT_EQ(0, env.reused.load());
  EXPECT_EQ(0, CountFiles(dir_.path(), ".recycle"));
  for (const auto& kv : model) EXPECT_EQ(kv.second, Get(kv.first));
  db_.reset();
}

// Records the EnvOptions each WAL is opened with, new or written over (as
// SyncOptionsEnv does bytes_per_sync), and counts the WALs written over.
class WalOptionsEnv : public test::WritableFileHookEnv {
 public:
  WalOptionsEnv() : WritableFileHookEnv(Env::Default()) {}

  Status ReuseWritableFile(const std::string& f, const std::string& old,
                           std::unique_ptr<WritableFile>* r,
                           const EnvOptions& o) override {
    if (test::EndsWith(f, ".log")) ++reused_wals_;
    return WritableFileHookEnv::ReuseWritableFile(f, old, r, o);
  }

  std::vector<EnvOptions> wal_options() {
    MutexLock l(&mu_);
    return wal_options_;
  }
  int reused_wals() const { return reused_wals_.load(); }

 private:
  Status OnWritableFile(const std::string& f, const EnvOptions& o,
                        const Status& s,
                        std::unique_ptr<WritableFile>* /*r*/) override {
    if (test::EndsWith(f, ".log")) {
      MutexLock l(&mu_);
      wal_options_.push_back(o);
    }
    return s;
  }

  Mutex mu_;
  std::vector<EnvOptions> wal_options_ GUARDED_BY(mu_);
  std::atomic<int> reused_wals_{0};
};

// Through mmap, a WAL stays mapped whole (at most about a memtable), and
// the mappings of every closed WAL that may be written again are parked
// (the immutable memtables' and the recycled ones), so a recycled WAL
// takes no page fault; small memtables keep the Env's defaults.
TEST_F(DBTest, WalsAskToStayMappedWholeForTheirReuse) {
  struct Case {
    size_t write_buffer_size;
    int max_write_buffer_number;
    size_t recycle_log_file_num;
    size_t kept;
    size_t parked;
  };
  const size_t kMiB = 1 << 20;
  const size_t region = EnvOptions::kMaxMmapRegion;
  const EnvOptions defaults;
  const Case cases[] = {
      {64 * kMiB, 2, 2, 64 * kMiB, 3 * (64 * kMiB + region)},
      {20 * kMiB, 4, 1, 20 * kMiB, 4 * (20 * kMiB + region)},
      {4 * kMiB, 2, 2, defaults.mmap_kept_bytes, defaults.mmap_parked_bytes},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.write_buffer_size);
    WalOptionsEnv env;
    options_.env = &env;
    options_.allow_mmap_writes = true;
    options_.write_buffer_size = c.write_buffer_size;
    options_.max_write_buffer_number = c.max_write_buffer_number;
    options_.recycle_log_file_num = c.recycle_log_file_num;
    Open();
    // Flushes make WALs obsolete, kept and written over.
    for (int round = 0; round < 4; ++round) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(round), "v"));
      ASSERT_OK(db_->Flush(FlushOptions()));
    }
    db_.reset();
    for (const EnvOptions& wal : env.wal_options()) {
      EXPECT_TRUE(wal.use_mmap_writes);
      EXPECT_EQ(c.kept, wal.mmap_kept_bytes);
      EXPECT_EQ(c.parked, wal.mmap_parked_bytes);
    }
    EXPECT_GT(env.reused_wals(), 0);
    ASSERT_OK(DestroyDB(dir_.path(), options_));
    options_.env = Env::Default();
  }
}

// A kept file outlives its DB only if the process dies: the next Open
// deletes it (it is no table), whatever its number.
TEST_F(DBTest, RecycledFilesLeftBehindAreDeletedAtOpen) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "k", "v"));
  db_.reset();
  ASSERT_OK(WriteStringToFile(Env::Default(), "old table",
                              dir_.File("000003.recycle")));
  ASSERT_OK(WriteStringToFile(Env::Default(), "old table",
                              dir_.File("999999.recycle")));
  Open();
  EXPECT_EQ("v", Get("k"));
  db_.reset();  // waits for the deletions
  EXPECT_EQ(0, CountFiles(dir_.path(), ".recycle"));
}

// An Env that can hold, while armed, the Close of a WAL (an old WAL closed
// by the flush that made it obsolete), the destruction of a table's
// RandomAccessFile (a table reader closed when its table becomes
// obsolete), and the rename of a temporary file into place (CURRENT, when
// a new MANIFEST starts). The closes can take milliseconds for real (an
// unmap, a synchronous discard); every write takes the DB mutex, so
// neither may happen under it. It also notes removals of temporary files.
class HeldCloseEnv : public test::WritableFileHookEnv {
 public:
  HeldCloseEnv() : WritableFileHookEnv(Env::Default()) {}

  Status RenameFile(const std::string& src, const std::string& dst) override {
    if (test::EndsWith(src, ".dbtmp")) {
      WaitWhileHeld(&hold_temp_renames_);
    }
    return target()->RenameFile(src, dst);
  }
  Status RemoveFile(const std::string& f) override {
    if (test::EndsWith(f, ".dbtmp")) {
      MutexLock l(&mu_);
      ++temp_removals_;
      cv_.SignalAll();
    }
    return target()->RemoveFile(f);
  }

  Status NewRandomAccessFile(const std::string& f,
                             std::unique_ptr<RandomAccessFile>* r,
                             const EnvOptions& o) override {
    Status s = target()->NewRandomAccessFile(f, r, o);
    if (s.ok() && test::EndsWith(f, ".sst")) {
      *r = std::make_unique<Table>(std::move(*r), this);
    }
    return s;
  }

  void HoldWalCloses() { Set(&hold_wal_closes_, true); }
  void HoldTableCloses() { Set(&hold_table_closes_, true); }
  void HoldTempRenames() { Set(&hold_temp_renames_, true); }
  void ReleaseWalCloses() { Set(&hold_wal_closes_, false); }
  void Release() {
    Set(&hold_wal_closes_, false);
    Set(&hold_table_closes_, false);
    Set(&hold_temp_renames_, false);
  }
  // Waits up to millis for a temporary file to be removed.
  bool WaitForTempRemoval(int millis) {
    MutexLock l(&mu_);
    const uint64_t deadline = Env::Default()->NowMicros() + millis * 1000ull;
    while (temp_removals_ == 0) {
      const uint64_t now = Env::Default()->NowMicros();
      if (now >= deadline) return false;
      cv_.WaitFor(deadline - now);
    }
    return true;
  }
  // Waits up to millis for count holds (closes or renames) at once.
  bool WaitForHeld(int millis = 20000, int count = 1) {
    return test::WaitUntil(
        [this, count] {
          MutexLock l(&mu_);
          return waiting_ >= count;
        },
        millis);
  }

 private:
  class Wal : public WritableFileWrapper {
   public:
    Wal(std::unique_ptr<WritableFile> t, HeldCloseEnv* env)
        : WritableFileWrapper(std::move(t)), env_(env) {}
    Status Close() override {
      env_->WaitWhileHeld(&env_->hold_wal_closes_);
      return WritableFileWrapper::Close();
    }

   private:
    HeldCloseEnv* const env_;
  };

  class Table : public RandomAccessFile {
   public:
    Table(std::unique_ptr<RandomAccessFile> t, HeldCloseEnv* env)
        : t_(std::move(t)), env_(env) {}
    ~Table() override { env_->WaitWhileHeld(&env_->hold_table_closes_); }
    Status Read(uint64_t offset, size_t n, Slice* result,
                char* scratch) const override {
      return t_->Read(offset, n, result, scratch);
    }
    bool ReturnsOwnMemory() const override { return t_->ReturnsOwnMemory(); }

   private:
    std::unique_ptr<RandomAccessFile> t_;
    HeldCloseEnv* const env_;
  };

  Status OnWritableFile(const std::string& f, const EnvOptions& /*o*/,
                        const Status& s,
                        std::unique_ptr<WritableFile>* r) override {
    if (s.ok() && test::EndsWith(f, ".log")) {
      *r = std::make_unique<Wal>(std::move(*r), this);
    }
    return s;
  }
  void Set(bool* flag, bool value) {
    MutexLock l(&mu_);
    *flag = value;
    cv_.SignalAll();
  }
  void WaitWhileHeld(const bool* flag) {
    MutexLock l(&mu_);
    ++waiting_;
    while (*flag) cv_.Wait();
    --waiting_;
  }

  Mutex mu_;
  CondVar cv_{&mu_};
  bool hold_wal_closes_ = false;
  bool hold_table_closes_ = false;
  bool hold_temp_renames_ = false;
  int waiting_ = 0;
  int temp_removals_ = 0;
};

class DBHeldCloseTest : public DBTest {
 protected:
  DBHeldCloseTest() { options_.env = &env_; }
  ~DBHeldCloseTest() override {
    env_.Release();
    db_.reset();
  }

  // Puts a key from another thread; fails (releasing the held closes, so
  // the test can end) if the Put takes 20 s.
  testing::AssertionResult PutNotHeldUp(const std::string& key) {
    auto put = std::async(std::launch::async, [&] {
      return db_->Put(WriteOptions(), key, "while held");
    });
    if (put.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
      env_.Release();
      put.get().IgnoreError();
      return testing::AssertionFailure() << "a write waited for a held close";
    }
    const Status s = put.get();
    if (!s.ok()) return testing::AssertionFailure() << s.ToString();
    return testing::AssertionSuccess();
  }

  HeldCloseEnv env_;
};

TEST_F(DBHeldCloseTest, WritesGoOnWhileAFlushClosesTheOldWal) {
  Open();
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), "before"));
  }
  env_.HoldWalCloses();
  // The flush makes the WAL it switched away from obsolete and closes it.
  auto flushed = std::async(std::launch::async,
                            [&] { return db_->Flush(FlushOptions()); });
  ASSERT_TRUE(env_.WaitForHeld());
  EXPECT_TRUE(PutNotHeldUp("during"));
  env_.Release();
  ASSERT_OK(flushed.get());
  EXPECT_EQ("before", Get(Key(7)));
  EXPECT_EQ("while held", Get("during"));
  Reopen();
  EXPECT_EQ("before", Get(Key(7)));
  EXPECT_EQ("while held", Get("during"));
}

TEST_F(DBHeldCloseTest, WritesGoOnWhileObsoleteTablesAreClosed) {
  Open();
  env_.HoldTableCloses();
  // The same keys each round: L0 files overlap and compactions merge them,
  // which makes the inputs obsolete and closes their readers.
  std::string last;
  std::vector<std::future<Status>> flushes;
  for (int round = 0; round < 20; ++round) {
    last = "v" + std::to_string(round);
    for (int i = 0; i < 300; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), last));
    }
    // Not waited for here: the held close may sit on the thread that would
    // otherwise finish the flush (a flush handed to the compaction).
    flushes.push_back(std::async(std::launch::async,
                                 [&] { return db_->Flush(FlushOptions()); }));
    if (env_.WaitForHeld(/*millis=*/200)) break;
  }
  ASSERT_TRUE(env_.WaitForHeld());
  EXPECT_TRUE(PutNotHeldUp("during"));
  env_.Release();
  for (auto& f : flushes) ASSERT_OK(f.get());
  ASSERT_OK(db_->WaitForCompact());
  EXPECT_EQ(last, Get(Key(5)));
  EXPECT_EQ("while held", Get("during"));
}

// A new MANIFEST is named in CURRENT through NNNNNN.dbtmp, written and
// renamed without the DB mutex. A thread removing obsolete files meanwhile
// (here the flush that installed its table just before) must not take
// that file for garbage: the rename would fail, and with it the edit.
TEST_F(DBHeldCloseTest, CurrentsTemporaryFileIsNotGarbage) {
  // L0 files with long keys soon make a MANIFEST's first record (the
  // snapshot of every file) longer than its limit: from then on every edit
  // starts a new MANIFEST.
  options_.max_manifest_file_size = 4096;
  options_.disable_auto_compactions = true;
  options_.level0_slowdown_writes_trigger = 1000;
  options_.level0_stop_writes_trigger = 1000;
  Open();
  const std::string long_key(300, 'k');
  for (int round = 0; round < 20; ++round) {  // overlapping L0 files
    for (const std::string& key : {"a" + long_key, "z" + long_key}) {
      ASSERT_OK(db_->Put(WriteOptions(), key, "v" + std::to_string(round)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  // The live MANIFEST (older ones may be going on the deleter thread).
  std::string current;
  ASSERT_OK(
      ReadFileToString(Env::Default(), dir_.path() + "/CURRENT", &current));
  ASSERT_FALSE(current.empty());
  current.pop_back();  // the newline
  uint64_t manifest_size = 0;
  ASSERT_OK(
      Env::Default()->GetFileSize(dir_.path() + "/" + current, &manifest_size));
  ASSERT_GE(manifest_size, 4096u);
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), "last"));
  }
  // The flush installs its table, closes the WAL it made obsolete (held,
  // without the mutex), then removes obsolete files.
  env_.HoldWalCloses();
  auto flushed = std::async(std::launch::async,
                            [&] { return db_->Flush(FlushOptions()); });
  ASSERT_TRUE(env_.WaitForHeld());
  // Meanwhile a compaction installs its output: a new MANIFEST, and
  // CURRENT through its temporary file, whose rename is held.
  env_.HoldTempRenames();
  auto compacted = std::async(std::launch::async, [&] {
    return db_->CompactRange(CompactRangeOptions(), nullptr, nullptr);
  });
  ASSERT_TRUE(env_.WaitForHeld(/*millis=*/20000, /*count=*/2));
  env_.ReleaseWalCloses();
  ASSERT_OK(flushed.get());
  EXPECT_FALSE(env_.WaitForTempRemoval(/*millis=*/1000))
      << "a temporary file being renamed into place was removed";
  env_.Release();
  ASSERT_OK(compacted.get());
  ASSERT_OK(db_->Put(WriteOptions(), "after", "ok"));
  Reopen();
  EXPECT_EQ("last", Get(Key(42)));
  EXPECT_EQ("v19", Get("a" + long_key));
  EXPECT_EQ("ok", Get("after"));
}

// A compaction reads its outputs back before installing them, as a flush
// does its table: a bad output fails the compaction, not the reads after
// it, and the first reads find every table open.
TEST_F(DBTest, CompactionOutputsAreOpenWhenInstalled) {
  test::TableOpenCountingEnv env;
  options_.env = &env;
  Open();
  WriteFlushedRounds(8, 300);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK(db_->WaitForCompact());
  uint64_t compacted = 0;
  ASSERT_TRUE(
      db_->GetIntProperty("cascadedb.compaction-bytes-written", &compacted));
  ASSERT_GT(compacted, 0u);
  const int opened = env.opened();
  for (int i = 0; i < 300; ++i) EXPECT_EQ("v7", Get(Key(i)));
  EXPECT_EQ(opened, env.opened()) << "a read opened a table";
  db_.reset();  // before the Env goes
}

// Lookups pin each table in the file metadata of the Versions listing it
// (max_open_files = -1): a table stays open while an iterator's Version
// still lists its file, and closes once no Version does.
TEST_F(DBTest, TablesPinnedByLookupsCloseWhenTheirFilesGo) {
  test::TableOpenCountingEnv env;
  options_.env = &env;
  options_.disable_auto_compactions = true;
  Open();
  WriteFlushedRounds(4, 200);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_EQ(4, NumFilesAtLevel(0));
  for (int i = 0; i < 200; ++i) EXPECT_EQ("v3", Get(Key(i)));
  std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
  it->Seek(Key(100));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(4, env.open_now());

  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  const int live = TotalFiles();
  ASSERT_EQ(0, NumFilesAtLevel(0));
  // The iterator's Version still lists the old tables: they stay open
  // (their files may already be unlinked) and the iterator reads on.
  for (int i = 0; i < 200; ++i) EXPECT_EQ("v3", Get(Key(i)));
  int seen = 0;
  for (; it->Valid(); it->Next()) {
    EXPECT_EQ("v3", it->value().ToString());
    ++seen;
  }
  EXPECT_OK(it->status());
  EXPECT_EQ(100, seen);
  EXPECT_EQ(4 + live, env.open_now());
  it.reset();
  // With the last Version listing them gone, the old tables close (the
  // iterator's release looks for obsolete files on the deleter's thread).
  test::WaitUntil([&] { return env.open_now() == live; }, 10000, 10000);
  EXPECT_EQ(live, env.open_now());
  db_.reset();  // before the Env goes
}

// RemoveObsoleteFiles keeps the files a reader's Version still lists; when
// that reader goes, its files are deleted without waiting for the next
// flush or compaction.
TEST_F(DBTest, FilesAnIteratorHeldAreDeletedWhenItGoes) {
  options_.disable_auto_compactions = true;
  Open();
  WriteFlushedRounds(3, 100);
  ASSERT_FALSE(HasFatalFailure());
  std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
  it->SeekToFirst();
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_OK(db_->WaitForCompact());
  ASSERT_EQ(0, NumFilesAtLevel(0));
  const int live = TotalFiles();
  auto tables = [&] {
    return static_cast<int>(test::FilesWithSuffix(dir_.path(), ".sst").size());
  };
  EXPECT_EQ(3 + live, tables());  // the iterator's files are kept
  EXPECT_EQ("v2", it->value().ToString());
  it.reset();
  test::WaitUntil([&] { return tables() == live; }, 10000, 10000);
  EXPECT_EQ(live, tables());
  EXPECT_EQ("v2", Get(Key(7)));
}

TEST_F(DBTest, PropertiesExist) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  std::string text;
  EXPECT_TRUE(db_->GetProperty("cascadedb.stats", &text));
  EXPECT_NE(std::string::npos, text.find("L0"));
  EXPECT_TRUE(db_->GetProperty("cascadedb.levelstats", &text));
  EXPECT_TRUE(db_->GetProperty("cascadedb.sstables", &text));
  EXPECT_TRUE(db_->GetProperty("cascadedb.stall-stats", &text));
  EXPECT_FALSE(db_->GetProperty("cascadedb.no-such-property", &text));
  uint64_t n = 0;
  EXPECT_TRUE(db_->GetIntProperty("cascadedb.num-files-at-level0", &n));
  EXPECT_EQ(1u, n);
  EXPECT_FALSE(db_->GetIntProperty("cascadedb.num-files-at-level99", &n));
  std::map<std::string, std::string> m;
  EXPECT_TRUE(db_->GetMapProperty("cascadedb.write-amplification", &m));
  EXPECT_TRUE(m.count("waf"));
  EXPECT_TRUE(db_->GetMapProperty("cascadedb.stall-stats", &m));
  EXPECT_TRUE(m.count("state"));
}

// Memtable arena blocks: the writers' helper prepares blocks ahead of
// the writer while the first memtables fill, and from then on the flushed
// memtables' blocks serve the next ones; the pool never keeps more than
// its capacity (a memtable and twice the 4 blocks prepared ahead).
TEST_F(DBTest, MemtableBlocksArePreparedAheadAndPooledWithinCapacity) {
  Open();
  const uint64_t block = 8 << 10;  // MemTable::ArenaBlockSizeFor(64 KiB)
  const uint64_t pool_capacity = options_.write_buffer_size + 8 * block;
  constexpr int kMemtables = 100;
  uint64_t pooled = 0;
  for (int m = 0; m < kMemtables; ++m) {
    // About a memtable's worth each (an entry takes ~150 arena bytes).
    for (int i = 0; i < 450; ++i) {
      ASSERT_OK(
          db_->Put(WriteOptions(), Key(m * 450 + i), std::string(100, 'v')));
    }
    ASSERT_TRUE(db_->GetIntProperty("cascadedb.memtable-pool-bytes", &pooled));
    EXPECT_LE(pooled, pool_capacity) << m;
  }
  uint64_t prepared = 0;
  ASSERT_TRUE(
      db_->GetIntProperty("cascadedb.memtable-blocks-prepared", &prepared));
  EXPECT_GT(prepared, 0u);
  // How many depends on when the flushes end: about 20 on an idle
  // machine, up to 45 in a loaded ASan run, 66 with the pool's old room
  // (docs/performance.md, "The pool's room"). Only a pool that prepared a
  // block for every flush would reach one per memtable.
  EXPECT_LT(prepared, static_cast<uint64_t>(kMemtables));
}

// cascadedb.background-cpu: the flush and compaction pools', the Env's
// helper's and the deletion thread's time on a CPU and waiting for one.
// The pools belong to the Env and only grow; a flush adds to the high
// pool's figure.
TEST_F(DBTest, BackgroundCpuCoversEveryBackgroundThread) {
  Open();
  std::map<std::string, std::string> before;
  if (!db_->GetMapProperty("cascadedb.background-cpu", &before)) {
    std::string text;
    ASSERT_TRUE(db_->GetProperty("cascadedb.background-cpu", &text));
    EXPECT_NE(std::string::npos, text.find("n/a")) << text;
    GTEST_SKIP() << "the kernel keeps no per-thread CPU figures";
  }
  for (const char* pool : {"low", "high", "helper", "deletion"}) {
    for (const char* figure : {"on-cpu-micros", "waiting-micros"}) {
      EXPECT_EQ(1u, before.count(std::string(pool) + "." + figure))
          << pool << "." << figure;
    }
  }
  // Enough flushes that the high pool certainly spends CPU time.
  for (int f = 0; f < 20; ++f) {
    for (int i = 0; i < 2000; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), std::string(100, 'a' + f)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  std::map<std::string, std::string> after;
  ASSERT_TRUE(db_->GetMapProperty("cascadedb.background-cpu", &after));
  EXPECT_GT(std::stoull(after["high.on-cpu-micros"]),
            std::stoull(before["high.on-cpu-micros"]));
  for (const auto& [key, value] : before) {
    EXPECT_GE(std::stoull(after[key]), std::stoull(value)) << key;
  }
  std::string text;
  ASSERT_TRUE(db_->GetProperty("cascadedb.background-cpu", &text));
  for (const char* row :
       {"compaction (low pool)", "flush (high pool)",
        "Env helper (WAL regions)", "obsolete-file deletion", "waiting-%"}) {
    EXPECT_NE(std::string::npos, text.find(row)) << text;
  }
  ASSERT_TRUE(db_->GetProperty("cascadedb.stats", &text));
  EXPECT_NE(std::string::npos, text.find("Background threads' CPU")) << text;
}

// A field of cascadedb.aggregated-table-properties ("name=value; ...").
uint64_t TablePropertyField(DB* db, const std::string& name) {
  std::string text;
  EXPECT_TRUE(db->GetProperty("cascadedb.aggregated-table-properties", &text));
  const size_t at = text.find(name + "=");
  EXPECT_NE(std::string::npos, at) << text;
  if (at == std::string::npos) return 0;
  return std::stoull(text.substr(at + name.size() + 1));
}

TEST_F(DBTest, TableReadersMemCountsIndexFilterAndSearchHeads) {
  // Bytewise keys: each index block carries 8 bytes of search heads per
  // data block; another comparator's tables carry none.
  for (const bool bytewise : {true, false}) {
    SCOPED_TRACE(bytewise ? "bytewise" : "reverse");
    options_.comparator =
        bytewise ? BytewiseComparator() : test::ReverseBytewiseComparator();
    ASSERT_OK(DestroyDB(dir_.path(), options_));
    Open();
    for (int i = 0; i < 2000; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), std::string(100, 'v')));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    const uint64_t blocks = TablePropertyField(db_.get(), "num_data_blocks");
    ASSERT_GT(blocks, 10u);
    const uint64_t expected = TablePropertyField(db_.get(), "index_size") +
                              TablePropertyField(db_.get(), "filter_size") +
                              (bytewise ? blocks * sizeof(uint64_t) : 0);
    uint64_t mem = 0;
    ASSERT_TRUE(
        db_->GetIntProperty("cascadedb.estimate-table-readers-mem", &mem));
    EXPECT_EQ(expected, mem);
    // Seeks through the index blocks, with heads or without.
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    for (int i = 0; i < 2000; i += 7) {
      it->Seek(Key(i));
      ASSERT_TRUE(it->Valid());
      EXPECT_EQ(Key(i), it->key().ToString());
      it->Seek(Key(i) + "x");  // between Key(i) and its neighbour
      if (bytewise ? i < 1999 : i > 0) {
        ASSERT_TRUE(it->Valid());
        EXPECT_EQ(Key(bytewise ? i + 1 : i), it->key().ToString()) << i;
      }
    }
    EXPECT_OK(it->status());
    it.reset();  // before the DB it reads
    db_.reset();
  }
}

TEST_F(DBTest, ApproximateSizesGrowWithData) {
  Open();
  uint32_t state = 1;
  for (int i = 0; i < 2000; ++i) {
    // Random bytes: compression must not shrink them away.
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), test::RandomBytes(&state, 200)));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->WaitForCompact());
  const std::string k0 = Key(0), k100 = Key(100), k1000 = Key(1000);
  Range ranges[2] = {Range(k0, k1000), Range(k0, k100)};
  uint64_t sizes[2];
  ASSERT_OK(db_->GetApproximateSizes(ranges, 2, sizes));
  EXPECT_GT(sizes[0], sizes[1]);
  EXPECT_GT(sizes[0], 1000u * 100);
}

TEST_F(DBTest, NoSlowdownReturnsIncompleteWhenStopped) {
  options_.write_buffer_size = 8 << 10;
  options_.level0_file_num_compaction_trigger = 1;
  options_.level0_slowdown_writes_trigger = 1;
  options_.level0_stop_writes_trigger = 1;
  options_.disable_auto_compactions = true;
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  WriteOptions wo;
  wo.no_slowdown = true;
  Status s = db_->Put(wo, "b", "2");
  EXPECT_TRUE(s.IsIncomplete()) << s.ToString();
  std::map<std::string, std::string> m;
  ASSERT_TRUE(db_->GetMapProperty("cascadedb.stall-stats", &m));
  EXPECT_EQ("stopped", m["state"]);
  EXPECT_EQ("l0_stop", m["cause"]);
  // Compacting L0 away lets writes through again.
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_OK(db_->Put(wo, "b", "2"));
}

TEST_F(DBTest, FileMetadataIsEachFilesFirstAndLastEntry) {
  // Flushes and compactions record each output's key and sequence range;
  // the range must be exactly the file's first and last entries (a
  // shortened index separator or a stale key there would misroute reads).
  options_.compression = kNoCompression;
  Open();
  std::map<std::string, uint64_t> newest_seq;  // user key -> last seqno
  uint32_t state = 5;
  uint64_t seq = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string k = Key(static_cast<int>(i * 7919 % 12000));
    ASSERT_OK(db_->Put(WriteOptions(), k, test::RandomBytes(&state, 100)));
    newest_seq[k] = ++seq;
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->WaitForCompact());
  std::vector<LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  ASSERT_GT(files.size(), 3u);
  for (const LiveFileMetaData& f : files) {
    ASSERT_TRUE(newest_seq.count(f.smallest_key)) << f.name;
    ASSERT_TRUE(newest_seq.count(f.largest_key)) << f.name;
    EXPECT_LE(f.smallest_key, f.largest_key) << f.name;
    EXPECT_LE(f.smallest_seqno, f.largest_seqno) << f.name;
    EXPECT_LE(f.largest_seqno, seq) << f.name;
  }
  // Every key lies in some file's range on its way down, and the newest
  // version of every key is readable (a file whose largest key was
  // recorded too small would hide the keys past it from Get).
  for (const auto& [k, s] : newest_seq) {
    bool covered = false;
    for (const LiveFileMetaData& f : files) {
      if (f.smallest_key <= k && k <= f.largest_key) covered = true;
    }
    EXPECT_TRUE(covered) << k;
    std::string value;
    ASSERT_OK(db_->Get(ReadOptions(), k, &value));
  }
}

TEST_F(DBTest, LevelsStaySortedAndNearTheirTargets) {
  options_.compression = kNoCompression;
  Open();
  uint32_t state = 11;
  for (int i = 0; i < 30000; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(static_cast<int>(i * 7919 % 30000)),
                       test::RandomBytes(&state, 100)));
  }
  ASSERT_OK(db_->WaitForCompact());
  std::vector<LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  std::map<int, std::vector<LiveFileMetaData>> by_level;
  for (const auto& f : files) by_level[f.level].push_back(f);
  int deepest = 0;
  for (auto& [level, list] : by_level) {
    deepest = std::max(deepest, level);
    if (level == 0) continue;
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return a.smallest_key < b.smallest_key;
    });
    for (size_t i = 1; i < list.size(); ++i) {
      EXPECT_LT(list[i - 1].largest_key, list[i].smallest_key)
          << "overlapping files at L" << level;
    }
  }
  ASSERT_GE(deepest, 2) << "the data should span several levels";
  // Every level but the last is within its target once compaction is idle
  // (score < 1); the last holds the bulk, about 10x the one above.
  for (int level = 1; level < deepest; ++level) {
    uint64_t bytes = 0;
    for (const auto& f : by_level[level]) bytes += f.size;
    double target = static_cast<double>(options_.max_bytes_for_level_base);
    for (int l = 1; l < level; ++l) target *= 10;
    EXPECT_LE(bytes, target) << "L" << level;
  }
  std::map<std::string, std::string> m;
  ASSERT_TRUE(db_->GetMapProperty("cascadedb.levelstats", &m));
  for (int level = 1; level < deepest; ++level) {
    EXPECT_LT(std::stod(m["L" + std::to_string(level) + ".score"]), 1.0);
  }
}

// A full scan reads every block of the table, but only its first
// long_scan_blocks blocks stay in the block cache (unless the option is 0).
TEST_F(DBTest, LongScanLeavesTheBlockCacheAlone) {
  options_.write_buffer_size = 8 << 20;
  options_.target_file_size_base = 8 << 20;
  options_.block_cache_size = 8 << 20;
  options_.block_cache_admit_on_second_miss = false;  // cache on first miss
  uint64_t growth[2] = {0, 0};
  for (int fill_all : {0, 1}) {
    options_.long_scan_blocks = fill_all ? 0 : 16;
    db_.reset();
    ASSERT_OK(DestroyDB(dir_.path(), options_));
    Open();
    WriteCompressibleTable(20000, 11);
    uint64_t before = 0;
    uint64_t after = 0;
    ASSERT_TRUE(db_->GetIntProperty("cascadedb.block-cache-usage", &before));
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) n++;
    ASSERT_OK(it->status());
    EXPECT_EQ(20000, n);
    it.reset();
    ASSERT_TRUE(db_->GetIntProperty("cascadedb.block-cache-usage", &after));
    growth[fill_all] = after - before;
  }
  // ~550 blocks of 4 KiB were read each time.
  EXPECT_GT(growth[0], 0u);
  EXPECT_LE(growth[0], 16u * 5000);
  EXPECT_GE(growth[1], 400u * 4096);
}

// With admission on second miss a data block is cached the second time it
// is read from its table; without, the first time.
TEST_F(DBTest, BlocksAreCachedOnTheirSecondMiss) {
  for (bool admit : {true, false}) {
    options_.block_cache_admit_on_second_miss = admit;
    options_.statistics = CreateDBStatistics();
    db_.reset();
    ASSERT_OK(DestroyDB(dir_.path(), options_));
    Open();
    for (int i = 0; i < 100; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), std::string(100, 'x')));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    ASSERT_OK(db_->WaitForCompact());
    for (int round = 0; round < 3; ++round) {
      EXPECT_EQ(std::string(100, 'x'), Get(Key(42)));
    }
    Statistics* st = options_.statistics.get();
    EXPECT_EQ(admit ? 2u : 1u, st->getTickerCount(kBlockCacheDataMiss));
    EXPECT_EQ(admit ? 1u : 2u, st->getTickerCount(kBlockCacheDataHit));
    EXPECT_EQ(admit ? 1u : 0u, st->getTickerCount(kBlockCacheAddDeferred));
    EXPECT_EQ(1u, st->getTickerCount(kBlockCacheDataAdd));
  }
}

// Uniform reads over data many times the cache: the blocks admitted are
// rarely hit again, so admission narrows its window and inserts fewer.
TEST_F(DBTest, AdmissionWindowNarrowsUnderUniformReads) {
  options_.block_cache_size = 64 << 10;  // 16 blocks
  Open();
  uint64_t window = 0;
  ASSERT_TRUE(
      db_->GetIntProperty("cascadedb.block-cache-admission-window", &window));
  EXPECT_EQ(1024u, window);  // the smallest table, at its widest
  WriteCompressibleTable(20000, 5);
  std::mt19937 rng(5);
  for (int i = 0; i < 20000; ++i) {
    EXPECT_EQ(100u, Get(Key(static_cast<int>(rng() % 20000))).size());
  }
  ASSERT_TRUE(
      db_->GetIntProperty("cascadedb.block-cache-admission-window", &window));
  EXPECT_EQ(64u, window);

  options_.block_cache_admit_on_second_miss = false;
  db_.reset();
  Open();
  ASSERT_TRUE(
      db_->GetIntProperty("cascadedb.block-cache-admission-window", &window));
  EXPECT_EQ(0u, window);
}

TEST_F(DBTest, StatisticsCountWhatHappened) {
  options_.statistics = CreateDBStatistics();
  options_.block_cache_size = 1 << 20;
  Open();
  uint32_t state = 7;
  for (int i = 0; i < 2000; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), test::RandomBytes(&state, 100)));
  }
  ASSERT_OK(db_->Delete(WriteOptions(), Key(0)));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->WaitForCompact());
  for (int i = 0; i < 2000; i += 10) Get(Key(i));
  Get("absent");
  Statistics* st = options_.statistics.get();
  EXPECT_EQ(2001u, st->getTickerCount(kNumberKeysWritten));
  EXPECT_EQ(2000u * (11 + 100) + 11, st->getTickerCount(kBytesWritten));
  EXPECT_EQ(201u, st->getTickerCount(kNumberKeysRead));
  EXPECT_EQ(199u, st->getTickerCount(kNumberKeysFound));
  EXPECT_GT(st->getTickerCount(kWalFileBytes), 2000u * 111);
  EXPECT_GT(st->getTickerCount(kFlushWriteBytes), 0u);
  EXPECT_GT(st->getTickerCount(kCompactWriteBytes), 0u);
  EXPECT_GT(st->getTickerCount(kBlockCacheDataMiss) +
                st->getTickerCount(kBlockCacheDataHit),
            0u);
  EXPECT_GT(st->getTickerCount(kBloomFilterUseful) +
                st->getTickerCount(kBloomFilterFullPositive),
            0u);
  std::string text;
  EXPECT_TRUE(db_->GetProperty("cascadedb.options-statistics", &text));
  EXPECT_NE(std::string::npos, text.find("cascadedb.bytes.written"));
  uint64_t keys = 0;
  ASSERT_TRUE(db_->GetIntProperty("cascadedb.estimate-num-keys", &keys));
  EXPECT_GE(keys, 1990u);
  EXPECT_LE(keys, 2010u);
}

class CountingListener : public EventListener {
 public:
  void OnFlushCompleted(DB*, const FlushJobInfo& info) override {
    if (info.status.ok()) flushes++;
  }
  void OnCompactionCompleted(DB*, const CompactionJobInfo& info) override {
    if (info.status.ok()) compactions++;
  }
  void OnTableFileCreated(const TableFileCreationInfo&) override { created++; }
  void OnTableFileDeleted(const TableFileDeletionInfo&) override { deleted++; }
  void OnStallConditionsChanged(const WriteStallInfo& info) override {
    if (info.cur_state == "stopped") stops++;
  }
  std::atomic<int> flushes{0}, compactions{0}, created{0}, deleted{0}, stops{0};
};

TEST_F(DBTest, ListenersHearFlushesCompactionsAndStalls) {
  auto listener = std::make_shared<CountingListener>();
  options_.listeners.push_back(listener);
  options_.level0_slowdown_writes_trigger = 2;
  options_.level0_stop_writes_trigger = 3;
  Open();
  for (int round = 0; round < 6; ++round) {
    for (int i = 0; i < 200; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), std::string(100, 'x')));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  ASSERT_OK(db_->WaitForCompact());
  db_.reset();  // events queued by the last jobs are delivered by now
  EXPECT_GE(listener->flushes.load(), 6);
  EXPECT_GE(listener->compactions.load(), 1);
  EXPECT_GE(listener->created.load(), 7);
  EXPECT_GE(listener->deleted.load(), 1);
}

class CompactionReasonListener : public EventListener {
 public:
  void OnCompactionCompleted(DB*, const CompactionJobInfo& info) override {
    MutexLock l(&mu);
    if (info.status.ok()) reasons.push_back(info.compaction_reason);
  }
  int Count(const std::string& reason) {
    MutexLock l(&mu);
    return static_cast<int>(std::count(reasons.begin(), reasons.end(), reason));
  }
  Mutex mu;
  std::vector<std::string> reasons;
};

// For each compaction job: the files of the level below its output level
// (its grandparents) as it begins, and its outputs. That level does not
// change while the job runs (one compaction thread; flushes write L0). The
// outputs' key ranges are looked up once they are installed: at the next
// job's beginning (before it can replace them) or by Resolve at the end.
class GrandparentListener : public EventListener {
 public:
  struct Range {
    std::string smallest;
    std::string largest;
  };
  struct Job {
    std::vector<Range> grandparents;
    std::vector<uint64_t> outputs;
    std::vector<uint64_t> sizes;
    std::vector<Range> ranges;  // of outputs, once resolved
  };

  void OnCompactionBegin(DB* db, const CompactionJobInfo& info) override {
    if (info.is_trivial_move) return;
    std::vector<LiveFileMetaData> live;
    db->GetLiveFilesMetaData(&live);
    MutexLock l(&mu);
    ResolveLocked(live);
    Job job;
    for (const LiveFileMetaData& f : live) {
      if (f.level == info.output_level + 1) {
        job.grandparents.push_back({f.smallest_key, f.largest_key});
      }
    }
    jobs.push_back(std::move(job));
  }

  void OnTableFileCreated(const TableFileCreationInfo& info) override {
    if (info.reason != "compaction" || !info.status.ok()) return;
    MutexLock l(&mu);
    if (jobs.empty()) return;
    jobs.back().outputs.push_back(info.file_number);
    jobs.back().sizes.push_back(info.file_size);
  }

  void Resolve(DB* db) {
    std::vector<LiveFileMetaData> live;
    db->GetLiveFilesMetaData(&live);
    MutexLock l(&mu);
    ResolveLocked(live);
  }

  // Over consecutive outputs A, B of every job that has grandparents, with
  // A under `size_limit` (so not cut for its size): *pairs counts them and
  // the result how many share a grandparent file, which reaches from A's
  // keys into B's. Jobs whose outputs could not be looked up are skipped.
  int SharedGrandparents(uint64_t size_limit, int* pairs) {
    MutexLock l(&mu);
    int shared = 0;
    *pairs = 0;
    for (const Job& job : jobs) {
      if (job.grandparents.empty() || job.ranges.size() != job.outputs.size()) {
        continue;
      }
      std::vector<size_t> order(job.outputs.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        return job.ranges[x].smallest < job.ranges[y].smallest;
      });
      for (size_t i = 0; i + 1 < order.size(); ++i) {
        const Range& a = job.ranges[order[i]];
        const Range& b = job.ranges[order[i + 1]];
        if (job.sizes[order[i]] >= size_limit) continue;
        ++*pairs;
        for (const Range& g : job.grandparents) {
          if (g.smallest <= a.largest && g.largest >= b.smallest) {
            ++shared;
            break;
          }
        }
      }
    }
    return shared;
  }

  Mutex mu;
  std::vector<Job> jobs;

 private:
  void ResolveLocked(const std::vector<LiveFileMetaData>& live) {
    for (Job& job : jobs) {
      if (!job.ranges.empty() || job.outputs.empty()) continue;
      for (uint64_t number : job.outputs) {
        for (const LiveFileMetaData& f : live) {
          if (f.file_number == number) {
            job.ranges.push_back({f.smallest_key, f.largest_key});
            break;
          }
        }
      }
    }
  }
};

// With Options::align_compaction_outputs, a compaction's outputs end where
// files of the level below end, so no file there reaches into two of them
// (unless an output ran to twice its target size first). Without it they
// are cut at their size, wherever that falls, and many do. Either way the
// data reads back whole.
class DBAlignedOutputsTest : public DBTest,
                             public ::testing::WithParamInterface<bool> {};

TEST_P(DBAlignedOutputsTest, NoGrandparentReachesIntoTwoOutputs) {
  const bool align = GetParam();
  auto listener = std::make_shared<GrandparentListener>();
  options_.listeners.push_back(listener);
  options_.align_compaction_outputs = align;
  options_.compression = kNoCompression;
  options_.block_size = 512;
  options_.target_file_size_base = 16 << 10;
  options_.max_bytes_for_level_base = 64 << 10;
  options_.max_bytes_for_level_multiplier = 4;
  options_.max_background_compactions = 1;
  Open();
  Random rnd(301);
  std::map<std::string, std::string> model;
  uint32_t state = 17;
  for (int i = 0; i < 20000; ++i) {
    const std::string key = Key(static_cast<int>(rnd.Uniform(200000)));
    const std::string value = test::RandomBytes(&state, 100);
    ASSERT_OK(db_->Put(WriteOptions(), key, value));
    model[key] = value;
    // Keep compaction caught up, so the tree's shape does not depend on
    // how fast this machine compacts: a compaction far behind takes many L0
    // files at once into a sparse level, and few of its cuts have a
    // grandparent on both sides to tell aligned from unaligned.
    if (i % 1000 == 999) {
      ASSERT_OK(db_->WaitForCompact());
    }
  }
  ASSERT_OK(db_->WaitForCompact());
  listener->Resolve(db_.get());
  int pairs = 0;
  const int shared =
      listener->SharedGrandparents(2 * options_.target_file_size_base, &pairs);
  ASSERT_GE(pairs, 20);  // enough cuts among grandparents to tell
  if (align) {
    EXPECT_EQ(0, shared) << "of " << pairs << " pairs of outputs";
  } else {
    EXPECT_GT(shared, pairs / 4) << "of " << pairs << " pairs of outputs";
  }
  for (const auto& [k, v] : model) ASSERT_EQ(v, Get(k)) << k;
}

INSTANTIATE_TEST_SUITE_P(AlignOnAndOff, DBAlignedOutputsTest,
                         ::testing::Bool());

// Seek compaction fixture: every key in the bottom level, every second key
// again in one newer file above it, so a lookup of an odd key consults the
// newer file first, in vain.
class SeekCompactionTest : public DBTest {
 protected:
  void Build(int value_size) {
    listener_ = std::make_shared<CompactionReasonListener>();
    options_.listeners.push_back(listener_);
    options_.level0_file_num_compaction_trigger = 8;  // no size compactions
    options_.write_buffer_size = 16 << 20;
    options_.target_file_size_base = 16 << 20;
    Open();
    for (int i = 0; i < 100; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), Value(i, 'b', value_size)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    for (int i = 0; i < 100; i += 2) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), Value(i, 'n', value_size)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    ASSERT_EQ(2, TotalFiles());
  }

  static std::string Value(int i, char c, int size) {
    std::string v = std::to_string(i) + c;
    v.resize(static_cast<size_t>(size), c);
    return v;
  }

  std::shared_ptr<CompactionReasonListener> listener_;
};

TEST_F(SeekCompactionTest, WastedLookupsCompactTheFileDown) {
  Build(100);
  // 100 lookups (the minimum allowed seeks) that pass the newer file.
  for (int round = 0; round < 3; ++round) {
    for (int i = 1; i < 100; i += 2) {
      ASSERT_EQ(Value(i, 'b', 100), Get(Key(i)));
    }
  }
  ASSERT_OK(db_->WaitForCompact());
  EXPECT_EQ(1, TotalFiles());  // merged into the bottom level
  db_.reset();                 // deliver the events
  EXPECT_EQ(1, listener_->Count("Seek"));
}

TEST_F(SeekCompactionTest, NothingMovesWhenDisabled) {
  options_.seek_compaction = false;
  Build(100);
  for (int round = 0; round < 10; ++round) {
    for (int i = 1; i < 100; i += 2) Get(Key(i));
  }
  ASSERT_OK(db_->WaitForCompact());
  EXPECT_EQ(2, TotalFiles());
  db_.reset();
  EXPECT_EQ(0, listener_->Count("Seek"));
}

TEST_F(SeekCompactionTest, IteratorReadsAreSampled) {
  // 100 entries of 32 KiB: one full scan reads ~3.2 MiB, so 50 scans take
  // ~160 samples (one per ~1 MiB read) where 100 lead to a compaction.
  // Samples count a value compressed on its own at its compressed size (a
  // few hundred bytes here), so these are compressed in blocks.
  options_.value_compression_min_size = 0;
  Build(32 << 10);
  std::string expected;
  for (int i = 0; i < 100; ++i) {
    expected += Value(i, i % 2 == 0 ? 'n' : 'b', 32 << 10).substr(0, 8);
  }
  for (int scan = 0; scan < 50; ++scan) {
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    std::string seen;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      seen += it->value().ToString().substr(0, 8);
    }
    ASSERT_OK(it->status());
    ASSERT_EQ(expected, seen);
  }
  ASSERT_OK(db_->WaitForCompact());
  EXPECT_EQ(1, TotalFiles());
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(Value(i, i % 2 == 0 ? 'n' : 'b', 32 << 10), Get(Key(i)));
  }
  db_.reset();
  EXPECT_EQ(1, listener_->Count("Seek"));
}

}  // namespace

}  // namespace cascadedb

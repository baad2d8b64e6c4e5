// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The engine's own figures against the files on disk: write amplification
// bookkeeping is exact on a controlled workload, and listeners hear every
// flush and compaction exactly once.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "cascadedb/listener.h"
#include "cascadedb/statistics.h"
#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace {

uint64_t SizeOfFiles(const std::string& dir, const std::string& suffix) {
  uint64_t total = 0;
  for (const std::string& c : test::FilesWithSuffix(dir, suffix)) {
    uint64_t size = 0;
    EXPECT_OK(Env::Default()->GetFileSize(dir + "/" + c, &size));
    total += size;
  }
  return total;
}

TEST(DBStatsTest, WalBytesMatchTheClosedMmapWal) {
  test::TempDir dir;
  Options options;
  options.create_if_missing = true;
  options.stats_dump_period_sec = 0;
  options.write_buffer_size = 8 << 20;
  ASSERT_TRUE(options.allow_mmap_writes);  // the default
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dir.path(), &db));
  uint32_t state = 5;
  for (int i = 0; i < 3000; ++i) {
    ASSERT_OK(db->Put(WriteOptions(), "key" + std::to_string(i),
                      test::RandomBytes(&state, 200)));
  }
  std::map<std::string, std::string> waf;
  ASSERT_TRUE(db->GetMapProperty("cascadedb.write-amplification", &waf));
  const uint64_t wal_bytes = std::stoull(waf["wal-bytes"]);
  // Live: the WAL has space reserved past its last record.
  EXPECT_GT(SizeOfFiles(dir.path(), ".log"), wal_bytes);
  db.reset();
  // Closed: cut to exactly the bytes written.
  EXPECT_EQ(wal_bytes, SizeOfFiles(dir.path(), ".log"));
  // And every write is read back from it.
  ASSERT_OK(DB::Open(options, dir.path(), &db));
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), "key2999", &value));
  EXPECT_EQ(200u, value.size());
}

// The memtable bloom filter: Gets of absent keys skip the memtables (the
// ticker counts them), Gets of present keys and deletions are unaffected,
// and with the filter off nothing is counted.
TEST(DBStatsTest, MemtableBloomSkipsAbsentKeysOnly) {
  for (double ratio : {0.0, 0.02}) {
    test::TempDir dir;
    Options options;
    options.create_if_missing = true;
    options.stats_dump_period_sec = 0;
    options.statistics = CreateDBStatistics();
    options.memtable_prefix_bloom_size_ratio = ratio;
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, dir.path(), &db));
    for (int i = 0; i < 1000; i += 2) {
      ASSERT_OK(db->Put(WriteOptions(), "key" + std::to_string(i), "v"));
    }
    ASSERT_OK(db->Delete(WriteOptions(), "key10"));
    for (int i = 0; i < 1000; i++) {
      std::string value;
      const Status s =
          db->Get(ReadOptions(), "key" + std::to_string(i), &value);
      if (i % 2 == 0 && i != 10) {
        ASSERT_OK(s) << i;
        EXPECT_EQ("v", value);
      } else {
        EXPECT_TRUE(s.IsNotFound()) << i << " " << s.ToString();
      }
    }
    const uint64_t useful =
        options.statistics->getTickerCount(kMemtableBloomUseful);
    if (ratio == 0) {
      EXPECT_EQ(0u, useful);
    } else {
      EXPECT_GE(useful, 490u);  // ~500 absent keys, few false positives
      EXPECT_LE(useful, 500u);
    }
  }
}

TEST(DBStatsTest, WriteAmplificationMatchesTheFiles) {
  test::TempDir dir;
  Options options;
  options.create_if_missing = true;
  options.stats_dump_period_sec = 0;
  options.write_buffer_size = 8 << 20;  // no switch: one WAL, one flush
  options.disable_auto_compactions = true;
  // The live WAL's size on disk is exact only without mmap writes, which
  // reserve space ahead (WalBytesMatchTheClosedMmapWal covers those).
  options.allow_mmap_writes = false;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dir.path(), &db));
  uint32_t state = 3;
  uint64_t user_bytes = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string key = "key" + std::to_string(i);
    const std::string value = test::RandomBytes(&state, 200);
    ASSERT_OK(db->Put(WriteOptions(), key, value));
    user_bytes += key.size() + value.size();
  }
  ASSERT_OK(db->Delete(WriteOptions(), "key0"));
  user_bytes += 4;

  std::map<std::string, std::string> waf;
  ASSERT_TRUE(db->GetMapProperty("cascadedb.write-amplification", &waf));
  EXPECT_EQ(std::to_string(user_bytes), waf["user-bytes"]);
  // Every WAL byte, record headers included, is in the one WAL file.
  EXPECT_EQ(std::to_string(SizeOfFiles(dir.path(), ".log")), waf["wal-bytes"]);
  EXPECT_EQ("0", waf["flush-bytes"]);

  ASSERT_OK(db->Flush(FlushOptions()));
  const uint64_t flushed = SizeOfFiles(dir.path(), ".sst");
  ASSERT_TRUE(db->GetMapProperty("cascadedb.write-amplification", &waf));
  EXPECT_EQ(std::to_string(flushed), waf["flush-bytes"]);
  EXPECT_EQ(std::to_string(flushed), waf["L0.write-bytes"]);

  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  const uint64_t compacted = SizeOfFiles(dir.path(), ".sst");
  ASSERT_TRUE(db->GetMapProperty("cascadedb.write-amplification", &waf));
  EXPECT_EQ(std::to_string(compacted), waf["compaction-bytes"]);
  EXPECT_EQ(std::to_string(compacted), waf["L1.write-bytes"]);
  EXPECT_EQ(std::to_string(flushed), waf["L1.read-bytes"]);
  const uint64_t wal = std::stoull(waf["wal-bytes"]);
  char expect[32];
  std::snprintf(expect, sizeof(expect), "%.3f",
                static_cast<double>(wal + flushed + compacted) / user_bytes);
  EXPECT_EQ(expect, waf["waf"]);
  std::snprintf(expect, sizeof(expect), "%.3f",
                static_cast<double>(flushed + compacted) / user_bytes);
  EXPECT_EQ(expect, waf["waf-no-wal"]);
}

class RecordingListener : public EventListener {
 public:
  void OnFlushBegin(DB*, const FlushJobInfo& info) override {
    std::lock_guard<std::mutex> l(mu);
    flush_begun.push_back(info.job_id);
  }
  void OnFlushCompleted(DB*, const FlushJobInfo& info) override {
    std::lock_guard<std::mutex> l(mu);
    flush_done.push_back(info.job_id);
    flushed_files.insert(info.file_number);
    // One thread's CPU time fits in the job's wall time (both in whole
    // microseconds, read one after the other: a little slack).
    EXPECT_LE(info.cpu_micros, info.duration_micros + 100);
    cpu_micros += info.cpu_micros;
  }
  void OnCompactionBegin(DB*, const CompactionJobInfo& info) override {
    std::lock_guard<std::mutex> l(mu);
    compaction_begun.push_back(info.job_id);
  }
  void OnCompactionCompleted(DB*, const CompactionJobInfo& info) override {
    std::lock_guard<std::mutex> l(mu);
    compaction_done.push_back(info.job_id);
    EXPECT_FALSE(info.input_files.empty());
    EXPECT_GT(info.input_bytes, 0u);
    EXPECT_LE(info.cpu_micros, info.duration_micros + 100);
    if (info.is_trivial_move) {
      EXPECT_EQ(0u, info.cpu_micros);
    }
    cpu_micros += info.cpu_micros;
  }
  void OnTableFileCreated(const TableFileCreationInfo& info) override {
    std::lock_guard<std::mutex> l(mu);
    if (info.reason == "flush") created_by_flush.insert(info.file_number);
  }

  std::mutex mu;
  std::vector<int> flush_begun, flush_done, compaction_begun, compaction_done;
  std::set<uint64_t> flushed_files, created_by_flush;
  uint64_t cpu_micros = 0;  // flushes' and compactions'
};

TEST(DBStatsTest, ListenersHearEveryJobExactlyOnce) {
  test::TempDir dir;
  auto listener = std::make_shared<RecordingListener>();
  Options options;
  options.create_if_missing = true;
  options.stats_dump_period_sec = 0;
  options.write_buffer_size = 32 << 10;
  options.target_file_size_base = 32 << 10;
  options.max_bytes_for_level_base = 128 << 10;
  options.level0_file_num_compaction_trigger = 2;
  options.listeners.push_back(listener);
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, dir.path(), &db));
    uint32_t state = 5;
    for (int i = 0; i < 4000; ++i) {
      ASSERT_OK(db->Put(WriteOptions(), "k" + std::to_string(i % 1500),
                        test::RandomBytes(&state, 100)));
    }
    ASSERT_OK(db->WaitForCompact());
  }  // closed: every queued event is delivered
  auto sorted_unique = [](std::vector<int> v) {
    std::sort(v.begin(), v.end());
    EXPECT_TRUE(std::adjacent_find(v.begin(), v.end()) == v.end())
        << "an event was delivered twice";
    return v;
  };
  EXPECT_GT(listener->flush_done.size(), 3u);
  EXPECT_GT(listener->compaction_done.size(), 0u);
  EXPECT_EQ(sorted_unique(listener->flush_begun),
            sorted_unique(listener->flush_done));
  EXPECT_EQ(sorted_unique(listener->compaction_begun),
            sorted_unique(listener->compaction_done));
  EXPECT_EQ(listener->created_by_flush, listener->flushed_files);
  // The jobs' CPU time is measured (the POSIX Env has a thread CPU clock).
  EXPECT_GT(listener->cpu_micros, 0u);
}

}  // namespace
}  // namespace cascadedb

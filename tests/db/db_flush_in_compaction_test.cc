// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Options::flush_in_compaction end to end: a memtable that becomes
// immutable while a compaction job runs is flushed by that job (kAlways,
// and kAuto on a machine short of CPUs) or by the flush thread (kNever);
// a writer that runs out of memtables never waits for a job to take the
// flush; nothing written is lost either way. A listener holds the first
// compaction at its start, so the tests know a job is running.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "cascadedb/listener.h"
#include "cascadedb/rate_limiter.h"
#include "cascadedb/statistics.h"
#include "tests/testutil/test_util.h"
#include "util/thread_pool.h"

namespace cascadedb {
namespace {

std::string Key(int i) { return "key" + std::to_string(100000 + i); }

// Holds every non-trivial compaction in OnCompactionBegin (called in the
// job's thread, after the job is counted and before its first entry) until
// Open() is called.
class GateListener : public EventListener {
 public:
  void OnCompactionBegin(DB*, const CompactionJobInfo& info) override {
    if (info.is_trivial_move) return;
    std::unique_lock<std::mutex> l(mu_);
    ++entered_;
    cv_.notify_all();
    cv_.wait(l, [this] { return open_; });
  }
  bool WaitEntered(int n) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::seconds(20),
                        [&] { return entered_ >= n; });
  }
  void Open() {
    std::lock_guard<std::mutex> l(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int entered_ = 0;
  bool open_ = false;
};

class DBFlushInCompactionTest : public testing::Test {
 protected:
  DBFlushInCompactionTest() : gate_(std::make_shared<GateListener>()) {
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    options_.max_write_buffer_number = 2;
    options_.level0_file_num_compaction_trigger = 2;
    options_.level0_slowdown_writes_trigger = 100;  // no compaction stalls
    options_.level0_stop_writes_trigger = 100;
    options_.max_background_compactions = 1;
    options_.max_background_flushes = 1;
    options_.stats_dump_period_sec = 0;
    options_.statistics = CreateDBStatistics();
    options_.compression = kNoCompression;
    options_.listeners.push_back(gate_);
  }

  ~DBFlushInCompactionTest() override {
    gate_->Open();  // never leave a job held
  }

  // Two overlapping L0 files: the L0 -> L1 compaction starts and the gate
  // holds it.
  void OpenAndHoldACompaction() {
    ASSERT_OK(DB::Open(options_, dir_.path(), &db_));
    for (int file = 0; file < 2; ++file) {
      for (int i = 0; i < 20; ++i) {
        ASSERT_OK(
            db_->Put(WriteOptions(), Key(i), "old" + std::to_string(file)));
      }
      ASSERT_OK(db_->Flush(FlushOptions()));
    }
    ASSERT_TRUE(gate_->WaitEntered(1)) << "no compaction started";
    // Flush returns once the memtable is installed, a moment before the
    // flush thread's job ends; a memtable switched meanwhile would go to
    // that thread.
    test::WaitUntil(
        [this] { return IntProperty("cascadedb.num-running-flushes") == 0; },
        4000);
    ASSERT_EQ(0u, IntProperty("cascadedb.num-running-flushes"));
  }

  // OpenAndHoldACompaction with the test thread (and so DB::Open's CPU
  // count, kept in cpus_at_open_) on one CPU. False where the affinity
  // cannot be set.
  bool OpenOnOneCpuAndHoldACompaction() {
    test::ScopedOneCpu one_cpu;
    if (!one_cpu.ok()) return false;
    cpus_at_open_ = AvailableCpus();
    OpenAndHoldACompaction();
    return true;
  }

  // With the job held: one memtable's worth is flushed by the flush
  // thread, not by the job; then the job goes on and the data is checked.
  void ExpectTheFlushThreadFlushes() {
    PutRange(100, 100 + kOneMemtable);
    ASSERT_TRUE(WaitImmutablesFlushed()) << "the flush waited for the job";
    EXPECT_EQ(0u, FlushesInCompaction());
    ReleaseAndCheck(100, 100 + kOneMemtable);
  }

  // Puts keys [from, to) with 1000-byte values.
  void PutRange(int from, int to) {
    for (int i = from; i < to; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), Value(i)));
    }
  }
  static std::string Value(int i) {
    return std::string(1000, static_cast<char>('a' + i % 26));
  }

  // Enough 1000-byte values to fill one 64 KiB memtable and switch it
  // (the switch happens on the write after the memtable is full).
  static constexpr int kOneMemtable = 75;

  uint64_t IntProperty(const std::string& name) {
    uint64_t v = 0;
    EXPECT_TRUE(db_->GetIntProperty(name, &v)) << name;
    return v;
  }
  uint64_t FlushesInCompaction() {
    return options_.statistics->getTickerCount(kFlushesInCompaction);
  }
  // Polls until no immutable memtable is left; false after 20 s.
  bool WaitImmutablesFlushed() {
    return test::WaitUntil(
        [this] {
          return IntProperty("cascadedb.num-immutable-mem-table") == 0;
        },
        20000, 5000);
  }

  void CheckRange(int from, int to) {
    for (int i = from; i < to; ++i) {
      std::string got;
      ASSERT_OK(db_->Get(ReadOptions(), Key(i), &got)) << i;
      ASSERT_EQ(Value(i), got) << i;
    }
  }

  // Lets the held job go, waits for all work, and checks the data there
  // and after a reopen.
  void ReleaseAndCheck(int from, int to) {
    gate_->Open();
    ASSERT_OK(db_->WaitForCompact());
    CheckRange(from, to);
    db_.reset();
    ASSERT_OK(DB::Open(options_, dir_.path(), &db_));
    CheckRange(from, to);
  }

  test::TempDir dir_;
  Options options_;
  std::shared_ptr<GateListener> gate_;
  int cpus_at_open_ = 0;
  std::unique_ptr<DB> db_;
};

TEST_F(DBFlushInCompactionTest, AlwaysRunningJobFlushesTheMemtable) {
  options_.flush_in_compaction = FlushInCompaction::kAlways;
  OpenAndHoldACompaction();
  PutRange(100, 100 + kOneMemtable);
  ASSERT_EQ(1u, IntProperty("cascadedb.num-immutable-mem-table"));
  // The flush waits for the held job, not for the flush thread.
  Env::Default()->SleepForMicroseconds(100000);
  EXPECT_EQ(1u, IntProperty("cascadedb.num-immutable-mem-table"));
  EXPECT_EQ(0u, FlushesInCompaction());

  gate_->Open();
  ASSERT_TRUE(WaitImmutablesFlushed());
  EXPECT_EQ(1u, FlushesInCompaction());
  ReleaseAndCheck(100, 100 + kOneMemtable);
}

TEST_F(DBFlushInCompactionTest, NeverFlushThreadFlushesWhileTheJobRuns) {
  options_.flush_in_compaction = FlushInCompaction::kNever;
  OpenAndHoldACompaction();
  ExpectTheFlushThreadFlushes();
  EXPECT_EQ(0u, FlushesInCompaction());
}

TEST_F(DBFlushInCompactionTest, AStoppedWriterDoesNotWaitForTheJob) {
  options_.flush_in_compaction = FlushInCompaction::kAlways;
  OpenAndHoldACompaction();
  // Five memtables' worth with two memtables: the writer stops on the
  // memtable limit several times while the job is still held.
  std::atomic<bool> done{false};
  std::thread writer([&] {
    PutRange(100, 100 + 5 * kOneMemtable);
    done = true;
  });
  test::WaitUntil([&done] { return done.load(); }, 20000, 5000);
  EXPECT_TRUE(done.load()) << "the writer waited for the held job";
  if (!done.load()) gate_->Open();  // let it finish
  writer.join();
  EXPECT_EQ(0u, FlushesInCompaction());
  std::map<std::string, std::string> stalls;
  ASSERT_TRUE(db_->GetMapProperty("cascadedb.stall-stats", &stalls));
  EXPECT_GE(std::stoull(stalls["memtable_limit.episodes"]), 1u);
  ReleaseAndCheck(100, 100 + 5 * kOneMemtable);
}

TEST_F(DBFlushInCompactionTest, ManualFlushDoesNotWaitForTheJob) {
  options_.flush_in_compaction = FlushInCompaction::kAlways;
  OpenAndHoldACompaction();
  PutRange(100, 110);
  std::atomic<bool> done{false};
  std::thread flusher([&] {
    ASSERT_OK(db_->Flush(FlushOptions()));
    done = true;
  });
  test::WaitUntil([&done] { return done.load(); }, 20000, 5000);
  EXPECT_TRUE(done.load()) << "Flush waited for the held job";
  if (!done.load()) gate_->Open();
  flusher.join();
  EXPECT_EQ(0u, IntProperty("cascadedb.num-immutable-mem-table"));
  EXPECT_EQ(0u, FlushesInCompaction());
  ReleaseAndCheck(100, 110);
}

TEST_F(DBFlushInCompactionTest, AutoHandsOffWhenCpusAreScarce) {
  options_.flush_in_compaction = FlushInCompaction::kAuto;
  // DB::Open counts the CPUs: one is fewer than one compaction thread, one
  // flush thread and a writer.
  if (!OpenOnOneCpuAndHoldACompaction()) {
    GTEST_SKIP() << "cannot set the CPU affinity";
  }
  ASSERT_EQ(1, cpus_at_open_);
  PutRange(100, 100 + kOneMemtable);
  Env::Default()->SleepForMicroseconds(100000);
  EXPECT_EQ(1u, IntProperty("cascadedb.num-immutable-mem-table"));
  gate_->Open();
  ASSERT_TRUE(WaitImmutablesFlushed());
  EXPECT_EQ(1u, FlushesInCompaction());
  ReleaseAndCheck(100, 100 + kOneMemtable);
}

TEST_F(DBFlushInCompactionTest,
       AutoKeepsTheFlushThreadWhileCompactionIsBehind) {
  options_.flush_in_compaction = FlushInCompaction::kAuto;
  // The two L0 files that start the compaction also slow writes down:
  // compaction is the bottleneck, and needs the CPU the flush would take.
  options_.level0_slowdown_writes_trigger = 2;
  if (!OpenOnOneCpuAndHoldACompaction()) {
    GTEST_SKIP() << "cannot set the CPU affinity";
  }
  std::map<std::string, std::string> stalls;
  ASSERT_TRUE(db_->GetMapProperty("cascadedb.stall-stats", &stalls));
  ASSERT_EQ("l0_slowdown", stalls["cause"]);
  ExpectTheFlushThreadFlushes();
}

TEST_F(DBFlushInCompactionTest, AutoKeepsTheFlushThreadWithARateLimiter) {
  options_.flush_in_compaction = FlushInCompaction::kAuto;
  options_.rate_limiter.reset(NewGenericRateLimiter(64 << 20));
  if (!OpenOnOneCpuAndHoldACompaction()) {
    GTEST_SKIP() << "cannot set the CPU affinity";
  }
  ExpectTheFlushThreadFlushes();
}

TEST_F(DBFlushInCompactionTest, AutoKeepsTheFlushThreadWithCpusToSpare) {
  options_.flush_in_compaction = FlushInCompaction::kAuto;
  if (AvailableCpus() < 3) {
    GTEST_SKIP() << "needs 3 CPUs (one compaction, one flush, one writer)";
  }
  OpenAndHoldACompaction();
  ExpectTheFlushThreadFlushes();
}

}  // namespace
}  // namespace cascadedb

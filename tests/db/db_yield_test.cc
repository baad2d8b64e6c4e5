// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Background jobs yield their CPU to held-up threads, end to end
// (Options::background_yields_to_writers): a flush to a write that works
// on the flush's CPU without getting anywhere, a compaction to a flush.
// The tests pin the whole process to one CPU, so that the threads share it
// and take turns as the scheduler says; the counts come from the stall
// stats ("yields-to-writers", "yields-to-flushes").

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "tests/testutil/env_wrappers.h"
#include "tests/testutil/one_cpu.h"
#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace {

std::string Key(int i) { return "key" + std::to_string(100000 + i); }

// A WalAppendHookEnv whose next sleep on the arming thread, once armed,
// runs a hook instead: how a test holds a delayed writer in its sleep.
class SleepHookEnv : public test::WalAppendHookEnv {
 public:
  void ArmSleep(std::function<void(int micros)> hook) {
    std::lock_guard<std::mutex> l(sleep_mu_);
    sleep_hook_ = std::move(hook);
    sleeper_ = std::this_thread::get_id();
  }

  void SleepForMicroseconds(int micros) override {
    std::function<void(int)> hook;
    {
      std::lock_guard<std::mutex> l(sleep_mu_);
      if (sleep_hook_ && std::this_thread::get_id() == sleeper_) {
        hook.swap(sleep_hook_);
      }
    }
    if (hook) {
      hook(micros);
    } else {
      WalAppendHookEnv::SleepForMicroseconds(micros);
    }
  }

 private:
  std::mutex sleep_mu_;
  std::function<void(int)> sleep_hook_;
  std::thread::id sleeper_;
};

class DBYieldTest : public testing::Test {
 protected:
  DBYieldTest() {
    options_.create_if_missing = true;
    options_.env = &env_;
    options_.write_buffer_size = 1 << 20;
    options_.stats_dump_period_sec = 0;
    // A flush of its own, not one run by a compaction's thread.
    options_.flush_in_compaction = FlushInCompaction::kNever;
  }

  void Open() { ASSERT_OK(DB::Open(options_, dir_.path(), &db_)); }

  uint64_t StallStat(const std::string& key) {
    std::map<std::string, std::string> m;
    EXPECT_TRUE(db_->GetMapProperty("cascadedb.stall-stats", &m));
    EXPECT_EQ(1u, m.count(key)) << key;
    return std::strtoull(m[key].c_str(), nullptr, 10);
  }

  // About bytes of 512-byte values under keys from first on.
  void Fill(int first, int bytes) {
    const std::string value(512, 'v');
    for (int i = 0; i < bytes / 512; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(first + i), value));
    }
  }

  // A flush of a full memtable starts, and the next write spins 200 ms
  // in its WAL append on the flush's one CPU.
  void FlushBesideASpinningWrite() {
    Fill(0, 1 << 20);
    FlushOptions no_wait;
    no_wait.wait = false;
    ASSERT_OK(db_->Flush(no_wait));
    // A write working, held up by nothing but the CPU.
    env_.Arm([] {
      const auto end =
          std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
      while (std::chrono::steady_clock::now() < end) {
      }
    });
    ASSERT_OK(db_->Put(WriteOptions(), "spun", "v"));
    ASSERT_OK(db_->Flush(FlushOptions()));
  }

  SleepHookEnv env_;
  test::TempDir dir_;
  Options options_;
  std::unique_ptr<DB> db_;
  test::CloseDBFirst close_{&db_, nullptr};
};

TEST_F(DBYieldTest, AFlushYieldsToAWriteHeldUpOnItsCpu) {
  test::OneCpu one_cpu;
  if (!one_cpu.pinned()) GTEST_SKIP() << "cannot set CPU affinity";
  Open();
  FlushBesideASpinningWrite();
  EXPECT_GT(StallStat("yields-to-writers"), 0u);
}

TEST_F(DBYieldTest, NothingYieldsWhenToldNot) {
  test::OneCpu one_cpu;
  if (!one_cpu.pinned()) GTEST_SKIP() << "cannot set CPU affinity";
  options_.background_yields_to_writers = false;
  Open();
  FlushBesideASpinningWrite();
  EXPECT_EQ(0u, StallStat("yields-to-writers"));
  EXPECT_EQ(0u, StallStat("yields-to-flushes"));
}

TEST_F(DBYieldTest, AFlushYieldsToADelayedWriteWokenOnItsCpu) {
  test::OneCpu one_cpu;
  if (!one_cpu.pinned()) GTEST_SKIP() << "cannot set CPU affinity";
  options_.write_buffer_size = 4 << 20;
  options_.level0_file_num_compaction_trigger = 1;
  options_.level0_slowdown_writes_trigger = 1;  // one table: delayed
  options_.level0_stop_writes_trigger = 100;
  options_.disable_auto_compactions = true;   // the table stays
  options_.stalled_writers_compress = false;  // the delay is all sleep
  Open();
  Fill(0, 3 << 20);
  ASSERT_OK(db_->Flush(FlushOptions()));
  Fill(100000, 3 << 20);  // delayed writes
  FlushOptions no_wait;
  no_wait.wait = false;
  ASSERT_OK(db_->Flush(no_wait));
  // The next write owes more than a millisecond: it sleeps, and its sleep
  // outlasts the time asked by far, as if woken and waiting for the CPU
  // the flush holds. Only the flush runs meanwhile: any yield to the
  // writer counted then is one to the late sleeper.
  uint64_t yields_while_asleep = 0;
  int asked = 0;
  env_.ArmSleep([&](int micros) {
    asked = micros;
    const uint64_t before = StallStat("yields-to-writers");
    // Until the flush has installed its table (5 s at most).
    uint64_t immutable = 1;
    for (int i = 0; i < 5000 && immutable > 0; i++) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ASSERT_TRUE(
          db_->GetIntProperty("cascadedb.num-immutable-mem-table", &immutable));
    }
    EXPECT_EQ(0u, immutable);
    yields_while_asleep = StallStat("yields-to-writers") - before;
  });
  ASSERT_OK(db_->Put(WriteOptions(), "late", std::string(256 << 10, 'v')));
  ASSERT_GT(asked, Env::kSleepSpinMicros);
  EXPECT_GT(yields_while_asleep, 0u);
}

TEST_F(DBYieldTest, ACompactionYieldsToAFlushHeldUpOnItsCpu) {
  test::OneCpu one_cpu;
  if (!one_cpu.pinned()) GTEST_SKIP() << "cannot set CPU affinity";
  options_.level0_file_num_compaction_trigger = 100;  // only CompactRange
  options_.level0_slowdown_writes_trigger = 100;
  options_.level0_stop_writes_trigger = 100;
  Open();
  // Each round: overlapping tables, which a compaction rewrites whole, and
  // flushes beside it on the same CPU until it ends. Whether a flush is
  // preempted mid-way while the compaction runs is the scheduler's call:
  // up to five rounds.
  int next_key = 0;
  for (int round = 0; round < 5 && StallStat("yields-to-flushes") == 0;
       round++) {
    for (int t = 0; t < 8; t++) {
      Fill(next_key + t * 100, 1 << 20);
      ASSERT_OK(db_->Flush(FlushOptions()));
    }
    next_key += 100000;
    std::atomic<bool> compacted{false};
    std::thread compaction([&] {
      EXPECT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
      compacted = true;
    });
    for (int t = 0; t < 50 && !compacted.load(); t++) {
      Fill(next_key, 1 << 20);
      next_key += 2048;
      ASSERT_OK(db_->Flush(FlushOptions()));
    }
    compaction.join();
  }
  EXPECT_GT(StallStat("yields-to-flushes"), 0u);
}

}  // namespace
}  // namespace cascadedb

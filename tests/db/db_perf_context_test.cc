// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// PerfContext's write times end to end: each part of a write (queue, stall,
// WAL, memtable) lands in its own field, only on the writing thread, and
// only when the thread's level asks for times. A WAL whose appends can be
// made slow puts a known wait into a known part.

#include "cascadedb/perf_context.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "tests/testutil/env_wrappers.h"
#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace {

constexpr uint64_t kMillis = 1000 * 1000;  // nanoseconds

std::string Key(int i) { return "key" + std::to_string(100000 + i); }

class DBPerfContextTest : public testing::Test {
 protected:
  DBPerfContextTest() {
    options_.create_if_missing = true;
    options_.stats_dump_period_sec = 0;
    options_.env = &env_;
    SetPerfLevel(PerfLevel::kDisable);
    GetPerfContext()->Reset();
  }
  ~DBPerfContextTest() override {
    db_.reset();
    SetPerfLevel(PerfLevel::kDisable);
  }

  void Open() { ASSERT_OK(DB::Open(options_, dir_.path(), &db_)); }

  // The next WAL append sleeps micros first; appending_ is true while it
  // does.
  void ArmSlowAppend(int micros) {
    env_.Arm([this, micros] {
      appending_ = true;
      Env::Default()->SleepForMicroseconds(micros);
      appending_ = false;
    });
  }

  test::WalAppendHookEnv env_;
  std::atomic<bool> appending_{false};
  test::TempDir dir_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST(PerfContextTest, ResetAndToString) {
  PerfContext c;
  c.write_count = 3;
  c.write_wal_nanos = 7;
  EXPECT_EQ(
      "write_count = 3, write_thread_wait_nanos = 0, write_delay_nanos = 0, "
      "write_stop_nanos = 0, write_memtable_switch_nanos = 0, "
      "write_wal_nanos = 7, write_memtable_nanos = 0, db_mutex_lock_nanos = 0",
      c.ToString());
  EXPECT_EQ("write_count = 3, write_wal_nanos = 7", c.ToString(true));
  c.Reset();
  EXPECT_EQ("", c.ToString(true));
}

TEST(PerfContextTest, LevelAndContextArePerThread) {
  SetPerfLevel(PerfLevel::kEnableTime);
  GetPerfContext()->write_count = 5;
  PerfLevel other_level = PerfLevel::kEnableTime;
  uint64_t other_count = 1;
  std::thread other([&] {
    other_level = GetPerfLevel();
    other_count = GetPerfContext()->write_count;
  });
  other.join();
  EXPECT_EQ(PerfLevel::kDisable, other_level);
  EXPECT_EQ(0u, other_count);
  EXPECT_EQ(PerfLevel::kEnableTime, GetPerfLevel());
  EXPECT_EQ(5u, GetPerfContext()->write_count);
  SetPerfLevel(PerfLevel::kDisable);
  GetPerfContext()->Reset();
}

TEST_F(DBPerfContextTest, DisabledMeasuresNothing) {
  Open();
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), "v"));
  }
  EXPECT_EQ("", GetPerfContext()->ToString(/*exclude_zero_counters=*/true));
}

TEST_F(DBPerfContextTest, WalAndMemtableTimesOfPlainWrites) {
  Open();
  SetPerfLevel(PerfLevel::kEnableTime);
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), std::string(100, 'v')));
  }
  PerfContext c = *GetPerfContext();
  EXPECT_EQ(100u, c.write_count);
  EXPECT_GT(c.write_wal_nanos, 0u);
  EXPECT_GT(c.write_memtable_nanos, 0u);
  EXPECT_EQ(0u, c.write_delay_nanos);  // no stall with the defaults
  EXPECT_EQ(0u, c.write_stop_nanos);

  // A slow WAL append is WAL time, not memtable or queue time.
  GetPerfContext()->Reset();
  ArmSlowAppend(30000);
  ASSERT_OK(db_->Put(WriteOptions(), "slow", "v"));
  c = *GetPerfContext();
  EXPECT_EQ(1u, c.write_count);
  EXPECT_GE(c.write_wal_nanos, 30 * kMillis);
  EXPECT_LT(c.write_memtable_nanos, 30 * kMillis);
  EXPECT_LT(c.write_thread_wait_nanos, 30 * kMillis);

  // Batches count once per call.
  GetPerfContext()->Reset();
  WriteBatch batch;
  ASSERT_OK(batch.Put("a", "1"));
  ASSERT_OK(batch.Delete("b"));
  ASSERT_OK(db_->Write(WriteOptions(), &batch));
  EXPECT_EQ(1u, GetPerfContext()->write_count);
}

TEST_F(DBPerfContextTest, QueueWaitBehindAnotherWritersGroup) {
  Open();
  // The first writer's WAL append holds the queue for 200 ms.
  ArmSlowAppend(200000);
  std::atomic<bool> first_done{false};
  std::thread first([&] {
    EXPECT_OK(db_->Put(WriteOptions(), "first", "v"));
    first_done = true;
  });
  // (Had the append not slowed, the checks below would fail, not hang.)
  while (!appending_ && !first_done) std::this_thread::yield();
  SetPerfLevel(PerfLevel::kEnableTime);
  ASSERT_OK(db_->Put(WriteOptions(), "second", "v"));
  const PerfContext c = *GetPerfContext();
  first.join();
  EXPECT_EQ(1u, c.write_count);
  // It queued for what was left of the 200 ms; its own append was quick.
  EXPECT_GE(c.write_thread_wait_nanos, 50 * kMillis) << c.ToString();
  EXPECT_LT(c.write_wal_nanos, 50 * kMillis) << c.ToString();
  std::string got;
  ASSERT_OK(db_->Get(ReadOptions(), "first", &got));
}

TEST_F(DBPerfContextTest, StallWaitsAreDelaysOrStops) {
  options_.write_buffer_size = 64 << 10;
  options_.level0_file_num_compaction_trigger = 2;
  options_.level0_slowdown_writes_trigger = 2;
  options_.level0_stop_writes_trigger = 4;
  options_.disable_auto_compactions = true;  // L0 piles up into a stop
  options_.compression = kNoCompression;
  Open();
  const std::string value(1000, 'v');
  std::atomic<bool> done{false};
  PerfContext writer_context;
  std::thread writer([&] {
    SetPerfLevel(PerfLevel::kEnableTime);
    for (int i = 0; i < 600; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), value));
    }
    writer_context = *GetPerfContext();
    done = true;
  });
  // Compaction runs only when the writer is stopped, so it must stop.
  while (!done) {
    uint64_t stopped = 0;
    ASSERT_TRUE(db_->GetIntProperty("cascadedb.is-write-stopped", &stopped));
    if (stopped == 1) {
      ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    }
    Env::Default()->SleepForMicroseconds(2000);
  }
  writer.join();
  EXPECT_EQ(600u, writer_context.write_count);
  EXPECT_GT(writer_context.write_stop_nanos, 0u) << writer_context.ToString();
  EXPECT_GT(writer_context.write_delay_nanos, 0u) << writer_context.ToString();
  // The writer's stall time is the engine's accounting of its waits (the
  // engine's total may also hold a CompactRange's wait for its flush).
  std::map<std::string, std::string> m;
  ASSERT_TRUE(db_->GetMapProperty("cascadedb.stall-stats", &m));
  const uint64_t stall_nanos = std::stoull(m["total.stall-micros"]) * 1000;
  EXPECT_LE(writer_context.write_delay_nanos + writer_context.write_stop_nanos,
            stall_nanos);
  // This thread wrote nothing and measured nothing.
  EXPECT_EQ("", GetPerfContext()->ToString(/*exclude_zero_counters=*/true));
}

}  // namespace
}  // namespace cascadedb

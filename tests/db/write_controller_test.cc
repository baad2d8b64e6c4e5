// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Tests for WriteController (db/write_controller.*): the stall rules and
// their precedence, the adaptive delayed-write rate, the token bucket and
// the accounting, all with synthetic inputs and a fake clock.
//
// Thread safety: single-threaded tests.

#include "db/write_controller.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "cascadedb/env.h"
#include "cascadedb/options.h"
#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace {

// An Env whose monotonic clock only moves when the test says so.
class FakeClockEnv : public EnvWrapper {
 public:
  FakeClockEnv() : EnvWrapper(Env::Default()) {}
  uint64_t NowMicros() override { return now_micros_; }
  uint64_t NowNanos() override { return now_micros_ * 1000; }
  void Advance(uint64_t micros) { now_micros_ += micros; }

 private:
  uint64_t now_micros_ = 1000000;
};

constexpr uint64_t kMiB = 1024 * 1024;

Options TestOptions() {
  Options o;
  o.max_write_buffer_number = 4;
  o.level0_file_num_compaction_trigger = 2;
  o.level0_slowdown_writes_trigger = 8;
  o.level0_stop_writes_trigger = 12;
  o.soft_pending_compaction_bytes_limit = 100 * kMiB;
  o.hard_pending_compaction_bytes_limit = 200 * kMiB;
  o.delayed_write_rate = 8 * kMiB;
  return o;
}

StallInputs Inputs(int memtables, int l0, uint64_t pending) {
  StallInputs in;
  in.num_memtables = memtables;
  in.l0_files = l0;
  in.pending_compaction_bytes = pending;
  return in;
}

class WriteControllerTest : public ::testing::Test {
 protected:
  WriteControllerTest() : wc_(new WriteController(TestOptions(), &env_)) {}

  void Reset(const Options& o) { wc_.reset(new WriteController(o, &env_)); }

  void ExpectState(WriteState s, StallCause c) {
    EXPECT_STREQ(WriteStateName(s), WriteStateName(wc_->state()));
    EXPECT_STREQ(StallCauseName(c), StallCauseName(wc_->cause()));
  }

  FakeClockEnv env_;
  std::unique_ptr<WriteController> wc_;
};

TEST(WriteControllerNamesTest, CauseAndStateNamesAreStable) {
  EXPECT_STREQ("none", StallCauseName(StallCause::kNone));
  EXPECT_STREQ("memtable_limit", StallCauseName(StallCause::kMemtableLimit));
  EXPECT_STREQ("l0_slowdown", StallCauseName(StallCause::kL0Slowdown));
  EXPECT_STREQ("l0_stop", StallCauseName(StallCause::kL0Stop));
  EXPECT_STREQ("pending_compaction_slowdown",
               StallCauseName(StallCause::kPendingCompactionSlowdown));
  EXPECT_STREQ("pending_compaction_stop",
               StallCauseName(StallCause::kPendingCompactionStop));
  EXPECT_STREQ("unknown", StallCauseName(StallCause::kNumCauses));
  EXPECT_STREQ("normal", WriteStateName(WriteState::kNormal));
  EXPECT_STREQ("delayed", WriteStateName(WriteState::kDelayed));
  EXPECT_STREQ("stopped", WriteStateName(WriteState::kStopped));
  EXPECT_STREQ("unknown", WriteStateName(static_cast<WriteState>(7)));
}

TEST_F(WriteControllerTest, StartsNormal) {
  ExpectState(WriteState::kNormal, StallCause::kNone);
  EXPECT_EQ(8 * kMiB, wc_->delayed_write_rate());
  EXPECT_FALSE(wc_->Update(Inputs(1, 0, 0)));
  ExpectState(WriteState::kNormal, StallCause::kNone);
}

TEST_F(WriteControllerTest, L0TriggersAreInclusive) {
  EXPECT_FALSE(wc_->Update(Inputs(1, 7, 0)));
  ExpectState(WriteState::kNormal, StallCause::kNone);
  EXPECT_TRUE(wc_->Update(Inputs(1, 8, 0)));
  ExpectState(WriteState::kDelayed, StallCause::kL0Slowdown);
  EXPECT_FALSE(wc_->Update(Inputs(1, 11, 0)));
  ExpectState(WriteState::kDelayed, StallCause::kL0Slowdown);
  EXPECT_TRUE(wc_->Update(Inputs(1, 12, 0)));
  ExpectState(WriteState::kStopped, StallCause::kL0Stop);
  EXPECT_TRUE(wc_->Update(Inputs(1, 3, 0)));
  ExpectState(WriteState::kNormal, StallCause::kNone);
}

TEST_F(WriteControllerTest, PendingCompactionLimitsAreInclusive) {
  EXPECT_FALSE(wc_->Update(Inputs(1, 0, 100 * kMiB - 1)));
  ExpectState(WriteState::kNormal, StallCause::kNone);
  EXPECT_TRUE(wc_->Update(Inputs(1, 0, 100 * kMiB)));
  ExpectState(WriteState::kDelayed, StallCause::kPendingCompactionSlowdown);
  EXPECT_FALSE(wc_->Update(Inputs(1, 0, 200 * kMiB - 1)));
  EXPECT_TRUE(wc_->Update(Inputs(1, 0, 200 * kMiB)));
  ExpectState(WriteState::kStopped, StallCause::kPendingCompactionStop);
}

TEST_F(WriteControllerTest, MemtableLimitStopsAndDelaysOneBelow) {
  EXPECT_FALSE(wc_->Update(Inputs(2, 0, 0)));
  ExpectState(WriteState::kNormal, StallCause::kNone);
  EXPECT_TRUE(wc_->Update(Inputs(3, 0, 0)));
  ExpectState(WriteState::kDelayed, StallCause::kMemtableLimit);
  // Same cause, new state: still reported as a change.
  EXPECT_TRUE(wc_->Update(Inputs(4, 0, 0)));
  ExpectState(WriteState::kStopped, StallCause::kMemtableLimit);
  // ...but it is one episode.
  EXPECT_EQ(1u, wc_->GetCauseStats(StallCause::kMemtableLimit).episodes);
}

TEST_F(WriteControllerTest, FewMemtablesHaveNoMemtableDelay) {
  for (int max : {2, 3}) {
    Options o = TestOptions();
    o.max_write_buffer_number = max;
    Reset(o);
    EXPECT_FALSE(wc_->Update(Inputs(max - 1, 0, 0))) << max;
    ExpectState(WriteState::kNormal, StallCause::kNone);
    EXPECT_TRUE(wc_->Update(Inputs(max, 0, 0))) << max;
    ExpectState(WriteState::kStopped, StallCause::kMemtableLimit);
  }
}

TEST_F(WriteControllerTest, ZeroPendingLimitsDisableTheRules) {
  Options o = TestOptions();
  o.soft_pending_compaction_bytes_limit = 0;
  o.hard_pending_compaction_bytes_limit = 0;
  Reset(o);
  EXPECT_FALSE(wc_->Update(Inputs(1, 0, UINT64_MAX)));
  ExpectState(WriteState::kNormal, StallCause::kNone);

  o.hard_pending_compaction_bytes_limit = 200 * kMiB;  // soft still 0
  Reset(o);
  EXPECT_FALSE(wc_->Update(Inputs(1, 0, 150 * kMiB)));
  EXPECT_TRUE(wc_->Update(Inputs(1, 0, 200 * kMiB)));
  ExpectState(WriteState::kStopped, StallCause::kPendingCompactionStop);
}

TEST_F(WriteControllerTest, StopCausesWinInPrecedenceOrder) {
  // Every condition at once: memtable_limit (stop) is reported first.
  wc_->Update(Inputs(4, 12, 200 * kMiB));
  ExpectState(WriteState::kStopped, StallCause::kMemtableLimit);
  wc_->Update(Inputs(1, 12, 200 * kMiB));
  ExpectState(WriteState::kStopped, StallCause::kL0Stop);
  wc_->Update(Inputs(1, 8, 200 * kMiB));
  // A stop beats any delay, even one earlier in the list.
  ExpectState(WriteState::kStopped, StallCause::kPendingCompactionStop);
  wc_->Update(Inputs(3, 8, 100 * kMiB));
  ExpectState(WriteState::kDelayed, StallCause::kMemtableLimit);
  wc_->Update(Inputs(1, 8, 100 * kMiB));
  ExpectState(WriteState::kDelayed, StallCause::kL0Slowdown);
  wc_->Update(Inputs(1, 0, 100 * kMiB));
  ExpectState(WriteState::kDelayed, StallCause::kPendingCompactionSlowdown);
}

TEST_F(WriteControllerTest, CauseChangeWithinDelayIsReported) {
  EXPECT_TRUE(wc_->Update(Inputs(1, 8, 0)));
  EXPECT_TRUE(wc_->Update(Inputs(1, 0, 100 * kMiB)));
  ExpectState(WriteState::kDelayed, StallCause::kPendingCompactionSlowdown);
  EXPECT_FALSE(wc_->Update(Inputs(1, 0, 120 * kMiB)));
}

TEST_F(WriteControllerTest, RateFallsWhileWorseningAndRisesWhileImproving) {
  wc_->Update(Inputs(1, 8, 0));
  EXPECT_EQ(8 * kMiB, wc_->delayed_write_rate());
  wc_->Update(Inputs(1, 9, 0));  // worse
  const uint64_t r1 = wc_->delayed_write_rate();
  EXPECT_EQ(static_cast<uint64_t>(8 * kMiB * 0.8), r1);
  wc_->Update(Inputs(2, 9, 0));  // another input changed: unchanged
  EXPECT_EQ(r1, wc_->delayed_write_rate());
  wc_->Update(Inputs(1, 10, 0));  // worse
  const uint64_t r2 = wc_->delayed_write_rate();
  EXPECT_EQ(static_cast<uint64_t>(static_cast<double>(r1) * 0.8), r2);
  wc_->Update(Inputs(1, 9, 0));  // better
  EXPECT_EQ(static_cast<uint64_t>(static_cast<double>(r2) * 1.25),
            wc_->delayed_write_rate());
}

TEST_F(WriteControllerTest, RateStaysWithinBounds) {
  wc_->Update(Inputs(1, 0, 100 * kMiB));
  for (int i = 1; i <= 100; ++i) {
    wc_->Update(Inputs(1, 0, 100 * kMiB + i));
  }
  EXPECT_EQ(WriteController::kMinDelayedWriteRate, wc_->delayed_write_rate());
  for (int i = 99; i >= 0; --i) {
    wc_->Update(Inputs(1, 0, 100 * kMiB + i));
  }
  EXPECT_EQ(8 * kMiB, wc_->delayed_write_rate());
}

TEST_F(WriteControllerTest, FloorIsTheConfiguredRateWhenThatIsLower) {
  Options o = TestOptions();
  o.delayed_write_rate = 1000;
  Reset(o);
  wc_->Update(Inputs(1, 8, 0));
  wc_->Update(Inputs(1, 9, 0));
  EXPECT_EQ(1000u, wc_->delayed_write_rate());
}

TEST_F(WriteControllerTest, RecentStallKeepsAdaptedRate) {
  wc_->Update(Inputs(1, 8, 0));
  wc_->Update(Inputs(1, 9, 0));
  wc_->Update(Inputs(1, 10, 0));
  const uint64_t adapted = wc_->delayed_write_rate();
  ASSERT_EQ(
      static_cast<uint64_t>(
          static_cast<double>(static_cast<uint64_t>(8 * kMiB * 0.8)) * 0.8),
      adapted);
  wc_->Update(Inputs(1, 2, 0));  // normal: the delay cleared the backlog
  const uint64_t kept =
      static_cast<uint64_t>(static_cast<double>(adapted) * 1.25);
  EXPECT_EQ(kept, wc_->delayed_write_rate());
  env_.Advance(WriteController::kRateMemoryMicros - 1);
  wc_->Update(Inputs(1, 8, 0));  // delayed again soon after
  EXPECT_EQ(kept, wc_->delayed_write_rate());

  wc_->Update(Inputs(1, 2, 0));
  env_.Advance(WriteController::kRateMemoryMicros);
  wc_->Update(Inputs(1, 8, 0));  // long after: starts fresh
  EXPECT_EQ(8 * kMiB, wc_->delayed_write_rate());
}

TEST_F(WriteControllerTest, EndingADelayRaisesTheRememberedRate) {
  wc_->Update(Inputs(1, 8, 0));
  wc_->Update(Inputs(1, 9, 0));
  const uint64_t slowed = wc_->delayed_write_rate();
  ASSERT_EQ(static_cast<uint64_t>(8 * kMiB * 0.8), slowed);
  wc_->Update(Inputs(1, 3, 0));  // delayed -> normal
  ExpectState(WriteState::kNormal, StallCause::kNone);
  EXPECT_EQ(static_cast<uint64_t>(static_cast<double>(slowed) * 1.25),
            wc_->delayed_write_rate());
  // Never above delayed_write_rate.
  wc_->Update(Inputs(1, 8, 0));
  wc_->Update(Inputs(1, 3, 0));
  EXPECT_EQ(8 * kMiB, wc_->delayed_write_rate());
}

TEST_F(WriteControllerTest, RepeatedShortDelaysDoNotSinkTheRate) {
  // Each episode worsens once and then clears: the rate falls and rises by
  // the same factors instead of ratcheting down to the floor.
  for (int i = 0; i < 50; ++i) {
    wc_->Update(Inputs(1, 8, 0));
    wc_->Update(Inputs(1, 9, 0));
    wc_->Update(Inputs(1, 2, 0));
  }
  EXPECT_GE(wc_->delayed_write_rate(), 8 * kMiB * 0.99);
}

TEST_F(WriteControllerTest,
       LeavingStopForDelaySlowsTheRateIfTheStopCameFromADelay) {
  wc_->Update(Inputs(1, 10, 0));
  ExpectState(WriteState::kDelayed, StallCause::kL0Slowdown);
  wc_->Update(Inputs(1, 12, 0));  // delayed writes ran into the stop
  ExpectState(WriteState::kStopped, StallCause::kL0Stop);
  EXPECT_EQ(8 * kMiB, wc_->delayed_write_rate());
  wc_->Update(Inputs(1, 10, 0));
  ExpectState(WriteState::kDelayed, StallCause::kL0Slowdown);
  EXPECT_EQ(static_cast<uint64_t>(8 * kMiB * 0.8), wc_->delayed_write_rate());
}

TEST_F(WriteControllerTest, StopReachedFromNormalLeavesTheRateAlone) {
  // A memtable filling while the previous one flushes stops writes that
  // were never delayed: that says nothing about the delayed-write rate.
  wc_->Update(Inputs(4, 9, 0));
  ExpectState(WriteState::kStopped, StallCause::kMemtableLimit);
  wc_->Update(Inputs(1, 9, 0));
  ExpectState(WriteState::kDelayed, StallCause::kL0Slowdown);
  EXPECT_EQ(8 * kMiB, wc_->delayed_write_rate());
}

StallInputs Flushing(int l0) {
  StallInputs in = Inputs(1, l0, 0);
  in.last_memtable_flushing = true;
  return in;
}

constexpr double kMargin = WriteController::kFlushPaceMargin;

// A flush in its tail (not the first since open) whose last tail took
// tail_micros: FlushPaceRate is
// room_bytes * 1e6 / (max(tail - since, 1000) * kFlushPaceMargin).
FlushProgress Tail(uint64_t room_bytes, uint64_t tail_micros,
                   uint64_t since_micros) {
  FlushProgress p;
  p.running = true;
  p.room_bytes = room_bytes;
  p.done_fraction = 1.0;
  p.expected_read_micros = 30000;
  p.tail_micros = tail_micros;
  p.read_done = true;
  p.elapsed_micros = 30000 + since_micros;  // a 30 ms reading
  p.since_read_micros = since_micros;
  return p;
}

TEST_F(WriteControllerTest, LastMemtableFlushingPacesWrites) {
  wc_->Update(Flushing(0));
  ExpectState(WriteState::kDelayed, StallCause::kMemtableLimit);
  EXPECT_TRUE(wc_->paced());
  // A compaction-driven delay is the tighter limit: it wins.
  wc_->Update(Flushing(8));
  ExpectState(WriteState::kDelayed, StallCause::kL0Slowdown);
  EXPECT_FALSE(wc_->paced());
  // A full memtable stops writes as before.
  StallInputs full = Flushing(0);
  full.num_memtables = 4;
  wc_->Update(full);
  ExpectState(WriteState::kStopped, StallCause::kMemtableLimit);
  EXPECT_FALSE(wc_->paced());
  wc_->Update(Inputs(1, 0, 0));
  ExpectState(WriteState::kNormal, StallCause::kNone);
  EXPECT_FALSE(wc_->paced());
  EXPECT_NE(std::string::npos,
            [&] {
              wc_->Update(Flushing(0));
              return wc_->DescribeState();
            }()
                .find("paced to the flush"));
}

TEST_F(WriteControllerTest, FlushPaceRateFromProgressAndTail) {
  FlushProgress p;
  p.room_bytes = 12000000;
  EXPECT_EQ(0u, WriteController::FlushPaceRate(p)) << "no flush runs";
  p.running = true;
  p.elapsed_micros = 10000;
  EXPECT_EQ(0u, WriteController::FlushPaceRate(p))
      << "nothing read and no earlier flush: nothing to go by";
  // The first flush since open has no earlier flush to go by: its own
  // progress, however little, is the estimate. 4% read in 10 ms: 240 ms
  // of reading to go, and its tail expected to take a share of the
  // reading's 250 ms. (A first flush that started slowly once read 2% in
  // its first 140 ms: unpaced, the writer filled the next 64 MiB memtable
  // meanwhile and stopped for 125 ms.)
  p.done_fraction = 0.04;
  constexpr double kShare = WriteController::kFirstFlushTailShare;
  EXPECT_NEAR(12000000.0 / ((0.240 + kShare * 0.250) * kMargin),
              static_cast<double>(WriteController::FlushPaceRate(p)), 2.0);
  // With an earlier flush, its speed stands in until 5% is read, here
  // saying this one reads for 30 ms: 20 ms to go (plus no tail), times
  // the margin.
  p.expected_read_micros = 30000;
  EXPECT_NEAR(12000000.0 / (0.020 * kMargin),
              static_cast<double>(WriteController::FlushPaceRate(p)), 2.0);
  p.expected_read_micros = 5000;  // overdue: at least 1 ms to go
  EXPECT_NEAR(12000000.0 / (0.001 * kMargin),
              static_cast<double>(WriteController::FlushPaceRate(p)), 2.0);
  // Half read in 10 ms: 10 ms to go, plus a 2 ms tail, times the margin.
  p.done_fraction = 0.5;
  p.tail_micros = 2000;
  EXPECT_NEAR(12000000.0 / (0.012 * kMargin),
              static_cast<double>(WriteController::FlushPaceRate(p)), 2.0);
  // In the tail: what is left of the last tail, at least 1 ms.
  EXPECT_NEAR(12000000.0 / (0.0015 * kMargin),
              static_cast<double>(
                  WriteController::FlushPaceRate(Tail(12000000, 2000, 500))),
              2.0);
  EXPECT_NEAR(12000000.0 / (0.001 * kMargin),
              static_cast<double>(
                  WriteController::FlushPaceRate(Tail(12000000, 2000, 9000))),
              2.0);
  // No room left: the slowest pace, not "no pace".
  EXPECT_EQ(1u, WriteController::FlushPaceRate(Tail(0, 2000, 0)));
}

TEST_F(WriteControllerTest, FirstFlushSinceOpenIsExpectedToHaveATail) {
  static_assert(WriteController::kFirstFlushTailShare > 0.05,
                "first tails measured 10-12% of the reading");
  constexpr double kShare = WriteController::kFirstFlushTailShare;
  // No earlier flush: no expected reading time and no last tail. Half
  // read in 200 ms: 200 ms of reading to go, then a tail of a share of
  // the reading's 400 ms, not none (expecting none, the writer filled the
  // next memtable as the reading ended and stopped for the whole tail).
  FlushProgress p;
  p.running = true;
  p.room_bytes = 12000000;
  p.elapsed_micros = 200000;
  p.done_fraction = 0.5;
  EXPECT_NEAR(12000000.0 / ((0.200 + kShare * 0.400) * kMargin),
              static_cast<double>(WriteController::FlushPaceRate(p)), 2.0);
  // In its tail, 10 ms after a 400 ms reading: what is left of that share.
  p.done_fraction = 1.0;
  p.read_done = true;
  p.elapsed_micros = 410000;
  p.since_read_micros = 10000;
  EXPECT_NEAR(12000000.0 / ((kShare * 0.400 - 0.010) * kMargin),
              static_cast<double>(WriteController::FlushPaceRate(p)), 2.0);
  // Past it: at least 1 ms, as for any flush.
  p.elapsed_micros = 800000;
  p.since_read_micros = 400000;
  EXPECT_NEAR(12000000.0 / (0.001 * kMargin),
              static_cast<double>(WriteController::FlushPaceRate(p)), 2.0);
  // With an earlier flush, its tail is the estimate, however short.
  p.expected_read_micros = 400000;
  p.tail_micros = 2000;
  p.since_read_micros = 500;
  EXPECT_NEAR(12000000.0 / (0.0015 * kMargin),
              static_cast<double>(WriteController::FlushPaceRate(p)), 2.0);
}

TEST_F(WriteControllerTest, PacedDelaysFollowTheFlushAndAreCapped) {
  wc_->Update(Flushing(0));
  ASSERT_TRUE(wc_->paced());
  uint64_t now = 1000000;
  // Nothing to pace to yet (nothing read, no earlier flush): no delay, the
  // bucket untouched.
  FlushProgress early;
  early.running = true;
  early.room_bytes = kMiB;
  early.done_fraction = 0;
  early.elapsed_micros = 100;
  EXPECT_EQ(0u, wc_->GetDelay(now, kMiB, early));
  // Room filled in 1 s (with the margin): 1 MB/s, and a 100-byte write
  // owes 100 us, whatever the adapted rate (8 MiB/s) says.
  const FlushProgress mbps =
      Tail(static_cast<uint64_t>(1000000 * kMargin), 1000000, 0);
  EXPECT_EQ(100u, wc_->GetDelay(now, 100, mbps));
  now += 100;
  // A debt worth 10 ms sleeps at most kMaxPaceDelayMicros per write.
  EXPECT_EQ(WriteController::kMaxPaceDelayMicros,
            wc_->GetDelay(now, 10000, mbps));
  // The adapted rate's delays are not capped.
  wc_->Update(Inputs(1, 8, 0));
  ASSERT_FALSE(wc_->paced());
  EXPECT_EQ(1000000u, wc_->GetDelay(now, 8 * kMiB, mbps));
}

TEST_F(WriteControllerTest, PacedDelaysLeaveTheAdaptedRateAlone) {
  // An L0 delay that worsens twice: 8 MiB/s * 0.8 * 0.8.
  wc_->Update(Inputs(1, 8, 0));
  wc_->Update(Inputs(1, 9, 0));
  wc_->Update(Inputs(1, 10, 0));
  const uint64_t lowered = wc_->delayed_write_rate();
  EXPECT_NEAR(8.0 * kMiB * 0.8 * 0.8, static_cast<double>(lowered), 2.0);
  // It ends in a paced delay: the L0 delay ended, one step up as usual.
  wc_->Update(Flushing(0));
  ASSERT_TRUE(wc_->paced());
  const uint64_t raised = wc_->delayed_write_rate();
  EXPECT_NEAR(static_cast<double>(lowered) * 1.25, static_cast<double>(raised),
              2.0);
  // Paced delays coming and going, even into a stop, change nothing.
  for (int i = 0; i < 5; ++i) {
    wc_->Update(Inputs(1, 0, 0));
    wc_->Update(Flushing(0));
    StallInputs full = Flushing(0);
    full.num_memtables = 4;
    wc_->Update(full);
    wc_->Update(Flushing(0));
  }
  wc_->Update(Inputs(1, 0, 0));
  EXPECT_EQ(raised, wc_->delayed_write_rate());
  // Nor do they count as stalls for the rate's memory: long after the L0
  // delay, the next one starts at the configured rate again, although
  // paced delays ended just now.
  env_.Advance(WriteController::kRateMemoryMicros);
  wc_->Update(Flushing(0));
  wc_->Update(Inputs(1, 0, 0));
  wc_->Update(Inputs(1, 8, 0));
  EXPECT_EQ(8 * kMiB, wc_->delayed_write_rate());
}

TEST_F(WriteControllerTest,
       CompactionBoundWhileAndShortlyAfterL0OrPendingStalls) {
  EXPECT_FALSE(wc_->CompactionBoundRecently(env_.NowMicros()));
  // Memtable stalls end when a flush does: not compaction-bound.
  wc_->Update(Inputs(4, 0, 0));
  ExpectState(WriteState::kStopped, StallCause::kMemtableLimit);
  EXPECT_FALSE(wc_->CompactionBoundRecently(env_.NowMicros()));
  wc_->Update(Inputs(1, 0, 0));
  EXPECT_FALSE(wc_->CompactionBoundRecently(env_.NowMicros()));

  wc_->Update(Inputs(1, 8, 0));
  ExpectState(WriteState::kDelayed, StallCause::kL0Slowdown);
  EXPECT_TRUE(wc_->CompactionBoundRecently(env_.NowMicros()));
  env_.Advance(WriteController::kRateMemoryMicros * 2);
  EXPECT_TRUE(wc_->CompactionBoundRecently(env_.NowMicros()))
      << "an ongoing L0 stall counts however long it lasts";
  // A memtable stop on top of it ends the L0 cause: the clock starts.
  wc_->Update(Inputs(4, 8, 0));
  ExpectState(WriteState::kStopped, StallCause::kMemtableLimit);
  env_.Advance(WriteController::kRateMemoryMicros - 1);
  EXPECT_TRUE(wc_->CompactionBoundRecently(env_.NowMicros()));
  wc_->Update(Inputs(1, 0, 0));
  env_.Advance(1);
  EXPECT_FALSE(wc_->CompactionBoundRecently(env_.NowMicros()));

  // Pending compaction bytes count as well.
  wc_->Update(Inputs(1, 0, 100 * kMiB));
  ExpectState(WriteState::kDelayed, StallCause::kPendingCompactionSlowdown);
  EXPECT_TRUE(wc_->CompactionBoundRecently(env_.NowMicros()));
  wc_->Update(Inputs(1, 0, 0));
  env_.Advance(WriteController::kRateMemoryMicros - 1);
  EXPECT_TRUE(wc_->CompactionBoundRecently(env_.NowMicros()));
  env_.Advance(1);
  EXPECT_FALSE(wc_->CompactionBoundRecently(env_.NowMicros()));
}

TEST_F(WriteControllerTest, NoDelayWhenNormalOrStopped) {
  EXPECT_EQ(0u, wc_->GetDelay(env_.NowMicros(), 100 * kMiB));
  wc_->Update(Inputs(1, 12, 0));
  EXPECT_EQ(0u, wc_->GetDelay(env_.NowMicros(), 100 * kMiB));
}

TEST_F(WriteControllerTest, DelayIsDebtOverRate) {
  Options o = TestOptions();
  o.delayed_write_rate = kMiB;  // 1 MiB/s
  Reset(o);
  wc_->Update(Inputs(1, 8, 0));
  uint64_t now = 5000000;
  // 1 MiB at 1 MiB/s: one second.
  EXPECT_EQ(1000000u, wc_->GetDelay(now, kMiB));
  // The writer sleeps that second; the debt is repaid and the next 1 MiB
  // costs another second.
  now += 1000000;
  EXPECT_EQ(1000000u, wc_->GetDelay(now, kMiB));
  // A second writer arriving while the first still sleeps queues behind
  // the outstanding debt: 0.5 s left of it, plus 0.5 s of its own.
  now += 500000;
  EXPECT_EQ(1000000u, wc_->GetDelay(now, kMiB / 2));
}

TEST_F(WriteControllerTest, SmallDebtsAccumulateToTheShortestSleep) {
  Options o = TestOptions();
  o.delayed_write_rate = kMiB;
  Reset(o);
  wc_->Update(Inputs(1, 8, 0));
  const uint64_t now = 7000000;
  // 10 us at 1 MiB/s is 10.49 bytes: 1-byte writes pass until the debt
  // reaches that, then one writer sleeps for all of it.
  static_assert(WriteController::kMinDelayMicros == 10, "update the test");
  int passed = 0;
  uint64_t delay = 0;
  while ((delay = wc_->GetDelay(now, 1)) == 0) ++passed;
  EXPECT_EQ(10, passed);
  EXPECT_GE(delay, WriteController::kMinDelayMicros);
  EXPECT_EQ(static_cast<uint64_t>(11.0 * 1e6 / kMiB + 0.5), delay);
}

TEST_F(WriteControllerTest, SleepsStayUnderAMillisecondAtTheConfiguredRate) {
  // Write latency is what a delay is felt as: at RocksDB's default rate a
  // stream of 1 KiB writes sleeps often and briefly, never a whole
  // millisecond at a time.
  Options o = TestOptions();
  o.delayed_write_rate = 16 * kMiB;
  Reset(o);
  wc_->Update(Inputs(1, 8, 0));
  uint64_t now = 7000000;
  int sleeps = 0;
  for (int i = 0; i < 10000; ++i) {
    const uint64_t delay = wc_->GetDelay(now, 1024);
    if (delay > 0) {
      ++sleeps;
      EXPECT_LT(delay, 1000u);
      now += delay;
    }
  }
  EXPECT_GT(sleeps, 100);
}

TEST_F(WriteControllerTest, IdleCreditIsCapped) {
  Options o = TestOptions();
  o.delayed_write_rate = kMiB;
  Reset(o);
  wc_->Update(Inputs(1, 8, 0));
  uint64_t now = 1000000;
  EXPECT_EQ(0u, wc_->GetDelay(now, 1));
  now += 60 * 1000000;  // a minute idle earns only kMaxCreditMicros of credit
  const uint64_t delay = wc_->GetDelay(now, kMiB);
  const double expected =
      (kMiB - kMiB * 1e-3) * 1e6 / kMiB;  // 1 MiB minus 1 ms of credit
  EXPECT_NEAR(expected, static_cast<double>(delay), 2.0);
}

TEST_F(WriteControllerTest, DelayUsesTheAdaptedRate) {
  Options o = TestOptions();
  o.delayed_write_rate = kMiB;
  Reset(o);
  wc_->Update(Inputs(1, 8, 0));
  wc_->Update(Inputs(1, 9, 0));  // rate 0.8 MiB/s, rounded down to a byte
  ASSERT_EQ(static_cast<uint64_t>(kMiB * 0.8), wc_->delayed_write_rate());
  EXPECT_NEAR(1250000.0, static_cast<double>(wc_->GetDelay(3000000, kMiB)),
              2.0);
}

TEST_F(WriteControllerTest, NewDelayStartsWithAnEmptyBucket) {
  Options o = TestOptions();
  o.delayed_write_rate = kMiB;
  Reset(o);
  wc_->Update(Inputs(1, 8, 0));
  EXPECT_EQ(1000000u, wc_->GetDelay(1000000, kMiB));
  wc_->Update(Inputs(1, 0, 0));
  env_.Advance(WriteController::kRateMemoryMicros);
  wc_->Update(Inputs(1, 8, 0));
  // The old debt is forgotten.
  EXPECT_EQ(500000u, wc_->GetDelay(1000000, kMiB / 2));
}

TEST_F(WriteControllerTest, EpisodesAreCountedAndTimedPerCause) {
  wc_->Update(Inputs(1, 8, 0));  // l0_slowdown #1
  env_.Advance(3000);
  wc_->Update(Inputs(1, 12, 0));  // l0_stop #1
  env_.Advance(5000);
  wc_->Update(Inputs(1, 9, 0));  // l0_slowdown #2
  env_.Advance(1000);
  wc_->Update(Inputs(1, 0, 0));  // normal
  env_.Advance(100000);
  wc_->Update(Inputs(1, 0, 0));

  WriteController::CauseStats slow =
      wc_->GetCauseStats(StallCause::kL0Slowdown);
  EXPECT_EQ(2u, slow.episodes);
  EXPECT_EQ(4000u, slow.episode_micros);
  EXPECT_EQ(3000u, slow.max_episode_micros);
  WriteController::CauseStats stop = wc_->GetCauseStats(StallCause::kL0Stop);
  EXPECT_EQ(1u, stop.episodes);
  EXPECT_EQ(5000u, stop.episode_micros);
  EXPECT_EQ(0u, wc_->GetCauseStats(StallCause::kMemtableLimit).episodes);
  EXPECT_EQ(0u, wc_->GetCauseStats(StallCause::kNone).episodes);
}

TEST_F(WriteControllerTest, OngoingEpisodeCountsUpToNow) {
  wc_->Update(Inputs(4, 0, 0));
  const uint64_t start = env_.NowMicros();
  WriteController::CauseStats s =
      wc_->GetCauseStats(StallCause::kMemtableLimit, start + 7000);
  EXPECT_EQ(1u, s.episodes);
  EXPECT_EQ(7000u, s.episode_micros);
  EXPECT_EQ(7000u, s.max_episode_micros);
  env_.Advance(2000);
  EXPECT_EQ(2000u,
            wc_->GetCauseStats(StallCause::kMemtableLimit).episode_micros);
}

TEST_F(WriteControllerTest, RecordStallAttributesWaitsToCauses) {
  wc_->RecordStall(StallCause::kL0Slowdown, false, 1000);
  wc_->RecordStall(StallCause::kL0Slowdown, false, 3000);
  wc_->RecordStall(StallCause::kL0Stop, true, 50000);
  wc_->RecordStall(StallCause::kMemtableLimit, true, 20000);
  wc_->RecordStall(StallCause::kNone, false, 7);

  WriteController::CauseStats slow =
      wc_->GetCauseStats(StallCause::kL0Slowdown);
  EXPECT_EQ(4000u, slow.stall_micros);
  EXPECT_EQ(3000u, slow.max_stall_micros);
  EXPECT_EQ(50000u, wc_->GetCauseStats(StallCause::kL0Stop).stall_micros);
  EXPECT_EQ(20000u,
            wc_->GetCauseStats(StallCause::kMemtableLimit).max_stall_micros);
  EXPECT_EQ(
      0u, wc_->GetCauseStats(StallCause::kPendingCompactionStop).stall_micros);
  EXPECT_EQ(3u, wc_->writes_delayed());
  EXPECT_EQ(2u, wc_->writes_stopped());
  EXPECT_EQ(74007u, wc_->total_stall_micros());
}

TEST_F(WriteControllerTest, StatsMapHasEveryFigure) {
  wc_->Update(Inputs(1, 8, 0));
  wc_->RecordStall(StallCause::kL0Slowdown, false, 2500);
  env_.Advance(4000);
  std::map<std::string, std::string> m;
  wc_->GetStallStatsMap(env_.NowMicros(), &m);
  for (const char* cause :
       {"memtable_limit", "l0_slowdown", "l0_stop",
        "pending_compaction_slowdown", "pending_compaction_stop"}) {
    for (const char* field : {"episodes", "stall-micros", "max-stall-micros",
                              "episode-micros", "max-episode-micros"}) {
      const std::string key = std::string(cause) + "." + field;
      EXPECT_EQ(1u, m.count(key)) << key;
    }
  }
  EXPECT_EQ(0u, m.count("none.episodes"));
  EXPECT_EQ("1", m["l0_slowdown.episodes"]);
  EXPECT_EQ("2500", m["l0_slowdown.stall-micros"]);
  EXPECT_EQ("2500", m["l0_slowdown.max-stall-micros"]);
  EXPECT_EQ("4000", m["l0_slowdown.episode-micros"]);
  EXPECT_EQ("0", m["l0_stop.episodes"]);
  EXPECT_EQ("1", m["total.episodes"]);
  EXPECT_EQ("2500", m["total.stall-micros"]);
  EXPECT_EQ("1", m["writes-delayed"]);
  EXPECT_EQ("0", m["writes-stopped"]);
  EXPECT_EQ("delayed", m["state"]);
  EXPECT_EQ("l0_slowdown", m["cause"]);
  EXPECT_EQ(std::to_string(8 * kMiB), m["delayed-write-rate"]);
}

TEST_F(WriteControllerTest, StatsTableShowsRowsTotalsAndState) {
  wc_->Update(Inputs(1, 12, 0));
  wc_->RecordStall(StallCause::kL0Stop, true, 12500);
  env_.Advance(20000);
  const std::string t = wc_->StallStatsTable(env_.NowMicros());
  EXPECT_NE(std::string::npos, t.find("state=stopped")) << t;
  EXPECT_NE(std::string::npos, t.find("cause=l0_stop")) << t;
  EXPECT_NE(std::string::npos, t.find("delayed-write-rate=8388608 B/s")) << t;
  for (const char* row :
       {"memtable_limit ", "l0_slowdown ", "l0_stop ",
        "pending_compaction_slowdown ", "pending_compaction_stop ", "total "}) {
    EXPECT_NE(std::string::npos, t.find(row)) << row << "\n" << t;
  }
  // The l0_stop row: 1 episode, 12.5 ms stalled, 12.5 ms longest, 20 ms of
  // episode time so far.
  const size_t row = t.find("\nl0_stop ");
  ASSERT_NE(std::string::npos, row) << t;
  const std::string line = t.substr(row + 1, t.find('\n', row + 1) - row - 1);
  EXPECT_NE(std::string::npos, line.find(" 1 ")) << line;
  EXPECT_NE(std::string::npos, line.find("12.5")) << line;
  EXPECT_NE(std::string::npos, line.find("20.0")) << line;
  EXPECT_NE(std::string::npos, t.find("writes delayed: 0, writes stopped: 1"))
      << t;
}

TEST_F(WriteControllerTest, DescribeStateNamesInputsAndThresholds) {
  wc_->Update(Inputs(2, 9, 12345));
  const std::string d = wc_->DescribeState();
  EXPECT_NE(std::string::npos, d.find("state=delayed")) << d;
  EXPECT_NE(std::string::npos, d.find("cause=l0_slowdown")) << d;
  EXPECT_NE(std::string::npos, d.find("l0_files=9 (slowdown 8, stop 12)")) << d;
  EXPECT_NE(std::string::npos, d.find("memtables=2 (max 4)")) << d;
  EXPECT_NE(std::string::npos, d.find("pending_compaction_bytes=12345")) << d;
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Tests for the generic token-bucket RateLimiter (util/rate_limiter.cc).
// Time is a fake clock whose sleeps either advance it at once or block until
// the test lets them go, so ordering is checked without timing assertions.
//
// Thread safety: the fake Env is thread-safe; each test owns its limiter.

#include "cascadedb/rate_limiter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "cascadedb/env.h"
#include "tests/testutil/test_util.h"
#include "util/mutex.h"

namespace cascadedb {
namespace {

using Pri = RateLimiter::IOPriority;

// A monotonic clock that moves only by sleeps. In gated mode every sleep
// blocks until the test calls Permit(); otherwise it returns at once.
class FakeSleepEnv : public EnvWrapper {
 public:
  explicit FakeSleepEnv(bool gated)
      : EnvWrapper(Env::Default()), gated_(gated), cv_(&mu_) {}

  uint64_t NowMicros() override {
    MutexLock lock(&mu_);
    return now_micros_;
  }
  uint64_t NowNanos() override { return NowMicros() * 1000; }

  void SleepForMicroseconds(int micros) override {
    MutexLock lock(&mu_);
    ++sleeps_;
    cv_.SignalAll();
    if (gated_) {
      while (permits_ == 0) cv_.Wait();
      --permits_;
    }
    now_micros_ += static_cast<uint64_t>(micros);
  }

  // Lets one blocked (or future) sleep finish.
  void Permit() {
    MutexLock lock(&mu_);
    ++permits_;
    cv_.SignalAll();
  }

  // Blocks until n sleeps have started.
  void WaitForSleeps(int n) {
    MutexLock lock(&mu_);
    while (sleeps_ < n) cv_.Wait();
  }

  int sleeps() {
    MutexLock lock(&mu_);
    return sleeps_;
  }

 private:
  const bool gated_;
  Mutex mu_;
  CondVar cv_;  // predicate: sleeps_ or permits_ changed
  uint64_t now_micros_ = 1000000;
  int sleeps_ = 0;
  int permits_ = 0;
};

// Spins (yielding) until limiter has seen n requests of priority pri. The
// count is taken under the limiter's mutex in the same critical section that
// queues the request, so once it is visible the request is queued.
void WaitForRequests(RateLimiter* limiter, Pri pri, int64_t n) {
  while (limiter->GetTotalRequests(pri) < n) std::this_thread::yield();
}

TEST(RateLimiterTest, FactoryRejectsBadArguments) {
  EXPECT_EQ(nullptr, NewGenericRateLimiter(0));
  EXPECT_EQ(nullptr, NewGenericRateLimiter(-5));
  EXPECT_EQ(nullptr, NewGenericRateLimiter(1000, 0));
  EXPECT_EQ(nullptr, NewGenericRateLimiter(1000, 100000, 0));
  std::unique_ptr<RateLimiter> ok(NewGenericRateLimiter(1000));
  EXPECT_NE(nullptr, ok);
}

TEST(RateLimiterTest, BurstIsRateTimesRefillPeriod) {
  FakeSleepEnv env(false);
  std::unique_ptr<RateLimiter> l(NewGenericRateLimiter(1000, 100000, 10, &env));
  EXPECT_EQ(1000, l->GetBytesPerSecond());
  EXPECT_EQ(100, l->GetSingleBurstBytes());
  std::unique_ptr<RateLimiter> big(
      NewGenericRateLimiter(10 << 20, 100000, 10, &env));
  EXPECT_EQ(1048576, big->GetSingleBurstBytes());
  std::unique_ptr<RateLimiter> tiny(NewGenericRateLimiter(1, 1000, 10, &env));
  EXPECT_EQ(1, tiny->GetSingleBurstBytes());  // never zero
  std::unique_ptr<RateLimiter> huge(
      NewGenericRateLimiter(INT64_MAX, 1000000, 10, &env));
  EXPECT_GT(huge->GetSingleBurstBytes(), 0);  // no overflow
}

TEST(RateLimiterTest, LargeRequestIsSplitIntoBursts) {
  FakeSleepEnv env(false);
  std::unique_ptr<RateLimiter> l(NewGenericRateLimiter(1000, 100000, 10, &env));
  const uint64_t start = env.NowMicros();
  l->Request(1000, Pri::kLow);
  // Ten bursts of 100: the first from the initial refill, then one per
  // refill period.
  EXPECT_EQ(9, env.sleeps());
  EXPECT_EQ(900000u, env.NowMicros() - start);
  EXPECT_EQ(1000, l->GetTotalBytesThrough(Pri::kLow));
  EXPECT_EQ(0, l->GetTotalBytesThrough(Pri::kHigh));
  EXPECT_EQ(1, l->GetTotalRequests(Pri::kLow));
  EXPECT_EQ(0, l->GetTotalRequests(Pri::kHigh));
}

TEST(RateLimiterTest, NonPositiveRequestsReturnAtOnce) {
  FakeSleepEnv env(false);
  std::unique_ptr<RateLimiter> l(NewGenericRateLimiter(1000, 100000, 10, &env));
  l->Request(0, Pri::kHigh);
  l->Request(-7, Pri::kHigh);
  EXPECT_EQ(0, env.sleeps());
  EXPECT_EQ(0, l->GetTotalBytesThrough(Pri::kHigh));
}

TEST(RateLimiterTest, SmallRequestsShareOneBurst) {
  FakeSleepEnv env(false);
  std::unique_ptr<RateLimiter> l(NewGenericRateLimiter(1000, 100000, 10, &env));
  for (int i = 0; i < 10; ++i) l->Request(10, Pri::kHigh);
  EXPECT_EQ(0, env.sleeps());
  l->Request(10, Pri::kHigh);
  EXPECT_EQ(1, env.sleeps());
  EXPECT_EQ(110, l->GetTotalBytesThrough(Pri::kHigh));
  EXPECT_EQ(11, l->GetTotalRequests(Pri::kHigh));
}

TEST(RateLimiterTest, IdleTimeDoesNotBuildAHugeBurst) {
  FakeSleepEnv env(false);
  std::unique_ptr<RateLimiter> l(NewGenericRateLimiter(1000, 100000, 10, &env));
  env.SleepForMicroseconds(60 * 1000 * 1000);  // a minute idle
  const int before = env.sleeps();
  l->Request(300, Pri::kLow);
  // Only one burst was banked: the other two wait a period each.
  EXPECT_EQ(2, env.sleeps() - before);
}

TEST(RateLimiterTest, SetBytesPerSecondChangesRateAndBurst) {
  FakeSleepEnv env(false);
  std::unique_ptr<RateLimiter> l(NewGenericRateLimiter(1000, 100000, 10, &env));
  l->SetBytesPerSecond(2000);
  EXPECT_EQ(2000, l->GetBytesPerSecond());
  EXPECT_EQ(200, l->GetSingleBurstBytes());
  l->SetBytesPerSecond(0);  // ignored
  l->SetBytesPerSecond(-1);
  EXPECT_EQ(2000, l->GetBytesPerSecond());
  l->Request(1000, Pri::kHigh);
  EXPECT_EQ(4, env.sleeps());  // five bursts of 200
  EXPECT_EQ(1000, l->GetTotalBytesThrough(Pri::kHigh));
}

TEST(RateLimiterTest, HighPriorityIsServedFirst) {
  FakeSleepEnv env(true);
  std::unique_ptr<RateLimiter> l(
      NewGenericRateLimiter(1000, 100000, 100, &env));
  l->Request(100, Pri::kHigh);  // drains the first burst without waiting
  ASSERT_EQ(0, env.sleeps());

  std::thread low([&] { l->Request(100, Pri::kLow); });
  env.WaitForSleeps(1);  // the low request leads and waits for the refill
  std::thread high([&] { l->Request(100, Pri::kHigh); });
  WaitForRequests(l.get(), Pri::kHigh, 2);  // the high request is queued

  env.Permit();
  // Someone sleeps for the next refill only after this one was handed out
  // (grants are counted under the limiter's mutex before that sleep).
  env.WaitForSleeps(2);
  // The refill went to the later, high-priority request.
  EXPECT_EQ(200, l->GetTotalBytesThrough(Pri::kHigh));
  EXPECT_EQ(0, l->GetTotalBytesThrough(Pri::kLow));

  env.Permit();
  high.join();
  low.join();
  EXPECT_EQ(100, l->GetTotalBytesThrough(Pri::kLow));
}

TEST(RateLimiterTest, FairnessServesLowFirstSometimes) {
  FakeSleepEnv env(true);
  // fairness 1: every refill that finds both priorities waiting serves low
  // first.
  std::unique_ptr<RateLimiter> l(NewGenericRateLimiter(1000, 100000, 1, &env));
  l->Request(100, Pri::kHigh);

  std::thread low([&] { l->Request(100, Pri::kLow); });
  env.WaitForSleeps(1);
  std::thread high([&] { l->Request(100, Pri::kHigh); });
  WaitForRequests(l.get(), Pri::kHigh, 2);

  env.Permit();
  env.WaitForSleeps(2);
  // The low request got this refill; the high one waits for the next.
  EXPECT_EQ(100, l->GetTotalBytesThrough(Pri::kLow));
  EXPECT_EQ(100, l->GetTotalBytesThrough(Pri::kHigh));

  env.Permit();
  low.join();
  high.join();
  EXPECT_EQ(200, l->GetTotalBytesThrough(Pri::kHigh));
}

TEST(RateLimiterTest, QueuedRequestIsGrantedInPartsAfterRateDrop) {
  FakeSleepEnv env(true);
  std::unique_ptr<RateLimiter> l(NewGenericRateLimiter(1000, 100000, 10, &env));
  l->Request(100, Pri::kHigh);
  std::thread low([&] { l->Request(100, Pri::kLow); });
  env.WaitForSleeps(1);
  l->SetBytesPerSecond(400);  // burst 40: the queued 100 no longer fits
  env.Permit();
  env.WaitForSleeps(2);
  EXPECT_EQ(40, l->GetTotalBytesThrough(Pri::kLow));
  env.Permit();
  env.WaitForSleeps(3);
  EXPECT_EQ(80, l->GetTotalBytesThrough(Pri::kLow));
  env.Permit();
  low.join();
  EXPECT_EQ(100, l->GetTotalBytesThrough(Pri::kLow));
}

TEST(RateLimiterTest, ConcurrentRequestsAreAllGranted) {
  FakeSleepEnv env(false);
  std::unique_ptr<RateLimiter> l(NewGenericRateLimiter(1000, 100000, 3, &env));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&l, t] {
      const Pri pri = (t % 2 == 0) ? Pri::kHigh : Pri::kLow;
      for (int i = 0; i < 20; ++i) l->Request(150, pri);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(2 * 20 * 150, l->GetTotalBytesThrough(Pri::kHigh));
  EXPECT_EQ(2 * 20 * 150, l->GetTotalBytesThrough(Pri::kLow));
  EXPECT_EQ(40, l->GetTotalRequests(Pri::kHigh));
  EXPECT_EQ(40, l->GetTotalRequests(Pri::kLow));
  // 12000 bytes at 100 per refill: at least 119 refills after the first.
  EXPECT_GE(env.sleeps(), 119);
}

TEST(RateLimiterTest, WorksWithTheDefaultEnv) {
  // A rate so high that nothing waits long; checks only the accounting.
  std::unique_ptr<RateLimiter> l(NewGenericRateLimiter(1ll << 40, 1000));
  for (int i = 0; i < 100; ++i) l->Request(4096, Pri::kLow);
  EXPECT_EQ(100 * 4096, l->GetTotalBytesThrough(Pri::kLow));
  EXPECT_EQ(100, l->GetTotalRequests(Pri::kLow));
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Tests for YieldWatch (db/yield_watch.*): when an observer sees the
// watched thread held up, with the CPU numbers and the clock set by the
// test.
//
// Thread safety: single-threaded tests (the "threads" are CPU numbers the
// test switches between calls).

#include "db/yield_watch.h"

#include <gtest/gtest.h>

namespace cascadedb {
namespace {

// The CPU the marks and the observers read: the test moves "threads"
// between CPUs by setting it.
int test_cpu = 0;
int TestCpu() { return test_cpu; }

// The clock Sleeping and the observers read, in microseconds.
uint64_t test_now = 0;
uint64_t TestNow() { return test_now; }

class YieldWatchTest : public testing::Test {
 protected:
  YieldWatchTest() : watch_(true) {
    test_cpu = 0;
    test_now = 1000;
    watch_.TEST_SetCpu(&TestCpu);
    watch_.TEST_SetClock(&TestNow);
  }

  YieldWatch watch_;
};

TEST_F(YieldWatchTest, WorkingWithoutANewMarkBetweenTwoLooksIsHeldUp) {
  YieldWatch::Observer observer(&watch_);
  watch_.Working();
  EXPECT_FALSE(observer.HeldUp());  // the first look only sees the mark
  EXPECT_TRUE(observer.HeldUp());
  EXPECT_TRUE(observer.HeldUp());
}

TEST_F(YieldWatchTest, ANewMarkBetweenLooksIsProgress) {
  YieldWatch::Observer observer(&watch_);
  watch_.Working();
  EXPECT_FALSE(observer.HeldUp());
  for (int i = 0; i < 5; i++) {
    watch_.Working();  // a write finished, the next began
    EXPECT_FALSE(observer.HeldUp());
  }
}

TEST_F(YieldWatchTest, AWaitingThreadIsNotHeldUp) {
  YieldWatch::Observer observer(&watch_);
  watch_.Waiting();
  EXPECT_FALSE(observer.HeldUp());
  EXPECT_FALSE(observer.HeldUp());
  watch_.Working();  // back from its wait
  EXPECT_FALSE(observer.HeldUp());
  EXPECT_TRUE(observer.HeldUp());
}

TEST_F(YieldWatchTest, ASleeperIsHeldUpAsSoonAsItsSleepIsOver) {
  YieldWatch::Observer observer(&watch_);
  watch_.Sleeping(100);             // until 1100
  EXPECT_FALSE(observer.HeldUp());  // first seen while asleep (now 1000)
  test_now = 1099;                  // still asleep
  EXPECT_FALSE(observer.HeldUp());
  test_now = 1100;  // woken (or done yielding), yet no mark: no margin
  EXPECT_TRUE(observer.HeldUp());
  EXPECT_TRUE(observer.HeldUp());
  watch_.Working();  // it got a CPU
  EXPECT_FALSE(observer.HeldUp());
}

TEST_F(YieldWatchTest, ASleeperFirstSeenPastItsSleepIsHeldUpAtOnce) {
  // A flush that appends a block between the writer's mark and its first
  // look must not wait for a second look: the sleep's end is known.
  YieldWatch::Observer observer(&watch_);
  EXPECT_FALSE(observer.HeldUp());  // nothing marked yet
  watch_.Sleeping(15);              // until 1015
  test_now = 1030;
  EXPECT_TRUE(observer.HeldUp());
  watch_.Working();  // it got a CPU
  EXPECT_FALSE(observer.HeldUp());
  watch_.Sleeping(15);  // until 1045: seen first while still asleep
  EXPECT_FALSE(observer.HeldUp());
  watch_.Waiting();
  test_now = 2000;
  EXPECT_FALSE(observer.HeldUp());  // blocked, not sleeping
}

TEST_F(YieldWatchTest, ABlockedThreadIsNotHeldUpHoweverLong) {
  YieldWatch::Observer observer(&watch_);
  watch_.Sleeping(10);
  EXPECT_FALSE(observer.HeldUp());
  watch_.Waiting();  // slept, then blocked: no end to wait for
  EXPECT_FALSE(observer.HeldUp());
  test_now += 1000000;
  EXPECT_FALSE(observer.HeldUp());
}

TEST_F(YieldWatchTest, ALateSleeperIsHeldUpOnlyOnItsCpu) {
  YieldWatch::Observer here(&watch_);
  YieldWatch::Observer there(&watch_);
  test_cpu = 1;
  watch_.Sleeping(10);  // went to sleep on CPU 1
  EXPECT_FALSE(here.HeldUp());
  test_cpu = 0;
  EXPECT_FALSE(there.HeldUp());
  test_now += 10;
  EXPECT_FALSE(there.HeldUp());
  test_cpu = 1;
  EXPECT_TRUE(here.HeldUp());
}

TEST_F(YieldWatchTest, ALateSleepersAnswersStopAfterTheCap) {
  YieldWatch::Observer observer(&watch_);
  watch_.Sleeping(10);
  EXPECT_FALSE(observer.HeldUp());
  test_now += 10;
  for (int i = 0; i < YieldWatch::kMaxAnswers; i++) {
    EXPECT_TRUE(observer.HeldUp()) << i;
  }
  EXPECT_FALSE(observer.HeldUp());
}

TEST_F(YieldWatchTest, OnlyAnObserverOnTheMarkedCpuSeesItHeldUp) {
  YieldWatch::Observer here(&watch_);
  YieldWatch::Observer there(&watch_);
  test_cpu = 1;
  watch_.Working();  // marked on CPU 1
  EXPECT_FALSE(here.HeldUp());
  test_cpu = 0;  // an observer running on CPU 0: the thread may be working
  EXPECT_FALSE(there.HeldUp());
  EXPECT_FALSE(there.HeldUp());
  test_cpu = 1;  // on CPU 1, while the thread is not running: queued here
  EXPECT_TRUE(here.HeldUp());
}

TEST_F(YieldWatchTest, AnUnknownCpuMatchesAnyCpu) {
  YieldWatch::Observer observer(&watch_);
  test_cpu = -1;  // the platform cannot tell
  watch_.Working();
  EXPECT_FALSE(observer.HeldUp());
  EXPECT_TRUE(observer.HeldUp());
  test_cpu = 5000;  // beyond what a mark can hold: unknown too
  watch_.Working();
  test_cpu = 3;
  EXPECT_FALSE(observer.HeldUp());
  EXPECT_TRUE(observer.HeldUp());
}

TEST_F(YieldWatchTest, AnswersStopAfterTheCapUntilANewMark) {
  YieldWatch::Observer observer(&watch_);
  watch_.Working();
  EXPECT_FALSE(observer.HeldUp());
  for (int i = 0; i < YieldWatch::kMaxAnswers; i++) {
    EXPECT_TRUE(observer.HeldUp()) << i;
  }
  // Still no mark: an application thread gone quiet, or one blocked.
  EXPECT_FALSE(observer.HeldUp());
  EXPECT_FALSE(observer.HeldUp());
  watch_.Working();
  EXPECT_FALSE(observer.HeldUp());
  EXPECT_TRUE(observer.HeldUp());
}

TEST_F(YieldWatchTest, YieldsAreCountedOnTheWatch) {
  YieldWatch::Observer a(&watch_);
  YieldWatch::Observer b(&watch_);
  EXPECT_EQ(0u, watch_.yields());
  a.CountYield();
  b.CountYield();
  b.CountYield();
  EXPECT_EQ(3u, watch_.yields());
}

TEST_F(YieldWatchTest, ADisabledWatchOrNoneIsNeverHeldUp) {
  YieldWatch off(false);
  off.TEST_SetCpu(&TestCpu);
  off.TEST_SetClock(&TestNow);
  YieldWatch::Observer of_off(&off);
  YieldWatch::Observer of_none;
  off.Working();
  for (int i = 0; i < 3; i++) {
    EXPECT_FALSE(of_off.HeldUp());
    EXPECT_FALSE(of_none.HeldUp());
  }
  off.Sleeping(10);
  test_now += 10;
  EXPECT_FALSE(of_off.HeldUp());
  EXPECT_FALSE(of_off.HeldUp());
  EXPECT_FALSE(off.enabled());
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/thread_cpu.h"

#include <gtest/gtest.h>

#include <chrono>

namespace cascadedb {
namespace {

// Spins on the clock for about ms milliseconds of wall time.
void BusyFor(int ms) {
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  volatile uint64_t sink = 0;
  while (std::chrono::steady_clock::now() < end) sink = sink + 1;
}

TEST(ThreadCpuTest, ParsesTheKernelsLineAndRejectsOthers) {
  ThreadCpuTime t;
  ASSERT_TRUE(ParseSchedstat("123456789 4000 17\n", &t));
  EXPECT_EQ(123456789u, t.on_cpu_nanos);
  EXPECT_EQ(4000u, t.waiting_nanos);
  for (const char* bad : {"", "12 34", "12 34 x", "12 34 5 6", "a b c"}) {
    ThreadCpuTime u;
    u.on_cpu_nanos = 7;
    EXPECT_FALSE(ParseSchedstat(bad, &u)) << bad;
    EXPECT_EQ(7u, u.on_cpu_nanos) << bad;  // left unchanged
  }
}

TEST(ThreadCpuTest, TheCallingThreadsTimeOnACpuGrowsWhileItComputes) {
  ThreadCpuTime before;
  if (!ReadThreadCpuTime(0, &before)) {
    GTEST_SKIP() << "the kernel keeps no per-thread CPU figures";
  }
  BusyFor(20);
  ThreadCpuTime after;
  ASSERT_TRUE(ReadThreadCpuTime(0, &after));
  EXPECT_GE(after.on_cpu_nanos - before.on_cpu_nanos, 5u * 1000 * 1000);
  EXPECT_GE(after.waiting_nanos, before.waiting_nanos);
  // A thread id that is not one of this process's threads.
  ThreadCpuTime none;
  EXPECT_FALSE(ReadThreadCpuTime(-5, &none));
}

TEST(ThreadCpuTest, SumsAdd) {
  ThreadCpuTime a;
  a.on_cpu_nanos = 3;
  a.waiting_nanos = 4;
  ThreadCpuTime b;
  b.on_cpu_nanos = 10;
  b.waiting_nanos = 20;
  a += b;
  EXPECT_EQ(13u, a.on_cpu_nanos);
  EXPECT_EQ(24u, a.waiting_nanos);
}

TEST(ThreadCpuTest, SinceIsTheDifferenceOrTheWholeForAReusedId) {
  ThreadCpuTime earlier;
  earlier.on_cpu_nanos = 100;
  earlier.waiting_nanos = 10;
  ThreadCpuTime later;
  later.on_cpu_nanos = 150;
  later.waiting_nanos = 30;
  ThreadCpuTime d = later.Since(earlier);
  EXPECT_EQ(50u, d.on_cpu_nanos);
  EXPECT_EQ(20u, d.waiting_nanos);
  // Either counter below the earlier reading: another thread, counted whole.
  ThreadCpuTime other;
  other.on_cpu_nanos = 500;
  other.waiting_nanos = 5;
  d = other.Since(earlier);
  EXPECT_EQ(500u, d.on_cpu_nanos);
  EXPECT_EQ(5u, d.waiting_nanos);
}

}  // namespace
}  // namespace cascadedb

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

// Figures made by hand.
ThreadCpuTime Cpu(uint64_t on_cpu_nanos, uint64_t waiting_nanos) {
  ThreadCpuTime t;
  t.on_cpu_nanos = on_cpu_nanos;
  t.waiting_nanos = waiting_nanos;
  return t;
}

TEST(ThreadCpuTest, SumsAdd) {
  ThreadCpuTime a = Cpu(3, 4);
  a += Cpu(10, 20);
  EXPECT_EQ(13u, a.on_cpu_nanos);
  EXPECT_EQ(24u, a.waiting_nanos);
}

TEST(ThreadCpuTest, SinceIsTheDifferenceOrTheWholeForAReusedId) {
  const ThreadCpuTime earlier = Cpu(100, 10);
  const ThreadCpuTime later = Cpu(150, 30);
  ThreadCpuTime d = later.Since(earlier);
  EXPECT_EQ(50u, d.on_cpu_nanos);
  EXPECT_EQ(20u, d.waiting_nanos);
  // Either counter below the earlier reading: another thread, counted whole.
  d = Cpu(500, 5).Since(earlier);
  EXPECT_EQ(500u, d.on_cpu_nanos);
  EXPECT_EQ(5u, d.waiting_nanos);
}

}  // namespace
}  // namespace cascadedb

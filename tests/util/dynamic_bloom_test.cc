// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/dynamic_bloom.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "util/arena.h"

namespace cascadedb {
namespace {

std::string Key(int i) { return "key" + std::to_string(i); }

TEST(DynamicBloomTest, AddedKeysAreAlwaysFound) {
  Arena arena;
  DynamicBloom bloom(&arena, 20 * 10000);
  for (int i = 0; i < 10000; i++) bloom.Add(Key(i));
  for (int i = 0; i < 10000; i++) EXPECT_TRUE(bloom.MayContain(Key(i))) << i;
}

TEST(DynamicBloomTest, AbsentKeysAreMostlyRuledOut) {
  for (int bits_per_key : {8, 20}) {
    Arena arena;
    DynamicBloom bloom(&arena, static_cast<uint64_t>(bits_per_key) * 10000);
    for (int i = 0; i < 10000; i++) bloom.Add(Key(i));
    int false_positives = 0;
    for (int i = 10000; i < 110000; i++) {
      false_positives += bloom.MayContain(Key(i));
    }
    const double rate = false_positives / 100000.0;
    // Blocked blooms with 6 probes: ~0.2% at 20 bits/key, ~3% at 8.
    EXPECT_LT(rate, bits_per_key == 20 ? 0.01 : 0.06) << bits_per_key;
  }
}

TEST(DynamicBloomTest, EmptyFilterRulesOutEverything) {
  Arena arena;
  DynamicBloom bloom(&arena, 0);  // rounds up to one line
  EXPECT_EQ(64u, bloom.MemoryBytes());
  for (int i = 0; i < 100; i++) EXPECT_FALSE(bloom.MayContain(Key(i)));
  bloom.Add(Key(1));
  EXPECT_TRUE(bloom.MayContain(Key(1)));
}

TEST(DynamicBloomTest, SizeRoundsUpToWholeLinesFromTheArena) {
  Arena arena;
  const size_t before = arena.MemoryUsage();
  DynamicBloom bloom(&arena, 513);  // just over one 512-bit line
  EXPECT_EQ(128u, bloom.MemoryBytes());
  EXPECT_GE(arena.MemoryUsage() - before, bloom.MemoryBytes());
}

TEST(DynamicBloomTest, HashedAddsMatchKeyAdds) {
  Arena arena;
  DynamicBloom bloom(&arena, 4096);
  const uint32_t h = DynamicBloom::HashOf("k");
  bloom.Prefetch(h);
  bloom.Add(h);
  EXPECT_TRUE(bloom.MayContain("k"));
}

TEST(DynamicBloomTest, ConcurrentAddsLoseNoKey) {
  Arena arena;
  // Few lines, so the threads set bits in the same words.
  DynamicBloom bloom(&arena, 64 * 1024);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&bloom, t] {
      for (int i = 0; i < kPerThread; i++) {
        bloom.AddConcurrently(Key(t * kPerThread + i));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads * kPerThread; i++) {
    EXPECT_TRUE(bloom.MayContain(Key(i))) << i;
  }
}

}  // namespace
}  // namespace cascadedb

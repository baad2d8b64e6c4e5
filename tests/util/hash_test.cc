// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/hash.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace {

uint32_t HashOf(const std::string& s, uint32_t seed) {
  return Hash(s.data(), s.size(), seed);
}

// Pearson's chi-square statistic of the counts against a uniform spread.
double ChiSquare(const std::vector<int>& counts, int total) {
  const double expected = static_cast<double>(total) / counts.size();
  double chi = 0;
  for (int c : counts) chi += (c - expected) * (c - expected) / expected;
  return chi;
}

TEST(HashTest, IsDeterministic) {
  uint32_t state = test::RandomSeed();
  for (size_t len = 0; len <= 64; ++len) {
    const std::string s = test::RandomBytes(&state, len);
    const std::string copy = s;  // Different address, same bytes.
    EXPECT_EQ(HashOf(s, 0xbc9f1d34u), HashOf(copy, 0xbc9f1d34u)) << len;
  }
}

TEST(HashTest, KnownValuesNeverChange) {
  // The bloom filter stores bits chosen by this hash, so any change here
  // makes existing SST files return false negatives.
  EXPECT_EQ(0x6555cdc0u, HashOf("", 0));
  EXPECT_EQ(0x638701dfu, HashOf("", 0xbc9f1d34u));
  EXPECT_EQ(0x7bb897bau, HashOf("a", 0xbc9f1d34u));
  EXPECT_EQ(0x90ef8bb9u, HashOf("12345678", 0xbc9f1d34u));
  EXPECT_EQ(0x8f96cb79u, HashOf("the quick brown fox", 0xbc9f1d34u));
}

TEST(HashTest, SeedStateIsMadeAtCompileTime) {
  // Callers pass constant seeds; their start states must fold into
  // constants (this fails to compile otherwise) and hash as Hash does.
  constexpr uint64_t kState = HashSeedState(0xbc9f1d34u);
  static_assert(kState != HashSeedState(0), "seeds must differ");
  for (const std::string s : {"", "a", "12345678", "the quick brown fox"}) {
    EXPECT_EQ(HashOf(s, 0xbc9f1d34u), HashFromState(s.data(), s.size(), kState))
        << s;
  }
}

TEST(HashTest, SeedChangesResult) {
  for (const std::string s : {"", "a", "hello world", "0123456789abcdef"}) {
    std::set<uint32_t> seen;
    for (uint32_t seed = 0; seed < 100; ++seed) seen.insert(HashOf(s, seed));
    EXPECT_EQ(100u, seen.size()) << s;
  }
}

TEST(HashTest, EveryLengthUpTo64GivesDistinctHashes) {
  // Prefixes of one string, including those that differ only by a
  // trailing zero byte, must not collide.
  std::string s(64, '\0');
  for (size_t i = 0; i < s.size(); i += 3) s[i] = static_cast<char>(i + 1);
  std::set<uint32_t> seen;
  for (size_t len = 0; len <= s.size(); ++len) {
    seen.insert(Hash(s.data(), len, 1));
  }
  EXPECT_EQ(s.size() + 1, seen.size());
}

TEST(HashTest, ReadsOnlyTheGivenBytes) {
  uint32_t state = test::RandomSeed();
  for (size_t len = 0; len <= 64; ++len) {
    std::string a = test::RandomBytes(&state, len);
    std::string b = a;
    a.append(16, 'x');
    b.append(16, 'y');
    EXPECT_EQ(Hash(a.data(), len, 7), Hash(b.data(), len, 7)) << len;
  }
}

TEST(HashTest, EveryInputBitAffectsAboutHalfTheOutputBits) {
  uint32_t state = test::RandomSeed();
  for (size_t len : {1, 4, 7, 8, 9, 16, 23, 64}) {
    long flipped = 0;
    int trials = 0;
    for (int round = 0; round < 20; ++round) {
      std::string s = test::RandomBytes(&state, len);
      const uint32_t base = HashOf(s, 0);
      for (size_t bit = 0; bit < 8 * len; ++bit) {
        s[bit / 8] ^= static_cast<char>(1 << (bit % 8));
        flipped += __builtin_popcount(base ^ HashOf(s, 0));
        s[bit / 8] ^= static_cast<char>(1 << (bit % 8));
        ++trials;
      }
    }
    const double mean = static_cast<double>(flipped) / trials;
    EXPECT_GT(mean, 15.0) << len;
    EXPECT_LT(mean, 17.0) << len;
  }
}

TEST(HashTest, SequentialKeysSpreadEvenlyOverBuckets) {
  constexpr int kKeys = 100000;
  constexpr int kBuckets = 64;
  std::vector<int> low(kBuckets), high(kBuckets);
  char key[32];
  for (int i = 0; i < kKeys; ++i) {
    const int n = std::snprintf(key, sizeof(key), "key%08d", i);
    const uint32_t h = Hash(key, static_cast<size_t>(n), 0xbc9f1d34u);
    ++low[h % kBuckets];  // Low bits: LRU cache shard selection.
    ++high[h >> 26];      // High bits.
  }
  // 63 degrees of freedom: mean 63, standard deviation about 11.2. The
  // bound is about seven standard deviations above the mean.
  EXPECT_LT(ChiSquare(low, kKeys), 140.0);
  EXPECT_LT(ChiSquare(high, kKeys), 140.0);
}

TEST(HashTest, BinaryKeysSpreadEvenlyOverBuckets) {
  constexpr int kKeys = 100000;
  constexpr int kBuckets = 64;
  std::vector<int> counts(kBuckets);
  for (uint32_t i = 0; i < kKeys; ++i) {
    // Fixed-width integers that differ only in a few low-order bytes.
    char key[8] = {};
    key[0] = static_cast<char>(i);
    key[1] = static_cast<char>(i >> 8);
    key[2] = static_cast<char>(i >> 16);
    ++counts[Hash(key, sizeof(key), 0) % kBuckets];
  }
  EXPECT_LT(ChiSquare(counts, kKeys), 140.0);
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/filter_policy.h"
#include "tests/testutil/test_util.h"
#include "util/key_hash_filter_policy.h"
#include "util/random.h"

namespace cascadedb {

namespace {

// Format facts from docs/format/bloom.md.
constexpr size_t kLineBytes = 64;
constexpr int kLineBits = 512;
constexpr size_t kTrailerBytes = 2;
constexpr char kFormatMarker = '\xC1';

// The key for index i in one of two disjoint key spaces, so queries from
// the other space are certainly not members.
std::string Key(char space, uint64_t i) {
  std::string key(1, space);
  key.append(reinterpret_cast<const char*>(&i), sizeof(i));
  return key;
}

std::string BuildFilter(const FilterPolicy& policy,
                        const std::vector<std::string>& keys) {
  std::vector<Slice> slices(keys.begin(), keys.end());
  std::string filter;
  policy.CreateFilter(slices.data(), static_cast<int>(slices.size()), &filter);
  return filter;
}

int NumProbes(const std::string& filter) {
  return static_cast<uint8_t>(filter[filter.size() - 2]);
}

size_t NumLines(const std::string& filter) {
  return (filter.size() - kTrailerBytes) / kLineBytes;
}

// Fraction of `queries` non-member keys the filter accepts.
double MeasuredFalsePositiveRate(const FilterPolicy& policy,
                                 const std::string& filter, int queries) {
  int hits = 0;
  for (int i = 0; i < queries; i++) {
    if (policy.KeyMayMatch(Key('q', i), filter)) hits++;
  }
  return static_cast<double>(hits) / queries;
}

// The false-positive rate of an idealized cache-local bloom with
// `num_lines` lines of 512 bits holding `num_keys` keys, each setting
// `k` independent uniform bits of one uniform line.
//
// Keys per line follow Poisson(lambda = num_keys / num_lines). Given m keys,
// a line has received k*m uniform bit draws; the number of distinct set bits
// X evolves as a Markov chain (a draw sets a new bit with probability
// (512 - x) / 512), and a miss is accepted with probability (X / 512)^k.
// The chain is exact, unlike the usual (1 - e^(-km/512))^k shortcut.
double TheoreticalFalsePositiveRate(size_t num_keys, size_t num_lines, int k) {
  const double lambda = static_cast<double>(num_keys) / num_lines;
  const int max_m = static_cast<int>(lambda + 12 * std::sqrt(lambda) + 30);
  std::vector<double> dist(kLineBits + 1, 0.0);  // P(X = x)
  dist[0] = 1.0;
  double rate = 0;
  for (int m = 0; m <= max_m; m++) {
    if (m > 0) {
      for (int draw = 0; draw < k; draw++) {
        for (int x = kLineBits; x >= 1; x--) {
          dist[x] = dist[x] * x / kLineBits +
                    dist[x - 1] * (kLineBits - (x - 1)) / kLineBits;
        }
        dist[0] = 0;
      }
    }
    double accept = 0;
    for (int x = 0; x <= kLineBits; x++) {
      accept += dist[x] * std::pow(static_cast<double>(x) / kLineBits, k);
    }
    const double weight =
        std::exp(-lambda + m * std::log(lambda) - std::lgamma(m + 1.0));
    rate += weight * accept;
  }
  return rate;
}

}  // namespace

TEST(BloomFilterTest, NameIsCacheLocalBloom) {
  auto policy = NewBloomFilterPolicy(10);
  EXPECT_STREQ("cascadedb.CacheLocalBloom", policy->Name());
}

TEST(BloomFilterTest, NoFalseNegativesForManySetSizes) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  auto policy = NewBloomFilterPolicy(10);
  for (int n = 1; n <= 10000; n = n < 10 ? n + 1 : n * 13 / 10) {
    std::vector<std::string> keys;
    for (int i = 0; i < n; i++) {
      // Lengths 0..63, including the empty key.
      std::string key;
      const size_t length = rnd.Uniform(64);
      for (size_t j = 0; j < length; j++) {
        key.push_back(static_cast<char>(rnd.Next()));
      }
      keys.push_back(key);
    }
    const std::string filter = BuildFilter(*policy, keys);
    for (const std::string& key : keys) {
      ASSERT_TRUE(policy->KeyMayMatch(key, filter))
          << "n=" << n << " key=" << Slice(key).ToPrintable(true);
    }
  }
}

// Filters are persisted: the same keys must give the same bytes forever
// (docs/format/bloom.md). A change here is a format change.
TEST(BloomFilterTest, FilterBytesAreStable) {
  auto policy = NewBloomFilterPolicy(10);
  const std::vector<std::string> keys = {"apple", "banana", "cherry", "",
                                         "durian"};
  const std::string filter = BuildFilter(*policy, keys);
  EXPECT_EQ(
      "2000000000004800100000020040000400050000800000002100000400010000"
      "408010000004100808011000000004200008100000000C04000000002040230007C1",
      Slice(filter).ToPrintable(/*hex=*/true));
}

// The table builder keeps each key's hash, not the key: the filter built
// from hashes must be the very bytes built from the keys, for every probe
// count (1 probe uses no second hash).
TEST(BloomFilterTest, FilterFromHashesEqualsFilterFromKeys) {
  for (double bits : {1.0, 2.0, 3.5, 10.0, 20.0, 64.0}) {
    auto policy = NewBloomFilterPolicy(bits);
    const auto* hashed = dynamic_cast<const KeyHashFilterPolicy*>(policy.get());
    ASSERT_NE(nullptr, hashed);
    std::vector<std::string> keys;
    for (int i = 0; i < 3000; i++) keys.push_back("key" + std::to_string(i));
    keys.push_back("");
    std::vector<uint64_t> hashes;
    for (const std::string& k : keys) hashes.push_back(hashed->KeyHash(k));
    std::string from_hashes = "prefix";
    hashed->CreateFilterFromHashes(hashes.data(), hashes.size(), &from_hashes);
    EXPECT_EQ("prefix" + BuildFilter(*policy, keys), from_hashes)
        << "bits_per_key " << bits;
  }
}

TEST(BloomFilterTest, EmptyKeySetMatchesNothing) {
  auto policy = NewBloomFilterPolicy(10);
  std::string filter;
  policy->CreateFilter(nullptr, 0, &filter);
  EXPECT_EQ(kTrailerBytes, filter.size());
  EXPECT_FALSE(policy->KeyMayMatch("", filter));
  EXPECT_FALSE(policy->KeyMayMatch("hello", filter));
  EXPECT_FALSE(policy->KeyMayMatch(Key('q', 7), filter));
}

TEST(BloomFilterTest, MalformedFiltersMayMatch) {
  auto policy = NewBloomFilterPolicy(10);
  const std::string good = BuildFilter(*policy, {"a", "b", "c"});
  ASSERT_EQ(kLineBytes + kTrailerBytes, good.size());
  ASSERT_FALSE(
      policy->KeyMayMatch("x", good) && policy->KeyMayMatch("y", good) &&
      policy->KeyMayMatch("z", good) && policy->KeyMayMatch("w", good));

  std::vector<std::string> bad;
  bad.push_back("");                      // empty
  bad.push_back(std::string(1, '\x07'));  // shorter than the trailer
  std::string wrong_marker = good;
  wrong_marker.back() = '\x01';
  bad.push_back(wrong_marker);
  for (int probes : {0, 31, 255}) {
    std::string wrong_probes = good;
    wrong_probes[good.size() - 2] = static_cast<char>(probes);
    bad.push_back(wrong_probes);
  }
  std::string truncated = good.substr(1);  // body not a multiple of 64
  bad.push_back(truncated);
  // An all-zero body would reject everything if it were accepted.
  std::string zeros(kLineBytes + 5, '\0');
  zeros[zeros.size() - 2] = 7;
  zeros.back() = kFormatMarker;
  bad.push_back(zeros);
  // Prefetching reads no more of a filter than the probe does (ASan).
  const auto* hashed = dynamic_cast<const KeyHashFilterPolicy*>(policy.get());
  ASSERT_NE(nullptr, hashed);
  for (size_t i = 0; i < bad.size(); i++) {
    for (const char* key : {"", "x", "y", "z", "w"}) {
      hashed->PrefetchKey(key, bad[i]);
      EXPECT_TRUE(policy->KeyMayMatch(key, bad[i]))
          << "filter " << i << " key " << key;
    }
  }
}

TEST(BloomFilterTest, RandomBytesAsFilterDoNotCrash) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  uint32_t state = seed;
  auto policy = NewBloomFilterPolicy(10);
  const auto* hashed = dynamic_cast<const KeyHashFilterPolicy*>(policy.get());
  ASSERT_NE(nullptr, hashed);
  for (int i = 0; i < 2000; i++) {
    std::string filter = test::RandomBytes(&state, rnd.Uniform(300));
    if (!filter.empty() && rnd.OneIn(2)) filter.back() = kFormatMarker;
    // Any answer is fine; reading out of bounds is not (run under ASan).
    hashed->PrefetchKey(Key('q', i), filter);
    policy->KeyMayMatch(Key('q', i), filter);
  }
}

TEST(BloomFilterTest, AppendsToExistingContents) {
  auto policy = NewBloomFilterPolicy(10);
  std::string dst = "prefix";
  const std::vector<Slice> keys = {"apple", "banana"};
  policy->CreateFilter(keys.data(), 2, &dst);
  ASSERT_EQ(0u, dst.compare(0, 6, "prefix"));
  const Slice filter(dst.data() + 6, dst.size() - 6);
  EXPECT_EQ(kLineBytes + kTrailerBytes, filter.size());
  EXPECT_TRUE(policy->KeyMayMatch("apple", filter));
  EXPECT_TRUE(policy->KeyMayMatch("banana", filter));
}

TEST(BloomFilterTest, SizeIsBitsPerKeyRoundedUpToLines) {
  auto policy = NewBloomFilterPolicy(10);
  std::vector<std::string> keys;
  for (int i = 0; i < 1000; i++) keys.push_back(Key('k', i));
  // 10,000 bits -> 20 lines of 512 bits.
  const std::string filter = BuildFilter(*policy, keys);
  EXPECT_EQ(20 * kLineBytes + kTrailerBytes, filter.size());
  EXPECT_EQ(kFormatMarker, filter.back());
}

TEST(BloomFilterTest, BitsPerKeyIsClampedToOneToHundred) {
  std::vector<std::string> keys;
  for (int i = 0; i < 1000; i++) keys.push_back(Key('k', i));
  const size_t at_one = BuildFilter(*NewBloomFilterPolicy(1), keys).size();
  const size_t at_hundred =
      BuildFilter(*NewBloomFilterPolicy(100), keys).size();
  EXPECT_EQ(at_one, BuildFilter(*NewBloomFilterPolicy(0.01), keys).size());
  EXPECT_EQ(at_one, BuildFilter(*NewBloomFilterPolicy(-5), keys).size());
  EXPECT_EQ(
      at_one,
      BuildFilter(
          *NewBloomFilterPolicy(std::numeric_limits<double>::quiet_NaN()), keys)
          .size());
  EXPECT_EQ(at_hundred, BuildFilter(*NewBloomFilterPolicy(1e6), keys).size());
  EXPECT_LT(at_one, at_hundred);
}

TEST(BloomFilterTest, ProbeCountIsInRangeForEveryBitsPerKey) {
  std::vector<std::string> keys = {"a"};
  int previous = 0;
  for (double bits = 1; bits <= 100; bits += 1) {
    const std::string filter = BuildFilter(*NewBloomFilterPolicy(bits), keys);
    const int k = NumProbes(filter);
    ASSERT_GE(k, 1) << bits;
    ASSERT_LE(k, 30) << bits;
    ASSERT_GE(k, previous) << bits;  // more bits never means fewer probes
    previous = k;
  }
}

TEST(BloomFilterTest, FalsePositiveRateMatchesBlockedBloomTheory) {
  auto policy = NewBloomFilterPolicy(10);
  const size_t n = 100000;
  std::vector<std::string> keys;
  for (size_t i = 0; i < n; i++) keys.push_back(Key('k', i));
  const std::string filter = BuildFilter(*policy, keys);
  const double measured = MeasuredFalsePositiveRate(*policy, filter, 1000000);
  const double theory =
      TheoreticalFalsePositiveRate(n, NumLines(filter), NumProbes(filter));
  std::printf("10 bits/key, k=%d: measured %.5f, theory %.5f\n",
              NumProbes(filter), measured, theory);
  // The theory for this layout is near 0.95%; a classic bloom would be 0.82%.
  EXPECT_GT(theory, 0.008);
  EXPECT_LT(theory, 0.011);
  EXPECT_NEAR(theory, measured, 0.2 * theory);
}

TEST(BloomFilterTest, FalsePositiveRateFallsAsBitsPerKeyGrows) {
  const size_t n = 20000;
  std::vector<std::string> keys;
  for (size_t i = 0; i < n; i++) keys.push_back(Key('k', i));
  double previous = 1.0;
  for (double bits : {2.0, 4.0, 6.0, 8.0, 10.0, 14.0, 20.0}) {
    auto policy = NewBloomFilterPolicy(bits);
    const std::string filter = BuildFilter(*policy, keys);
    const double rate = MeasuredFalsePositiveRate(*policy, filter, 200000);
    std::printf("%4.1f bits/key, k=%2d: fp %.5f\n", bits, NumProbes(filter),
                rate);
    EXPECT_LT(rate, previous) << bits << " bits/key";
    previous = rate;
  }
  EXPECT_LT(previous, 0.001);  // 20 bits/key
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tests/testutil/test_util.h"
#include "util/random.h"

namespace cascadedb {

TEST(HistogramTest, EmptyHistogramReportsZeros) {
  Histogram h;
  EXPECT_EQ(0u, h.Count());
  EXPECT_EQ(0.0, h.Min());
  EXPECT_EQ(0.0, h.Max());
  EXPECT_EQ(0.0, h.Average());
  EXPECT_EQ(0.0, h.StandardDeviation());
  EXPECT_EQ(0.0, h.Median());
  EXPECT_EQ(0.0, h.Percentile(99.99));
  const std::string s = h.ToString();
  EXPECT_NE(std::string::npos, s.find("Count: 0")) << s;
  EXPECT_EQ(std::string::npos, s.find("nan")) << s;
}

TEST(HistogramTest, BucketLimitsAreLogSpaced) {
  const int n = Histogram::NumBuckets();
  ASSERT_GT(n, 100);
  EXPECT_EQ(1.0, Histogram::BucketLimit(0));
  EXPECT_EQ(1e200, Histogram::BucketLimit(n - 1));
  for (int b = 1; b < n; b++) {
    const double prev = Histogram::BucketLimit(b - 1);
    const double limit = Histogram::BucketLimit(b);
    ASSERT_GT(limit, prev) << "bucket " << b;
    if (limit <= 1e15 && prev >= 10) {
      // About 1.2x growth, within rounding to two digits.
      ASSERT_LE(limit / prev, 1.25) << "bucket " << b;
      ASSERT_GE(limit / prev, 1.15) << "bucket " << b;
    }
  }
}

TEST(HistogramTest, OneToHundredHasExactMoments) {
  Histogram h;
  for (int i = 1; i <= 100; i++) h.Add(i);
  EXPECT_EQ(100u, h.Count());
  EXPECT_EQ(1.0, h.Min());
  EXPECT_EQ(100.0, h.Max());
  EXPECT_DOUBLE_EQ(50.5, h.Average());
  // Population standard deviation of 1..n is sqrt((n^2 - 1) / 12).
  EXPECT_NEAR(std::sqrt((100.0 * 100.0 - 1) / 12), h.StandardDeviation(), 1e-9);
}

TEST(HistogramTest, OneToHundredPercentilesAreWithinABucket) {
  Histogram h;
  for (int i = 1; i <= 100; i++) h.Add(i);
  for (int p = 1; p <= 100; p++) {
    // The p-th percentile of 1..100 is p; buckets are at most ~20% wide.
    EXPECT_NEAR(p, h.Percentile(p), 0.2 * p + 1) << "p" << p;
  }
  EXPECT_NEAR(50, h.Median(), 10);
  EXPECT_EQ(1.0, h.Percentile(0));
  EXPECT_EQ(100.0, h.Percentile(100));
}

TEST(HistogramTest, PercentilesAreMonotonic) {
  Histogram h;
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  for (int i = 0; i < 10000; i++) h.Add(rnd.Skewed(20));
  double prev = h.Percentile(0);
  for (double p = 0.5; p <= 100; p += 0.5) {
    const double v = h.Percentile(p);
    ASSERT_GE(v, prev) << "p" << p;
    prev = v;
  }
}

TEST(HistogramTest, PercentileIsClampedToMinAndMax) {
  Histogram h;
  h.Add(5);
  h.Add(5);
  for (double p : {0.0, 1.0, 50.0, 99.0, 100.0, -3.0, 250.0}) {
    EXPECT_EQ(5.0, h.Percentile(p)) << "p" << p;
  }
  EXPECT_EQ(0.0, h.StandardDeviation());
}

TEST(HistogramTest, MergeEqualsAddingBoth) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  Histogram a, b, both;
  // Integers below 2^16 keep every sum (and sum of squares) exact, so the
  // merged result must match exactly.
  for (int i = 0; i < 5000; i++) {
    const double v = rnd.Skewed(16);
    (i % 3 == 0 ? a : b).Add(v);
    both.Add(v);
  }
  a.Merge(b);
  EXPECT_EQ(both.Count(), a.Count());
  EXPECT_EQ(both.Min(), a.Min());
  EXPECT_EQ(both.Max(), a.Max());
  EXPECT_EQ(both.Average(), a.Average());
  EXPECT_EQ(both.StandardDeviation(), a.StandardDeviation());
  for (double p : {1.0, 50.0, 95.0, 99.0, 99.9, 99.99}) {
    EXPECT_EQ(both.Percentile(p), a.Percentile(p)) << "p" << p;
  }
  EXPECT_EQ(both.ToString(), a.ToString());
}

TEST(HistogramTest, MergeIntoEmptyTakesOthersMinAndMax) {
  Histogram empty, other;
  other.Add(70);
  other.Add(90);
  empty.Merge(other);
  EXPECT_EQ(70.0, empty.Min());
  EXPECT_EQ(90.0, empty.Max());
  EXPECT_EQ(2u, empty.Count());
  Histogram nothing;
  empty.Merge(nothing);
  EXPECT_EQ(70.0, empty.Min());
  EXPECT_EQ(2u, empty.Count());
}

TEST(HistogramTest, TailPercentilesShowOutliers) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  Histogram h;
  // 99,980 fast operations in [100, 110) and 20 stalls of 1e6 (0.02%).
  for (int i = 0; i < 99980; i++) h.Add(100 + rnd.Uniform(10));
  for (int i = 0; i < 20; i++) h.Add(1e6);
  EXPECT_EQ(1e6, h.Max());
  // P99 and P99.9 stay in the fast operations' bucket, [100, 120).
  EXPECT_LT(h.Percentile(99), 120);
  EXPECT_LT(h.Percentile(99.9), 120);
  // P99.99 falls among the outliers: within their bucket, not above max.
  EXPECT_GT(h.Percentile(99.99), 0.8e6);
  EXPECT_LE(h.Percentile(99.99), 1e6);
}

TEST(HistogramTest, ExtremeValuesAreKeptInEndBuckets) {
  Histogram h;
  h.Add(-5);
  h.Add(0.25);
  h.Add(1e300);
  h.Add(std::numeric_limits<double>::quiet_NaN());  // ignored
  EXPECT_EQ(3u, h.Count());
  EXPECT_EQ(-5.0, h.Min());
  EXPECT_EQ(1e300, h.Max());
  EXPECT_GE(h.Percentile(10), -5.0);
  EXPECT_LE(h.Percentile(10), 1.0);
  EXPECT_EQ(1e300, h.Percentile(100));
  EXPECT_FALSE(std::isnan(h.Percentile(99)));
}

TEST(HistogramTest, ClearForgetsEverything) {
  Histogram h;
  h.Add(3);
  h.Add(300);
  h.Clear();
  EXPECT_EQ(0u, h.Count());
  EXPECT_EQ(0.0, h.Max());
  h.Add(7);
  EXPECT_EQ(7.0, h.Min());
  EXPECT_EQ(7.0, h.Percentile(99));
}

TEST(HistogramTest, ToStringShowsSummaryPercentilesAndBuckets) {
  Histogram h;
  for (int i = 1; i <= 100; i++) h.Add(i);
  const std::string s = h.ToString();
  EXPECT_NE(std::string::npos, s.find("Count: 100")) << s;
  EXPECT_NE(std::string::npos, s.find("Average: 50.5")) << s;
  EXPECT_NE(std::string::npos, s.find("Min: 1.0")) << s;
  EXPECT_NE(std::string::npos, s.find("Max: 100.0")) << s;
  EXPECT_NE(std::string::npos, s.find("P99.99:")) << s;
  EXPECT_NE(std::string::npos, s.find("P99.9:")) << s;
  // The [1, 2) bucket holds 1% of the values; the last one ends at 100%.
  EXPECT_NE(std::string::npos, s.find("1.000%   1.000%")) << s;
  EXPECT_NE(std::string::npos, s.find("100.000%")) << s;
}

}  // namespace cascadedb

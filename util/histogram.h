// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Histogram: a fixed-size summary of a stream of non-negative measurements
// (latencies in microseconds, sizes in bytes) for benchmarks and statistics.
// Values fall into log-spaced buckets: 13 per decade (1, 1.2, 1.4, 1.7, 2,
// 2.4, 2.9, 3.5, 4.2, 5, 6, 7.2, 8.6 times a power of ten; each about 1.2x the
// previous) from 1 up to 1e15, then one per decade up to 1e200. Percentiles
// below 1e15 therefore carry a relative error under ~20%, usually far less
// thanks to interpolation. Count, sum, sum of squares,
// min and max are exact.
//
// Thread safety: not thread-safe. Use one histogram per thread and Merge().

#ifndef CASCADEDB_UTIL_HISTOGRAM_H_
#define CASCADEDB_UTIL_HISTOGRAM_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace cascadedb {

class Histogram {
 public:
  // The number of buckets (the generated table's size is checked against
  // it in histogram.cc).
  static constexpr int kNumBuckets = 376;

  Histogram() { Clear(); }

  // Forgets every value.
  void Clear();

  // Records one value. Values below 1 (including negative ones) share the
  // first bucket but count exactly in min/average. NaN is ignored.
  void Add(double value);

  // Adds every value recorded in other, as if Add() had been called for
  // each of them.
  void Merge(const Histogram& other);

  // Number of values recorded.
  uint64_t Count() const { return static_cast<uint64_t>(num_); }
  // Smallest/largest value recorded; 0 when empty.
  double Min() const { return num_ == 0 ? 0.0 : min_; }
  double Max() const { return num_ == 0 ? 0.0 : max_; }
  // Mean and population standard deviation; 0 when empty.
  double Average() const;
  double StandardDeviation() const;
  // Percentile(50).
  double Median() const;
  // The value below which p percent of the recorded values fall, linearly
  // interpolated within its bucket and clamped to [Min(), Max()].
  // p is clamped to [0, 100]. Returns 0 when empty.
  double Percentile(double p) const;

  // A multi-line report: count/average/stddev, min/median/max, P50 P95 P99
  // P99.9 P99.99, then one line per non-empty bucket with its range, count,
  // percentage, cumulative percentage and a bar.
  std::string ToString() const;

  // Number of buckets and their upper bounds (exclusive): bucket b holds
  // values in [BucketLimit(b - 1), BucketLimit(b)); bucket 0 starts at
  // -infinity and the last bucket also takes every value >= its limit
  // (1e200). Exposed for tests.
  // REQUIRES: 0 <= b < NumBuckets()
  static int NumBuckets();
  static double BucketLimit(int b);

 private:
  double min_;
  double max_;
  double num_;
  double sum_;
  double sum_squares_;
  double buckets_[kNumBuckets];
};

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_HISTOGRAM_H_

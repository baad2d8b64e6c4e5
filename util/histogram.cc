// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/histogram.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace cascadedb {

namespace {

// Bucket limits are generated at compile time. Below kFineEnd each limit is
// the previous one times 1.2, rounded to two significant digits (and at least
// one more than the previous): 1, 2, ..., 8, 10, 12, 14, 17, 20, 24, 29, 35,
// 42, 50, 60, 72, 86, 100, 120, ... so each decade repeats the same 13 steps.
// From kFineEnd on, one bucket per decade up to 1e200: values that large are
// never latencies or sizes, they only need a place to go.
constexpr uint64_t kFineEnd = 1000000000000000ull;  // 1e15
constexpr double kLastLimit = 1e200;

struct BucketTable {
  std::array<double, Histogram::kNumBuckets> limits{};
  int count = 0;
};

constexpr BucketTable MakeBucketTable() {
  BucketTable table;
  int n = 0;
  uint64_t x = 1;
  while (x < kFineEnd) {
    if (n < Histogram::kNumBuckets) table.limits[n] = static_cast<double>(x);
    n++;
    // next = round(x * 1.2) to two significant digits, computed on x * 12
    // (ten times the target) to stay in integers.
    const uint64_t tenfold = x * 12;
    uint64_t unit = 1;  // the place value of the second significant digit
    while (1000 * unit <= tenfold) unit *= 10;
    const uint64_t next = (tenfold + 5 * unit) / (10 * unit) * unit;
    x = next > x ? next : x + 1;
  }
  double decade = static_cast<double>(kFineEnd);
  while (decade < kLastLimit * 0.5) {
    if (n < Histogram::kNumBuckets) table.limits[n] = decade;
    n++;
    decade *= 10;
  }
  if (n < Histogram::kNumBuckets) table.limits[n] = kLastLimit;
  n++;
  table.count = n;
  return table;
}

constexpr BucketTable kBuckets = MakeBucketTable();
static_assert(kBuckets.count == Histogram::kNumBuckets,
              "Histogram::kNumBuckets must match the generated table");

// The bucket for value: the first whose limit exceeds it (the last bucket
// takes everything beyond).
int BucketFor(double value) {
  const double* begin = kBuckets.limits.data();
  const double* end = begin + Histogram::kNumBuckets - 1;
  return static_cast<int>(std::upper_bound(begin, end, value) - begin);
}

}  // namespace

int Histogram::NumBuckets() { return kNumBuckets; }

double Histogram::BucketLimit(int b) {
  return kBuckets.limits[static_cast<size_t>(b)];
}

void Histogram::Clear() {
  min_ = 0;
  max_ = 0;
  num_ = 0;
  sum_ = 0;
  sum_squares_ = 0;
  std::fill(std::begin(buckets_), std::end(buckets_), 0.0);
}

void Histogram::Add(double value) {
  if (std::isnan(value)) return;  // it has no place in an ordered summary
  buckets_[BucketFor(value)] += 1.0;
  if (num_ == 0 || value < min_) min_ = value;
  if (num_ == 0 || value > max_) max_ = value;
  num_ += 1.0;
  sum_ += value;
  sum_squares_ += value * value;
}

void Histogram::Merge(const Histogram& other) {
  if (other.num_ == 0) return;
  if (num_ == 0 || other.min_ < min_) min_ = other.min_;
  if (num_ == 0 || other.max_ > max_) max_ = other.max_;
  num_ += other.num_;
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
  for (int b = 0; b < kNumBuckets; b++) {
    buckets_[b] += other.buckets_[b];
  }
}

double Histogram::Average() const { return num_ == 0 ? 0.0 : sum_ / num_; }

double Histogram::StandardDeviation() const {
  if (num_ == 0) return 0.0;
  // Population variance from the running sums; rounding can push it a hair
  // below zero when all values are equal.
  const double variance = (sum_squares_ * num_ - sum_ * sum_) / (num_ * num_);
  return variance <= 0 ? 0.0 : std::sqrt(variance);
}

double Histogram::Median() const { return Percentile(50.0); }

double Histogram::Percentile(double p) const {
  if (num_ == 0) return 0.0;
  if (!(p > 0)) p = 0;  // also maps NaN to 0
  if (p > 100) p = 100;
  const double threshold = num_ * (p / 100.0);
  double cumulative = 0;
  for (int b = 0; b < kNumBuckets; b++) {
    const double in_bucket = buckets_[b];
    if (in_bucket == 0) continue;
    if (cumulative + in_bucket >= threshold) {
      // Assume the bucket's values are spread evenly over its range, and
      // never report outside what was actually seen.
      const double left =
          std::max(b == 0 ? min_ : kBuckets.limits[b - 1], min_);
      // The last bucket is open-ended: it reaches up to max_.
      const double right =
          b == kNumBuckets - 1 ? max_ : std::min(kBuckets.limits[b], max_);
      const double fraction = (threshold - cumulative) / in_bucket;
      double result = left + (right - left) * fraction;
      if (result < min_) result = min_;
      if (result > max_) result = max_;
      return result;
    }
    cumulative += in_bucket;
  }
  return max_;
}

std::string Histogram::ToString() const {
  std::string r;
  char line[256];
  std::snprintf(line, sizeof(line),
                "Count: %" PRIu64 "  Average: %.4f  StdDev: %.2f\n", Count(),
                Average(), StandardDeviation());
  r.append(line);
  std::snprintf(line, sizeof(line), "Min: %.4f  Median: %.4f  Max: %.4f\n",
                Min(), Median(), Max());
  r.append(line);
  std::snprintf(line, sizeof(line),
                "Percentiles: P50: %.2f P95: %.2f P99: %.2f P99.9: %.2f "
                "P99.99: %.2f\n",
                Percentile(50), Percentile(95), Percentile(99),
                Percentile(99.9), Percentile(99.99));
  r.append(line);
  r.append("------------------------------------------------------\n");
  if (num_ == 0) return r;
  const double percent_per_value = 100.0 / num_;
  double cumulative = 0;
  for (int b = 0; b < kNumBuckets; b++) {
    if (buckets_[b] == 0) continue;
    cumulative += buckets_[b];
    const double left = b == 0 ? -INFINITY : kBuckets.limits[b - 1];
    std::snprintf(
        line, sizeof(line), "[ %10.4g, %10.4g ) %10.0f %7.3f%% %7.3f%% ", left,
        kBuckets.limits[b], buckets_[b], percent_per_value * buckets_[b],
        percent_per_value * cumulative);
    r.append(line);
    // A bar of up to 20 marks, one per 5% of the values.
    const int marks = static_cast<int>(20.0 * buckets_[b] / num_ + 0.5);
    r.append(static_cast<size_t>(marks), '#');
    r.push_back('\n');
  }
  return r;
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Latency histogram, per-thread recorder and common-gap search for
// db_bench. See latency.h for the bucket layout and thread-safety.

#include "benchmarks/db_bench/latency.h"

#include <algorithm>
#include <chrono>

namespace cascadedb {
namespace db_bench {

uint64_t NowNanos() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// ---------------------------------------------------------------- histogram

LatencyHistogram::LatencyHistogram() : buckets_(kNumBuckets, 0) {}

int LatencyHistogram::BucketFor(uint64_t ns) {
  if (ns < kSubBuckets) return static_cast<int>(ns);
  // ns has its top bit at position e >= kSubBits; the group of e holds 64
  // equal-width buckets over [2^e, 2^(e+1)).
  const int e = 63 - __builtin_clzll(ns);
  const int shift = e - kSubBits;
  return static_cast<int>((e - kSubBits + 1) * kSubBuckets +
                          ((ns >> shift) - kSubBuckets));
}

uint64_t LatencyHistogram::BucketLow(int b) {
  const uint64_t ub = static_cast<uint64_t>(b);
  if (ub < kSubBuckets) return ub;
  const uint64_t group = ub / kSubBuckets;  // >= 1
  const uint64_t shift = group - 1;
  return (kSubBuckets + ub % kSubBuckets) << shift;
}

uint64_t LatencyHistogram::BucketHigh(int b) {
  if (b + 1 >= kNumBuckets) return UINT64_MAX;
  return BucketLow(b + 1);
}

void LatencyHistogram::Add(uint64_t ns) {
  buckets_[BucketFor(ns)]++;
  count_++;
  sum_ += ns;
  min_ = std::min(min_, ns);
  max_ = std::max(max_, ns);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (int b = 0; b < kNumBuckets; b++) buckets_[b] += other.buckets_[b];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void LatencyHistogram::AddBucketCount(int b, uint64_t n) {
  if (n == 0) return;
  buckets_[b] += n;
  count_ += n;
  const uint64_t low = BucketLow(b);
  const uint64_t high = BucketHigh(b);
  // Without the exact values, the bucket midpoint is the best guess.
  sum_ += n * (low + (high - low) / 2);
  min_ = std::min(min_, low);
  max_ = std::max(max_, high == UINT64_MAX ? low : high - 1);
}

void LatencyHistogram::SetExact(uint64_t min_ns, uint64_t max_ns,
                                uint64_t sum_ns) {
  min_ = min_ns;
  max_ = max_ns;
  sum_ = sum_ns;
}

double LatencyHistogram::AverageNanos() const {
  return count_ == 0 ? 0.0
                     : static_cast<double>(sum_) / static_cast<double>(count_);
}

double LatencyHistogram::PercentileNanos(double p) const {
  if (count_ == 0) return 0.0;
  p = std::clamp(p, 0.0, 100.0);
  const double threshold = static_cast<double>(count_) * (p / 100.0);
  double cumulative = 0;
  for (int b = 0; b < kNumBuckets; b++) {
    const double in_bucket = static_cast<double>(buckets_[b]);
    if (in_bucket == 0) continue;
    if (cumulative + in_bucket >= threshold) {
      const double low = static_cast<double>(BucketLow(b));
      const double high = static_cast<double>(BucketHigh(b));
      const double pos = (threshold - cumulative) / in_bucket;
      const double value = low + (high - low) * pos;
      return std::clamp(value, static_cast<double>(MinNanos()),
                        static_cast<double>(max_));
    }
    cumulative += in_bucket;
  }
  return static_cast<double>(max_);
}

std::vector<std::pair<double, double>> LatencyHistogram::Cdf() const {
  std::vector<std::pair<double, double>> points;
  if (count_ == 0) return points;
  uint64_t cumulative = 0;
  for (int b = 0; b < kNumBuckets; b++) {
    if (buckets_[b] == 0) continue;
    cumulative += buckets_[b];
    double high = static_cast<double>(BucketHigh(b));
    high = std::min(high, static_cast<double>(max_) + 1);
    points.emplace_back(high / 1000.0, static_cast<double>(cumulative) /
                                           static_cast<double>(count_));
  }
  return points;
}

// ---------------------------------------------------------------- classes

const char* LatencyClassName(int c) {
  static const char* const kNames[kNumLatencyClasses] = {"<=10us", "10us-1ms",
                                                         "1ms-10ms", ">10ms"};
  return (c >= 0 && c < kNumLatencyClasses) ? kNames[c] : "?";
}

LatencyClass ClassOf(uint64_t ns) {
  if (ns <= 10 * 1000) return LatencyClass::kUpTo10us;
  if (ns <= 1000 * 1000) return LatencyClass::kTo1ms;
  if (ns <= 10 * 1000 * 1000) return LatencyClass::kTo10ms;
  return LatencyClass::kOver10ms;
}

void ClassBreakdown::Merge(const ClassBreakdown& other) {
  for (int c = 0; c < kNumLatencyClasses; c++) {
    ops[c] += other.ops[c];
    nanos[c] += other.nanos[c];
  }
}

uint64_t ClassBreakdown::TotalOps() const {
  uint64_t t = 0;
  for (uint64_t v : ops) t += v;
  return t;
}

uint64_t ClassBreakdown::TotalNanos() const {
  uint64_t t = 0;
  for (uint64_t v : nanos) t += v;
  return t;
}

// ---------------------------------------------------------------- recorder

LatencyRecorder::LatencyRecorder()
    : buckets_(new std::atomic<uint64_t>[LatencyHistogram::kNumBuckets]) {
  for (int b = 0; b < LatencyHistogram::kNumBuckets; b++) {
    buckets_[b].store(0, std::memory_order_relaxed);
  }
}

void LatencyRecorder::Start(uint64_t now) {
  start_ = now;
  last_completion_ = now;
}

void LatencyRecorder::Finish(uint64_t now) { finish_ = now; }

void LatencyRecorder::KeepGap(uint64_t begin, uint64_t end) {
  if (gaps_.size() >= kMaxGaps) {
    gaps_truncated_ = true;
    return;
  }
  gaps_.push_back(Interval{begin, end});
}

void LatencyRecorder::Snapshot(LatencyHistogram* hist) const {
  for (int b = 0; b < LatencyHistogram::kNumBuckets; b++) {
    const uint64_t n = buckets_[b].load(std::memory_order_relaxed);
    if (n != 0) hist->AddBucketCount(b, n);
  }
}

void LatencyRecorder::AddBucketCountsTo(std::vector<uint64_t>* counts) const {
  for (int b = 0; b < LatencyHistogram::kNumBuckets; b++) {
    (*counts)[b] += buckets_[b].load(std::memory_order_relaxed);
  }
}

LatencyHistogram LatencyRecorder::Histogram() const {
  LatencyHistogram h;
  Snapshot(&h);
  if (h.Count() > 0) h.SetExact(min_, max_, sum_.load());
  return h;
}

std::vector<Interval> LatencyRecorder::Gaps() const {
  std::vector<Interval> out;
  out.reserve(gaps_.size() + 2);
  // Before the thread started it completed nothing either.
  size_t first = 0;
  if (!gaps_.empty() && gaps_[0].begin == start_) {
    out.push_back(Interval{0, gaps_[0].end});
    first = 1;
  } else {
    out.push_back(Interval{0, start_});
  }
  for (size_t i = first; i < gaps_.size(); i++) out.push_back(gaps_[i]);
  // After its last completion the thread completes nothing more. (The
  // interval starts at that completion, so it never merges with the gap
  // that ended there.)
  out.push_back(Interval{last_completion_, UINT64_MAX});
  return out;
}

std::vector<Interval> IntersectIntervals(const std::vector<Interval>& a,
                                         const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const uint64_t begin = std::max(a[i].begin, b[j].begin);
    const uint64_t end = std::min(a[i].end, b[j].end);
    if (begin < end) out.push_back(Interval{begin, end});
    // Drop whichever interval ends first; the other may still overlap
    // the next one of its peer list.
    if (a[i].end < b[j].end) {
      i++;
    } else {
      j++;
    }
  }
  return out;
}

uint64_t LongestCommonGap(const std::vector<const LatencyRecorder*>& recs,
                          uint64_t run_begin, uint64_t run_end,
                          bool* below_threshold) {
  *below_threshold = false;
  if (recs.empty() || run_end <= run_begin) return 0;
  if (recs.size() == 1 && !recs[0]->gaps_truncated()) {
    return recs[0]->max_gap();
  }
  std::vector<Interval> common = recs[0]->Gaps();
  for (size_t r = 1; r < recs.size() && !common.empty(); r++) {
    common = IntersectIntervals(common, recs[r]->Gaps());
  }
  uint64_t longest = 0;
  for (const Interval& iv : common) {
    const uint64_t begin = std::max(iv.begin, run_begin);
    const uint64_t end = std::min(iv.end, run_end);
    if (end > begin) longest = std::max(longest, end - begin);
  }
  if (longest < LatencyRecorder::kGapThresholdNanos) {
    *below_threshold = true;
    return 0;
  }
  return longest;
}

LatencyHistogram MeasureLatencyFloor(uint64_t op_nanos,
                                     uint64_t duration_nanos) {
  LatencyHistogram hist;
  const uint64_t end = NowNanos() + duration_nanos;
  uint64_t start = NowNanos();
  do {
    uint64_t now;
    do {
      now = NowNanos();
    } while (now - start < op_nanos);
    hist.Add(now - start);
    start = NowNanos();
  } while (start < end);
  return hist;
}

}  // namespace db_bench
}  // namespace cascadedb

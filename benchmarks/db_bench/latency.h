// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Per-operation latency accounting for db_bench.
//
// LatencyHistogram is a plain value: log-linear buckets over nanoseconds, 64
// per power of two, so any recorded latency is known to within 1/64 (1.6%)
// from 64 ns up to the full 64-bit range, and exactly below 64 ns.
// LatencyRecorder is what one benchmark thread writes to: it keeps the
// bucket counts in single-writer atomics, so the timeline sampler can read
// them every second without a lock while the owner records ops (an op costs
// two relaxed stores, no read-modify-write). Recorders are merged into one
// LatencyHistogram at the end of the run. The recorder also keeps the
// latency-class breakdown (share of ops and of time at <=10us, 10us-1ms,
// 1-10ms, >10ms) and the intervals in which its thread completed no op, from
// which LongestCommonGap finds the longest interval in which no thread did.
//
// Thread safety: LatencyHistogram is thread-compatible. LatencyRecorder:
// Record/AddBytes/Start/Finish only from the owning thread; Snapshot,
// TakeIntervalMax and the counters from any thread at any time; the gap
// and class accessors after the owner finished (joined).
#ifndef CASCADEDB_BENCHMARKS_DB_BENCH_LATENCY_H_
#define CASCADEDB_BENCHMARKS_DB_BENCH_LATENCY_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace cascadedb {
namespace db_bench {

// Nanoseconds on the monotonic clock.
uint64_t NowNanos();

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 6;
  static constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBits;
  static constexpr int kNumBuckets =
      static_cast<int>((64 - kSubBits + 1) * kSubBuckets);

  LatencyHistogram();

  // The bucket holding ns, and bucket b's range [BucketLow, BucketHigh).
  static int BucketFor(uint64_t ns);
  static uint64_t BucketLow(int b);
  static uint64_t BucketHigh(int b);  // saturates at UINT64_MAX

  void Add(uint64_t ns);
  void Merge(const LatencyHistogram& other);
  // Adds n values to bucket b (for rebuilding from counters); min/max are
  // taken from the bucket bounds.
  void AddBucketCount(int b, uint64_t n);
  // Sets exact extremes and sum (when the caller knows them).
  void SetExact(uint64_t min_ns, uint64_t max_ns, uint64_t sum_ns);

  uint64_t Count() const { return count_; }
  uint64_t SumNanos() const { return sum_; }
  uint64_t MinNanos() const { return count_ ? min_ : 0; }
  uint64_t MaxNanos() const { return max_; }
  double AverageNanos() const;
  // The value below which p percent of the values fall, interpolated
  // linearly inside its bucket and clamped to [min, max]. 0 when empty.
  double PercentileNanos(double p) const;
  uint64_t BucketCount(int b) const { return buckets_[b]; }

  // (upper bound in microseconds, cumulative fraction) for each non-empty
  // bucket, in increasing order: the latency CDF.
  std::vector<std::pair<double, double>> Cdf() const;

 private:
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

// Latency classes of the seed-001 breakdown.
enum class LatencyClass { kUpTo10us = 0, kTo1ms, kTo10ms, kOver10ms };
constexpr int kNumLatencyClasses = 4;
const char* LatencyClassName(int c);  // "<=10us", "10us-1ms", ...
LatencyClass ClassOf(uint64_t ns);

struct ClassBreakdown {
  std::array<uint64_t, kNumLatencyClasses> ops{};
  std::array<uint64_t, kNumLatencyClasses> nanos{};
  void Merge(const ClassBreakdown& other);
  uint64_t TotalOps() const;
  uint64_t TotalNanos() const;
};

// A half-open time interval [begin, end) in NowNanos() time.
struct Interval {
  uint64_t begin;
  uint64_t end;
};

class LatencyRecorder {
 public:
  // Gaps (time between two completions of the owner) at least this long
  // are kept for LongestCommonGap.
  static constexpr uint64_t kGapThresholdNanos = 1000 * 1000;
  // At most this many gaps are kept per thread (then gaps_truncated()).
  static constexpr size_t kMaxGaps = size_t{1} << 22;

  LatencyRecorder();
  LatencyRecorder(const LatencyRecorder&) = delete;
  LatencyRecorder& operator=(const LatencyRecorder&) = delete;

  // Owner thread: marks the start of the benchmark (the first op's gap
  // starts here), records one op that ran over [start, end), counts bytes,
  // and marks the thread's end.
  void Start(uint64_t now);
  void Record(uint64_t start, uint64_t end) {
    const uint64_t ns = end - start;
    Bump(&buckets_[LatencyHistogram::BucketFor(ns)], 1);
    Bump(&ops_, 1);
    Bump(&sum_, ns);
    if (ns > max_) max_ = ns;
    if (ns < min_) min_ = ns;
    uint64_t cur = interval_max_.load(std::memory_order_relaxed);
    while (ns > cur && !interval_max_.compare_exchange_weak(
                           cur, ns, std::memory_order_relaxed)) {
    }
    const int c = static_cast<int>(ClassOf(ns));
    classes_.ops[c]++;
    classes_.nanos[c] += ns;
    NoteCompletion(end);
  }
  void AddBytes(uint64_t n) { Bump(&bytes_, n); }
  void Finish(uint64_t now);

  // Any thread: ops and bytes so far, and (if hist is not null) the
  // histogram of everything recorded so far.
  uint64_t ops() const { return ops_.load(std::memory_order_relaxed); }
  uint64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }
  void Snapshot(LatencyHistogram* hist) const;
  // Any thread: adds each bucket's count so far to (*counts)[b].
  // REQUIRES: counts->size() == LatencyHistogram::kNumBuckets.
  void AddBucketCountsTo(std::vector<uint64_t>* counts) const;
  // Any thread: the largest latency since the previous call (0 if none).
  uint64_t TakeIntervalMax() {
    return interval_max_.exchange(0, std::memory_order_relaxed);
  }

  // After Finish, once the owner is joined.
  LatencyHistogram Histogram() const;
  const ClassBreakdown& classes() const { return classes_; }
  // The owner's gaps >= kGapThresholdNanos, including the time from Start
  // to the first completion; the time after the last completion is open
  // ([last completion, UINT64_MAX)), since the thread completes nothing
  // more.
  std::vector<Interval> Gaps() const;
  uint64_t max_gap() const { return max_gap_; }
  bool gaps_truncated() const { return gaps_truncated_; }
  uint64_t start_time() const { return start_; }
  uint64_t finish_time() const { return finish_; }

 private:
  // Single-writer increment: the owner is the only writer, so a relaxed
  // load and store suffice, and readers see a value that is at worst one
  // op old.
  static void Bump(std::atomic<uint64_t>* a, uint64_t n) {
    a->store(a->load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void NoteCompletion(uint64_t end) {
    const uint64_t gap = end - last_completion_;
    if (gap > max_gap_) max_gap_ = gap;
    if (gap >= kGapThresholdNanos) KeepGap(last_completion_, end);
    last_completion_ = end;
  }
  void KeepGap(uint64_t begin, uint64_t end);

  // Shared with readers (single writer: the owner).
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;
  std::atomic<uint64_t> ops_{0};
  std::atomic<uint64_t> bytes_{0};
  std::atomic<uint64_t> sum_{0};
  // Written by the owner (CAS) and reset by the sampler (exchange).
  std::atomic<uint64_t> interval_max_{0};

  // Owned by the owner thread; read by others only after it is joined.
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  ClassBreakdown classes_;
  uint64_t start_ = 0;
  uint64_t finish_ = 0;
  uint64_t last_completion_ = 0;
  uint64_t max_gap_ = 0;
  std::vector<Interval> gaps_;
  bool gaps_truncated_ = false;
};

// The latency the machine alone gives a busy thread: back-to-back ops,
// each a spin on the clock until op_nanos have passed, for duration_nanos
// (at least one op). An op takes longer than op_nanos only when its thread
// lost the CPU meanwhile: a timer tick, an interrupt, another thread, or
// the hypervisor. On the 2-vCPU guest this project is measured on, a tick
// takes 50-115 us every 4 ms, so a writer busy at ~7 us a write has more
// than 0.1% of its writes over 50 us whatever the engine does
// (benchmarks/latency_floor; docs/performance.md, "The machine's floor
// under write tails").
LatencyHistogram MeasureLatencyFloor(uint64_t op_nanos,
                                     uint64_t duration_nanos);

// The longest interval inside [run_begin, run_end) in which no recorder
// completed an op: the intersection of all recorders' gaps. Exact when it
// is at least LatencyRecorder::kGapThresholdNanos long; otherwise
// *below_threshold is set and the result is 0 (shorter common gaps are not
// tracked with several threads). With one recorder the result is its exact
// longest gap.
uint64_t LongestCommonGap(const std::vector<const LatencyRecorder*>& recs,
                          uint64_t run_begin, uint64_t run_end,
                          bool* below_threshold);

// Intersection of two sorted lists of disjoint intervals (exposed for
// tests).
std::vector<Interval> IntersectIntervals(const std::vector<Interval>& a,
                                         const std::vector<Interval>& b);

}  // namespace db_bench
}  // namespace cascadedb

#endif  // CASCADEDB_BENCHMARKS_DB_BENCH_LATENCY_H_

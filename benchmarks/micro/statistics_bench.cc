// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The cost of recording statistics, which the engine does on every Put and
// Get: recordTick on the per-CPU sharded collector from 1 and 2 threads,
// against a single shared atomic counter (what an unsharded collector would
// do), plus measureTime for a size histogram and the read side
// (getTickerCount adds up every shard).

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "cascadedb/statistics.h"

namespace cascadedb {
namespace {

// One collector shared by every thread of every run (created on first use;
// code before a benchmark's loop runs unsynchronized across its threads, so
// it cannot be created per run).
Statistics* SharedStats() {
  static const std::shared_ptr<Statistics> stats = CreateDBStatistics();
  return stats.get();
}

// A counter on one cache line for every thread: the unsharded baseline.
std::atomic<uint64_t> shared_counter{0};

// BM_StatisticsRecordTick (threads:N): one recordTick per iteration, all
// threads on the same ticker.
void BM_StatisticsRecordTick(benchmark::State& state) {
  Statistics* stats = SharedStats();
  for (auto _ : state) {
    stats->recordTick(kBytesWritten, 100);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_StatisticsRecordTick)->Threads(1)->Threads(2)->UseRealTime();

// BM_StatisticsSharedAtomicAdd (threads:N): the baseline, a relaxed
// fetch_add on one shared counter.
void BM_StatisticsSharedAtomicAdd(benchmark::State& state) {
  for (auto _ : state) {
    shared_counter.fetch_add(100, std::memory_order_relaxed);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_StatisticsSharedAtomicAdd)->Threads(1)->Threads(2)->UseRealTime();

// BM_StatisticsRecordTickNull: the cost when statistics are off (the
// null-safe helper with no collector).
void BM_StatisticsRecordTickNull(benchmark::State& state) {
  Statistics* stats = nullptr;
  for (auto _ : state) {
    benchmark::DoNotOptimize(stats);
    RecordTick(stats, kBytesWritten, 100);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_StatisticsRecordTickNull);

// BM_StatisticsMeasureTime (threads:N): one value into a size histogram
// (always enabled) per iteration.
void BM_StatisticsMeasureTime(benchmark::State& state) {
  Statistics* stats = SharedStats();
  uint64_t value = 1;
  for (auto _ : state) {
    stats->measureTime(kBytesPerWrite, value);
    value = value * 7 % 100003;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_StatisticsMeasureTime)->Threads(1)->Threads(2)->UseRealTime();

// BM_StatisticsGetTickerCount: reading one ticker (sums every shard).
void BM_StatisticsGetTickerCount(benchmark::State& state) {
  auto stats = CreateDBStatistics();
  stats->recordTick(kBytesRead, 5);
  uint64_t total = 0;
  for (auto _ : state) {
    total += stats->getTickerCount(kBytesRead);
  }
  benchmark::DoNotOptimize(total);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_StatisticsGetTickerCount);

}  // namespace
}  // namespace cascadedb

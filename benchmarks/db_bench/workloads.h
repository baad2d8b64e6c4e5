// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The benchmark loops of db_bench: what each thread of fillrandom,
// readrandom, seekrandom, ... does, op by op, timing each op into its
// LatencyRecorder. The runner (benchmark_runner.h) starts the threads and
// turns their recorders into a report.
//
// Semantics follow LevelDB's and RocksDB's db_bench: each thread does the
// benchmark's op count (--num for writes, --reads for reads); random keys
// are uniform over [0, --num); fillsync and fill100K write --num/1000
// entries; readwhilewriting runs --threads readers plus one writer whose
// ops are reported separately.
//
// Thread safety: a WorkloadContext is shared read-only by the threads of
// one benchmark (its pointers are thread-safe objects); each ThreadState is
// owned by one thread.
#ifndef CASCADEDB_BENCHMARKS_DB_BENCH_WORKLOADS_H_
#define CASCADEDB_BENCHMARKS_DB_BENCH_WORKLOADS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "benchmarks/db_bench/engine.h"
#include "benchmarks/db_bench/generators.h"
#include "benchmarks/db_bench/latency.h"
#include "benchmarks/db_bench/sysinfo.h"
#include "cascadedb/status.h"
#include "util/mutex.h"
#include "util/random.h"

namespace cascadedb {
namespace db_bench {

// Paces writes to a byte rate shared by every writer thread
// (--benchmark_write_rate_limit). Thread-safe.
class WritePacer {
 public:
  explicit WritePacer(uint64_t bytes_per_second);
  // Blocks until bytes more may be written.
  void Pace(uint64_t bytes);

 private:
  const double nanos_per_byte_;
  Mutex mu_;
  double next_ns_ GUARDED_BY(mu_) = 0;
};

struct WorkloadContext {
  Engine* engine = nullptr;
  const KeyFormatter* keys = nullptr;
  LiveKeySet* live = nullptr;   // null: live data is not tracked
  WritePacer* pacer = nullptr;  // null: writes are not paced
  uint64_t num = 0;             // key space [0, num)
  uint64_t ops_per_thread = 0;
  size_t value_size = 0;
  double compression_ratio = 0.5;
  int readwritepercent = 90;
  bool sync = false;  // fillsync
  // Set when the measured threads are done (stops readwhilewriting's
  // writer).
  std::atomic<bool>* measured_done = nullptr;
};

struct ThreadState {
  ThreadState(int tid, uint64_t seed, double compression_ratio,
              size_t max_value_size)
      : tid(tid), rand(seed), values(seed, compression_ratio, max_value_size) {}

  const int tid;
  Random64 rand;
  ValueGenerator values;
  LatencyRecorder recorder;
  // Results.
  uint64_t reads = 0;
  uint64_t found = 0;
  uint64_t writes = 0;
  uint64_t user_bytes_written = 0;  // keys + values of puts, keys of deletes
  // --perf_level: the engine times this thread's writes, and those slower
  // than slow_writes.threshold_nanos (--slow_write_micros) are split here.
  bool write_times = false;
  SlowWrites slow_writes;
  Status error;
  // The thread's scheduler figures at its start and finish (empty where
  // the kernel keeps none).
  std::optional<ThreadCpuTime> sched_start;
  std::optional<ThreadCpuTime> sched_finish;
  int os_tid = 0;  // the kernel's id of the thread that ran it
};

using WorkloadFn = void (*)(const WorkloadContext& ctx, ThreadState* t);

enum class BenchmarkKind {
  kThreads,   // --threads threads run fn
  kProperty,  // prints the engine's text property (stats, ...)
};

struct WorkloadSpec {
  std::string name;
  BenchmarkKind kind = BenchmarkKind::kThreads;
  WorkloadFn fn = nullptr;
  bool fresh_db = false;       // needs an empty database
  bool single_thread = false;  // compact, flush, ... run once
  bool with_writer = false;    // readwhilewriting's extra writer
  bool writes = false;         // the measured ops write
  uint64_t ops_per_thread = 0;
  size_t value_size = 0;
};

// The spec of benchmark name with the current flags; false if unknown.
bool GetWorkloadSpec(const std::string& name, WorkloadSpec* spec);

// readwhilewriting's writer: random puts until *ctx.measured_done.
void BackgroundWriter(const WorkloadContext& ctx, ThreadState* t);

}  // namespace db_bench
}  // namespace cascadedb

#endif  // CASCADEDB_BENCHMARKS_DB_BENCH_WORKLOADS_H_

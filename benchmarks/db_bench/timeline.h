// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The per-second view of a running benchmark. A Sampler thread wakes every
// second, reads the benchmark threads' LatencyRecorders (lock-free) and the
// engine's own figures (L0 files, immutable memtables, pending compaction
// bytes, compaction bytes, stall state and per-cause stall time) and the
// threads' scheduler figures, and turns
// the differences since the previous second into a TimelineRow for
// timeline.csv; every --stats_interval_seconds it prints a progress line
// (ops done, current ops/s, ETA, stall state) to stderr.
//
// Thread safety: Start and Stop are called by one controlling thread; the
// sink is called only from the sampler thread, or from Stop after that
// thread is joined.
#ifndef CASCADEDB_BENCHMARKS_DB_BENCH_TIMELINE_H_
#define CASCADEDB_BENCHMARKS_DB_BENCH_TIMELINE_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/db_bench/engine.h"
#include "benchmarks/db_bench/latency.h"
#include "benchmarks/db_bench/sysinfo.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace cascadedb {
namespace db_bench {

struct TimelineRow {
  std::string benchmark;
  double time_s = 0;      // end of the interval, seconds since run start
  double interval_s = 0;  // length of the interval (the last one is short)
  uint64_t ops = 0;
  double ops_per_sec = 0;
  double mb_per_sec = 0;
  // Latencies of the ops completed in the interval (empty when none).
  std::optional<double> p50_us;
  std::optional<double> p99_us;
  std::optional<double> max_us;
  std::optional<std::string> stall_state;  // at the end of the interval
  // The cause that stalled longest in the interval, else the cause the
  // engine named at its end.
  std::string stall_cause;
  std::optional<double> stall_ms;  // wall time in a stalled state
  std::map<std::string, double> stall_ms_by_cause;
  std::optional<uint64_t> l0_files;
  std::optional<uint64_t> immutable_memtables;
  std::optional<uint64_t> pending_compaction_bytes;
  std::optional<double> compaction_read_mb_s;
  std::optional<double> compaction_write_mb_s;
  // Milliseconds in the interval of the benchmark threads on a CPU and
  // runnable waiting for one, and of the process's other threads on a
  // CPU (empty where the kernel keeps no per-thread figures, and the
  // first two once the benchmark threads have exited).
  std::optional<double> threads_cpu_ms;
  std::optional<double> threads_cpu_wait_ms;
  std::optional<double> other_cpu_ms;
  // Milliseconds of the machine's CPU time (summed over CPUs) the
  // hypervisor took in the interval (empty where the kernel does not say).
  std::optional<double> steal_ms;
  // MiB of free memory the machine handed back to its host in the
  // interval (empty where it reports none; ReadReportedToHostBytes).
  std::optional<double> reported_to_host_mb;
};

// The name db_bench gives its benchmark thread t ("db_bench:<t>") and the
// readwhilewriting writer ("db_bench:writer"); the timeline counts threads
// so named as the benchmark's.
std::string BenchmarkThreadName(int t, bool writer);
bool IsBenchmarkThreadName(const std::string& name);

// The stall causes, in the order timeline.csv lists them.
const std::vector<std::string>& StallCauses();

// Receives timeline rows.
class TimelineSink {
 public:
  virtual ~TimelineSink() = default;
  virtual void AddRow(const TimelineRow& row) = 0;
};

class Sampler {
 public:
  // engine and sink (may be null: no timeline) are borrowed for the
  // sampler's life. progress_interval_s = 0 turns progress lines off.
  Sampler(Engine* engine, TimelineSink* sink, int64_t progress_interval_s,
          bool stats_per_interval, uint64_t run_start_ns);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Starts sampling benchmark name; recorders (borrowed until Stop) are the
  // measured threads'; expected_ops (0 if unknown) gives the ETA.
  void Start(const std::string& name, std::vector<LatencyRecorder*> recorders,
             uint64_t expected_ops);
  // Stops the thread and emits the last (partial) interval. exited are the
  // final figures of benchmark threads that have already exited (so the
  // kernel no longer lists them), for that interval's CPU columns.
  void Stop(const std::vector<ProcessThread>& exited = {});

  // The most anonymous (allocated) memory the process held at a tick
  // between Start and Stop (one a second, and Stop's), if the kernel
  // says. Mapped files are left out: a VmHWM peak counts them too.
  std::optional<uint64_t> peak_rss_anon() const { return peak_rss_anon_; }

 private:
  void Loop();
  // Emits the interval ending now; progress_due also prints a progress
  // line.
  void Tick(bool progress_due, const std::vector<ProcessThread>& exited = {});
  // Fills the row's CPU columns from the threads' and the machine's
  // figures since the last call, and remembers the figures.
  void SampleThreads(TimelineRow* row,
                     const std::vector<ProcessThread>& exited = {});

  Engine* const engine_;
  TimelineSink* const sink_;
  const int64_t progress_interval_s_;
  const bool stats_per_interval_;
  const uint64_t run_start_ns_;

  Mutex mu_;
  CondVar cv_;  // signalled when stop_ is set
  bool stop_ GUARDED_BY(mu_) = false;

  std::thread thread_;

  // Owned by the sampler thread between Start and Stop (Stop touches them
  // only after joining it).
  std::string name_;
  std::vector<LatencyRecorder*> recorders_;
  uint64_t expected_ops_ = 0;
  uint64_t start_ns_ = 0;
  uint64_t last_ns_ = 0;
  uint64_t last_progress_ns_ = 0;
  uint64_t last_ops_ = 0;
  uint64_t last_bytes_ = 0;
  std::vector<uint64_t> last_buckets_;
  EngineSample last_sample_;
  uint64_t last_sample_ns_ = 0;
  bool have_sample_ = false;
  std::optional<uint64_t> peak_rss_anon_;
  // Each thread's scheduler figures at the last tick, by thread id.
  std::map<int, ThreadCpuTime> last_threads_;
  // The machine's CPU counters at the last tick.
  std::optional<MachineCpu> last_machine_;
  std::optional<uint64_t> last_reported_;
};

}  // namespace db_bench
}  // namespace cascadedb

#endif  // CASCADEDB_BENCHMARKS_DB_BENCH_TIMELINE_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// db_bench's results: what one benchmark measured (BenchResult), how it is
// printed (the classic "name : micros/op ops/sec; MB/s" line, then latency
// percentiles, the latency-class breakdown, the longest interval with no
// completed op, stalls by cause, write amplification, memory and space,
// and CPU: the benchmark threads' time waiting for a CPU, the other
// threads' time on one),
// and the --report_dir files: timeline.csv (one row per second) and
// summary.json (everything printed, plus the latency CDF).
//
// Figures the engine did not report are printed as "n/a" and written as
// null; nothing is estimated on the engine's behalf.
//
// Thread safety: ReportDir is called by one thread at a time (the sampler
// thread while a benchmark runs, the main thread between benchmarks).
#ifndef CASCADEDB_BENCHMARKS_DB_BENCH_REPORT_H_
#define CASCADEDB_BENCHMARKS_DB_BENCH_REPORT_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "benchmarks/db_bench/engine.h"
#include "benchmarks/db_bench/latency.h"
#include "benchmarks/db_bench/sysinfo.h"
#include "benchmarks/db_bench/timeline.h"
#include "cascadedb/status.h"

namespace cascadedb {
namespace db_bench {

// Latency figures of one group of threads.
struct OpStats {
  int threads = 0;
  uint64_t ops = 0;
  uint64_t bytes = 0;
  double seconds = 0;         // wall time, first start to last finish
  double thread_seconds = 0;  // summed over threads
  LatencyHistogram latency;
  ClassBreakdown classes;
  // Longest interval with no completed op (empty when below_threshold).
  std::optional<uint64_t> longest_gap_ns;
  bool gap_below_threshold = false;
  // The threads' time on a CPU and runnable but waiting for one, summed
  // over the group, from each thread's start to its finish; empty where
  // the kernel keeps no figures.
  std::optional<ThreadCpuTime> sched;
  // --perf_level: the group's writes slower than --slow_write_micros (1 ms
  // by default), split by the engine's write times; empty when off,
  // unsupported, or nothing written.
  std::optional<SlowWrites> slow_writes;
};

// Engine and OS figures for one benchmark (or for the run so far).
struct ResourceFigures {
  uint64_t user_bytes = 0;  // keys + values written, counted by db_bench
  // Engine write accounting at the start and the end.
  WriteAmpStats waf_begin;
  WriteAmpStats waf_end;
  StallStats stalls_begin;
  StallStats stalls_end;
  std::optional<ProcIo> io_begin;
  std::optional<ProcIo> io_end;
  std::optional<uint64_t> peak_rss;
  bool peak_rss_whole_process = false;  // clear_refs was refused
  // The most anonymous memory seen: at the sampler's ticks (each second)
  // and at the end. Unlike peak_rss, no mapped file pages (mapped tables,
  // the WALs' mappings), which are page cache.
  std::optional<uint64_t> peak_rss_anon;
  // RSS at the end, split into anonymous and file-backed (mapped) pages.
  std::optional<uint64_t> end_rss_anon;
  std::optional<uint64_t> end_rss_file;
  MemoryBudget budget;
  std::optional<DirBytes> disk;
  std::optional<uint64_t> live_keys;
  std::optional<uint64_t> live_bytes;
  std::optional<uint64_t> engine_live_estimate;
  // Every thread of the process at the start and the end (the benchmark's
  // own threads are not among them: they start after and exit before).
  std::optional<std::vector<ProcessThread>> threads_begin;
  std::optional<std::vector<ProcessThread>> threads_end;
  // The machine's CPU counters at the start and the end.
  std::optional<MachineCpu> machine_begin;
  std::optional<MachineCpu> machine_end;
  // The free memory the machine had handed back to its host at the start
  // and the end (ReadReportedToHostBytes).
  std::optional<uint64_t> reported_begin;
  std::optional<uint64_t> reported_end;
};

// Seconds of the machine's CPU time the hypervisor took between the two
// snapshots (summed over CPUs); empty where the kernel does not say.
std::optional<double> StealSeconds(const ResourceFigures& res);
// Seconds of the machine's CPU time spent outside this process (the
// kernel's threads, other processes) between the two snapshots; empty
// where the kernel does not say.
std::optional<double> OutsideProcessSeconds(const ResourceFigures& res);
// Bytes of free memory the machine handed back to its host between the two
// snapshots (0 if the counter went back); empty where it reports none.
std::optional<uint64_t> ReportedToHostBytes(const ResourceFigures& res);

struct BenchResult {
  std::string name;
  bool skipped = false;
  std::string skip_reason;
  bool is_property = false;  // stats, levelstats, sstables
  bool property_found = false;
  std::string property_text;
  std::string property_name;

  OpStats measured;
  std::string message;  // "(632 of 1000 found)" ...
  bool has_writer = false;
  OpStats writer;  // readwhilewriting's writer
  ResourceFigures res;
  std::string error;  // non-empty: the benchmark failed
};

// The CPU time of the process's other threads between two snapshots,
// grouped by thread name (an engine's flush and compaction threads, the
// mmap WAL's helper, db_bench's own main and sampler threads), largest
// first. A thread that started in between counts whole; one that exited
// in between is left out (its last figures are unknown).
struct ThreadGroupCpu {
  std::string name;
  int threads = 0;
  double cpu_seconds = 0;
  double wait_seconds = 0;
};
std::vector<ThreadGroupCpu> ThreadCpuDelta(
    const std::vector<ProcessThread>& begin,
    const std::vector<ProcessThread>& end);

// Engine write amplification between two snapshots.
struct WafFigures {
  std::optional<uint64_t> engine_user_bytes;
  std::optional<uint64_t> wal_bytes;
  std::optional<uint64_t> flush_bytes;
  std::optional<uint64_t> compaction_bytes;
  std::map<int, uint64_t> level_write_bytes;
  std::map<int, uint64_t> level_read_bytes;
  uint64_t denominator = 0;  // user bytes used for the ratios
  bool denominator_is_engine = false;
  std::optional<double> waf;             // (wal + flush + compaction) / user
  std::optional<double> waf_no_wal;      // (flush + compaction) / user
  std::optional<uint64_t> device_bytes;  // write_bytes - cancelled
  std::optional<double> device_waf;
  std::optional<uint64_t> syscall_bytes;  // wchar
};
WafFigures ComputeWaf(const ResourceFigures& res);

// The per-cause stall figures between two snapshots ("max-stall-micros"
// keeps the end value: a maximum has no difference).
StallStats StallDelta(const StallStats& begin, const StallStats& end);

// Prints one benchmark's report to out. tag (may be empty) is appended to
// the result line.
void PrintResult(std::FILE* out, const BenchResult& r, const std::string& tag,
                 bool full_histogram);
// Prints the "since the database was opened" block.
void PrintRunTotals(std::FILE* out, const ResourceFigures& res);

// Facts about the run for summary.json.
struct RunInfo {
  std::string engine;
  std::string engine_version;
  std::vector<std::string> notes;
  std::vector<std::string> warnings;
  std::vector<std::string> effective_options;
  std::string build_type;
  bool assertions = false;
  std::string date;
  std::string cpu;
  std::string kernel;
  std::string db_path;
  std::string command_line;
  std::map<std::string, std::string> flags;  // every db_bench flag
};

class ReportDir : public TimelineSink {
 public:
  // Creates dir if needed and opens dir/timeline.csv (writing its header).
  static Status Open(const std::string& dir, std::unique_ptr<ReportDir>* out);
  ~ReportDir() override;

  const std::string& dir() const { return dir_; }
  void AddRow(const TimelineRow& row) override;
  void AddBenchmark(const BenchResult& r);
  // Writes summary.json; run_totals may be null.
  Status Finish(const RunInfo& info, const ResourceFigures* run_totals);

 private:
  ReportDir(std::string dir, std::FILE* timeline);

  const std::string dir_;
  std::FILE* timeline_;
  std::vector<std::string> benchmarks_json_;
};

}  // namespace db_bench
}  // namespace cascadedb

#endif  // CASCADEDB_BENCHMARKS_DB_BENCH_REPORT_H_

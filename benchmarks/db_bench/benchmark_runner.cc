// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Runs db_bench's benchmark list against one engine (see
// benchmark_runner.h).

#include "benchmarks/db_bench/benchmark_runner.h"

#include <gflags/gflags.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <system_error>
#include <thread>
#include <utility>

#include "benchmarks/db_bench/flags.h"
#include "benchmarks/db_bench/sysinfo.h"
#include "benchmarks/db_bench/timeline.h"
#include "util/mutex.h"

#ifndef DB_BENCH_BUILD_TYPE
#define DB_BENCH_BUILD_TYPE "unknown"
#endif

namespace cascadedb {
namespace db_bench {

namespace {

constexpr size_t kLargeValueSize = 100 * 1000;

#ifdef NDEBUG
constexpr bool kAssertions = false;
#else
constexpr bool kAssertions = true;
#endif

// Makes the benchmark threads start together: each thread checks in, the
// controller waits for all of them, notes the start time, and lets them go.
class StartGate {
 public:
  explicit StartGate(int threads) : threads_(threads), cv_(&mu_) {}

  // Thread side: blocks until Open.
  void Arrive() {
    MutexLock lock(&mu_);
    arrived_++;
    cv_.SignalAll();
    while (!open_) cv_.Wait();
  }
  // Controller side: waits for every thread, then releases them.
  void WaitAndOpen() {
    MutexLock lock(&mu_);
    while (arrived_ < threads_) cv_.Wait();
    open_ = true;
    cv_.SignalAll();
  }

 private:
  const int threads_;
  Mutex mu_;
  CondVar cv_;  // signalled when arrived_ grows or open_ is set
  int arrived_ GUARDED_BY(mu_) = 0;
  bool open_ GUARDED_BY(mu_) = false;
};

std::string Now() {
  const std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", std::localtime(&t));
  return buf;
}

OpStats Summarize(const std::vector<const LatencyRecorder*>& recs) {
  OpStats s;
  s.threads = static_cast<int>(recs.size());
  if (recs.empty()) return s;
  uint64_t first = UINT64_MAX;
  uint64_t last = 0;
  for (const LatencyRecorder* r : recs) {
    s.ops += r->ops();
    s.bytes += r->bytes();
    s.latency.Merge(r->Histogram());
    s.classes.Merge(r->classes());
    first = std::min(first, r->start_time());
    last = std::max(last, r->finish_time());
    s.thread_seconds +=
        static_cast<double>(r->finish_time() - r->start_time()) / 1e9;
  }
  s.seconds = last > first ? static_cast<double>(last - first) / 1e9 : 0;
  bool below = false;
  const uint64_t gap = LongestCommonGap(recs, first, last, &below);
  if (below) {
    s.gap_below_threshold = true;
  } else if (s.ops > 0) {
    s.longest_gap_ns = gap;
  }
  return s;
}

}  // namespace

Runner::Runner(std::unique_ptr<Engine> engine, EngineConfig config,
               std::unique_ptr<ReportDir> report_dir,
               std::vector<std::string> warnings, std::string command_line)
    : engine_(std::move(engine)),
      config_(std::move(config)),
      report_dir_(std::move(report_dir)),
      warnings_(std::move(warnings)),
      command_line_(std::move(command_line)),
      keys_(FLAGS_key_size) {
  seed_base_ = FLAGS_seed != 0 ? static_cast<uint64_t>(FLAGS_seed)
                               : static_cast<uint64_t>(NowNanos() % 1000000007);
}

Runner::~Runner() {
  if (db_open_) engine_->Close().IgnoreError();  // best effort at exit
}

uint64_t Runner::SeedFor(int benchmark_index, int thread) const {
  return seed_base_ + 1000 * static_cast<uint64_t>(benchmark_index) +
         static_cast<uint64_t>(thread);
}

Status Runner::OpenDatabase(bool fresh) {
  if (db_open_) {
    Status s = engine_->Close();
    db_open_ = false;
    if (!s.ok()) return s;
  }
  if (fresh) {
    Status s = engine_->Destroy(config_);
    if (!s.ok()) return s;
    if (live_ != nullptr) live_->Clear();
  }
  // Not every engine creates missing parent directories (LevelDB does not).
  std::error_code ec;
  const std::filesystem::path parent =
      std::filesystem::path(config_.db_path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) {
    return Status::IOError(parent.string(), "cannot create: " + ec.message());
  }
  Status s = engine_->Open(config_);
  if (!s.ok()) return s;
  db_open_ = true;
  since_open_ = ResourceFigures();
  BeginFigures(&since_open_);
  since_open_.peak_rss = PeakRssBytes();
  return Status::OK();
}

void Runner::BeginFigures(ResourceFigures* res) {
  res->peak_rss_whole_process = !ResetPeakRss();
  res->waf_begin = engine_->WriteAmp();
  res->stalls_begin = engine_->Stalls();
  res->io_begin = ReadProcIo();
  res->threads_begin = ReadProcessThreads();
  res->machine_begin = ReadMachineCpu();
  res->reported_begin = ReadReportedToHostBytes();
}

void Runner::EndFigures(ResourceFigures* res) {
  res->waf_end = engine_->WriteAmp();
  res->stalls_end = engine_->Stalls();
  res->io_end = ReadProcIo();
  res->threads_end = ReadProcessThreads();
  res->machine_end = ReadMachineCpu();
  res->reported_end = ReadReportedToHostBytes();
  res->peak_rss = PeakRssBytes();
  res->end_rss_anon = CurrentRssAnonBytes();
  res->end_rss_file = CurrentRssFileBytes();
  if (res->end_rss_anon) {
    res->peak_rss_anon =
        std::max(res->peak_rss_anon.value_or(0), *res->end_rss_anon);
  }
  res->budget = engine_->Budget();
  res->disk = DatabaseDirBytes(config_.db_path);
  res->engine_live_estimate = engine_->EstimateLiveDataSize();
  if (live_ != nullptr) {
    uint64_t live = 0;
    uint64_t large = 0;
    live_->Count(&live, &large);
    const uint64_t key = static_cast<uint64_t>(FLAGS_key_size);
    res->live_keys = live;
    res->live_bytes =
        (live - large) * (key + static_cast<uint64_t>(FLAGS_value_size)) +
        large * (key + kLargeValueSize);
  }
}

void Runner::PrintHeader() {
  const double raw_mb = static_cast<double>(FLAGS_key_size + FLAGS_value_size) *
                        static_cast<double>(FLAGS_num) / 1048576.0;
  const double file_mb =
      (static_cast<double>(FLAGS_key_size) +
       static_cast<double>(FLAGS_value_size) * FLAGS_compression_ratio) *
      static_cast<double>(FLAGS_num) / 1048576.0;
  std::printf("CascadeDB db_bench\n");
  std::printf("Engine:     %s %s\n", engine_->Name(),
              engine_->Version().c_str());
  std::printf("Date:       %s\n", Now().c_str());
  std::printf("CPU:        %s\n", CpuDescription().c_str());
  std::printf("Kernel:     %s\n", KernelRelease().c_str());
  std::printf("db_bench:   %s build%s\n", DB_BENCH_BUILD_TYPE,
              kAssertions ? ", assertions on" : "");
  std::printf("Keys:       %d bytes each\n", FLAGS_key_size);
  std::printf(
      "Values:     %d bytes each (%d bytes after compression)\n",
      FLAGS_value_size,
      static_cast<int>(FLAGS_value_size * FLAGS_compression_ratio + 0.5));
  std::printf("Entries:    %" PRId64 "\n", FLAGS_num);
  std::printf("RawSize:    %.1f MB (estimated)\n", raw_mb);
  std::printf("FileSize:   %.1f MB (estimated)\n", file_mb);
  std::printf("Threads:    %d   Seed: %" PRIu64 "\n", FLAGS_threads,
              seed_base_);
  std::printf("Database:   %s\n", config_.db_path.c_str());
  std::string line;
  std::printf("Options:   ");
  size_t col = 11;
  for (const std::string& o : engine_->EffectiveOptions()) {
    if (col + o.size() + 1 > 80 && col > 11) {
      std::printf("\n           ");
      col = 11;
    }
    std::printf(" %s", o.c_str());
    col += o.size() + 1;
  }
  std::printf("\n");
  for (const std::string& n : engine_->Notes())
    std::printf("NOTE: %s\n", n.c_str());
  for (const std::string& w : warnings_)
    std::printf("WARNING: %s\n", w.c_str());
  if (kAssertions) {
    std::printf(
        "WARNING: Assertions are enabled; benchmarks unnecessarily slow\n");
  }
  std::printf("------------------------------------------------\n");
  std::fflush(stdout);
}

RunInfo Runner::MakeRunInfo() const {
  RunInfo info;
  info.engine = engine_->Name();
  info.engine_version = engine_->Version();
  info.notes = engine_->Notes();
  info.warnings = warnings_;
  info.effective_options = engine_->EffectiveOptions();
  info.build_type = DB_BENCH_BUILD_TYPE;
  info.assertions = kAssertions;
  info.date = Now();
  info.cpu = CpuDescription();
  info.kernel = KernelRelease();
  info.db_path = config_.db_path;
  info.command_line = command_line_;
  std::vector<gflags::CommandLineFlagInfo> all;
  gflags::GetAllFlags(&all);
  for (const gflags::CommandLineFlagInfo& f : all) {
    if (f.filename.find("db_bench/flags") == std::string::npos) continue;
    info.flags[f.name] = f.current_value;
  }
  info.flags["seed_used"] = std::to_string(seed_base_);
  return info;
}

int Runner::Run() {
  run_start_ns_ = NowNanos();
  if (!FLAGS_use_existing_db) {
    live_ = std::make_unique<LiveKeySet>(static_cast<uint64_t>(FLAGS_num));
  }
  Status s = OpenDatabase(!FLAGS_use_existing_db);
  if (!s.ok()) {
    std::fprintf(stderr, "db_bench: cannot open %s: %s\n",
                 config_.db_path.c_str(), s.ToString().c_str());
    return s.IsInvalidArgument() ? kExitUsage : kExitFailure;
  }
  PrintHeader();

  int exit_code = kExitOk;
  const std::vector<std::string> names = SplitBenchmarks(FLAGS_benchmarks);
  uint64_t peak_since_open = 0;
  uint64_t peak_anon_since_open = 0;
  for (size_t i = 0; i < names.size(); i++) {
    BenchResult r = RunBenchmark(names[i], static_cast<int>(i));
    PrintResult(stdout, r, engine_->ResultTag(), FLAGS_histogram);
    if (report_dir_ != nullptr) report_dir_->AddBenchmark(r);
    if (r.res.peak_rss) {
      peak_since_open = std::max(peak_since_open, *r.res.peak_rss);
    }
    if (r.res.peak_rss_anon) {
      peak_anon_since_open =
          std::max(peak_anon_since_open, *r.res.peak_rss_anon);
    }
    if (!r.error.empty()) {
      exit_code = kExitFailure;
      break;
    }
  }

  const ResourceFigures* totals = nullptr;
  if (db_open_) {
    EndFigures(&since_open_);
    if (since_open_.peak_rss) {
      since_open_.peak_rss = std::max(*since_open_.peak_rss, peak_since_open);
    }
    if (since_open_.peak_rss_anon) {
      since_open_.peak_rss_anon =
          std::max(*since_open_.peak_rss_anon, peak_anon_since_open);
    }
    since_open_.peak_rss_whole_process = false;
    std::printf("------------------------------------------------\n");
    PrintRunTotals(stdout, since_open_);
    totals = &since_open_;
    if (FLAGS_statistics) {
      std::string text;
      if (engine_->StatisticsText(&text)) {
        std::printf("STATISTICS:\n%s\n", text.c_str());
      } else {
        std::printf("STATISTICS: n/a (%s has none)\n", engine_->Name());
      }
    }
  }
  if (report_dir_ != nullptr) {
    s = report_dir_->Finish(MakeRunInfo(), totals);
    if (!s.ok()) {
      std::fprintf(stderr, "db_bench: %s\n", s.ToString().c_str());
      exit_code = kExitFailure;
    } else {
      std::printf("Report:     %s/summary.json and %s/timeline.csv\n",
                  report_dir_->dir().c_str(), report_dir_->dir().c_str());
    }
  }
  if (db_open_) {
    s = engine_->Close();
    db_open_ = false;
    if (!s.ok()) {
      std::fprintf(stderr, "db_bench: close: %s\n", s.ToString().c_str());
      exit_code = kExitFailure;
    }
  }
  std::fflush(stdout);
  return exit_code;
}

BenchResult Runner::RunBenchmark(const std::string& name, int index) {
  BenchResult r;
  r.name = name;
  WorkloadSpec spec;
  if (!GetWorkloadSpec(name, &spec)) {
    r.error = "unknown benchmark";
    return r;
  }
  if (spec.fresh_db) {
    if (FLAGS_use_existing_db) {
      r.skipped = true;
      r.skip_reason = "--use_existing_db is true";
      return r;
    }
    Status s = OpenDatabase(true);
    if (!s.ok()) {
      r.error = "reopening an empty database: " + s.ToString();
      return r;
    }
  }
  if (spec.kind == BenchmarkKind::kProperty) {
    r.is_property = true;
    r.property_name = std::string(engine_->Name()) + "." + name;
    r.property_found = engine_->TextProperty(name, &r.property_text);
    return r;
  }
  BeginFigures(&r.res);
  RunThreads(spec, index, &r);
  EndFigures(&r.res);
  since_open_.user_bytes += r.res.user_bytes;
  return r;
}

namespace {

// The scheduler figures of states[from, to) between their start and
// finish, summed; empty if any thread has none.
std::optional<ThreadCpuTime> SumSched(
    const std::vector<std::unique_ptr<ThreadState>>& states, int from, int to) {
  ThreadCpuTime sum;
  for (int t = from; t < to; t++) {
    const ThreadState& st = *states[t];
    if (!st.sched_start || !st.sched_finish) return std::nullopt;
    sum += st.sched_finish->Since(*st.sched_start);
  }
  return sum;
}

// The slow writes of threads [from, to), if they timed their writes and
// wrote anything.
std::optional<SlowWrites> SumSlowWrites(
    const std::vector<std::unique_ptr<ThreadState>>& states, int from, int to) {
  std::optional<SlowWrites> sum;
  for (int t = from; t < to; t++) {
    const ThreadState& st = *states[t];
    if (!st.write_times || st.writes == 0) continue;
    if (!sum) {
      sum.emplace();
      sum->threshold_nanos = st.slow_writes.threshold_nanos;
    }
    sum->Merge(st.slow_writes);
  }
  return sum;
}

}  // namespace

void Runner::RunThreads(const WorkloadSpec& spec, int index, BenchResult* r) {
  const int n = spec.single_thread ? 1 : FLAGS_threads;
  const int total = n + (spec.with_writer ? 1 : 0);
  std::vector<std::unique_ptr<ThreadState>> states;
  for (int t = 0; t < total; t++) {
    const bool writer = t == n;
    states.push_back(std::make_unique<ThreadState>(
        t, SeedFor(index, t), FLAGS_compression_ratio,
        writer ? static_cast<size_t>(FLAGS_value_size) : spec.value_size));
    states.back()->slow_writes.threshold_nanos = FLAGS_slow_write_micros * 1000;
  }
  std::unique_ptr<WritePacer> pacer;
  if (FLAGS_benchmark_write_rate_limit > 0) {
    pacer = std::make_unique<WritePacer>(FLAGS_benchmark_write_rate_limit);
  }
  std::atomic<bool> measured_done{false};
  WorkloadContext ctx;
  ctx.engine = engine_.get();
  ctx.keys = &keys_;
  ctx.live = live_.get();
  ctx.pacer = pacer.get();
  ctx.num = static_cast<uint64_t>(FLAGS_num);
  ctx.ops_per_thread = spec.ops_per_thread;
  ctx.value_size = spec.value_size;
  ctx.compression_ratio = FLAGS_compression_ratio;
  ctx.readwritepercent = FLAGS_readwritepercent;
  ctx.sync = spec.name == "fillsync";
  ctx.measured_done = &measured_done;
  WorkloadContext writer_ctx = ctx;
  writer_ctx.value_size = static_cast<size_t>(FLAGS_value_size);

  Sampler sampler(engine_.get(), report_dir_.get(),
                  FLAGS_stats_interval_seconds, FLAGS_stats_per_interval,
                  run_start_ns_);
  std::vector<LatencyRecorder*> measured;
  for (int t = 0; t < n; t++) measured.push_back(&states[t]->recorder);

  StartGate gate(total);
  std::vector<std::thread> threads;
  for (int t = 0; t < total; t++) {
    ThreadState* state = states[t].get();
    const bool writer = t == n;
    const WorkloadContext* c = writer ? &writer_ctx : &ctx;
    const WorkloadFn fn = writer ? BackgroundWriter : spec.fn;
    threads.emplace_back([state, c, fn, writer, &gate] {
      // Named so the timeline can tell the benchmark's threads apart.
      pthread_setname_np(pthread_self(),
                         BenchmarkThreadName(state->tid, writer).c_str());
      state->os_tid = static_cast<int>(::syscall(SYS_gettid));
      if (FLAGS_perf_level >= 3)
        state->write_times = c->engine->EnableWriteTimes();
      gate.Arrive();
      state->sched_start = ReadThreadSched();
      state->recorder.Start(NowNanos());
      fn(*c, state);
      state->recorder.Finish(NowNanos());
      state->sched_finish = ReadThreadSched();
    });
  }
  sampler.Start(spec.name, measured,
                spec.ops_per_thread * static_cast<uint64_t>(n));
  gate.WaitAndOpen();
  for (int t = 0; t < n; t++) threads[t].join();
  measured_done.store(true, std::memory_order_release);
  for (int t = n; t < total; t++) threads[t].join();
  std::vector<ProcessThread> exited;
  for (int t = 0; t < total; t++) {
    const ThreadState& st = *states[t];
    if (st.sched_finish) {
      exited.push_back(
          {st.os_tid, BenchmarkThreadName(t, t == n), *st.sched_finish});
    }
  }
  sampler.Stop(exited);
  r->res.peak_rss_anon = sampler.peak_rss_anon();

  std::vector<const LatencyRecorder*> mrecs(measured.begin(), measured.end());
  r->measured = Summarize(mrecs);
  uint64_t reads = 0;
  uint64_t found = 0;
  uint64_t writes = 0;
  for (int t = 0; t < total; t++) {
    const ThreadState& st = *states[t];
    r->res.user_bytes += st.user_bytes_written;
    if (st.error.IsNotSupported()) {
      // e.g. waitforcompaction on LevelDB: not a failure of the run.
      r->skipped = true;
      r->skip_reason = st.error.ToString();
    } else if (!st.error.ok() && r->error.empty()) {
      r->error = st.error.ToString();
    }
    if (t < n) {
      reads += st.reads;
      found += st.found;
      writes += st.writes;
    }
  }
  r->measured.sched = SumSched(states, 0, n);
  r->measured.slow_writes = SumSlowWrites(states, 0, n);
  if (spec.with_writer) {
    r->has_writer = true;
    r->writer = Summarize({&states[n]->recorder});
    r->writer.sched = SumSched(states, n, total);
    r->writer.slow_writes = SumSlowWrites(states, n, total);
  }
  char msg[160];
  msg[0] = '\0';
  const std::string& name = spec.name;
  if (name == "readrandom" || name == "readmissing" || name == "seekrandom" ||
      name == "readwhilewriting") {
    std::snprintf(msg, sizeof(msg), "(%" PRIu64 " of %" PRIu64 " found)", found,
                  reads);
  } else if (name == "readrandomwriterandom") {
    std::snprintf(msg, sizeof(msg),
                  "( reads:%" PRIu64 " writes:%" PRIu64 " total:%" PRIu64
                  " found:%" PRIu64 ")",
                  reads, writes, reads + writes, found);
  } else if (name == "fillsync" || name == "fill100K") {
    std::snprintf(msg, sizeof(msg), "(%" PRIu64 " ops)", writes);
  }
  r->message = msg;
}

}  // namespace db_bench
}  // namespace cascadedb

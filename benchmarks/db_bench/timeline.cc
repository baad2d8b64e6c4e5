// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The per-second sampler of db_bench (see timeline.h).

#include "benchmarks/db_bench/timeline.h"

#include <pthread.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

namespace cascadedb {
namespace db_bench {

namespace {

constexpr uint64_t kSecond = 1000 * 1000 * 1000;
constexpr double kMiB = 1048576.0;

// Bytes/s between two cumulative engine counters, if both are known.
std::optional<double> RateMiB(const std::optional<uint64_t>& before,
                              const std::optional<uint64_t>& after,
                              double seconds) {
  if (!before || !after || seconds <= 0) return std::nullopt;
  const uint64_t delta = *after >= *before ? *after - *before : 0;
  return static_cast<double>(delta) / kMiB / seconds;
}

// The sampler thread's own name: db_bench bookkeeping, counted neither as
// the benchmark's nor among the other threads.
constexpr char kSamplerThreadName[] = "db_bench:sample";

}  // namespace

std::string BenchmarkThreadName(int t, bool writer) {
  return writer ? "db_bench:writer" : "db_bench:" + std::to_string(t);
}

bool IsBenchmarkThreadName(const std::string& name) {
  static const std::string kPrefix = "db_bench:";
  if (name.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  const std::string rest = name.substr(kPrefix.size());
  if (rest == "writer") return true;
  return !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
}

const std::vector<std::string>& StallCauses() {
  static const std::vector<std::string> kCauses = {
      "memtable_limit", "l0_slowdown", "l0_stop", "pending_compaction_slowdown",
      "pending_compaction_stop"};
  return kCauses;
}

Sampler::Sampler(Engine* engine, TimelineSink* sink,
                 int64_t progress_interval_s, bool stats_per_interval,
                 uint64_t run_start_ns)
    : engine_(engine),
      sink_(sink),
      progress_interval_s_(progress_interval_s),
      stats_per_interval_(stats_per_interval),
      run_start_ns_(run_start_ns),
      cv_(&mu_) {}

Sampler::~Sampler() {
  if (thread_.joinable()) Stop();
}

void Sampler::Start(const std::string& name,
                    std::vector<LatencyRecorder*> recorders,
                    uint64_t expected_ops) {
  name_ = name;
  recorders_ = std::move(recorders);
  expected_ops_ = expected_ops;
  start_ns_ = NowNanos();
  last_ns_ = start_ns_;
  last_progress_ns_ = start_ns_;
  last_ops_ = 0;
  last_bytes_ = 0;
  last_buckets_.assign(LatencyHistogram::kNumBuckets, 0);
  have_sample_ = false;
  peak_rss_anon_.reset();
  if (sink_ != nullptr || progress_interval_s_ > 0) {
    last_sample_ = engine_->Sample();
    last_sample_ns_ = start_ns_;
    have_sample_ = true;
  }
  last_threads_.clear();
  last_machine_.reset();
  last_reported_.reset();
  if (sink_ != nullptr) SampleThreads(nullptr);
  {
    MutexLock lock(&mu_);
    stop_ = false;
  }
  thread_ = std::thread(&Sampler::Loop, this);
}

void Sampler::SampleThreads(TimelineRow* row,
                            const std::vector<ProcessThread>& exited) {
  const std::optional<MachineCpu> machine = ReadMachineCpu();
  if (row != nullptr && machine && last_machine_) {
    row->steal_ms =
        static_cast<double>(machine->StealSince(*last_machine_)) / 1e6;
  }
  last_machine_ = machine;
  const std::optional<uint64_t> reported = ReadReportedToHostBytes();
  if (row != nullptr && reported && last_reported_) {
    row->reported_to_host_mb =
        *reported >= *last_reported_
            ? static_cast<double>(*reported - *last_reported_) / kMiB
            : 0.0;
  }
  last_reported_ = reported;
  std::optional<std::vector<ProcessThread>> threads = ReadProcessThreads();
  if (!threads) return;
  for (const ProcessThread& t : exited) {
    const bool listed =
        std::any_of(threads->begin(), threads->end(),
                    [&t](const ProcessThread& l) { return l.tid == t.tid; });
    if (!listed) threads->push_back(t);
  }
  std::map<int, ThreadCpuTime> now;
  ThreadCpuTime bench;
  ThreadCpuTime other;
  bool any_bench = false;
  for (const ProcessThread& t : *threads) {
    now[t.tid] = t.sched;
    if (t.name == kSamplerThreadName) continue;
    // A thread new since the last call counts whole.
    auto it = last_threads_.find(t.tid);
    const ThreadCpuTime d =
        it == last_threads_.end() ? t.sched : t.sched.Since(it->second);
    if (IsBenchmarkThreadName(t.name)) {
      bench += d;
      any_bench = true;
    } else {
      other += d;
    }
  }
  last_threads_ = std::move(now);
  if (row == nullptr) return;
  if (any_bench) {
    row->threads_cpu_ms = static_cast<double>(bench.on_cpu_nanos) / 1e6;
    row->threads_cpu_wait_ms = static_cast<double>(bench.waiting_nanos) / 1e6;
  }
  row->other_cpu_ms = static_cast<double>(other.on_cpu_nanos) / 1e6;
}

void Sampler::Stop(const std::vector<ProcessThread>& exited) {
  {
    MutexLock lock(&mu_);
    stop_ = true;
    cv_.SignalAll();
  }
  thread_.join();
  // The last, partial interval (at least a sliver, so short benchmarks get
  // one row).
  if (NowNanos() > last_ns_) Tick(false, exited);
  recorders_.clear();
}

void Sampler::Loop() {
  pthread_setname_np(pthread_self(), kSamplerThreadName);
  uint64_t next = start_ns_ + kSecond;
  while (true) {
    {
      MutexLock lock(&mu_);
      while (!stop_) {
        const uint64_t now = NowNanos();
        if (now >= next) break;
        cv_.WaitFor((next - now) / 1000 + 1);
      }
      if (stop_) return;
    }
    const uint64_t now = NowNanos();
    const bool progress_due =
        progress_interval_s_ > 0 &&
        now - last_progress_ns_ >=
            static_cast<uint64_t>(progress_interval_s_) * kSecond - kSecond / 2;
    Tick(progress_due);
    if (progress_due) last_progress_ns_ = now;
    next += kSecond;
    // A sampler that fell behind (a stalled machine) skips missed seconds
    // rather than emitting a burst of empty rows.
    if (next <= now) next = now + kSecond;
  }
}

void Sampler::Tick(bool progress_due,
                   const std::vector<ProcessThread>& exited) {
  const uint64_t now = NowNanos();
  const double seconds = static_cast<double>(now - last_ns_) / 1e9;
  TimelineRow row;
  row.benchmark = name_;
  row.time_s = static_cast<double>(now - run_start_ns_) / 1e9;
  row.interval_s = seconds;
  if (const std::optional<uint64_t> anon = CurrentRssAnonBytes()) {
    peak_rss_anon_ = std::max(peak_rss_anon_.value_or(0), *anon);
  }

  uint64_t ops = 0;
  uint64_t bytes = 0;
  uint64_t max_ns = 0;
  std::vector<uint64_t> buckets(LatencyHistogram::kNumBuckets, 0);
  for (LatencyRecorder* r : recorders_) {
    ops += r->ops();
    bytes += r->bytes();
    r->AddBucketCountsTo(&buckets);
    max_ns = std::max(max_ns, r->TakeIntervalMax());
  }
  LatencyHistogram interval;
  for (int b = 0; b < LatencyHistogram::kNumBuckets; b++) {
    if (buckets[b] > last_buckets_[b]) {
      interval.AddBucketCount(b, buckets[b] - last_buckets_[b]);
    }
  }
  row.ops = ops - last_ops_;
  row.ops_per_sec = seconds > 0 ? static_cast<double>(row.ops) / seconds : 0;
  row.mb_per_sec =
      seconds > 0 ? static_cast<double>(bytes - last_bytes_) / kMiB / seconds
                  : 0;
  if (interval.Count() > 0) {
    row.p50_us = interval.PercentileNanos(50) / 1000.0;
    row.p99_us = interval.PercentileNanos(99) / 1000.0;
    row.max_us = static_cast<double>(max_ns) / 1000.0;
  }

  const bool want_engine = sink_ != nullptr || progress_due;
  // Without a timeline the engine is sampled only for progress lines, so
  // its deltas span the time since the previous sample, not one tick.
  const double engine_seconds =
      static_cast<double>(now - last_sample_ns_) / 1e9;
  if (want_engine && have_sample_) {
    EngineSample sample = engine_->Sample();
    row.stall_state = sample.stall_state;
    row.l0_files = sample.l0_files;
    row.immutable_memtables = sample.immutable_memtables;
    row.pending_compaction_bytes = sample.pending_compaction_bytes;
    row.compaction_read_mb_s = RateMiB(last_sample_.compaction_bytes_read,
                                       sample.compaction_bytes_read, seconds);
    row.compaction_write_mb_s =
        RateMiB(last_sample_.compaction_bytes_written,
                sample.compaction_bytes_written, seconds);
    double longest = 0;
    if (!sample.stall_episode_micros.empty()) {
      double total = 0;
      for (const auto& [cause, micros] : sample.stall_episode_micros) {
        auto before = last_sample_.stall_episode_micros.find(cause);
        const uint64_t prev = before == last_sample_.stall_episode_micros.end()
                                  ? 0
                                  : before->second;
        const double ms =
            static_cast<double>(micros >= prev ? micros - prev : 0) / 1000.0;
        row.stall_ms_by_cause[cause] = ms;
        total += ms;
        if (ms > longest) {
          longest = ms;
          row.stall_cause = cause;
        }
      }
      row.stall_ms = total;
    }
    if (longest == 0 && sample.stall_cause && row.stall_state &&
        *row.stall_state != "normal") {
      row.stall_cause = *sample.stall_cause;
    }
    last_sample_ = std::move(sample);
    last_sample_ns_ = now;
  }

  if (progress_due) {
    const double elapsed = static_cast<double>(now - start_ns_) / 1e9;
    std::string eta = "?";
    if (expected_ops_ > 0 && ops > 0 && ops <= expected_ops_) {
      const double rate = static_cast<double>(ops) / elapsed;
      eta = std::to_string(static_cast<long long>(
                static_cast<double>(expected_ops_ - ops) / rate + 0.5)) +
            " s";
    }
    std::string stall = row.stall_state.value_or("n/a");
    if (row.stall_ms && *row.stall_ms > 0) {
      char buf[96];
      std::snprintf(buf, sizeof(buf), " (%s %.0f ms of the last %.0f s)",
                    row.stall_cause.c_str(), *row.stall_ms, engine_seconds);
      stall += buf;
    } else if (!row.stall_cause.empty()) {
      stall += " (" + row.stall_cause + ")";
    }
    std::string l0 = row.l0_files ? std::to_string(*row.l0_files) : "n/a";
    if (expected_ops_ > 0) {
      std::fprintf(
          stderr,
          "... %-12s %llu of %llu ops (%.1f%%), %.0f ops/s now, "
          "ETA %s, stall: %s, L0 files %s\n",
          name_.c_str(), static_cast<unsigned long long>(ops),
          static_cast<unsigned long long>(expected_ops_),
          100.0 * static_cast<double>(ops) / static_cast<double>(expected_ops_),
          row.ops_per_sec, eta.c_str(), stall.c_str(), l0.c_str());
    } else {
      std::fprintf(stderr,
                   "... %-12s %llu ops, %.0f ops/s now, %.0f s elapsed, "
                   "stall: %s, L0 files %s\n",
                   name_.c_str(), static_cast<unsigned long long>(ops),
                   row.ops_per_sec, elapsed, stall.c_str(), l0.c_str());
    }
    if (stats_per_interval_) {
      std::string text;
      if (engine_->TextProperty("stats", &text)) {
        std::fprintf(stderr, "%s\n", text.c_str());
      }
    }
    std::fflush(stderr);
  }

  if (sink_ != nullptr) {
    SampleThreads(&row, exited);
    sink_->AddRow(row);
  }
  last_ns_ = now;
  last_ops_ = ops;
  last_bytes_ = bytes;
  last_buckets_ = std::move(buckets);
}

}  // namespace db_bench
}  // namespace cascadedb

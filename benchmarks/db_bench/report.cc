// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Printing db_bench results and writing timeline.csv / summary.json (see
// report.h).

#include "benchmarks/db_bench/report.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <system_error>
#include <utility>

namespace cascadedb {
namespace db_bench {

namespace {

constexpr double kMiB = 1048576.0;

// ---------------------------------------------------------------- formatting

std::string Printf(const char* format, ...)
    __attribute__((format(printf, 1, 2)));
std::string Printf(const char* format, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(buf, sizeof(buf), format, ap);
  va_end(ap);
  return buf;
}

double NanosToMillis(uint64_t nanos) {
  return static_cast<double>(nanos) / 1e6;
}

// Microseconds with a precision that suits the magnitude.
std::string Micros(double us) {
  if (us < 10) return Printf("%.2f", us);
  if (us < 1000) return Printf("%.1f", us);
  return Printf("%.0f", us);
}

std::string MiB(uint64_t bytes) {
  return Printf("%.1f MB", static_cast<double>(bytes) / kMiB);
}

std::string Ratio(double r) { return Printf("%.2f", r); }

std::optional<uint64_t> Delta(const std::optional<uint64_t>& a,
                              const std::optional<uint64_t>& b) {
  if (!a || !b) return std::nullopt;
  return *b >= *a ? *b - *a : 0;
}

// ---------------------------------------------------------------- JSON

class Json {
 public:
  Json& Raw(const std::string& s) {
    out_ += s;
    return *this;
  }
  Json& Key(const std::string& k) {
    Sep();
    String(k);
    out_ += ':';
    need_comma_ = false;
    return *this;
  }
  Json& String(const std::string& s) {
    Sep();
    out_ += '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\t':
          out_ += "\\t";
          break;
        default:
          if (c < 0x20) {
            out_ += Printf("\\u%04x", c);
          } else {
            out_ += static_cast<char>(c);
          }
      }
    }
    out_ += '"';
    need_comma_ = true;
    return *this;
  }
  Json& Number(double v) {
    Sep();
    out_ += std::isfinite(v) ? Printf("%.6g", v) : std::string("null");
    need_comma_ = true;
    return *this;
  }
  Json& Uint(uint64_t v) {
    Sep();
    out_ += std::to_string(v);
    need_comma_ = true;
    return *this;
  }
  Json& Bool(bool v) {
    Sep();
    out_ += v ? "true" : "false";
    need_comma_ = true;
    return *this;
  }
  Json& Null() {
    Sep();
    out_ += "null";
    need_comma_ = true;
    return *this;
  }
  Json& Opt(const std::optional<uint64_t>& v) { return v ? Uint(*v) : Null(); }
  Json& Opt(const std::optional<double>& v) { return v ? Number(*v) : Null(); }
  Json& Begin(char c) {
    Sep();
    out_ += c;
    need_comma_ = false;
    return *this;
  }
  Json& End(char c) {
    out_ += c;
    need_comma_ = true;
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  void Sep() {
    if (need_comma_) out_ += ',';
    need_comma_ = false;
  }
  std::string out_;
  bool need_comma_ = false;
};

void OpStatsJson(Json* j, const OpStats& s) {
  j->Key("ops").Uint(s.ops);
  j->Key("threads").Uint(static_cast<uint64_t>(s.threads));
  j->Key("bytes").Uint(s.bytes);
  j->Key("seconds").Number(s.seconds);
  j->Key("micros_per_op")
      .Number(s.ops ? s.thread_seconds * 1e6 / static_cast<double>(s.ops) : 0);
  j->Key("ops_per_sec")
      .Number(s.seconds > 0 ? static_cast<double>(s.ops) / s.seconds : 0);
  j->Key("mb_per_sec")
      .Number(s.seconds > 0 ? static_cast<double>(s.bytes) / kMiB / s.seconds
                            : 0);
  const LatencyHistogram& h = s.latency;
  j->Key("latency_us").Begin('{');
  j->Key("min").Number(static_cast<double>(h.MinNanos()) / 1000);
  j->Key("avg").Number(h.AverageNanos() / 1000);
  j->Key("p50").Number(h.PercentileNanos(50) / 1000);
  j->Key("p99").Number(h.PercentileNanos(99) / 1000);
  j->Key("p99.9").Number(h.PercentileNanos(99.9) / 1000);
  j->Key("p99.99").Number(h.PercentileNanos(99.99) / 1000);
  j->Key("max").Number(static_cast<double>(h.MaxNanos()) / 1000);
  j->End('}');
  j->Key("latency_classes").Begin('[');
  const double ops = static_cast<double>(s.classes.TotalOps());
  const double nanos = static_cast<double>(s.classes.TotalNanos());
  for (int c = 0; c < kNumLatencyClasses; c++) {
    j->Begin('{');
    j->Key("class").String(LatencyClassName(c));
    j->Key("ops").Uint(s.classes.ops[c]);
    j->Key("ops_share")
        .Number(ops > 0 ? static_cast<double>(s.classes.ops[c]) / ops : 0);
    j->Key("time_share")
        .Number(nanos > 0 ? static_cast<double>(s.classes.nanos[c]) / nanos
                          : 0);
    j->End('}');
  }
  j->End(']');
  if (s.longest_gap_ns) {
    j->Key("longest_gap_ms")
        .Number(static_cast<double>(*s.longest_gap_ns) / 1e6);
  } else {
    j->Key("longest_gap_ms").Null();
  }
  if (s.gap_below_threshold) {
    j->Key("longest_gap_below_ms")
        .Number(static_cast<double>(LatencyRecorder::kGapThresholdNanos) / 1e6);
  }
  if (s.sched) {
    j->Key("cpu").Begin('{');
    j->Key("on_cpu_s").Number(static_cast<double>(s.sched->on_cpu_nanos) / 1e9);
    j->Key("waiting_for_cpu_s")
        .Number(static_cast<double>(s.sched->waiting_nanos) / 1e9);
    j->End('}');
  } else {
    j->Key("cpu").Null();
  }
  if (s.slow_writes) {
    const SlowWrites& w = *s.slow_writes;
    const auto ms = NanosToMillis;
    j->Key("slow_writes").Begin('{');
    j->Key("threshold_ms").Number(ms(w.threshold_nanos));
    j->Key("count").Uint(w.count);
    j->Key("ms").Number(ms(w.nanos));
    j->Key("queue_ms").Number(ms(w.parts.queue));
    j->Key("delay_ms").Number(ms(w.parts.delay));
    j->Key("stop_ms").Number(ms(w.parts.stop));
    j->Key("memtable_switch_ms").Number(ms(w.parts.memtable_switch));
    j->Key("wal_ms").Number(ms(w.parts.wal));
    j->Key("memtable_ms").Number(ms(w.parts.memtable));
    j->Key("mutex_ms").Number(ms(w.parts.mutex));
    j->Key("other_ms").Number(ms(w.Other()));
    j->End('}');
  } else {
    j->Key("slow_writes").Null();
  }
  j->Key("latency_cdf").Begin('[');
  for (const auto& [us, frac] : h.Cdf()) {
    j->Begin('[').Number(us).Number(frac).End(']');
  }
  j->End(']');
}

void StallJson(Json* j, const StallStats& s) {
  j->Key("reported").Bool(s.reported);
  j->Key("note").String(s.note);
  j->Key("by_cause").Begin('{');
  for (const auto& [cause, counters] : s.by_cause) {
    j->Key(cause).Begin('{');
    for (const auto& [name, v] : counters) j->Key(name).Uint(v);
    j->End('}');
  }
  j->End('}');
  j->Key("totals").Begin('{');
  for (const auto& [name, v] : s.totals) j->Key(name).Uint(v);
  j->End('}');
}

void WafJson(Json* j, const WafFigures& w, uint64_t user_bytes) {
  j->Key("user_bytes").Uint(user_bytes);
  j->Key("engine_user_bytes").Opt(w.engine_user_bytes);
  j->Key("wal_bytes").Opt(w.wal_bytes);
  j->Key("flush_bytes").Opt(w.flush_bytes);
  j->Key("compaction_bytes").Opt(w.compaction_bytes);
  j->Key("waf").Opt(w.waf);
  j->Key("waf_no_wal").Opt(w.waf_no_wal);
  j->Key("levels").Begin('{');
  for (const auto& [level, bytes] : w.level_write_bytes) {
    j->Key("L" + std::to_string(level)).Begin('{');
    j->Key("write_bytes").Uint(bytes);
    auto r = w.level_read_bytes.find(level);
    if (r != w.level_read_bytes.end()) j->Key("read_bytes").Uint(r->second);
    if (user_bytes > 0) {
      j->Key("waf").Number(static_cast<double>(bytes) /
                           static_cast<double>(user_bytes));
    }
    j->End('}');
  }
  j->End('}');
  j->Key("device_write_bytes").Opt(w.device_bytes);
  j->Key("device_waf").Opt(w.device_waf);
  j->Key("syscall_write_bytes").Opt(w.syscall_bytes);
}

void ResourcesJson(Json* j, const ResourceFigures& res) {
  const WafFigures w = ComputeWaf(res);
  j->Key("write_amp").Begin('{');
  WafJson(j, w, res.user_bytes);
  j->Key("source").String(res.waf_end.source);
  j->End('}');
  j->Key("stalls").Begin('{');
  StallJson(j, StallDelta(res.stalls_begin, res.stalls_end));
  j->End('}');
  j->Key("memory").Begin('{');
  j->Key("peak_rss_bytes").Opt(res.peak_rss);
  j->Key("peak_covers_whole_process").Bool(res.peak_rss_whole_process);
  j->Key("peak_rss_anon_bytes").Opt(res.peak_rss_anon);
  j->Key("end_rss_anon_bytes").Opt(res.end_rss_anon);
  j->Key("end_rss_file_bytes").Opt(res.end_rss_file);
  j->Key("budget_bytes").Uint(res.budget.Total());
  j->Key("write_buffer_size").Uint(res.budget.write_buffer_size);
  j->Key("max_write_buffer_number")
      .Uint(static_cast<uint64_t>(res.budget.max_write_buffer_number));
  j->Key("cache_size").Uint(res.budget.cache_size);
  j->End('}');
  j->Key("space").Begin('{');
  if (res.disk) {
    j->Key("sst_bytes").Uint(res.disk->table_bytes);
    j->Key("log_bytes").Uint(res.disk->log_bytes);
    j->Key("recycled_bytes").Uint(res.disk->recycled_bytes);
    j->Key("other_bytes").Uint(res.disk->other_bytes);
    j->Key("sst_files").Uint(static_cast<uint64_t>(res.disk->table_files));
  }
  j->Key("live_keys").Opt(res.live_keys);
  j->Key("live_bytes").Opt(res.live_bytes);
  std::optional<double> amp;
  if (res.disk && res.live_bytes && *res.live_bytes > 0) {
    amp = static_cast<double>(res.disk->SpaceBytes()) /
          static_cast<double>(*res.live_bytes);
  }
  j->Key("space_amp").Opt(amp);
  j->Key("engine_live_data_estimate").Opt(res.engine_live_estimate);
  j->End('}');
  if (res.threads_begin && res.threads_end) {
    j->Key("other_threads").Begin('[');
    for (const ThreadGroupCpu& g :
         ThreadCpuDelta(*res.threads_begin, *res.threads_end)) {
      j->Begin('{');
      j->Key("name").String(g.name);
      j->Key("threads").Uint(static_cast<uint64_t>(g.threads));
      j->Key("on_cpu_s").Number(g.cpu_seconds);
      j->Key("waiting_for_cpu_s").Number(g.wait_seconds);
      j->End('}');
    }
    j->End(']');
  } else {
    j->Key("other_threads").Null();
  }
  const std::optional<double> steal = StealSeconds(res);
  if (steal) {
    j->Key("machine").Begin('{');
    j->Key("cpus").Uint(static_cast<uint64_t>(res.machine_end->cpus));
    j->Key("steal_s").Number(*steal);
    j->Key("outside_process_s").Number(*OutsideProcessSeconds(res));
    j->Key("reported_to_host_bytes").Opt(ReportedToHostBytes(res));
    j->End('}');
  } else {
    j->Key("machine").Null();
  }
}

// ---------------------------------------------------------------- text report

// "287 over 1 ms, 853.8 ms: queue 7.7, delayed 333.1, stopped 10.6,
// memtable switch 2.1, WAL 460.1, memtable 19.5, mutex 5.0, other 15.7
// ms": the engine's split of the slow writes' time; "other" is what no
// part accounts for (the call's own steps, and waits for a CPU between
// the timed parts). A threshold of less than a whole millisecond is
// given in microseconds ("over 150 us").
std::string SlowWritesLine(const SlowWrites& w) {
  const auto ms = NanosToMillis;
  const uint64_t micros = w.threshold_nanos / 1000;
  const std::string threshold = micros % 1000 == 0
                                    ? Printf("%" PRIu64 " ms", micros / 1000)
                                    : Printf("%" PRIu64 " us", micros);
  return Printf(
      "%" PRIu64
      " over %s, %.1f ms: queue %.1f, delayed %.1f, "
      "stopped %.1f, memtable switch %.1f, WAL %.1f, memtable %.1f, mutex "
      "%.1f, other %.1f ms",
      w.count, threshold.c_str(), ms(w.nanos), ms(w.parts.queue),
      ms(w.parts.delay), ms(w.parts.stop), ms(w.parts.memtable_switch),
      ms(w.parts.wal), ms(w.parts.memtable), ms(w.parts.mutex), ms(w.Other()));
}

void PrintOpStats(std::FILE* out, const char* indent, const OpStats& s) {
  const LatencyHistogram& h = s.latency;
  std::fprintf(out,
               "%slatency (us)   : p50 %s  p99 %s  p99.9 %s  p99.99 %s  "
               "max %s  (avg %s)\n",
               indent, Micros(h.PercentileNanos(50) / 1000).c_str(),
               Micros(h.PercentileNanos(99) / 1000).c_str(),
               Micros(h.PercentileNanos(99.9) / 1000).c_str(),
               Micros(h.PercentileNanos(99.99) / 1000).c_str(),
               Micros(static_cast<double>(h.MaxNanos()) / 1000).c_str(),
               Micros(h.AverageNanos() / 1000).c_str());
  const double ops = static_cast<double>(s.classes.TotalOps());
  const double nanos = static_cast<double>(s.classes.TotalNanos());
  std::string ops_line;
  std::string time_line;
  for (int c = 0; c < kNumLatencyClasses; c++) {
    ops_line += Printf(
        "  %s %.2f%%", LatencyClassName(c),
        ops > 0 ? 100.0 * static_cast<double>(s.classes.ops[c]) / ops : 0.0);
    time_line += Printf(
        "  %s %.2f%%", LatencyClassName(c),
        nanos > 0 ? 100.0 * static_cast<double>(s.classes.nanos[c]) / nanos
                  : 0.0);
  }
  std::fprintf(out, "%sops  by latency:%s\n", indent, ops_line.c_str());
  std::fprintf(out, "%stime by latency:%s\n", indent, time_line.c_str());
  if (s.slow_writes) {
    std::fprintf(out, "%sslow writes    : %s\n", indent,
                 SlowWritesLine(*s.slow_writes).c_str());
  }
  if (s.longest_gap_ns) {
    std::fprintf(out, "%slongest gap    : %.3f ms with no completed op\n",
                 indent, static_cast<double>(*s.longest_gap_ns) / 1e6);
  } else if (s.gap_below_threshold) {
    std::fprintf(out,
                 "%slongest gap    : < %.0f ms with no completed op (%d "
                 "threads)\n",
                 indent,
                 static_cast<double>(LatencyRecorder::kGapThresholdNanos) / 1e6,
                 s.threads);
  }
}

std::string StallLine(const StallStats& d) {
  if (!d.reported) {
    return "n/a" + (d.note.empty() ? std::string() : " (" + d.note + ")");
  }
  std::string line;
  auto total = d.totals.find("total.stall-micros");
  if (total != d.totals.end()) {
    line = Printf("%.1f ms writers waited",
                  static_cast<double>(total->second) / 1000.0);
  }
  bool any_cause = false;
  for (const auto& [cause, c] : d.by_cause) {
    auto get = [&c = c](const char* k) -> uint64_t {
      auto it = c.find(k);
      return it == c.end() ? 0 : it->second;
    };
    const uint64_t episodes = get("episodes");
    const uint64_t stall = get("stall-micros");
    const uint64_t in_state = get("episode-micros");
    if (episodes == 0 && stall == 0 && in_state == 0) continue;
    any_cause = true;
    line += Printf("%s%s: %" PRIu64
                   " episodes, %.1f ms waited (longest wait since open "
                   "%.1f ms), %.1f ms in state",
                   line.empty() ? "" : "; ", cause.c_str(), episodes,
                   static_cast<double>(stall) / 1000.0,
                   static_cast<double>(get("max-stall-micros")) / 1000.0,
                   static_cast<double>(in_state) / 1000.0);
  }
  if (!d.by_cause.empty() && !any_cause) {
    line += line.empty() ? "none" : "; no stall episodes";
  }
  for (const char* k :
       {"writes-delayed", "writes-stopped", "blocks-compressed-by-writers",
        "yields-to-writers", "yields-to-flushes"}) {
    auto it = d.totals.find(k);
    if (it != d.totals.end() && it->second > 0) {
      line += Printf("; %s %" PRIu64, k, it->second);
    }
  }
  // Engines without per-cause accounting (RocksDB) report counts.
  for (const auto& [k, v] : d.totals) {
    if (k.rfind("io_stalls.", 0) == 0 && v > 0) {
      line += Printf("; %s=%" PRIu64, k.c_str(), v);
    }
  }
  if (d.by_cause.empty() && !d.note.empty()) line += " (" + d.note + ")";
  return line.empty() ? "none" : line;
}

std::string WafLine(const WafFigures& w, uint64_t user_bytes) {
  std::string device = "n/a (/proc/self/io unreadable)";
  if (w.device_bytes && *w.device_bytes == 0 && user_bytes > 0) {
    device = "n/a (the kernel counted no device writes: tmpfs?)";
  } else if (w.device_bytes && w.device_waf) {
    device = Ratio(*w.device_waf) + " (" + MiB(*w.device_bytes) +
             " written to the device)";
  } else if (w.device_bytes) {
    device = "wrote " + MiB(*w.device_bytes);
  }
  if (user_bytes == 0) {
    uint64_t engine_total = w.wal_bytes.value_or(0) +
                            w.flush_bytes.value_or(0) +
                            w.compaction_bytes.value_or(0);
    std::string engine = (w.flush_bytes || w.compaction_bytes)
                             ? "engine wrote " + MiB(engine_total)
                             : std::string("engine write figures n/a");
    return "no user writes; " + engine + "; device " + device;
  }
  std::string line;
  if (w.waf || w.waf_no_wal) {
    line =
        (w.waf ? Ratio(*w.waf) : "n/a") + " engine (wal " +
        (w.wal_bytes ? Ratio(static_cast<double>(*w.wal_bytes) /
                             static_cast<double>(user_bytes))
                     : "n/a") +
        " + flush " +
        (w.flush_bytes ? Ratio(static_cast<double>(*w.flush_bytes) /
                               static_cast<double>(user_bytes))
                       : "n/a") +
        " + compaction " +
        (w.compaction_bytes ? Ratio(static_cast<double>(*w.compaction_bytes) /
                                    static_cast<double>(user_bytes))
                            : "n/a");
    std::string levels;
    for (const auto& [level, bytes] : w.level_write_bytes) {
      if (bytes == 0) continue;
      levels +=
          Printf(" L%d %.2f", level,
                 static_cast<double>(bytes) / static_cast<double>(user_bytes));
    }
    line += levels.empty() ? ")" : ";" + levels + ")";
  } else {
    line = "engine n/a";
  }
  line += "; device " + device + "; user " + MiB(user_bytes);
  return line;
}

std::string MemoryLine(const ResourceFigures& res) {
  const MemoryBudget& b = res.budget;
  std::string budget = Printf(
      "%.1f MiB (%.1f MiB x %d memtables + %.1f MiB cache)",
      static_cast<double>(b.Total()) / kMiB,
      static_cast<double>(b.write_buffer_size) / kMiB,
      b.max_write_buffer_number, static_cast<double>(b.cache_size) / kMiB);
  if (!res.peak_rss) return "peak RSS n/a; budget " + budget;
  auto of_budget = [&b](uint64_t bytes) {
    if (b.Total() == 0) return std::string();
    return Printf(" = %.2fx",
                  static_cast<double>(bytes) / static_cast<double>(b.Total()));
  };
  std::string line =
      Printf("peak RSS %.1f MiB", static_cast<double>(*res.peak_rss) / kMiB);
  if (res.peak_rss_whole_process) line += " (since process start)";
  line += " vs budget " + budget + of_budget(*res.peak_rss);
  if (res.peak_rss_anon) {
    // The budget is memory the engine allocates; the peak RSS also counts
    // mapped files (tables, the WALs), which are page cache.
    line += Printf("; allocated at most %.1f MiB",
                   static_cast<double>(*res.peak_rss_anon) / kMiB) +
            of_budget(*res.peak_rss_anon) + " (sampled each second)";
  }
  if (res.end_rss_anon && res.end_rss_file) {
    // Mapped tables count in the RSS but are page cache the kernel can
    // take back: show them apart from what the process allocated.
    line += Printf("; at the end %.1f MiB allocated + %.1f MiB mapped files",
                   static_cast<double>(*res.end_rss_anon) / kMiB,
                   static_cast<double>(*res.end_rss_file) / kMiB);
  }
  return line;
}

std::string SpaceLine(const ResourceFigures& res) {
  if (!res.disk) return "n/a (database directory unreadable)";
  const uint64_t on_disk = res.disk->SpaceBytes();
  std::string disk = MiB(on_disk) + (res.disk->recycled_bytes > 0
                                         ? " of .sst/.log/.recycle on disk"
                                         : " of .sst/.log on disk");
  if (!res.live_bytes) {
    std::string line = "n/a (live data unknown: existing database); " + disk;
    if (res.engine_live_estimate) {
      line += "; engine estimates " + MiB(*res.engine_live_estimate) + " live";
    }
    return line;
  }
  if (*res.live_bytes == 0) return "n/a (no live data); " + disk;
  return Printf("%.2f", static_cast<double>(on_disk) /
                            static_cast<double>(*res.live_bytes)) +
         " (" + disk + " / " + MiB(*res.live_bytes) + " live in " +
         std::to_string(res.live_keys.value_or(0)) + " keys)";
}

// "benchmark threads 1.92 s on a CPU, 0.31 s waiting for one (13.9% of
// their time); other threads: cascadedb:low 1.80 s (waited 0.12 s), ...;
// hypervisor steal 0.020 s of 2 CPUs (0.52% of their time)".
// Other threads under 5 ms on a CPU are left out.
std::string CpuLine(const BenchResult& r) {
  auto group = [](const char* who, const OpStats& s) {
    if (!s.sched) return std::string(who) + " n/a";
    const double cpu = static_cast<double>(s.sched->on_cpu_nanos) / 1e9;
    const double wait = static_cast<double>(s.sched->waiting_nanos) / 1e9;
    return Printf(
        "%s %.2f s on a CPU, %.3f s waiting for one (%.1f%% of "
        "their time)",
        who, cpu, wait,
        s.thread_seconds > 0 ? 100.0 * wait / s.thread_seconds : 0.0);
  };
  std::string line =
      group(r.has_writer ? "readers" : "benchmark threads", r.measured);
  if (r.has_writer) line += "; " + group("writer", r.writer);
  const ResourceFigures& res = r.res;
  std::string others;
  if (res.threads_begin && res.threads_end) {
    for (const ThreadGroupCpu& g :
         ThreadCpuDelta(*res.threads_begin, *res.threads_end)) {
      if (g.cpu_seconds < 0.005) continue;
      others +=
          Printf("%s%s %.2f s (waited %.3f s)", others.empty() ? "" : ", ",
                 g.name.c_str(), g.cpu_seconds, g.wait_seconds);
    }
  }
  if (!others.empty()) line += "; other threads: " + others;
  const std::optional<double> steal = StealSeconds(res);
  if (steal) {
    const int cpus = res.machine_end->cpus;
    const double machine_seconds = r.measured.seconds * cpus;
    auto share = [machine_seconds](double seconds) {
      return machine_seconds > 0 ? 100.0 * seconds / machine_seconds : 0.0;
    };
    // Who else held the CPUs the threads above waited for.
    const double outside = *OutsideProcessSeconds(res);
    line += Printf(
        "; outside this process (kernel threads, other programs) %.2f s "
        "(%.1f%% of %d CPUs' time)",
        outside, share(outside), cpus);
    line +=
        Printf("; hypervisor steal %.3f s of %d CPUs (%.2f%% of their time)",
               *steal, cpus, share(*steal));
  }
  // Where the guest hands free memory back to its host: each pass stalls
  // the running threads, so a slow op may be one.
  const std::optional<uint64_t> reported = ReportedToHostBytes(res);
  if (reported) {
    line += "; free memory handed back to the host " + MiB(*reported);
  }
  return line;
}

}  // namespace

// ---------------------------------------------------------------- figures

std::optional<double> StealSeconds(const ResourceFigures& res) {
  if (!res.machine_begin || !res.machine_end) return std::nullopt;
  return static_cast<double>(res.machine_end->StealSince(*res.machine_begin)) /
         1e9;
}

std::optional<double> OutsideProcessSeconds(const ResourceFigures& res) {
  if (!res.machine_begin || !res.machine_end) return std::nullopt;
  return static_cast<double>(
             res.machine_end->OutsideProcessSince(*res.machine_begin)) /
         1e9;
}

std::optional<uint64_t> ReportedToHostBytes(const ResourceFigures& res) {
  return Delta(res.reported_begin, res.reported_end);
}

WafFigures ComputeWaf(const ResourceFigures& res) {
  WafFigures w;
  const WriteAmpStats& a = res.waf_begin;
  const WriteAmpStats& b = res.waf_end;
  w.engine_user_bytes = Delta(a.user_bytes, b.user_bytes);
  w.wal_bytes = Delta(a.wal_bytes, b.wal_bytes);
  w.flush_bytes = Delta(a.flush_bytes, b.flush_bytes);
  w.compaction_bytes = Delta(a.compaction_bytes, b.compaction_bytes);
  for (const auto& [level, bytes] : b.level_write_bytes) {
    auto before = a.level_write_bytes.find(level);
    const uint64_t prev =
        before == a.level_write_bytes.end() ? 0 : before->second;
    w.level_write_bytes[level] = bytes >= prev ? bytes - prev : 0;
  }
  for (const auto& [level, bytes] : b.level_read_bytes) {
    auto before = a.level_read_bytes.find(level);
    const uint64_t prev =
        before == a.level_read_bytes.end() ? 0 : before->second;
    w.level_read_bytes[level] = bytes >= prev ? bytes - prev : 0;
  }
  // One denominator for every engine: the bytes db_bench handed over
  // (engines count framing differently, e.g. RocksDB counts batch headers).
  w.denominator = res.user_bytes;
  const double user = static_cast<double>(res.user_bytes);
  if (res.user_bytes > 0 && (w.flush_bytes || w.compaction_bytes)) {
    const double storage = static_cast<double>(w.flush_bytes.value_or(0) +
                                               w.compaction_bytes.value_or(0));
    w.waf_no_wal = storage / user;
    if (w.wal_bytes) {
      w.waf = (storage + static_cast<double>(*w.wal_bytes)) / user;
    }
  }
  if (res.io_begin && res.io_end) {
    const ProcIo& x = *res.io_begin;
    const ProcIo& y = *res.io_end;
    const uint64_t written = y.write_bytes - x.write_bytes;
    const uint64_t cancelled =
        y.cancelled_write_bytes - x.cancelled_write_bytes;
    w.device_bytes = written >= cancelled ? written - cancelled : 0;
    w.syscall_bytes = y.wchar - x.wchar;
    if (res.user_bytes > 0 && *w.device_bytes > 0) {
      w.device_waf = static_cast<double>(*w.device_bytes) / user;
    }
  }
  return w;
}

std::vector<ThreadGroupCpu> ThreadCpuDelta(
    const std::vector<ProcessThread>& begin,
    const std::vector<ProcessThread>& end) {
  std::map<int, const ThreadCpuTime*> before;
  for (const ProcessThread& t : begin) before[t.tid] = &t.sched;
  std::map<std::string, ThreadGroupCpu> groups;
  for (const ProcessThread& t : end) {
    auto it = before.find(t.tid);
    const ThreadCpuTime d =
        it == before.end() ? t.sched : t.sched.Since(*it->second);
    ThreadGroupCpu& g = groups[t.name];
    g.name = t.name;
    g.threads++;
    g.cpu_seconds += static_cast<double>(d.on_cpu_nanos) / 1e9;
    g.wait_seconds += static_cast<double>(d.waiting_nanos) / 1e9;
  }
  std::vector<ThreadGroupCpu> result;
  for (auto& [name, g] : groups) result.push_back(g);
  std::stable_sort(result.begin(), result.end(),
                   [](const ThreadGroupCpu& a, const ThreadGroupCpu& b) {
                     return a.cpu_seconds > b.cpu_seconds;
                   });
  return result;
}

StallStats StallDelta(const StallStats& begin, const StallStats& end) {
  StallStats d;
  d.reported = end.reported;
  d.note = end.note;
  for (const auto& [cause, counters] : end.by_cause) {
    for (const auto& [name, v] : counters) {
      uint64_t prev = 0;
      auto c = begin.by_cause.find(cause);
      if (c != begin.by_cause.end()) {
        auto it = c->second.find(name);
        if (it != c->second.end()) prev = it->second;
      }
      d.by_cause[cause][name] =
          (name == "max-stall-micros") ? v : (v >= prev ? v - prev : 0);
    }
  }
  for (const auto& [name, v] : end.totals) {
    auto it = begin.totals.find(name);
    const uint64_t prev = it == begin.totals.end() ? 0 : it->second;
    d.totals[name] =
        (name == "delayed-write-rate") ? v : (v >= prev ? v - prev : 0);
  }
  return d;
}

// ---------------------------------------------------------------- printing

void PrintResult(std::FILE* out, const BenchResult& r, const std::string& tag,
                 bool full_histogram) {
  const char* name = r.name.c_str();
  if (r.skipped) {
    std::fprintf(out, "%-12s : skipped (%s)\n", name, r.skip_reason.c_str());
    return;
  }
  if (r.is_property) {
    if (r.property_found) {
      std::fprintf(out, "%-12s : %s\n%s\n", name, r.property_name.c_str(),
                   r.property_text.c_str());
    } else {
      std::fprintf(out, "%-12s : n/a (the engine has no %s report)\n", name,
                   r.name.c_str());
    }
    return;
  }
  const OpStats& m = r.measured;
  if (!r.error.empty()) {
    std::fprintf(out, "%-12s : error after %" PRIu64 " ops: %s\n", name, m.ops,
                 r.error.c_str());
    return;
  }
  const double micros_per_op =
      m.ops ? m.thread_seconds * 1e6 / static_cast<double>(m.ops) : 0;
  const double ops_per_sec =
      m.seconds > 0 ? static_cast<double>(m.ops) / m.seconds : 0;
  std::string extra;
  if (m.bytes > 0 && m.seconds > 0) {
    extra =
        Printf("%6.1f MB/s", static_cast<double>(m.bytes) / kMiB / m.seconds);
  }
  if (!r.message.empty()) extra += (extra.empty() ? "" : " ") + r.message;
  if (!tag.empty()) extra += (extra.empty() ? "" : " ") + tag;
  std::fprintf(out, "%-12s : %11.3f micros/op %ld ops/sec;%s%s\n", name,
               micros_per_op, static_cast<long>(ops_per_sec),
               extra.empty() ? "" : " ", extra.c_str());
  // One-call benchmarks (compact, flush, ...) have nothing to distribute.
  if (m.ops > 1) PrintOpStats(out, "  ", m);
  if (r.has_writer) {
    const OpStats& w = r.writer;
    std::fprintf(
        out,
        "  writer         : %.3f micros/op %ld ops/sec; %.1f MB/s "
        "(%" PRIu64 " writes alongside)\n",
        w.ops ? w.thread_seconds * 1e6 / static_cast<double>(w.ops) : 0,
        static_cast<long>(w.seconds > 0 ? static_cast<double>(w.ops) / w.seconds
                                        : 0),
        w.seconds > 0 ? static_cast<double>(w.bytes) / kMiB / w.seconds : 0,
        w.ops);
    PrintOpStats(out, "  writer ", w);
  }
  const ResourceFigures& res = r.res;
  std::fprintf(out, "  stalls         : %s\n",
               StallLine(StallDelta(res.stalls_begin, res.stalls_end)).c_str());
  std::fprintf(out, "  write amp      : %s\n",
               WafLine(ComputeWaf(res), res.user_bytes).c_str());
  std::fprintf(out, "  memory         : %s\n", MemoryLine(res).c_str());
  std::fprintf(out, "  space amp      : %s\n", SpaceLine(res).c_str());
  std::fprintf(out, "  cpu            : %s\n", CpuLine(r).c_str());
  if (full_histogram) {
    std::fprintf(out, "  Microseconds per op (non-empty buckets):\n");
    const LatencyHistogram& h = m.latency;
    uint64_t cumulative = 0;
    for (int b = 0; b < LatencyHistogram::kNumBuckets; b++) {
      const uint64_t n = h.BucketCount(b);
      if (n == 0) continue;
      cumulative += n;
      std::fprintf(
          out, "  [ %10.3f, %10.3f ) %10" PRIu64 " %7.3f%% %8.3f%%\n",
          static_cast<double>(LatencyHistogram::BucketLow(b)) / 1000,
          static_cast<double>(LatencyHistogram::BucketHigh(b)) / 1000, n,
          100.0 * static_cast<double>(n) / static_cast<double>(h.Count()),
          100.0 * static_cast<double>(cumulative) /
              static_cast<double>(h.Count()));
    }
  }
  std::fflush(out);
}

void PrintRunTotals(std::FILE* out, const ResourceFigures& res) {
  std::fprintf(out, "Since the database was opened:\n");
  std::fprintf(out, "  stalls         : %s\n",
               StallLine(StallDelta(res.stalls_begin, res.stalls_end)).c_str());
  std::fprintf(out, "  write amp      : %s\n",
               WafLine(ComputeWaf(res), res.user_bytes).c_str());
  std::fprintf(out, "  memory         : %s\n", MemoryLine(res).c_str());
  std::fprintf(out, "  space amp      : %s\n", SpaceLine(res).c_str());
  std::fflush(out);
}

// ---------------------------------------------------------------- report dir

Status ReportDir::Open(const std::string& dir,
                       std::unique_ptr<ReportDir>* out) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return Status::IOError("--report_dir=" + dir,
                           "cannot create it: " + ec.message());
  }
  const std::string path = dir + "/timeline.csv";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    return Status::IOError(path, std::strerror(errno));
  }
  std::fprintf(f,
               "benchmark,time_s,interval_s,ops,ops_per_sec,mb_per_sec,p50_us,"
               "p99_us,max_us,stall_state,stall_cause,stall_ms,l0_files,"
               "imm_memtables,pending_compaction_bytes,compaction_read_mb_s,"
               "compaction_write_mb_s");
  for (const std::string& cause : StallCauses()) {
    std::fprintf(f, ",stall_ms_%s", cause.c_str());
  }
  std::fprintf(f,
               ",threads_cpu_ms,threads_cpu_wait_ms,other_cpu_ms,steal_ms,"
               "reported_to_host_mb\n");
  out->reset(new ReportDir(dir, f));
  return Status::OK();
}

ReportDir::ReportDir(std::string dir, std::FILE* timeline)
    : dir_(std::move(dir)), timeline_(timeline) {}

ReportDir::~ReportDir() {
  if (timeline_ != nullptr) std::fclose(timeline_);
}

void ReportDir::AddRow(const TimelineRow& row) {
  auto num = [](const std::optional<double>& v) {
    return v ? Printf("%.3f", *v) : std::string();
  };
  auto u = [](const std::optional<uint64_t>& v) {
    return v ? std::to_string(*v) : std::string();
  };
  std::string line = row.benchmark + Printf(",%.3f,%.3f,%" PRIu64 ",%.1f,%.3f",
                                            row.time_s, row.interval_s, row.ops,
                                            row.ops_per_sec, row.mb_per_sec);
  line += "," + num(row.p50_us) + "," + num(row.p99_us) + "," + num(row.max_us);
  line += "," + row.stall_state.value_or("") + "," + row.stall_cause + "," +
          num(row.stall_ms);
  line += "," + u(row.l0_files) + "," + u(row.immutable_memtables) + "," +
          u(row.pending_compaction_bytes);
  line += "," + num(row.compaction_read_mb_s) + "," +
          num(row.compaction_write_mb_s);
  for (const std::string& cause : StallCauses()) {
    auto it = row.stall_ms_by_cause.find(cause);
    line +=
        "," + (it == row.stall_ms_by_cause.end() ? std::string()
                                                 : Printf("%.3f", it->second));
  }
  line += "," + num(row.threads_cpu_ms) + "," + num(row.threads_cpu_wait_ms) +
          "," + num(row.other_cpu_ms) + "," + num(row.steal_ms) + "," +
          num(row.reported_to_host_mb);
  std::fprintf(timeline_, "%s\n", line.c_str());
  std::fflush(timeline_);
}

void ReportDir::AddBenchmark(const BenchResult& r) {
  Json j;
  j.Begin('{');
  j.Key("name").String(r.name);
  j.Key("skipped").Bool(r.skipped);
  if (r.skipped) j.Key("skip_reason").String(r.skip_reason);
  if (!r.error.empty()) j.Key("error").String(r.error);
  if (r.is_property) {
    j.Key("property").String(r.property_name);
    j.Key("available").Bool(r.property_found);
    j.Key("text").String(r.property_text);
  } else if (!r.skipped) {
    j.Key("message").String(r.message);
    OpStatsJson(&j, r.measured);
    if (r.has_writer) {
      j.Key("writer").Begin('{');
      OpStatsJson(&j, r.writer);
      j.End('}');
    }
    ResourcesJson(&j, r.res);
  }
  j.End('}');
  benchmarks_json_.push_back(j.str());
}

Status ReportDir::Finish(const RunInfo& info,
                         const ResourceFigures* run_totals) {
  Json j;
  j.Begin('{');
  j.Key("tool").String("cascadedb db_bench");
  j.Key("engine").String(info.engine);
  j.Key("engine_version").String(info.engine_version);
  j.Key("build_type").String(info.build_type);
  j.Key("assertions").Bool(info.assertions);
  j.Key("date").String(info.date);
  j.Key("cpu").String(info.cpu);
  j.Key("kernel").String(info.kernel);
  j.Key("db_path").String(info.db_path);
  j.Key("command_line").String(info.command_line);
  j.Key("notes").Begin('[');
  for (const std::string& n : info.notes) j.String(n);
  j.End(']');
  j.Key("warnings").Begin('[');
  for (const std::string& w : info.warnings) j.String(w);
  j.End(']');
  j.Key("effective_options").Begin('[');
  for (const std::string& o : info.effective_options) j.String(o);
  j.End(']');
  j.Key("flags").Begin('{');
  for (const auto& [k, v] : info.flags) j.Key(k).String(v);
  j.End('}');
  j.Key("benchmarks").Begin('[');
  for (size_t i = 0; i < benchmarks_json_.size(); i++) {
    if (i > 0) j.Raw(",");
    j.Raw(benchmarks_json_[i]);
  }
  j.End(']');
  if (run_totals != nullptr) {
    j.Key("since_open").Begin('{');
    ResourcesJson(&j, *run_totals);
    j.End('}');
  }
  j.End('}');

  const std::string path = dir_ + "/summary.json";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return Status::IOError(path, std::strerror(errno));
  const bool ok =
      std::fwrite(j.str().data(), 1, j.str().size(), f) == j.str().size() &&
      std::fputc('\n', f) != EOF;
  if (std::fclose(f) != 0 || !ok) {
    return Status::IOError(path, "write failed");
  }
  return Status::OK();
}

}  // namespace db_bench
}  // namespace cascadedb

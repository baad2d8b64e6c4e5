// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// InternalStats: per-level flush/compaction accounting, the compaction stats
// table and write amplification (see internal_stats.h and
// docs/write-amplification.md).
//
// Thread safety: thread-safe (see the header).

#include "db/internal_stats.h"

#include <algorithm>
#include <cassert>
#include <cinttypes>
#include <cstdio>

#include "cascadedb/env.h"

namespace cascadedb {

namespace {

constexpr double kGB = 1073741824.0;  // 2^30
constexpr double kMB = 1048576.0;     // 2^20
constexpr double kMicrosPerSecond = 1e6;

// a / b, or 0 when b is 0 (nothing to amplify yet).
double Ratio(uint64_t a, uint64_t b) {
  return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

// MB/s of bytes over micros; 0 for no time.
double MBPerSecond(uint64_t bytes, uint64_t micros) {
  return micros == 0 ? 0.0
                     : static_cast<double>(bytes) / kMB /
                           (static_cast<double>(micros) / kMicrosPerSecond);
}

double Seconds(uint64_t micros) {
  return static_cast<double>(micros) / kMicrosPerSecond;
}

double GB(uint64_t bytes) { return static_cast<double>(bytes) / kGB; }

// "512B", "1.50KB", "256.00MB", ...: no space, so that each column is one
// whitespace-separated token.
std::string HumanBytes(uint64_t bytes) {
  static const char* const kUnits[] = {"KB", "MB", "GB", "TB", "PB"};
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof(buf), "%" PRIu64 "B", bytes);
    return buf;
  }
  double value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < sizeof(kUnits) / sizeof(kUnits[0])) {
    value /= 1024.0;
    unit++;
  }
  std::snprintf(buf, sizeof(buf), "%.2f%s", value, kUnits[unit]);
  return buf;
}

std::string FormatRatio(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", value);
  return buf;
}

bool HasActivity(const CompactionStats& s) {
  return s.count != 0 || s.bytes_written != 0 || s.bytes_read() != 0 ||
         s.bytes_moved != 0;
}

// The table's column layout; the header and the rows use the same widths.
constexpr const char* kHeaderFormat =
    "%5s %10s %9s %6s %9s %9s %9s %10s %9s %10s %6s %9s %9s %10s %18s %10s "
    "%9s %12s %10s\n";
constexpr const char* kRowFormat =
    "%5s %6d/%-3d %9s %6.2f %9.3f %9.3f %9.3f %10.3f %9.3f %10.3f %6.2f "
    "%9.1f %9.1f %10.2f %18.2f %10d %9.3f %12" PRIu64 " %10" PRIu64 "\n";

void AppendHeader(std::string* out) {
  char line[512];
  const int n = std::snprintf(
      line, sizeof(line), kHeaderFormat, "Level", "Files", "Size", "Score",
      "Read(GB)", "Rn(GB)", "Rnp1(GB)", "Write(GB)", "Wnew(GB)", "Moved(GB)",
      "W-Amp", "Rd(MB/s)", "Wr(MB/s)", "Comp(sec)", "CompMergeCPU(sec)",
      "Comp(cnt)", "Avg(sec)", "KeyIn", "KeyDrop");
  out->append(line);
  out->append(static_cast<size_t>(std::max(n - 1, 0)), '-');
  out->push_back('\n');
}

void AppendRow(std::string* out, const char* name, const LevelState& state,
               const CompactionStats& s, double w_amp) {
  const double w_new = (static_cast<double>(s.bytes_written) -
                        static_cast<double>(s.bytes_read_output_level)) /
                       kGB;
  const double avg_seconds =
      s.count == 0 ? 0.0 : Seconds(s.micros) / static_cast<double>(s.count);
  char line[512];
  std::snprintf(line, sizeof(line), kRowFormat, name, state.num_files,
                state.being_compacted, HumanBytes(state.bytes).c_str(),
                state.score, GB(s.bytes_read()),
                GB(s.bytes_read_non_output_levels),
                GB(s.bytes_read_output_level), GB(s.bytes_written), w_new,
                GB(s.bytes_moved), w_amp, MBPerSecond(s.bytes_read(), s.micros),
                MBPerSecond(s.bytes_written, s.micros), Seconds(s.micros),
                Seconds(s.cpu_micros), s.count, avg_seconds,
                s.num_input_records, s.num_dropped_records);
  out->append(line);
}

// "<prefix> compaction: ..." for compaction (not flush) figures over
// elapsed_micros of wall time.
void AppendCompactionLine(std::string* out, const char* prefix,
                          const CompactionStats& sum,
                          const CompactionStats& flush,
                          uint64_t elapsed_micros) {
  const uint64_t written = sum.bytes_written - flush.bytes_written;
  const uint64_t read = sum.bytes_read() - flush.bytes_read();
  char line[256];
  std::snprintf(line, sizeof(line),
                "%s compaction: %.3f GB write, %.2f MB/s write, %.3f GB read, "
                "%.2f MB/s read, %.1f seconds\n",
                prefix, GB(written), MBPerSecond(written, elapsed_micros),
                GB(read), MBPerSecond(read, elapsed_micros),
                Seconds(sum.micros - flush.micros));
  out->append(line);
}

// "<prefix> writes: ..." and "<prefix> WAL: ..." lines.
void AppendWriteLines(std::string* out, const char* prefix,
                      uint64_t user_writes, uint64_t user_keys,
                      uint64_t user_bytes, uint64_t wal_writes,
                      uint64_t wal_syncs, uint64_t wal_bytes,
                      uint64_t elapsed_micros) {
  char line[256];
  std::snprintf(line, sizeof(line),
                "%s writes: %" PRIu64 " writes, %" PRIu64
                " keys, ingest: %.3f GB, %.2f MB/s\n",
                prefix, user_writes, user_keys, GB(user_bytes),
                MBPerSecond(user_bytes, elapsed_micros));
  out->append(line);
  std::snprintf(line, sizeof(line),
                "%s WAL: %" PRIu64 " writes, %" PRIu64
                " syncs, written: %.3f GB, %.2f MB/s\n",
                prefix, wal_writes, wal_syncs, GB(wal_bytes),
                MBPerSecond(wal_bytes, elapsed_micros));
  out->append(line);
}

}  // namespace

// ----------------------------------------------------------------
// CompactionStats

void CompactionStats::Add(const CompactionStats& other) {
  micros += other.micros;
  cpu_micros += other.cpu_micros;
  bytes_read_non_output_levels += other.bytes_read_non_output_levels;
  bytes_read_output_level += other.bytes_read_output_level;
  bytes_written += other.bytes_written;
  bytes_moved += other.bytes_moved;
  num_input_files_in_non_output_levels +=
      other.num_input_files_in_non_output_levels;
  num_input_files_in_output_level += other.num_input_files_in_output_level;
  num_output_files += other.num_output_files;
  num_input_records += other.num_input_records;
  num_dropped_records += other.num_dropped_records;
  count += other.count;
}

void CompactionStats::Subtract(const CompactionStats& other) {
  micros -= other.micros;
  cpu_micros -= other.cpu_micros;
  bytes_read_non_output_levels -= other.bytes_read_non_output_levels;
  bytes_read_output_level -= other.bytes_read_output_level;
  bytes_written -= other.bytes_written;
  bytes_moved -= other.bytes_moved;
  num_input_files_in_non_output_levels -=
      other.num_input_files_in_non_output_levels;
  num_input_files_in_output_level -= other.num_input_files_in_output_level;
  num_output_files -= other.num_output_files;
  num_input_records -= other.num_input_records;
  num_dropped_records -= other.num_dropped_records;
  count -= other.count;
}

// ---------------------------------------------------------------- Totals

CompactionStats InternalStats::Totals::Sum() const {
  CompactionStats sum;
  for (const CompactionStats& level : levels) sum.Add(level);
  return sum;
}

uint64_t InternalStats::Totals::compaction_bytes() const {
  return Sum().bytes_written - flush().bytes_written;
}

double InternalStats::Totals::WriteAmplification(bool include_wal) const {
  const uint64_t written = (include_wal ? wal_bytes : 0) +
                           flush().bytes_written + compaction_bytes();
  return Ratio(written, user_bytes);
}

InternalStats::Totals InternalStats::Totals::Minus(
    const Totals& earlier) const {
  Totals d = *this;
  // The clock is monotonic in practice; clamp in case it is not.
  d.micros = micros >= earlier.micros ? micros - earlier.micros : 0;
  for (size_t i = 0; i < d.levels.size() && i < earlier.levels.size(); i++) {
    d.levels[i].Subtract(earlier.levels[i]);
  }
  d.user_bytes -= earlier.user_bytes;
  d.user_keys -= earlier.user_keys;
  d.user_writes -= earlier.user_writes;
  d.wal_bytes -= earlier.wal_bytes;
  d.wal_writes -= earlier.wal_writes;
  d.wal_syncs -= earlier.wal_syncs;
  return d;
}

// ----------------------------------------------------------------
// InternalStats

InternalStats::InternalStats(int num_levels, Env* env)
    : num_levels_(num_levels),
      env_(env),
      start_micros_(env->NowMicros()),
      levels_(static_cast<size_t>(num_levels)) {
  assert(num_levels >= 1);
  baseline_.micros = start_micros_;
  baseline_.levels.resize(static_cast<size_t>(num_levels));
}

void InternalStats::AddCompactionStats(int output_level,
                                       const CompactionStats& stats) {
  assert(output_level >= 0 && output_level < num_levels_);
  if (output_level < 0 || output_level >= num_levels_) return;
  MutexLock lock(&mu_);
  levels_[static_cast<size_t>(output_level)].Add(stats);
}

void InternalStats::AddUserBytes(uint64_t bytes, uint64_t keys,
                                 uint64_t writes) {
  user_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  user_keys_.fetch_add(keys, std::memory_order_relaxed);
  user_writes_.fetch_add(writes, std::memory_order_relaxed);
}

void InternalStats::AddWalBytes(uint64_t bytes, uint64_t syncs) {
  if (bytes > 0) {
    wal_bytes_.fetch_add(bytes, std::memory_order_relaxed);
    wal_writes_.fetch_add(1, std::memory_order_relaxed);
  }
  if (syncs > 0) wal_syncs_.fetch_add(syncs, std::memory_order_relaxed);
}

InternalStats::Totals InternalStats::CurrentTotals() const {
  mu_.AssertHeld();
  Totals t;
  t.micros = env_->NowMicros();
  t.levels = levels_;
  t.user_bytes = user_bytes_.load(std::memory_order_relaxed);
  t.user_keys = user_keys_.load(std::memory_order_relaxed);
  t.user_writes = user_writes_.load(std::memory_order_relaxed);
  t.wal_bytes = wal_bytes_.load(std::memory_order_relaxed);
  t.wal_writes = wal_writes_.load(std::memory_order_relaxed);
  t.wal_syncs = wal_syncs_.load(std::memory_order_relaxed);
  return t;
}

std::string InternalStats::DumpStats(const std::vector<LevelState>& levels,
                                     bool update_interval_baseline) {
  MutexLock lock(&mu_);
  const Totals now = CurrentTotals();
  const Totals interval = now.Minus(baseline_);
  const CompactionStats sum = now.Sum();
  const CompactionStats interval_sum = interval.Sum();

  std::string out = "\n** Compaction Stats **\n";
  AppendHeader(&out);
  LevelState total_state;
  for (int level = 0; level < num_levels_; level++) {
    const size_t i = static_cast<size_t>(level);
    const LevelState state = i < levels.size() ? levels[i] : LevelState();
    const CompactionStats& s = now.levels[i];
    total_state.num_files += state.num_files;
    total_state.being_compacted += state.being_compacted;
    total_state.bytes += state.bytes;
    if (state.num_files == 0 && !HasActivity(s)) continue;
    // L0 has no input level: its writes are flushes of user data, so its
    // amplification is relative to the user bytes.
    const double w_amp =
        level == 0 ? Ratio(s.bytes_written, now.user_bytes)
                   : Ratio(s.bytes_written, s.bytes_read_non_output_levels);
    const std::string name = "L" + std::to_string(level);
    AppendRow(&out, name.c_str(), state, s, w_amp);
  }
  total_state.score = 0;
  AppendRow(&out, "Sum", total_state, sum,
            Ratio(sum.bytes_written, now.user_bytes));
  AppendRow(&out, "Int", LevelState(), interval_sum,
            Ratio(interval_sum.bytes_written, interval.user_bytes));

  char line[256];
  const uint64_t uptime_micros =
      now.micros >= start_micros_ ? now.micros - start_micros_ : 0;
  std::snprintf(line, sizeof(line), "Uptime(secs): %.1f total, %.1f interval\n",
                Seconds(uptime_micros), Seconds(interval.micros));
  out.append(line);
  std::snprintf(line, sizeof(line),
                "Flush(GB): cumulative %.3f, interval %.3f; flushes: %d "
                "cumulative, %d interval\n",
                GB(now.flush().bytes_written),
                GB(interval.flush().bytes_written), now.flush().count,
                interval.flush().count);
  out.append(line);
  AppendCompactionLine(&out, "Cumulative", sum, now.flush(), uptime_micros);
  AppendCompactionLine(&out, "Interval", interval_sum, interval.flush(),
                       interval.micros);
  AppendWriteLines(&out, "Cumulative", now.user_writes, now.user_keys,
                   now.user_bytes, now.wal_writes, now.wal_syncs, now.wal_bytes,
                   uptime_micros);
  AppendWriteLines(&out, "Interval", interval.user_writes, interval.user_keys,
                   interval.user_bytes, interval.wal_writes, interval.wal_syncs,
                   interval.wal_bytes, interval.micros);
  std::snprintf(line, sizeof(line),
                "Write amplification: total %.2f (with WAL), %.2f (without "
                "WAL)\n",
                now.WriteAmplification(true), now.WriteAmplification(false));
  out.append(line);
  std::snprintf(line, sizeof(line),
                "Interval write amplification: %.2f (with WAL), %.2f (without "
                "WAL)\n",
                interval.WriteAmplification(true),
                interval.WriteAmplification(false));
  out.append(line);

  if (update_interval_baseline) baseline_ = now;
  return out;
}

void InternalStats::GetWriteAmpMap(
    std::map<std::string, std::string>* m) const {
  MutexLock lock(&mu_);
  const Totals now = CurrentTotals();
  (*m)["user-bytes"] = std::to_string(now.user_bytes);
  (*m)["wal-bytes"] = std::to_string(now.wal_bytes);
  (*m)["flush-bytes"] = std::to_string(now.flush().bytes_written);
  (*m)["compaction-bytes"] = std::to_string(now.compaction_bytes());
  (*m)["waf"] = FormatRatio(now.WriteAmplification(true));
  (*m)["waf-no-wal"] = FormatRatio(now.WriteAmplification(false));
  for (size_t i = 0; i < now.levels.size(); i++) {
    const CompactionStats& s = now.levels[i];
    if (s.bytes_written == 0) continue;
    const std::string prefix = "L" + std::to_string(i) + ".";
    (*m)[prefix + "write-bytes"] = std::to_string(s.bytes_written);
    (*m)[prefix + "read-bytes"] = std::to_string(s.bytes_read());
    (*m)[prefix + "waf"] = FormatRatio(
        i == 0 ? Ratio(s.bytes_written, now.user_bytes)
               : Ratio(s.bytes_written, s.bytes_read_non_output_levels));
  }
}

double InternalStats::WriteAmplification(bool include_wal) const {
  MutexLock lock(&mu_);
  return CurrentTotals().WriteAmplification(include_wal);
}

CompactionStats InternalStats::GetLevelStats(int level) const {
  if (level < 0 || level >= num_levels_) return CompactionStats();
  MutexLock lock(&mu_);
  return levels_[static_cast<size_t>(level)];
}

uint64_t InternalStats::user_bytes() const {
  return user_bytes_.load(std::memory_order_relaxed);
}
uint64_t InternalStats::user_keys() const {
  return user_keys_.load(std::memory_order_relaxed);
}
uint64_t InternalStats::user_writes() const {
  return user_writes_.load(std::memory_order_relaxed);
}
uint64_t InternalStats::wal_bytes() const {
  return wal_bytes_.load(std::memory_order_relaxed);
}
uint64_t InternalStats::wal_writes() const {
  return wal_writes_.load(std::memory_order_relaxed);
}
uint64_t InternalStats::wal_syncs() const {
  return wal_syncs_.load(std::memory_order_relaxed);
}

uint64_t InternalStats::flush_bytes() const {
  MutexLock lock(&mu_);
  return levels_[0].bytes_written;
}

uint64_t InternalStats::compaction_bytes() const {
  MutexLock lock(&mu_);
  uint64_t written = 0;
  for (size_t i = 1; i < levels_.size(); i++)
    written += levels_[i].bytes_written;
  return written;
}

}  // namespace cascadedb

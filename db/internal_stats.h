// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// InternalStats: the engine's own accounting of where bytes go, behind
// GetProperty("cascadedb.stats") and GetMapProperty(
// "cascadedb.write-amplification") (docs/properties.md) and the periodic
// dump to LOG. It keeps, per level, what flushes and compactions read and
// wrote (RocksDB's "Compaction Stats" table), plus the user bytes and WAL
// bytes, and derives write amplification from them exactly as
// docs/write-amplification.md defines it.
//
// It knows nothing of Version or files: the caller reports each job's
// figures as it finishes and passes the current shape of the tree (files,
// sizes, scores per level) when it asks for the table.
//
// Thread safety: thread-safe. Per-level figures are guarded by an internal
// leaf mutex (no other lock is taken while it is held, so it may be called
// with or without the DB mutex); the user and WAL counters are relaxed
// atomics, so the write path can add to them without any lock.

#ifndef CASCADEDB_DB_INTERNAL_STATS_H_
#define CASCADEDB_DB_INTERNAL_STATS_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace cascadedb {

class Env;

// The figures of one flush or compaction job, or the sum of many, for the
// level the job wrote to.
struct CompactionStats {
  // Wall time and CPU time of the job(s), microseconds.
  uint64_t micros = 0;
  uint64_t cpu_micros = 0;
  // "Rn": bytes read from the input level n (the non-output level).
  uint64_t bytes_read_non_output_levels = 0;
  // "Rnp1": bytes read from the output level n+1.
  uint64_t bytes_read_output_level = 0;
  // "Write": bytes of SST files written.
  uint64_t bytes_written = 0;
  // "Moved": bytes of files moved to this level without being rewritten.
  uint64_t bytes_moved = 0;
  // Input files from level n and from level n+1, and output files.
  int num_input_files_in_non_output_levels = 0;
  int num_input_files_in_output_level = 0;
  int num_output_files = 0;
  // Entries read ("KeyIn") and dropped ("KeyDrop": overwritten entries and
  // obsolete deletion markers).
  uint64_t num_input_records = 0;
  uint64_t num_dropped_records = 0;
  // Jobs counted (1 for one job's figures).
  int count = 0;

  // Adds/subtracts every field. REQUIRES for Subtract: other's fields are
  // <= this one's (other is an earlier total of the same figures).
  void Add(const CompactionStats& other);
  void Subtract(const CompactionStats& other);

  // Rn + Rnp1.
  uint64_t bytes_read() const {
    return bytes_read_non_output_levels + bytes_read_output_level;
  }
};

// The current shape of one level, for the table's Files/Size/Score columns.
struct LevelState {
  int num_files = 0;
  int being_compacted = 0;  // of num_files, inputs of running compactions
  uint64_t bytes = 0;       // total size of the level's files
  double score = 0;         // the compaction picker's score
};

class InternalStats {
 public:
  // Accounts for num_levels levels (L0 .. L<num_levels-1>). The clock
  // (uptime, interval length) comes from env, borrowed: it must outlive
  // this object. REQUIRES: num_levels >= 1, env != nullptr.
  InternalStats(int num_levels, Env* env);

  InternalStats(const InternalStats&) = delete;
  InternalStats& operator=(const InternalStats&) = delete;

  int num_levels() const { return num_levels_; }

  // ------------------------------------------------------------ recording

  // Records a flush (output_level 0) or a compaction (output_level >= 1;
  // with bytes_moved, a trivial move) that wrote to output_level. For a
  // flush, stats.bytes_written is the L0 file and the read fields are 0
  // (as in RocksDB); count is normally 1 per job. Everything written to L0
  // counts as flush bytes and everything written deeper as compaction
  // bytes: this engine never compacts into L0 (no intra-L0 compaction). A
  // level out of range is a caller bug: asserted, ignored in release
  // builds.
  void AddCompactionStats(int output_level, const CompactionStats& stats)
      EXCLUDES(mu_);
  // The same as AddCompactionStats(0, stats).
  void AddFlushStats(const CompactionStats& stats) EXCLUDES(mu_) {
    AddCompactionStats(0, stats);
  }

  // Records user writes: bytes are the key + value sizes of Put (key size
  // of Delete) in the writes, keys the number of such records, writes the
  // number of Put/Delete/Write calls they came in.
  void AddUserBytes(uint64_t bytes, uint64_t keys, uint64_t writes = 1);

  // Records bytes appended to the WAL (one WAL write when bytes > 0) and
  // syncs of the WAL. Either may be 0 (a SyncWAL call adds (0, 1)).
  void AddWalBytes(uint64_t bytes, uint64_t syncs);

  // ------------------------------------------------------------ reporting

  // The compaction stats table and summary lines (format below) for the
  // levels' current shape; levels[i] describes Li (missing levels count as
  // empty, extra entries beyond num_levels() are ignored). With
  // update_interval_baseline, the next dump's interval ("Int" row and
  // "Interval" lines) starts now; otherwise it continues from the previous
  // baseline (the construction time at first).
  //
  // One row per level that has files or recorded jobs, then "Sum" (all
  // levels) and "Int" (all levels, since the baseline). Columns:
  //   Files      num_files/being_compacted
  //   Size       bytes, with a unit (B KB MB GB TB, powers of 1024)
  //   Score      the picker's score (0 for Sum and Int)
  //   Read(GB)   Rn + Rnp1;  Rn(GB), Rnp1(GB), Write(GB) as in CompactionStats
  //   Wnew(GB)   Write - Rnp1 (the level's net growth; may be negative)
  //   Moved(GB)  bytes_moved
  //   W-Amp      Write / Rn for L1 and deeper (RocksDB's definition, 0 when
  //              Rn = 0); Write / user bytes for L0 and for Sum/Int (so the
  //              Sum row shows the total write amplification without WAL)
  //   Rd(MB/s), Wr(MB/s)  Read / Comp(sec), Write / Comp(sec)
  //   Comp(sec), CompMergeCPU(sec), Comp(cnt), Avg(sec)  micros, cpu_micros,
  //              count, micros / count
  //   KeyIn, KeyDrop      num_input_records, num_dropped_records
  // GB = 2^30 bytes, MB = 2^20 bytes. Then the lines "Uptime(secs)",
  // "Flush(GB)", "Cumulative compaction", "Interval compaction",
  // "Cumulative writes", "Cumulative WAL", "Interval writes",
  // "Interval WAL", "Write amplification" and "Interval write
  // amplification".
  std::string DumpStats(const std::vector<LevelState>& levels,
                        bool update_interval_baseline) EXCLUDES(mu_);

  // Stores the write-amplification figures in *m (other keys are kept):
  //   "user-bytes", "wal-bytes", "flush-bytes" (written to L0),
  //   "compaction-bytes" (written to L1 and deeper)
  //       cumulative byte counts, as decimal integers;
  //   "waf", "waf-no-wal"   WriteAmplification(true/false), "%.3f";
  //   for each level n with bytes written:
  //   "L<n>.write-bytes", "L<n>.read-bytes" (Rn + Rnp1) integers, and
  //   "L<n>.waf"  the W-Amp column's value for Ln, "%.3f".
  // REQUIRES: m != nullptr.
  void GetWriteAmpMap(std::map<std::string, std::string>* m) const
      EXCLUDES(mu_);

  // (WAL bytes if include_wal + flush bytes + compaction bytes) / user
  // bytes, cumulative; 0 when no user bytes were recorded.
  double WriteAmplification(bool include_wal) const EXCLUDES(mu_);

  // Cumulative figures of the jobs that wrote to level (level 0: the
  // flushes); all zero for a level out of range.
  CompactionStats GetLevelStats(int level) const EXCLUDES(mu_);

  // Cumulative counters.
  uint64_t user_bytes() const;
  uint64_t user_keys() const;
  uint64_t user_writes() const;
  uint64_t wal_bytes() const;
  uint64_t wal_writes() const;
  uint64_t wal_syncs() const;
  // Bytes written by flushes (to L0) and by compactions (to L1 and deeper).
  uint64_t flush_bytes() const EXCLUDES(mu_);
  uint64_t compaction_bytes() const EXCLUDES(mu_);

 private:
  // Every cumulative figure at one moment.
  struct Totals {
    uint64_t micros = 0;                  // env clock
    std::vector<CompactionStats> levels;  // levels[0] holds the flushes
    uint64_t user_bytes = 0;
    uint64_t user_keys = 0;
    uint64_t user_writes = 0;
    uint64_t wal_bytes = 0;
    uint64_t wal_writes = 0;
    uint64_t wal_syncs = 0;

    CompactionStats Sum() const;
    const CompactionStats& flush() const { return levels[0]; }
    uint64_t compaction_bytes() const;
    double WriteAmplification(bool include_wal) const;
    // this - earlier, field by field.
    Totals Minus(const Totals& earlier) const;
  };

  Totals CurrentTotals() const REQUIRES(mu_);

  // ---- const after construction
  const int num_levels_;
  Env* const env_;
  const uint64_t start_micros_;

  // ---- relaxed atomics: plain counters; nothing is published through them,
  // and a reader only needs each value to be some recent total.
  std::atomic<uint64_t> user_bytes_{0};
  std::atomic<uint64_t> user_keys_{0};
  std::atomic<uint64_t> user_writes_{0};
  std::atomic<uint64_t> wal_bytes_{0};
  std::atomic<uint64_t> wal_writes_{0};
  std::atomic<uint64_t> wal_syncs_{0};

  // ---- guarded by mu_ (a leaf lock)
  mutable Mutex mu_;
  // Cumulative figures per output level; levels_[0] holds the flushes.
  std::vector<CompactionStats> levels_ GUARDED_BY(mu_);
  // The totals when the current interval began.
  Totals baseline_ GUARDED_BY(mu_);
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_INTERNAL_STATS_H_

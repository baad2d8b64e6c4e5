// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// FlushJob: writes one immutable memtable into one SST. It runs in the HIGH
// pool without the DB mutex: the memtable is immutable and referenced, the
// file number reserved. Versions of a key hidden from every snapshot are
// dropped on the way (ObsoleteEntryFilter); deletions are kept, since older
// data may sit in the SSTs. The caller (DBImpl) picks the output level, logs
// the VersionEdit and retires the WAL once the MANIFEST is synced.
//
// Thread safety: not thread-safe (one job, one thread).

#ifndef CASCADEDB_DB_FLUSH_JOB_H_
#define CASCADEDB_DB_FLUSH_JOB_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "cascadedb/env.h"
#include "cascadedb/rate_limiter.h"
#include "db/memtable.h"
#include "db/version_edit.h"
#include "db/yield_watch.h"
#include "table/table_options.h"

namespace cascadedb {

class TableFileRecycler;

// How far a running FlushJob has come, for pacing writes to it. The job
// stores; other threads read without a lock (relaxed: a recent value).
struct FlushJobProgress {
  // Entries of the memtable read so far.
  std::atomic<uint64_t> entries_read{0};
  // Env::NowMicros when the last entry was read; 0 until then. What
  // follows (the table's last blocks, its sync) is the flush's tail.
  std::atomic<uint64_t> read_end_micros{0};

  void Reset() {
    entries_read.store(0, std::memory_order_relaxed);
    read_end_micros.store(0, std::memory_order_relaxed);
  }
};

struct FlushJobStats {
  uint64_t micros = 0;      // wall time of Run
  uint64_t cpu_micros = 0;  // CPU time of the thread that ran it
  uint64_t input_entries = 0;
  uint64_t input_deletes = 0;
  uint64_t dropped_entries = 0;
  uint64_t memtable_bytes = 0;  // arena bytes of the memtable
  uint64_t bytes_written = 0;   // SST bytes
  bool recycled_file = false;   // written over a recycled table file
};

class FlushJob {
 public:
  // Everything is borrowed and must outlive Run. snapshots: live snapshot
  // sequences, ascending.
  FlushJob(const std::string& dbname, Env* env, const EnvOptions& env_options,
           RateLimiter* rate_limiter, const TableOptions& table_options,
           const Comparator* user_comparator, MemTable* mem,
           std::vector<SequenceNumber> snapshots, uint64_t file_number);

  // Writes the SST. On success *meta describes it; meta->file_size is 0 and
  // no file is left when every entry was dropped or the memtable was empty.
  // On error no file is left.
  Status Run(FileMetaData* meta);

  const FlushJobStats& stats() const { return stats_; }

  // Run reports its progress in *progress (entries_read every
  // kProgressStep entries, and both fields when the last entry is read).
  // Borrowed; may be null (the default).
  void SetProgress(FlushJobProgress* progress) { progress_ = progress; }

  // The SST is created through recycler (borrowed; may be null, the
  // default: a fresh file). See TableFileRecycler.
  void SetRecycler(TableFileRecycler* recycler) { recycler_ = recycler; }
  // The watches its table files mark and yield to (none by default).
  void SetYieldWatches(const YieldWatches& watches) {
    yield_watches_ = watches;
  }

 private:
  const std::string dbname_;
  Env* const env_;
  const EnvOptions env_options_;
  RateLimiter* const rate_limiter_;
  const TableOptions table_options_;
  const Comparator* const ucmp_;
  MemTable* const mem_;
  const std::vector<SequenceNumber> snapshots_;
  const uint64_t file_number_;
  static constexpr uint64_t kProgressStep = 64;

  FlushJobStats stats_;
  FlushJobProgress* progress_ = nullptr;
  TableFileRecycler* recycler_ = nullptr;
  YieldWatches yield_watches_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_FLUSH_JOB_H_

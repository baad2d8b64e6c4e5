// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// CompactionJob: merges the input files of one Compaction (picked by the
// CompactionPicker) into new SSTs of the output level. It runs in the LOW
// pool without the DB mutex: the inputs are marked being_compacted and the
// input Version is referenced by the Compaction. Entries hidden from every
// snapshot, and deletions with nothing left to hide, are dropped
// (ObsoleteEntryFilter). Output files are cut at their size
// (Compaction::OutputSizeLimit()), where the overlap with the next level
// would grow too large, and, with Options::align_compaction_outputs, where
// a file of the next level ends (Compaction::ShouldStopBefore), always
// between two user keys, so one user key never spans two files of a level.
// A finished output is synced a few files later (or when Run ends), so the
// device writes it while the merge goes on; every output is synced, and
// the directory too, before Run returns. The caller (DBImpl) installs the
// outputs with one VersionEdit.
//
// Thread safety: not thread-safe (one job, one thread).

#ifndef CASCADEDB_DB_COMPACTION_JOB_H_
#define CASCADEDB_DB_COMPACTION_JOB_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/env.h"
#include "cascadedb/rate_limiter.h"
#include "db/compaction.h"
#include "db/version_edit.h"
#include "db/yield_watch.h"
#include "table/table_options.h"

namespace cascadedb {

class Iterator;
class ObsoleteEntryFilter;
class TableFileRecycler;
class TableFileWriter;
class VersionSet;

struct CompactionJobStats {
  uint64_t micros = 0;                   // wall time of Run
  uint64_t cpu_micros = 0;               // CPU time of the thread that ran it
  uint64_t bytes_read_input_level = 0;   // from level()        ("Rn")
  uint64_t bytes_read_output_level = 0;  // from output_level() ("Rnp1")
  uint64_t bytes_written = 0;
  uint64_t input_records = 0;
  uint64_t dropped_records = 0;
  uint64_t output_records = 0;
  // Data blocks of the output level's inputs written out whole, and their
  // bytes (CompactionJob::TryCopyBlock).
  uint64_t copied_blocks = 0;
  uint64_t copied_bytes = 0;
  // Outputs written over recycled table files (SetRecycler).
  uint64_t recycled_outputs = 0;
  int input_files_input_level = 0;
  int input_files_output_level = 0;
};

class CompactionJob {
 public:
  // Everything is borrowed and must outlive Run. new_file_number reserves
  // a file number for an output (the caller takes the DB mutex inside and
  // protects the file from deletion until the job is installed).
  // shutting_down is polled between entries: when set, Run stops with
  // Aborted. snapshots: live snapshot sequences, ascending.
  CompactionJob(const std::string& dbname, Env* env,
                const EnvOptions& env_options, RateLimiter* rate_limiter,
                const TableOptions& table_options,
                const Comparator* user_comparator, VersionSet* versions,
                Compaction* compaction, std::vector<SequenceNumber> snapshots,
                std::function<uint64_t()> new_file_number,
                const std::atomic<bool>* shutting_down);
  ~CompactionJob();

  // A pause point between entries: when *requested is set, Run calls
  // serve() (with no lock held) and goes on. DBImpl uses it to flush a
  // memtable in the compaction's thread. The time spent in serve() is
  // left out of stats().micros and cpu_micros.
  void SetPausePoint(const std::atomic<bool>* requested,
                     std::function<void()> serve) {
    pause_requested_ = requested;
    serve_pause_ = std::move(serve);
  }

  // Whether blocks of the output level's inputs that would pass unchanged
  // are written out whole, without being decoded and encoded again
  // (Options::compaction_copy_blocks). Default: true.
  void SetCopyBlocks(bool copy_blocks) { copy_blocks_ = copy_blocks; }

  // Outputs are created through recycler (borrowed; may be null, the
  // default: fresh files). See TableFileRecycler.
  void SetRecycler(TableFileRecycler* recycler) { recycler_ = recycler; }
  // The watches its table files mark and yield to (none by default).
  void SetYieldWatches(const YieldWatches& watches) {
    yield_watches_ = watches;
  }

  // Merges the inputs into outputs(). On error every output written is
  // deleted and outputs() is empty.
  Status Run();

  // Adds the input deletions and the outputs to the compaction's edit.
  void AddToEdit(VersionEdit* edit) const;

  const std::vector<FileMetaData>& outputs() const { return outputs_; }
  const CompactionJobStats& stats() const { return stats_; }

 private:
  // Outputs finished but not yet synced: at most this many at a time.
  static constexpr size_t kMaxUnsyncedOutputs = 4;

  // The output level's inputs, read block by block (compaction_job.cc).
  class RunReader;

  // Passes one entry to the outputs: drops what no reader can see, cuts
  // output files at their size and at grandparent boundaries (between user
  // keys), opens outputs as needed.
  Status AddEntry(const Slice& key, const Slice& value);
  // Writes the lower run's current block (at its first entry) to the
  // output whole, when no entry of the other inputs (upper, at its next
  // entry) falls within its key range and each of its entries would pass
  // AddEntry unchanged: a value, the only entry of its user key. Returns
  // false, with lower still at the block's first entry, when it may not;
  // true when it was copied (lower then at the next block) or the copy
  // failed (*s).
  bool TryCopyBlock(RunReader* lower, Iterator* upper, Status* s);

  // The open output's size so far (0 when none is open).
  uint64_t OutputBytes() const;
  // Closes the output before the next user key because of its size.
  void RequestSizeCut();

  // Finishes the open output (writer_) and adds it to outputs_; syncs the
  // oldest unsynced one when more than kMaxUnsyncedOutputs wait.
  Status FinishOutput();
  Status SyncOldestOutput();
  // Syncs and closes every unsynced output, then the directory.
  Status SyncOutputs();
  // Reads every output back through the table cache, as a flush does with
  // its table: one that does not open fails the compaction instead of the
  // reads after it, and readers find the outputs open.
  Status OpenOutputs();
  void MaybePause();

  const std::string dbname_;
  Env* const env_;
  const EnvOptions env_options_;
  RateLimiter* const rate_limiter_;
  TableOptions table_options_;
  const Comparator* const ucmp_;
  VersionSet* const versions_;
  Compaction* const compaction_;
  const std::vector<SequenceNumber> snapshots_;
  const std::function<uint64_t()> new_file_number_;
  const std::atomic<bool>* const shutting_down_;
  const std::atomic<bool>* pause_requested_ = nullptr;
  std::function<void()> serve_pause_;
  bool copy_blocks_ = true;
  TableFileRecycler* recycler_ = nullptr;
  YieldWatches yield_watches_;
  uint64_t paused_micros_ = 0;
  uint64_t paused_cpu_nanos_ = 0;
  // The merge's state while Run runs.
  std::unique_ptr<ObsoleteEntryFilter> filter_;
  std::unique_ptr<TableFileWriter> writer_;
  bool cut_requested_ = false;  // cut the output before the next user key
  std::vector<FileMetaData> outputs_;
  std::deque<std::unique_ptr<WritableFile>> unsynced_;  // oldest first
  CompactionJobStats stats_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_COMPACTION_JOB_H_

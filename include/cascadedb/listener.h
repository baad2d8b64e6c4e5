// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// EventListener: callbacks through which the DB tells the application about
// its background life: flushes, compactions, SST files created and deleted,
// changes of the write-stall state and background errors. Register
// listeners in Options::listeners; each event goes to every listener, in
// the order they were registered, exactly once.
//
// Rules for every callback:
//   - It runs on a DB thread: a background (flush or compaction) thread, or
//     the writer thread that changed the stall state. Keep it short: while
//     it runs, that thread does no other work (a slow OnFlushCompleted
//     delays the next flush, and so may stall writes).
//   - It is called without the DB mutex held. It may read from the DB (Get,
//     GetProperty, iterators) but must not wait for the DB's background
//     work (Flush with wait, CompactRange, WaitForCompact, Close): that work
//     may be waiting for the callback to return, which deadlocks.
//   - It should not throw. The DB catches and logs an exception escaping a
//     callback and goes on; the event is not delivered again.
//   - It may be called concurrently from several threads (a flush and two
//     compactions can finish together), so a listener with state guards it.
//   - The info structs are borrowed for the duration of the call only.
//
// Thread safety: implementations must be thread-safe (see above). The info
// structs are plain values: thread-compatible.

#ifndef CASCADEDB_INCLUDE_CASCADEDB_LISTENER_H_
#define CASCADEDB_INCLUDE_CASCADEDB_LISTENER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cascadedb/status.h"

namespace cascadedb {

class DB;

// One flush of immutable memtables into an L0 SST.
struct FlushJobInfo {
  // The directory passed to DB::Open.
  std::string db_name;
  // A number unique among the DB's jobs (flushes and compactions) since
  // Open; the same in the Begin and Completed calls and in the
  // TableFileCreationInfo of the job's output.
  int job_id = 0;
  // Why the flush ran: "write_buffer_full", "manual", "shutdown" or
  // "recovery".
  std::string flush_reason;
  // The output SST: full path and file number.
  std::string file_path;
  uint64_t file_number = 0;
  // The level the file goes to (always 0 today).
  int output_level = 0;
  // Memory used by the flushed memtables (bytes), and the entries they held:
  // all entries, and of them deletion markers.
  uint64_t memtable_bytes = 0;
  uint64_t num_entries = 0;
  uint64_t num_deletes = 0;
  // The sequence number range of the flushed entries.
  uint64_t smallest_seqno = 0;
  uint64_t largest_seqno = 0;
  // OnFlushCompleted only (0 in OnFlushBegin): the size of the output file
  // in bytes, the job's wall time in microseconds, and the CPU time the
  // flush thread spent on it (0 where the Env cannot measure it).
  uint64_t file_size = 0;
  uint64_t duration_micros = 0;
  uint64_t cpu_micros = 0;
  // Whether writes were being slowed down (DELAY) or stopped (STOP) when
  // the flush started.
  bool triggered_writes_slowdown = false;
  bool triggered_writes_stop = false;
  // OK in OnFlushBegin. In OnFlushCompleted, the job's result; on failure
  // the output file was deleted and the memtables are flushed again later.
  Status status;
};

// One compaction job (or trivial move).
struct CompactionJobInfo {
  // The directory passed to DB::Open.
  std::string db_name;
  // See FlushJobInfo::job_id.
  int job_id = 0;
  // Why the compaction ran: "L0FileCount" (L0 reached its trigger),
  // "LevelSize" (a level outgrew its target), "Manual" (CompactRange) or
  // "Seek" (a file used up its allowed seeks, Options::seek_compaction).
  std::string compaction_reason;
  // The level the inputs come from (the lower numbered one), and the level
  // the outputs go to.
  int base_input_level = 0;
  int output_level = 0;
  // Full paths of the input SSTs (from both levels) and of the output SSTs.
  // In OnCompactionBegin, output_files is empty.
  std::vector<std::string> input_files;
  std::vector<std::string> output_files;
  // Bytes and entries of all input files.
  uint64_t input_bytes = 0;
  uint64_t input_records = 0;
  // OnCompactionCompleted only (0 in OnCompactionBegin): bytes and entries
  // written to the outputs, entries dropped (input_records -
  // output_records: overwritten entries and obsolete deletion markers),
  // the job's wall time in microseconds, and the CPU time the compaction
  // thread spent on it (0 for a trivial move, or where the Env cannot
  // measure it).
  uint64_t output_bytes = 0;
  uint64_t output_records = 0;
  uint64_t records_dropped = 0;
  uint64_t duration_micros = 0;
  uint64_t cpu_micros = 0;
  // True when the inputs were moved to output_level without being rewritten
  // (output_files then name the moved files, output_bytes is 0).
  bool is_trivial_move = false;
  // OK in OnCompactionBegin. In OnCompactionCompleted, the job's result; on
  // failure the outputs were deleted and the inputs stay live.
  Status status;
};

// An SST file written by the DB (successfully or not).
struct TableFileCreationInfo {
  std::string db_name;
  // The job that wrote it (see FlushJobInfo::job_id).
  int job_id = 0;
  // "flush", "compaction" or "recovery" (a flush of replayed WAL entries
  // during Open).
  std::string reason;
  std::string file_path;
  uint64_t file_number = 0;
  // Its size in bytes (0 on failure) and the level it was written for.
  uint64_t file_size = 0;
  int level = 0;
  // Not OK when writing the file failed; the file was then deleted.
  Status status;
};

// An obsolete SST file the DB deleted (or tried to).
struct TableFileDeletionInfo {
  std::string db_name;
  // The job that found the file obsolete (see FlushJobInfo::job_id).
  int job_id = 0;
  std::string file_path;
  uint64_t file_number = 0;
  // The result of the deletion; not OK if the file could not be removed.
  Status status;
};

// A change of the write-stall state (docs/stalls.md).
struct WriteStallInfo {
  std::string db_name;
  // The cause of the current state: "memtable_limit", "l0_slowdown",
  // "l0_stop", "pending_compaction_slowdown", "pending_compaction_stop",
  // or "none" when the new state is "normal".
  std::string cause;
  // The states before and after the change: "normal", "delayed" or
  // "stopped". Different from each other, except that a change of cause
  // within the same state is reported too.
  std::string prev_state;
  std::string cur_state;
};

// What the DB was doing when a background error occurred.
enum class BackgroundErrorReason {
  kFlush,          // writing an SST from a memtable
  kCompaction,     // writing or installing compaction outputs
  kWriteCallback,  // writing or syncing the WAL for a write group
  kMemTable,       // inserting a write group into the memtable
  kManifestWrite,  // writing or syncing the MANIFEST
};

// "flush", "compaction", "write_callback", "memtable", "manifest_write".
inline const char* BackgroundErrorReasonName(BackgroundErrorReason reason) {
  switch (reason) {
    case BackgroundErrorReason::kFlush:
      return "flush";
    case BackgroundErrorReason::kCompaction:
      return "compaction";
    case BackgroundErrorReason::kWriteCallback:
      return "write_callback";
    case BackgroundErrorReason::kMemTable:
      return "memtable";
    case BackgroundErrorReason::kManifestWrite:
      return "manifest_write";
  }
  return "unknown";
}

// Override the callbacks of interest; the defaults do nothing. db is the DB
// the event belongs to, borrowed for the call.
class EventListener {
 public:
  EventListener() = default;
  EventListener(const EventListener&) = delete;
  EventListener& operator=(const EventListener&) = delete;
  virtual ~EventListener() = default;

  // Before a flush job writes its SST, from the flush thread.
  virtual void OnFlushBegin(DB* /*db*/, const FlushJobInfo& /*info*/) {}

  // After a flush job finished (successfully or not) and, on success, its
  // file was installed in the current version.
  virtual void OnFlushCompleted(DB* /*db*/, const FlushJobInfo& /*info*/) {}

  // Before a compaction job (or trivial move) reads its inputs, from the
  // compaction thread.
  virtual void OnCompactionBegin(DB* /*db*/,
                                 const CompactionJobInfo& /*info*/) {}

  // After a compaction job finished (successfully or not) and, on success,
  // its outputs were installed.
  virtual void OnCompactionCompleted(DB* /*db*/,
                                     const CompactionJobInfo& /*info*/) {}

  // After an SST file was written and synced (or writing it failed), before
  // it is installed.
  virtual void OnTableFileCreated(const TableFileCreationInfo& /*info*/) {}

  // After an obsolete SST file was deleted (or deleting it failed).
  virtual void OnTableFileDeleted(const TableFileDeletionInfo& /*info*/) {}

  // When the write-stall state or its cause changes, from the thread that
  // noticed the change (a writer or a background job).
  virtual void OnStallConditionsChanged(const WriteStallInfo& /*info*/) {}

  // When a background error is about to become the DB's sticky error (after
  // which every write fails with it; reads go on). *bg_error is that error. A
  // listener may overwrite it with OK to tell the DB that the failure is
  // harmless: the DB then does not make it sticky and retries the work
  // later. Do that only for errors known to be transient. Other listeners
  // see the possibly changed value.
  virtual void OnBackgroundError(BackgroundErrorReason /*reason*/,
                                 Status* /*bg_error*/) {}
};

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_LISTENER_H_

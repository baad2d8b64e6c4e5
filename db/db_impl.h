// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// DBImpl: the DB. It owns the memtables, the WAL, the VersionSet and the
// background work, and wires the jobs together; the jobs' logic lives in
// their own classes (FlushJob, CompactionJob, CompactionPicker,
// WriteController, InternalStats).
//
// A write: writers queue in writers_; the front one leads a group. It asks
// MakeRoomForWrite (stalls, memtable switch), appends ONE WAL record for the
// group with the mutex released (one sync if any member asked), inserts the
// group into the memtable, publishes the last sequence and wakes the group.
//
// A read: Get takes the mutex only to pick the sequence and reference the
// memtables and the current Version, and reads with it released.
//
// Background: flushes run in the HIGH pool (one at a time, oldest immutable
// memtable first), compactions in the LOW pool (up to
// max_background_compactions at once, on disjoint files).
//
// Read amplification: a Get that consults a second file, and an
// iterator's sampled keys (ReadSampler), charge the first file they cost;
// a file that runs out of allowed seeks is compacted down (seek
// compaction, Options::seek_compaction).
//
// Files: db_impl.cc (open, writes, reads, background work),
// db_impl_properties.cc (GetProperty and friends).
//
// Thread safety: thread-safe (see DB).

#ifndef CASCADEDB_DB_DB_IMPL_H_
#define CASCADEDB_DB_DB_IMPL_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "cascadedb/filter_policy.h"
#include "cascadedb/listener.h"
#include "cascadedb/statistics.h"
#include "db/db_iter.h"
#include "db/dbformat.h"
#include "db/flush_job.h"
#include "db/internal_stats.h"
#include "db/log_writer.h"
#include "db/table_file_recycler.h"
#include "db/write_controller.h"
#include "db/yield_watch.h"
#include "table/block_admission.h"
#include "table/compression_queue.h"
#include "table/properties.h"
#include "table/table_options.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"
#include "util/thread_pool.h"

namespace cascadedb {

class Compaction;
class MemTable;
class TableCache;
class Version;
class VersionEdit;
class VersionSet;
struct FileMetaData;
struct FlushJobStats;
struct CompactionJobStats;

class DBImpl : public DB, private ReadSampler {
 public:
  // options must be valid (ValidateOptions). Nothing is opened until Open.
  DBImpl(const Options& options, const std::string& dbname, bool read_only);
  ~DBImpl() override;

  // Opens or creates the database (see DB::Open). Called once.
  Status Open();

  Status Close() override;
  Status Put(const WriteOptions& options, const Slice& key,
             const Slice& value) override;
  Status Delete(const WriteOptions& options, const Slice& key) override;
  Status Write(const WriteOptions& options, WriteBatch* updates) override;
  Status Get(const ReadOptions& options, const Slice& key,
             std::string* value) override;
  Iterator* NewIterator(const ReadOptions& options) override;
  const Snapshot* GetSnapshot() override;
  void ReleaseSnapshot(const Snapshot* snapshot) override;
  bool GetProperty(const Slice& property, std::string* value) override;
  bool GetIntProperty(const Slice& property, uint64_t* value) override;
  bool GetMapProperty(const Slice& property,
                      std::map<std::string, std::string>* value) override;
  Status GetApproximateSizes(const Range* ranges, int n,
                             uint64_t* sizes) override;
  Status CompactRange(const CompactRangeOptions& options, const Slice* begin,
                      const Slice* end) override;
  Status Flush(const FlushOptions& options) override;
  Status WaitForCompact() override;
  Status SyncWAL() override;
  void GetLiveFilesMetaData(std::vector<LiveFileMetaData>* files) override;
  uint64_t GetLatestSequenceNumber() const override;
  const std::string& GetName() const override { return dbname_; }

  // An iterator over internal keys (for ldb idump and tests); *sequence is
  // set to the sequence the view was taken at.
  Iterator* NewInternalIterator(const ReadOptions& options,
                                SequenceNumber* sequence);

 private:
  struct Writer;
  class SnapshotImpl;
  struct ImmutableMemTable {
    MemTable* mem;
    uint64_t log_number;  // the WAL holding its entries
  };
  struct LogReporter;

  // ReadSampler: an iterator's sampled key charges the current Version's
  // first file holding it (seek compaction).
  void RecordReadSample(const Slice& internal_key) override;
  // A WAL switched away from whose data is not yet synced.
  struct PendingLog {
    uint64_t number;
    std::unique_ptr<WritableFile> file;
  };

  Status CloseLocked() EXCLUDES(mutex_);

  // ---- open and recovery (mutex held)
  Status NewDB();
  Status Recover(VersionEdit* edit) REQUIRES(mutex_);
  Status CheckLiveFiles(const std::vector<std::string>& children)
      REQUIRES(mutex_);
  // False if WAL number surely holds no record: it is empty, starts with
  // a zero header (space an mmap WAL reserved), or starts with another
  // log's record (a recycled file never written). Read errors say true.
  bool WalMayHoldRecords(uint64_t number);
  Status RecoverLogFile(uint64_t log_number, bool last_log, VersionEdit* edit,
                        SequenceNumber* max_sequence, bool* stop_replay)
      REQUIRES(mutex_);
  // Writes mem into an L0 SST and adds it to *edit. Releases the mutex
  // during the I/O.
  // reason: "write_buffer_full", "manual" or "recovery"; *info is filled
  // in for the listeners. On success the file number stays in
  // pending_outputs_: the caller erases it once the edit is installed.
  Status WriteLevel0Table(MemTable* mem, VersionEdit* edit, const char* reason,
                          FlushJobInfo* info) REQUIRES(mutex_);
  // Makes the next WAL the active one: the prepared one (next_wal_file_)
  // if there is one, else one made here. REQUIRES: no WAL is being
  // prepared.
  Status NewLogFile() REQUIRES(mutex_);
  // Takes one of recycled_logs_ for a new WAL: its name (in dbname_), or
  // "" if none. Until ReleaseRecycledLog it is in deleting_, so that no
  // RemoveObsoleteFiles keeps or deletes it while it is renamed without
  // the mutex (PrepareNextWal).
  std::string TakeRecycledLog() REQUIRES(mutex_);
  // The name TakeRecycledLog gave is renamed (or the rename failed, and
  // the file is obsolete): counts it as gone. Does nothing for "".
  void ReleaseRecycledLog(std::string name) REQUIRES(mutex_);
  // Creates the file of WAL number, over recycled (a name TakeRecycledLog
  // gave) if that is not empty and the rename works. Needs no mutex.
  Status CreateWalFile(uint64_t number, const std::string& recycled,
                       std::unique_ptr<WritableFile>* file);
  // Makes the next WAL's file ahead of the memtable switch that takes it,
  // unless one is ready or being made, or the DB is read-only, closing or
  // failed; the mutex is released while the file is made. A flush does
  // this before it writes its table (and Open), so that the switch, on
  // the leading writer's path, takes a ready file instead of renaming (or
  // creating), opening and mapping one, which took 100-500 us.
  void PrepareNextWal() REQUIRES(mutex_);
  // Waits for a preparation under way, then closes and deletes an unused
  // prepared WAL. Releases the mutex while it waits and deletes.
  void DropPreparedWal() REQUIRES(mutex_);
  // Syncs the DB directory so a new WAL's entry is durable. Releases the
  // mutex during the sync.
  Status SyncLogDir() REQUIRES(mutex_);

  // ---- writes
  Status WriteImpl(const WriteOptions& options, WriteBatch* updates)
      EXCLUDES(mutex_);
  Status MakeRoomForWrite(Writer* leader, uint64_t batch_bytes)
      REQUIRES(mutex_);
  WriteBatch* BuildBatchGroup(Writer** last_writer) REQUIRES(mutex_);
  // Does what queued Flush calls asked (a memtable switch, if the active
  // memtable has entries and there is room) and completes them, except
  // self. *serviced is false when there was no room yet.
  Status ServiceFlushRequests(Writer* self, bool* serviced) REQUIRES(mutex_);
  // Turns the active memtable immutable and starts a new WAL.
  Status SwitchMemtable() REQUIRES(mutex_);
  // A new, empty memtable sized and filtered per the options.
  MemTable* NewMemTable() const;
  // One write's waits through a stop: recorded as one stall (per cause)
  // when the stop ends, however often the writer woke, or compressed a
  // block, meanwhile.
  struct StopWait {
    StallCause cause = StallCause::kNone;
    uint64_t micros = 0;
    bool waited = false;
  };
  // Waits on bg_cv_ while writes are stopped for cause, or compresses a
  // queued block for the flush or compaction it waits for instead
  // (Options::stalled_writers_compress); the caller checks again either
  // way. With a compression queue the wait ends after at most
  // WriteController::kDelayCheckMicros, to look for blocks again. Adds
  // the wait to *wait (recording a stall of another cause there first)
  // and returns it, in microseconds.
  uint64_t WaitWhileStopped(StallCause cause, StopWait* wait) REQUIRES(mutex_);
  // Records *wait's stall, if it has one, and clears it.
  void EndStopWait(StopWait* wait) REQUIRES(mutex_);
  // MakeRoomForWrite's loop; its stop waits go to *stop.
  Status MakeRoom(Writer* leader, uint64_t batch_bytes, StopWait* stop)
      REQUIRES(mutex_);
  // Waits micros for a delayed write, compressing queued blocks meanwhile
  // while the next is expected to be done in the time left. A delay paced
  // to the flush waits the rest with Env::YieldForMicroseconds, giving its
  // CPU to the flush (or any thread) ready for it; others sleep.
  void DelayFor(uint64_t micros, bool paced) EXCLUDES(mutex_);
  // Whether a stopped writer should compress queued blocks: some are
  // queued, and fewer flushes and compactions run than there are CPUs (a
  // CPU is free while the writer would wait; with every CPU busy it would
  // take one from them, for as long as the stop lasts).
  bool CpuForStalledWriters() const REQUIRES(mutex_);
  // Data blocks stalled writers have compressed since the DB opened.
  uint64_t BlocksCompressedByWriters() const {
    return compression_queue_ != nullptr ? compression_queue_->helped_jobs()
                                         : 0;
  }
  // Re-evaluates the stall state from the current Version and memtables,
  // then the WAL helper's placement (PlaceWalHelper).
  void UpdateWriteController() REQUIRES(mutex_);
  // Tells the WAL whether its helper thread should stay off the writer's
  // CPU: yes unless compaction held writes back recently (then the writer
  // waits for it anyway, and its CPU has time to spare for the helper).
  // force: tell a new WAL even if the answer has not changed.
  void PlaceWalHelper(bool force) REQUIRES(mutex_);
  bool ActiveMemTableFull() const REQUIRES(mutex_);
  // True when the active memtable is the last one max_write_buffer_number
  // allows and the oldest immutable one is being flushed or will be by a
  // job already scheduled: writes are then paced to that flush
  // (StallInputs::last_memtable_flushing).
  bool LastMemTableFlushing() const REQUIRES(mutex_);
  // The flush's progress (none yet if it has not started) and the active
  // memtable's room in arena bytes, for WriteController::GetDelay.
  // REQUIRES: no memtable insert running (the write leader, before its
  // group inserts).
  FlushProgress FlushPaceProgress(uint64_t now_micros) const REQUIRES(mutex_);
  // What a paced write of batch is charged: the arena bytes its entries
  // are expected to take in the memtable (the unit of the pace's room), at
  // the last full memtable's cost per entry; batch_bytes before any.
  uint64_t PacedWriteBytes(const WriteBatch& batch, uint64_t batch_bytes) const
      REQUIRES(mutex_);
  // Around FlushOldestImmutable's flush of mem: writes may be paced to it
  // from Start until End (called before the memtable leaves imm_). End
  // keeps the flush's speed and its tail (last entry read to installed)
  // when it succeeded, as the next flush's estimates.
  void StartFlushPacing(MemTable* mem) REQUIRES(mutex_);
  void EndFlushPacing(bool installed) REQUIRES(mutex_);

  Status FlushImpl(const FlushOptions& options) EXCLUDES(mutex_);
  Status CompactRangeImpl(const CompactRangeOptions& options,
                          const Slice* begin, const Slice* end)
      EXCLUDES(mutex_);
  // The deepest level (at least 1) holding files that overlap [b, e]
  // (nullptr = unbounded) in the current Version.
  int DeepestLevelOverlapping(const InternalKey* b, const InternalKey* e)
      REQUIRES(mutex_);

  // ---- background work
  void MaybeScheduleFlush() REQUIRES(mutex_);
  // For a memtable just made immutable: hands the flush to a running
  // compaction job (flush_waiting_) or schedules it.
  void HandOffOrScheduleFlush() REQUIRES(mutex_);
  bool ShouldHandOffFlush() const REQUIRES(mutex_);
  // A compaction job's pause point: flushes the waiting memtables in the
  // job's thread.
  void FlushForCompactionJob() EXCLUDES(mutex_);
  void MaybeScheduleCompaction() REQUIRES(mutex_);
  static void BGWorkFlush(void* db);
  static void BGWorkCompaction(void* db);
  void BackgroundFlush();
  // Returns true if it picked (and ran) a compaction.
  bool BackgroundCompaction();
  Status FlushOldestImmutable() REQUIRES(mutex_);
  // Runs (or trivially moves) c and installs the result. Releases the
  // mutex during the I/O. Deletes c.
  Status RunCompaction(Compaction* c) REQUIRES(mutex_);
  // Makes error the sticky background error (unless a listener clears
  // it). May release the mutex to call the listeners.
  void RecordBackgroundError(const Status& error, BackgroundErrorReason reason)
      REQUIRES(mutex_);
  // Deletes the files no Version, memtable or running job needs: hands
  // tables, MANIFESTs and temporary files to the file deleter (deleter_)
  // without waiting for them to go, and deletes obsolete WALs itself. It
  // releases the mutex to list the directory, to close obsolete tables
  // (unmapping them) and to delete WALs: every read and write takes the
  // mutex.
  void RemoveObsoleteFiles() REQUIRES(mutex_);
  // Drops a reader's (Get's or an iterator's) reference to v. If that
  // deletes v and v is no longer current, files only v listed became
  // obsolete after the last RemoveObsoleteFiles kept them for the reader:
  // the file deleter's thread looks for them (SchedulePurge), so that a
  // long-lived iterator's files go when it does, not at the next flush or
  // compaction (unless one is scheduled already: it does the same).
  void UnrefVersion(Version* v) REQUIRES(mutex_);
  // A DB iterator's references, released by CleanupIterState (a cleanup
  // of the iterator; arg1 is the IterState).
  struct IterState;
  static void CleanupIterState(void* arg1, void* arg2);
  void SchedulePurge() REQUIRES(mutex_);
  static void BGWorkPurge(void* arg);
  // Counts a file as gone from the directory (files_gone_), remembering
  // its name.
  void FileGone(std::string name) REQUIRES(mutex_);
  // For RemoveObsoleteFiles: removes from children (a directory listing
  // taken without the mutex) the files gone since files_gone_ was
  // files_gone_before.
  void DropGoneFiles(uint64_t files_gone_before,
                     std::vector<std::string>* children) REQUIRES(mutex_);
  // For RemoveObsoleteFiles: true if the obsolete WAL name (number) is, or
  // now becomes, one of recycled_logs_ instead of being deleted.
  bool KeepForRecycling(const std::string& name, uint64_t number)
      REQUIRES(mutex_);
  // Removes name (in dbname_), logs it and tells the listeners.
  void DeleteObsoleteFile(const std::string& name) EXCLUDES(mutex_);
  // Deletes one obsolete file (a job of deleter_; arg is a DeletionJob,
  // owned by the job).
  struct DeletionJob {
    DBImpl* db;
    std::string name;  // in dbname_
  };
  static void BGWorkDelete(void* arg);
  // Waits until every file handed to the deleter is gone.
  // REQUIRES: mutex_ not held.
  void WaitForDeletions() EXCLUDES(mutex_);
  std::vector<SequenceNumber> SnapshotSequences() const REQUIRES(mutex_);
  uint64_t NewOutputFileNumber();  // takes the mutex
  TableOptions TableOptionsForLevel(int level) const;
  bool HasBackgroundWork() const REQUIRES(mutex_);

  // ---- statistics and events
  void RecordTick(uint32_t ticker, uint64_t count = 1) const {
    if (stats_ != nullptr) stats_->recordTick(ticker, count);
  }
  void MeasureTime(uint32_t histogram, uint64_t micros) const {
    if (stats_ != nullptr) stats_->measureTime(histogram, micros);
  }
  // True if timers for histogram should run (statistics on, stats level).
  bool TimerEnabled(uint32_t histogram) const {
    return stats_ != nullptr && stats_->HistEnabledForType(histogram);
  }
  void RecordStall(StallCause cause, bool stopped, uint64_t micros)
      REQUIRES(mutex_);
  // Calls fn for every listener, catching (and logging) what they throw.
  void ForEachListener(const std::function<void(EventListener*)>& fn);
  // Queues a listener call; listeners never run with the mutex held.
  void QueueEvent(std::function<void()> event) REQUIRES(mutex_);
  // Runs the queued listener calls. REQUIRES: mutex not held.
  void DeliverEvents() EXCLUDES(mutex_);
  void NotifyTableFileDeleted(uint64_t number, const Status& s)
      EXCLUDES(mutex_);
  // Asks the listeners about a background error; returns it or OK when a
  // listener cleared it. REQUIRES: mutex not held.
  Status NotifyBackgroundError(BackgroundErrorReason reason, Status s)
      EXCLUDES(mutex_);
  void StatsDumpLoop();

  // ---- properties
  std::string LevelStatsTable() REQUIRES(mutex_);
  std::string SSTablesTable() REQUIRES(mutex_);
  std::string StatsTable() REQUIRES(mutex_);
  // The background threads' time on a CPU and waiting for one, by pool
  // (cascadedb.background-cpu). Returns false where the kernel keeps no
  // such figures.
  struct BackgroundCpu {
    const char* key;   // "low", "high", "helper", "deletion"
    const char* name;  // row name in the table
    uint64_t on_cpu_micros = 0;
    uint64_t waiting_micros = 0;
  };
  bool GetBackgroundCpu(std::vector<BackgroundCpu>* rows) REQUIRES(mutex_);
  std::string BackgroundCpuTable() REQUIRES(mutex_);
  std::vector<LevelState> LevelStates() REQUIRES(mutex_);
  bool GetIntPropertyLocked(const std::string& name, uint64_t* value)
      REQUIRES(mutex_);
  // Sums the counts and sizes of every live table's properties; false if a
  // table cannot be opened.
  bool AggregateTableProperties(TableProperties* total) REQUIRES(mutex_);

  // ---- immutable after construction
  const Options options_;
  Statistics* const stats_;  // options_.statistics.get(), may be null
  const std::string dbname_;
  const bool read_only_;
  Env* const env_;
  const InternalKeyComparator icmp_;
  std::unique_ptr<const FilterPolicy> owned_filter_policy_;
  std::shared_ptr<Cache> block_cache_;
  std::unique_ptr<BlockAdmission> block_admission_;  // null: admit all
  // Where flushes and compactions queue their blocks for compression, for
  // stalled writers to help with; null: they compress their own.
  std::unique_ptr<CompressionQueue> compression_queue_;
  // The memtables' arena blocks, kept from a flushed memtable for the next
  // one (util/arena.h); shared with every memtable, which may outlive the
  // DB in a reader's hands.
  std::shared_ptr<ArenaBlockPool> arena_pool_;
  std::shared_ptr<Logger> info_log_;
  EnvOptions wal_env_options_;
  EnvOptions sst_env_options_;
  TableOptions table_options_;  // level-independent part
  std::unique_ptr<TableCache> table_cache_;
  std::unique_ptr<FileLock> db_lock_;

  // ---- state
  // Read by every compaction before each entry, so it has a cache line of
  // its own: beside mutex_, which every write takes, each write made the
  // compaction's next read of it a cache miss.
  alignas(kCacheLineSize) std::atomic<bool> shutting_down_{false};
  alignas(kCacheLineSize) mutable Mutex mutex_;
  std::atomic<uint32_t> iterator_seed_{0};  // varies read sampling points
  bool closed_ GUARDED_BY(mutex_) = false;
  CondVar bg_cv_;  // signalled when background work finishes or state moves
  MemTable* mem_ GUARDED_BY(mutex_) = nullptr;
  uint64_t mem_log_number_ GUARDED_BY(mutex_) = 0;
  std::deque<ImmutableMemTable> imm_ GUARDED_BY(mutex_);  // oldest first
  std::unique_ptr<WritableFile> logfile_;  // written by the write leader
  std::unique_ptr<log::Writer> log_;
  uint64_t logfile_number_ GUARDED_BY(mutex_) = 0;
  bool log_dirty_ = false;  // unsynced data in logfile_ (write leader only)
  // What PlaceWalHelper last told logfile_.
  bool wal_helper_beside_ GUARDED_BY(mutex_) = false;
  std::deque<PendingLog> logs_to_sync_ GUARDED_BY(mutex_);  // oldest first
  // The next WAL, made ahead (PrepareNextWal): its file once ready, and
  // whether it is being made. Its number is taken when that starts, so no
  // WAL made after it may be used before it.
  std::unique_ptr<WritableFile> next_wal_file_ GUARDED_BY(mutex_);
  uint64_t next_wal_number_ GUARDED_BY(mutex_) = 0;
  bool wal_preparing_ GUARDED_BY(mutex_) = false;
  // WAL recycling (Options::recycle_log_file_num; 0 under
  // kAbsoluteConsistency). Obsolete WALs kept to be written over, oldest
  // first, by file name.
  const size_t recycle_log_file_num_;
  std::deque<std::string> recycled_logs_ GUARDED_BY(mutex_);
  // Files gone from the directory so far through RemoveObsoleteFiles' own
  // work: WALs written over (NewLogFile renames them) or deleted, and the
  // files handed to the deleter (deleted, or tables kept for recycling
  // under another name). With the names of the last kGoneFileNamesKept of
  // them, oldest first: a directory listing taken without the mutex may
  // name a file that has gone since.
  static constexpr size_t kGoneFileNamesKept = 256;
  uint64_t files_gone_ GUARDED_BY(mutex_) = 0;
  std::deque<std::string> gone_file_names_ GUARDED_BY(mutex_);
  // The first WAL this DBImpl wrote in the recyclable format (0: none yet).
  // Only such WALs are recycled: an older one's records carry no log number,
  // so recovery could not tell them from a new log's.
  uint64_t first_recyclable_log_ GUARDED_BY(mutex_) = 0;
  // Threads holding old WALs' handles without the mutex (a write leader
  // syncing them, a flush closing the ones it made obsolete): while any
  // does, an obsolete WAL may still be open there, so none is recycled.
  int old_logs_unlocked_ GUARDED_BY(mutex_) = 0;
  bool log_dir_sync_needed_ GUARDED_BY(mutex_) = false;
  // Obsolete tables kept to be written over by new ones
  // (Options::recycle_table_bytes); null when that is 0 or read-only.
  // Thread-safe by itself.
  std::unique_ptr<TableFileRecycler> table_recycler_;
  // The leading writer's marks and the flush's, for the jobs that yield
  // their CPU to them when held up (Options::background_yields_to_writers).
  YieldWatch writer_watch_{options_.background_yields_to_writers};
  YieldWatch flush_watch_{options_.background_yields_to_writers};
  std::deque<Writer*> writers_ GUARDED_BY(mutex_);
  WriteBatch tmp_batch_ GUARDED_BY(mutex_);
  std::list<SnapshotImpl*> snapshots_ GUARDED_BY(mutex_);  // oldest first
  std::set<uint64_t> pending_outputs_ GUARDED_BY(mutex_);
  bool bg_flush_scheduled_ GUARDED_BY(mutex_) = false;
  // The oldest immutable memtable while FlushOldestImmutable flushes it
  // (nullptr: none), when that started and how many entries it has; the
  // job reports its progress in flush_progress_ (no mutex). The last
  // flushes' tails, from the last entry read to the install, newest at
  // (next_flush_tail_ - 1) % kFlushTails: the pace expects the longest of
  // them, as a tail varies more than the reading does (a sync, a rate
  // limiter's refill period) and one longer than expected ends in a stop.
  static constexpr int kFlushTails = 4;
  MemTable* flushing_mem_ GUARDED_BY(mutex_) = nullptr;
  uint64_t flush_start_micros_ GUARDED_BY(mutex_) = 0;
  uint64_t flushing_entries_ GUARDED_BY(mutex_) = 0;
  uint64_t flush_tails_micros_[kFlushTails] GUARDED_BY(mutex_) = {};
  int next_flush_tail_ GUARDED_BY(mutex_) = 0;
  // Arena bytes per entry of the memtable last switched out (0: none yet),
  // what PacedWriteBytes charges a paced write per entry.
  double switched_entry_bytes_ GUARDED_BY(mutex_) = 0;
  // The last flush's time to read its entries, per entry (0: none yet).
  double last_flush_micros_per_entry_ GUARDED_BY(mutex_) = 0;
  FlushJobProgress flush_progress_;
  // Set (under the mutex) when a flush waits for a running compaction job
  // to take it; polled by the jobs without the mutex.
  std::atomic<bool> flush_waiting_{false};
  // Compaction jobs running with a pause point (they can take a flush).
  int jobs_taking_flushes_ GUARDED_BY(mutex_) = 0;
  // Fewer CPUs than background threads plus one writer (flush_in_compaction
  // kAuto).
  bool cpus_scarce_ = false;
  int available_cpus_ = 1;  // the CPUs the DB's threads may run on
  int bg_compactions_scheduled_ GUARDED_BY(mutex_) = 0;  // queued or running
  int running_compactions_ GUARDED_BY(mutex_) = 0;       // picked and running
  int manual_compactions_ GUARDED_BY(mutex_) = 0;
  bool flush_requested_ GUARDED_BY(mutex_) = false;  // a Flush is queued
  Status bg_error_ GUARDED_BY(mutex_);
  std::unique_ptr<VersionSet> versions_;
  WriteController write_controller_ GUARDED_BY(mutex_);
  InternalStats internal_stats_ GUARDED_BY(mutex_);
  uint64_t open_micros_ = 0;
  std::vector<std::function<void()>> pending_events_ GUARDED_BY(mutex_);
  std::atomic<bool> has_pending_events_{false};
  int next_job_id_ GUARDED_BY(mutex_) = 1;

  // Obsolete tables (and MANIFESTs) are deleted on a thread of their own,
  // started with the first one: an unlink can wait for the device (a
  // filesystem mounted with discard trims the file's blocks
  // synchronously), and the compaction that made the files obsolete
  // should not wait for that. deleting_ holds the names handed over and
  // not yet deleted, so a later RemoveObsoleteFiles does not hand them
  // over again, and the WALs a RemoveObsoleteFiles is deleting itself or
  // a new WAL is being written over (TakeRecycledLog), so another does
  // not keep or delete them meanwhile (once gone, a stale listing's names
  // for them are dropped: files_gone_).
  std::unique_ptr<ThreadPool> deleter_ GUARDED_BY(mutex_);
  std::set<std::string> deleting_ GUARDED_BY(mutex_);
  bool purge_scheduled_ GUARDED_BY(mutex_) = false;  // see SchedulePurge

  // The stats dump thread (stats_dump_period_sec > 0).
  std::thread stats_thread_;
  Mutex stats_mu_;
  CondVar stats_cv_;
  bool stats_thread_stop_ GUARDED_BY(stats_mu_) = false;
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_DB_IMPL_H_

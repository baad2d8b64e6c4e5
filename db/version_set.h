// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Version and VersionSet: which SSTs make up the database.
//
// A Version is one immutable file set: for each level, the files in it (L0
// newest first, by largest sequence number; levels >= 1 sorted by smallest
// key and non-overlapping). Versions are reference counted, so a reader
// (Get, an iterator, a compaction) pins the file set it started with and
// reads without the DB mutex while newer Versions are installed.
//
// The VersionSet holds the current Version and the list of Versions still
// referenced, the file-number and sequence counters, and the MANIFEST:
// LogAndApply appends a VersionEdit to the MANIFEST (docs/format/manifest.md),
// syncs it, and only then installs the Version the edit makes, so every
// installed Version is durable. Recover rebuilds the state from CURRENT and
// the MANIFEST it names.
//
// Thread safety: Version::Get, AddIterators, the file accessors and
// ApproximateOffsetOf read only immutable state and may run without the DB
// mutex on a referenced Version. Everything else (Ref/Unref, scores,
// LogAndApply, the picker, file numbers except where noted) requires the
// DB mutex.

#ifndef CASCADEDB_DB_VERSION_SET_H_
#define CASCADEDB_DB_VERSION_SET_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cascadedb/env.h"
#include "cascadedb/iterator.h"
#include "cascadedb/options.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "db/dbformat.h"
#include "db/version_edit.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace cascadedb {

namespace log {
class Writer;
}

class Compaction;
class CompactionPicker;
class SeekProbe;
class TableCache;
class VersionSet;

// The sum of the files' sizes.
uint64_t TotalFileSize(const std::vector<FileMetaData*>& files);

// The index of the first file in files whose largest key is >= key (by
// icmp), or files.size() if none. REQUIRES: files sorted by key and
// non-overlapping (a level >= 1).
size_t FindFile(const InternalKeyComparator& icmp,
                const std::vector<FileMetaData*>& files, const Slice& key);

class Version {
 public:
  Version(const Version&) = delete;
  Version& operator=(const Version&) = delete;

  // Reference counting. The last Unref deletes the Version (and the
  // metadata of files no other Version lists) and returns true.
  // REQUIRES: DB mutex held.
  void Ref();
  bool Unref();

  // Looks up key (its user key, as of its sequence): the L0 files that may
  // hold it, newest to oldest, then at most one file per deeper level.
  // Returns OK and sets *value when the newest visible entry is a value;
  // NotFound when it is a deletion or there is none (*found, if not null,
  // is set to true when an entry - value or deletion - was found, false
  // when the key is absent); otherwise the read error or Corruption naming
  // the file. Does not need the DB mutex (the Version must be referenced).
  // If stats is not null, stats->seek_file is set to the first file
  // consulted when a second one had to be consulted too (the lookup the
  // first file cost), else left null.
  struct GetStats {
    FileMetaData* seek_file = nullptr;
    int seek_file_level = -1;
  };
  Status Get(const ReadOptions& options, const LookupKey& key,
             std::string* value, bool* found = nullptr,
             GetStats* stats = nullptr);

  // Charges stats.seek_file one lookup. Returns true when that used up its
  // allowed seeks and it became this Version's file to compact (a
  // compaction may now be needed). REQUIRES: DB mutex held.
  bool UpdateStats(const GetStats& stats);

  // For an iterator's sampled internal key: if two or more files hold the
  // user key's range, charges the first (newest) of them one lookup, as a
  // Get would. Returns UpdateStats's result. REQUIRES: DB mutex held.
  bool RecordReadSample(const Slice& internal_key);

  // The file seek compaction should push down, and its level (nullptr and
  // -1 when none). REQUIRES: DB mutex held.
  FileMetaData* file_to_compact() const { return file_to_compact_; }
  int file_to_compact_level() const { return file_to_compact_level_; }

  // Appends to *iters (each owned by the caller) one iterator per L0 file,
  // newest first, and one concatenating iterator per non-empty deeper
  // level. They must not outlive this Version's reference. If probes is
  // not null, one SeekProbe per iterator added goes to *probes, in the
  // same order: the table's or level's filter, asked about the user key of
  // a seek target (for deferred seeks, table/merging_iterator.h); nothing
  // else may be added to *iters meanwhile. No DB mutex needed.
  void AddIterators(const ReadOptions& options, std::vector<Iterator*>* iters,
                    std::vector<std::unique_ptr<SeekProbe>>* probes = nullptr);

  // An iterator over the files of level >= 1 in order, opening each table
  // on demand (owned by the caller; must not outlive the reference).
  Iterator* NewConcatenatingIterator(const ReadOptions& options,
                                     int level) const;

  // Stores in *inputs the files of level overlapping the user-key range
  // [begin, end] (nullptr = unbounded on that side). For L0 the range grows
  // to cover every file overlapping a file taken, transitively, as a
  // compaction out of L0 must take them all.
  void GetOverlappingInputs(int level, const InternalKey* begin,
                            const InternalKey* end,
                            std::vector<FileMetaData*>* inputs) const;

  // True if a file of level overlaps the user-key range [*smallest,
  // *largest] (nullptr = unbounded on that side).
  bool OverlapInLevel(int level, const Slice* smallest_user_key,
                      const Slice* largest_user_key) const;

  // The level for a flushed memtable's file with the given user-key range:
  // 0 if it overlaps L0, else as deep as level 2 (LevelDB's rule) while it
  // overlaps nothing in the levels it passes, no running compaction writes
  // that range into the level, and the level below holds at most 10 target
  // files' worth of bytes overlapping it. Returns 0 whenever a file not yet
  // installed by LogAndApply overlaps the range. REQUIRES: DB mutex held,
  // this is the current Version, every older memtable's file is installed
  // or queued in LogAndApply, and the caller passes the edit to
  // LogAndApply without releasing the mutex in between (so no compaction
  // can be picked into the chosen range meanwhile).
  int PickLevelForMemTableOutput(const Slice& smallest_user_key,
                                 const Slice& largest_user_key);

  int NumFiles(int level) const {
    return static_cast<int>(files_[level].size());
  }
  uint64_t NumLevelBytes(int level) const {
    return TotalFileSize(files_[level]);
  }
  const std::vector<FileMetaData*>& files(int level) const {
    return files_[level];
  }
  int num_levels() const { return static_cast<int>(files_.size()); }

  // The level's compaction score (see db/compaction_picker.h): >= 1 means
  // the level needs compacting. Files being compacted do not count. Kept
  // up to date by LogAndApply, the picker and Compaction::ReleaseInputs.
  // REQUIRES: DB mutex held.
  double CompactionScore(int level) const { return compaction_score_[level]; }

  // RocksDB's estimate of the bytes compaction must still rewrite to bring
  // every level under its target: when L0 holds trigger files or more, L0's
  // bytes plus L1's; then for each level 1 .. num_levels - 2 whose size
  // (plus what flows in from above) exceeds its target, the excess times
  // (next level bytes / this level bytes + 1). Drives the pending-bytes
  // write stalls. REQUIRES: DB mutex held.
  uint64_t EstimatedPendingCompactionBytes() const {
    return estimated_pending_compaction_bytes_;
  }

  // Recomputes the scores and the estimate (after being_compacted flags
  // changed). REQUIRES: DB mutex held.
  void ComputeCompactionScore();

  // Level by level: score, then each file's number, size and key range.
  std::string DebugString() const;

 private:
  friend class VersionSet;

  explicit Version(VersionSet* vset);
  ~Version();

  VersionSet* const vset_;
  Version* next_;  // in the VersionSet's list of live Versions
  Version* prev_;
  int refs_ = 0;

  // Immutable once installed.
  std::vector<std::vector<FileMetaData*>> files_;

  // ---- guarded by the DB mutex
  std::vector<double> compaction_score_;
  uint64_t estimated_pending_compaction_bytes_ = 0;
  FileMetaData* file_to_compact_ = nullptr;
  int file_to_compact_level_ = -1;
};

class VersionSet {
 public:
  // Borrows options (must outlive the VersionSet; num_levels is fixed from
  // here on), table_cache and icmp. env_options are used for the MANIFEST.
  VersionSet(const std::string& dbname, const Options* options,
             const EnvOptions& env_options, TableCache* table_cache,
             const InternalKeyComparator* icmp);
  VersionSet(const VersionSet&) = delete;
  VersionSet& operator=(const VersionSet&) = delete;
  // REQUIRES: every Version but the current one was released, and no
  // Compaction is alive.
  ~VersionSet();

  // Applies *edit to the current Version, appends it to the MANIFEST and
  // syncs it, then installs the new Version. A new MANIFEST (starting with
  // a snapshot of the whole state, then made live through CURRENT) is
  // written when none is open (the first call after Recover, or after a
  // failed write) or the open one has reached max_manifest_file_size.
  // Fills in the edit's log number (when unset), next file number and last
  // sequence. Calls from several threads are queued and applied in call
  // order. Returns:
  //   Corruption "version edit: ..." if the edit contradicts the current
  //     Version (deletes a file that is not there, adds one twice, makes a
  //     level >= 1 overlap);
  //   the IOError of a failed MANIFEST or CURRENT write or sync.
  // On error nothing is installed, and the next call starts a new MANIFEST.
  // Until then the failed edit may or may not be on disk: the caller must
  // keep the edit's new files, and should treat the error as a background
  // error. REQUIRES: *mu (the DB mutex) held; it is released while
  // waiting for earlier calls and while writing, and held again on return.
  Status LogAndApply(VersionEdit* edit, Mutex* mu) REQUIRES(mu);

  // Reads CURRENT and replays the MANIFEST it names. Returns:
  //   Corruption naming CURRENT when it is empty, lacks its final newline
  //     or names no MANIFEST, or naming the MANIFEST it names when that is
  //     missing;
  //   Corruption "MANIFEST-NNNNNN: <problem> at offset N" for a damaged
  //     record (a torn final record, as a crash mid-append leaves, is
  //     tolerated) or a bad edit, and for a MANIFEST without next file
  //     number, log number or last sequence;
  //   InvalidArgument naming both comparators when the database was made
  //     with another comparator, or when a file sits at a level >=
  //     options.num_levels;
  //   the Env's error for CURRENT itself (NotFound when it is missing).
  // *save_manifest is set to true when the next LogAndApply must start a
  // fresh MANIFEST (always, for now: the old one is never appended to).
  // REQUIRES: called once, before any LogAndApply.
  Status Recover(bool* save_manifest);

  // The current Version (borrowed; Ref it to keep it past the mutex).
  // REQUIRES: DB mutex held.
  Version* current() const { return current_; }

  // The number of the MANIFEST named by CURRENT (0 before Recover or the
  // first LogAndApply). MANIFEST files with smaller numbers are obsolete;
  // larger ones may be in the middle of being written.
  uint64_t ManifestFileNumber() const { return manifest_file_number_; }

  // Allocates a new file number. Thread-safe (atomic).
  uint64_t NewFileNumber() {
    return next_file_number_.fetch_add(1, std::memory_order_relaxed);
  }

  // Returns file number n to the pool if it was the last one allocated
  // (a file that was never created). Thread-safe.
  void ReuseFileNumber(uint64_t n);

  // Makes sure n is never allocated again (a file found on disk).
  // Thread-safe.
  void MarkFileNumberUsed(uint64_t n);

  // The next number NewFileNumber would return. Thread-safe.
  uint64_t NextFileNumber() const {
    return next_file_number_.load(std::memory_order_relaxed);
  }

  // WALs numbered below this one are no longer needed (their data is in
  // SSTs recorded in the MANIFEST). REQUIRES: DB mutex held.
  uint64_t LogNumber() const { return log_number_; }

  // The last sequence number published to readers. Thread-safe: an
  // acquire load pairing with SetLastSequence's release store, so a reader
  // that sees a sequence also sees the memtable entries written before it.
  SequenceNumber LastSequence() const {
    return last_sequence_.load(std::memory_order_acquire);
  }
  // REQUIRES: s >= LastSequence(); one writer at a time.
  void SetLastSequence(SequenceNumber s);

  // Files and bytes at level in the current Version. REQUIRES: DB mutex.
  int NumLevelFiles(int level) const;
  uint64_t NumLevelBytes(int level) const;

  // Adds the numbers of the files of every live Version to *live.
  // REQUIRES: DB mutex held.
  void AddLiveFiles(std::set<uint64_t>* live) const;

  // The approximate byte offset of key in the database as of v (sum of the
  // files before it plus the offset inside the files holding it), for
  // GetApproximateSizes. Unreadable files count as 0 bytes. No DB mutex
  // needed (v must be referenced).
  uint64_t ApproximateOffsetOf(Version* v, const InternalKey& key);

  // "files[ 3 1 0 0 0 0 0 ]". REQUIRES: DB mutex held.
  std::string LevelSummary() const;

  // The picker (owned by this VersionSet).
  CompactionPicker* picker() { return picker_.get(); }
  TableCache* table_cache() const { return table_cache_; }
  const InternalKeyComparator* icmp() const { return icmp_; }
  const Options* options() const { return options_; }
  int num_levels() const { return num_levels_; }

  // Returns an iterator (owned by the caller; c must outlive it) merging
  // all inputs of c: each L0 file on its own, a concatenating iterator for
  // the files of any other level. Blocks are checksummed and not added to
  // the block cache; tables read ahead (for_compaction). Without
  // include_output_level, inputs(1) is left out (a caller reading the
  // output level's files itself, block by block).
  Iterator* MakeInputIterator(Compaction* c, bool include_output_level = true);

  // The compact cursor of level: where the next size-triggered compaction
  // of level starts (an encoded internal key; empty = the level's start).
  // REQUIRES: DB mutex held.
  const std::string& CompactCursor(int level) const {
    return compact_cursors_[level];
  }
  void SetCompactCursor(int level, const Slice& encoded_internal_key) {
    compact_cursors_[level].assign(encoded_internal_key.data(),
                                   encoded_internal_key.size());
  }

  // True if an edit queued in LogAndApply but not yet installed adds a file
  // at level (or at any level when level < 0) overlapping the user-key
  // range [smallest_user_key, largest_user_key]. REQUIRES: DB mutex held.
  bool PendingEditsOverlap(int level, const Slice& smallest_user_key,
                           const Slice& largest_user_key) const;

  // Bytes of the open MANIFEST (0 if none). REQUIRES: DB mutex held.
  uint64_t ManifestFileSize() const { return manifest_file_size_; }

 private:
  class Builder;
  struct QueuedEdit;

  // Installs v as the current Version. REQUIRES: DB mutex held (or, during
  // Recover, no other thread).
  void AppendVersion(Version* v);

  // LogAndApply's work for the front of the queue.
  Status ApplyAndLog(VersionEdit* edit, Mutex* mu) REQUIRES(mu);

  // Encodes the whole current state as one edit (a new MANIFEST's first
  // record).
  void EncodeSnapshot(std::string* record) const;

  // Reads CURRENT into *manifest_name ("MANIFEST-000005").
  Status ReadCurrentFile(std::string* manifest_name, uint64_t* number);

  Env* const env_;
  const std::string dbname_;
  const Options* const options_;
  const EnvOptions env_options_;
  TableCache* const table_cache_;
  const InternalKeyComparator* const icmp_;
  const int num_levels_;
  const std::unique_ptr<CompactionPicker> picker_;

  // Atomics: file numbers are drawn by jobs without the mutex; the last
  // sequence is published by the write leader (release) and read by
  // readers (acquire). The leader stores it after every write group, so it
  // has a cache line of its own: beside the fields above, every store made
  // a compaction's next read of icmp_ a cache miss (it reads icmp() for each
  // entry).
  std::atomic<uint64_t> next_file_number_{2};
  alignas(kCacheLineSize) std::atomic<SequenceNumber> last_sequence_{0};

  // ---- guarded by the DB mutex
  alignas(kCacheLineSize) uint64_t manifest_file_number_ = 0;
  uint64_t manifest_file_size_ = 0;
  uint64_t log_number_ = 0;
  std::vector<std::string> compact_cursors_;  // per level
  Version* dummy_versions_;  // head of the circular list of live Versions
  Version* current_ = nullptr;
  std::deque<QueuedEdit*> queue_;  // LogAndApply callers, in call order

  // ---- owned by the front of queue_ (written with the mutex released)
  std::unique_ptr<WritableFile> manifest_file_;
  std::unique_ptr<log::Writer> manifest_log_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_VERSION_SET_H_

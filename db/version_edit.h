// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// VersionEdit: one change to the set of live files, as logged in the
// MANIFEST (docs/format/manifest.md). Replaying every edit of a MANIFEST in
// order rebuilds the current Version: which SSTs sit at which level, the
// oldest WAL still needed, the next file number and the last sequence.
//
// Thread safety: thread-compatible (a value type).

#ifndef CASCADEDB_DB_VERSION_EDIT_H_
#define CASCADEDB_DB_VERSION_EDIT_H_

#include <atomic>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cascadedb/cache.h"
#include "cascadedb/status.h"
#include "db/dbformat.h"

namespace cascadedb {

class Table;

// An open table held for as long as the FileMetaData naming it lives, so
// that lookups reach it without the table cache's hash and locks
// (TableCache pins tables there when every table may stay open). The pin is
// one reference into the cache, released once, by its owner: a copy starts
// unpinned, and assigning to a PinnedTable releases what it held.
//
// Thread safety: get and Set may be called concurrently (the first Set
// wins); destruction and assignment need exclusive access.
class PinnedTable {
 public:
  PinnedTable() = default;
  PinnedTable(const PinnedTable& /*other*/) noexcept {}
  PinnedTable& operator=(const PinnedTable& other) noexcept {
    if (this != &other) Reset();
    return *this;
  }
  ~PinnedTable() { Reset(); }

  // The pinned table, or null.
  Table* get() const {
    const Pin* pin = pin_.load(std::memory_order_acquire);
    return pin != nullptr ? pin->table : nullptr;
  }

  // Keeps handle (from cache, holding table) until this is destroyed and
  // returns table; if another thread pinned first, releases handle and
  // returns the table pinned already.
  Table* Set(Cache* cache, Cache::Handle* handle, Table* table);

 private:
  struct Pin {
    Cache* cache;
    Cache::Handle* handle;
    Table* table;
  };

  void Reset();

  std::atomic<Pin*> pin_{nullptr};
};

// What the engine knows about one SST.
struct FileMetaData {
  uint64_t number = 0;
  uint64_t file_size = 0;  // bytes on disk
  InternalKey smallest;    // smallest internal key in the file
  InternalKey largest;     // largest internal key in the file
  SequenceNumber smallest_seqno = kMaxSequenceNumber;
  SequenceNumber largest_seqno = 0;

  // In memory only, never persisted.
  int refs = 0;                  // versions that list this file
  bool being_compacted = false;  // an input of a running compaction
  // Lookups this file may still cost other levels before it is compacted
  // down (seek compaction, see Version::UpdateStats). Guarded by the DB
  // mutex.
  int allowed_seeks = 0;
  // The open table, once a lookup has pinned it (TableCache::Get).
  mutable PinnedTable table;
};

class VersionEdit {
 public:
  VersionEdit() = default;

  void Clear() { *this = VersionEdit(); }

  void SetComparatorName(const Slice& name) {
    has_comparator_ = true;
    comparator_ = name.ToString();
  }
  // WALs numbered below log_number are flushed and no longer needed.
  void SetLogNumber(uint64_t num) {
    has_log_number_ = true;
    log_number_ = num;
  }
  void SetNextFile(uint64_t num) {
    has_next_file_number_ = true;
    next_file_number_ = num;
  }
  void SetLastSequence(SequenceNumber seq) {
    has_last_sequence_ = true;
    last_sequence_ = seq;
  }
  // Where the next compaction of level starts (round-robin input choice).
  void SetCompactCursor(int level, const InternalKey& key) {
    compact_cursors_.emplace_back(level, key);
  }

  // Adds the file f at level. REQUIRES: f.smallest and f.largest are set.
  void AddFile(int level, const FileMetaData& f) {
    FileMetaData copy = f;
    copy.refs = 0;
    copy.being_compacted = false;
    new_files_.emplace_back(level, copy);
  }

  void RemoveFile(int level, uint64_t file_number) {
    deleted_files_.insert(std::make_pair(level, file_number));
  }

  // Appends the encoding to *dst.
  void EncodeTo(std::string* dst) const;

  // Replaces the contents with those decoded from src. Returns Corruption
  // naming the field ("version edit: bad new-file entry") for malformed
  // input, and for an unknown tag that is not marked safe to ignore.
  Status DecodeFrom(const Slice& src);

  // A multi-line description for ldb manifest_dump and logs.
  std::string DebugString() const;

  bool has_comparator() const { return has_comparator_; }
  const std::string& comparator() const { return comparator_; }
  bool has_log_number() const { return has_log_number_; }
  uint64_t log_number() const { return log_number_; }
  bool has_next_file_number() const { return has_next_file_number_; }
  uint64_t next_file_number() const { return next_file_number_; }
  bool has_last_sequence() const { return has_last_sequence_; }
  SequenceNumber last_sequence() const { return last_sequence_; }

  using DeletedFileSet = std::set<std::pair<int, uint64_t>>;
  const DeletedFileSet& deleted_files() const { return deleted_files_; }
  const std::vector<std::pair<int, FileMetaData>>& new_files() const {
    return new_files_;
  }
  const std::vector<std::pair<int, InternalKey>>& compact_cursors() const {
    return compact_cursors_;
  }

 private:
  std::string comparator_;
  uint64_t log_number_ = 0;
  uint64_t next_file_number_ = 0;
  SequenceNumber last_sequence_ = 0;
  bool has_comparator_ = false;
  bool has_log_number_ = false;
  bool has_next_file_number_ = false;
  bool has_last_sequence_ = false;

  std::vector<std::pair<int, InternalKey>> compact_cursors_;
  DeletedFileSet deleted_files_;
  std::vector<std::pair<int, FileMetaData>> new_files_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_VERSION_EDIT_H_

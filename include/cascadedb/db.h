// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// DB: a persistent, ordered map from byte-string keys to byte-string values,
// stored as an LSM tree in one directory. Open one with DB::Open; delete the
// DB object (or call Close) to close it.
//
// Every write goes to the write-ahead log (unless WriteOptions::disableWAL)
// and the active memtable; full memtables are flushed to level-0 SST files
// and background compactions merge files down the levels. A write that
// returned OK with WriteOptions::sync survives a crash or power loss; one
// without sync survives a process crash.
//
// Thread safety: thread-safe. Any number of threads may call any method of
// one DB at once, without external locking. Iterators and snapshots are
// used by one thread at a time, and must be released before the DB is
// deleted.

#ifndef CASCADEDB_INCLUDE_CASCADEDB_DB_H_
#define CASCADEDB_INCLUDE_CASCADEDB_DB_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/iterator.h"
#include "cascadedb/options.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "cascadedb/write_batch.h"

namespace cascadedb {

// A consistent read-only view of the DB as of one moment. Obtained with
// DB::GetSnapshot, released with DB::ReleaseSnapshot. While a snapshot is
// held, compaction keeps the versions of keys it can see.
//
// Thread safety: thread-safe (immutable).
class Snapshot {
 public:
  // The sequence number of the last write the snapshot sees.
  virtual uint64_t GetSequenceNumber() const = 0;

 protected:
  virtual ~Snapshot() = default;
};

// A key range [start, limit).
struct Range {
  Slice start;
  Slice limit;
  Range() = default;
  Range(const Slice& s, const Slice& l) : start(s), limit(l) {}
};

// What the engine knows about one live SST (GetLiveFilesMetaData).
struct LiveFileMetaData {
  std::string name;  // file name without the directory, e.g. "000012.sst"
  int level = 0;
  uint64_t file_number = 0;
  uint64_t size = 0;         // bytes on disk
  std::string smallest_key;  // smallest user key
  std::string largest_key;   // largest user key
  uint64_t smallest_seqno = 0;
  uint64_t largest_seqno = 0;
  bool being_compacted = false;
};

class DB {
 public:
  // Opens the database in directory name. On success stores a new DB in
  // *dbptr (owned by the caller) and returns OK; otherwise stores nullptr
  // and returns the error:
  //   InvalidArgument: bad options (every bad option named at once), the DB
  //     is missing and !create_if_missing, it exists and error_if_exists, or
  //     it was made with another comparator;
  //   IOError: the directory cannot be created;
  //   Busy: the LOCK is held by another process or by another DB object in
  //     this process ("lock .../LOCK: already held by process 1234");
  //   Corruption: the MANIFEST or a WAL is damaged beyond what
  //     options.wal_recovery_mode forgives, or a file the MANIFEST names is
  //     missing (the message names the file).
  // A database exists when its directory holds a CURRENT file.
  static Status Open(const Options& options, const std::string& name,
                     DB** dbptr);
  static Status Open(const Options& options, const std::string& name,
                     std::unique_ptr<DB>* dbptr);

  // Opens the database for reading only: no recovery writes, no flush, no
  // compaction, no new files; the directory is left byte-for-byte as it
  // was. Writes return NotSupported. Entries in the WALs are readable (they
  // are replayed into memory only). The LOCK is not taken, so this works
  // while another process has the DB open (seeing its state as of Open).
  static Status OpenForReadOnly(const Options& options, const std::string& name,
                                std::unique_ptr<DB>* dbptr);

  DB() = default;
  DB(const DB&) = delete;
  DB& operator=(const DB&) = delete;

  // Closes the DB (as Close does) and frees it. REQUIRES: every iterator
  // and snapshot was released.
  virtual ~DB() = default;

  // Stops background work, waits for running jobs, syncs the WAL and closes
  // the files. Returns the first background error seen, if any. Calling it
  // twice is harmless; afterwards every call returns Aborted("DB closed").
  virtual Status Close() = 0;

  // Sets key to value. Returns OK once the write is in the WAL (synced with
  // options.sync) and visible to readers. Errors: InvalidArgument for a key
  // or value too large, Incomplete("write stall") when options.no_slowdown
  // and writes are stalled, the background error after a failed flush or
  // compaction, IOError from the WAL.
  virtual Status Put(const WriteOptions& options, const Slice& key,
                     const Slice& value) = 0;

  // Removes key (OK also when it does not exist). Errors as for Put.
  virtual Status Delete(const WriteOptions& options, const Slice& key) = 0;

  // Applies every update in the batch atomically: readers and a crash see
  // all of them or none. Errors as for Put. updates is not modified.
  virtual Status Write(const WriteOptions& options, WriteBatch* updates) = 0;

  // Stores key's value in *value and returns OK; NotFound if key is absent
  // or deleted; Corruption/IOError from damaged or unreadable files (the
  // message names the file).
  virtual Status Get(const ReadOptions& options, const Slice& key,
                     std::string* value) = 0;

  // Returns an iterator over the whole DB as of now (or
  // options.snapshot), not yet positioned. Owned by the caller; delete it
  // before the DB. Errors are reported through its status().
  virtual Iterator* NewIterator(const ReadOptions& options) = 0;

  // Returns a snapshot of the current state. Release it with
  // ReleaseSnapshot before deleting the DB.
  virtual const Snapshot* GetSnapshot() = 0;
  virtual void ReleaseSnapshot(const Snapshot* snapshot) = 0;

  // Text properties, e.g. "cascadedb.stats", "cascadedb.levelstats",
  // "cascadedb.sstables", "cascadedb.stall-stats",
  // "cascadedb.num-files-at-level<N>" (docs/properties.md lists them all).
  // Returns false for an unknown property.
  virtual bool GetProperty(const Slice& property, std::string* value) = 0;

  // Numeric properties, e.g. "cascadedb.num-immutable-mem-table",
  // "cascadedb.estimate-pending-compaction-bytes". False if unknown or not
  // numeric.
  virtual bool GetIntProperty(const Slice& property, uint64_t* value) = 0;

  // Properties made of named figures, e.g. "cascadedb.stall-stats",
  // "cascadedb.write-amplification". False if unknown or not a map.
  virtual bool GetMapProperty(const Slice& property,
                              std::map<std::string, std::string>* value) = 0;

  // For each of the n ranges, stores in sizes[i] the approximate bytes of
  // SST data in [start, limit) (memtables are not counted).
  virtual Status GetApproximateSizes(const Range* ranges, int n,
                                     uint64_t* sizes) = 0;

  // Compacts the files overlapping [*begin, *end] (nullptr = unbounded)
  // down the levels until the range sits in one level, dropping deleted
  // and overwritten data. Flushes the memtable first. Blocks until done,
  // and until the files its compactions made obsolete are deleted, also
  // when one of them fails.
  virtual Status CompactRange(const CompactRangeOptions& options,
                              const Slice* begin, const Slice* end) = 0;

  // Flushes the active memtable to an SST. With options.wait, returns once
  // every immutable memtable is in an SST; the WALs they made obsolete may
  // still be being closed (WaitForCompact waits for that too).
  virtual Status Flush(const FlushOptions& options) = 0;

  // Waits until no flush or compaction is running or needed, and the next
  // WAL, which the DB makes ahead of the memtable switch that needs it, is
  // ready. Returns the background error, if any.
  virtual Status WaitForCompact() = 0;

  // Syncs the WAL: every write acknowledged so far becomes durable.
  virtual Status SyncWAL() = 0;

  // Stores one entry per live SST.
  virtual void GetLiveFilesMetaData(std::vector<LiveFileMetaData>* files) = 0;

  // The newest sequence number given to a write.
  virtual uint64_t GetLatestSequenceNumber() const = 0;

  // The directory passed to Open.
  virtual const std::string& GetName() const = 0;
};

// Deletes the database's files and its directory (if then empty). OK if the
// database does not exist. IOError if it is open (LOCK held).
Status DestroyDB(const std::string& name, const Options& options);

// Rebuilds a MANIFEST from the SSTs and WALs in the directory when the
// MANIFEST or CURRENT is lost or damaged. Keeps every readable entry;
// damaged SSTs are moved to lost/. Some deleted data may reappear.
Status RepairDB(const std::string& name, const Options& options);

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_DB_H_

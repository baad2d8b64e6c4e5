// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// TableFileWriter: writes one SST for a flush or a compaction. It creates
// the file NNNNNN.sst, feeds a TableBuilder, and on Finish syncs and closes
// the file and fills in the FileMetaData that goes into the VersionEdit.
// Background output is charged to Options::rate_limiter (when set) at the
// priority the job asks for, one append at a time, and counted in bytes so
// the jobs can report what they wrote. Between appends the job may yield
// its CPU to a held-up write or flush (SetYieldWatches).
//
// Thread safety: not thread-safe (one job, one thread).

#ifndef CASCADEDB_DB_TABLE_FILE_WRITER_H_
#define CASCADEDB_DB_TABLE_FILE_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "cascadedb/env.h"
#include "cascadedb/rate_limiter.h"
#include "cascadedb/status.h"
#include "db/version_edit.h"
#include "db/yield_watch.h"
#include "table/table_builder.h"
#include "table/table_options.h"

namespace cascadedb {

class TableFileRecycler;

class TableFileWriter {
 public:
  // Borrows env and rate_limiter (may be null); they must outlive the
  // writer. Nothing is created until Open.
  TableFileWriter(Env* env, const EnvOptions& env_options,
                  RateLimiter* rate_limiter, RateLimiter::IOPriority priority);
  TableFileWriter(const TableFileWriter&) = delete;
  TableFileWriter& operator=(const TableFileWriter&) = delete;
  // Abandons (and deletes) a file that was opened but not finished.
  ~TableFileWriter();

  // Open creates its files through recycler (borrowed; may be null, the
  // default: fresh files), which may write them over obsolete tables.
  void SetRecycler(TableFileRecycler* recycler) { recycler_ = recycler; }

  // The watches the next Open's file marks and yields to (YieldWatches;
  // none by default).
  void SetYieldWatches(const YieldWatches& watches) {
    yield_watches_ = watches;
  }

  // Creates file number in dbname and starts a table with options.
  // Errors: IOError naming the file. REQUIRES: options.key_format is
  // InternalKeyFormat::Get() (the metadata's sequence range comes from it).
  Status Open(const std::string& dbname, uint64_t number,
              const TableOptions& options);

  // Adds an internal key and its value; keys must come in order. Tracks the
  // smallest/largest key and sequence numbers. A plain value (kTypeValue)
  // of at least options.value_compression_min_size bytes is compressed on
  // its own and stored as kTypeValueCompressed, when that saves enough
  // (db/value_compression.h); a compressed one is stored as it is.
  // REQUIRES: Open succeeded.
  void Add(const Slice& internal_key, const Slice& value);

  // Adds a block of another table whole (TableBuilder::AddStoredBlock),
  // tracking the keys as Add does. REQUIRES: Open succeeded.
  void AddStoredBlock(const Slice& stored, Iterator* entries);

  // Writes the rest of the table, syncs and closes the file, syncs the
  // directory (so the file survives a power loss), and stores the
  // file's number, size, key range and sequence range in *meta. On error the
  // file is deleted.
  Status Finish(FileMetaData* meta);

  // Like Finish, but leaves the file open and unsynced in *file, its data
  // on its way to the device (WritableFile::StartWriteback), so the caller
  // can go on working while the device writes. The caller must Sync and
  // Close *file and sync the directory before anything names the file;
  // until then it is not durable. On error the file is deleted.
  Status FinishUnsynced(FileMetaData* meta,
                        std::unique_ptr<WritableFile>* file);

  // Stops and deletes the file (e.g. after a failed input read).
  void Abandon();

  bool is_open() const { return builder_ != nullptr; }
  uint64_t NumEntries() const;
  // Bytes written so far (final file size after Finish).
  uint64_t FileSize() const;
  const TableProperties& properties() const;
  const std::string& file_name() const { return file_name_; }
  // The last Open wrote over a recycled file.
  bool reused_file() const { return reused_file_; }

 private:
  class JobFile;

  void Close();
  // Adds the entry as stored, first recording the smallest key.
  void AddToBuilder(const Slice& internal_key, const Slice& value,
                    bool value_compressed);

  Env* const env_;
  const EnvOptions env_options_;
  RateLimiter* const rate_limiter_;
  const RateLimiter::IOPriority priority_;
  TableFileRecycler* recycler_ = nullptr;
  YieldWatches yield_watches_;
  bool reused_file_ = false;
  std::string dbname_;
  std::string file_name_;
  std::unique_ptr<WritableFile> file_;
  std::unique_ptr<TableBuilder> builder_;
  FileMetaData meta_;
  TableProperties last_properties_;  // the builder's, kept after Finish
  CompressionType value_compression_ = kNoCompression;  // from Open's options
  int value_compression_level_ = 0;
  size_t value_compression_min_size_ = 0;  // 0: values stay as they come
  std::string key_scratch_;                // a key retyped kTypeValueCompressed
  std::string value_scratch_;              // its compressed value
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_TABLE_FILE_WRITER_H_

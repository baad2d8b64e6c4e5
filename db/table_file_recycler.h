// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// TableFileRecycler: obsolete table files kept to be written over by new
// tables (Options::recycle_table_bytes), as recycled WALs are. A new
// table written over an old file finds its disk blocks allocated and its
// pages in the page cache, so the kernel neither allocates, charges and
// later frees a page for every 4 KiB written, nor allocates and discards
// the blocks (docs/design/20261127-table-file-recycling.md).
//
// A kept file is renamed from NNNNNN.sst to NNNNNN.recycle: no longer a
// table, so Repair never takes its old data back, and the next Open deletes
// it if it is still there. A new table takes the oldest kept file through
// Env::ReuseWritableFile, opened with EnvOptions::truncate_on_sync so its
// old bytes past the new table's end are cut before the table is synced.
//
// Thread safety: thread-safe (an internal mutex; the renames are made under
// it, so a file is never both kept and being written over).

#ifndef CASCADEDB_DB_TABLE_FILE_RECYCLER_H_
#define CASCADEDB_DB_TABLE_FILE_RECYCLER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/env.h"
#include "cascadedb/status.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace cascadedb {

class TableFileRecycler {
 public:
  // Keeps files of the database in dbname, up to capacity_bytes in all.
  // env is borrowed and must outlive the recycler.
  TableFileRecycler(Env* env, std::string dbname, uint64_t capacity_bytes);
  TableFileRecycler(const TableFileRecycler&) = delete;
  TableFileRecycler& operator=(const TableFileRecycler&) = delete;

  // Table number is obsolete and no reader has it open (no Version names it
  // and the table cache has closed it). Renames it to NNNNNN.recycle and
  // keeps it, if its bytes fit beside the kept ones, no other directory
  // entry links to it (Env::NumFileLinks says 1) and Close has not been
  // called. Returns false when it is not kept; *s then holds the error of
  // the size lookup or the rename, if that was the reason (the caller
  // deletes the table either way).
  bool Keep(uint64_t number, Status* s);

  // Creates the table file fname (a full path), written over the oldest
  // kept file if there is one, else a fresh file; *reused says which. If
  // writing over a kept file fails, a fresh file is created instead (the
  // kept file, if it was not renamed, is deleted at the next Open).
  // Errors: those of Env::NewWritableFile.
  Status NewTableFile(const std::string& fname, const EnvOptions& options,
                      std::unique_ptr<WritableFile>* result, bool* reused);

  // Whether NNNNNN.recycle is a kept file (a file of that name that is not
  // is a leftover: obsolete).
  bool IsKept(uint64_t number) const;

  // Stops keeping files and returns the paths of those kept, for the
  // caller to delete. Keep refuses and NewTableFile creates fresh files
  // from then on.
  std::vector<std::string> Close();

  size_t NumKept() const;
  uint64_t KeptBytes() const;

 private:
  struct Kept {
    uint64_t number;
    uint64_t bytes;
  };

  Env* const env_;
  const std::string dbname_;
  const uint64_t capacity_bytes_;
  mutable Mutex mu_;
  std::deque<Kept> kept_ GUARDED_BY(mu_);  // oldest first
  uint64_t kept_bytes_ GUARDED_BY(mu_) = 0;
  bool closed_ GUARDED_BY(mu_) = false;
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_TABLE_FILE_RECYCLER_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The names of the files in a database directory (DESIGN.md): NNNNNN.log
// (WAL), NNNNNN.sst (table), MANIFEST-NNNNNN, CURRENT, LOCK, LOG, LOG.old,
// OPTIONS-NNNNNN, NNNNNN.dbtmp (a temporary file, renamed into place) and
// NNNNNN.recycle (obsolete table NNNNNN, kept to be written over by a new
// table: Options::recycle_table_bytes), plus SetCurrentFile, which points
// CURRENT at a MANIFEST atomically.
//
// Thread safety: thread-safe (pure functions; SetCurrentFile only touches
// the files it names).

#ifndef CASCADEDB_DB_FILENAME_H_
#define CASCADEDB_DB_FILENAME_H_

#include <cstdint>
#include <string>

#include "cascadedb/slice.h"
#include "cascadedb/status.h"

namespace cascadedb {

class Env;

enum class FileType {
  kWalFile,
  kTableFile,
  kManifestFile,
  kCurrentFile,
  kLockFile,
  kInfoLogFile,  // LOG or LOG.old
  kOptionsFile,
  kTempFile,
  kRecycledTableFile,
};

// "<dbname>/000012.log" and so on; numbers are zero-padded to six digits
// and grow wider when they need to.
std::string WalFileName(const std::string& dbname, uint64_t number);
std::string TableFileName(const std::string& dbname, uint64_t number);
std::string ManifestFileName(const std::string& dbname, uint64_t number);
std::string OptionsFileName(const std::string& dbname, uint64_t number);
std::string TempFileName(const std::string& dbname, uint64_t number);
std::string RecycledTableFileName(const std::string& dbname, uint64_t number);
std::string CurrentFileName(const std::string& dbname);
std::string LockFileName(const std::string& dbname);
std::string InfoLogFileName(const std::string& dbname);
std::string OldInfoLogFileName(const std::string& dbname);

// The file name without the directory: "000012.sst".
std::string TableFileBaseName(uint64_t number);

// path without its directory: "db/000012.log" -> "000012.log".
std::string BaseName(const std::string& path);

// Parses a file name (no directory). Returns true and sets *number (0 for
// files without one) and *type if it is one of ours.
bool ParseFileName(const Slice& filename, uint64_t* number, FileType* type);

// Makes CURRENT name MANIFEST-<manifest_number>: writes a temp file, syncs
// it, renames it over CURRENT, then syncs the directory, so a crash leaves
// either the old or the new CURRENT, never a torn one.
Status SetCurrentFile(Env* env, const std::string& dbname,
                      uint64_t manifest_number);

}  // namespace cascadedb

#endif  // CASCADEDB_DB_FILENAME_H_

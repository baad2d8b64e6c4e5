// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Repairer: rebuilds a database's MANIFEST from the files in its directory
// when CURRENT or the MANIFEST is lost or damaged (RepairDB in
// include/cascadedb/db.h). Like LevelDB's repairer:
//
//   1. Takes the LOCK, so an open DB is never repaired under its feet.
//   2. Converts every WAL into an L0 SST: its batches are replayed into a
//      MemTable, skipping (and logging) damaged records, and the MemTable is
//      written by a FlushJob. The WAL then moves to lost/.
//   3. Scans every SST through the TableCache, checksums on, to learn its
//      key range and sequence range. A table that cannot be opened or read,
//      holds a malformed internal key or keys out of order, or is empty
//      moves to lost/.
//   4. Writes a fresh MANIFEST (numbered above every file seen) holding the
//      comparator name, next file number, last sequence (the largest seen)
//      and every good table at level 0, points CURRENT at it, and moves the
//      old MANIFESTs to lost/.
//
// Level 0 is searched newest first, by largest sequence, stopping at the
// first file holding the key. That is only right when tables whose key
// ranges overlap have disjoint sequence ranges, which tables of different
// levels (compaction outputs) need not have. When any two overlapping
// tables' sequence ranges intersect, the repairer therefore merges every
// good table into one sorted run of new tables, keeping the newest entry of
// each key, and places that run on the last level; the tables it replaces
// are deleted once CURRENT names the new MANIFEST.
//
// What was kept, converted, rewritten and lost goes to the info LOG
// (Options::info_log, or a fresh LOG file in the directory). Files are
// moved to lost/, never deleted, except tables whose every entry the
// rewritten run holds.
//
// Thread safety: not thread-safe (one repair, one thread). The LOCK keeps
// other processes and DB objects out of the directory meanwhile.

#ifndef CASCADEDB_DB_REPAIR_H_
#define CASCADEDB_DB_REPAIR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/env.h"
#include "cascadedb/filter_policy.h"
#include "cascadedb/options.h"
#include "cascadedb/status.h"
#include "db/dbformat.h"
#include "db/version_edit.h"
#include "table/table_options.h"

namespace cascadedb {

class TableCache;

class Repairer {
 public:
  // Repairs the database in dbname. options is copied; its comparator, env
  // and info_log are used (defaults as in DB::Open). If report is not null,
  // every line written to the info LOG is also written to it (ldb repair
  // prints them); it is borrowed and must outlive the Repairer.
  Repairer(const std::string& dbname, const Options& options,
           Logger* report = nullptr);
  Repairer(const Repairer&) = delete;
  Repairer& operator=(const Repairer&) = delete;
  ~Repairer();

  // Runs the repair (see the file comment). Call once. Returns:
  //   InvalidArgument: bad options;
  //   NotFound: dbname does not exist, or holds no database file (no
  //     MANIFEST, SST or WAL);
  //   Busy: the LOCK is held (the DB is open);
  //   IOError/Corruption: writing a table, the MANIFEST or CURRENT failed
  //     (the message names the file). Damaged input files are not errors:
  //     they are logged and moved to lost/.
  Status Run();

 private:
  // A good table found by ScanTable.
  struct TableInfo {
    FileMetaData meta;
    uint64_t entries = 0;
  };

  // Checks the options and the directory, takes the LOCK, opens the LOG.
  Status Start();
  Status FindFiles();
  void ConvertLogFilesToTables();
  // Replays WAL log_number into a MemTable and writes it as a new table
  // (added to table_numbers_).
  Status ConvertLogToTable(uint64_t log_number);
  void ExtractMetaData();
  // Reads table number completely; fills in *info, or returns why the
  // table cannot be kept.
  Status ScanTable(uint64_t number, TableInfo* info);
  // True if two tables with overlapping user-key ranges have intersecting
  // sequence ranges (see the file comment).
  bool NeedsRewrite() const;
  // Merges every table of tables_ into a sorted run of new tables at the
  // last level; replaces tables_ with them and remembers the old ones in
  // replaced_tables_.
  Status RewriteTables();
  Status WriteDescriptor();
  // Moves fname (a file of the directory) to lost/, logging why.
  void ArchiveFile(const std::string& fname, const std::string& why);
  TableOptions TableOptionsForOutput() const;

  const std::string dbname_;
  Options options_;
  Env* env_;
  const InternalKeyComparator icmp_;
  std::unique_ptr<const FilterPolicy> owned_filter_policy_;
  TableOptions table_options_;
  std::unique_ptr<TableCache> table_cache_;
  Logger* const report_;
  std::shared_ptr<Logger> info_log_;  // the LOG, teed to report_ if set
  std::unique_ptr<FileLock> db_lock_;

  std::vector<std::string> manifests_;  // names, e.g. "MANIFEST-000005"
  std::vector<uint64_t> table_numbers_;
  std::vector<uint64_t> logs_;
  std::vector<TableInfo> tables_;  // good tables
  int output_level_ = 0;           // level of tables_ in the new MANIFEST
  std::vector<uint64_t> replaced_tables_;
  uint64_t next_file_number_ = 1;
  SequenceNumber max_sequence_ = 0;
  int lost_tables_ = 0;
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_REPAIR_H_

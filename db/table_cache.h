// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// TableCache: the open SSTs of one database. Opening a table reads and
// checks its footer, properties, index and filter blocks, so tables are kept
// open in an LRU cache (util/cache.cc) keyed by file number, with a capacity
// counted in tables (Options::max_open_files). Readers pin a table while
// they use it; an evicted table that is still pinned stays open until its
// last user lets go. Failed opens are not cached, so a transient error does
// not stick. When every table may stay open (kAllTables), point lookups
// also pin each table in the FileMetaData that names it
// (FileMetaData::table): later lookups skip the cache's hash and shard
// lock, and the table stays open until no Version lists the file.
//
// Thread safety: thread-safe.

#ifndef CASCADEDB_DB_TABLE_CACHE_H_
#define CASCADEDB_DB_TABLE_CACHE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "cascadedb/cache.h"
#include "cascadedb/env.h"
#include "cascadedb/iterator.h"
#include "cascadedb/options.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "db/version_edit.h"
#include "table/table.h"
#include "table/table_options.h"

namespace cascadedb {

class TableCache {
 public:
  // entries at or above this keep every table open (max_open_files = -1),
  // and lookups pin tables in their FileMetaData.
  static constexpr int kAllTables = 1 << 20;

  // Tables of the database in dbname, opened through env with env_options.
  // table_options is copied; its pointers (comparator = the
  // InternalKeyComparator, key_format = InternalKeyFormat::Get(),
  // filter_policy, block_cache) are borrowed and must outlive the cache.
  // entries: how many tables stay open at most (max_open_files - 10, or
  // kAllTables for "all of them"); at least 1 is used.
  TableCache(const std::string& dbname, Env* env, const EnvOptions& env_options,
             const TableOptions& table_options, int entries);
  TableCache(const TableCache&) = delete;
  TableCache& operator=(const TableCache&) = delete;
  // REQUIRES: no iterator, handle or table from this cache is still in use.
  ~TableCache();

  // Returns a new iterator (owned by the caller) over the entries of table
  // file_number, whose size is file_size. If tableptr is not null, *tableptr
  // is set to the Table (borrowed, valid while the iterator lives) or to
  // nullptr on error. for_compaction passes through to Table::NewIterator
  // (readahead for long scans). Errors give an error iterator whose status
  // names the file ("<dbname>/000012.sst: ..." when the file cannot be
  // opened, "000012.sst: ..." for bad contents).
  Iterator* NewIterator(const ReadOptions& options, uint64_t file_number,
                        uint64_t file_size, Table** tableptr = nullptr,
                        bool for_compaction = false);

  // NewIterator over table file, which may be pinned in file.table (see
  // above): the iterator must then not outlive file.
  Iterator* NewIterator(const ReadOptions& options, const FileMetaData& file,
                        Table** tableptr = nullptr,
                        bool for_compaction = false);

  // Looks up internal_key in table file like Table::InternalGet: calls
  // handle_result(arg, found_key, found_value) for the first entry >=
  // internal_key in the block that would hold it (if any). Returns OK, or
  // the error opening or reading the file (naming it). May pin the table
  // in file.table (see above): file must be one that a Version lists, or
  // one that is dropped before the table cache.
  Status Get(const ReadOptions& options, const FileMetaData& file,
             const Slice& internal_key, void* arg,
             void (*handle_result)(void*, const Slice&, const Slice&));

  // Table::KeyMayMatch of table file: false only if its filter rules out
  // user_key. True also when the table cannot be opened (the iterator that
  // reads it next reports why). Pins as Get does.
  bool KeyMayMatch(const ReadOptions& options, const FileMetaData& file,
                   const Slice& user_key);

  // Table::PrefetchFilter of table file, if it can be opened. Pins as Get
  // does.
  void PrefetchFilter(const FileMetaData& file, const Slice& user_key);

  // Opens table file_number (or finds it open) and pins it in *handle,
  // to be passed to Release. Used to check a freshly written file and by
  // ApproximateOffsetOf. Errors as for NewIterator; *handle is then null.
  Status FindTable(uint64_t file_number, uint64_t file_size,
                   Cache::Handle** handle);

  // The table pinned by handle (borrowed until Release).
  Table* GetTable(Cache::Handle* handle) const;

  // Unpins a handle from FindTable.
  void Release(Cache::Handle* handle);

  // Drops table file_number from the cache (its file was deleted). Users
  // that still pin it keep it open until they let go.
  void Evict(uint64_t file_number);

  // Tables open and cached now (pinned or not), for tests and stats.
  size_t NumOpenTables() const;

 private:
  // The table of file in *table: pinned in file.table (*handle null) when
  // tables are pinned, else held by *handle, to be released.
  Status Acquire(const FileMetaData& file, Table** table,
                 Cache::Handle** handle);

  // An iterator over table, releasing handle (if not null) when deleted.
  Iterator* IteratorOver(Table* table, Cache::Handle* handle,
                         const ReadOptions& options, Table** tableptr,
                         bool for_compaction);

  const std::string dbname_;
  Env* const env_;
  const EnvOptions env_options_;
  const TableOptions table_options_;
  const std::shared_ptr<Cache> cache_;
  const bool pin_tables_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_TABLE_CACHE_H_

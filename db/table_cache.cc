// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/table_cache.h"

#include <algorithm>
#include <utility>

#include "db/filename.h"
#include "util/coding.h"

namespace cascadedb {

namespace {

// Tables are charged 1 each, so the capacity counts tables. Below this many
// entries one shard keeps the capacity exact; above it, 16 shards cut lock
// contention between readers.
constexpr int kMinEntriesForSharding = 256;
constexpr int kShardBits = 4;

void DeleteTable(const Slice& /*key*/, void* value) {
  delete static_cast<Table*>(value);
}

void ReleaseHandle(void* arg1, void* arg2) {
  static_cast<Cache*>(arg1)->Release(static_cast<Cache::Handle*>(arg2));
}

std::string CacheKey(uint64_t file_number, char* buf) {
  EncodeFixed64(buf, file_number);
  return std::string(buf, sizeof(uint64_t));
}

}  // namespace

TableCache::TableCache(const std::string& dbname, Env* env,
                       const EnvOptions& env_options,
                       const TableOptions& table_options, int entries)
    : dbname_(dbname),
      env_(env),
      env_options_(env_options),
      table_options_(table_options),
      cache_(NewLRUCache(static_cast<size_t>(std::max(entries, 1)),
                         entries >= kMinEntriesForSharding ? kShardBits : 0)),
      pin_tables_(entries >= kAllTables) {}

TableCache::~TableCache() = default;

Status TableCache::FindTable(uint64_t file_number, uint64_t file_size,
                             Cache::Handle** handle) {
  char buf[sizeof(uint64_t)];
  const std::string key = CacheKey(file_number, buf);
  *handle = cache_->Lookup(key);
  if (*handle != nullptr) return Status::OK();

  // Two threads missing at once both open the table; the second insert
  // replaces the first, which closes when its user lets go. Harmless, and
  // cheaper than holding a lock across the I/O.
  const std::string fname = TableFileName(dbname_, file_number);
  std::unique_ptr<RandomAccessFile> file;
  Status s = env_->NewRandomAccessFile(fname, &file, env_options_);
  if (s.IsNotFound()) {
    // The MANIFEST names this file, so its absence is damage to the
    // database, not a missing key: never let it read as NotFound.
    return Status::Corruption(s.message(),
                              "table file named by the MANIFEST is missing");
  }
  std::unique_ptr<Table> table;
  if (s.ok()) {
    s = Table::Open(table_options_, std::move(file), file_size, fname, &table);
  }
  if (!s.ok()) return s;  // not cached: a transient error must not stick
  cache_->Insert(key, table.release(), 1, &DeleteTable, handle);
  return Status::OK();
}

Table* TableCache::GetTable(Cache::Handle* handle) const {
  return static_cast<Table*>(cache_->Value(handle));
}

void TableCache::Release(Cache::Handle* handle) { cache_->Release(handle); }

Iterator* TableCache::NewIterator(const ReadOptions& options,
                                  uint64_t file_number, uint64_t file_size,
                                  Table** tableptr, bool for_compaction) {
  if (tableptr != nullptr) *tableptr = nullptr;
  Cache::Handle* handle = nullptr;
  Status s = FindTable(file_number, file_size, &handle);
  if (!s.ok()) return NewErrorIterator(s);
  return IteratorOver(GetTable(handle), handle, options, tableptr,
                      for_compaction);
}

Iterator* TableCache::NewIterator(const ReadOptions& options,
                                  const FileMetaData& file, Table** tableptr,
                                  bool for_compaction) {
  if (tableptr != nullptr) *tableptr = nullptr;
  Table* table = nullptr;
  Cache::Handle* handle = nullptr;
  Status s = Acquire(file, &table, &handle);
  if (!s.ok()) return NewErrorIterator(s);
  return IteratorOver(table, handle, options, tableptr, for_compaction);
}

Iterator* TableCache::IteratorOver(Table* table, Cache::Handle* handle,
                                   const ReadOptions& options, Table** tableptr,
                                   bool for_compaction) {
  Iterator* iter = table->NewIterator(options, for_compaction);
  if (handle != nullptr) {
    iter->RegisterCleanup(&ReleaseHandle, cache_.get(), handle);
  }
  if (tableptr != nullptr) *tableptr = table;
  return iter;
}

Status TableCache::Acquire(const FileMetaData& file, Table** table,
                           Cache::Handle** handle) {
  *handle = nullptr;
  if (pin_tables_) {
    *table = file.table.get();
    if (*table != nullptr) return Status::OK();
  }
  Cache::Handle* found = nullptr;
  Status s = FindTable(file.number, file.file_size, &found);
  if (!s.ok()) {
    *table = nullptr;
    return s;
  }
  if (pin_tables_) {
    *table = file.table.Set(cache_.get(), found, GetTable(found));
  } else {
    *table = GetTable(found);
    *handle = found;
  }
  return Status::OK();
}

Status TableCache::Get(const ReadOptions& options, const FileMetaData& file,
                       const Slice& internal_key, void* arg,
                       void (*handle_result)(void*, const Slice&,
                                             const Slice&)) {
  Table* table = nullptr;
  Cache::Handle* handle = nullptr;
  Status s = Acquire(file, &table, &handle);
  if (!s.ok()) return s;
  s = table->InternalGet(options, internal_key, arg, handle_result);
  if (handle != nullptr) cache_->Release(handle);
  return s;
}

bool TableCache::KeyMayMatch(const ReadOptions& options,
                             const FileMetaData& file, const Slice& user_key) {
  Table* table = nullptr;
  Cache::Handle* handle = nullptr;
  if (!Acquire(file, &table, &handle).ok()) return true;
  const bool may_match = table->KeyMayMatch(options, user_key);
  if (handle != nullptr) cache_->Release(handle);
  return may_match;
}

void TableCache::PrefetchFilter(const FileMetaData& file,
                                const Slice& user_key) {
  Table* table = nullptr;
  Cache::Handle* handle = nullptr;
  if (!Acquire(file, &table, &handle).ok()) return;
  table->PrefetchFilter(user_key);
  if (handle != nullptr) cache_->Release(handle);
}

void TableCache::Evict(uint64_t file_number) {
  char buf[sizeof(uint64_t)];
  cache_->Erase(CacheKey(file_number, buf));
}

size_t TableCache::NumOpenTables() const { return cache_->GetUsage(); }

}  // namespace cascadedb

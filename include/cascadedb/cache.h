// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Cache: a key -> value map with a capacity in "charge" units (bytes for the
// block cache). When the total charge passes the capacity, the least recently
// used entries that nobody pins are evicted. A Handle returned by Insert or
// Lookup pins its entry until Release; an erased or evicted entry that is
// still pinned lives until its last handle is released.
//
// Thread safety: thread-safe.

#ifndef CASCADEDB_INCLUDE_CASCADEDB_CACHE_H_
#define CASCADEDB_INCLUDE_CASCADEDB_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cascadedb/slice.h"

namespace cascadedb {

class Cache {
 public:
  Cache() = default;
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;
  // Destroys every entry with its deleter. REQUIRES: no handle is pinned.
  virtual ~Cache() = default;

  // An opaque pinned entry.
  struct Handle {};

  // Called once per entry when it leaves the cache and is unpinned.
  using Deleter = void (*)(const Slice& key, void* value);

  // Inserts key -> value with the given charge, replacing any entry with the
  // same key (the old one stays alive while pinned). The cache takes
  // ownership of value and frees it with deleter. If handle is not null,
  // *handle pins the new entry and must be passed to Release; if it is null
  // the entry is not pinned. The key bytes are copied.
  virtual void Insert(const Slice& key, void* value, size_t charge,
                      Deleter deleter, Handle** handle) = 0;

  // Returns a pinned handle to the entry for key, or nullptr if absent.
  // A non-null result must be passed to Release.
  virtual Handle* Lookup(const Slice& key) = 0;

  // Unpins an entry. REQUIRES: handle came from this cache and was not
  // released yet.
  virtual void Release(Handle* handle) = 0;

  // The value of a pinned entry, borrowed until Release.
  virtual void* Value(Handle* handle) = 0;

  // Removes the entry for key if present; pinned handles stay valid.
  virtual void Erase(const Slice& key) = 0;

  // A new number for a client sharing the cache to prefix its keys with.
  virtual uint64_t NewId() = 0;

  // Drops every entry that is not pinned.
  virtual void Prune() = 0;

  // Sets the capacity, evicting unpinned entries if the new one is smaller.
  virtual void SetCapacity(size_t capacity) = 0;

  virtual size_t GetCapacity() const = 0;
  // Total charge of all entries in the cache.
  virtual size_t GetUsage() const = 0;
  // Total charge of the entries currently pinned.
  virtual size_t GetPinnedUsage() const = 0;
};

// A sharded LRU cache of the given capacity (in charge units). The cache is
// split into 2^num_shard_bits independently locked shards by key hash; a
// negative num_shard_bits picks a value from the capacity (at most 64 shards,
// each of at least 512 KiB).
std::shared_ptr<Cache> NewLRUCache(size_t capacity, int num_shard_bits = -1);

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_CACHE_H_

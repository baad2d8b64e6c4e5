// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// KeyHashFilterPolicy: a FilterPolicy whose filter depends on each key only
// through a 64-bit hash. A table builder hashes every key as it arrives,
// while the key is in the CPU cache, and keeps 8 bytes a key instead of a
// copy of the key plus its offset (16-byte user keys: 8 bytes instead of
// ~40 at Finish). Internal: the built-in bloom implements it; any other
// FilterPolicy is still given the keys through CreateFilter.
//
// Thread safety: as FilterPolicy (const methods, callable concurrently).

#ifndef CASCADEDB_UTIL_KEY_HASH_FILTER_POLICY_H_
#define CASCADEDB_UTIL_KEY_HASH_FILTER_POLICY_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "cascadedb/filter_policy.h"
#include "cascadedb/slice.h"

namespace cascadedb {

class KeyHashFilterPolicy : public FilterPolicy {
 public:
  // The hash the filter is built from.
  virtual uint64_t KeyHash(const Slice& key) const = 0;

  // Appends to *dst exactly the bytes CreateFilter appends for the keys
  // that hashes[0, n) were computed from (KeyHash), in the same order.
  virtual void CreateFilterFromHashes(const uint64_t* hashes, size_t n,
                                      std::string* dst) const = 0;

  // Starts loading into the CPU caches the bytes of filter (one this
  // policy built) that KeyMayMatch(key, filter) will read, so that probes
  // of several filters wait for their cache misses together. A hint: a
  // filter it cannot read is left alone.
  virtual void PrefetchKey(const Slice& key, const Slice& filter) const = 0;
};

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_KEY_HASH_FILTER_POLICY_H_

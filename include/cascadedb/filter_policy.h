// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// FilterPolicy: builds a small summary of a set of keys (stored in each SST)
// that answers "might this key be here?" with no false negatives, so reads
// skip tables without the key. Filters are persisted: a policy must not
// change its encoding under the same Name().
//
// Thread safety: implementations must be thread-safe.

#ifndef CASCADEDB_INCLUDE_CASCADEDB_FILTER_POLICY_H_
#define CASCADEDB_INCLUDE_CASCADEDB_FILTER_POLICY_H_

#include <memory>
#include <string>

#include "cascadedb/slice.h"

namespace cascadedb {

class FilterPolicy {
 public:
  virtual ~FilterPolicy() = default;

  // Stored with each filter; a filter written under another name is ignored
  // (treated as "may match") rather than misread.
  virtual const char* Name() const = 0;

  // Appends to *dst a filter summarizing keys[0, n). keys may hold
  // duplicates. The keys are borrowed for the call only.
  virtual void CreateFilter(const Slice* keys, int n,
                            std::string* dst) const = 0;

  // Returns false only if key was certainly not in the set the filter was
  // built from. A malformed filter must return true (never crash).
  virtual bool KeyMayMatch(const Slice& key, const Slice& filter) const = 0;
};

// A cache-local bloom filter: every probe of a key lands in one 64-byte cache
// line, so a negative lookup costs one cache miss. bits_per_key ~10 gives a
// false-positive rate near 1%. bits_per_key must be in [1, 100]; other values
// are clamped. The format is documented in docs/format/bloom.md.
std::unique_ptr<const FilterPolicy> NewBloomFilterPolicy(double bits_per_key);

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_FILTER_POLICY_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Comparator: the total order of user keys. The order is persisted with the
// data (a database remembers the comparator's Name()), so an implementation
// must never change its order under the same name.
//
// Thread safety: implementations must be thread-safe; the engine calls them
// from many threads at once.

#ifndef CASCADEDB_INCLUDE_CASCADEDB_COMPARATOR_H_
#define CASCADEDB_INCLUDE_CASCADEDB_COMPARATOR_H_

#include <string>

#include "cascadedb/slice.h"

namespace cascadedb {

class Comparator {
 public:
  virtual ~Comparator() = default;

  // Three-way comparison: <0 if a < b, 0 if equal, >0 if a > b.
  virtual int Compare(const Slice& a, const Slice& b) const = 0;

  // The name stored in every database built with this order. Opening a
  // database with a comparator of another name fails with InvalidArgument.
  // Names starting with "cascadedb." are reserved.
  virtual const char* Name() const = 0;

  // Shortens index keys. If *start < limit, may change *start to a shorter
  // string in [*start, limit). Leaving it unchanged is always correct.
  virtual void FindShortestSeparator(std::string* start,
                                     const Slice& limit) const = 0;

  // May change *key to a short string >= *key. Leaving it unchanged is
  // always correct.
  virtual void FindShortSuccessor(std::string* key) const = 0;
};

// The lexicographic byte order (memcmp, shorter first on a tie). The result
// is a static singleton: never delete it.
const Comparator* BytewiseComparator();

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_COMPARATOR_H_

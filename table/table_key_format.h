// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// TableKeyFormat: how the table layer reads the keys it stores, without
// knowing the db layer's internal-key encoding. A table's bloom filter is
// built over USER keys (so a point lookup at any sequence number can consult
// it), and its properties block records the sequence range and the number
// of deletions; both need to look inside a stored key. The db layer passes
// an implementation for its internal keys (user key + 8-byte trailer);
// passing nullptr where a TableKeyFormat is accepted means "keys are plain
// user keys, sequence 0, never deletions".
//
// Thread safety: implementations must be thread-safe (they are called
// concurrently by readers of the same table).

#ifndef CASCADEDB_TABLE_TABLE_KEY_FORMAT_H_
#define CASCADEDB_TABLE_TABLE_KEY_FORMAT_H_

#include <cstdint>

#include "cascadedb/slice.h"

namespace cascadedb {

class TableKeyFormat {
 public:
  virtual ~TableKeyFormat() = default;

  // The user-key part of a stored key; the result borrows key's bytes.
  // Must tolerate malformed keys (e.g. too short) read from a corrupt file:
  // return any slice of key's bytes then, never read outside them.
  virtual Slice UserKey(const Slice& key) const = 0;

  // The sequence number of the entry stored under key (for the properties
  // block's smallest/largest sequence number).
  virtual uint64_t Sequence(const Slice& key) const = 0;

  // True if the entry stored under key is a deletion (counted in the
  // properties block's num_deletions).
  virtual bool IsDeletion(const Slice& key) const = 0;
};

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_TABLE_KEY_FORMAT_H_

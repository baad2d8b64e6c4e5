// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// DBIter: turns an iterator over internal keys (the merging iterator over
// the memtables and the SSTs, newest version of each user key first) into
// the user's view at one sequence number: one entry per live user key,
// user keys only, deleted keys and versions newer than the sequence hidden.
//
// Thread safety: not thread-safe (one thread at a time, like every
// iterator).

#ifndef CASCADEDB_DB_DB_ITER_H_
#define CASCADEDB_DB_DB_ITER_H_

#include <cstdint>

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"
#include "db/dbformat.h"

namespace cascadedb {

// Receives the internal keys an iterator samples from what it reads (about
// one per kReadBytesPeriod bytes of keys and values, a value compressed on
// its own counted at its compressed size), for seek compaction.
class ReadSampler {
 public:
  static constexpr uint32_t kReadBytesPeriod = 1 << 20;
  virtual ~ReadSampler() = default;
  virtual void RecordReadSample(const Slice& internal_key) = 0;
};

// Returns a user-key iterator over internal_iter (taken over: deleted with
// the result) as of sequence. user_comparator is borrowed. A malformed
// internal key makes the iterator invalid with Corruption. sampler (may be
// null; borrowed, must outlive the iterator) is fed sampled keys; seed
// varies the sampling points between iterators.
Iterator* NewDBIterator(const Comparator* user_comparator,
                        Iterator* internal_iter, SequenceNumber sequence,
                        ReadSampler* sampler = nullptr, uint32_t seed = 0);

}  // namespace cascadedb

#endif  // CASCADEDB_DB_DB_ITER_H_

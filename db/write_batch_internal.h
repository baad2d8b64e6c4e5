// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// WriteBatchInternal: the engine's access to a WriteBatch's encoding
// (docs/format/write_batch.md), kept out of the public header: the sequence
// number in the header, the raw contents the WAL stores, and applying a
// batch to a memtable.
//
// Thread safety: as WriteBatch (thread-compatible): functions that modify a
// batch need exclusive access to it; the others may run concurrently on
// one batch.

#ifndef CASCADEDB_DB_WRITE_BATCH_INTERNAL_H_
#define CASCADEDB_DB_WRITE_BATCH_INTERNAL_H_

#include <cstddef>
#include <cstdint>

#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "cascadedb/write_batch.h"
#include "db/dbformat.h"

namespace cascadedb {

class MemTable;

class WriteBatchInternal {
 public:
  // The header: an 8-byte sequence number and a 4-byte record count.
  static constexpr size_t kHeaderSize = 12;

  // Record tags. Persistent (docs/format/write_batch.md): never renumber.
  // They equal the ValueType of the entries they become.
  static constexpr unsigned char kTagDeletion = kTypeDeletion;
  static constexpr unsigned char kTagValue = kTypeValue;
  static constexpr unsigned char kTagMerge = kTypeMerge;  // Reserved.
  static constexpr unsigned char kTagRangeDeletion =
      kTypeRangeDeletion;  // Reserved.

  // The number of records, from the header.
  static uint32_t Count(const WriteBatch* batch);

  // Sets the record count in the header.
  static void SetCount(WriteBatch* batch, uint32_t n);

  // The sequence number of the batch's first record; record i gets
  // Sequence() + i.
  static SequenceNumber Sequence(const WriteBatch* batch);

  // Sets the sequence number of the first record.
  // REQUIRES: seq + Count() - 1 <= kMaxSequenceNumber.
  static void SetSequence(WriteBatch* batch, SequenceNumber seq);

  // The encoded batch, as the WAL stores it. Borrows the batch's bytes
  // until it is modified or destroyed.
  static Slice Contents(const WriteBatch* batch) { return Slice(batch->rep_); }

  // The size of the encoding.
  static size_t ByteSize(const WriteBatch* batch) { return batch->rep_.size(); }

  // Replaces the batch with a copy of contents (a WAL record). Returns
  // Corruption, leaving the batch empty, if contents is shorter than the
  // header ("write batch: too small (5 bytes, header is 12)"). The records
  // themselves are checked when the batch is iterated.
  static Status SetContents(WriteBatch* batch, const Slice& contents);

  // Appends src's records to dst (group commit). Same as dst->Append(*src).
  static Status Append(WriteBatch* dst, const WriteBatch* src);

  // Checks that the batch parses: every record well-formed and the count
  // in the header matching. Returns Corruption (with the byte offset of
  // the problem) or NotSupported as WriteBatch::Iterate would, without
  // calling anything.
  static Status Validate(const WriteBatch* batch);

  // Adds every record to memtable, record i at Sequence() + i. All or
  // nothing with respect to malformed contents: the batch is validated
  // first, and Corruption/NotSupported is returned with nothing inserted.
  // Otherwise returns the first error of MemTable::Add (the records before
  // it are then inserted). Borrows memtable for the call.
  // REQUIRES: memtable in single-writer mode (concurrent_memtable_writes =
  // false) or concurrent mode (true), as the caller arranges.
  static Status InsertInto(const WriteBatch* batch, MemTable* memtable,
                           bool concurrent_memtable_writes = false);
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_WRITE_BATCH_INTERNAL_H_

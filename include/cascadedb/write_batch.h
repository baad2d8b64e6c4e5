// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// WriteBatch: a list of updates (Put, Delete) applied to a database
// atomically, in order, by DB::Write. DB::Put and DB::Delete are one-record
// batches. The batch is also the unit of the write-ahead log: the bytes of
// Data() are what one WAL record holds (docs/format/write_batch.md).
//
//   WriteBatch batch;
//   Status s = batch.Delete("key1");
//   if (s.ok()) s = batch.Put("key2", "value");
//   if (s.ok()) s = db->Write(WriteOptions(), &batch);
//
// Later records win: Delete("k") then Put("k", "v") leaves "k" = "v".
//
// Thread safety: thread-compatible (a value type). Several threads may read
// one batch (const calls); any modification needs external synchronization.

#ifndef CASCADEDB_INCLUDE_CASCADEDB_WRITE_BATCH_H_
#define CASCADEDB_INCLUDE_CASCADEDB_WRITE_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "cascadedb/slice.h"
#include "cascadedb/status.h"

namespace cascadedb {

class WriteBatch {
 public:
  // Receives the records of a batch, in order, from Iterate().
  class Handler {
   public:
    virtual ~Handler() = default;

    // A Put record. key and value borrow the batch's bytes for the call.
    virtual void Put(const Slice& key, const Slice& value) = 0;

    // A Delete record. key borrows the batch's bytes for the call.
    virtual void Delete(const Slice& key) = 0;
  };

  // An empty batch.
  WriteBatch();

  // An empty batch with room for reserved_bytes of records before it
  // reallocates (a hint; 0 is fine).
  explicit WriteBatch(size_t reserved_bytes);

  WriteBatch(const WriteBatch&) = default;
  WriteBatch& operator=(const WriteBatch&) = default;
  WriteBatch(WriteBatch&&) = default;
  WriteBatch& operator=(WriteBatch&&) = default;
  ~WriteBatch();

  // Appends "set key to value". Copies both. Returns InvalidArgument, adding
  // nothing, if key or value is 4 GiB or larger ("write batch: value of
  // 4294967296 bytes is too large (limit 4294967295)") or the batch already
  // holds UINT32_MAX records.
  Status Put(const Slice& key, const Slice& value);

  // Appends "erase key" (a no-op on the database if key is absent). Copies
  // key. Errors as for Put.
  Status Delete(const Slice& key);

  // Removes every record.
  void Clear();

  // The number of records.
  uint32_t Count() const;

  // The size of the batch's encoding in bytes (about the WAL bytes it
  // costs): a 12-byte header plus each record's key, value and a few bytes
  // of framing.
  size_t ApproximateSize() const;

  // Appends a copy of every record of source, after this batch's records.
  // source may be *this. Returns InvalidArgument, changing nothing, if the
  // total record count would exceed UINT32_MAX.
  Status Append(const WriteBatch& source);

  // Calls handler for each record, in order. handler is borrowed for the
  // call. Returns OK, or Corruption if the contents are malformed (only
  // possible for a batch rebuilt from damaged bytes, e.g. a WAL record):
  // the handler has then seen the records before the damage. Returns
  // NotSupported for a record type this version knows of but cannot apply
  // (reserved for features to come).
  Status Iterate(Handler* handler) const;

  // The encoded batch (docs/format/write_batch.md), as written to the WAL.
  // The reference is valid until the batch is modified or destroyed.
  const std::string& Data() const { return rep_; }

  // The user bytes in the batch: the sum of the key and value sizes of the
  // records added with Put, Delete and Append. What write amplification is
  // measured against.
  uint64_t DataSize() const { return data_size_; }

 private:
  friend class WriteBatchInternal;

  // See docs/format/write_batch.md: an 8-byte sequence number, a 4-byte
  // record count, then the records.
  std::string rep_;
  uint64_t data_size_ = 0;  // see DataSize()
};

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_WRITE_BATCH_H_

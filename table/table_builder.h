// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// TableBuilder: writes one SST from keys added in comparator order. Data
// blocks are cut at TableOptions::block_size and indexed by short separator
// keys (Comparator::FindShortestSeparator / FindShortSuccessor), so the
// index stays small. Finish() then writes, in this order (docs/format/sst.md):
// data blocks, filter block, index block, properties block, metaindex block,
// footer. The builder never syncs or closes the file: the caller does, so it
// can decide on durability.
//
// Thread safety: not thread-safe.

#ifndef CASCADEDB_TABLE_TABLE_BUILDER_H_
#define CASCADEDB_TABLE_TABLE_BUILDER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "cascadedb/env.h"
#include "cascadedb/iterator.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "table/block_builder.h"
#include "table/format.h"
#include "table/properties.h"
#include "table/table_options.h"

namespace cascadedb {

class FilterBlockBuilder;

class TableBuilder {
 public:
  // Starts a table in file, which is borrowed until Finish() or Abandon()
  // returns. REQUIRES: file is empty (block offsets start at 0).
  // Invalid options (block_restart_interval < 1, an unknown compression
  // type) make status() InvalidArgument at once.
  TableBuilder(const TableOptions& options, WritableFile* file);
  TableBuilder(const TableBuilder&) = delete;
  TableBuilder& operator=(const TableBuilder&) = delete;
  // REQUIRES: Finish() or Abandon() was called.
  ~TableBuilder();

  // Adds an entry; key must be after every key added so far by
  // options.comparator, else status() becomes InvalidArgument. Does nothing
  // once status() is not OK. REQUIRES: Finish() and Abandon() not called.
  void Add(const Slice& key, const Slice& value);

  // Adds a data block of another table whole: stored is its bytes as
  // stored (payload and trailer, as Table::BlockWalker gives them) and
  // entries iterates its entries (walked from SeekToFirst). The block
  // being built is written first; the stored bytes are then appended
  // unchanged (no decompression or compression) and indexed, and its keys
  // go to the filter and the properties as Add's would. Its first key must
  // be after every key added so far, else status() becomes
  // InvalidArgument. The caller makes sure the block's compression and
  // key format suit this table. REQUIRES: Finish() and Abandon() not
  // called.
  void AddStoredBlock(const Slice& stored, Iterator* entries);

  // OK, or the first error (invalid options, a failed write).
  Status status() const { return status_; }

  // Writes the rest of the table (the last data block, filter, index,
  // properties, metaindex, footer). Returns status(), or the write error.
  // REQUIRES: Finish() and Abandon() not called.
  Status Finish();

  // Stops building: nothing more is written; the caller deletes the file.
  // REQUIRES: Finish() and Abandon() not called.
  void Abandon();

  // Entries added so far.
  uint64_t NumEntries() const { return properties_.num_entries; }

  // The last key added (empty before the first). Valid until the next
  // Add; Finish() may shorten it, so read it before.
  Slice LastKey() const {
    return data_block_.empty() ? Slice(last_key_) : data_block_.last_key();
  }

  // Bytes written so far (the file size after a successful Finish).
  uint64_t FileSize() const { return offset_; }

  // The table's properties; complete after a successful Finish().
  const TableProperties& properties() const { return properties_; }

 private:
  // Counts an entry in the filter and the properties.
  void CountEntry(const Slice& key, const Slice& value);
  // Adds the last written block's index entry, keyed by last_key_.
  void AddIndexEntry();
  // Records the data block just written at pending_handle_: due an index
  // entry, counted in the properties.
  void DataBlockWritten();
  // Writes the current data block and remembers it for the next index
  // entry.
  void FlushDataBlock();
  // Writes raw as one block with its trailer; records errors in status_.
  void WriteBlock(const Slice& raw, CompressionType type, BlockHandle* handle);
  // Writes the properties, metaindex and footer once the index is written.
  void WriteMetaBlocksAndFooter(const BlockHandle& filter_handle,
                                const BlockHandle& index_handle);

  const TableOptions options_;
  WritableFile* const file_;
  uint64_t offset_ = 0;  // bytes written to file_ so far
  Status status_;
  bool closed_ = false;  // Finish() or Abandon() called

  BlockBuilder data_block_;
  BlockBuilder index_block_;
  std::unique_ptr<FilterBlockBuilder> filter_block_;  // null without policy
  // The last key of the last written data block (LastKey() while the
  // current block is empty); the separator or successor of its index entry.
  std::string last_key_;
  // A data block was just written and its index entry waits for the next
  // key (or Finish) to choose the shortest separator.
  bool pending_index_entry_ = false;
  BlockHandle pending_handle_;
  std::string compressed_scratch_;  // reused by WriteBlock
  TableProperties properties_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_TABLE_BUILDER_H_

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
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/env.h"
#include "cascadedb/iterator.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "table/block_builder.h"
#include "table/compression_queue.h"
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
  // once status() is not OK. value_compressed says value is already
  // compressed (a value compressed on its own): a data block whose bytes
  // are mostly such values is stored without block compression, which
  // would not save enough. REQUIRES: Finish() and Abandon() not called.
  void Add(const Slice& key, const Slice& value, bool value_compressed = false);

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

  // Bytes written so far (the file size after a successful Finish), plus,
  // with a compression queue, the expected size of the data blocks not
  // yet written (at the compression ratio of those written).
  // Integer arithmetic: a compaction asks once per entry, and the double
  // conversions and multiply this replaced were 7.6% of a matched
  // compaction thread's CPU (docs/performance.md).
  uint64_t FileSize() const {
    return offset_ + pending_stored_bytes_ +
           ((pending_raw_bytes_ * written_ratio_q16_) >> 16);
  }

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
  // Writes the current data block (or, with a compression queue, submits
  // it) and remembers it for the next index entry.
  void FlushDataBlock();

  // With a compression queue: a data block submitted or added and not yet
  // written, and its index key once known.
  struct PendingBlock {
    BlockJob job;
    std::string index_key;
    bool index_key_set = false;
  };
  // A pending block to fill, reusing a written one's buffers.
  std::unique_ptr<PendingBlock> NewPendingBlock();
  // Writes the pending blocks that are done, oldest first, stopping at the
  // first that is not; with all, or while more than kMaxPendingBlocks are
  // pending, finishes them here instead of stopping.
  void WritePendingBlocks(bool all);
  // Writes one done block and indexes it, or leaves its index entry due.
  void WritePendingBlock(PendingBlock* block);
  // Takes every pending block back from the queue unwritten.
  void CancelPendingBlocks();
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
  // Bytes of already compressed values in data_block_.
  size_t data_block_compressed_bytes_ = 0;
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

  // options_.compression_queue, or nullptr when blocks are not compressed.
  CompressionQueue* const queue_;
  std::deque<std::unique_ptr<PendingBlock>> pending_blocks_;  // oldest first
  std::vector<std::unique_ptr<PendingBlock>> spare_blocks_;
  uint64_t pending_raw_bytes_ = 0;     // raw sizes of pending submitted blocks
  uint64_t pending_stored_bytes_ = 0;  // sizes of pending stored blocks
  // Stored / raw bytes of the submitted blocks written so far (1 before),
  // in units of 2^-16. The raw bytes pending (a few blocks) times it, and
  // a table's stored bytes shifted by 16, stay far below 2^64.
  uint64_t written_ratio_q16_ = uint64_t{1} << 16;
  uint64_t written_raw_bytes_ = 0;
  uint64_t written_stored_bytes_ = 0;
};

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_TABLE_BUILDER_H_

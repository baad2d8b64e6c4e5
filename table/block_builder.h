// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// BlockBuilder: builds one SST block (data, index, metaindex or properties)
// from keys added in increasing order. Each key is stored as the length of
// the prefix it shares with the previous key plus the rest; every
// restart_interval entries a "restart point" stores the full key, and the
// block ends with the restart offsets and their count so readers can
// binary-search. Entry layout (docs/format/sst.md, "Block entries"):
//   varint32 shared | varint32 non_shared | varint32 value_len |
//   key[shared, shared + non_shared) | value
// then fixed32 restart offsets, then fixed32 number of restarts.
//
// Thread safety: not thread-safe.

#ifndef CASCADEDB_TABLE_BLOCK_BUILDER_H_
#define CASCADEDB_TABLE_BLOCK_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cascadedb/slice.h"
#include "util/key_buffer.h"

namespace cascadedb {

class BlockBuilder {
 public:
  // REQUIRES: restart_interval >= 1.
  explicit BlockBuilder(int restart_interval);
  BlockBuilder(const BlockBuilder&) = delete;
  BlockBuilder& operator=(const BlockBuilder&) = delete;

  // Starts a new, empty block; slices from an earlier Finish become invalid.
  void Reset();

  // Appends an entry. REQUIRES: Finish() not called since the last Reset();
  // key is greater than every key added before (by the table's comparator;
  // checked only by the readers' ordering, not here).
  void Add(const Slice& key, const Slice& value);

  // Appends the restart array and its count and returns the whole block.
  // The slice stays valid until Reset() or destruction. An empty block is
  // valid too (one restart at offset 0, count 1).
  Slice Finish();

  // Finishes the block, copies its bytes into *out (reusing out's memory)
  // and starts a new block, as Reset() does. The builder keeps its own
  // buffer, so another thread may read *out while the next block is built.
  void FinishInto(std::string* out);

  // Bytes of the block if it were finished now (entries + restart array).
  size_t CurrentSizeEstimate() const;

  // True if no entry was added since the last Reset().
  bool empty() const { return num_entries_ == 0; }

  // Number of entries added since the last Reset().
  uint64_t num_entries() const { return num_entries_; }

  // The last key added since the last Reset() (empty if none). Valid until
  // the next Add or Reset.
  Slice last_key() const { return last_key_.slice(); }

 private:
  // Makes buffer_ hold at least n bytes past size_.
  void Grow(size_t n);

  const int restart_interval_;
  // The block so far is buffer_[0, size_); the bytes past it are room for
  // the next entries and the restart array, so an entry is written in place
  // with no append call.
  std::string buffer_;
  size_t size_ = 0;
  std::vector<uint32_t> restarts_;  // offsets of the restart points
  int counter_ = 0;                 // entries since the last restart
  uint64_t num_entries_ = 0;        // entries since Reset()
  bool finished_ = false;           // Finish() called
  KeyBuffer last_key_;              // the previous key, for prefix sharing
};

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_BLOCK_BUILDER_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Block: read access to one SST block written by BlockBuilder (see
// docs/format/sst.md, "Block entries" and "Restart array"). Iterators
// binary-search the restart array, then scan forward; Prev() steps back to
// the previous restart point and scans forward to the entry before. Every
// length read from the block is bounds-checked: a malformed block yields
// an iterator whose status() is Corruption, never an out-of-bounds read.
//
// Thread safety: a Block is immutable after construction, so any number of
// threads may each use their own iterator over it; one iterator is not
// thread-safe.

#ifndef CASCADEDB_TABLE_BLOCK_H_
#define CASCADEDB_TABLE_BLOCK_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"
#include "table/format.h"

namespace cascadedb {

class TableKeyFormat;

class Block {
 public:
  // Wraps contents. If contents.heap_allocated the Block takes ownership of
  // contents.data.data() and delete[]s it on destruction; otherwise the bytes
  // are borrowed and must outlive the Block and its iterators.
  explicit Block(const BlockContents& contents);
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  ~Block();

  // Bytes of the block (entries + restart array).
  size_t size() const { return size_; }

  // Number of restart points, or 0 if the block is malformed.
  uint32_t NumRestarts() const { return num_restarts_; }

  // Search heads, for blocks with many restart points (an index block has
  // one per data block): stores each restart key's head (util/coding.h
  // KeyHead: 8 bytes of its user key after the prefix every restart key
  // shares), so that an iterator's Seek binary-searches that compact array
  // and decodes a restart key only where heads tie, instead of decoding
  // one key per step all over the block. key_format reads a stored key's
  // user key (nullptr: stored keys are user keys); borrowed, must outlive
  // the block. REQUIRES: the block's comparator orders keys by user key,
  // bytewise, first. Builds nothing and returns false for a block whose
  // restart keys do not decode or are out of order; Seek then works as
  // without heads. Call before sharing the block with other threads.
  bool BuildSearchHeads(const TableKeyFormat* key_format);

  // True once BuildSearchHeads succeeded.
  bool HasSearchHeads() const { return heads_ != nullptr; }

  // Bytes held: the block and its search heads.
  size_t MemoryUsage() const;

  // Returns a new iterator over the block; the caller owns it, and it must
  // not outlive the Block. comparator (borrowed for the iterator's lifetime)
  // must be the one the block's keys were sorted by. A malformed block
  // (too short, bad restart array) yields an iterator whose status() is
  // Corruption("bad block contents"); entries that fail to decode make the
  // iterator invalid with Corruption("bad entry in block").
  Iterator* NewIterator(const Comparator* comparator) const;

 private:
  class Iter;
  struct SearchHeads;

  const char* data_;
  size_t size_;
  uint32_t restart_offset_;  // offset of the restart array in data_
  uint32_t num_restarts_;    // 0 marks a malformed block
  bool owned_;               // delete[] data_ on destruction
  std::unique_ptr<const SearchHeads> heads_;  // nullptr: none built
};

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_BLOCK_H_

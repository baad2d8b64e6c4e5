// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// BlockAdmission: whether a data block read on a block-cache miss is put in
// the cache. A block is admitted on its second miss within a window of
// recent misses (a "doorkeeper", as in TinyLFU): a block read once and not
// again soon - most blocks of random reads over data much larger than the
// cache - then costs no insert, no eviction and no decompression into the
// evicted block's cold memory, while a block read twice is cached as
// before.
//
// The memory of misses is a direct-mapped table of block hashes: a slot
// holds the last block that missed into it, so a block is admitted if it
// misses again before another block's miss takes its slot. The table has
// four slots per block the cache can hold, so it remembers roughly the
// last four cache-fulls of misses.
//
// Thread safety: thread-safe. Slots are relaxed atomics; a race can only
// change one admission decision.

#ifndef CASCADEDB_TABLE_BLOCK_ADMISSION_H_
#define CASCADEDB_TABLE_BLOCK_ADMISSION_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace cascadedb {

class BlockAdmission {
 public:
  // For a cache of cache_capacity bytes holding blocks of about block_size
  // bytes (both > 0 make sense; anything else gets the minimum table).
  BlockAdmission(size_t cache_capacity, size_t block_size);
  BlockAdmission(const BlockAdmission&) = delete;
  BlockAdmission& operator=(const BlockAdmission&) = delete;

  // Called on a cache miss of the block at offset in the table with this
  // cache id: true if the block missed recently too and should be cached.
  bool AdmitOnMiss(uint64_t cache_id, uint64_t offset);

  size_t slots() const { return static_cast<size_t>(mask_ + 1); }

 private:
  static constexpr size_t kMinSlots = 1024;
  static constexpr size_t kMaxSlots = size_t{1} << 22;  // 32 MiB of slots

  std::unique_ptr<std::atomic<uint64_t>[]> slots_;  // 0 = empty
  uint64_t mask_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_BLOCK_ADMISSION_H_

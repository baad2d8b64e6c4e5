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
// four slots per block the cache can hold, so at its widest the window
// remembers roughly the last four cache-fulls of misses.
//
// The window adapts to what admitting returns. About once a cache-full of
// misses, the data-block hits since the last look (OnHit) are compared
// with the blocks admitted meanwhile: under fewer than two hits per
// admission the window halves, down to a sixteenth of the table (a
// quarter of a cache-full); from eight up it doubles back. Under uniform
// reads over data much larger than the cache, a cached block is as likely
// to be read as any other, so the hit rate is the same whatever is
// admitted and every insertion is a cost: the window shrinks and few
// blocks are inserted. A working set that the cache can hold is hit far
// more often than it is admitted, and keeps the widest window.
//
// Thread safety: thread-safe. Slots and counters are relaxed atomics; a
// race can only change one admission decision or one window step.

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

  // Called on a cache hit of a data block: what admitting returns.
  void OnHit() { hits_.fetch_add(1, std::memory_order_relaxed); }

  size_t slots() const { return static_cast<size_t>(mask_ + 1); }

  // The slots in use now: how many recent misses the window remembers.
  size_t window() const {
    return slots() >> shift_.load(std::memory_order_relaxed);
  }

  // The window halves or doubles at most this many times from the table.
  static constexpr int kMaxShift = 4;

 private:
  static constexpr size_t kMinSlots = 1024;
  static constexpr size_t kMaxSlots = size_t{1} << 22;  // 32 MiB of slots
  // Fewer hits than this per admission shrink the window; this many more
  // (kWidenHitsPerAdmission) widen it.
  static constexpr uint64_t kKeepHitsPerAdmission = 2;
  static constexpr uint64_t kWidenHitsPerAdmission = 8;
  // Adapt waits for at least this many hits and admissions together.
  static constexpr uint64_t kMinEvidence = 32;

  // Compares the hits and admissions since the last call; moves shift_.
  void Adapt();

  std::unique_ptr<std::atomic<uint64_t>[]> slots_;  // 0 = empty
  uint64_t mask_;
  std::atomic<int> shift_{0};  // the window is the table >> shift_
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> admitted_{0};
};

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_BLOCK_ADMISSION_H_

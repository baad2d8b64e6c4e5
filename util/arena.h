// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Arena: a bump allocator for many small objects that die together. The
// memtable allocates its skiplist nodes, keys and values here: no malloc per
// node, and one pass over a short block list frees everything.
//
// Memory comes in blocks (4 KiB by default). A request is carved from the
// current block; a request larger than a quarter of a block gets a block of
// its own, so the tail of the current block is not thrown away for it and at
// most a quarter of each regular block is ever wasted.
//
// Thread safety: not thread-safe for allocation (one writer at a time, e.g.
// under the memtable's write serialization). MemoryUsage() may be called from
// any thread at any time.

#ifndef CASCADEDB_UTIL_ARENA_H_
#define CASCADEDB_UTIL_ARENA_H_

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cascadedb {

class Arena {
 public:
  // The default block size, in bytes.
  static constexpr size_t kDefaultBlockSize = 4096;

  // Alignment guaranteed by AllocateAligned().
  static constexpr size_t kAlignment = alignof(std::max_align_t) > 8
                                           ? alignof(std::max_align_t)
                                           : 8;

  // REQUIRES: block_size >= 64 (smaller values are raised to 64).
  explicit Arena(size_t block_size = kDefaultBlockSize);

  // Frees every block; all memory handed out by this arena becomes invalid.
  ~Arena();

  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // Returns a pointer to `bytes` uninitialized bytes with no alignment
  // guarantee, valid until the arena is destroyed.
  // REQUIRES: bytes > 0
  char* Allocate(size_t bytes);

  // Like Allocate(), but the result is aligned to kAlignment.
  // REQUIRES: bytes > 0
  char* AllocateAligned(size_t bytes);

  // Total bytes this arena holds from the system: the sum of block sizes
  // plus the bookkeeping of the block list. Safe to call from any thread;
  // the value may lag a concurrent allocation slightly.
  size_t MemoryUsage() const {
    // Relaxed is enough: callers (memtable size checks, stats) want an
    // approximate, monotonically growing number, and never use it to reach
    // memory the writer published; no other data is ordered by this load.
    return memory_usage_.load(std::memory_order_relaxed);
  }

  // The block size this arena was built with.
  size_t block_size() const { return block_size_; }

 private:
  char* AllocateFallback(size_t bytes);
  char* AllocateNewBlock(size_t block_bytes);

  const size_t block_size_;

  // Owned by the single allocating thread.
  char* alloc_ptr_ = nullptr;
  size_t alloc_bytes_remaining_ = 0;
  std::vector<char*> blocks_;

  // Written only by the allocating thread, read from any thread (relaxed;
  // see MemoryUsage()).
  std::atomic<size_t> memory_usage_{0};
};

inline char* Arena::Allocate(size_t bytes) {
  assert(bytes > 0);
  if (bytes <= alloc_bytes_remaining_) {
    char* result = alloc_ptr_;
    alloc_ptr_ += bytes;
    alloc_bytes_remaining_ -= bytes;
    return result;
  }
  return AllocateFallback(bytes);
}

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_ARENA_H_

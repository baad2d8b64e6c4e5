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
// An ArenaBlockPool, when given, supplies the arena's regular blocks and
// takes them back when the arena dies, so the next arena (the next
// memtable) reuses memory whose pages are already mapped and touched: the
// writer then neither grows the heap (which takes the process's
// address-space lock) nor faults in fresh pages for every block.
//
// Thread safety: Arena is not thread-safe for allocation (one writer at a
// time, e.g. under the memtable's write serialization); MemoryUsage() may
// be called from any thread at any time. ArenaBlockPool is thread-safe.

#ifndef CASCADEDB_UTIL_ARENA_H_
#define CASCADEDB_UTIL_ARENA_H_

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "util/mutex.h"
#include "util/thread_annotations.h"

// 1 when built with AddressSanitizer (GCC's and Clang's spellings).
#if defined(__SANITIZE_ADDRESS__)
#define CASCADEDB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CASCADEDB_ASAN 1
#endif
#endif

namespace cascadedb {

// Blocks of one size kept between arenas, up to a capacity.
class ArenaBlockPool {
 public:
  // Keeps at most capacity_bytes / block_size blocks of block_size bytes.
  ArenaBlockPool(size_t block_size, size_t capacity_bytes);
  // Frees the blocks it keeps.
  ~ArenaBlockPool();

  ArenaBlockPool(const ArenaBlockPool&) = delete;
  ArenaBlockPool& operator=(const ArenaBlockPool&) = delete;

  size_t block_size() const { return block_size_; }

  // A kept block (its contents are whatever its last arena left), or
  // nullptr when none is kept.
  char* Take() EXCLUDES(mu_);

  // Keeps block (allocated with new char[block_size()]) and returns true,
  // or returns false when the pool is full: the caller frees it.
  bool Give(char* block) EXCLUDES(mu_);

  // Bytes of the blocks kept now.
  size_t PooledBytes() const EXCLUDES(mu_);

 private:
  const size_t block_size_;
  const size_t max_blocks_;
  mutable Mutex mu_;
  std::vector<char*> blocks_ GUARDED_BY(mu_);
};

class Arena {
 public:
  // The default block size, in bytes.
  static constexpr size_t kDefaultBlockSize = 4096;

  // Alignment guaranteed by AllocateAligned().
  static constexpr size_t kAlignment = alignof(std::max_align_t) > 8
                                           ? alignof(std::max_align_t)
                                           : 8;

  // REQUIRES: block_size >= 64 (smaller values are raised to 64). pool, if
  // not null and of the same block size, supplies and takes back the
  // regular blocks (the arena holds a reference to it).
  explicit Arena(size_t block_size = kDefaultBlockSize,
                 std::shared_ptr<ArenaBlockPool> pool = nullptr);

  // Frees every block (or returns it to the pool); all memory handed out
  // by this arena becomes invalid.
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

  // Bytes that small requests can still take while MemoryUsage() stays
  // below usage_limit: the rest of the current block, plus a block's worth
  // for each further block after which the usage is still below the limit
  // (the block that takes it to the limit holds only the request that
  // started it). A caller that stops allocating once MemoryUsage() reaches
  // the limit (the memtable's "full" check) can take this much more, less
  // the tails wasted at block ends; MemoryUsage() counts a block whole from
  // its start, so usage_limit - MemoryUsage() can be off by up to a block.
  // REQUIRES: no allocation runs at the same time (the caller is the
  // allocating thread or is ordered after its allocations).
  size_t AllocatableBelow(size_t usage_limit) const;

  // Bytes handed out so far, with the tails wasted at block ends and the
  // block list's bookkeeping: MemoryUsage() less the current block's
  // unused rest. REQUIRES: as for AllocatableBelow().
  size_t AllocatedBytes() const {
    return MemoryUsage() - alloc_bytes_remaining_;
  }

 private:
  char* AllocateFallback(size_t bytes);
  char* AllocateNewBlock(size_t block_bytes);

  const size_t block_size_;
  // Null when the arena allocates from the heap only.
  const std::shared_ptr<ArenaBlockPool> pool_;

  // Owned by the single allocating thread.
  char* alloc_ptr_ = nullptr;
  size_t alloc_bytes_remaining_ = 0;
  std::vector<char*> blocks_;        // of block_size_ bytes
  std::vector<char*> large_blocks_;  // one large request each

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

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
// address-space lock) nor faults in fresh pages for every block. A pool
// may also keep a few blocks prepared ahead (allocated and faulted in by
// the writers' helper thread), so an arena that has used up the recycled
// blocks still takes none fresh on its writer's path.
//
// Blocks whose size is a multiple of the 2 MiB huge page (the memtable's,
// for write buffers of 16 MiB and more) are mapped 2 MiB-aligned and, on
// Linux, advised into transparent huge pages (MADV_HUGEPAGE): a memtable's
// keys sit in insertion order, so a search or a scan touches a page per
// key, and with 4 KiB pages a large memtable misses the TLB on most of
// them. Faulting a huge page in costs 0.3-2 ms at once (6-10 ms on a VM
// whose host has taken the memory back), which is why the pool prepares
// blocks ahead of the writer, and why a block the pool cannot supply gets
// small pages (docs/design/20261128-huge-page-memtables.md).
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

// Blocks of one size kept between arenas, up to a capacity, and prepared
// ahead of them if asked.
class ArenaBlockPool : public std::enable_shared_from_this<ArenaBlockPool> {
 public:
  // Keeps at most capacity_bytes / block_size blocks of block_size bytes.
  // prepare_ahead > 0: whenever a Take leaves fewer than that many blocks
  // kept, the writers' helper thread (util/thread_pool.h) allocates and
  // faults in blocks until the pool keeps that many again (within the
  // capacity). Only a pool owned by a std::shared_ptr prepares (the
  // helper's job holds a reference).
  ArenaBlockPool(size_t block_size, size_t capacity_bytes,
                 size_t prepare_ahead = 0);
  // Frees the blocks it keeps.
  ~ArenaBlockPool();

  ArenaBlockPool(const ArenaBlockPool&) = delete;
  ArenaBlockPool& operator=(const ArenaBlockPool&) = delete;

  size_t block_size() const { return block_size_; }

  // A kept block (its contents are whatever its last arena left, or
  // zeros when prepared), or nullptr when none is kept. prepare_more: the
  // caller will want more, so prepare blocks ahead if too few are left.
  char* Take(bool prepare_more = true) EXCLUDES(mu_);

  // Asks the helper to prepare blocks if fewer than prepare_ahead are
  // kept, as a Take that leaves them would: for a caller that is about to
  // want blocks but takes none yet.
  void PrepareAhead() EXCLUDES(mu_);

  // Keeps block (allocated by Arena::NewBlock(block_size())) and returns
  // true, or returns false when the pool is full: the caller frees it.
  bool Give(char* block) EXCLUDES(mu_);

  // Bytes of the blocks kept now.
  size_t PooledBytes() const EXCLUDES(mu_);

  // Blocks the helper has prepared so far (allocated and faulted in). To
  // wait for a preparation to end: WritersHelper()->WaitForJobs().
  uint64_t PreparedBlocks() const {
    return prepared_blocks_.load(std::memory_order_relaxed);
  }

 private:
  // True, and a preparation counted as queued, if fewer than
  // prepare_ahead_ blocks are kept and none is queued or running.
  bool StartPreparingIfLow() REQUIRES(mu_);
  // Queues the preparation StartPreparingIfLow started, on the writers'
  // helper (or ends it, for a pool no shared_ptr owns).
  void SchedulePreparation() EXCLUDES(mu_);
  // The helper's job: prepares blocks until prepare_ahead_ are kept.
  static void PrepareJob(void* arg);
  void Prepare() EXCLUDES(mu_);

  const size_t block_size_;
  const size_t max_blocks_;
  const size_t prepare_ahead_;
  mutable Mutex mu_;
  std::vector<char*> blocks_ GUARDED_BY(mu_);
  // A preparation is queued or running.
  bool preparing_ GUARDED_BY(mu_) = false;
  std::atomic<uint64_t> prepared_blocks_{0};
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

  // Asks the pool, if any, to prepare blocks ahead now
  // (ArenaBlockPool::PrepareAhead): the arena's first block asks for
  // none, so its owner calls this once it knows it will be written to.
  // Thread-safe.
  void PrepareAhead() {
    if (pool_ != nullptr) pool_->PrepareAhead();
  }

  // A block of `bytes` bytes, as the arena and its pool allocate them (see
  // the file comment: huge-page aligned when bytes is a multiple of
  // kHugePageSize), and its release. With small_pages such a block is
  // mapped as well but advised out of huge pages (MADV_NOHUGEPAGE): the
  // arena's own blocks when its pool has none ready, which its writer
  // faults in. Throws std::bad_alloc as new does.
  static char* NewBlock(size_t bytes, bool small_pages = false);
  static void DeleteBlock(char* block, size_t bytes);

  // The transparent huge page size the arena aligns its blocks to.
  static constexpr size_t kHugePageSize = size_t{2} << 20;

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

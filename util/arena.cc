// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/arena.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <cstdint>
#include <memory>
#include <new>
#include <utility>

#include "util/page_touch.h"
#include "util/thread_pool.h"

#if defined(CASCADEDB_ASAN)
#include <sanitizer/asan_interface.h>
#define CASCADEDB_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define CASCADEDB_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define CASCADEDB_POISON(p, n) ((void)(p), (void)(n))
#define CASCADEDB_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace cascadedb {

namespace {

// Blocks come from operator new[], whose result is aligned for any
// fundamental type, or from mmap (page-aligned); AllocateAligned() relies
// on a fresh block start being aligned.
static_assert(Arena::kAlignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__,
              "fresh arena blocks must satisfy kAlignment");
static_assert((Arena::kAlignment & (Arena::kAlignment - 1)) == 0,
              "kAlignment must be a power of two");

constexpr size_t kMinBlockSize = 64;

// True for the blocks NewBlock maps for huge pages (and DeleteBlock must
// unmap): a multiple of the huge page size, on a platform that has them.
bool MappedForHugePages(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  return bytes % Arena::kHugePageSize == 0;
#else
  (void)bytes;
  return false;
#endif
}

}  // namespace

// ---------------------------------------------------------------- blocks

char* Arena::NewBlock(size_t bytes, bool small_pages) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (MappedForHugePages(bytes) && small_pages) {
    // Mapped all the same (DeleteBlock unmaps it), but kept out of huge
    // pages even where they are on for every mapping.
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::madvise(p, bytes, MADV_NOHUGEPAGE);
    return static_cast<char*>(p);
  }
  if (MappedForHugePages(bytes)) {
    // Map a huge page more than asked and trim both ends, so the block
    // starts on a huge page boundary (what the kernel needs to back it
    // with huge pages) and owns exactly its own pages.
    const size_t span = bytes + kHugePageSize;
    void* p = ::mmap(nullptr, span, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    const uintptr_t start = reinterpret_cast<uintptr_t>(p);
    const uintptr_t aligned =
        (start + kHugePageSize - 1) & ~(uintptr_t{kHugePageSize} - 1);
    if (aligned > start) ::munmap(p, aligned - start);
    const uintptr_t end = aligned + bytes;
    if (start + span > end) {
      ::munmap(reinterpret_cast<void*>(end), start + span - end);
    }
    // Only advice: where transparent huge pages are off, the block gets
    // small pages and works the same.
    ::madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
    return reinterpret_cast<char*>(aligned);
  }
#else
  (void)small_pages;
#endif
  return new char[bytes];
}

void Arena::DeleteBlock(char* block, size_t bytes) {
  if (MappedForHugePages(bytes)) {
    ::munmap(block, bytes);
    return;
  }
  delete[] block;
}

// ---------------------------------------------------------------- pool

ArenaBlockPool::ArenaBlockPool(size_t block_size, size_t capacity_bytes,
                               size_t prepare_ahead)
    : block_size_(block_size < kMinBlockSize ? kMinBlockSize : block_size),
      max_blocks_(capacity_bytes / block_size_),
      prepare_ahead_(prepare_ahead < max_blocks_ ? prepare_ahead
                                                 : max_blocks_) {}

ArenaBlockPool::~ArenaBlockPool() {
  // No preparation runs now: a queued or running one holds a reference.
  MutexLock l(&mu_);
  for (char* block : blocks_) {
    CASCADEDB_UNPOISON(block, block_size_);
    Arena::DeleteBlock(block, block_size_);
  }
}

char* ArenaBlockPool::Take(bool prepare_more) {
  char* block = nullptr;
  bool prepare = false;
  {
    MutexLock l(&mu_);
    if (!blocks_.empty()) {
      block = blocks_.back();
      blocks_.pop_back();
    }
    if (prepare_more) prepare = StartPreparingIfLow();
  }
  if (prepare) SchedulePreparation();
  if (block != nullptr) CASCADEDB_UNPOISON(block, block_size_);
  return block;
}

void ArenaBlockPool::PrepareAhead() {
  bool prepare;
  {
    MutexLock l(&mu_);
    prepare = StartPreparingIfLow();
  }
  if (prepare) SchedulePreparation();
}

bool ArenaBlockPool::StartPreparingIfLow() {
  if (blocks_.size() >= prepare_ahead_ || preparing_) return false;
  preparing_ = true;
  return true;
}

void ArenaBlockPool::SchedulePreparation() {
  std::shared_ptr<ArenaBlockPool> self = weak_from_this().lock();
  if (self == nullptr) {
    MutexLock l(&mu_);
    preparing_ = false;
    return;
  }
  // Keep the helper off this (the writer's) CPU: faulting a huge page in
  // there would hold the writer up as long as doing it itself.
  WritersHelper()->ScheduleBesideCaller(
      &ArenaBlockPool::PrepareJob,
      new std::shared_ptr<ArenaBlockPool>(std::move(self)));
}

void ArenaBlockPool::PrepareJob(void* arg) {
  std::unique_ptr<std::shared_ptr<ArenaBlockPool>> pool(
      static_cast<std::shared_ptr<ArenaBlockPool>*>(arg));
  (*pool)->Prepare();
}

void ArenaBlockPool::Prepare() {
  while (true) {
    {
      MutexLock l(&mu_);
      if (blocks_.size() >= prepare_ahead_) {
        preparing_ = false;
        return;
      }
    }
    // Outside the lock: this is the slow part that Take must not wait for.
    char* block = Arena::NewBlock(block_size_);
    TouchPagesForWrite(block, block_size_);
    prepared_blocks_.fetch_add(1, std::memory_order_relaxed);
    MutexLock l(&mu_);
    if (blocks_.size() >= max_blocks_) {  // arenas gave back meanwhile
      Arena::DeleteBlock(block, block_size_);
      preparing_ = false;
      return;
    }
    CASCADEDB_POISON(block, block_size_);
    blocks_.push_back(block);
  }
}

bool ArenaBlockPool::Give(char* block) {
  MutexLock l(&mu_);
  if (blocks_.size() >= max_blocks_) return false;
  // Under ASan a kept block is poisoned, so a read through a pointer into a
  // dead memtable is still reported as a use after free would be.
  CASCADEDB_POISON(block, block_size_);
  blocks_.push_back(block);
  return true;
}

size_t ArenaBlockPool::PooledBytes() const {
  MutexLock l(&mu_);
  return blocks_.size() * block_size_;
}

// ---------------------------------------------------------------- arena

Arena::Arena(size_t block_size, std::shared_ptr<ArenaBlockPool> pool)
    : block_size_(block_size < kMinBlockSize ? kMinBlockSize : block_size),
      pool_(pool != nullptr && pool->block_size() == block_size_
                ? std::move(pool)
                : nullptr) {}

Arena::~Arena() {
  for (char* block : blocks_) {
    if (pool_ == nullptr || !pool_->Give(block)) {
      DeleteBlock(block, block_size_);
    }
  }
  for (char* block : large_blocks_) {
    delete[] block;
  }
}

char* Arena::AllocateAligned(size_t bytes) {
  assert(bytes > 0);
  const size_t misalignment =
      reinterpret_cast<uintptr_t>(alloc_ptr_) & (kAlignment - 1);
  const size_t padding = misalignment == 0 ? 0 : kAlignment - misalignment;
  if (padding + bytes <= alloc_bytes_remaining_) {
    char* result = alloc_ptr_ + padding;
    alloc_ptr_ += padding + bytes;
    alloc_bytes_remaining_ -= padding + bytes;
    return result;
  }
  // A fresh block (shared or dedicated) starts aligned.
  char* result = AllocateFallback(bytes);
  assert((reinterpret_cast<uintptr_t>(result) & (kAlignment - 1)) == 0);
  return result;
}

char* Arena::AllocateFallback(size_t bytes) {
  if (bytes > block_size_ / 4) {
    // A large request gets a block of its own, so the rest of the current
    // block stays usable for the small requests that follow.
    return AllocateNewBlock(bytes);
  }
  // Start a new shared block. The tail of the old one (under a quarter of
  // a block, since a request of at most a quarter did not fit) is wasted.
  alloc_ptr_ = AllocateNewBlock(block_size_);
  alloc_bytes_remaining_ = block_size_;
  char* result = alloc_ptr_;
  alloc_ptr_ += bytes;
  alloc_bytes_remaining_ -= bytes;
  return result;
}

size_t Arena::AllocatableBelow(size_t usage_limit) const {
  const size_t usage = MemoryUsage();
  if (usage >= usage_limit) return 0;
  // Each further block adds block_cost to the usage; requests go on into
  // it only if the usage is still below the limit after it.
  const size_t block_cost = block_size_ + sizeof(char*);
  const size_t more_blocks = (usage_limit - usage - 1) / block_cost;
  return alloc_bytes_remaining_ + more_blocks * block_size_;
}

char* Arena::AllocateNewBlock(size_t block_bytes) {
  char* block = nullptr;
  if (block_bytes == block_size_) {
    // An arena still on its first block may be a memtable no one writes
    // to yet (a DB opened and not written since; a read-only DB's
    // memtables have no pool): it asks for no blocks ahead yet, and its
    // memtable asks at its first write, through PrepareAhead.
    if (pool_ == nullptr) {
      block = NewBlock(block_bytes);
    } else {
      block = pool_->Take(/*prepare_more=*/!blocks_.empty());
      // The pool ran dry, and this (the writer's) thread faults the block
      // in. In small pages, a page at a time as it fills the block: on a
      // VM a huge page the host has taken back costs 6-10 ms to fault in,
      // all in one write (docs/design/20261128-huge-page-memtables.md).
      if (block == nullptr) block = NewBlock(block_bytes, /*small_pages=*/true);
    }
    blocks_.push_back(block);
  } else {
    block = new char[block_bytes];
    large_blocks_.push_back(block);
  }
  // Only this (the allocating) thread writes memory_usage_, so a relaxed
  // read-modify-write is race-free; readers only need an eventually
  // up-to-date number (see MemoryUsage()).
  memory_usage_.fetch_add(block_bytes + sizeof(char*),
                          std::memory_order_relaxed);
  return block;
}

}  // namespace cascadedb

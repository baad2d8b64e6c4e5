// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/arena.h"

#include <utility>

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
// fundamental type; AllocateAligned() relies on a fresh block start being
// aligned.
static_assert(Arena::kAlignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__,
              "fresh arena blocks must satisfy kAlignment");
static_assert((Arena::kAlignment & (Arena::kAlignment - 1)) == 0,
              "kAlignment must be a power of two");

constexpr size_t kMinBlockSize = 64;

}  // namespace

// ---------------------------------------------------------------- pool

ArenaBlockPool::ArenaBlockPool(size_t block_size, size_t capacity_bytes)
    : block_size_(block_size < kMinBlockSize ? kMinBlockSize : block_size),
      max_blocks_(capacity_bytes / block_size_) {}

ArenaBlockPool::~ArenaBlockPool() {
  MutexLock l(&mu_);
  for (char* block : blocks_) {
    CASCADEDB_UNPOISON(block, block_size_);
    delete[] block;
  }
}

char* ArenaBlockPool::Take() {
  char* block = nullptr;
  {
    MutexLock l(&mu_);
    if (blocks_.empty()) return nullptr;
    block = blocks_.back();
    blocks_.pop_back();
  }
  CASCADEDB_UNPOISON(block, block_size_);
  return block;
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
    if (pool_ == nullptr || !pool_->Give(block)) delete[] block;
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
    if (pool_ != nullptr) block = pool_->Take();
    if (block == nullptr) block = new char[block_bytes];
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

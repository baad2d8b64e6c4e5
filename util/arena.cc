// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/arena.h"

#include <algorithm>

#include "util/prefault.h"

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

// Regular blocks at least this large are prefaulted step by step
// (Arena::kPrefaultStep) as the bump pointer advances: a memtable's blocks
// (512 KiB-1 MiB) are always used to the end, and one system call per step
// replaces a fault per page. Smaller blocks are left to fault as they are
// touched.
constexpr size_t kPrefaultMinBlock = 64 << 10;
constexpr uintptr_t kPage = 4096;

}  // namespace

Arena::Arena(size_t block_size)
    : block_size_(block_size < kMinBlockSize ? kMinBlockSize : block_size),
      prefault_(block_size_ >= kPrefaultMinBlock) {}

Arena::~Arena() {
  for (char* block : blocks_) {
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
  if (GrowWindow(padding + bytes)) {
    char* result = alloc_ptr_ + padding;
    alloc_ptr_ += padding + bytes;
    alloc_bytes_remaining_ -= padding + bytes;
    return result;
  }
  // A fresh block (shared or dedicated) starts aligned.
  char* result = AllocateFromNewBlock(bytes);
  assert((reinterpret_cast<uintptr_t>(result) & (kAlignment - 1)) == 0);
  return result;
}

bool Arena::GrowWindow(size_t bytes) {
  if (unfaulted_ == 0 || bytes > alloc_bytes_remaining_ + unfaulted_) {
    return false;
  }
  char* const window_end = alloc_ptr_ + alloc_bytes_remaining_;
  // The new end: a step past the old one (or as far as `bytes` needs),
  // on a page boundary so the next step starts on a whole page.
  const uintptr_t want = reinterpret_cast<uintptr_t>(window_end) +
                         std::max(kPrefaultStep,
                                  bytes > alloc_bytes_remaining_
                                      ? bytes - alloc_bytes_remaining_
                                      : size_t{0});
  const size_t grow = std::min(
      unfaulted_, static_cast<size_t>(((want + kPage - 1) & ~(kPage - 1)) -
                                      reinterpret_cast<uintptr_t>(window_end)));
  // From the start of window_end's page: its head may not have been
  // prefaulted yet (a block need not start on a page); re-populating a
  // mapped page is a no-op.
  char* const from = std::max(
      block_start_, reinterpret_cast<char*>(
                        reinterpret_cast<uintptr_t>(window_end) & ~(kPage - 1)));
  PrefaultWritable(from, static_cast<size_t>(window_end + grow - from));
  alloc_bytes_remaining_ += grow;
  unfaulted_ -= grow;
  return bytes <= alloc_bytes_remaining_;
}

char* Arena::AllocateFallback(size_t bytes) {
  if (GrowWindow(bytes)) {
    char* result = alloc_ptr_;
    alloc_ptr_ += bytes;
    alloc_bytes_remaining_ -= bytes;
    return result;
  }
  return AllocateFromNewBlock(bytes);
}

char* Arena::AllocateFromNewBlock(size_t bytes) {
  if (bytes > block_size_ / 4) {
    // A large request gets a block of its own, so the rest of the current
    // block stays usable for the small requests that follow. It is about
    // to be written whole: prefault it whole.
    char* block = AllocateNewBlock(bytes);
    if (prefault_) PrefaultWritable(block, bytes);
    return block;
  }
  // Start a new shared block. The tail of the old one (under a quarter of
  // a block, since a request of at most a quarter did not fit) is wasted.
  alloc_ptr_ = AllocateNewBlock(block_size_);
  block_start_ = alloc_ptr_;
  alloc_bytes_remaining_ = block_size_;
  unfaulted_ = 0;
  if (prefault_) {
    alloc_bytes_remaining_ = 0;
    unfaulted_ = block_size_;
    GrowWindow(bytes);
  }
  char* result = alloc_ptr_;
  alloc_ptr_ += bytes;
  alloc_bytes_remaining_ -= bytes;
  return result;
}

char* Arena::AllocateNewBlock(size_t block_bytes) {
  char* block = new char[block_bytes];
  blocks_.push_back(block);
  // Only this (the allocating) thread writes memory_usage_, so a relaxed
  // read-modify-write is race-free; readers only need an eventually
  // up-to-date number (see MemoryUsage()).
  memory_usage_.fetch_add(block_bytes + sizeof(char*),
                          std::memory_order_relaxed);
  return block;
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/block_admission.h"

namespace cascadedb {

namespace {

// splitmix64's finalizer: every input bit moves every output bit.
uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace

BlockAdmission::BlockAdmission(size_t cache_capacity, size_t block_size) {
  size_t want = kMinSlots;
  if (block_size > 0) {
    const size_t blocks = cache_capacity / block_size;
    if (blocks <= kMaxSlots / 4 && 4 * blocks > want) want = 4 * blocks;
    if (blocks > kMaxSlots / 4) want = kMaxSlots;
  }
  size_t n = kMinSlots;
  while (n < want) n <<= 1;
  slots_.reset(new std::atomic<uint64_t>[n]);
  for (size_t i = 0; i < n; ++i) {
    slots_[i].store(0, std::memory_order_relaxed);
  }
  mask_ = n - 1;
}

bool BlockAdmission::AdmitOnMiss(uint64_t cache_id, uint64_t offset) {
  const uint64_t h = Mix(Mix(cache_id) ^ offset) | 1;  // never 0 (empty)
  std::atomic<uint64_t>& slot = slots_[h & mask_];
  if (slot.load(std::memory_order_relaxed) == h) {
    slot.store(0, std::memory_order_relaxed);  // the next miss must recur
    return true;
  }
  slot.store(h, std::memory_order_relaxed);
  return false;
}

}  // namespace cascadedb

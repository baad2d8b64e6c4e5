// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/block_admission.h"

#include <algorithm>

#include "util/hash.h"

namespace cascadedb {

BlockAdmission::BlockAdmission(size_t cache_capacity, size_t block_size) {
  size_t want = kMinSlots;
  if (block_size > 0) {
    const size_t blocks = cache_capacity / block_size;
    want = blocks > kMaxSlots / 4 ? kMaxSlots : std::max(want, 4 * blocks);
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
  const uint64_t h =
      Avalanche64(Avalanche64(cache_id) ^ offset) | 1;  // never 0 (empty)
  std::atomic<uint64_t>& slot = slots_[h & mask_];
  if (slot.load(std::memory_order_relaxed) == h) {
    slot.store(0, std::memory_order_relaxed);  // the next miss must recur
    return true;
  }
  slot.store(h, std::memory_order_relaxed);
  return false;
}

}  // namespace cascadedb

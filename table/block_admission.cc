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
  // The high bits, which no slot index uses, pick the misses that adapt:
  // a quarter of the table's worth of low bits clear, about once per
  // cache-full of misses, without counting them.
  if (((h >> 40) & (mask_ >> 2)) == 0) Adapt();
  const uint64_t window_mask = mask_ >> shift_.load(std::memory_order_relaxed);
  std::atomic<uint64_t>& slot = slots_[h & window_mask];
  if (slot.load(std::memory_order_relaxed) == h) {
    slot.store(0, std::memory_order_relaxed);  // the next miss must recur
    admitted_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  slot.store(h, std::memory_order_relaxed);
  return false;
}

void BlockAdmission::Adapt() {
  const uint64_t hits = hits_.load(std::memory_order_relaxed);
  const uint64_t admitted = admitted_.load(std::memory_order_relaxed);
  // Too little has happened since the last look to judge by (the same
  // block's next miss may call again at once): wait for more.
  if (hits + admitted < kMinEvidence) return;
  hits_.fetch_sub(hits, std::memory_order_relaxed);  // keep what raced in
  admitted_.fetch_sub(admitted, std::memory_order_relaxed);
  const int shift = shift_.load(std::memory_order_relaxed);
  if (hits < kKeepHitsPerAdmission * admitted) {
    if (shift < kMaxShift) shift_.store(shift + 1, std::memory_order_relaxed);
  } else if (hits >= kWidenHitsPerAdmission * admitted) {
    if (shift > 0) shift_.store(shift - 1, std::memory_order_relaxed);
  }
}

}  // namespace cascadedb

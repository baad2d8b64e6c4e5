// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/dynamic_bloom.h"

#include <new>

#include "util/arena.h"
#include "util/hash.h"

namespace cascadedb {

namespace {

constexpr uint32_t kSeed = 0x4d454d42;  // "MEMB"

}  // namespace

DynamicBloom::DynamicBloom(Arena* arena, uint64_t total_bits) {
  const uint64_t line_bits = kLineBytes * 8;
  const uint64_t lines = total_bits / line_bits + (total_bits % line_bits != 0);
  num_lines_ = static_cast<size_t>(lines == 0 ? 1 : lines);
  // One spare line's worth of bytes to align the array to a cache line.
  char* raw = arena->AllocateAligned(MemoryBytes() + kLineBytes - 1);
  const uintptr_t aligned =
      (reinterpret_cast<uintptr_t>(raw) + kLineBytes - 1) &
      ~static_cast<uintptr_t>(kLineBytes - 1);
  words_ = reinterpret_cast<std::atomic<uint64_t>*>(aligned);
  for (size_t i = 0; i < num_lines_ * kWordsPerLine; i++) {
    new (&words_[i]) std::atomic<uint64_t>(0);
  }
}

template <typename SetWord>
void DynamicBloom::AddHash(uint32_t h, SetWord&& set_word) {
  std::atomic<uint64_t>* line =
      words_ + BloomLineIndex(h, num_lines_) * kWordsPerLine;
  uint64_t state = h;
  for (int i = 0; i < kNumProbes; i++) {
    const uint32_t bit = BloomNextProbe(&state);
    set_word(&line[bit >> 6], uint64_t{1} << (bit & 63));
  }
}

uint32_t DynamicBloom::HashOf(const Slice& key) {
  return Hash(key.data(), key.size(), kSeed);
}

void DynamicBloom::Prefetch(uint32_t h) const {
  __builtin_prefetch(words_ + BloomLineIndex(h, num_lines_) * kWordsPerLine, 1,
                     3);
}

void DynamicBloom::Add(uint32_t h) {
  // One writer: a load and a store, no locked read-modify-write.
  AddHash(h, [](std::atomic<uint64_t>* word, uint64_t mask) {
    word->store(word->load(std::memory_order_relaxed) | mask,
                std::memory_order_relaxed);
  });
}

void DynamicBloom::AddConcurrently(uint32_t h) {
  AddHash(h, [](std::atomic<uint64_t>* word, uint64_t mask) {
    // Skip the locked operation when the bit is already set.
    if ((word->load(std::memory_order_relaxed) & mask) == 0) {
      word->fetch_or(mask, std::memory_order_relaxed);
    }
  });
}

bool DynamicBloom::MayContain(const Slice& key) const {
  const uint32_t h = HashOf(key);
  const std::atomic<uint64_t>* line =
      words_ + BloomLineIndex(h, num_lines_) * kWordsPerLine;
  uint64_t state = h;
  for (int i = 0; i < kNumProbes; i++) {
    const uint32_t bit = BloomNextProbe(&state);
    if ((line[bit >> 6].load(std::memory_order_relaxed) &
         (uint64_t{1} << (bit & 63))) == 0) {
      return false;
    }
  }
  return true;
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The cache-local ("blocked") bloom layout's arithmetic, shared by the
// tables' filter (util/bloom.cc) and the memtable's DynamicBloom
// (util/dynamic_bloom.h): a 32-bit hash picks one 512-bit line by
// multiply-shift, and each probe's bit in that line is the top 9 bits of a
// multiplicative remix of a probe state. The tables' filter format
// (docs/format/bloom.md) depends on these constants: never change them.

#ifndef CASCADEDB_UTIL_BLOOM_LINE_H_
#define CASCADEDB_UTIL_BLOOM_LINE_H_

#include <cstddef>
#include <cstdint>

namespace cascadedb {

constexpr size_t kBloomLineBytes = 64;
constexpr int kBloomLineBitsLog2 = 9;  // 512 bits per line
constexpr uint64_t kBloomProbeMultiplier = 0x9e3779b97f4a7c15ull;  // odd

// Maps h uniformly onto [0, num_lines) by multiply-shift.
inline size_t BloomLineIndex(uint32_t h, size_t num_lines) {
  return static_cast<size_t>(
      (static_cast<uint64_t>(h) * static_cast<uint64_t>(num_lines)) >> 32);
}

// Advances the probe state and returns the next probe's bit index in the
// line: multiplying by an odd constant makes the top bits depend on every
// bit of the state.
inline uint32_t BloomNextProbe(uint64_t* state) {
  *state *= kBloomProbeMultiplier;
  return static_cast<uint32_t>(*state >> (64 - kBloomLineBitsLog2));
}

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_BLOOM_LINE_H_

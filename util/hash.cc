// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The hash walks the input in 8-byte little-endian words. Each word is
// scrambled (multiply, rotate, multiply) before it is xor-ed into a 64-bit
// state, which is then rotated and stepped by a multiply-add so every word
// influences every later one. The 0..7 trailing bytes form one last word.
// The length is folded in at the end and the state goes through a full
// avalanche finalizer, then its halves are xor-ed into 32 bits.
//
// Words are read with DecodeFixed64, so the result is the same on every
// byte order, as the bloom filter's on-disk format requires.

#include "util/hash.h"

#include "util/coding.h"

namespace cascadedb {

namespace {

constexpr uint64_t kWordMul1 = 0x87c37b91114253d5ull;
constexpr uint64_t kWordMul2 = 0x4cf5ad432745937full;
constexpr uint64_t kStepAdd = 0x52dce729ull;

inline uint64_t Rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Scrambles one input word so that nearby inputs produce distant words.
inline uint64_t ScrambleWord(uint64_t w) {
  w *= kWordMul1;
  w = Rotl64(w, 31);
  w *= kWordMul2;
  return w;
}

}  // namespace

uint32_t HashFromState(const char* data, size_t n, uint64_t state) {
  uint64_t h = state;
  const char* p = data;
  size_t left = n;
  while (left >= 8) {
    h ^= ScrambleWord(DecodeFixed64(p));
    h = Rotl64(h, 27) * 5 + kStepAdd;
    p += 8;
    left -= 8;
  }
  if (left > 0) {
    uint64_t w = 0;
    for (size_t i = 0; i < left; ++i) {
      w |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    }
    h ^= ScrambleWord(w);
  }
  // Folding in the length separates inputs that differ only in trailing
  // zero bytes.
  h ^= static_cast<uint64_t>(n);
  h = Avalanche64(h);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

}  // namespace cascadedb

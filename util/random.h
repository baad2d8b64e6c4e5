// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Small, fast, deterministic pseudo-random generators for tests, benchmarks,
// skiplist node heights and jitter. Not for anything security-sensitive.
//
// Both generators run the SplitMix64 sequence: a 64-bit counter advanced by
// an odd constant and passed through a strong finalizer. Every seed,
// including 0, gives a full-period, well-mixed stream, and the same seed
// always gives the same stream on every platform.
//
// Thread safety: thread-compatible. Give each thread its own generator.

#ifndef CASCADEDB_UTIL_RANDOM_H_
#define CASCADEDB_UTIL_RANDOM_H_

#include <cassert>
#include <cstdint>

namespace cascadedb {

namespace random_internal {

// One SplitMix64 step: advances *state and returns the mixed output.
inline uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace random_internal

// A 32-bit generator.
class Random {
 public:
  explicit Random(uint32_t seed) : state_(seed) {}

  // The next value, uniform over [0, 2^32).
  uint32_t Next() {
    return static_cast<uint32_t>(random_internal::SplitMix64(&state_) >> 32);
  }

  // A value uniform over [0, n). REQUIRES: n > 0.
  uint32_t Uniform(int n) {
    assert(n > 0);
    // Multiply-shift maps [0, 2^32) onto [0, n) with a bias below n / 2^32,
    // far below anything a test or benchmark could observe.
    return static_cast<uint32_t>(
        (static_cast<uint64_t>(Next()) * static_cast<uint32_t>(n)) >> 32);
  }

  // True with probability about 1/n. REQUIRES: n > 0.
  bool OneIn(int n) { return Uniform(n) == 0; }

  // Picks a bit count b uniformly from [0, max_log], then returns a value
  // uniform over [0, 2^b): small values are exponentially more likely.
  // REQUIRES: 0 <= max_log <= 30.
  uint32_t Skewed(int max_log) {
    assert(max_log >= 0 && max_log <= 30);
    return Uniform(1 << Uniform(max_log + 1));
  }

 private:
  uint64_t state_;
};

// A 64-bit generator.
class Random64 {
 public:
  explicit Random64(uint64_t seed) : state_(seed) {}

  // The next value, uniform over [0, 2^64).
  uint64_t Next() { return random_internal::SplitMix64(&state_); }

  // A value uniform over [0, n). REQUIRES: n > 0.
  uint64_t Uniform(uint64_t n) {
    assert(n > 0);
#if defined(__SIZEOF_INT128__)
    // 128-bit multiply-shift; bias below n / 2^64.
    __extension__ using U128 = unsigned __int128;
    return static_cast<uint64_t>((static_cast<U128>(Next()) * n) >> 64);
#else
    return Next() % n;  // Bias below n / 2^64 as well.
#endif
  }

  // True with probability about 1/n. REQUIRES: n > 0.
  bool OneIn(uint64_t n) { return Uniform(n) == 0; }

 private:
  uint64_t state_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_RANDOM_H_

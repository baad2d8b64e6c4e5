// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// A fast, well-mixed, non-cryptographic 32-bit hash of a byte string, used by
// the bloom filter and to pick LRU cache shards. The result is part of the
// bloom filter's on-disk format: it must never change for a given input and
// seed, and it does not depend on the machine's byte order.
//
// Thread safety: thread-safe.

#ifndef CASCADEDB_UTIL_HASH_H_
#define CASCADEDB_UTIL_HASH_H_

#include <cstddef>
#include <cstdint>

namespace cascadedb {

// A bijective finalizer of a 64-bit value in which every input bit affects
// every output bit with probability close to one half. Part of Hash, so it
// must never change either.
constexpr uint64_t Avalanche64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

// The state Hash starts from for seed: the seed spread over all 64 bits,
// so nearby seeds (0, 1, 2, ...) start from unrelated states. A constant
// expression for a constant seed, as every caller's is, so the spreading
// (three dependent multiplies) costs nothing at run time.
constexpr uint64_t HashSeedState(uint32_t seed) {
  return Avalanche64((static_cast<uint64_t>(seed) + 1) * 0x9e3779b97f4a7c15ull);
}

// Hash, from a state HashSeedState made.
uint32_t HashFromState(const char* data, size_t n, uint64_t state);

// Returns a 32-bit hash of data[0, n). Different seeds give independent-
// looking hash functions of the same input.
inline uint32_t Hash(const char* data, size_t n, uint32_t seed) {
  return HashFromState(data, n, HashSeedState(seed));
}

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_HASH_H_

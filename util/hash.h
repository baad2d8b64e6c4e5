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

// Returns a 32-bit hash of data[0, n). Different seeds give independent-
// looking hash functions of the same input.
uint32_t Hash(const char* data, size_t n, uint32_t seed);

// A bijective finalizer of a 64-bit value in which every input bit affects
// every output bit with probability close to one half. Part of Hash, so it
// must never change either.
inline uint64_t Avalanche64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_HASH_H_

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

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_HASH_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// DynamicBloom: an in-memory bloom filter that keys are added to while other
// threads query it - the memtable's filter over its user keys, so a point
// lookup of a key the memtable does not hold skips the skiplist walk (about
// twenty cache misses on a 64 MiB memtable) for one probe of one cache line.
//
// Layout: whole 512-bit lines of 64-bit words, 64-byte aligned. A key's
// 32-bit hash picks its line by multiply-shift; every probe falls inside
// that line (a multiplicative remix of the hash gives the bit), so an add or
// a query touches one cache line. Nothing is persisted: the format can
// change freely.
//
// Thread safety: MayContain may run concurrently with Add (one writer at a
// time) or AddConcurrently (any number). Bits are set with relaxed
// atomics: a reader that must see a key (one whose write it knows
// completed, e.g. through the DB's published sequence number, an acquire)
// sees its bits, because they were set before that release.

#ifndef CASCADEDB_UTIL_DYNAMIC_BLOOM_H_
#define CASCADEDB_UTIL_DYNAMIC_BLOOM_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "cascadedb/slice.h"
#include "util/bloom_line.h"

namespace cascadedb {

class Arena;

class DynamicBloom {
 public:
  // Probes per key. With ~20 bits per key (a 64 MiB memtable of ~100-byte
  // entries at the default size ratio) the false-positive rate is ~0.1%;
  // at 8 bits per key ~3%.
  static constexpr int kNumProbes = 6;

  // A filter of total_bits rounded up to whole 512-bit lines (at least
  // one), allocated from arena (which must outlive it) and zeroed.
  DynamicBloom(Arena* arena, uint64_t total_bits);
  DynamicBloom(const DynamicBloom&) = delete;
  DynamicBloom& operator=(const DynamicBloom&) = delete;

  // The hash of key that Add and AddConcurrently take: a writer computes
  // it first, Prefetch()es the key's line, does its other work while the
  // line comes in, then adds.
  static uint32_t HashOf(const Slice& key);

  // Starts loading the cache line of hash h.
  void Prefetch(uint32_t h) const;

  // Adds the key of hash h. REQUIRES: no other Add or AddConcurrently at
  // the same time.
  void Add(uint32_t h);

  // Adds the key of hash h; any number of threads may call it at once.
  void AddConcurrently(uint32_t h);

  void Add(const Slice& key) { Add(HashOf(key)); }
  void AddConcurrently(const Slice& key) { AddConcurrently(HashOf(key)); }

  // False if key was certainly never added; true if it may have been.
  bool MayContain(const Slice& key) const;

  // Bytes of the bit array.
  size_t MemoryBytes() const { return num_lines_ * kLineBytes; }

 private:
  static constexpr size_t kLineBytes = kBloomLineBytes;
  static constexpr size_t kWordsPerLine = kLineBytes / sizeof(uint64_t);

  template <typename SetWord>
  void AddHash(uint32_t h, SetWord&& set_word);

  size_t num_lines_;
  std::atomic<uint64_t>* words_;  // num_lines_ * kWordsPerLine, in the arena
};

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_DYNAMIC_BLOOM_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Keys and values for db_bench workloads, and the set of live keys used to
// estimate space amplification.
//
// Keys are the key index in zero-padded decimal, --key_size bytes long
// ("0000000000001234" for 1234 with 16-byte keys), so they sort like their
// index and read well in dumps. A missing key (readmissing) has the same
// length but ends in '.', which no written key contains.
//
// Values come from a buffer of compressible random text: every 100-byte
// piece repeats a random printable string of 100 * --compression_ratio
// bytes, so block compression shrinks values to about that fraction (the
// classic LevelDB/RocksDB db_bench arrangement).
//
// Thread safety: KeyFormatter is immutable (thread-safe). ValueGenerator is
// not thread-safe (one per thread). LiveKeySet is thread-safe.
#ifndef CASCADEDB_BENCHMARKS_DB_BENCH_GENERATORS_H_
#define CASCADEDB_BENCHMARKS_DB_BENCH_GENERATORS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace cascadedb {
namespace db_bench {

// Decimal digits needed to write n (1 for 0).
int DecimalDigits(uint64_t n);

class KeyFormatter {
 public:
  // REQUIRES: key_size >= DecimalDigits(largest index used).
  explicit KeyFormatter(int key_size) : key_size_(key_size) {}

  int key_size() const { return key_size_; }
  // Writes key index k into buf (key_size bytes) and returns a view of it.
  std::string_view Format(uint64_t k, char* buf) const;
  // The key for k with its last byte replaced by '.': never written.
  std::string_view FormatMissing(uint64_t k, char* buf) const;

 private:
  const int key_size_;
};

class ValueGenerator {
 public:
  // A buffer of at least max(1 MiB, 2 * max_value_size) bytes that
  // compresses to about compression_ratio of its size. REQUIRES:
  // 0 < compression_ratio <= 1.
  ValueGenerator(uint64_t seed, double compression_ratio,
                 size_t max_value_size);

  // The next len bytes of the buffer (wrapping), borrowed until the
  // generator is destroyed. REQUIRES: len <= max_value_size.
  std::string_view Next(size_t len);

 private:
  std::string data_;
  size_t pos_ = 0;
};

// Which key indexes are live (written and not deleted), and which of them
// hold fill100K's large values, so live data can be counted exactly.
class LiveKeySet {
 public:
  explicit LiveKeySet(uint64_t num_keys);

  uint64_t capacity() const { return num_keys_; }
  // Starts fetching k's bits into the CPU's caches: called before the
  // engine's write of k, the Put or Delete after it finds them there
  // instead of waiting for memory (a random key's bits were a cache miss,
  // ~5% of a writer's CPU in fillrandom).
  void Prefetch(uint64_t k) const {
    if (k < num_keys_) __builtin_prefetch(&groups_[k / 64], 1);
  }
  void Put(uint64_t k, bool large);
  void Delete(uint64_t k);
  // Forgets every key (a fresh database).
  void Clear();
  void Count(uint64_t* live, uint64_t* live_large) const;

 private:
  // The bits of 64 keys, side by side on one cache line: which are live,
  // and which of those hold large values.
  struct alignas(16) Group {
    std::atomic<uint64_t> live{0};
    std::atomic<uint64_t> large{0};
  };

  const uint64_t num_keys_;
  const size_t num_groups_;
  std::unique_ptr<Group[]> groups_;
};

}  // namespace db_bench
}  // namespace cascadedb

#endif  // CASCADEDB_BENCHMARKS_DB_BENCH_GENERATORS_H_

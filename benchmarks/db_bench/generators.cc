// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Key formatting, compressible value generation and the live-key set for
// db_bench (see generators.h).

#include "benchmarks/db_bench/generators.h"

#include <algorithm>
#include <cstring>

#include "util/random.h"

namespace cascadedb {
namespace db_bench {

int DecimalDigits(uint64_t n) {
  int digits = 1;
  while (n >= 10) {
    n /= 10;
    digits++;
  }
  return digits;
}

// ---------------------------------------------------------------- keys

std::string_view KeyFormatter::Format(uint64_t k, char* buf) const {
  // Digits right to left, then zeros: the same bytes as printf("%0*llu")
  // without the formatting cost on the hot path.
  int i = key_size_;
  while (i > 0 && k > 0) {
    buf[--i] = static_cast<char>('0' + k % 10);
    k /= 10;
  }
  if (i > 0) std::memset(buf, '0', static_cast<size_t>(i));
  return std::string_view(buf, static_cast<size_t>(key_size_));
}

std::string_view KeyFormatter::FormatMissing(uint64_t k, char* buf) const {
  std::string_view key = Format(k, buf);
  if (key_size_ > 0) buf[key_size_ - 1] = '.';
  return key;
}

// ---------------------------------------------------------------- values

ValueGenerator::ValueGenerator(uint64_t seed, double compression_ratio,
                               size_t max_value_size) {
  const size_t size = std::max<size_t>(1 << 20, 2 * max_value_size);
  Random rnd(static_cast<uint32_t>(seed ^ (seed >> 32)));
  constexpr size_t kPiece = 100;
  const size_t raw_len = std::max<size_t>(
      1, static_cast<size_t>(static_cast<double>(kPiece) * compression_ratio));
  data_.reserve(size + kPiece);
  std::string raw(raw_len, ' ');
  while (data_.size() < size) {
    // A random printable string, repeated to fill the piece: compressors
    // find the repeats, leaving about raw_len bytes per piece.
    for (size_t i = 0; i < raw_len; i++) {
      raw[i] = static_cast<char>(' ' + rnd.Uniform(95));
    }
    for (size_t filled = 0; filled < kPiece; filled += raw_len) {
      data_.append(raw, 0, std::min(raw_len, kPiece - filled));
    }
  }
  data_.resize(size);
}

std::string_view ValueGenerator::Next(size_t len) {
  if (pos_ + len > data_.size()) pos_ = 0;
  std::string_view v(data_.data() + pos_, len);
  pos_ += len;
  return v;
}

// ---------------------------------------------------------------- live keys

LiveKeySet::LiveKeySet(uint64_t num_keys)
    : num_keys_(num_keys),
      num_groups_(static_cast<size_t>((num_keys + 63) / 64)),
      groups_(new Group[num_groups_]) {}

void LiveKeySet::Put(uint64_t k, bool large) {
  if (k >= num_keys_) return;
  const uint64_t bit = uint64_t{1} << (k % 64);
  Group& g = groups_[k / 64];
  // Loads first: most puts in overwrite-heavy runs find the bits already
  // right and skip the read-modify-write.
  if ((g.live.load(std::memory_order_relaxed) & bit) == 0) {
    g.live.fetch_or(bit, std::memory_order_relaxed);
  }
  const bool is_large = (g.large.load(std::memory_order_relaxed) & bit) != 0;
  if (large && !is_large) g.large.fetch_or(bit, std::memory_order_relaxed);
  if (!large && is_large) g.large.fetch_and(~bit, std::memory_order_relaxed);
}

void LiveKeySet::Delete(uint64_t k) {
  if (k >= num_keys_) return;
  const uint64_t bit = uint64_t{1} << (k % 64);
  std::atomic<uint64_t>& live = groups_[k / 64].live;
  if ((live.load(std::memory_order_relaxed) & bit) != 0) {
    live.fetch_and(~bit, std::memory_order_relaxed);
  }
}

void LiveKeySet::Clear() {
  for (size_t i = 0; i < num_groups_; i++) {
    groups_[i].live.store(0, std::memory_order_relaxed);
    groups_[i].large.store(0, std::memory_order_relaxed);
  }
}

void LiveKeySet::Count(uint64_t* live, uint64_t* live_large) const {
  *live = 0;
  *live_large = 0;
  for (size_t i = 0; i < num_groups_; i++) {
    const uint64_t l = groups_[i].live.load(std::memory_order_relaxed);
    const uint64_t lg = groups_[i].large.load(std::memory_order_relaxed);
    *live += static_cast<uint64_t>(__builtin_popcountll(l));
    *live_large += static_cast<uint64_t>(__builtin_popcountll(l & lg));
  }
}

}  // namespace db_bench
}  // namespace cascadedb

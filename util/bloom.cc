// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The cache-local ("blocked") bloom filter behind NewBloomFilterPolicy().
// The byte layout is specified in docs/format/bloom.md; the constants below
// are part of that format and must not change.
//
// A key's first 32-bit hash h1 picks one 512-bit line by multiply-shift;
// every probe of the key then falls inside that line, so a lookup touches one
// cache line. Probe positions come from a multiplicative remix: the first
// half of the probes from h1, the rest from h1 and a second hash h2, which a
// lookup computes only if the first half all hit.
//
// Because keys spread unevenly over lines (Poisson), the best probe count for
// a blocked bloom is lower than the classic bits_per_key * ln 2, noticeably so
// above ~12 bits/key. The policy picks the probe count that minimizes the
// expected false-positive rate of this layout (see ChooseNumProbes).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "cascadedb/filter_policy.h"
#include "util/bloom_line.h"
#include "util/hash.h"
#include "util/key_hash_filter_policy.h"

namespace cascadedb {

namespace {

// ---- Format constants (docs/format/bloom.md). Never change them; the
// line size and the probe arithmetic are in util/bloom_line.h.
constexpr size_t kLineBytes = kBloomLineBytes;
constexpr uint32_t kLineBits = kLineBytes * 8;  // 512
constexpr size_t kTrailerBytes = 2;             // num_probes, format marker
constexpr uint8_t kFormatMarker = 0xC1;
constexpr int kMinProbes = 1;
constexpr int kMaxProbes = 30;
constexpr uint32_t kSeedFirst = 0x43444231;   // h1: line and first probes
constexpr uint32_t kSeedSecond = 0x7f4a7c15;  // h2: the other probes
// ---- End of format constants.

constexpr double kMinBitsPerKey = 1.0;
constexpr double kMaxBitsPerKey = 100.0;

// Probes [0, FirstGroupSize(k)) come from h1 alone, the rest from h1 and h2.
// A lookup of a non-member usually fails within the first group, so it pays
// for one Hash() call; the second group restores 64 bits of hash entropy,
// so keys whose h1 collide are still told apart.
inline int FirstGroupSize(int num_probes) { return (num_probes + 1) / 2; }

inline uint32_t FirstHash(const Slice& key) {
  return Hash(key.data(), key.size(), kSeedFirst);
}

inline uint32_t SecondHash(const Slice& key) {
  return Hash(key.data(), key.size(), kSeedSecond);
}

// The probe states: the first group walks from h1, the second from
// (h2 << 32 | h1).
inline uint64_t FirstState(uint32_t h1) { return h1; }
inline uint64_t SecondState(uint32_t h1, uint32_t h2) {
  return (static_cast<uint64_t>(h2) << 32) | h1;
}

// Bit b of a line is bit (b % 8) of byte (b / 8): byte order independent.
inline void SetBit(uint8_t* line, uint32_t bit) {
  line[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
}
inline bool BitIsSet(const uint8_t* line, uint32_t bit) {
  return (line[bit >> 3] & (1u << (bit & 7))) != 0;
}

// Expected false-positive rate of this layout with k probes and
// bits_per_key: a line holds Poisson(512 / bits_per_key) keys; with m keys
// a bit is still clear with probability (1 - 1/512)^(k m), and a miss has all
// k probes set with about (1 - that)^k.
double ExpectedFalsePositiveRate(double bits_per_key, int k) {
  const double lambda = kLineBits / bits_per_key;
  const double log_clear_per_probe = std::log1p(-1.0 / kLineBits);
  const int max_m = static_cast<int>(lambda + 12 * std::sqrt(lambda) + 20);
  double rate = 0;
  for (int m = 0; m <= max_m; m++) {
    const double log_weight =
        -lambda + m * std::log(lambda) - std::lgamma(m + 1.0);
    const double set = 1.0 - std::exp(k * m * log_clear_per_probe);
    rate += std::exp(log_weight) * std::pow(set, k);
  }
  return rate;
}

int ChooseNumProbes(double bits_per_key) {
  int best_k = kMinProbes;
  double best_rate = ExpectedFalsePositiveRate(bits_per_key, best_k);
  for (int k = kMinProbes + 1; k <= kMaxProbes; k++) {
    const double rate = ExpectedFalsePositiveRate(bits_per_key, k);
    // Ties keep the smaller k: fewer probes are cheaper.
    if (rate < best_rate * (1 - 1e-9)) {
      best_rate = rate;
      best_k = k;
    }
  }
  return best_k;
}

class CacheLocalBloomPolicy final : public KeyHashFilterPolicy {
 public:
  explicit CacheLocalBloomPolicy(double bits_per_key)
      : bits_per_key_(ClampBitsPerKey(bits_per_key)),
        num_probes_(ChooseNumProbes(bits_per_key_)) {}

  const char* Name() const override { return "cascadedb.CacheLocalBloom"; }

  void CreateFilter(const Slice* keys, int n, std::string* dst) const override {
    Build(
        n > 0 ? static_cast<size_t>(n) : 0,
        [this, keys](size_t i) { return KeyHash(keys[i]); }, dst);
  }

  // (h2 << 32 | h1): the second probe group's starting state, whose low
  // half is h1. h2 is left 0 when no probe uses it.
  uint64_t KeyHash(const Slice& key) const override {
    const uint32_t h1 = FirstHash(key);
    const uint32_t h2 =
        FirstGroupSize(num_probes_) < num_probes_ ? SecondHash(key) : 0;
    return SecondState(h1, h2);
  }

  void CreateFilterFromHashes(const uint64_t* hashes, size_t n,
                              std::string* dst) const override {
    Build(
        n, [hashes](size_t i) { return hashes[i]; }, dst);
  }

  bool KeyMayMatch(const Slice& key, const Slice& filter) const override {
    size_t num_lines;
    int num_probes;
    // Unknown format or version, or damaged: "may match" is always safe.
    if (!ReadTrailer(filter, &num_lines, &num_probes)) return true;
    if (num_lines == 0) return false;  // built from no keys
    const uint32_t h1 = FirstHash(key);
    const uint8_t* line = reinterpret_cast<const uint8_t*>(filter.data()) +
                          BloomLineIndex(h1, num_lines) * kLineBytes;
    uint64_t state = FirstState(h1);
    const int first_group = FirstGroupSize(num_probes);
    // Each group is tested without a branch per probe: for a miss the
    // first failing probe is unpredictable, and a mispredicted branch costs
    // more than the few extra probes.
    bool all_set = true;
    for (int p = 0; p < first_group; p++) {
      all_set &= BitIsSet(line, BloomNextProbe(&state));
    }
    if (!all_set) return false;
    if (first_group < num_probes) {
      state = SecondState(h1, SecondHash(key));
      for (int p = first_group; p < num_probes; p++) {
        all_set &= BitIsSet(line, BloomNextProbe(&state));
      }
    }
    return all_set;
  }

  void PrefetchKey(const Slice& key, const Slice& filter) const override {
    size_t num_lines;
    int num_probes;
    if (!ReadTrailer(filter, &num_lines, &num_probes) || num_lines == 0) {
      return;
    }
    __builtin_prefetch(filter.data() +
                       BloomLineIndex(FirstHash(key), num_lines) * kLineBytes);
  }

 private:
  // The number of lines and probes of a filter in this format; false if
  // filter is not one (too short, another format or version, damaged).
  static bool ReadTrailer(const Slice& filter, size_t* num_lines,
                          int* num_probes) {
    const size_t size = filter.size();
    if (size < kTrailerBytes) return false;
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(filter.data());
    const size_t body = size - kTrailerBytes;
    *num_probes = bytes[body];
    if (bytes[body + 1] != kFormatMarker || body % kLineBytes != 0 ||
        *num_probes < kMinProbes || *num_probes > kMaxProbes) {
      return false;
    }
    *num_lines = body / kLineBytes;
    return true;
  }

  // Appends the filter over num_keys keys whose KeyHash is hash_of(i).
  template <typename HashOf>
  void Build(size_t num_keys, HashOf hash_of, std::string* dst) const {
    size_t num_lines = 0;
    if (num_keys > 0) {
      const double bits = static_cast<double>(num_keys) * bits_per_key_;
      num_lines = static_cast<size_t>(std::ceil(bits / kLineBits));
      num_lines = std::max<size_t>(num_lines, 1);
    }
    const size_t start = dst->size();
    dst->resize(start + num_lines * kLineBytes + kTrailerBytes, '\0');
    uint8_t* lines = reinterpret_cast<uint8_t*>(&(*dst)[start]);
    const int first_group = FirstGroupSize(num_probes_);
    for (size_t i = 0; i < num_keys; i++) {
      const uint64_t hash = hash_of(i);
      const uint32_t h1 = static_cast<uint32_t>(hash);
      uint8_t* line = lines + BloomLineIndex(h1, num_lines) * kLineBytes;
      uint64_t state = FirstState(h1);
      for (int p = 0; p < first_group; p++)
        SetBit(line, BloomNextProbe(&state));
      if (first_group < num_probes_) {
        state = hash;  // SecondState(h1, h2)
        for (int p = first_group; p < num_probes_; p++) {
          SetBit(line, BloomNextProbe(&state));
        }
      }
    }
    lines[num_lines * kLineBytes] = static_cast<uint8_t>(num_probes_);
    lines[num_lines * kLineBytes + 1] = kFormatMarker;
  }

  static double ClampBitsPerKey(double bits_per_key) {
    if (!(bits_per_key >= kMinBitsPerKey)) return kMinBitsPerKey;  // and NaN
    return std::min(bits_per_key, kMaxBitsPerKey);
  }

  const double bits_per_key_;
  const int num_probes_;
};

}  // namespace

std::unique_ptr<const FilterPolicy> NewBloomFilterPolicy(double bits_per_key) {
  return std::make_unique<CacheLocalBloomPolicy>(bits_per_key);
}

}  // namespace cascadedb

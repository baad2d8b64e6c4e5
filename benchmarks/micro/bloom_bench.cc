// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Cache-local bloom filter: build cost per key and probe cost per key, for a
// filter that fits in cache and for one far larger than it (10M keys at 10
// bits/key is ~12 MB), where each probe costs one cache (and TLB) miss.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/filter_policy.h"

namespace cascadedb {
namespace {

constexpr size_t kKeySize = 16;

// Key i: 16 bytes, distinct for distinct i. Members use i < n, misses i >= n.
// Two word copies: the key's bytes may differ across byte orders, which is
// fine for a benchmark, and generating it costs ~1 ns.
inline void MakeKey(uint64_t i, char* out) {
  const uint64_t a = i * 0x9e3779b97f4a7c15ull;
  const uint64_t b = ~i;
  std::memcpy(out, &a, sizeof(a));
  std::memcpy(out + 8, &b, sizeof(b));
}

// Owns the bytes of n keys and slices over them.
struct KeySet {
  explicit KeySet(size_t n) : bytes(n * kKeySize, '\0'), slices(n) {
    for (size_t i = 0; i < n; i++) {
      MakeKey(i, &bytes[i * kKeySize]);
      slices[i] = Slice(&bytes[i * kKeySize], kKeySize);
    }
  }
  std::string bytes;
  std::vector<Slice> slices;
};

// BM_BloomAdd/<keys>: building one filter over <keys> keys, per key.
void BM_BloomAdd(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  auto policy = NewBloomFilterPolicy(10);
  KeySet keys(n);
  std::string filter;
  for (auto _ : state) {
    filter.clear();
    policy->CreateFilter(keys.slices.data(), static_cast<int>(n), &filter);
    benchmark::DoNotOptimize(filter.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  state.counters["filter_bytes"] = static_cast<double>(filter.size());
}
BENCHMARK(BM_BloomAdd)->Arg(1000)->Arg(100000)->Arg(1000000);

// A filter built once per key count and shared by the probe benchmarks.
const std::string& SharedFilter(const FilterPolicy& policy, size_t n) {
  static size_t built_for = 0;
  static std::string filter;
  if (built_for != n) {
    KeySet keys(n);
    filter.clear();
    policy.CreateFilter(keys.slices.data(), static_cast<int>(n), &filter);
    built_for = n;
  }
  return filter;
}

// BM_BloomProbe/<keys>/<hit>: KeyMayMatch per key against a filter of
// <keys> keys; hit=1 queries members, hit=0 queries non-members. Query keys
// are generated on the fly (a few ns) so the keys themselves are not a
// second stream of cache misses.
void BM_BloomProbe(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const bool hit = state.range(1) != 0;
  auto policy = NewBloomFilterPolicy(10);
  const std::string& filter = SharedFilter(*policy, n);
  // Walk members (or non-members) in a scattered order.
  const uint64_t base = hit ? 0 : n;
  uint64_t i = 0;
  uint64_t matches = 0;
  char key[kKeySize];
  for (auto _ : state) {
    MakeKey(base + i, key);
    matches += policy->KeyMayMatch(Slice(key, kKeySize), filter);
    i += 7919;
    if (i >= n) i -= n;
  }
  // `matches` is consumed by the match_rate counter, which keeps the probes
  // alive. Do not pass it to DoNotOptimize(T&): with benchmark 1.7.1 and
  // g++ 12 -O3 its "+r,m" constraint made GCC read the wrong stack slot here.
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.counters["filter_MiB"] =
      static_cast<double>(filter.size()) / (1024.0 * 1024.0);
  state.counters["match_rate"] =
      static_cast<double>(matches) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_BloomProbe)
    ->Args({10000, 1})
    ->Args({10000, 0})
    ->Args({10000000, 1})
    ->Args({10000000, 0});

}  // namespace
}  // namespace cascadedb

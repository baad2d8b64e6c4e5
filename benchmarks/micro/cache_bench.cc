// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The sharded LRU cache on its hot paths: Lookup+Release of resident keys
// (the block cache hit path), alone and from two threads, and Insert into a
// full cache, where every insert also evicts.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/cache.h"
#include "util/coding.h"
#include "util/random.h"

namespace cascadedb {
namespace {

void NoopDeleter(const Slice& /*key*/, void* /*value*/) {}

// n distinct 16-byte keys shaped like block cache keys: a cache id and a
// block offset, both fixed64.
std::vector<std::string> MakeKeys(size_t n) {
  std::vector<std::string> keys;
  keys.reserve(n);
  for (size_t i = 0; i < n; i++) {
    std::string key;
    PutFixed64(&key, 7);
    PutFixed64(&key, i * 4096);
    keys.push_back(std::move(key));
  }
  return keys;
}

// The cache and keys shared by every thread of one BM_LRUCacheLookup run.
struct LookupFixture {
  std::shared_ptr<Cache> cache;
  std::vector<std::string> keys;
};
LookupFixture* lookup_fixture = nullptr;

// BM_LRUCacheLookup/<keys>: Lookup and Release of a random resident key, in
// a default-sharded (64 shard) 64 MiB cache holding <keys> entries of charge
// 1, so nothing is ever evicted ("misses" stays 0).
void BM_LRUCacheLookup(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  if (state.thread_index() == 0) {
    // Threads wait at the start of the timed loop, so the others see this.
    lookup_fixture = new LookupFixture;
    lookup_fixture->cache = NewLRUCache(64 << 20);
    lookup_fixture->keys = MakeKeys(n);
    for (const std::string& key : lookup_fixture->keys) {
      lookup_fixture->cache->Insert(key, nullptr, 1, &NoopDeleter, nullptr);
    }
  }
  Random rnd(301 + static_cast<uint32_t>(state.thread_index()));
  int64_t misses = 0;
  for (auto _ : state) {
    const std::string& key =
        lookup_fixture->keys[rnd.Uniform(static_cast<int>(n))];
    Cache::Handle* h = lookup_fixture->cache->Lookup(key);
    if (h != nullptr) {
      lookup_fixture->cache->Release(h);
    } else {
      misses++;
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["misses"] = static_cast<double>(misses);
  if (state.thread_index() == 0) {
    delete lookup_fixture;
    lookup_fixture = nullptr;
  }
}
BENCHMARK(BM_LRUCacheLookup)->RangeMultiplier(16)->Range(64, 256 << 10);
BENCHMARK(BM_LRUCacheLookup)
    ->RangeMultiplier(16)
    ->Range(64, 256 << 10)
    ->Threads(2)
    ->UseRealTime();

// BM_LRUCacheInsert/<keys>: unpinned Insert, cycling through <keys> keys,
// into a default-sharded 16 MiB cache that holds about 4096 entries of
// charge 4 KiB, so nearly every insert also evicts one entry.
void BM_LRUCacheInsert(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const std::vector<std::string> keys = MakeKeys(n);
  std::shared_ptr<Cache> cache = NewLRUCache(4096 * 4096);
  size_t i = 0;
  for (auto _ : state) {
    cache->Insert(keys[i], nullptr, 4096, &NoopDeleter, nullptr);
    if (++i == n) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LRUCacheInsert)->Arg(64 << 10);

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Micro-benchmarks of the SST reader and writer over an in-memory file (so
// they measure CPU: block search, decompression, checksums, the cache and
// the filter, not the disk). The table has 100k entries of 16-byte keys and
// 100-byte values, snappy-compressed 4 KiB blocks, and a block cache large
// enough to hold it all.
//
//   BM_TablePointLookupHit/<bloom>   InternalGet of present keys
//   BM_TablePointLookupMiss/<bloom>  InternalGet of absent keys in range
//   BM_TableSequentialScan/<cached>  full scan (0: no block cache, every
//                                    block read, checked and uncompressed;
//                                    1: every block from a warm cache)
//   BM_TableBuild                    TableBuilder throughput

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/cache.h"
#include "cascadedb/env.h"
#include "cascadedb/filter_policy.h"
#include "cascadedb/iterator.h"
#include "table/compression_queue.h"
#include "table/table.h"
#include "table/table_builder.h"
#include "util/memory_file.h"
#include "util/random.h"

namespace cascadedb {
namespace {

constexpr int kNumEntries = 100000;
constexpr size_t kValueSize = 100;

// Key i ("key" + 13 digits = 16 bytes); even i only are stored, so odd i
// are absent keys that fall inside the table's range.
std::string Key(int i) {
  char buf[32];
  snprintf(buf, sizeof(buf), "key%013d", i);
  return buf;
}

std::string Value(Random* rnd) {
  // Half random, half repeated: compresses to about 60%.
  std::string v(kValueSize, 'v');
  for (size_t i = 0; i < kValueSize / 2; ++i) {
    v[i] = static_cast<char>('a' + rnd->Uniform(26));
  }
  return v;
}

const FilterPolicy* Bloom() {
  static const FilterPolicy* bloom = NewBloomFilterPolicy(10).release();
  return bloom;
}

TableOptions MakeOptions(bool bloom, Cache* cache) {
  TableOptions options;
  options.filter_policy = bloom ? Bloom() : nullptr;
  options.block_cache = cache;
  return options;
}

std::string BuildContents(const TableOptions& options) {
  Random rnd(301);
  MemoryWritableFile file;
  TableBuilder builder(options, &file);
  for (int i = 0; i < kNumEntries; ++i) builder.Add(Key(2 * i), Value(&rnd));
  if (!builder.Finish().ok()) std::abort();
  return std::move(*file.contents());
}

// A built table: three variants, each built once — without a filter, with
// a bloom filter (both with a 256 MiB block cache), and with a bloom filter
// but no block cache (every block read is checksummed and uncompressed).
struct Fixture {
  std::shared_ptr<Cache> cache;
  std::unique_ptr<Table> table;
};

enum Variant { kNoFilter = 0, kBloom = 1, kBloomNoCache = 2 };

Fixture* GetFixture(Variant variant) {
  static Fixture* fixtures[3] = {nullptr, nullptr, nullptr};
  Fixture*& f = fixtures[variant];
  if (f == nullptr) {
    f = new Fixture;
    if (variant != kBloomNoCache) f->cache = NewLRUCache(256 << 20);
    const TableOptions options =
        MakeOptions(variant != kNoFilter, f->cache.get());
    std::string contents = BuildContents(options);
    const uint64_t size = contents.size();
    if (!Table::Open(
             options,
             std::make_unique<MemoryRandomAccessFile>(std::move(contents)),
             size, "bench.sst", &f->table)
             .ok()) {
      std::abort();
    }
  }
  return f;
}

// Key(i) for every i in [0, 2 * kNumEntries), made once.
const std::vector<std::string>& AllKeys() {
  static const std::vector<std::string>* keys = [] {
    auto* v = new std::vector<std::string>;
    for (int i = 0; i < 2 * kNumEntries; ++i) v->push_back(Key(i));
    return v;
  }();
  return *keys;
}

void CountResult(void* arg, const Slice& /*k*/, const Slice& /*v*/) {
  ++*static_cast<int64_t*>(arg);
}

void PointLookups(benchmark::State& state, bool hit) {
  Fixture* f = GetFixture(state.range(0) != 0 ? kBloom : kNoFilter);
  const std::vector<std::string>& keys = AllKeys();
  Random rnd(17);
  int64_t found = 0;
  ReadOptions ro;
  const uint64_t useful_before = f->table->filter_useful();
  const uint64_t positive_before = f->table->filter_positive();
  for (auto _ : state) {
    const int i = static_cast<int>(rnd.Uniform(kNumEntries));
    const std::string& key = keys[2 * i + (hit ? 0 : 1)];
    if (!f->table->InternalGet(ro, key, &found, &CountResult).ok()) {
      state.SkipWithError("InternalGet failed");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
  const double useful =
      static_cast<double>(f->table->filter_useful() - useful_before);
  const double positive =
      static_cast<double>(f->table->filter_positive() - positive_before);
  state.counters["filter_useful_pct"] =
      100.0 * useful / std::max(1.0, useful + positive);
  benchmark::DoNotOptimize(found);
}

void BM_TablePointLookupHit(benchmark::State& state) {
  PointLookups(state, /*hit=*/true);
}
BENCHMARK(BM_TablePointLookupHit)->Arg(0)->Arg(1)->ArgName("bloom");

void BM_TablePointLookupMiss(benchmark::State& state) {
  PointLookups(state, /*hit=*/false);
}
BENCHMARK(BM_TablePointLookupMiss)->Arg(0)->Arg(1)->ArgName("bloom");

void BM_TableSequentialScan(benchmark::State& state) {
  Fixture* f = GetFixture(state.range(0) != 0 ? kBloom : kBloomNoCache);
  ReadOptions ro;
  int64_t bytes = 0;
  {
    // Warm the cache (when there is one) so that "cached" means it.
    std::unique_ptr<Iterator> it(f->table->NewIterator(ro));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
    }
  }
  for (auto _ : state) {
    std::unique_ptr<Iterator> it(f->table->NewIterator(ro));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      bytes += static_cast<int64_t>(it->key().size() + it->value().size());
    }
    if (!it->status().ok()) state.SkipWithError("scan failed");
  }
  state.SetBytesProcessed(bytes);
  state.SetItemsProcessed(state.iterations() * kNumEntries);
}
BENCHMARK(BM_TableSequentialScan)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("cached")
    ->Unit(benchmark::kMillisecond);

// queued=1: data blocks go through a CompressionQueue that nobody helps
// with (the builder compresses them all itself, a few blocks late): the
// queue's own cost.
void BM_TableBuild(benchmark::State& state) {
  TableOptions options = MakeOptions(/*bloom=*/true, nullptr);
  CompressionQueue queue;
  queue.SetHelpersExpected(true);
  if (state.range(0) != 0) options.compression_queue = &queue;
  Random rnd(7);
  std::vector<std::string> values;
  for (int i = 0; i < 1024; ++i) values.push_back(Value(&rnd));
  for (auto _ : state) {
    MemoryWritableFile file;
    file.contents()->reserve(16 << 20);
    TableBuilder builder(options, &file);
    for (int i = 0; i < kNumEntries; ++i) {
      builder.Add(Key(2 * i), values[i % values.size()]);
    }
    if (!builder.Finish().ok()) state.SkipWithError("build failed");
  }
  state.SetBytesProcessed(state.iterations() * kNumEntries *
                          static_cast<int64_t>(16 + kValueSize));
  state.SetItemsProcessed(state.iterations() * kNumEntries);
}
BENCHMARK(BM_TableBuild)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("queued")
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// MemTable costs: insert rate by key order and by writer count, memory per
// entry, point lookups, a full scan (alone, and compressing each value as a
// flush does), and dropping a big memtable. Keys are
// 16-byte zero-padded decimal numbers, values 100 bytes (db_bench's
// defaults), so an entry carries 116 user bytes.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"
#include "db/dbformat.h"
#include "db/memtable.h"
#include "util/compression.h"
#include "util/random.h"

namespace cascadedb {
namespace {

constexpr size_t kKeySize = 16;
constexpr size_t kValueSize = 100;
// About one default 64 MiB write buffer of 16/100 entries.
constexpr int kBufferEntries = 400000;
constexpr int kBigEntries = 1000000;

enum KeyOrder { kSequential = 0, kReverse = 1, kRandom = 2 };

const char* OrderName(int order) {
  switch (order) {
    case kSequential:
      return "sequential";
    case kReverse:
      return "reverse";
    default:
      return "random";
  }
}

std::string Key(uint64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%016llu",
                static_cast<unsigned long long>(n));
  return std::string(buf, kKeySize);
}

// n keys in the given order (random: a shuffled permutation of 0..n-1).
std::vector<std::string> Keys(int n, int order) {
  std::vector<uint64_t> numbers(n);
  for (int i = 0; i < n; i++) numbers[i] = i;
  if (order == kReverse) std::reverse(numbers.begin(), numbers.end());
  if (order == kRandom) {
    Random64 rnd(301);
    for (int i = n - 1; i > 0; i--) {
      std::swap(numbers[i], numbers[rnd.Uniform(i + 1)]);
    }
  }
  std::vector<std::string> keys;
  keys.reserve(n);
  for (uint64_t x : numbers) keys.push_back(Key(x));
  return keys;
}

const InternalKeyComparator& Comparator() {
  static const InternalKeyComparator* cmp =
      new InternalKeyComparator(BytewiseComparator());
  return *cmp;
}

// The sorted structure a benchmark argument names: 0 = the B+-tree (the
// default), 1 = the skiplist.
MemTableRep RepArg(int64_t arg) {
  return arg == 0 ? MemTableRep::kBTree : MemTableRep::kSkipList;
}

MemTable* NewMemTable(size_t arena_block_size,
                      MemTableRep rep = MemTableRep::kBTree) {
  return new MemTable(Comparator(), arena_block_size, /*bloom_bits=*/0, rep);
}

// The arena block size the engine uses for the default 64 MiB buffer.
size_t DefaultBlockSize() { return MemTable::ArenaBlockSizeFor(64 << 20); }

MemTable* Fill(const std::vector<std::string>& keys, size_t block_size,
               MemTableRep rep = MemTableRep::kBTree) {
  MemTable* mem = NewMemTable(block_size, rep);
  const std::string value(kValueSize, 'v');
  SequenceNumber seq = 1;
  for (const std::string& k : keys) {
    Status s = mem->Add(seq++, kTypeValue, k, value);
    if (!s.ok()) std::abort();
  }
  return mem;
}

// Inserts a buffer's worth of entries into a fresh memtable per iteration.
// Args: key order, structure (RepArg).
void BM_MemTableInsert(benchmark::State& state) {
  const int order = static_cast<int>(state.range(0));
  const MemTableRep rep = RepArg(state.range(1));
  const std::vector<std::string> keys = Keys(kBufferEntries, order);
  const std::string value(kValueSize, 'v');
  for (auto _ : state) {
    MemTable* mem = NewMemTable(DefaultBlockSize(), rep);
    SequenceNumber seq = 1;
    for (const std::string& k : keys) {
      Status s = mem->Add(seq++, kTypeValue, k, value);
      benchmark::DoNotOptimize(s);
    }
    state.PauseTiming();
    mem->Unref();
    state.ResumeTiming();
  }
  state.SetLabel(std::string(OrderName(order)) + " " + MemTableRepName(rep));
  state.SetItemsProcessed(state.iterations() * kBufferEntries);
  state.SetBytesProcessed(state.iterations() * kBufferEntries *
                          (kKeySize + kValueSize));
}
BENCHMARK(BM_MemTableInsert)
    ->ArgsProduct({{kSequential, kReverse, kRandom}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// Random-order inserts by several writers into one memtable with
// AddConcurrently. Arg: writer threads; 0 = one writer using Add (the
// single-writer path, for comparison).
void BM_MemTableInsertConcurrently(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::vector<std::string> keys = Keys(kBufferEntries, kRandom);
  const std::string value(kValueSize, 'v');
  for (auto _ : state) {
    MemTable* mem = NewMemTable(DefaultBlockSize());
    if (threads == 0) {
      SequenceNumber seq = 1;
      for (const std::string& k : keys) {
        Status s = mem->Add(seq++, kTypeValue, k, value);
        benchmark::DoNotOptimize(s);
      }
    } else {
      std::vector<std::thread> workers;
      for (int t = 0; t < threads; t++) {
        workers.emplace_back([&, t] {
          MemTableAddStats stats;
          for (int i = t; i < kBufferEntries; i += threads) {
            Status s =
                mem->AddConcurrently(i + 1, kTypeValue, keys[i], value, &stats);
            benchmark::DoNotOptimize(s);
          }
          mem->ApplyAddStats(stats);
        });
      }
      for (std::thread& w : workers) w.join();
    }
    state.PauseTiming();
    mem->Unref();
    state.ResumeTiming();
  }
  state.SetLabel(threads == 0 ? "Add" : "AddConcurrently");
  state.SetItemsProcessed(state.iterations() * kBufferEntries);
}
BENCHMARK(BM_MemTableInsertConcurrently)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Memory per entry after 1M random inserts: arena bytes / entries, with the
// entry encoding, skiplist node and arena slack included. Arg: arena block
// size. Counters: bytes_per_entry, overhead_per_entry (minus the 116 user
// bytes).
void BM_MemTableBytesPerEntry(benchmark::State& state) {
  const size_t block_size = static_cast<size_t>(state.range(0));
  const std::vector<std::string> keys = Keys(kBigEntries, kRandom);
  double bytes_per_entry = 0;
  double overhead = 0;
  for (auto _ : state) {
    MemTable* mem = Fill(keys, block_size);
    bytes_per_entry = mem->BytesPerEntry();
    overhead = mem->OverheadBytesPerEntry();
    mem->Unref();
  }
  state.counters["bytes_per_entry"] = bytes_per_entry;
  state.counters["overhead_per_entry"] = overhead;
}
BENCHMARK(BM_MemTableBytesPerEntry)
    ->Arg(4096)
    ->Arg(1 << 20)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// 1M random-order entries in the given structure, built once per process
// and kept (the lookups and the scan read them).
MemTable* BigMemTable(MemTableRep rep) {
  static MemTable* tables[2] = {nullptr, nullptr};
  MemTable*& mem = tables[rep == MemTableRep::kBTree ? 0 : 1];
  if (mem == nullptr) {
    mem = Fill(Keys(kBigEntries, kRandom), DefaultBlockSize(), rep);
  }
  return mem;
}

// Point lookups on a 1M-entry memtable. Args: 0 = keys present, 1 = absent
// (falling between present keys); structure (RepArg).
void BM_MemTableGet(benchmark::State& state) {
  const bool miss = state.range(0) == 1;
  const MemTableRep rep = RepArg(state.range(1));
  MemTable* mem = BigMemTable(rep);
  std::vector<std::string> probes;
  Random64 rnd(17);
  for (int i = 0; i < 100000; i++) {
    const uint64_t n = rnd.Uniform(kBigEntries);
    probes.push_back(miss ? Key(n) + "x" : Key(n));
  }
  std::string value;
  size_t i = 0;
  int64_t found = 0;
  for (auto _ : state) {
    LookupKey lkey(probes[i], kMaxSequenceNumber);
    Status s;
    found += mem->Get(lkey, &value, &s) ? 1 : 0;
    if (++i == probes.size()) i = 0;
  }
  if ((found > 0) == miss) state.SkipWithError("unexpected lookup results");
  state.SetLabel(std::string(miss ? "miss " : "hit ") + MemTableRepName(rep));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MemTableGet)->ArgsProduct({{0, 1}, {0, 1}});

// A full forward scan of a 1M-entry memtable (what a flush does). Arg:
// structure (RepArg).
void BM_MemTableIterate(benchmark::State& state) {
  const MemTableRep rep = RepArg(state.range(0));
  MemTable* mem = BigMemTable(rep);
  for (auto _ : state) {
    std::unique_ptr<Iterator> iter(mem->NewIterator());
    int64_t n = 0;
    for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
      benchmark::DoNotOptimize(iter->value().data());
      n++;
    }
    if (n != kBigEntries) state.SkipWithError("wrong entry count");
  }
  state.SetLabel(MemTableRepName(rep));
  state.SetItemsProcessed(state.iterations() * kBigEntries);
}
BENCHMARK(BM_MemTableIterate)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// A flush's read of a full 64 MiB buffer: a forward scan that compresses
// each value with snappy, as a flush does values of 512 bytes or more
// (Options::value_compression_min_size). Values are half random, half a
// repeat (db_bench's --compression_ratio=0.5). Arg: value size; the
// buffer holds 64 MiB of them, in random key order.
void BM_MemTableScanCompressingValues(benchmark::State& state) {
  const size_t value_size = static_cast<size_t>(state.range(0));
  const int entries = static_cast<int>((64 << 20) / (value_size + 40));
  const std::vector<std::string> keys = Keys(entries, kRandom);
  MemTable* mem = NewMemTable(DefaultBlockSize());
  Random rnd(301);
  std::string value(value_size, ' ');
  SequenceNumber seq = 1;
  for (const std::string& k : keys) {
    for (size_t i = 0; i < value_size / 2; i++) {
      value[i] = value[value_size / 2 + i] = ' ' + rnd.Uniform(95);
    }
    Status s = mem->Add(seq++, kTypeValue, k, value);
    if (!s.ok()) std::abort();
  }
  std::string compressed;
  for (auto _ : state) {
    std::unique_ptr<Iterator> iter(mem->NewIterator());
    int n = 0;
    for (iter->SeekToFirst(); iter->Valid(); iter->Next(), n++) {
      CompressBlock(kSnappyCompression, kDefaultCompressionLevel, iter->value(),
                    &compressed);
      benchmark::DoNotOptimize(compressed.data());
    }
    if (n != entries) state.SkipWithError("wrong entry count");
  }
  mem->Unref();
  state.SetItemsProcessed(state.iterations() * entries);
  state.SetBytesProcessed(state.iterations() * entries *
                          static_cast<int64_t>(value_size));
}
BENCHMARK(BM_MemTableScanCompressingValues)
    ->Arg(100)
    ->Arg(1024)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond);

// Dropping a 1M-entry memtable: freeing its arena blocks, nothing per
// entry. Arg: arena block size.
void BM_MemTableDestroy(benchmark::State& state) {
  const size_t block_size = static_cast<size_t>(state.range(0));
  const std::vector<std::string> keys = Keys(kBigEntries, kSequential);
  double blocks = 0;
  for (auto _ : state) {
    state.PauseTiming();
    MemTable* mem = Fill(keys, block_size);
    blocks = static_cast<double>(mem->ApproximateMemoryUsage()) / block_size;
    state.ResumeTiming();
    mem->Unref();
  }
  state.counters["arena_blocks"] = blocks;
}
BENCHMARK(BM_MemTableDestroy)
    ->Arg(4096)
    ->Arg(1 << 20)
    ->Iterations(5)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace cascadedb

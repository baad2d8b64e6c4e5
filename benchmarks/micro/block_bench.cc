// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Data block build and seek costs. Keys are 16-byte zero-padded decimal
// numbers (sharing prefixes like real sorted keys), values 100 bytes;
// the argument is the restart interval.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"
#include "table/block.h"
#include "table/block_builder.h"
#include "util/random.h"

namespace cascadedb {
namespace {

constexpr int kEntries = 4096;  // ~ 470 KiB of entries: many restarts
constexpr size_t kValueSize = 100;

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%016d", i * 7);
  return buf;
}

// Builds blocks of about 4 KiB (the default block_size), one after another,
// reporting the bytes and entries added.
void BM_BlockBuild(benchmark::State& state) {
  const int restart_interval = static_cast<int>(state.range(0));
  std::vector<std::string> keys;
  for (int i = 0; i < kEntries; ++i) keys.push_back(Key(i));
  const std::string value(kValueSize, 'v');
  BlockBuilder builder(restart_interval);
  int64_t entries = 0;
  int64_t bytes = 0;
  for (auto _ : state) {
    builder.Reset();
    for (size_t i = 0; i < keys.size() && builder.CurrentSizeEstimate() < 4096;
         ++i) {
      builder.Add(keys[i], value);
      ++entries;
      bytes += static_cast<int64_t>(keys[i].size() + value.size());
    }
    benchmark::DoNotOptimize(builder.Finish().data());
  }
  state.SetItemsProcessed(entries);
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_BlockBuild)->Arg(1)->Arg(16)->Arg(64);

// Random Seeks in one 4 KiB block (~35 entries) or one large block.
void BM_BlockSeek(benchmark::State& state) {
  const int restart_interval = static_cast<int>(state.range(0));
  const int entries = static_cast<int>(state.range(1));
  BlockBuilder builder(restart_interval);
  const std::string value(kValueSize, 'v');
  for (int i = 0; i < entries; ++i) builder.Add(Key(i), value);
  const std::string bytes = builder.Finish().ToString();
  BlockContents contents;
  contents.data = bytes;  // borrowed
  Block block(contents);
  std::unique_ptr<Iterator> it(block.NewIterator(BytewiseComparator()));
  Random rnd(301);
  std::vector<std::string> targets;
  for (int i = 0; i < 1024; ++i) targets.push_back(Key(rnd.Uniform(entries)));
  size_t i = 0;
  for (auto _ : state) {
    it->Seek(targets[i++ % targets.size()]);
    if (!it->Valid()) {
      state.SkipWithError("seek missed");
      break;
    }
    benchmark::DoNotOptimize(it->value().data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_BlockSeek)
    ->ArgNames({"restart_interval", "entries"})
    ->Args({16, 35})
    ->Args({1, 35})
    ->Args({16, kEntries})
    ->Args({1, kEntries})
    ->Args({64, kEntries});

// Seeks in index-like blocks (restart interval 1, one restart per entry,
// 28,000 entries of 16-byte keys: an index block of a 64 MiB table), with
// and without search heads (Block::BuildSearchHeads), over one block (it
// stays in the CPU caches) or 64 of them (~50 MiB: each seek mostly misses
// them, as in a large database's index blocks).
void BM_IndexBlockSeek(benchmark::State& state) {
  const bool heads = state.range(0) != 0;
  const int nblocks = static_cast<int>(state.range(1));
  constexpr int kIndexEntries = 28000;
  std::vector<std::string> bytes(static_cast<size_t>(nblocks));
  std::vector<std::unique_ptr<Block>> blocks;
  std::vector<std::unique_ptr<Iterator>> iters;
  const std::string handle(6, 'h');  // a block handle's size
  for (int b = 0; b < nblocks; ++b) {
    BlockBuilder builder(1);
    for (int i = 0; i < kIndexEntries; ++i) builder.Add(Key(i), handle);
    bytes[static_cast<size_t>(b)] = builder.Finish().ToString();
    BlockContents contents;
    contents.data = bytes[static_cast<size_t>(b)];  // borrowed
    blocks.push_back(std::make_unique<Block>(contents));
    if (heads && !blocks.back()->BuildSearchHeads(nullptr)) {
      state.SkipWithError("no heads");
      return;
    }
    iters.emplace_back(blocks.back()->NewIterator(BytewiseComparator()));
  }
  Random rnd(301);
  std::vector<std::pair<int, std::string>> targets;
  for (int i = 0; i < 4096; ++i) {
    targets.emplace_back(static_cast<int>(rnd.Uniform(nblocks)),
                         Key(static_cast<int>(rnd.Uniform(kIndexEntries))));
  }
  size_t i = 0;
  for (auto _ : state) {
    const auto& t = targets[i++ % targets.size()];
    Iterator* it = iters[static_cast<size_t>(t.first)].get();
    it->Seek(t.second);
    if (!it->Valid()) {
      state.SkipWithError("seek missed");
      break;
    }
    benchmark::DoNotOptimize(it->value().data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_IndexBlockSeek)
    ->ArgNames({"heads", "blocks"})
    ->ArgsProduct({{0, 1}, {1, 64}});

}  // namespace
}  // namespace cascadedb

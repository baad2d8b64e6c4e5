// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Micro-benchmarks of a forward scan's CPU outside the table reader: the
// merging iterator over sorted runs whose keys interleave, the
// internal-key comparator it calls once per heap step, and the DBIter on
// top. Each run is one in-memory block of internal keys (16-byte user
// keys, 100-byte values, restart interval 16), so no file, checksum or
// decompression is measured. Every key goes to a random run, so the runs
// interleave through the whole key range, like level-0 files and the
// levels of a tree that a scan merges: with skew 0 the runs are the same
// size (level-0 files), with skew 1 the last run holds 90% of the keys and
// the others share the rest (a leveled tree's levels).
//
//   BM_MergingScan/<runs>/<skew>  the merging iterator alone; runs:1 is a
//                                 bare block
//   BM_DBIterScan/<runs>/<skew>   the same under a DBIter (what
//                                 Iterator::Next of a user scan costs
//                                 above the tables)

#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"
#include "db/db_iter.h"
#include "db/dbformat.h"
#include "table/block.h"
#include "table/block_builder.h"
#include "table/format.h"
#include "table/merging_iterator.h"
#include "util/random.h"

namespace cascadedb {
namespace {

constexpr int kEntries = 200000;
constexpr size_t kValueSize = 100;

// kEntries keys spread over `runs` blocks at random, each block sorted.
class Runs {
 public:
  Runs(int runs, bool skew) : bytes_(static_cast<size_t>(runs)) {
    std::vector<std::unique_ptr<BlockBuilder>> builders;
    for (int r = 0; r < runs; ++r) {
      builders.push_back(std::make_unique<BlockBuilder>(16));
    }
    Random rnd(301);
    const std::string value(kValueSize, 'v');
    std::string key;
    for (int i = 0; i < kEntries; ++i) {
      char user_key[32];
      snprintf(user_key, sizeof(user_key), "key%013d", i);
      key.clear();
      AppendInternalKey(
          &key, ParsedInternalKey(Slice(user_key, 16),
                                  static_cast<SequenceNumber>(i), kTypeValue));
      int run = static_cast<int>(rnd.Uniform(runs));
      if (skew && runs > 1) {
        run = rnd.Uniform(10) == 0 ? static_cast<int>(rnd.Uniform(runs - 1))
                                   : runs - 1;
      }
      builders[static_cast<size_t>(run)]->Add(key, value);
    }
    for (int r = 0; r < runs; ++r) {
      bytes_[static_cast<size_t>(r)] =
          builders[static_cast<size_t>(r)]->Finish().ToString();
      BlockContents contents;
      contents.data = bytes_[static_cast<size_t>(r)];  // borrowed
      blocks_.push_back(std::make_unique<Block>(contents));
    }
  }

  // A merging iterator over every run (the bare block for one run).
  Iterator* NewIterator(const InternalKeyComparator* icmp) const {
    std::vector<Iterator*> children;
    for (const auto& block : blocks_) {
      children.push_back(block->NewIterator(icmp));
    }
    return NewMergingIterator(icmp, children.data(),
                              static_cast<int>(children.size()));
  }

 private:
  std::vector<std::string> bytes_;
  std::vector<std::unique_ptr<Block>> blocks_;
};

// Steps through the whole key range once per kEntries iterations, counting
// each step as an item.
void Scan(benchmark::State& state, bool db_iter) {
  const int runs = static_cast<int>(state.range(0));
  const bool skew = state.range(1) != 0;
  const InternalKeyComparator icmp(BytewiseComparator());
  const Runs data(runs, skew);
  std::unique_ptr<Iterator> it;
  auto restart = [&] {
    Iterator* merged = data.NewIterator(&icmp);
    it.reset(db_iter ? NewDBIterator(BytewiseComparator(), merged,
                                     kMaxSequenceNumber, nullptr, 0)
                     : merged);
    it->SeekToFirst();
  };
  restart();
  for (auto _ : state) {
    if (!it->Valid()) {
      state.PauseTiming();
      restart();
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(it->key().data());
    benchmark::DoNotOptimize(it->value().data());
    it->Next();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_MergingScan(benchmark::State& state) { Scan(state, false); }
BENCHMARK(BM_MergingScan)
    ->ArgNames({"runs", "skew"})
    ->Args({1, 0})
    ->ArgsProduct({{2, 4, 6}, {0, 1}});

void BM_DBIterScan(benchmark::State& state) { Scan(state, true); }
BENCHMARK(BM_DBIterScan)
    ->ArgNames({"runs", "skew"})
    ->Args({1, 0})
    ->ArgsProduct({{4, 6}, {0, 1}});

}  // namespace
}  // namespace cascadedb

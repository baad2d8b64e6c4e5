// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Block compression throughput per codec on 4 KiB blocks of data that
// compresses to about half its size (like db_bench's compression_ratio 0.5).
// Bytes processed are uncompressed bytes, so MB/s compare across codecs.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "util/compression.h"
#include "util/random.h"

namespace cascadedb {
namespace {

constexpr size_t kBlockSize = 4096;
constexpr int kNumBlocks = 64;  // cycled, so the data is not one hot block

// len bytes built like db_bench's value generator with compression_ratio
// 0.5: 100-byte pieces, each a run of 50 random printable bytes repeated.
std::string CompressibleBlock(Random* rnd, size_t len) {
  constexpr size_t kPiece = 100;
  constexpr size_t kRaw = kPiece / 2;
  std::string block;
  while (block.size() < len) {
    std::string raw(kRaw, ' ');
    for (char& c : raw) c = static_cast<char>(' ' + rnd->Uniform(95));
    block += raw;
    block += raw;
  }
  block.resize(len);
  return block;
}

std::vector<std::string> MakeBlocks() {
  Random rnd(301);
  std::vector<std::string> blocks;
  for (int i = 0; i < kNumBlocks; ++i) {
    blocks.push_back(CompressibleBlock(&rnd, kBlockSize));
  }
  return blocks;
}

void BM_Compress(benchmark::State& state, CompressionType type) {
  const std::vector<std::string> blocks = MakeBlocks();
  std::string out;
  size_t i = 0;
  size_t compressed = 0;
  for (auto _ : state) {
    const std::string& in = blocks[i++ % blocks.size()];
    if (!CompressBlock(type, kDefaultCompressionLevel, in, &out)) {
      state.SkipWithError("compression failed");
      break;
    }
    compressed += out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(kBlockSize));
  if (state.iterations() > 0) {
    state.counters["ratio"] = static_cast<double>(compressed) /
                              (static_cast<double>(state.iterations()) *
                               static_cast<double>(kBlockSize));
  }
}

void BM_Uncompress(benchmark::State& state, CompressionType type) {
  const std::vector<std::string> blocks = MakeBlocks();
  std::vector<std::string> compressed(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (!CompressBlock(type, kDefaultCompressionLevel, blocks[b],
                       &compressed[b])) {
      state.SkipWithError("compression failed");
      return;
    }
  }
  std::string out;
  size_t i = 0;
  for (auto _ : state) {
    Status s = UncompressBlock(type, compressed[i++ % compressed.size()], &out);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(kBlockSize));
}

BENCHMARK_CAPTURE(BM_Compress, snappy, kSnappyCompression);
BENCHMARK_CAPTURE(BM_Compress, lz4, kLZ4Compression);
BENCHMARK_CAPTURE(BM_Compress, zstd, kZSTD);
BENCHMARK_CAPTURE(BM_Uncompress, snappy, kSnappyCompression);
BENCHMARK_CAPTURE(BM_Uncompress, lz4, kLZ4Compression);
BENCHMARK_CAPTURE(BM_Uncompress, zstd, kZSTD);

}  // namespace
}  // namespace cascadedb

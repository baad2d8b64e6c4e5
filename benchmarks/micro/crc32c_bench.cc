// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// CRC32C throughput: the SSE4.2 path (what Extend() runs on this machine)
// against the portable slicing-by-8 path, over block-sized and large
// buffers.

#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>

#include "util/crc32c.h"
#include "util/random.h"

namespace cascadedb {
namespace {

std::string RandomBuffer(size_t n) {
  Random rnd(301);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rnd.Next());
  return s;
}

void BM_Crc32cHardware(benchmark::State& state) {
  if (!crc32c::IsHardwareAccelerated()) {
    state.SkipWithError("no SSE4.2 on this CPU");
    return;
  }
  const std::string buf = RandomBuffer(static_cast<size_t>(state.range(0)));
  uint32_t crc = 0;
  for (auto _ : state) {
    crc = crc32c::Extend(crc, buf.data(), buf.size());
    benchmark::DoNotOptimize(crc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          state.range(0));
}
BENCHMARK(BM_Crc32cHardware)
    ->Arg(256)
    ->Arg(4 << 10)
    ->Arg(64 << 10)
    ->Arg(1 << 20);

void BM_Crc32cPortable(benchmark::State& state) {
  const std::string buf = RandomBuffer(static_cast<size_t>(state.range(0)));
  uint32_t crc = 0;
  for (auto _ : state) {
    crc = crc32c::ExtendPortable(crc, buf.data(), buf.size());
    benchmark::DoNotOptimize(crc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          state.range(0));
}
BENCHMARK(BM_Crc32cPortable)
    ->Arg(256)
    ->Arg(4 << 10)
    ->Arg(64 << 10)
    ->Arg(1 << 20);

}  // namespace
}  // namespace cascadedb

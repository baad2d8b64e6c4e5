// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Varint encode and decode speed. The argument is the bit width of the
// values, uniform over [0, 2^bits), so it sets the typical encoded length:
// 7 bits -> 1 byte (lengths, small counts), 32/64 bits -> the longest forms.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/coding.h"
#include "util/random.h"

namespace cascadedb {
namespace {

constexpr int kValues = 4096;

template <typename T>
std::vector<T> RandomValues(int bits) {
  Random64 rnd(301);
  std::vector<T> values(kValues);
  for (T& v : values) {
    const uint64_t r = rnd.Next();
    v = static_cast<T>(bits >= 64 ? r : r & ((uint64_t{1} << bits) - 1));
  }
  return values;
}

void BM_CodingVarint32Encode(benchmark::State& state) {
  const std::vector<uint32_t> values =
      RandomValues<uint32_t>(static_cast<int>(state.range(0)));
  std::vector<char> buf(kValues * kMaxVarint32Length);
  for (auto _ : state) {
    char* p = buf.data();
    for (uint32_t v : values) p = EncodeVarint32(p, v);
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kValues);
}
BENCHMARK(BM_CodingVarint32Encode)->Arg(7)->Arg(14)->Arg(28)->Arg(32);

void BM_CodingVarint32Decode(benchmark::State& state) {
  const std::vector<uint32_t> values =
      RandomValues<uint32_t>(static_cast<int>(state.range(0)));
  std::string buf;
  for (uint32_t v : values) PutVarint32(&buf, v);
  const char* const limit = buf.data() + buf.size();
  for (auto _ : state) {
    const char* p = buf.data();
    uint32_t sum = 0;
    while (p != limit) {
      uint32_t v;
      p = GetVarint32Ptr(p, limit, &v);
      sum += v;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kValues);
}
BENCHMARK(BM_CodingVarint32Decode)->Arg(7)->Arg(14)->Arg(28)->Arg(32);

void BM_CodingVarint64Encode(benchmark::State& state) {
  const std::vector<uint64_t> values =
      RandomValues<uint64_t>(static_cast<int>(state.range(0)));
  std::vector<char> buf(kValues * kMaxVarint64Length);
  for (auto _ : state) {
    char* p = buf.data();
    for (uint64_t v : values) p = EncodeVarint64(p, v);
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kValues);
}
BENCHMARK(BM_CodingVarint64Encode)->Arg(7)->Arg(35)->Arg(64);

void BM_CodingVarint64Decode(benchmark::State& state) {
  const std::vector<uint64_t> values =
      RandomValues<uint64_t>(static_cast<int>(state.range(0)));
  std::string buf;
  for (uint64_t v : values) PutVarint64(&buf, v);
  const char* const limit = buf.data() + buf.size();
  for (auto _ : state) {
    const char* p = buf.data();
    uint64_t sum = 0;
    while (p != limit) {
      uint64_t v;
      p = GetVarint64Ptr(p, limit, &v);
      sum += v;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kValues);
}
BENCHMARK(BM_CodingVarint64Decode)->Arg(7)->Arg(35)->Arg(64);

}  // namespace
}  // namespace cascadedb

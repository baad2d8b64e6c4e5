// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Arena allocation against a malloc/free baseline, for the small sizes a
// memtable allocates (skiplist nodes with short keys and values). Both sides
// follow a memtable's life cycle: allocate until 64 MiB are live, then free
// everything at once (the arena by destruction, malloc by one free() per
// object), all of it timed.
//
// glibc would hand the freed 64 MiB back to the kernel (heap trimming) and
// fault it in again, page by page, in the next round; on a VM that costs
// ~10 us per 4 KiB page and buries the allocator under the kernel. The
// benchmark turns trimming off so both sides measure the allocator itself.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "util/arena.h"

namespace cascadedb {
namespace {

constexpr size_t kLiveBytes = size_t{64} << 20;  // a default write buffer

// Keeps freed heap memory in the process (see the top of the file).
const bool kNoTrim = [] {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  return true;
}();

// BM_ArenaAllocate/<bytes>: one Allocate(bytes) per iteration.
void BM_ArenaAllocate(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  auto arena = std::make_unique<Arena>();
  uint64_t checksum = 0;
  for (auto _ : state) {
    char* p = arena->Allocate(size);
    p[0] = 1;  // touch it, as a real node would be written
    checksum += reinterpret_cast<uintptr_t>(p);
    if (arena->MemoryUsage() >= kLiveBytes) arena = std::make_unique<Arena>();
  }
  state.counters["checksum"] = static_cast<double>(checksum & 0xffff);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}
BENCHMARK(BM_ArenaAllocate)->RangeMultiplier(2)->Range(8, 256);

// BM_ArenaAllocateAligned/<bytes>: one AllocateAligned(bytes) per iteration.
void BM_ArenaAllocateAligned(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  auto arena = std::make_unique<Arena>();
  uint64_t checksum = 0;
  for (auto _ : state) {
    char* p = arena->AllocateAligned(size);
    p[0] = 1;
    checksum += reinterpret_cast<uintptr_t>(p);
    if (arena->MemoryUsage() >= kLiveBytes) arena = std::make_unique<Arena>();
  }
  state.counters["checksum"] = static_cast<double>(checksum & 0xffff);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}
BENCHMARK(BM_ArenaAllocateAligned)->RangeMultiplier(2)->Range(8, 256);

// BM_MallocAllocate/<bytes>: the baseline, one malloc(bytes) per iteration,
// and one free() per object when 64 MiB are live.
void BM_MallocAllocate(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  std::vector<char*> live;
  live.reserve(kLiveBytes / size + 1);
  size_t live_bytes = 0;
  uint64_t checksum = 0;
  for (auto _ : state) {
    char* p = static_cast<char*>(std::malloc(size));
    p[0] = 1;
    checksum += reinterpret_cast<uintptr_t>(p);
    live.push_back(p);
    live_bytes += size;
    if (live_bytes >= kLiveBytes) {
      for (char* q : live) std::free(q);
      live.clear();
      live_bytes = 0;
    }
  }
  for (char* q : live) std::free(q);
  state.counters["checksum"] = static_cast<double>(checksum & 0xffff);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}
BENCHMARK(BM_MallocAllocate)->RangeMultiplier(2)->Range(8, 256);

}  // namespace
}  // namespace cascadedb

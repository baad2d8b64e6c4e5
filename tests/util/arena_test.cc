// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/arena.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/testutil/test_util.h"
#if defined(CASCADEDB_ASAN)
#include <sanitizer/asan_interface.h>
#endif
#include "util/random.h"
#include "util/thread_pool.h"

namespace cascadedb {

namespace {

// The byte written at offset j of allocation i.
char PatternByte(size_t i, size_t j) {
  return static_cast<char>((i * 131 + j * 7) & 0xff);
}

bool IsAligned(const char* p) {
  return (reinterpret_cast<uintptr_t>(p) & (Arena::kAlignment - 1)) == 0;
}

// Fills a fresh default arena's first block up to 96 free bytes with
// shared (quarter-block or smaller) allocations; returns the block start.
char* FillFirstBlockLeaving96(Arena* arena) {
  static_assert(Arena::kDefaultBlockSize == 4096, "sizes below assume it");
  char* first = arena->Allocate(1000);
  for (int i = 0; i < 3; i++) arena->Allocate(1000);
  EXPECT_EQ(Arena::kDefaultBlockSize + sizeof(char*), arena->MemoryUsage());
  return first;
}

}  // namespace

TEST(ArenaTest, NewArenaHoldsNoMemory) {
  Arena arena;
  EXPECT_EQ(0u, arena.MemoryUsage());
  EXPECT_EQ(Arena::kDefaultBlockSize, arena.block_size());
}

TEST(ArenaTest, AlignmentIsAtLeastPointerAndEight) {
  EXPECT_GE(Arena::kAlignment, sizeof(void*));
  EXPECT_GE(Arena::kAlignment, 8u);
  EXPECT_EQ(0u, Arena::kAlignment & (Arena::kAlignment - 1));
}

TEST(ArenaTest, DataWrittenToEveryAllocationSurvives) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  Arena arena;
  std::vector<std::pair<size_t, char*>> allocated;
  size_t bytes = 0;
  for (size_t i = 0; i < 20000; i++) {
    // Mostly small sizes, with some large enough to get their own block.
    size_t size = i % 1000 == 0 ? 6000 + rnd.Uniform(10000)
                                : 1 + rnd.Skewed(11);  // up to 2048
    char* p = (i % 3 == 0) ? arena.AllocateAligned(size) : arena.Allocate(size);
    ASSERT_NE(nullptr, p);
    for (size_t j = 0; j < size; j++) p[j] = PatternByte(i, j);
    allocated.emplace_back(size, p);
    bytes += size;
    ASSERT_GE(arena.MemoryUsage(), bytes);
  }
  for (size_t i = 0; i < allocated.size(); i++) {
    const size_t size = allocated[i].first;
    const char* p = allocated[i].second;
    for (size_t j = 0; j < size; j++) {
      ASSERT_EQ(PatternByte(i, j), p[j]) << "allocation " << i << " byte " << j;
    }
  }
}

TEST(ArenaTest, AllocateAlignedIsAlignedAfterOddAllocations) {
  Arena arena;
  for (size_t i = 1; i < 3000; i++) {
    arena.Allocate(i % 13 + 1);  // leave the bump pointer misaligned
    char* p = arena.AllocateAligned(i % 97 + 1);
    ASSERT_TRUE(IsAligned(p)) << "iteration " << i;
  }
  // Large (dedicated-block) aligned allocations too.
  arena.Allocate(3);
  EXPECT_TRUE(IsAligned(arena.AllocateAligned(100000)));
  EXPECT_TRUE(IsAligned(arena.AllocateAligned(8)));
}

TEST(ArenaTest, SmallAllocationsShareBlocks) {
  Arena arena;
  char* a = arena.Allocate(10);
  char* b = arena.Allocate(20);
  EXPECT_EQ(a + 10, b);
  // One block so far: its size plus one block-list entry.
  EXPECT_EQ(Arena::kDefaultBlockSize + sizeof(char*), arena.MemoryUsage());
}

TEST(ArenaTest, MemoryUsageIsCloseToBytesRequestedForTinyAllocations) {
  Arena arena;
  size_t bytes = 0;
  for (size_t i = 0; i < 100000; i++) {
    const size_t size = 1 + i % 40;
    arena.Allocate(size);
    bytes += size;
  }
  // Waste per 4 KiB block is under one request (40 bytes), plus the block
  // list: about 1% overhead.
  EXPECT_GE(arena.MemoryUsage(), bytes);
  EXPECT_LE(arena.MemoryUsage(), bytes + bytes / 50 + Arena::kDefaultBlockSize);
}

TEST(ArenaTest, MemoryOverheadIsBoundedForQuarterBlockAllocations) {
  Arena arena;
  size_t bytes = 0;
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  for (size_t i = 0; i < 20000; i++) {
    // Up to a quarter block: the largest size that still shares blocks,
    // and the worst case for the wasted tail.
    const size_t size = 1 + rnd.Uniform(Arena::kDefaultBlockSize / 4);
    arena.Allocate(size);
    bytes += size;
  }
  // A tail is wasted only when a request of at most a quarter block does
  // not fit, so at most 1/4 of every block is lost: usage <= 4/3 * bytes.
  EXPECT_GE(arena.MemoryUsage(), bytes);
  EXPECT_LE(arena.MemoryUsage(), bytes * 4 / 3 + Arena::kDefaultBlockSize);
}

TEST(ArenaTest, LargeAllocationGetsItsOwnBlockAndKeepsCurrentOne) {
  Arena arena;
  char* small = arena.Allocate(100);
  const size_t before = arena.MemoryUsage();
  char* large = arena.Allocate(1 << 20);
  std::memset(large, 0xab, 1 << 20);
  EXPECT_EQ(before + (1 << 20) + sizeof(char*), arena.MemoryUsage());
  // The next small request still comes from the first block.
  char* next = arena.Allocate(100);
  EXPECT_EQ(small + 100, next);
  EXPECT_EQ(static_cast<char>(0xab), large[(1 << 20) - 1]);
}

TEST(ArenaTest, LargeRequestThatFitsUsesCurrentBlock) {
  Arena arena;
  char* a = arena.Allocate(1);
  char* b = arena.Allocate(Arena::kDefaultBlockSize / 2);
  EXPECT_EQ(a + 1, b);
  EXPECT_EQ(Arena::kDefaultBlockSize + sizeof(char*), arena.MemoryUsage());
}

TEST(ArenaTest, JustOverAQuarterBlockGetsItsOwnBlockWhenItDoesNotFit) {
  Arena arena;
  // Leave 96 bytes free in the current (shared) block.
  char* first = FillFirstBlockLeaving96(&arena);
  const size_t before = arena.MemoryUsage();
  arena.Allocate(Arena::kDefaultBlockSize / 4 + 1);
  EXPECT_EQ(before + Arena::kDefaultBlockSize / 4 + 1 + sizeof(char*),
            arena.MemoryUsage());
  // The 96 free bytes of the first block are still used.
  EXPECT_EQ(first + Arena::kDefaultBlockSize - 96, arena.Allocate(96));
  EXPECT_EQ(before + Arena::kDefaultBlockSize / 4 + 1 + sizeof(char*),
            arena.MemoryUsage());
}

TEST(ArenaTest, QuarterBlockThatDoesNotFitStartsASharedBlock) {
  Arena arena;
  FillFirstBlockLeaving96(&arena);
  const size_t before = arena.MemoryUsage();
  char* p = arena.Allocate(Arena::kDefaultBlockSize / 4);
  char* q = arena.Allocate(8);
  EXPECT_EQ(p + Arena::kDefaultBlockSize / 4, q);
  EXPECT_EQ(before + Arena::kDefaultBlockSize + sizeof(char*),
            arena.MemoryUsage());
}

TEST(ArenaTest, BlockSizeParameterSetsRegularBlockSize) {
  Arena arena(1 << 16);
  EXPECT_EQ(size_t{1} << 16, arena.block_size());
  char* a = arena.Allocate(10000);  // under a quarter of 64 KiB: shared
  char* b = arena.Allocate(10000);
  EXPECT_EQ(a + 10000, b);
  EXPECT_EQ((size_t{1} << 16) + sizeof(char*), arena.MemoryUsage());
}

TEST(ArenaTest, TinyBlockSizeIsRaised) {
  Arena arena(1);
  EXPECT_EQ(64u, arena.block_size());
  char* p = arena.Allocate(16);
  p[15] = 'x';
  EXPECT_EQ('x', p[15]);
}

TEST(ArenaTest, MemoryUsageIsReadableWhileAllocating) {
  Arena arena;
  std::atomic<bool> done{false};
  size_t last_seen = 0;
  bool monotonic = true;
  std::thread reader([&] {
    while (!done.load(std::memory_order_acquire)) {
      const size_t now = arena.MemoryUsage();
      if (now < last_seen) monotonic = false;
      last_seen = now;
    }
  });
  for (int i = 0; i < 100000; i++) arena.Allocate(32);
  done.store(true, std::memory_order_release);
  reader.join();
  EXPECT_TRUE(monotonic);
  EXPECT_GE(arena.MemoryUsage(), 100000u * 32);
}

// A writer that allocates only while MemoryUsage() is below a limit (the
// memtable's "full" check) gets what AllocatableBelow said, to within the
// tails wasted at block ends; the limit minus the usage, which counts a
// block whole from its start, is off by a large part of a block.
TEST(ArenaTest, AllocatableBelowIsWhatAWriterStoppingAtTheLimitGets) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  const size_t block = 1024;
  for (int round = 0; round < 50; round++) {
    SCOPED_TRACE(round);
    const size_t limit = 8 * block + rnd.Uniform(8 * block);
    const size_t request = 8 + rnd.Uniform(56);  // one size, like entries
    Arena arena(block);
    std::vector<size_t> predicted;
    std::vector<size_t> naive;
    while (arena.MemoryUsage() < limit) {
      predicted.push_back(arena.AllocatableBelow(limit));
      naive.push_back(limit - arena.MemoryUsage());
      arena.Allocate(request);
    }
    EXPECT_EQ(0u, arena.AllocatableBelow(limit));
    // After the check before allocation i, the writer took requests i..n-1;
    // the last one started the block that took the usage past the limit.
    const size_t n = predicted.size();
    size_t worst_naive_error = 0;
    for (size_t i = 0; i < n; i++) {
      const size_t taken = (n - 1 - i) * request;
      const size_t blocks_left = predicted[i] / block + 1;
      const size_t slack = blocks_left * request;  // a wasted tail each
      EXPECT_LE(taken, predicted[i]) << i;
      EXPECT_GE(taken + slack, predicted[i]) << i;
      const size_t naive_error =
          naive[i] > taken ? naive[i] - taken : taken - naive[i];
      worst_naive_error = std::max(worst_naive_error, naive_error);
    }
    EXPECT_GT(worst_naive_error, block / 4);
  }
}

TEST(ArenaTest, AllocatedBytesLeavesOutTheCurrentBlocksRest) {
  Arena arena(1024);
  EXPECT_EQ(0u, arena.AllocatedBytes());
  arena.Allocate(100);
  EXPECT_EQ(100 + sizeof(char*), arena.AllocatedBytes());
  arena.Allocate(200);
  EXPECT_EQ(300 + sizeof(char*), arena.AllocatedBytes());
  arena.Allocate(2000);  // a block of its own: all of it allocated
  EXPECT_EQ(2300 + 2 * sizeof(char*), arena.AllocatedBytes());
  EXPECT_EQ(1024 + 2000 + 2 * sizeof(char*), arena.MemoryUsage());
}

// ---------------------------------------------------------------- pool

TEST(ArenaBlockPoolTest, ADeadArenasBlocksServeTheNextArena) {
  auto pool = std::make_shared<ArenaBlockPool>(4096, 3 * 4096);
  std::vector<char*> first_blocks;
  {
    Arena arena(4096, pool);
    for (int i = 0; i < 3; i++)
      first_blocks.push_back(arena.Allocate(1024 * 4));
    EXPECT_EQ(0u, pool->PooledBytes());
  }
  EXPECT_EQ(3u * 4096, pool->PooledBytes());
  Arena next(4096, pool);
  std::vector<char*> reused;
  for (int i = 0; i < 3; i++) reused.push_back(next.Allocate(4096));
  std::sort(first_blocks.begin(), first_blocks.end());
  std::sort(reused.begin(), reused.end());
  EXPECT_EQ(first_blocks, reused);
  EXPECT_EQ(0u, pool->PooledBytes());
  // The pool empty, blocks come from the heap again.
  char* fresh = next.Allocate(4096);
  EXPECT_FALSE(
      std::binary_search(first_blocks.begin(), first_blocks.end(), fresh));
  EXPECT_EQ(4u * (4096 + sizeof(char*)), next.MemoryUsage());
}

TEST(ArenaBlockPoolTest, KeepsNoMoreThanItsCapacity) {
  auto pool = std::make_shared<ArenaBlockPool>(4096, 2 * 4096 + 100);
  {
    Arena arena(4096, pool);
    for (int i = 0; i < 5; i++) arena.Allocate(4096);
  }
  EXPECT_EQ(2u * 4096, pool->PooledBytes());  // the other three were freed
}

TEST(ArenaBlockPoolTest, LargeAndMismatchedBlocksAreNotKept) {
  auto pool = std::make_shared<ArenaBlockPool>(4096, 16 * 4096);
  {
    Arena arena(4096, pool);
    arena.Allocate(2000);  // over a quarter: a block of its own
    arena.Allocate(100);   // a regular block
  }
  EXPECT_EQ(4096u, pool->PooledBytes());
  {
    // An arena of another block size neither takes nor gives.
    Arena other(8192, pool);
    other.Allocate(100);
  }
  EXPECT_EQ(4096u, pool->PooledBytes());
}

TEST(ArenaBlockPoolTest, DataWrittenToRecycledBlocksSurvives) {
  auto pool = std::make_shared<ArenaBlockPool>(1024, 64 * 1024);
  for (int round = 0; round < 3; round++) {
    Arena arena(1024, pool);
    std::vector<std::pair<char*, size_t>> allocated;
    Random rnd(301 + round);
    for (size_t i = 0; i < 500; i++) {
      const size_t n = 1 + rnd.Uniform(200);
      char* p = arena.Allocate(n);
      for (size_t j = 0; j < n; j++) p[j] = PatternByte(i, j);
      allocated.emplace_back(p, n);
    }
    for (size_t i = 0; i < allocated.size(); i++) {
      for (size_t j = 0; j < allocated[i].second; j++) {
        ASSERT_EQ(PatternByte(i, j), allocated[i].first[j]) << round;
      }
    }
  }
}

#if defined(CASCADEDB_ASAN)
TEST(ArenaBlockPoolTest, PooledBlocksArePoisonedUnderAsan) {
  auto pool = std::make_shared<ArenaBlockPool>(4096, 4 * 4096);
  char* p = nullptr;
  {
    Arena arena(4096, pool);
    p = arena.Allocate(100);
  }
  EXPECT_TRUE(__asan_address_is_poisoned(p));
  Arena next(4096, pool);
  char* q = next.Allocate(100);
  EXPECT_EQ(p, q);
  EXPECT_FALSE(__asan_address_is_poisoned(q));
}
#endif

TEST(ArenaBlockPoolTest, ArenasOnSeveralThreadsShareOnePool) {
  auto pool = std::make_shared<ArenaBlockPool>(4096, 8 * 4096);
  std::vector<std::thread> threads;
  std::atomic<bool> ok{true};
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 200; round++) {
        Arena arena(4096, pool);
        std::vector<char*> blocks;
        for (int i = 0; i < 4; i++) {
          char* p = arena.Allocate(4096);
          memset(p, t + 1, 4096);
          blocks.push_back(p);
        }
        for (char* p : blocks) {
          if (p[0] != t + 1 || p[4095] != t + 1) ok = false;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_TRUE(ok);
  EXPECT_LE(pool->PooledBytes(), 8u * 4096);
}

// ---------------------------------------------------------------- preparing

TEST(ArenaBlockPoolTest, KeepsBlocksPreparedAheadOfItsArenas) {
  auto pool = std::make_shared<ArenaBlockPool>(4096, 16 * 4096,
                                               /*prepare_ahead=*/3);
  Arena arena(4096, pool);
  arena.Allocate(100);  // an arena's first block asks for nothing ahead
  WritersHelper()->WaitForJobs();
  EXPECT_EQ(0u, pool->PooledBytes());
  arena.Allocate(4096);  // its second: a fresh block, and a request
  WritersHelper()->WaitForJobs();
  EXPECT_EQ(3u * 4096, pool->PooledBytes());
  EXPECT_EQ(3u, pool->PreparedBlocks());
  // The next blocks are the prepared ones, and each Take that leaves
  // fewer than three asks for more.
  for (int i = 0; i < 5; i++) {
    char* p = arena.Allocate(4096);
    memset(p, 0x5a, 4096);  // prepared blocks are writable, and unpoisoned
    WritersHelper()->WaitForJobs();
    EXPECT_EQ(3u * 4096, pool->PooledBytes()) << i;
  }
  EXPECT_EQ(8u, pool->PreparedBlocks());
}

// PrepareAhead asks for what a Take leaving the pool low would, without
// taking a block: an arena on its first block asks through it when its
// owner knows it will be written to; a second ask while the pool is
// stocked asks for nothing.
TEST(ArenaBlockPoolTest, PrepareAheadStocksThePoolWithoutTaking) {
  auto pool = std::make_shared<ArenaBlockPool>(4096, 16 * 4096,
                                               /*prepare_ahead=*/3);
  Arena arena(4096, pool);
  arena.Allocate(100);
  WritersHelper()->WaitForJobs();
  EXPECT_EQ(0u, pool->PreparedBlocks());
  arena.PrepareAhead();
  WritersHelper()->WaitForJobs();
  EXPECT_EQ(3u * 4096, pool->PooledBytes());
  EXPECT_EQ(3u, pool->PreparedBlocks());
  arena.PrepareAhead();
  WritersHelper()->WaitForJobs();
  EXPECT_EQ(3u, pool->PreparedBlocks());
  // The arena's second block is a prepared one, and the Take asks for one
  // more.
  arena.Allocate(4096);
  WritersHelper()->WaitForJobs();
  EXPECT_EQ(3u * 4096, pool->PooledBytes());
  EXPECT_EQ(4u, pool->PreparedBlocks());
  Arena alone(4096);  // no pool: nothing to ask
  alone.PrepareAhead();
}

TEST(ArenaBlockPoolTest, PreparesNoMoreThanItsCapacity) {
  auto pool = std::make_shared<ArenaBlockPool>(4096, 2 * 4096,
                                               /*prepare_ahead=*/5);
  EXPECT_EQ(nullptr, pool->Take());
  WritersHelper()->WaitForJobs();
  EXPECT_EQ(2u * 4096, pool->PooledBytes());
  EXPECT_EQ(2u, pool->PreparedBlocks());
}

TEST(ArenaBlockPoolTest, APoolNotOwnedBySharedPtrPreparesNothing) {
  ArenaBlockPool pool(4096, 8 * 4096, /*prepare_ahead=*/2);
  EXPECT_EQ(nullptr, pool.Take());
  WritersHelper()->WaitForJobs();  // nothing was scheduled
  EXPECT_EQ(0u, pool.PooledBytes());
  EXPECT_EQ(0u, pool.PreparedBlocks());
}

TEST(ArenaBlockPoolTest, APreparationOutlivesThePoolsLastUser) {
  // The helper's job holds its own reference: dropping every other one
  // while it is queued or running frees the pool after the job (ASan
  // would see a use after free otherwise).
  for (int i = 0; i < 20; i++) {
    auto pool = std::make_shared<ArenaBlockPool>(4096, 64 * 4096,
                                                 /*prepare_ahead=*/32);
    std::weak_ptr<ArenaBlockPool> watch = pool;
    {
      Arena arena(4096, pool);
      arena.Allocate(100);
      arena.Allocate(4096);  // past its first block: asks for 32 ahead
    }
    pool.reset();
    WritersHelper()->WaitForJobs();
    EXPECT_TRUE(watch.expired()) << i;
  }
}

#if defined(CASCADEDB_ASAN)
TEST(ArenaBlockPoolTest, PreparedBlocksArePoisonedUnderAsan) {
  auto pool = std::make_shared<ArenaBlockPool>(4096, 4 * 4096,
                                               /*prepare_ahead=*/1);
  EXPECT_EQ(nullptr, pool->Take());
  WritersHelper()->WaitForJobs();
  ASSERT_EQ(4096u, pool->PooledBytes());
  char* p = pool->Take();
  ASSERT_NE(nullptr, p);
  EXPECT_FALSE(__asan_address_is_poisoned(p));
  WritersHelper()->WaitForJobs();
  char* q = pool->Take();  // prepared while p was out: poisoned until taken
  ASSERT_NE(nullptr, q);
  EXPECT_FALSE(__asan_address_is_poisoned(q));
  EXPECT_TRUE(pool->Give(p));
  EXPECT_TRUE(__asan_address_is_poisoned(p));
  Arena::DeleteBlock(q, 4096);
}
#endif

// ---------------------------------------------------------------- huge pages

TEST(ArenaTest, HugePageSizedBlocksAreHugePageAligned) {
  constexpr size_t kHuge = Arena::kHugePageSize;
  for (size_t bytes : {kHuge, 2 * kHuge}) {
    char* block = Arena::NewBlock(bytes);
    EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(block) % kHuge) << bytes;
    memset(block, 0x33, bytes);  // all of it is there
    EXPECT_EQ(0x33, block[bytes - 1]);
    Arena::DeleteBlock(block, bytes);
  }
  // An arena of huge-page blocks: its blocks, and so its aligned
  // allocations, start on huge page boundaries.
  Arena arena(kHuge);
  char* first = arena.AllocateAligned(64);
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(first) % kHuge);
  EXPECT_EQ(kHuge + sizeof(char*), arena.MemoryUsage());
}

#if defined(__linux__)
// The VmFlags line of the mapping of /proc/self/smaps that holds p ("" if
// none does).
std::string VmFlagsOf(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool in_it = false;
  while (std::getline(smaps, line)) {
    unsigned long long lo = 0, hi = 0;
    // A mapping's first line starts "lo-hi " (hex); its fields' names
    // never parse as two hex numbers joined by '-'.
    if (std::sscanf(line.c_str(), "%llx-%llx ", &lo, &hi) == 2) {
      in_it = addr >= lo && addr < hi;
      continue;
    }
    if (in_it && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

TEST(ArenaTest, HugePageSizedBlocksAreAdvisedIntoHugePages) {
  char* block = Arena::NewBlock(Arena::kHugePageSize);
  const std::string flags = VmFlagsOf(block);
  ASSERT_NE("", flags) << "no mapping holds the block";
  EXPECT_NE(std::string::npos, flags.find(" hg")) << flags;  // MADV_HUGEPAGE
  Arena::DeleteBlock(block, Arena::kHugePageSize);
  // Smaller blocks come from the heap, unadvised.
  char* small = Arena::NewBlock(64 << 10);
  EXPECT_EQ(std::string::npos, VmFlagsOf(small).find(" hg"));
  Arena::DeleteBlock(small, 64 << 10);
}

// A block the pool has none ready for is faulted in by the arena's own (the
// writer's) thread, so it gets small pages; the blocks the pool prepared
// ahead stay huge.
TEST(ArenaBlockPoolTest, BlocksThePoolHasNoneReadyForGetSmallPages) {
  constexpr size_t kHuge = Arena::kHugePageSize;
  {
    char* probe = Arena::NewBlock(kHuge);
    const bool advised = VmFlagsOf(probe).find(" hg") != std::string::npos;
    Arena::DeleteBlock(probe, kHuge);
    if (!advised) GTEST_SKIP() << "no transparent huge pages here";
  }
  auto pool = std::make_shared<ArenaBlockPool>(kHuge, 4 * kHuge,
                                               /*prepare_ahead=*/1);
  Arena arena(kHuge, pool);
  // Fills the current block and returns the first byte of the next one.
  auto next_block = [&arena] {
    char* p = nullptr;
    for (int i = 0; i < 4; i++) p = arena.AllocateAligned(kHuge / 4);
    return p;
  };
  char* first = arena.AllocateAligned(64);  // the pool is empty
  std::string flags = VmFlagsOf(first);
  EXPECT_NE(std::string::npos, flags.find(" nh")) << flags;
  EXPECT_EQ(std::string::npos, flags.find(" hg")) << flags;
  char* second = next_block();  // still empty: this Take asks for one
  flags = VmFlagsOf(second);
  EXPECT_NE(std::string::npos, flags.find(" nh")) << flags;
  WritersHelper()->WaitForJobs();
  ASSERT_EQ(1u, pool->PreparedBlocks());
  char* third = next_block();  // the prepared one
  flags = VmFlagsOf(third);
  EXPECT_NE(std::string::npos, flags.find(" hg")) << flags;
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(third) % kHuge);
  memset(third, 0x5a, kHuge / 4);
  WritersHelper()->WaitForJobs();
}
#endif

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/block_admission.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <list>
#include <random>
#include <unordered_map>

namespace cascadedb {
namespace {

TEST(BlockAdmissionTest, AdmitsABlockOnItsSecondMiss) {
  BlockAdmission admission(32 << 20, 4096);
  EXPECT_FALSE(admission.AdmitOnMiss(1, 0));
  EXPECT_TRUE(admission.AdmitOnMiss(1, 0));
  // Admitted blocks start over: once evicted, two misses again.
  EXPECT_FALSE(admission.AdmitOnMiss(1, 0));
  EXPECT_TRUE(admission.AdmitOnMiss(1, 0));
}

TEST(BlockAdmissionTest, BlocksAreToldApartByTableAndOffset) {
  BlockAdmission admission(32 << 20, 4096);
  EXPECT_FALSE(admission.AdmitOnMiss(1, 4096));
  EXPECT_FALSE(admission.AdmitOnMiss(2, 4096));  // another table
  EXPECT_FALSE(admission.AdmitOnMiss(1, 8192));  // another block
  EXPECT_TRUE(admission.AdmitOnMiss(1, 4096));
  EXPECT_TRUE(admission.AdmitOnMiss(2, 4096));
  EXPECT_TRUE(admission.AdmitOnMiss(1, 8192));
}

TEST(BlockAdmissionTest, SizedAtFourSlotsPerCachedBlock) {
  EXPECT_EQ(32768u, BlockAdmission(32 << 20, 4096).slots());
  EXPECT_EQ(1024u, BlockAdmission(0, 4096).slots());
  EXPECT_EQ(1024u, BlockAdmission(32 << 20, 0).slots());
  EXPECT_EQ(size_t{1} << 22, BlockAdmission(size_t{1} << 40, 4096).slots());
}

TEST(BlockAdmissionTest, RemembersAboutATableSizeOfMisses) {
  // 1024 slots, all in use: every miss comes with hits, as when admitted
  // blocks pay off, so the window stays at its widest. Most blocks
  // missing twice within a few hundred other misses are admitted; almost
  // none after tens of thousands.
  BlockAdmission admission(0, 4096);
  auto miss = [&](uint64_t table, uint64_t b) {
    for (int h = 0; h < 100; ++h) admission.OnHit();
    return admission.AdmitOnMiss(table, b * 4096);
  };
  int admitted_soon = 0;
  for (uint64_t b = 0; b < 200; ++b) miss(7, b);
  for (uint64_t b = 0; b < 200; ++b) admitted_soon += miss(7, b) ? 1 : 0;
  EXPECT_GE(admitted_soon, 120);  // ~18% collide in 1024 slots
  for (uint64_t b = 1000; b < 1200; ++b) miss(9, b);
  for (uint64_t b = 0; b < 50000; ++b) miss(8, b);
  ASSERT_EQ(admission.slots(), admission.window());
  int admitted_late = 0;
  for (uint64_t b = 1000; b < 1200; ++b) admitted_late += miss(9, b) ? 1 : 0;
  EXPECT_LE(admitted_late, 5);
}

TEST(BlockAdmissionTest, WindowNarrowsWhileAdmittedBlocksAreNotHit) {
  BlockAdmission admission(0, 4096);  // 1024 slots
  ASSERT_EQ(admission.slots(), admission.window());
  // Every block misses twice in a row, so every other miss admits one,
  // and nothing is ever hit.
  for (uint64_t i = 0; i < 50000; ++i) {
    admission.AdmitOnMiss(1, (i / 2) * 4096);
  }
  EXPECT_EQ(admission.slots() >> BlockAdmission::kMaxShift, admission.window());
  // Admitted blocks hit ten times each: the window opens again.
  for (uint64_t i = 0; i < 50000; ++i) {
    if (admission.AdmitOnMiss(2, (i / 2) * 4096)) {
      for (int h = 0; h < 10; ++h) admission.OnHit();
    }
  }
  EXPECT_EQ(admission.slots(), admission.window());
}

// An LRU cache of block numbers in front of a BlockAdmission, as the
// table reader uses them: a hit calls OnHit, a miss asks AdmitOnMiss.
class CacheModel {
 public:
  explicit CacheModel(size_t capacity)
      : capacity_(capacity), admission_(capacity * 4096, 4096) {}

  void Read(uint64_t block) {
    auto it = index_.find(block);
    if (it != index_.end()) {
      hits_++;
      admission_.OnHit();
      lru_.splice(lru_.begin(), lru_, it->second);
      return;
    }
    if (!admission_.AdmitOnMiss(1, block * 4096)) return;
    inserts_++;
    lru_.push_front(block);
    index_[block] = lru_.begin();
    if (lru_.size() > capacity_) {
      index_.erase(lru_.back());
      lru_.pop_back();
    }
  }

  void ResetCounts() { hits_ = inserts_ = 0; }
  uint64_t hits() const { return hits_; }
  uint64_t inserts() const { return inserts_; }
  const BlockAdmission& admission() const { return admission_; }

 private:
  const size_t capacity_;
  BlockAdmission admission_;
  std::list<uint64_t> lru_;
  std::unordered_map<uint64_t, std::list<uint64_t>::iterator> index_;
  uint64_t hits_ = 0;
  uint64_t inserts_ = 0;
};

TEST(BlockAdmissionTest, UniformReadsOverLargeDataInsertFewBlocks) {
  // 1024 cached blocks, uniform reads over 40 times as many. A window
  // fixed at its widest inserts ~4.9% of the misses; the narrowed one
  // ~0.7%, and the hit rate stays what any resident set gives (1/40).
  CacheModel cache(1024);
  std::mt19937_64 rng(301);
  const uint64_t blocks = 40 * 1024;
  for (int i = 0; i < 400000; ++i) cache.Read(rng() % blocks);
  cache.ResetCounts();
  const int reads = 400000;
  for (int i = 0; i < reads; ++i) cache.Read(rng() % blocks);
  const double misses = reads - static_cast<double>(cache.hits());
  EXPECT_LT(static_cast<double>(cache.inserts()) / misses, 0.02);
  EXPECT_GT(static_cast<double>(cache.hits()) / reads, 0.02);  // ~1/40
  EXPECT_LT(cache.admission().window(), cache.admission().slots());
}

TEST(BlockAdmissionTest, AWorkingSetTheCacheHoldsStaysCached) {
  // 90% of reads go to 512 hot blocks, the rest uniformly over 40K cold
  // ones. The hot blocks are admitted and stay: most reads hit.
  CacheModel cache(1024);
  std::mt19937_64 rng(302);
  auto read = [&] {
    cache.Read(rng() % 10 < 9 ? rng() % 512 : 1000000 + rng() % 40960);
  };
  for (int i = 0; i < 200000; ++i) read();
  cache.ResetCounts();
  const int reads = 200000;
  for (int i = 0; i < reads; ++i) read();
  EXPECT_GT(static_cast<double>(cache.hits()) / reads, 0.85);
}

}  // namespace
}  // namespace cascadedb

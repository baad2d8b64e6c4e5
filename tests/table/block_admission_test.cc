// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/block_admission.h"

#include <gtest/gtest.h>

#include <cstdint>

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
  // 1024 slots. Most blocks missing twice within a few hundred other
  // misses are admitted; almost none after tens of thousands.
  BlockAdmission admission(0, 4096);
  int admitted_soon = 0;
  for (uint64_t b = 0; b < 200; ++b) admission.AdmitOnMiss(7, b * 4096);
  for (uint64_t b = 0; b < 200; ++b) {
    admitted_soon += admission.AdmitOnMiss(7, b * 4096) ? 1 : 0;
  }
  EXPECT_GE(admitted_soon, 120);  // ~18% collide in 1024 slots
  for (uint64_t b = 1000; b < 1200; ++b) admission.AdmitOnMiss(9, b * 4096);
  for (uint64_t b = 0; b < 50000; ++b) admission.AdmitOnMiss(8, b * 4096);
  int admitted_late = 0;
  for (uint64_t b = 1000; b < 1200; ++b) {
    admitted_late += admission.AdmitOnMiss(9, b * 4096) ? 1 : 0;
  }
  EXPECT_LE(admitted_late, 5);
}

}  // namespace
}  // namespace cascadedb

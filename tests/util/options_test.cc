// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "cascadedb/options.h"

#include <gtest/gtest.h>

#include "cascadedb/comparator.h"
#include "cascadedb/env.h"
#include "tests/testutil/test_util.h"

namespace cascadedb {

TEST(OptionsTest, DefaultsMatchTheDesign) {
  Options o;
  EXPECT_EQ(BytewiseComparator(), o.comparator);
  EXPECT_EQ(Env::Default(), o.env);
  EXPECT_EQ(64u << 20, o.write_buffer_size);
  EXPECT_EQ(2, o.max_write_buffer_number);
  EXPECT_EQ(4, o.level0_file_num_compaction_trigger);
  EXPECT_EQ(20, o.level0_slowdown_writes_trigger);
  EXPECT_EQ(36, o.level0_stop_writes_trigger);
  EXPECT_EQ(256ull << 20, o.max_bytes_for_level_base);
  EXPECT_EQ(10, o.max_bytes_for_level_multiplier);
  EXPECT_EQ(64ull << 20, o.target_file_size_base);
  EXPECT_EQ(1, o.target_file_size_multiplier);
  EXPECT_EQ(7, o.num_levels);
  // RocksDB's default; LevelDB's round robin is kRoundRobin.
  EXPECT_EQ(CompactionPri::kMinOverlappingRatio, o.compaction_pri);
  EXPECT_EQ(FlushInCompaction::kAuto, o.flush_in_compaction);
  EXPECT_EQ(4096u, o.block_size);
  EXPECT_EQ(kSnappyCompression, o.compression);
  EXPECT_EQ(10, o.bloom_bits_per_key);
  // Not in DESIGN.md's list: on by default, unlike RocksDB
  // (docs/design/20261124-memtable-bloom.md).
  EXPECT_EQ(0.02, o.memtable_prefix_bloom_size_ratio);
  EXPECT_TRUE(o.memtable_whole_key_filtering);
  EXPECT_EQ(32u << 20, o.block_cache_size);
  EXPECT_EQ(16u, o.long_scan_blocks);
  EXPECT_TRUE(o.block_cache_admit_on_second_miss);
  // Not in DESIGN.md's list (docs/design/20261126-compaction-block-copy.md).
  EXPECT_TRUE(o.compaction_copy_blocks);
  EXPECT_TRUE(o.stalled_writers_compress);
  EXPECT_TRUE(o.background_yields_to_writers);
  // Not in DESIGN.md's list
  // (docs/design/20261127-aligned-compaction-outputs.md).
  EXPECT_TRUE(o.align_compaction_outputs);
  EXPECT_EQ(1u << 20, o.writable_file_max_buffer_size);
  // Not in DESIGN.md's list (docs/design/20261126-wal-recycling.md,
  // docs/design/20261127-table-file-recycling.md).
  EXPECT_EQ(2u, o.recycle_log_file_num);
  EXPECT_EQ(16ull << 20, o.recycle_table_bytes);
  EXPECT_EQ(64ull << 30, o.soft_pending_compaction_bytes_limit);
  EXPECT_EQ(256ull << 30, o.hard_pending_compaction_bytes_limit);
  EXPECT_EQ(16ull << 20, o.delayed_write_rate);
  EXPECT_EQ(1, o.max_background_flushes);
  EXPECT_EQ(2, o.max_background_compactions);
  EXPECT_TRUE(ReadOptions().verify_checksums);
  EXPECT_FALSE(WriteOptions().sync);
}

TEST(OptionsTest, DefaultsAreValid) { EXPECT_OK(ValidateOptions(Options())); }

TEST(OptionsTest, EveryProblemIsReportedAtOnce) {
  Options o;
  o.write_buffer_size = 0;
  o.level0_slowdown_writes_trigger = 20;
  o.level0_stop_writes_trigger = 10;
  o.compression = static_cast<CompressionType>(42);
  o.max_bytes_for_level_multiplier = 1;
  Status s = ValidateOptions(o);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  const std::string m = s.message();
  EXPECT_NE(std::string::npos, m.find("write_buffer_size=0")) << m;
  EXPECT_NE(std::string::npos, m.find("level0_stop_writes_trigger=10 is below "
                                      "level0_slowdown_writes_trigger=20"))
      << m;
  EXPECT_NE(std::string::npos, m.find("compression=42")) << m;
  EXPECT_NE(std::string::npos, m.find("max_bytes_for_level_multiplier=1 "))
      << m;
}

TEST(OptionsTest, EachRangeIsChecked) {
  // One bad field at a time; each must be caught and named.
  struct Case {
    const char* name;
    void (*mutate)(Options*);
  };
  const Case cases[] = {
      {"comparator", [](Options* o) { o->comparator = nullptr; }},
      {"env", [](Options* o) { o->env = nullptr; }},
      {"max_write_buffer_number",
       [](Options* o) { o->max_write_buffer_number = 1; }},
      {"num_levels", [](Options* o) { o->num_levels = 1; }},
      {"compaction_pri",
       [](Options* o) { o->compaction_pri = static_cast<CompactionPri>(7); }},
      {"flush_in_compaction",
       [](Options* o) {
         o->flush_in_compaction = static_cast<FlushInCompaction>(3);
       }},
      {"level0_file_num_compaction_trigger",
       [](Options* o) { o->level0_file_num_compaction_trigger = 0; }},
      {"level0_slowdown_writes_trigger",
       [](Options* o) { o->level0_slowdown_writes_trigger = 2; }},
      {"max_bytes_for_level_base",
       [](Options* o) { o->max_bytes_for_level_base = 0; }},
      {"target_file_size_base",
       [](Options* o) { o->target_file_size_base = 10; }},
      {"target_file_size_multiplier",
       [](Options* o) { o->target_file_size_multiplier = 0; }},
      {"max_background_flushes",
       [](Options* o) { o->max_background_flushes = 0; }},
      {"max_background_compactions",
       [](Options* o) { o->max_background_compactions = 100; }},
      {"soft_pending_compaction_bytes_limit",
       [](Options* o) { o->soft_pending_compaction_bytes_limit = ~0ull; }},
      {"delayed_write_rate", [](Options* o) { o->delayed_write_rate = 0; }},
      {"block_size", [](Options* o) { o->block_size = 1; }},
      {"block_restart_interval",
       [](Options* o) { o->block_restart_interval = 0; }},
      {"bloom_bits_per_key", [](Options* o) { o->bloom_bits_per_key = -1; }},
      {"memtable_prefix_bloom_size_ratio",
       [](Options* o) { o->memtable_prefix_bloom_size_ratio = 0.3; }},
      {"memtable_prefix_bloom_size_ratio",
       [](Options* o) { o->memtable_prefix_bloom_size_ratio = -0.01; }},
      {"writable_file_max_buffer_size",
       [](Options* o) { o->writable_file_max_buffer_size = 2ull << 30; }},
  };
  for (const Case& c : cases) {
    Options o;
    c.mutate(&o);
    Status s = ValidateOptions(o);
    EXPECT_TRUE(s.IsInvalidArgument()) << c.name;
    EXPECT_EQ(0u, s.message().find(std::string("invalid options: ") + c.name))
        << s.message();
  }
}

TEST(OptionsTest, DisabledPendingLimitsAreValid) {
  Options o;
  o.soft_pending_compaction_bytes_limit = 100;
  o.hard_pending_compaction_bytes_limit = 0;
  EXPECT_OK(ValidateOptions(o));
}

TEST(OptionsTest, FlushInCompactionNames) {
  EXPECT_STREQ("auto", FlushInCompactionName(FlushInCompaction::kAuto));
  EXPECT_STREQ("never", FlushInCompactionName(FlushInCompaction::kNever));
  EXPECT_STREQ("always", FlushInCompactionName(FlushInCompaction::kAlways));
  EXPECT_STREQ("unknown",
               FlushInCompactionName(static_cast<FlushInCompaction>(3)));
}

TEST(OptionsTest, CompactionPriNames) {
  EXPECT_STREQ("min_overlapping_ratio",
               CompactionPriName(CompactionPri::kMinOverlappingRatio));
  EXPECT_STREQ("round_robin", CompactionPriName(CompactionPri::kRoundRobin));
  EXPECT_STREQ("unknown", CompactionPriName(static_cast<CompactionPri>(0)));
}

TEST(OptionsTest, CompressionNames) {
  EXPECT_STREQ("NoCompression", CompressionTypeName(kNoCompression));
  EXPECT_STREQ("Snappy", CompressionTypeName(kSnappyCompression));
  EXPECT_STREQ("LZ4", CompressionTypeName(kLZ4Compression));
  EXPECT_STREQ("ZSTD", CompressionTypeName(kZSTD));
}

}  // namespace cascadedb

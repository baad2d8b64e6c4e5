// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/properties.h"

#include <gtest/gtest.h>

#include <string>

#include "table/block_builder.h"
#include "tests/testutil/test_util.h"
#include "util/coding.h"

namespace cascadedb {
namespace {

TableProperties Sample() {
  TableProperties p;
  p.num_entries = 1000;
  p.num_deletions = 17;
  p.raw_key_size = 24000;
  p.raw_value_size = 1u << 20;
  p.data_size = 700000;
  p.index_size = 3000;
  p.filter_size = 1250;
  p.num_data_blocks = 171;
  p.smallest_seqno = 5;
  p.largest_seqno = uint64_t{1} << 56;
  p.creation_time = 1795000000;
  p.compression_name = "Snappy";
  p.comparator_name = "cascadedb.InternalKeyComparator:leveldb.Bytewise";
  p.filter_policy_name = "cascadedb.CacheLocalBloom";
  return p;
}

void ExpectEqual(const TableProperties& a, const TableProperties& b) {
  EXPECT_EQ(a.ToString(), b.ToString());
}

TEST(TablePropertiesTest, RoundTripsEveryField) {
  std::string block;
  EncodeTableProperties(Sample(), &block);
  TableProperties decoded;
  ASSERT_OK(DecodeTableProperties(block, &decoded));
  ExpectEqual(Sample(), decoded);
  EXPECT_EQ(uint64_t{1} << 56, decoded.largest_seqno);
  EXPECT_EQ("Snappy", decoded.compression_name);
}

TEST(TablePropertiesTest, RoundTripsDefaults) {
  std::string block;
  EncodeTableProperties(TableProperties(), &block);
  TableProperties decoded = Sample();
  ASSERT_OK(DecodeTableProperties(block, &decoded));
  ExpectEqual(TableProperties(), decoded);
}

TEST(TablePropertiesTest, UnknownNamesAreIgnored) {
  BlockBuilder builder(1);
  builder.Add("a.future.property", "anything");
  std::string entries;
  PutVarint64(&entries, 42);
  builder.Add("cascadedb.num.entries", entries);
  builder.Add("cascadedb.zz.future", "\xff\xff");
  builder.Add("zzz", "");
  TableProperties decoded;
  ASSERT_OK(DecodeTableProperties(builder.Finish(), &decoded));
  EXPECT_EQ(42u, decoded.num_entries);
}

TEST(TablePropertiesTest, MissingNamesKeepDefaults) {
  BlockBuilder builder(1);
  builder.Add("cascadedb.comparator", "leveldb.Bytewise");
  TableProperties decoded = Sample();
  ASSERT_OK(DecodeTableProperties(builder.Finish(), &decoded));
  EXPECT_EQ("leveldb.Bytewise", decoded.comparator_name);
  EXPECT_EQ(0u, decoded.num_entries);
  EXPECT_EQ("", decoded.compression_name);
}

TEST(TablePropertiesTest, TruncatedNumberIsCorruption) {
  BlockBuilder builder(1);
  builder.Add("cascadedb.num.entries", "\xff");
  TableProperties decoded;
  Status s = DecodeTableProperties(builder.Finish(), &decoded);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("cascadedb.num.entries"));
}

TEST(TablePropertiesTest, TrailingBytesAfterNumberAreCorruption) {
  BlockBuilder builder(1);
  builder.Add("cascadedb.num.entries", std::string("\x05\x00", 2));
  TableProperties decoded;
  EXPECT_TRUE(DecodeTableProperties(builder.Finish(), &decoded).IsCorruption());
}

TEST(TablePropertiesTest, MalformedBlockIsCorruption) {
  TableProperties decoded;
  EXPECT_TRUE(DecodeTableProperties("ab", &decoded).IsCorruption());
  std::string block;
  EncodeTableProperties(Sample(), &block);
  block[0] = 0x7f;  // the first entry's shared length: impossible
  EXPECT_TRUE(DecodeTableProperties(block, &decoded).IsCorruption());
}

TEST(TablePropertiesTest, EveryTruncationIsCorruptionOrPartial) {
  std::string block;
  EncodeTableProperties(Sample(), &block);
  for (size_t n = 0; n < block.size(); ++n) {
    TableProperties decoded;
    Status s = DecodeTableProperties(Slice(block.data(), n), &decoded);
    EXPECT_TRUE(s.ok() || s.IsCorruption()) << s.ToString();
  }
}

TEST(TablePropertiesTest, ToStringNamesEveryField) {
  const std::string s = Sample().ToString();
  for (const char* name :
       {"num_entries=1000", "num_deletions=17", "raw_key_size=24000",
        "raw_value_size=1048576", "data_size=700000", "index_size=3000",
        "filter_size=1250", "num_data_blocks=171", "smallest_seqno=5",
        "largest_seqno=72057594037927936", "creation_time=1795000000",
        "compression=Snappy", "comparator=cascadedb.InternalKeyComparator",
        "filter_policy=cascadedb.CacheLocalBloom"}) {
    EXPECT_NE(std::string::npos, s.find(name)) << name << " in " << s;
  }
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/table_builder.h"

#include <gtest/gtest.h>

#include <string>

#include "table/format.h"
#include "tests/table/table_test_util.h"
#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace {

using test::StringSink;

TEST(TableBuilderTest, CountsEntriesAndBytesWritten) {
  StringSink sink;
  TableBuilder builder(TableOptions(), &sink);
  builder.Add("a", "1");
  builder.Add("b", "2");
  EXPECT_EQ(2u, builder.NumEntries());
  ASSERT_OK(builder.Finish());
  EXPECT_EQ(sink.contents().size(), builder.FileSize());
  EXPECT_GT(builder.FileSize(), Footer::kEncodedLength);
  EXPECT_EQ(2u, builder.properties().num_entries);
  EXPECT_EQ(1u, builder.properties().num_data_blocks);
}

TEST(TableBuilderTest, LastKeyIsTheLastAddedEvenAcrossBlocks) {
  TableOptions options;
  options.block_size = 64;  // a block per entry or two: separators computed
  StringSink sink;
  TableBuilder builder(options, &sink);
  EXPECT_EQ("", builder.LastKey().ToString());
  for (int i = 0; i < 20; ++i) {
    const std::string key = "key" + std::to_string(1000 + i);
    builder.Add(key, std::string(50, 'v'));
    EXPECT_EQ(key, builder.LastKey().ToString());
  }
  ASSERT_OK(builder.Finish());
}

TEST(TableBuilderTest, CutsDataBlocksAtBlockSize) {
  TableOptions options;
  options.compression = kNoCompression;
  options.block_size = 1000;
  StringSink sink;
  TableBuilder builder(options, &sink);
  for (int i = 0; i < 100; ++i) {
    builder.Add("key" + std::to_string(1000 + i), std::string(100, 'v'));
  }
  ASSERT_OK(builder.Finish());
  // ~10,700 bytes of entries in blocks of at least 1000 bytes.
  EXPECT_GE(builder.properties().num_data_blocks, 9u);
  EXPECT_LE(builder.properties().num_data_blocks, 11u);
}

TEST(TableBuilderTest, PreallocatesWhenAsked) {
  TableOptions options;
  options.preallocation_size = 4 << 20;
  StringSink sink;
  TableBuilder builder(options, &sink);
  builder.Add("a", "1");
  ASSERT_OK(builder.Finish());
  ASSERT_EQ(1u, sink.allocations().size());
  EXPECT_EQ(0u, sink.allocations()[0].first);
  EXPECT_EQ(uint64_t{4} << 20, sink.allocations()[0].second);
}

TEST(TableBuilderTest, DoesNotPreallocateByDefault) {
  StringSink sink;
  TableBuilder builder(TableOptions(), &sink);
  ASSERT_OK(builder.Finish());
  EXPECT_TRUE(sink.allocations().empty());
}

TEST(TableBuilderTest, AppendErrorIsReturnedByFinish) {
  TableOptions options;
  options.block_size = 100;
  for (int fail_after = 0; fail_after < 12; ++fail_after) {
    StringSink sink;
    sink.FailAppendsAfter(fail_after);
    TableBuilder builder(options, &sink);
    for (int i = 0; i < 20; ++i) {
      builder.Add("key" + std::to_string(100 + i), std::string(50, 'v'));
    }
    Status s = builder.Finish();
    EXPECT_TRUE(s.IsIOError()) << fail_after << ": " << s.ToString();
    EXPECT_TRUE(builder.status().IsIOError());
  }
}

TEST(TableBuilderTest, OutOfOrderKeyIsInvalidArgument) {
  StringSink sink;
  TableBuilder builder(TableOptions(), &sink);
  builder.Add("b", "1");
  builder.Add("a", "2");
  EXPECT_TRUE(builder.status().IsInvalidArgument());
  builder.Add("c", "3");  // ignored
  EXPECT_EQ(1u, builder.NumEntries());
  Status s = builder.Finish();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

TEST(TableBuilderTest, OutOfOrderKeyRightAfterABlockIsInvalidArgument) {
  // The block holding "b" is written before "a" arrives: the order check
  // must use the key the table builder kept, not the emptied block's.
  TableOptions options;
  options.block_size = 1;
  StringSink sink;
  TableBuilder builder(options, &sink);
  builder.Add("b", "1");
  ASSERT_EQ(1u, builder.properties().num_data_blocks);
  EXPECT_EQ("b", builder.LastKey().ToString());
  builder.Add("a", "2");
  EXPECT_TRUE(builder.status().IsInvalidArgument());
  builder.Add("b", "3");  // ignored after the error
  EXPECT_EQ(1u, builder.NumEntries());
  EXPECT_TRUE(builder.Finish().IsInvalidArgument());
}

TEST(TableBuilderTest, DuplicateKeyIsInvalidArgument) {
  StringSink sink;
  TableBuilder builder(TableOptions(), &sink);
  builder.Add("a", "1");
  builder.Add("a", "2");
  EXPECT_TRUE(builder.Finish().IsInvalidArgument());
}

TEST(TableBuilderTest, InvalidRestartIntervalIsInvalidArgument) {
  TableOptions options;
  options.block_restart_interval = 0;
  StringSink sink;
  TableBuilder builder(options, &sink);
  EXPECT_TRUE(builder.status().IsInvalidArgument());
  builder.Add("a", "1");  // ignored
  Status s = builder.Finish();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("block_restart_interval=0"));
  EXPECT_TRUE(sink.contents().empty());
}

TEST(TableBuilderTest, UnknownCompressionIsInvalidArgument) {
  TableOptions options;
  options.compression = static_cast<CompressionType>(9);
  StringSink sink;
  TableBuilder builder(options, &sink);
  EXPECT_TRUE(builder.status().IsInvalidArgument());
  builder.Abandon();
}

TEST(TableBuilderTest, AbandonWritesNothingMore) {
  StringSink sink;
  TableBuilder builder(TableOptions(), &sink);
  builder.Add("a", "1");
  builder.Abandon();
  EXPECT_TRUE(sink.contents().empty());  // the only block was never full
}

}  // namespace
}  // namespace cascadedb

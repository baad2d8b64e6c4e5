// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/table_builder.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cascadedb/filter_policy.h"
#include "table/compression_queue.h"
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

// ---------------------------------------------------------------- with a
// compression queue

// Threads that compress whatever the queue holds until stopped.
class Helpers {
 public:
  Helpers(CompressionQueue* queue, int n) {
    for (int i = 0; i < n; ++i) {
      threads_.emplace_back([this, queue] {
        while (!stop_.load()) {
          if (!queue->HelpOne(~uint64_t{0})) std::this_thread::yield();
        }
      });
    }
  }
  ~Helpers() {
    stop_.store(true);
    for (auto& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

std::map<std::string, std::string> ManyEntries(int n) {
  std::map<std::string, std::string> kv;
  uint32_t x = 1;
  for (int i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    // Values half repeated bytes, half noise: some blocks compress, and
    // with short values some do not save enough.
    std::string value(static_cast<size_t>(x % 200),
                      static_cast<char>('a' + i % 26));
    for (int j = 0; j < static_cast<int>(x % 60); ++j) {
      value.push_back(static_cast<char>((x >> (j % 24)) + j));
    }
    kv["key" + std::to_string(x)] = value;
  }
  return kv;
}

std::string Build(const TableOptions& options,
                  const std::map<std::string, std::string>& kv) {
  StringSink sink;
  TableBuilder builder(options, &sink);
  for (const auto& [k, v] : kv) builder.Add(k, v);
  EXPECT_OK(builder.Finish());
  EXPECT_EQ(sink.contents().size(), builder.FileSize());
  return sink.contents();
}

// Whoever compresses the blocks, and in whatever order they get done, the
// table is byte for byte the one built without a queue.
TEST(TableBuilderTest, QueuedBlocksMakeTheSameTable) {
  std::unique_ptr<const FilterPolicy> bloom(NewBloomFilterPolicy(10));
  TableOptions options;
  options.block_size = 256;
  options.filter_policy = bloom.get();
  const auto kv = ManyEntries(5000);
  const std::string expected = Build(options, kv);
  CompressionQueue queue;
  queue.SetHelpersExpected(true);
  options.compression_queue = &queue;
  EXPECT_TRUE(expected == Build(options, kv));  // nobody helps
  for (int helpers : {1, 3}) {
    SCOPED_TRACE(helpers);
    Helpers running(&queue, helpers);
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(expected == Build(options, kv));
  }
  EXPECT_GT(queue.helped_jobs(), 0u);
  EXPECT_FALSE(queue.HasWork());
}

// Blocks waiting in the queue count in FileSize at the compression ratio
// of the blocks written so far (the whole raw size before any).
TEST(TableBuilderTest, FileSizeCountsQueuedBlocks) {
  CompressionQueue queue;
  queue.SetHelpersExpected(true);
  TableOptions options;
  options.block_size = 1000;
  options.compression_queue = &queue;
  StringSink sink;
  TableBuilder builder(options, &sink);
  for (int i = 0; i < 50; ++i) {
    builder.Add("key" + std::to_string(1000 + i), std::string(100, 'v'));
  }
  // ~5 blocks, all queued, none written.
  EXPECT_TRUE(sink.contents().empty());
  EXPECT_TRUE(queue.HasWork());
  EXPECT_GE(builder.FileSize(), 4000u);
  EXPECT_LE(builder.FileSize(), 6000u);
  // Once more than the window is pending, the oldest are written; the
  // estimate then follows their ratio (these values shrink to a few %).
  for (int i = 50; i < 500; ++i) {
    builder.Add("key" + std::to_string(1000 + i), std::string(100, 'v'));
  }
  EXPECT_FALSE(sink.contents().empty());
  EXPECT_LT(builder.FileSize(), 10000u);
  EXPECT_GE(builder.FileSize(), sink.contents().size());
  ASSERT_OK(builder.Finish());
  EXPECT_EQ(sink.contents().size(), builder.FileSize());
  EXPECT_FALSE(queue.HasWork());
}

TEST(TableBuilderTest, QueuedAppendErrorIsReturnedByFinish) {
  CompressionQueue queue;
  queue.SetHelpersExpected(true);
  TableOptions options;
  options.block_size = 100;
  options.compression_queue = &queue;
  for (int fail_after = 0; fail_after < 12; ++fail_after) {
    StringSink sink;
    sink.FailAppendsAfter(fail_after);
    TableBuilder builder(options, &sink);
    for (int i = 0; i < 60; ++i) {
      builder.Add("key" + std::to_string(100 + i), std::string(50, 'v'));
    }
    Status s = builder.Finish();
    EXPECT_TRUE(s.IsIOError()) << fail_after << ": " << s.ToString();
    EXPECT_FALSE(queue.HasWork()) << fail_after;  // nothing left behind
  }
}

TEST(TableBuilderTest, AbandonTakesQueuedBlocksBack) {
  CompressionQueue queue;
  queue.SetHelpersExpected(true);
  TableOptions options;
  options.block_size = 100;
  options.compression_queue = &queue;
  StringSink sink;
  TableBuilder builder(options, &sink);
  for (int i = 0; i < 10; ++i) {
    builder.Add("key" + std::to_string(100 + i), std::string(50, 'v'));
  }
  ASSERT_TRUE(queue.HasWork());
  builder.Abandon();
  EXPECT_FALSE(queue.HasWork());
  EXPECT_TRUE(sink.contents().empty());
}

// Until helpers are expected, blocks are compressed and written at once;
// when they no longer are, the queued ones are written first, in order.
TEST(TableBuilderTest, BlocksQueueOnlyWhileHelpersAreExpected) {
  std::unique_ptr<const FilterPolicy> bloom(NewBloomFilterPolicy(10));
  TableOptions options;
  options.block_size = 256;
  options.filter_policy = bloom.get();
  const auto kv = ManyEntries(3000);
  const std::string expected = Build(options, kv);
  CompressionQueue queue;
  options.compression_queue = &queue;
  StringSink sink;
  TableBuilder builder(options, &sink);
  int i = 0;
  for (const auto& [k, v] : kv) {
    builder.Add(k, v);
    if (i == 100) {
      EXPECT_FALSE(queue.HasWork());  // none queued: none expected
      EXPECT_EQ(sink.contents().size(), builder.FileSize());
      queue.SetHelpersExpected(true);
    }
    if (i == 1000) {
      EXPECT_TRUE(queue.HasWork());
      queue.SetHelpersExpected(false);
    }
    if (i == 1500) {
      EXPECT_FALSE(queue.HasWork());  // drained at the next block
      EXPECT_EQ(sink.contents().size(), builder.FileSize());
    }
    ++i;
  }
  ASSERT_OK(builder.Finish());
  EXPECT_TRUE(expected == sink.contents());
}

TEST(TableBuilderTest, NoCompressionBypassesTheQueue) {
  CompressionQueue queue;
  queue.SetHelpersExpected(true);
  TableOptions options;
  options.compression = kNoCompression;
  options.block_size = 100;
  options.compression_queue = &queue;
  StringSink sink;
  TableBuilder builder(options, &sink);
  for (int i = 0; i < 10; ++i) {
    builder.Add("key" + std::to_string(100 + i), std::string(50, 'v'));
  }
  EXPECT_FALSE(queue.HasWork());
  EXPECT_FALSE(sink.contents().empty());
  ASSERT_OK(builder.Finish());
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/compression_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "table/format.h"
#include "tests/table/table_test_util.h"
#include "tests/testutil/test_util.h"
#include "util/compression.h"

namespace cascadedb {
namespace {

constexpr uint64_t kNoBudgetLimit = std::numeric_limits<uint64_t>::max();

// A block snappy shrinks well, and one it cannot shrink by 12.5%.
std::string CompressibleBlock(char c) { return std::string(4096, c); }
std::string IncompressibleBlock(uint32_t seed) {
  std::string s;
  uint32_t x = seed;
  for (int i = 0; i < 4096; ++i) {
    x = x * 1103515245u + 12345u;
    s.push_back(static_cast<char>(x >> 23));
  }
  return s;
}

// What WriteBlock writes for raw: the bytes a done job must hold.
std::string Written(const std::string& raw) {
  test::StringSink sink;
  uint64_t offset = 0;
  std::string scratch;
  BlockHandle handle;
  CompressionType used;
  EXPECT_OK(WriteBlock(&sink, &offset, raw, kSnappyCompression,
                       kDefaultCompressionLevel, &scratch, &handle, &used));
  return sink.contents();
}

void Fill(BlockJob* job, const std::string& raw) {
  job->type = kSnappyCompression;
  job->level = kDefaultCompressionLevel;
  job->raw = raw;
}

// A helper thread held after it takes a job, until released.
class HeldHelper {
 public:
  explicit HeldHelper(CompressionQueue* queue) : queue_(queue) {
    queue_->TEST_SetTakenHook([this] {
      std::unique_lock<std::mutex> l(mu_);
      taken_ = true;
      cv_.notify_all();
      cv_.wait(l, [this] { return released_; });
    });
    thread_ =
        std::thread([this] { helped_ = queue_->HelpOne(kNoBudgetLimit); });
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [this] { return taken_; });
  }
  // Lets the helper compress and return; returns what HelpOne returned.
  bool Release() {
    {
      std::lock_guard<std::mutex> l(mu_);
      released_ = true;
    }
    cv_.notify_all();
    thread_.join();
    return helped_;
  }

 private:
  CompressionQueue* const queue_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool taken_ = false;
  bool released_ = false;
  bool helped_ = false;
  std::thread thread_;
};

TEST(CompressionQueueTest, CompressMakesWhatWriteBlockWrites) {
  for (const std::string& raw :
       {CompressibleBlock('a'), IncompressibleBlock(7), std::string("x")}) {
    BlockJob job;
    Fill(&job, raw);
    CompressionQueue::Compress(&job);
    EXPECT_EQ(Written(raw), job.stored);
  }
  // Incompressible bytes are stored raw, with a trailer.
  BlockJob job;
  Fill(&job, IncompressibleBlock(9));
  CompressionQueue::Compress(&job);
  EXPECT_EQ(job.raw.size() + kBlockTrailerSize, job.stored.size());
}

TEST(CompressionQueueTest, HelperTakesTheOldestJob) {
  CompressionQueue queue;
  EXPECT_FALSE(queue.HasWork());
  EXPECT_FALSE(queue.HelpOne(kNoBudgetLimit));
  BlockJob first, second;
  Fill(&first, CompressibleBlock('a'));
  Fill(&second, CompressibleBlock('b'));
  queue.Submit(&first);
  queue.Submit(&second);
  EXPECT_TRUE(queue.HasWork());
  EXPECT_TRUE(queue.HelpOne(kNoBudgetLimit));
  EXPECT_TRUE(first.done());
  EXPECT_FALSE(second.done());
  EXPECT_EQ(Written(first.raw), first.stored);
  EXPECT_EQ(1u, queue.helped_jobs());
  queue.Complete(&first);  // done already: left as it is
  EXPECT_EQ(Written(first.raw), first.stored);
  queue.Complete(&second);
  EXPECT_EQ(Written(second.raw), second.stored);
  EXPECT_FALSE(queue.HasWork());
  EXPECT_EQ(1u, queue.helped_jobs());
}

TEST(CompressionQueueTest, HelperTakesNothingOverItsBudget) {
  CompressionQueue queue;
  BlockJob job;
  Fill(&job, CompressibleBlock('a'));
  queue.Submit(&job);
  ASSERT_GT(queue.EstimateNanos(job.raw.size()), 0u);
  EXPECT_FALSE(queue.HelpOne(queue.EstimateNanos(job.raw.size()) - 1));
  EXPECT_TRUE(queue.HasWork());
  EXPECT_FALSE(job.done());
  EXPECT_TRUE(queue.HelpOne(queue.EstimateNanos(job.raw.size())));
  EXPECT_TRUE(job.done());
}

TEST(CompressionQueueTest, EstimateFollowsTheMeasuredRate) {
  CompressionQueue queue;
  const uint64_t assumed = queue.EstimateNanos(1 << 20);
  EXPECT_EQ(2 * queue.EstimateNanos(1 << 19), assumed);
  // Each compression is timed here around Complete, on the same clock, so
  // the queue's own timing of it can only be shorter. The same average of
  // these outer times is therefore a bound the estimate never passes, even
  // when a job is preempted; and the estimate ends near their median
  // (within 4x below it: the outer times add only the queue's locking).
  uint64_t bound = queue.EstimateNanos(1000);  // picoseconds per byte
  BlockJob job;
  std::vector<uint64_t> nanos;
  for (int i = 0; i < 64; ++i) {
    Fill(&job, IncompressibleBlock(static_cast<uint32_t>(i)));
    queue.Submit(&job);
    const auto start = std::chrono::steady_clock::now();
    queue.Complete(&job);
    nanos.push_back(static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now() - start)
            .count()));
    const uint64_t sample = nanos.back() * 1000 / job.raw.size();
    bound = bound - bound / 8 + sample / 8;
    EXPECT_LE(queue.EstimateNanos(1000), bound) << "after job " << i;
  }
  std::sort(nanos.begin(), nanos.end());
  const uint64_t median = nanos[nanos.size() / 2];
  EXPECT_GE(4 * queue.EstimateNanos(job.raw.size()), median);
}

TEST(CompressionQueueTest, CompleteCompressesWhatNobodyTook) {
  CompressionQueue queue;
  BlockJob job;
  Fill(&job, IncompressibleBlock(3));
  queue.Submit(&job);
  queue.Complete(&job);
  EXPECT_TRUE(job.done());
  EXPECT_EQ(Written(job.raw), job.stored);
  EXPECT_FALSE(queue.HasWork());
  EXPECT_FALSE(queue.HelpOne(kNoBudgetLimit));
  EXPECT_EQ(0u, queue.helped_jobs());
}

// A builder that needs a block a helper holds compresses it itself, at
// once; the helper's late result lands nowhere, not even in the job
// reused for the next block.
TEST(CompressionQueueTest, CompleteTakesAJobBackFromAHeldHelper) {
  CompressionQueue queue;
  BlockJob job;
  Fill(&job, CompressibleBlock('a'));
  queue.Submit(&job);
  HeldHelper helper(&queue);
  EXPECT_FALSE(job.done());
  queue.Complete(&job);  // does not wait for the helper
  ASSERT_TRUE(job.done());
  EXPECT_EQ(Written(CompressibleBlock('a')), job.stored);

  Fill(&job, IncompressibleBlock(5));
  queue.Submit(&job);
  EXPECT_TRUE(helper.Release());
  EXPECT_FALSE(job.done());  // the stale result did not complete it
  EXPECT_TRUE(queue.HasWork());
  queue.Complete(&job);
  EXPECT_EQ(Written(IncompressibleBlock(5)), job.stored);
  EXPECT_EQ(1u, queue.helped_jobs());
}

TEST(CompressionQueueTest, CancelTakesJobsBackQueuedOrHeld) {
  CompressionQueue queue;
  BlockJob held, queued;
  Fill(&held, CompressibleBlock('a'));
  Fill(&queued, CompressibleBlock('b'));
  queue.Submit(&held);
  queue.Submit(&queued);
  HeldHelper helper(&queue);
  queue.Cancel(&held);
  queue.Cancel(&queued);
  EXPECT_FALSE(queue.HasWork());
  held.stored = "untouched";
  EXPECT_TRUE(helper.Release());
  EXPECT_EQ("untouched", held.stored);
  EXPECT_FALSE(held.done());
  EXPECT_FALSE(queued.done());
  // Cancelled jobs can be submitted again.
  queue.Submit(&held);
  EXPECT_TRUE(queue.HelpOne(kNoBudgetLimit));
  EXPECT_EQ(Written(held.raw), held.stored);
}

}  // namespace
}  // namespace cascadedb

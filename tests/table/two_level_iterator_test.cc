// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/two_level_iterator.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"
#include "tests/table/iterator_test_util.h"
#include "tests/testutil/test_util.h"
#include "util/random.h"

namespace cascadedb {
namespace {

using test::Entry;
using test::VectorIterator;

// A set of "blocks" (vectors of entries) plus the index over them: index key
// i is the last key of block i (or, for an empty block, the smallest string
// after the previous separator), index value i is the block number.
class FakeBlocks {
 public:
  explicit FakeBlocks(std::vector<std::vector<Entry>> blocks)
      : blocks_(std::move(blocks)), failing_(blocks_.size(), false) {
    std::string previous;
    for (size_t i = 0; i < blocks_.size(); ++i) {
      std::string separator = blocks_[i].empty()
                                  ? previous + std::string(1, '\0')
                                  : blocks_[i].back().first;
      index_.emplace_back(separator, std::to_string(i));
      previous = separator;
      for (const Entry& e : blocks_[i]) all_.push_back(e);
    }
  }

  Iterator* NewIterator(const ReadOptions& options = ReadOptions()) {
    return NewTwoLevelIterator(new VectorIterator(BytewiseComparator(), index_),
                               &FakeBlocks::Open, this, options, "test.sst");
  }

  void FailBlock(size_t i) { failing_[i] = true; }
  const std::vector<Entry>& all() const { return all_; }
  int opens() const { return opens_; }
  bool last_fill_cache() const { return last_fill_cache_; }

 private:
  static Iterator* Open(void* arg, const ReadOptions& options,
                        const Slice& index_value) {
    FakeBlocks* self = static_cast<FakeBlocks*>(arg);
    ++self->opens_;
    self->last_fill_cache_ = options.fill_cache;
    const size_t i = std::stoul(index_value.ToString());
    if (self->failing_[i]) {
      return NewErrorIterator(Status::Corruption(
          "block checksum mismatch at offset " + index_value.ToString()));
    }
    return new VectorIterator(BytewiseComparator(), self->blocks_[i]);
  }

  std::vector<std::vector<Entry>> blocks_;
  std::vector<bool> failing_;
  std::vector<Entry> index_;
  std::vector<Entry> all_;
  int opens_ = 0;
  bool last_fill_cache_ = true;
};

// Keys "k000".."k(n-1)" spread over blocks of the given sizes (0 = empty).
std::vector<std::vector<Entry>> MakeBlocks(const std::vector<int>& sizes) {
  std::vector<std::vector<Entry>> blocks;
  int next = 0;
  for (int size : sizes) {
    std::vector<Entry> block;
    for (int j = 0; j < size; ++j, ++next) {
      char key[16];
      snprintf(key, sizeof(key), "k%03d", next);
      block.emplace_back(key, "v" + std::to_string(next));
    }
    blocks.push_back(std::move(block));
  }
  return blocks;
}

std::vector<std::string> ScanForward(Iterator* iter) {
  std::vector<std::string> keys;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    keys.push_back(iter->key().ToString());
  }
  return keys;
}

std::vector<std::string> ScanBackward(Iterator* iter) {
  std::vector<std::string> keys;
  for (iter->SeekToLast(); iter->Valid(); iter->Prev()) {
    keys.push_back(iter->key().ToString());
  }
  return keys;
}

std::vector<std::string> Keys(const std::vector<Entry>& entries) {
  std::vector<std::string> keys;
  for (const Entry& e : entries) keys.push_back(e.first);
  return keys;
}

TEST(TwoLevelIteratorTest, EmptyIndexIsInvalidAndOk) {
  FakeBlocks blocks({});
  std::unique_ptr<Iterator> iter(blocks.NewIterator());
  iter->SeekToFirst();
  EXPECT_FALSE(iter->Valid());
  iter->SeekToLast();
  EXPECT_FALSE(iter->Valid());
  iter->Seek("a");
  EXPECT_FALSE(iter->Valid());
  iter->SeekForPrev("z");
  EXPECT_FALSE(iter->Valid());
  EXPECT_OK(iter->status());
}

TEST(TwoLevelIteratorTest, ScansEveryEntryInBothDirections) {
  FakeBlocks blocks(MakeBlocks({3, 1, 4, 1, 5}));
  std::unique_ptr<Iterator> iter(blocks.NewIterator());
  std::vector<std::string> expected = Keys(blocks.all());
  EXPECT_EQ(expected, ScanForward(iter.get()));
  std::reverse(expected.begin(), expected.end());
  EXPECT_EQ(expected, ScanBackward(iter.get()));
  EXPECT_OK(iter->status());
}

TEST(TwoLevelIteratorTest, SkipsEmptyBlocksInBothDirections) {
  FakeBlocks blocks(MakeBlocks({0, 2, 0, 0, 3, 0}));
  std::unique_ptr<Iterator> iter(blocks.NewIterator());
  std::vector<std::string> expected = {"k000", "k001", "k002", "k003", "k004"};
  EXPECT_EQ(expected, ScanForward(iter.get()));
  std::reverse(expected.begin(), expected.end());
  EXPECT_EQ(expected, ScanBackward(iter.get()));
}

TEST(TwoLevelIteratorTest, OnlyEmptyBlocksIsEmpty) {
  FakeBlocks blocks(MakeBlocks({0, 0, 0}));
  std::unique_ptr<Iterator> iter(blocks.NewIterator());
  EXPECT_TRUE(ScanForward(iter.get()).empty());
  EXPECT_TRUE(ScanBackward(iter.get()).empty());
  iter->SeekForPrev("zzz");
  EXPECT_FALSE(iter->Valid());
  EXPECT_OK(iter->status());
}

TEST(TwoLevelIteratorTest, SeekEdgeCases) {
  FakeBlocks blocks(MakeBlocks({2, 0, 2}));  // k000 k001 | | k002 k003
  std::unique_ptr<Iterator> iter(blocks.NewIterator());

  iter->Seek("");  // before everything
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("k000", iter->key().ToString());

  iter->Seek("k001");  // exact, last key of a block
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("k001", iter->key().ToString());

  iter->Seek("k0010");  // between blocks, across an empty one
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("k002", iter->key().ToString());
  EXPECT_EQ("v2", iter->value().ToString());

  iter->Seek("k003");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("k003", iter->key().ToString());

  iter->Seek("k004");  // past everything
  EXPECT_FALSE(iter->Valid());
  EXPECT_OK(iter->status());
}

TEST(TwoLevelIteratorTest, SeekForPrevEdgeCases) {
  FakeBlocks blocks(MakeBlocks({2, 0, 2}));  // k000 k001 | | k002 k003
  std::unique_ptr<Iterator> iter(blocks.NewIterator());

  iter->SeekForPrev("a");  // before everything
  EXPECT_FALSE(iter->Valid());
  EXPECT_OK(iter->status());

  iter->SeekForPrev("k000");  // exact first key
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("k000", iter->key().ToString());

  // Between blocks: the index lands on the empty block and then on
  // block 2, whose keys are all larger, so the answer is in block 0.
  iter->SeekForPrev("k0015");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("k001", iter->key().ToString());

  iter->SeekForPrev("k002");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("k002", iter->key().ToString());

  iter->SeekForPrev("zzz");  // past every separator
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("k003", iter->key().ToString());
}

TEST(TwoLevelIteratorTest, NextAndPrevCrossBlockBoundaries) {
  FakeBlocks blocks(MakeBlocks({1, 0, 1, 1}));  // k000 | | k001 | k002
  std::unique_ptr<Iterator> iter(blocks.NewIterator());
  iter->Seek("k001");
  ASSERT_TRUE(iter->Valid());
  iter->Prev();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("k000", iter->key().ToString());
  iter->Next();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("k001", iter->key().ToString());
  iter->Next();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("k002", iter->key().ToString());
  iter->Next();
  EXPECT_FALSE(iter->Valid());
  iter->SeekToFirst();
  iter->Prev();
  EXPECT_FALSE(iter->Valid());
  EXPECT_OK(iter->status());
}

TEST(TwoLevelIteratorTest, MatchesModelUnderRandomOperations) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  std::vector<int> sizes;
  for (int i = 0; i < 40; ++i) {
    sizes.push_back(rnd.OneIn(4) ? 0 : static_cast<int>(rnd.Uniform(8)));
  }
  FakeBlocks blocks(MakeBlocks(sizes));
  std::unique_ptr<Iterator> iter(blocks.NewIterator());
  test::CheckAgainstModel(iter.get(), BytewiseComparator(), blocks.all(), &rnd,
                          5000, [](Random* r) {
                            // Existing keys, keys in between, and keys outside
                            // the range.
                            char key[16];
                            snprintf(key, sizeof(key), "k%03u",
                                     r->Uniform(300));
                            std::string target = key;
                            if (r->OneIn(3)) target += "5";
                            if (r->OneIn(20)) target = r->OneIn(2) ? "a" : "z";
                            return target;
                          });
}

TEST(TwoLevelIteratorTest, ReseekIntoTheOpenBlockReusesIt) {
  FakeBlocks blocks(MakeBlocks({4, 4}));
  std::unique_ptr<Iterator> iter(blocks.NewIterator());
  iter->Seek("k001");
  iter->Seek("k003");
  iter->SeekForPrev("k002");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ(1, blocks.opens());
  iter->Seek("k005");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ(2, blocks.opens());
}

TEST(TwoLevelIteratorTest, PassesReadOptionsToTheBlockFunction) {
  FakeBlocks blocks(MakeBlocks({2}));
  ReadOptions options;
  options.fill_cache = false;
  std::unique_ptr<Iterator> iter(blocks.NewIterator(options));
  iter->SeekToFirst();
  ASSERT_TRUE(iter->Valid());
  EXPECT_FALSE(blocks.last_fill_cache());
}

TEST(TwoLevelIteratorTest, BlockErrorStopsForwardScanWithContext) {
  FakeBlocks blocks(MakeBlocks({2, 2, 2}));
  blocks.FailBlock(1);
  std::unique_ptr<Iterator> iter(blocks.NewIterator());
  // The scan returns block 0 and then stops: it must not skip the bad
  // block and carry on with block 2.
  EXPECT_EQ((std::vector<std::string>{"k000", "k001"}),
            ScanForward(iter.get()));
  Status s = iter->status();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("test.sst: block checksum"))
      << s.ToString();
}

TEST(TwoLevelIteratorTest, BlockErrorStopsBackwardScan) {
  FakeBlocks blocks(MakeBlocks({2, 2, 2}));
  blocks.FailBlock(1);
  std::unique_ptr<Iterator> iter(blocks.NewIterator());
  EXPECT_EQ((std::vector<std::string>{"k005", "k004"}),
            ScanBackward(iter.get()));
  EXPECT_TRUE(iter->status().IsCorruption());
}

TEST(TwoLevelIteratorTest, SeekAfterErrorRetriesTheBlock) {
  FakeBlocks blocks(MakeBlocks({2, 2}));
  blocks.FailBlock(0);
  std::unique_ptr<Iterator> iter(blocks.NewIterator());
  iter->Seek("k000");
  EXPECT_FALSE(iter->Valid());
  EXPECT_TRUE(iter->status().IsCorruption());
  iter->Seek("k002");  // a healthy block clears the error
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("k002", iter->key().ToString());
  EXPECT_OK(iter->status());
  const int opens = blocks.opens();
  iter->Seek("k000");  // the failed block is opened again, not reused
  EXPECT_EQ(opens + 1, blocks.opens());
  EXPECT_FALSE(iter->Valid());
}

TEST(TwoLevelIteratorTest, IndexErrorIsReported) {
  std::unique_ptr<Iterator> iter(NewTwoLevelIterator(
      new VectorIterator(BytewiseComparator(), {}, Status::IOError("pread")),
      [](void*, const ReadOptions&, const Slice&) -> Iterator* {
        ADD_FAILURE() << "no block should be opened";
        return NewEmptyIterator();
      },
      nullptr, ReadOptions(), "000007.sst"));
  iter->SeekToFirst();
  EXPECT_FALSE(iter->Valid());
  EXPECT_TRUE(iter->status().IsIOError());
  EXPECT_EQ("000007.sst: pread", iter->status().message());
}

}  // namespace
}  // namespace cascadedb

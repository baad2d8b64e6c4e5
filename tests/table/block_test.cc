// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/block.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"
#include "table/block_builder.h"
#include "table/table_key_format.h"
#include "tests/testutil/test_util.h"
#include "util/coding.h"
#include "util/random.h"

namespace cascadedb {
namespace {

using KV = std::map<std::string, std::string>;

// Builds a block from kv (in order) and returns its bytes.
std::string BuildBlock(const KV& kv, int restart_interval) {
  BlockBuilder builder(restart_interval);
  for (const auto& [k, v] : kv) builder.Add(k, v);
  return builder.Finish().ToString();
}

// A Block owning an exactly-sized heap copy of bytes, so that any read past
// the end is caught by ASan.
std::unique_ptr<Block> MakeBlock(const std::string& bytes) {
  char* copy = new char[bytes.size()];
  if (!bytes.empty()) memcpy(copy, bytes.data(), bytes.size());
  BlockContents contents;
  contents.data = Slice(copy, bytes.size());
  contents.heap_allocated = true;
  contents.cachable = true;
  return std::make_unique<Block>(contents);
}

// Random sorted keys sharing prefixes (so prefix compression matters), with
// random values.
KV RandomKV(Random* rnd, uint32_t* state, int n) {
  KV kv;
  while (static_cast<int>(kv.size()) < n) {
    std::string key = "key" + std::to_string(rnd->Uniform(50)) + "/" +
                      test::RandomBytes(state, rnd->Uniform(12), true);
    kv[key] = test::RandomBytes(state, rnd->Uniform(40));
  }
  return kv;
}

// Parameters: the restart interval, and whether the block has search heads.
class BlockRestartTest
    : public ::testing::TestWithParam<std::tuple<int, bool>> {
 protected:
  void SetUp() override {
    seed_ = test::RandomSeed();
    rnd_ = std::make_unique<Random>(seed_);
    state_ = seed_;
    kv_ = RandomKV(rnd_.get(), &state_, 500);
    block_ = MakeBlock(BuildBlock(kv_, Interval()));
    if (std::get<1>(GetParam())) {
      ASSERT_TRUE(block_->BuildSearchHeads(nullptr));
    }
    iter_.reset(block_->NewIterator(BytewiseComparator()));
  }

  int Interval() const { return std::get<0>(GetParam()); }

  uint32_t seed_ = 0;
  uint32_t state_ = 0;
  std::unique_ptr<Random> rnd_;
  KV kv_;
  std::unique_ptr<Block> block_;
  std::unique_ptr<Iterator> iter_;
};

TEST_P(BlockRestartTest, ForwardIterationReturnsEveryEntryInOrder) {
  auto expected = kv_.begin();
  for (iter_->SeekToFirst(); iter_->Valid(); iter_->Next(), ++expected) {
    ASSERT_NE(expected, kv_.end());
    EXPECT_EQ(expected->first, iter_->key().ToString());
    EXPECT_EQ(expected->second, iter_->value().ToString());
  }
  EXPECT_EQ(expected, kv_.end());
  EXPECT_OK(iter_->status());
}

TEST_P(BlockRestartTest, BackwardIterationReturnsEveryEntryInReverse) {
  auto expected = kv_.rbegin();
  for (iter_->SeekToLast(); iter_->Valid(); iter_->Prev(), ++expected) {
    ASSERT_NE(expected, kv_.rend());
    EXPECT_EQ(expected->first, iter_->key().ToString());
    EXPECT_EQ(expected->second, iter_->value().ToString());
  }
  EXPECT_EQ(expected, kv_.rend());
  EXPECT_OK(iter_->status());
}

TEST_P(BlockRestartTest, HasOneRestartPerInterval) {
  const size_t interval = static_cast<size_t>(Interval());
  EXPECT_EQ((kv_.size() + interval - 1) / interval, block_->NumRestarts());
}

TEST_P(BlockRestartTest, SeekFindsFirstKeyAtOrAfterTarget) {
  for (const auto& [k, v] : kv_) {
    iter_->Seek(k);  // exact
    ASSERT_TRUE(iter_->Valid());
    EXPECT_EQ(k, iter_->key().ToString());
    EXPECT_EQ(v, iter_->value().ToString());

    // Just after k (k + "\0" is the successor of k): the next key, if any.
    const std::string between = k + std::string(1, '\0');
    auto next = kv_.upper_bound(k);
    iter_->Seek(between);
    if (next == kv_.end()) {
      EXPECT_FALSE(iter_->Valid());
    } else {
      ASSERT_TRUE(iter_->Valid());
      EXPECT_EQ(next->first, iter_->key().ToString());
    }
  }
  EXPECT_OK(iter_->status());
}

TEST_P(BlockRestartTest, SeekBeforeFirstAndAfterLast) {
  iter_->Seek("");
  ASSERT_TRUE(iter_->Valid());
  EXPECT_EQ(kv_.begin()->first, iter_->key().ToString());
  iter_->Seek("zzz");
  EXPECT_FALSE(iter_->Valid());
  EXPECT_OK(iter_->status());
}

TEST_P(BlockRestartTest, SeekForPrevFindsLastKeyAtOrBeforeTarget) {
  for (const auto& [k, v] : kv_) {
    iter_->SeekForPrev(k);  // exact
    ASSERT_TRUE(iter_->Valid());
    EXPECT_EQ(k, iter_->key().ToString());
    EXPECT_EQ(v, iter_->value().ToString());

    // Between k and its successor in the set: k.
    iter_->SeekForPrev(k + std::string(1, '\0'));
    ASSERT_TRUE(iter_->Valid());
    EXPECT_EQ(k, iter_->key().ToString());
  }
  EXPECT_OK(iter_->status());
}

TEST_P(BlockRestartTest, SeekForPrevBeforeFirstAndAfterLast) {
  iter_->SeekForPrev("");
  EXPECT_FALSE(iter_->Valid());
  iter_->SeekForPrev("zzz");
  ASSERT_TRUE(iter_->Valid());
  EXPECT_EQ(kv_.rbegin()->first, iter_->key().ToString());
  EXPECT_OK(iter_->status());
}

TEST_P(BlockRestartTest, RandomWalkMatchesModel) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : kv_) keys.push_back(k);
  int pos = -1;  // index into keys, -1 = invalid
  for (int step = 0; step < 5000; ++step) {
    switch (rnd_->Uniform(5)) {
      case 0:
        iter_->SeekToFirst();
        pos = 0;
        break;
      case 1:
        iter_->SeekToLast();
        pos = static_cast<int>(keys.size()) - 1;
        break;
      case 2: {
        const size_t i = rnd_->Uniform(static_cast<int>(keys.size()));
        iter_->Seek(keys[i]);
        pos = static_cast<int>(i);
        break;
      }
      case 3:
        if (pos >= 0) {
          iter_->Next();
          pos = pos + 1 < static_cast<int>(keys.size()) ? pos + 1 : -1;
        }
        break;
      default:
        if (pos >= 0) {
          iter_->Prev();
          pos = pos - 1;
        }
        break;
    }
    ASSERT_EQ(pos >= 0, iter_->Valid()) << "step " << step;
    if (pos >= 0) {
      ASSERT_EQ(keys[pos], iter_->key().ToString());
    }
  }
  EXPECT_OK(iter_->status());
}

INSTANTIATE_TEST_SUITE_P(RestartIntervals, BlockRestartTest,
                         ::testing::Combine(::testing::Values(1, 2, 16, 100),
                                            ::testing::Bool()));

// FinishInto hands over a copy of the finished bytes and starts a new
// block in the builder's own buffer.
TEST(BlockBuilderTest, FinishIntoHandsTheBlockOverAndStartsAnew) {
  BlockBuilder a(4), b(4);
  std::string out = "old contents";
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 20; ++i) {
      const std::string key = "key" + std::to_string(100 + i + 20 * round);
      a.Add(key, "v");
      b.Add(key, "v");
    }
    const std::string expected = b.Finish().ToString();
    a.FinishInto(&out);
    EXPECT_EQ(expected, out);
    EXPECT_TRUE(a.empty());
    b.Reset();
  }
  a.Add("x", "y");
  b.Add("x", "y");
  EXPECT_EQ(b.Finish().ToString(), a.Finish().ToString());
}

// The builder never takes over the buffer it hands a block into: another
// thread may have read that buffer (a writer compressing the last block in
// it), and writing entries into lines another CPU shares waits for each
// line's ownership. So the next block is built where the last one was, and
// out keeps its own memory.
TEST(BlockBuilderTest, FinishIntoKeepsBuildingInTheBuildersOwnBuffer) {
  BlockBuilder builder(16);
  std::string out;
  out.reserve(8192);
  const char* const out_memory = out.data();
  for (int i = 0; i < 50; ++i)
    builder.Add("key" + std::to_string(100 + i), "v");
  const Slice finished = builder.Finish();
  const char* const own = finished.data();
  const std::string expected = finished.ToString();
  builder.FinishInto(&out);
  EXPECT_EQ(expected, out);
  EXPECT_EQ(out_memory, out.data());
  for (int i = 0; i < 50; ++i)
    builder.Add("key" + std::to_string(200 + i), "v");
  EXPECT_EQ(own, builder.Finish().data());
}

// Entries are written into the room past the block's end: keys and values
// of every copy size class (and one far larger than any room yet), across
// blocks built in the room a finished block leaves (after Finish and
// Reset, or FinishInto), must read back whole, and the size estimate must
// stay exact.
TEST(BlockBuilderTest, EntriesOfEverySizeReadBackFromReusedBuffers) {
  BlockBuilder builder(3);
  std::string handed_over = "a buffer FinishInto writes over";
  for (int round = 0; round < 3; ++round) {
    KV kv;
    for (size_t n = 0; n <= 300; n += (n < 140 ? 1 : 37)) {
      std::string key = "k" + std::to_string(100000 + n + 1000 * round);
      key.append(n % 150, static_cast<char>('a' + n % 26));
      std::string value(n, static_cast<char>('A' + (n + round) % 26));
      kv[key] = value;
    }
    kv["zz-large"] = std::string(100000, 'L');
    for (const auto& [k, v] : kv) builder.Add(k, v);
    const size_t estimate = builder.CurrentSizeEstimate();
    std::string bytes;
    if (round == 1) {
      builder.FinishInto(&handed_over);
      bytes = handed_over;
    } else {
      bytes = builder.Finish().ToString();
      builder.Reset();
    }
    EXPECT_EQ(estimate, bytes.size()) << "round " << round;
    auto block = MakeBlock(bytes);
    std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
    auto want = kv.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++want) {
      ASSERT_NE(kv.end(), want) << "round " << round;
      EXPECT_EQ(want->first, it->key().ToString()) << "round " << round;
      EXPECT_EQ(want->second, it->value().ToString()) << "round " << round;
    }
    EXPECT_OK(it->status());
    EXPECT_EQ(kv.end(), want) << "round " << round;
  }
}

TEST(BlockTest, EmptyBlockHasNoEntries) {
  BlockBuilder builder(16);
  EXPECT_TRUE(builder.empty());
  auto block = MakeBlock(builder.Finish().ToString());
  std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  EXPECT_FALSE(it->Valid());
  it->Seek("a");
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev("a");
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());
}

TEST(BlockTest, PrevFromFirstAndNextFromLastInvalidate) {
  auto block = MakeBlock(BuildBlock({{"a", "1"}, {"b", "2"}}, 16));
  std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
  it->SeekToFirst();
  it->Prev();
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  it->Next();
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());
}

TEST(BlockBuilderTest, SharedPrefixesAreStoredOnce) {
  KV kv;
  for (int i = 0; i < 100; ++i) {
    kv["a-long-common-prefix-of-forty-bytes-----" + std::to_string(1000 + i)] =
        "";
  }
  size_t raw = 0;
  for (const auto& [k, v] : kv) raw += k.size();
  const std::string block = BuildBlock(kv, 16);
  EXPECT_LT(block.size(), raw / 2);
}

TEST(BlockBuilderTest, SizeEstimateMatchesFinishedSize) {
  BlockBuilder builder(4);
  for (int i = 0; i < 37; ++i) {
    builder.Add("key" + std::to_string(100 + i), "value");
  }
  const size_t estimate = builder.CurrentSizeEstimate();
  EXPECT_EQ(estimate, builder.Finish().size());
}

TEST(BlockBuilderTest, LastKeyIsTheLastAddedUntilReset) {
  BlockBuilder builder(2);
  EXPECT_EQ("", builder.last_key().ToString());
  // Shared prefixes and restart points both rebuild the key in full.
  for (const char* key : {"apple", "applesauce", "apricot", "b", "banana"}) {
    builder.Add(key, "v");
    EXPECT_EQ(key, builder.last_key().ToString());
  }
  builder.Finish();
  builder.Reset();
  EXPECT_EQ("", builder.last_key().ToString());
}

TEST(BlockBuilderTest, ResetStartsAnEmptyBlock) {
  BlockBuilder builder(16);
  builder.Add("b", "1");
  builder.Finish();
  builder.Reset();
  EXPECT_TRUE(builder.empty());
  builder.Add("a", "2");  // smaller than the key before Reset: a new block
  auto block = MakeBlock(builder.Finish().ToString());
  std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("a", it->key().ToString());
  it->Next();
  EXPECT_FALSE(it->Valid());
}

// ---------------------------------------------------------------- corruption

// Exercises every iterator operation; returns the number of entries seen.
// Must terminate and never read out of bounds, whatever the block holds.
size_t ExerciseIterator(const Block& block) {
  std::unique_ptr<Iterator> it(block.NewIterator(BytewiseComparator()));
  size_t seen = 0;
  // A block of n bytes holds at most n / 3 entries (3-byte headers).
  const size_t limit = block.size() / 3 + 1;
  for (it->SeekToFirst(); it->Valid() && seen <= limit; it->Next()) {
    ++seen;
    (void)it->key();
    (void)it->value();
  }
  EXPECT_LE(seen, limit);
  size_t back = 0;
  for (it->SeekToLast(); it->Valid() && back <= limit; it->Prev()) ++back;
  EXPECT_LE(back, limit);
  for (const char* target : {"", "key2", "key3/", "zzz"}) {
    it->Seek(target);
    if (it->Valid()) it->Prev();
    it->SeekForPrev(target);
    if (it->Valid()) it->Next();
  }
  return seen;
}

class BlockCorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const uint32_t seed = test::RandomSeed();
    Random rnd(seed);
    uint32_t state = seed;
    kv_ = RandomKV(&rnd, &state, 40);
    good_ = BuildBlock(kv_, 4);
  }
  KV kv_;
  std::string good_;
};

TEST_F(BlockCorruptionTest, EverySingleByteChangeIsDetectedOrHarmless) {
  for (size_t i = 0; i < good_.size(); ++i) {
    for (int delta : {0x01, 0x80, 0xff}) {
      std::string bad = good_;
      bad[i] = static_cast<char>(bad[i] ^ delta);
      auto block = MakeBlock(bad);
      ExerciseIterator(*block);
      block->BuildSearchHeads(nullptr);  // built or not: must stay safe
      ExerciseIterator(*block);
    }
  }
}

TEST_F(BlockCorruptionTest, EveryTruncationIsDetectedOrHarmless) {
  for (size_t n = 0; n < good_.size(); ++n) {
    auto block = MakeBlock(good_.substr(0, n));
    ExerciseIterator(*block);
    block->BuildSearchHeads(nullptr);
    ExerciseIterator(*block);
  }
}

TEST(BlockTest, TooShortBlockIsCorruption) {
  auto block = MakeBlock("abc");
  std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

TEST(BlockTest, RestartCountLargerThanBlockIsCorruption) {
  std::string bytes = BuildBlock({{"a", "1"}}, 16);
  EncodeFixed32(&bytes[bytes.size() - 4], 1000);
  auto block = MakeBlock(bytes);
  EXPECT_EQ(0u, block->NumRestarts());
  std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
  it->SeekToFirst();
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

TEST(BlockTest, RestartOffsetPastEntriesIsCorruption) {
  std::string bytes = BuildBlock({{"a", "1"}, {"b", "2"}}, 16);
  // Layout: entries | restart[0] | count; point restart[0] past the entries.
  EncodeFixed32(&bytes[bytes.size() - 8], 0x7fffffff);
  auto block = MakeBlock(bytes);
  std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
  it->Seek("a");
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

TEST(BlockTest, EntryLengthOverrunningBlockIsCorruption) {
  std::string bytes = BuildBlock({{"a", "1"}}, 16);
  bytes[2] = 100;  // value_len of the only entry: far past the block
  auto block = MakeBlock(bytes);
  std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

TEST(BlockTest, SharedPrefixLongerThanPreviousKeyIsCorruption) {
  std::string bytes = BuildBlock({{"abc", "1"}, {"abd", "2"}}, 16);
  // The second entry starts after the first: 3 header bytes + "abc" + "1".
  ASSERT_EQ(2, bytes[7]);  // shared = 2 ("ab")
  bytes[7] = 9;            // more than the 3 bytes of the previous key
  auto block = MakeBlock(bytes);
  std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  it->Next();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

TEST(BlockTest, RestartEntrySharingAPrefixIsCorruption) {
  // Restart interval 1: every entry is a restart and must hold its whole
  // key. Each entry is 3 header bytes + a 3-byte key + a 1-byte value.
  std::string bytes =
      BuildBlock({{"abc", "1"}, {"abd", "2"}, {"abe", "3"}, {"abf", "4"}}, 1);
  for (int corrupt = 1; corrupt < 4; corrupt++) {
    std::string b = bytes;
    const size_t header = static_cast<size_t>(corrupt) * 7;
    ASSERT_EQ(0, b[header]) << corrupt;  // shared = 0 at a restart
    b[header] = 2;                       // claims "ab" from the entry before
    b[header + 1] = 1;                   // and one byte of its own
    auto block = MakeBlock(b);
    std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
    int seen = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) seen++;
    EXPECT_EQ(corrupt, seen);
    EXPECT_TRUE(it->status().IsCorruption())
        << corrupt << ": " << it->status().ToString();
  }
}

// ------------------------------------------------------------ search heads

// Seeks a block with and without search heads to every target and expects
// the same answers.
void ExpectHeadsSeekLikePlain(const std::vector<std::string>& keys,
                              int restart_interval,
                              const std::vector<std::string>& targets) {
  KV kv;
  for (const auto& k : keys) kv[k] = "v" + k;
  const std::string bytes = BuildBlock(kv, restart_interval);
  auto plain = MakeBlock(bytes);
  auto fast = MakeBlock(bytes);
  ASSERT_TRUE(fast->BuildSearchHeads(nullptr));
  ASSERT_TRUE(fast->HasSearchHeads());
  EXPECT_FALSE(plain->HasSearchHeads());
  std::unique_ptr<Iterator> a(plain->NewIterator(BytewiseComparator()));
  std::unique_ptr<Iterator> b(fast->NewIterator(BytewiseComparator()));
  std::vector<std::string> all = targets;
  for (const auto& k : keys) {
    all.push_back(k);
    all.push_back(k + std::string(1, '\0'));
    if (!k.empty()) all.push_back(k.substr(0, k.size() - 1));
    all.push_back(k + "\xff");
  }
  for (const auto& t : all) {
    a->Seek(t);
    b->Seek(t);
    ASSERT_EQ(a->Valid(), b->Valid()) << "target " << t;
    if (a->Valid()) {
      EXPECT_EQ(a->key().ToString(), b->key().ToString()) << "target " << t;
    }
    a->SeekForPrev(t);
    b->SeekForPrev(t);
    ASSERT_EQ(a->Valid(), b->Valid()) << "target " << t;
    if (a->Valid()) {
      EXPECT_EQ(a->key().ToString(), b->key().ToString()) << "target " << t;
    }
  }
  EXPECT_OK(a->status());
  EXPECT_OK(b->status());
}

std::vector<std::string> DecimalKeys(int n, int step) {
  std::vector<std::string> keys;
  char buf[32];
  for (int i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof(buf), "%016d", i * step);
    keys.push_back(buf);
  }
  return keys;
}

const std::vector<std::string> kEdgeTargets = {"",
                                               std::string(1, '\0'),
                                               "0",
                                               "00000000",
                                               "0000000000000000",
                                               "1",
                                               "5",
                                               "a",
                                               "key",
                                               "zzz",
                                               "\xff\xff\xff"};

TEST(BlockSearchHeadsTest, DecimalKeysLikeAnIndexBlock) {
  ExpectHeadsSeekLikePlain(DecimalKeys(3000, 7), 1, kEdgeTargets);
}

TEST(BlockSearchHeadsTest, ALastKeyWithoutThePrefix) {
  // An index block's last separator is a short successor ("1"): the other
  // keys' long common prefix must still be used.
  auto keys = DecimalKeys(2000, 13);
  keys.push_back("1");
  ExpectHeadsSeekLikePlain(keys, 1, kEdgeTargets);
}

TEST(BlockSearchHeadsTest, AFirstKeyWithoutThePrefix) {
  auto keys = DecimalKeys(2000, 13);
  keys.insert(keys.begin(), "");
  ExpectHeadsSeekLikePlain(keys, 1, kEdgeTargets);
  keys[0] = "-";
  keys.push_back("9");
  ExpectHeadsSeekLikePlain(keys, 1, kEdgeTargets);
}

TEST(BlockSearchHeadsTest, KeysWhoseHeadsTie) {
  // The same 8 bytes after the prefix, told apart later; zero bytes at the
  // end ("ab" < "ab\0" < "ab\0\0"), which padding alone cannot order.
  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "p/%s%04d", i < 150 ? "AAAAAAAAAA" : "B",
                  i);
    keys.push_back(buf);
  }
  keys.push_back("p/AB");
  keys.push_back(std::string("p/AB\0", 5));
  keys.push_back(std::string("p/AB\0\0", 6));
  keys.push_back(std::string("p/AB\0\0\0\0\0\0\0\0x", 13));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  for (int interval : {1, 3}) {
    ExpectHeadsSeekLikePlain(keys, interval, kEdgeTargets);
  }
}

TEST(BlockSearchHeadsTest, TinyBlocks) {
  const std::vector<std::vector<std::string>> sets = {
      {"k"}, {"a", "b"}, {"abc", "abd", "x"}, {"", "a", "aa"}};
  for (const auto& keys : sets) {
    ExpectHeadsSeekLikePlain(keys, 1, kEdgeTargets);
  }
}

TEST(BlockSearchHeadsTest, RandomKeySets) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  uint32_t state = seed;
  for (int round = 0; round < 20; ++round) {
    const KV kv =
        RandomKV(&rnd, &state, 1 + static_cast<int>(rnd.Uniform(400)));
    std::vector<std::string> keys;
    for (const auto& [k, v] : kv) keys.push_back(k);
    std::vector<std::string> targets = kEdgeTargets;
    for (int i = 0; i < 50; ++i) {
      targets.push_back("key" + std::to_string(rnd.Uniform(60)) + "/" +
                        test::RandomBytes(&state, rnd.Uniform(12), true));
    }
    ExpectHeadsSeekLikePlain(keys, 1 + static_cast<int>(rnd.Uniform(4)),
                             targets);
  }
}

// Keys stored as user key + an 8-byte suffix ordered newest first, as the
// db layer's internal keys: heads look at the user key only.
class SuffixKeyFormat : public TableKeyFormat {
 public:
  Slice UserKey(const Slice& key) const override {
    return key.size() >= 8 ? Slice(key.data(), key.size() - 8) : key;
  }
  uint64_t Sequence(const Slice& key) const override {
    return key.size() >= 8 ? DecodeFixed64(key.data() + key.size() - 8) : 0;
  }
  bool IsDeletion(const Slice&) const override { return false; }
};

// User key bytewise, then the suffix's number descending.
class SuffixComparator : public Comparator {
 public:
  const char* Name() const override { return "test.SuffixComparator"; }
  int Compare(const Slice& a, const Slice& b) const override {
    const int r =
        BytewiseComparator()->Compare(format_.UserKey(a), format_.UserKey(b));
    if (r != 0) return r;
    const uint64_t sa = format_.Sequence(a);
    const uint64_t sb = format_.Sequence(b);
    return sa > sb ? -1 : (sa < sb ? 1 : 0);
  }
  void FindShortestSeparator(std::string*, const Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}

 private:
  SuffixKeyFormat format_;
};

std::string Suffixed(const std::string& user_key, uint64_t seq) {
  std::string k = user_key;
  PutFixed64(&k, seq);
  return k;
}

TEST(BlockSearchHeadsTest, KeysWithSuffixesUseTheirUserKeys) {
  const SuffixKeyFormat format;
  const SuffixComparator cmp;
  std::vector<std::string> keys;  // in cmp's order
  for (const auto& u : DecimalKeys(500, 3)) {
    for (uint64_t seq : {900u, 500u, 7u}) keys.push_back(Suffixed(u, seq));
  }
  keys.push_back(Suffixed("1", 0));  // a short successor at the end
  BlockBuilder builder(1);
  for (const auto& k : keys) builder.Add(k, "v");
  const std::string bytes = builder.Finish().ToString();
  auto plain = MakeBlock(bytes);
  auto fast = MakeBlock(bytes);
  ASSERT_TRUE(fast->BuildSearchHeads(&format));
  std::unique_ptr<Iterator> a(plain->NewIterator(&cmp));
  std::unique_ptr<Iterator> b(fast->NewIterator(&cmp));
  std::vector<std::string> targets;
  for (const auto& u : DecimalKeys(600, 1)) {
    for (uint64_t seq : {1000u, 900u, 600u, 500u, 8u, 7u, 0u}) {
      targets.push_back(Suffixed(u, seq));
    }
  }
  targets.push_back(Suffixed("", 5));
  targets.push_back(Suffixed("1", 5));
  targets.push_back(Suffixed("2", 5));
  for (const auto& t : targets) {
    a->Seek(t);
    b->Seek(t);
    ASSERT_EQ(a->Valid(), b->Valid());
    if (a->Valid()) {
      ASSERT_EQ(a->key().ToString(), b->key().ToString());
    }
  }
}

TEST(BlockSearchHeadsTest, OutOfOrderKeysBuildNoHeads) {
  // Restart interval 1, keys written by hand in descending order: every
  // entry is "0 | len | 1 | key | v".
  std::string bytes;
  std::vector<uint32_t> restarts;
  for (const char* k : {"d", "c", "b", "a"}) {
    restarts.push_back(static_cast<uint32_t>(bytes.size()));
    bytes.push_back(0);
    bytes.push_back(1);
    bytes.push_back(1);
    bytes.append(k);
    bytes.push_back('v');
  }
  for (uint32_t r : restarts) PutFixed32(&bytes, r);
  PutFixed32(&bytes, static_cast<uint32_t>(restarts.size()));
  auto block = MakeBlock(bytes);
  EXPECT_FALSE(block->BuildSearchHeads(nullptr));
  EXPECT_FALSE(block->HasSearchHeads());
  ExerciseIterator(*block);
}

TEST(BlockSearchHeadsTest, HeadsAreCountedInMemoryUsage) {
  auto block = MakeBlock(BuildBlock(
      [] {
        KV kv;
        for (const auto& k : DecimalKeys(1000, 1)) kv[k] = "v";
        return kv;
      }(),
      1));
  EXPECT_EQ(block->size(), block->MemoryUsage());
  ASSERT_TRUE(block->BuildSearchHeads(nullptr));
  EXPECT_GE(block->MemoryUsage(), block->size() + 1000 * sizeof(uint64_t));
}

}  // namespace
}  // namespace cascadedb

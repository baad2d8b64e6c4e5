// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/filter_block.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cascadedb/filter_policy.h"
#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace {

// An exact "filter": the keys themselves, length-prefixed by one byte. It
// makes the block's behaviour checkable without false positives, and counts
// the keys it is given.
class ExactPolicy : public FilterPolicy {
 public:
  const char* Name() const override { return "test.exact"; }
  void CreateFilter(const Slice* keys, int n, std::string* dst) const override {
    last_n_ = n;
    for (int i = 0; i < n; ++i) {
      dst->push_back(static_cast<char>(keys[i].size()));
      dst->append(keys[i].data(), keys[i].size());
    }
  }
  bool KeyMayMatch(const Slice& key, const Slice& filter) const override {
    Slice f = filter;
    while (!f.empty()) {
      const size_t len = static_cast<unsigned char>(f[0]);
      if (len + 1 > f.size()) return true;  // malformed: may match
      if (Slice(f.data() + 1, len) == key) return true;
      f.remove_prefix(len + 1);
    }
    return false;
  }
  mutable int last_n_ = -1;
};

TEST(FilterBlockTest, AddedKeysMatchAndOthersDoNot) {
  ExactPolicy policy;
  FilterBlockBuilder builder(&policy);
  builder.AddKey("apple");
  builder.AddKey("banana");
  builder.AddKey("cherry");
  const std::string block = builder.Finish().ToString();
  FilterBlockReader reader(&policy, block);
  EXPECT_TRUE(reader.KeyMayMatch("apple"));
  EXPECT_TRUE(reader.KeyMayMatch("banana"));
  EXPECT_TRUE(reader.KeyMayMatch("cherry"));
  EXPECT_FALSE(reader.KeyMayMatch("durian"));
  EXPECT_FALSE(reader.KeyMayMatch(""));
}

TEST(FilterBlockTest, ConsecutiveDuplicatesAreAddedOnce) {
  ExactPolicy policy;
  FilterBlockBuilder builder(&policy);
  for (const char* k : {"a", "a", "a", "b", "b", "c", "a"}) builder.AddKey(k);
  EXPECT_EQ(4u, builder.num_keys());  // a b c a
  builder.Finish();
  EXPECT_EQ(4, policy.last_n_);
}

TEST(FilterBlockTest, EmptyKeyIsAKey) {
  ExactPolicy policy;
  FilterBlockBuilder builder(&policy);
  builder.AddKey("");
  builder.AddKey("x");
  const std::string block = builder.Finish().ToString();
  FilterBlockReader reader(&policy, block);
  EXPECT_TRUE(reader.KeyMayMatch(""));
  EXPECT_TRUE(reader.KeyMayMatch("x"));
  EXPECT_FALSE(reader.KeyMayMatch("y"));
}

TEST(FilterBlockTest, NullPolicyOrEmptyContentsMayMatchEverything) {
  ExactPolicy policy;
  EXPECT_TRUE(FilterBlockReader(nullptr, "whatever").KeyMayMatch("k"));
  EXPECT_TRUE(FilterBlockReader(&policy, Slice()).KeyMayMatch("k"));
}

// With the built-in bloom the builder keeps hashes, not keys; the block
// must still be the policy's filter over the distinct keys.
TEST(FilterBlockTest, BloomBlockIsThePolicysFilterOverDistinctKeys) {
  std::unique_ptr<const FilterPolicy> bloom = NewBloomFilterPolicy(10);
  FilterBlockBuilder builder(bloom.get());
  std::vector<Slice> distinct;
  std::vector<std::string> keys;
  for (int i = 0; i < 2000; i++) keys.push_back("k" + std::to_string(i));
  for (const std::string& k : keys) {
    builder.AddKey(k);
    if (k.size() % 2 == 0) builder.AddKey(k);  // an older version of k
    distinct.emplace_back(k);
  }
  EXPECT_EQ(keys.size(), builder.num_keys());
  std::string expected;
  bloom->CreateFilter(distinct.data(), static_cast<int>(distinct.size()),
                      &expected);
  EXPECT_EQ(expected, builder.Finish().ToString());
}

TEST(FilterBlockTest, BloomFilterHasNoFalseNegatives) {
  std::unique_ptr<const FilterPolicy> bloom = NewBloomFilterPolicy(10);
  FilterBlockBuilder builder(bloom.get());
  for (int i = 0; i < 10000; ++i) builder.AddKey("key" + std::to_string(i));
  const std::string block = builder.Finish().ToString();
  FilterBlockReader reader(bloom.get(), block);
  for (int i = 0; i < 10000; ++i) {
    ASSERT_TRUE(reader.KeyMayMatch("key" + std::to_string(i))) << i;
  }
  int false_positives = 0;
  for (int i = 0; i < 10000; ++i) {
    if (reader.KeyMayMatch("other" + std::to_string(i))) ++false_positives;
  }
  // ~1% expected at 10 bits/key; 5% leaves room for any sane bloom.
  EXPECT_LT(false_positives, 500);
}

}  // namespace
}  // namespace cascadedb

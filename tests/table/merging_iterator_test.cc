// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/merging_iterator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
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

Iterator* Child(std::vector<Entry> entries) {
  return new VectorIterator(BytewiseComparator(), std::move(entries));
}

std::vector<Entry> ScanForward(Iterator* iter) {
  std::vector<Entry> out;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    out.emplace_back(iter->key().ToString(), iter->value().ToString());
  }
  return out;
}

std::vector<Entry> ScanBackward(Iterator* iter) {
  std::vector<Entry> out;
  for (iter->SeekToLast(); iter->Valid(); iter->Prev()) {
    out.emplace_back(iter->key().ToString(), iter->value().ToString());
  }
  return out;
}

TEST(MergingIteratorTest, NoChildrenIsEmpty) {
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), nullptr, 0));
  iter->SeekToFirst();
  EXPECT_FALSE(iter->Valid());
  EXPECT_OK(iter->status());
}

TEST(MergingIteratorTest, OneChildIsReturnedItself) {
  Iterator* child = Child({{"a", "1"}});
  Iterator* children[] = {child};
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 1));
  EXPECT_EQ(child, iter.get());
}

TEST(MergingIteratorTest, InterleavesChildrenInOrder) {
  Iterator* children[] = {Child({{"a", "1"}, {"d", "4"}}), Child({}),
                          Child({{"b", "2"}, {"e", "5"}, {"f", "6"}}),
                          Child({{"c", "3"}})};
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 4));
  std::vector<Entry> expected = {{"a", "1"}, {"b", "2"}, {"c", "3"},
                                 {"d", "4"}, {"e", "5"}, {"f", "6"}};
  EXPECT_EQ(expected, ScanForward(iter.get()));
  std::reverse(expected.begin(), expected.end());
  EXPECT_EQ(expected, ScanBackward(iter.get()));
  EXPECT_OK(iter->status());
}

TEST(MergingIteratorTest, SeekAndSeekForPrevPickTheClosestChild) {
  Iterator* children[] = {Child({{"a", "1"}, {"e", "5"}}),
                          Child({{"c", "3"}, {"g", "7"}})};
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 2));
  iter->Seek("d");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("e", iter->key().ToString());
  iter->SeekForPrev("d");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("c", iter->key().ToString());
  iter->SeekForPrev("0");
  EXPECT_FALSE(iter->Valid());
  iter->Seek("h");
  EXPECT_FALSE(iter->Valid());
  iter->SeekForPrev("h");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("g", iter->key().ToString());
}

TEST(MergingIteratorTest, DirectionChangesRepositionOtherChildren) {
  Iterator* children[] = {Child({{"a", ""}, {"c", ""}, {"e", ""}}),
                          Child({{"b", ""}, {"d", ""}, {"f", ""}})};
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 2));
  iter->Seek("c");
  ASSERT_EQ("c", iter->key().ToString());
  iter->Prev();  // child 1 was at "d"; must come back to "b"
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("b", iter->key().ToString());
  iter->Next();  // child 0 was at "a"; must be moved past "b"
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("c", iter->key().ToString());
  iter->Next();
  EXPECT_EQ("d", iter->key().ToString());
  iter->Prev();
  EXPECT_EQ("c", iter->key().ToString());
  iter->Prev();
  EXPECT_EQ("b", iter->key().ToString());
  iter->Prev();
  EXPECT_EQ("a", iter->key().ToString());
  iter->Prev();
  EXPECT_FALSE(iter->Valid());
}

TEST(MergingIteratorTest, EqualKeysAreOrderedByChildIndexBothWays) {
  Iterator* children[] = {Child({{"k", "0"}, {"m", "0"}}), Child({{"k", "1"}}),
                          Child({{"j", "2"}, {"k", "2"}})};
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 3));
  std::vector<Entry> expected = {
      {"j", "2"}, {"k", "0"}, {"k", "1"}, {"k", "2"}, {"m", "0"}};
  EXPECT_EQ(expected, ScanForward(iter.get()));
  std::reverse(expected.begin(), expected.end());
  EXPECT_EQ(expected, ScanBackward(iter.get()));

  // Turning around in the middle of a run of equal keys neither skips nor
  // repeats an entry.
  iter->Seek("k");
  ASSERT_EQ("0", iter->value().ToString());
  iter->Next();
  ASSERT_EQ("1", iter->value().ToString());
  iter->Prev();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("0", iter->value().ToString());
  iter->Next();
  iter->Next();
  ASSERT_EQ("2", iter->value().ToString());
  iter->Prev();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("1", iter->value().ToString());
  iter->Next();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("2", iter->value().ToString());
}

TEST(MergingIteratorTest, MatchesMapModelUnderRandomDirectionChanges) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  for (int round = 0; round < 20; ++round) {
    const int n = 1 + static_cast<int>(rnd.Uniform(8));
    std::map<std::string, std::string> model;
    std::vector<std::map<std::string, std::string>> parts(n);
    for (int i = 0; i < 300; ++i) {
      std::string key = "key" + std::to_string(rnd.Uniform(1000));
      if (model.count(key) != 0) continue;  // distinct across children
      std::string value = "v" + std::to_string(rnd.Next());
      model[key] = value;
      // Skew: some children get most of the keys, some stay empty.
      parts[rnd.Skewed(3) % n][key] = value;
    }
    std::vector<Iterator*> children;
    for (const auto& part : parts) {
      children.push_back(Child(std::vector<Entry>(part.begin(), part.end())));
    }
    std::unique_ptr<Iterator> iter(
        NewMergingIterator(BytewiseComparator(), children.data(), n));
    const std::vector<Entry> entries(model.begin(), model.end());
    test::CheckAgainstModel(
        iter.get(), BytewiseComparator(), entries, &rnd, 2000, [](Random* r) {
          std::string t = "key" + std::to_string(r->Uniform(1100));
          if (r->OneIn(4)) t += "!";
          return t;
        });
    if (HasFatalFailure()) {
      ADD_FAILURE() << "round " << round << " with " << n << " children";
      return;
    }
  }
}

TEST(MergingIteratorTest, ChildErrorMakesIteratorInvalid) {
  Iterator* children[] = {
      Child({{"a", "1"}, {"c", "3"}}),
      new VectorIterator(BytewiseComparator(), {{"b", "2"}},
                         Status::Corruption("bad block")),
  };
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 2));
  iter->SeekToFirst();
  EXPECT_FALSE(iter->Valid());
  EXPECT_TRUE(iter->status().IsCorruption());
  iter->SeekForPrev("c");
  EXPECT_FALSE(iter->Valid());
  EXPECT_TRUE(iter->status().IsCorruption());
}

// A child that fails the first time it is moved by Next or Prev.
class FailOnMoveIterator : public VectorIterator {
 public:
  using VectorIterator::VectorIterator;
  bool Valid() const override { return !failed_ && VectorIterator::Valid(); }
  void Next() override { failed_ = true; }
  void Prev() override { failed_ = true; }
  void Seek(const Slice& target) override {
    failed_ = false;
    VectorIterator::Seek(target);
  }
  void SeekToFirst() override {
    failed_ = false;
    VectorIterator::SeekToFirst();
  }
  Status status() const override {
    return failed_ ? Status::IOError("read failed") : Status::OK();
  }

 private:
  bool failed_ = false;
};

TEST(MergingIteratorTest, ChildErrorDuringNextStopsTheScan) {
  Iterator* children[] = {
      Child({{"a", ""}, {"c", ""}, {"e", ""}}),
      new FailOnMoveIterator(BytewiseComparator(),
                             std::vector<Entry>{{"b", ""}, {"d", ""}}),
  };
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 2));
  std::vector<std::string> keys;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    keys.push_back(iter->key().ToString());
  }
  // "c" and "e" must not be returned as if "d" did not exist.
  EXPECT_EQ((std::vector<std::string>{"a", "b"}), keys);
  EXPECT_TRUE(iter->status().IsIOError());
  iter->Seek("a");  // a new seek starts over
  EXPECT_TRUE(iter->Valid());
  EXPECT_OK(iter->status());
}

}  // namespace
}  // namespace cascadedb

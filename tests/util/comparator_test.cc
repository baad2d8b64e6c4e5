// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "cascadedb/comparator.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/testutil/test_util.h"
#include "util/random.h"

namespace cascadedb {

namespace {

const Comparator* cmp() { return BytewiseComparator(); }

std::string Separator(std::string start, const std::string& limit) {
  cmp()->FindShortestSeparator(&start, limit);
  return start;
}

std::string Successor(std::string key) {
  cmp()->FindShortSuccessor(&key);
  return key;
}

// A random key over a tiny alphabet rich in edge bytes, so random pairs
// often share prefixes and hit 0x00/0xfe/0xff.
std::string EdgeKey(Random* rnd) {
  static const char kAlphabet[] = {'\x00', '\x01', 'a',    'b',    'c',
                                   '\x7f', '\x80', '\xfe', '\xff', '\xff'};
  std::string key;
  const int length = rnd->Uniform(6);
  for (int i = 0; i < length; i++) {
    key.push_back(kAlphabet[rnd->Uniform(sizeof(kAlphabet))]);
  }
  return key;
}

}  // namespace

TEST(BytewiseComparatorTest, NameIsStable) {
  EXPECT_STREQ("cascadedb.BytewiseComparator", cmp()->Name());
}

TEST(BytewiseComparatorTest, IsASingleton) {
  EXPECT_EQ(BytewiseComparator(), BytewiseComparator());
}

TEST(BytewiseComparatorTest, OrdersBytesUnsignedWithShorterFirst) {
  EXPECT_EQ(0, cmp()->Compare("", ""));
  EXPECT_EQ(0, cmp()->Compare("abc", "abc"));
  EXPECT_LT(cmp()->Compare("", "a"), 0);
  EXPECT_LT(cmp()->Compare("a", "ab"), 0);
  EXPECT_GT(cmp()->Compare("ab", "a"), 0);
  EXPECT_LT(cmp()->Compare("abc", "abd"), 0);
  EXPECT_GT(cmp()->Compare("b", "abc"), 0);
  // Bytes compare as unsigned: 0x80 and 0xff sort after ASCII.
  EXPECT_LT(cmp()->Compare("z", "\x80"), 0);
  EXPECT_LT(cmp()->Compare("\x7f", "\xff"), 0);
  EXPECT_LT(cmp()->Compare(Slice("\x00", 1), Slice("\x01", 1)), 0);
  EXPECT_LT(cmp()->Compare(Slice("a", 1), Slice("a\x00", 2)), 0);
}

TEST(BytewiseComparatorTest, SeparatorIncrementsFirstDifferingByte) {
  EXPECT_EQ("abd", Separator("abcdef", "abzz"));
  EXPECT_EQ("b", Separator("a", "c"));
  EXPECT_EQ("\x02", Separator("\x01\xff\xff", "\x03"));
}

TEST(BytewiseComparatorTest, SeparatorKeepsStartWhenBytesAreAdjacent) {
  // 'c' + 1 == 'd': the only candidate, "abd", is not below the limit.
  EXPECT_EQ("abcxyz", Separator("abcxyz", "abd"));
  EXPECT_EQ("a\xff\x01", Separator("a\xff\x01", "b"));
  EXPECT_EQ("\xfe\x01", Separator("\xfe\x01", "\xff"));
}

TEST(BytewiseComparatorTest, SeparatorKeepsStartWhenOneIsPrefixOfOther) {
  EXPECT_EQ("abc", Separator("abc", "abcd"));
  EXPECT_EQ("abcd", Separator("abcd", "abc"));
  EXPECT_EQ("abc", Separator("abc", "abc"));
}

TEST(BytewiseComparatorTest, SeparatorHandlesEmptyStrings) {
  EXPECT_EQ("", Separator("", "abc"));
  EXPECT_EQ("abc", Separator("abc", ""));
  EXPECT_EQ("", Separator("", ""));
}

TEST(BytewiseComparatorTest, SeparatorKeepsStartAtOrAboveLimit) {
  EXPECT_EQ("b", Separator("b", "a"));
  EXPECT_EQ("zzz", Separator("zzz", "aaa"));
}

TEST(BytewiseComparatorTest, RandomSeparatorsLieInStartToLimit) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  int shortened = 0;
  for (int i = 0; i < 100000; i++) {
    const std::string start = EdgeKey(&rnd);
    const std::string limit = EdgeKey(&rnd);
    const std::string sep = Separator(start, limit);
    if (cmp()->Compare(start, limit) < 0) {
      ASSERT_GE(cmp()->Compare(sep, start), 0)
          << Slice(start).ToPrintable() << " " << Slice(limit).ToPrintable();
      ASSERT_LT(cmp()->Compare(sep, limit), 0)
          << Slice(start).ToPrintable() << " " << Slice(limit).ToPrintable();
      ASSERT_LE(sep.size(), start.size());
      if (sep != start) shortened++;
    } else {
      ASSERT_EQ(start, sep) << Slice(start).ToPrintable();
    }
  }
  EXPECT_GT(shortened, 0);  // the property holds non-trivially
}

TEST(BytewiseComparatorTest, SuccessorIncrementsFirstNonMaxByte) {
  EXPECT_EQ("b", Successor("abc"));
  EXPECT_EQ(
      "\xff\xff"
      "b",
      Successor("\xff\xff"
                "abc"));
  EXPECT_EQ(std::string("\x01", 1), Successor(std::string("\x00\x00", 2)));
  EXPECT_EQ("\xff", Successor("\xfe\xff"));
}

TEST(BytewiseComparatorTest, SuccessorKeepsAllMaxBytesAndEmpty) {
  EXPECT_EQ("\xff\xff\xff", Successor("\xff\xff\xff"));
  EXPECT_EQ("", Successor(""));
}

TEST(BytewiseComparatorTest, RandomSuccessorsAreNotSmallerOrLonger) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  for (int i = 0; i < 100000; i++) {
    const std::string key = EdgeKey(&rnd);
    const std::string succ = Successor(key);
    ASSERT_GE(cmp()->Compare(succ, key), 0) << Slice(key).ToPrintable();
    ASSERT_LE(succ.size(), key.size());
  }
}

}  // namespace cascadedb

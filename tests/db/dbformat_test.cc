// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/dbformat.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cascadedb/comparator.h"
#include "tests/testutil/test_util.h"
#include "util/coding.h"

namespace cascadedb {
namespace {

std::string IKey(const std::string& user_key, SequenceNumber seq,
                 ValueType type) {
  std::string encoded;
  AppendInternalKey(&encoded, ParsedInternalKey(user_key, seq, type));
  return encoded;
}

std::string Shorten(const std::string& start, const std::string& limit) {
  InternalKeyComparator cmp(BytewiseComparator());
  std::string result = start;
  cmp.FindShortestSeparator(&result, limit);
  return result;
}

std::string ShortSuccessor(const std::string& key) {
  InternalKeyComparator cmp(BytewiseComparator());
  std::string result = key;
  cmp.FindShortSuccessor(&result);
  return result;
}

TEST(InternalKeyTest, EncodingIsUserKeyThenLittleEndianTrailer) {
  const std::string k = IKey("ab", 0x0102, kTypeValue);
  ASSERT_EQ(10u, k.size());
  EXPECT_EQ("ab", k.substr(0, 2));
  EXPECT_EQ((uint64_t{0x0102} << 8) | kTypeValue, DecodeFixed64(k.data() + 2));
}

TEST(InternalKeyTest, ParseRoundTripsEveryKeySequenceAndType) {
  const std::vector<std::string> keys = {
      "", "k", "hello", std::string(300, 'x'), std::string("\0\xff", 2)};
  const std::vector<SequenceNumber> seqs = {0,
                                            1,
                                            255,
                                            256,
                                            (uint64_t{1} << 32) + 7,
                                            kMaxSequenceNumber - 1,
                                            kMaxSequenceNumber};
  for (const std::string& key : keys) {
    for (SequenceNumber seq : seqs) {
      for (ValueType type : {kTypeValue, kTypeDeletion}) {
        const std::string encoded = IKey(key, seq, type);
        ParsedInternalKey parsed;
        ASSERT_OK(ParseInternalKey(encoded, &parsed));
        EXPECT_EQ(key, parsed.user_key.ToString());
        EXPECT_EQ(seq, parsed.sequence);
        EXPECT_EQ(type, parsed.type);
        EXPECT_EQ(key, ExtractUserKey(encoded).ToString());
      }
    }
  }
}

TEST(InternalKeyTest, ParseRejectsKeyShorterThanTrailer) {
  ParsedInternalKey parsed;
  const Status s = ParseInternalKey(Slice("abcde"), &parsed);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("5 bytes")) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("6162636465")) << s.ToString();
}

TEST(InternalKeyTest, ParseRejectsUnknownTypeAsCorruption) {
  std::string k = "key";
  PutFixed64(&k, (uint64_t{9} << 8) | 0x7f);
  ParsedInternalKey parsed;
  const Status s = ParseInternalKey(k, &parsed);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("unknown value type 127"))
      << s.ToString();
}

TEST(InternalKeyTest, ParseRejectsReservedTypeAsNotSupported) {
  ParsedInternalKey parsed;
  EXPECT_TRUE(
      ParseInternalKey(IKey("k", 1, kTypeMerge), &parsed).IsNotSupported());
  EXPECT_TRUE(ParseInternalKey(IKey("k", 1, kTypeRangeDeletion), &parsed)
                  .IsNotSupported());
}

TEST(InternalKeyTest, ErrorMessageTruncatesLongKeys) {
  const std::string long_key(100, 'a');
  const std::string shown = KeyForMessage(long_key);
  EXPECT_EQ(67u, shown.size());
  EXPECT_EQ("...", shown.substr(shown.size() - 3));
  EXPECT_EQ("61", KeyForMessage("a"));
}

TEST(InternalKeyTest, DecodeFromRejectsShortInput) {
  InternalKey key;
  EXPECT_FALSE(key.DecodeFrom(Slice("short")));
  EXPECT_TRUE(key.empty());
  EXPECT_TRUE(key.DecodeFrom(IKey("user", 5, kTypeValue)));
  EXPECT_EQ("user", key.user_key().ToString());
  EXPECT_EQ("'user' @ 5 : val", key.DebugString());
}

TEST(InternalKeyComparatorTest, OrdersByUserKeyThenSequenceDescending) {
  InternalKeyComparator cmp(BytewiseComparator());
  // Each key sorts strictly before the next.
  const std::vector<std::string> ordered = {
      IKey("a", 100, kTypeValue),
      IKey("a", 99, kTypeValue),
      IKey("a", 1, kTypeDeletion),
      IKey("a", 0, kTypeValue),
      IKey("b", kMaxSequenceNumber, kTypeValue),
      IKey("b", 0, kTypeValue),
      IKey("bb", 5, kTypeValue)};
  for (size_t i = 0; i < ordered.size(); i++) {
    EXPECT_EQ(0, cmp.Compare(ordered[i], ordered[i]));
    for (size_t j = i + 1; j < ordered.size(); j++) {
      EXPECT_LT(cmp.Compare(ordered[i], ordered[j]), 0) << i << " " << j;
      EXPECT_GT(cmp.Compare(ordered[j], ordered[i]), 0) << i << " " << j;
    }
  }
}

TEST(InternalKeyComparatorTest, HigherTypeFirstAtEqualSequence) {
  InternalKeyComparator cmp(BytewiseComparator());
  EXPECT_LT(cmp.Compare(IKey("k", 7, kTypeValue), IKey("k", 7, kTypeDeletion)),
            0);
  // The seek type sorts before every real entry of its (key, sequence).
  EXPECT_LT(
      cmp.Compare(IKey("k", 7, kValueTypeForSeek), IKey("k", 7, kTypeValue)),
      0);
}

TEST(InternalKeyComparatorTest, NameIsStable) {
  InternalKeyComparator cmp(BytewiseComparator());
  EXPECT_STREQ("cascadedb.InternalKeyComparator", cmp.Name());
  EXPECT_EQ(BytewiseComparator(), cmp.user_comparator());
}

TEST(InternalKeyComparatorTest, KeysShorterThanTrailerCompareWithoutCrash) {
  InternalKeyComparator cmp(BytewiseComparator());
  EXPECT_LT(cmp.Compare(Slice("a"), Slice("b")), 0);
  EXPECT_EQ(0, cmp.Compare(Slice(""), Slice("")));
  // A bad key sorts after every real version of the same user key.
  EXPECT_LT(cmp.Compare(IKey("abc", 0, kTypeValue), Slice("abc")), 0);
}

// The bytewise user comparator is compared in place; any other one goes
// through its virtual Compare. Both paths must order every pair alike,
// including bytes >= 0x80, prefixes, and keys shorter than the trailer.
TEST(InternalKeyComparatorTest, InPlaceBytewiseMatchesTheVirtualPath) {
  class WrappedBytewise : public Comparator {
   public:
    const char* Name() const override { return "test.WrappedBytewise"; }
    int Compare(const Slice& a, const Slice& b) const override {
      return BytewiseComparator()->Compare(a, b);
    }
    void FindShortestSeparator(std::string*, const Slice&) const override {}
    void FindShortSuccessor(std::string*) const override {}
  } wrapped;
  const InternalKeyComparator fast(BytewiseComparator());
  const InternalKeyComparator slow(&wrapped);
  uint32_t state = test::RandomSeed();
  std::vector<std::string> keys;
  const char alphabet[] = {'\x00', '\x01', 'a', '\x7f', '\x80', '\xff'};
  for (int i = 0; i < 400; i++) {
    std::string k;
    const uint32_t len =
        static_cast<unsigned char>(test::RandomBytes(&state, 1)[0]) % 12;
    for (uint32_t j = 0; j < len; j++) {
      k.push_back(
          alphabet[static_cast<unsigned char>(test::RandomBytes(&state, 1)[0]) %
                   sizeof(alphabet)]);
    }
    keys.push_back(k);
  }
  auto sign = [](int r) { return (r > 0) - (r < 0); };
  auto hex = [](const std::string& k) {
    std::string out;
    for (unsigned char c : k)
      out += "0123456789abcdef"[c >> 4], out += "0123456789abcdef"[c & 15];
    return out;
  };
  for (const std::string& a : keys) {
    for (const std::string& b : keys) {
      ASSERT_EQ(sign(slow.Compare(a, b)), sign(fast.Compare(a, b)))
          << "a=" << hex(a) << " b=" << hex(b);
    }
  }
}

TEST(InternalKeyComparatorTest, SeparatorShortensUserKey) {
  const std::string result =
      Shorten(IKey("foo", 100, kTypeValue), IKey("hello", 200, kTypeValue));
  EXPECT_EQ(IKey("g", kMaxSequenceNumber, kValueTypeForSeek), result);
  InternalKeyComparator cmp(BytewiseComparator());
  EXPECT_LT(cmp.Compare(IKey("foo", 100, kTypeValue), result), 0);
  EXPECT_LT(cmp.Compare(result, IKey("hello", 200, kTypeValue)), 0);
}

TEST(InternalKeyComparatorTest, SeparatorKeepsStartWhenUserKeysEqual) {
  EXPECT_EQ(IKey("foo", 100, kTypeValue),
            Shorten(IKey("foo", 100, kTypeValue), IKey("foo", 99, kTypeValue)));
  EXPECT_EQ(
      IKey("foo", 100, kTypeValue),
      Shorten(IKey("foo", 100, kTypeValue), IKey("foo", 101, kTypeValue)));
}

TEST(InternalKeyComparatorTest, SeparatorKeepsStartWhenPrefixOrAdjacent) {
  // The user key is a prefix of the limit's: nothing shorter lies between.
  EXPECT_EQ(
      IKey("foo", 100, kTypeValue),
      Shorten(IKey("foo", 100, kTypeValue), IKey("foobar", 200, kTypeValue)));
  // Adjacent last bytes: no shorter separator.
  EXPECT_EQ(
      IKey("foo", 100, kTypeValue),
      Shorten(IKey("foo", 100, kTypeValue), IKey("fop", 200, kTypeValue)));
}

TEST(InternalKeyComparatorTest, ShortSuccessorShortensUserKey) {
  EXPECT_EQ(IKey("g", kMaxSequenceNumber, kValueTypeForSeek),
            ShortSuccessor(IKey("foo", 100, kTypeValue)));
  const std::string all_ff = IKey("\xff\xff", 100, kTypeValue);
  EXPECT_EQ(all_ff, ShortSuccessor(all_ff));
}

TEST(InternalKeyComparatorTest, ShorteningLeavesMalformedKeysAlone) {
  EXPECT_EQ("ab", Shorten("ab", IKey("zzz", 1, kTypeValue)));
  EXPECT_EQ("ab", ShortSuccessor("ab"));
}

TEST(LookupKeyTest, ViewsShareOneEncoding) {
  LookupKey lkey("user", 42);
  EXPECT_EQ("user", lkey.user_key().ToString());
  EXPECT_EQ(IKey("user", 42, kValueTypeForSeek),
            lkey.internal_key().ToString());
  Slice memtable_key = lkey.memtable_key();
  uint32_t len;
  ASSERT_TRUE(GetVarint32(&memtable_key, &len));
  EXPECT_EQ(12u, len);
  EXPECT_EQ(lkey.internal_key(), memtable_key);
}

TEST(LookupKeyTest, LongKeyUsesHeap) {
  const std::string long_key(5000, 'z');
  LookupKey lkey(long_key, kMaxSequenceNumber);
  EXPECT_EQ(long_key, lkey.user_key().ToString());
  EXPECT_EQ(IKey(long_key, kMaxSequenceNumber, kValueTypeForSeek),
            lkey.internal_key().ToString());
  Slice memtable_key = lkey.memtable_key();
  uint32_t len;
  ASSERT_TRUE(GetVarint32(&memtable_key, &len));
  EXPECT_EQ(5008u, len);
}

TEST(InternalKeyFormatTest, ReadsUserKeySequenceAndDeletion) {
  const InternalKeyFormat* format = InternalKeyFormat::Get();
  const std::string value = IKey("apple", 77, kTypeValue);
  const std::string deletion = IKey("pear", 78, kTypeDeletion);
  EXPECT_EQ("apple", format->UserKey(value).ToString());
  EXPECT_EQ(77u, format->Sequence(value));
  EXPECT_FALSE(format->IsDeletion(value));
  EXPECT_EQ("pear", format->UserKey(deletion).ToString());
  EXPECT_EQ(78u, format->Sequence(deletion));
  EXPECT_TRUE(format->IsDeletion(deletion));
}

TEST(InternalKeyFormatTest, ToleratesKeysShorterThanTrailer) {
  const InternalKeyFormat* format = InternalKeyFormat::Get();
  EXPECT_EQ("bad", format->UserKey(Slice("bad")).ToString());
  EXPECT_EQ(0u, format->Sequence(Slice("bad")));
  EXPECT_FALSE(format->IsDeletion(Slice("")));
}

}  // namespace
}  // namespace cascadedb

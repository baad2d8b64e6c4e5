// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/coding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tests/testutil/test_util.h"
#include "util/random.h"

namespace cascadedb {
namespace {

// 0, 1, and for every 7-bit group boundary 2^k - 1, 2^k and 2^k + 1, up to
// the type's maximum.
std::vector<uint64_t> BoundaryValues64() {
  std::vector<uint64_t> v = {0, 1, 2};
  for (int k = 7; k < 64; k += 7) {
    const uint64_t p = uint64_t{1} << k;
    v.insert(v.end(), {p - 1, p, p + 1});
  }
  const uint64_t top = uint64_t{1} << 63;
  v.insert(v.end(),
           {uint64_t{std::numeric_limits<uint32_t>::max()} - 1,
            uint64_t{std::numeric_limits<uint32_t>::max()},
            uint64_t{std::numeric_limits<uint32_t>::max()} + 1, top - 1, top,
            top + 1, std::numeric_limits<uint64_t>::max() - 1,
            std::numeric_limits<uint64_t>::max()});
  return v;
}

std::vector<uint32_t> BoundaryValues32() {
  std::vector<uint32_t> v;
  for (uint64_t x : BoundaryValues64()) {
    if (x <= std::numeric_limits<uint32_t>::max()) {
      v.push_back(static_cast<uint32_t>(x));
    }
  }
  return v;
}

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

// ---------------------------------------------------------------- fixed

TEST(CodingTest, Fixed32IsLittleEndian) {
  std::string s;
  PutFixed32(&s, 0x04030201u);
  EXPECT_EQ(Bytes({1, 2, 3, 4}), s);
  EXPECT_EQ(0x04030201u, DecodeFixed32(s.data()));
}

TEST(CodingTest, Fixed64IsLittleEndian) {
  std::string s;
  PutFixed64(&s, 0x0807060504030201ull);
  EXPECT_EQ(Bytes({1, 2, 3, 4, 5, 6, 7, 8}), s);
  EXPECT_EQ(0x0807060504030201ull, DecodeFixed64(s.data()));
}

TEST(CodingTest, Fixed32RoundTripsBoundaryValues) {
  std::string s;
  const std::vector<uint32_t> values = BoundaryValues32();
  for (uint32_t v : values) PutFixed32(&s, v);
  ASSERT_EQ(4 * values.size(), s.size());
  Slice input(s);
  for (uint32_t expected : values) {
    uint32_t actual;
    ASSERT_TRUE(GetFixed32(&input, &actual));
    EXPECT_EQ(expected, actual);
  }
  EXPECT_TRUE(input.empty());
}

TEST(CodingTest, Fixed64RoundTripsBoundaryValues) {
  std::string s;
  const std::vector<uint64_t> values = BoundaryValues64();
  for (uint64_t v : values) PutFixed64(&s, v);
  ASSERT_EQ(8 * values.size(), s.size());
  Slice input(s);
  for (uint64_t expected : values) {
    uint64_t actual;
    ASSERT_TRUE(GetFixed64(&input, &actual));
    EXPECT_EQ(expected, actual);
  }
  EXPECT_TRUE(input.empty());
}

TEST(CodingTest, EncodeFixedWritesAtUnalignedAddresses) {
  char buf[16] = {};
  EncodeFixed32(buf + 1, 0xdeadbeefu);
  EncodeFixed64(buf + 5, 0x0123456789abcdefull);
  EXPECT_EQ(0xdeadbeefu, DecodeFixed32(buf + 1));
  EXPECT_EQ(0x0123456789abcdefull, DecodeFixed64(buf + 5));
  EXPECT_EQ(0, buf[0]);
  EXPECT_EQ(0, buf[13]);
}

TEST(CodingTest, GetFixedFailsOnShortInputAndLeavesItUnchanged) {
  const std::string s = "1234567";
  for (size_t len = 0; len < 8; ++len) {
    Slice input(s.data(), len);
    uint64_t v64;
    EXPECT_FALSE(GetFixed64(&input, &v64)) << len;
    EXPECT_EQ(len, input.size());
    if (len < 4) {
      uint32_t v32;
      EXPECT_FALSE(GetFixed32(&input, &v32)) << len;
      EXPECT_EQ(len, input.size());
    }
  }
}

// ---------------------------------------------------------------- varint

TEST(CodingTest, VarintEncodesLowGroupFirstWithContinuationBits) {
  std::string s;
  PutVarint32(&s, 300);  // 300 = 0b10_0101100
  EXPECT_EQ(Bytes({0xac, 0x02}), s);
  s.clear();
  PutVarint64(&s, 127);
  EXPECT_EQ(Bytes({0x7f}), s);
  s.clear();
  PutVarint64(&s, 128);
  EXPECT_EQ(Bytes({0x80, 0x01}), s);
  s.clear();
  PutVarint64(&s, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}),
            s);
}

TEST(CodingTest, Varint32RoundTripsBoundaryValues) {
  for (uint32_t v : BoundaryValues32()) {
    std::string s;
    PutVarint32(&s, v);
    Slice input(s);
    uint32_t actual;
    ASSERT_TRUE(GetVarint32(&input, &actual)) << v;
    EXPECT_EQ(v, actual);
    EXPECT_TRUE(input.empty()) << v;
  }
}

TEST(CodingTest, Varint64RoundTripsBoundaryValues) {
  for (uint64_t v : BoundaryValues64()) {
    std::string s;
    PutVarint64(&s, v);
    Slice input(s);
    uint64_t actual;
    ASSERT_TRUE(GetVarint64(&input, &actual)) << v;
    EXPECT_EQ(v, actual);
    EXPECT_TRUE(input.empty()) << v;
  }
}

TEST(CodingTest, VarintLengthMatchesEncodedLength) {
  for (uint64_t v : BoundaryValues64()) {
    char buf[kMaxVarint64Length];
    const char* end = EncodeVarint64(buf, v);
    EXPECT_EQ(end - buf, VarintLength(v)) << v;
    if (v <= std::numeric_limits<uint32_t>::max()) {
      end = EncodeVarint32(buf, static_cast<uint32_t>(v));
      EXPECT_EQ(end - buf, VarintLength(v)) << v;
    }
  }
  EXPECT_EQ(1, VarintLength(0));
  EXPECT_EQ(1, VarintLength(127));
  EXPECT_EQ(2, VarintLength(128));
  EXPECT_EQ(kMaxVarint32Length,
            VarintLength(std::numeric_limits<uint32_t>::max()));
  EXPECT_EQ(kMaxVarint64Length,
            VarintLength(std::numeric_limits<uint64_t>::max()));
}

TEST(CodingTest, VarintSequenceDecodesInOrder) {
  std::string s;
  std::vector<uint64_t> values;
  for (uint32_t i = 0; i < 32 * 32; ++i) {
    const uint64_t v = (uint64_t{1} << (i / 32 * 2)) + i % 32;
    values.push_back(v);
    PutVarint64(&s, v);
    PutVarint32(&s, i);
  }
  Slice input(s);
  for (uint32_t i = 0; i < values.size(); ++i) {
    uint64_t v64;
    uint32_t v32;
    ASSERT_TRUE(GetVarint64(&input, &v64));
    EXPECT_EQ(values[i], v64);
    ASSERT_TRUE(GetVarint32(&input, &v32));
    EXPECT_EQ(i, v32);
  }
  EXPECT_TRUE(input.empty());
}

TEST(CodingTest, RandomVarintsRoundTrip) {
  const uint32_t seed = test::RandomSeed();
  Random64 rnd(seed);
  std::string s;
  std::vector<uint64_t> values;
  for (int i = 0; i < 10000; ++i) {
    // Random bit width so every encoded length is well represented.
    const uint64_t v = rnd.Next() >> rnd.Uniform(64);
    values.push_back(v);
    PutVarint64(&s, v);
  }
  Slice input(s);
  for (uint64_t expected : values) {
    uint64_t actual;
    ASSERT_TRUE(GetVarint64(&input, &actual));
    ASSERT_EQ(expected, actual);
  }
  EXPECT_TRUE(input.empty());
}

TEST(CodingTest, TruncatedVarintFailsAndLeavesInputUnchanged) {
  for (uint64_t v : BoundaryValues64()) {
    std::string s;
    PutVarint64(&s, v);
    for (size_t len = 0; len < s.size(); ++len) {
      // An exactly sized heap copy, so a sanitizer build flags any read
      // past the end.
      const std::vector<char> prefix(s.begin(), s.begin() + len);
      Slice input(prefix.data(), len);
      uint64_t v64;
      EXPECT_FALSE(GetVarint64(&input, &v64)) << v << " cut to " << len;
      EXPECT_EQ(len, input.size());
      uint32_t v32;
      EXPECT_FALSE(GetVarint32(&input, &v32)) << v << " cut to " << len;
      EXPECT_EQ(len, input.size());
    }
  }
}

TEST(CodingTest, VarintDecodeStopsAtLimitEvenIfMoreBytesFollow) {
  // A complete 2-byte varint sits in memory, but the limit cuts it after
  // its first byte: reading the second byte would wrongly succeed.
  const std::string s = Bytes({0x80, 0x01});
  uint32_t v32;
  uint64_t v64;
  EXPECT_EQ(nullptr, GetVarint32Ptr(s.data(), s.data() + 1, &v32));
  EXPECT_EQ(nullptr, GetVarint64Ptr(s.data(), s.data() + 1, &v64));
  EXPECT_EQ(nullptr, GetVarint32Ptr(s.data(), s.data(), &v32));
  EXPECT_EQ(nullptr, GetVarint64Ptr(s.data(), s.data(), &v64));
  EXPECT_EQ(s.data() + 2, GetVarint32Ptr(s.data(), s.data() + 2, &v32));
  EXPECT_EQ(128u, v32);
}

TEST(CodingTest, OverlongVarint32IsRejected) {
  uint32_t v;
  // Six bytes with continuation bits: longer than any varint32.
  const std::string six = Bytes({0x80, 0x80, 0x80, 0x80, 0x80, 0x00});
  EXPECT_EQ(nullptr, GetVarint32Ptr(six.data(), six.data() + six.size(), &v));
  // Five bytes whose last carries bits above bit 31.
  const std::string too_big = Bytes({0xff, 0xff, 0xff, 0xff, 0x1f});
  Slice input(too_big);
  EXPECT_FALSE(GetVarint32(&input, &v));
  EXPECT_EQ(too_big.size(), input.size());
  // The largest valid five-byte encoding is accepted.
  const std::string max = Bytes({0xff, 0xff, 0xff, 0xff, 0x0f});
  input = Slice(max);
  ASSERT_TRUE(GetVarint32(&input, &v));
  EXPECT_EQ(std::numeric_limits<uint32_t>::max(), v);
}

TEST(CodingTest, OverlongVarint64IsRejected) {
  uint64_t v;
  std::string eleven(10, static_cast<char>(0x80));
  eleven.push_back(0x00);
  Slice input(eleven);
  EXPECT_FALSE(GetVarint64(&input, &v));
  EXPECT_EQ(eleven.size(), input.size());
  // Ten bytes whose last carries bits above bit 63.
  std::string too_big(9, static_cast<char>(0xff));
  too_big.push_back(0x02);
  EXPECT_EQ(nullptr, GetVarint64Ptr(too_big.data(),
                                    too_big.data() + too_big.size(), &v));
}

TEST(CodingTest, Varint32DecoderRejectsValueAboveUint32Max) {
  std::string s;
  PutVarint64(&s, uint64_t{1} << 32);
  Slice input(s);
  uint32_t v;
  EXPECT_FALSE(GetVarint32(&input, &v));
  EXPECT_EQ(s.size(), input.size());
}

// ----------------------------------------------------------------
// length-prefixed

TEST(CodingTest, LengthPrefixedSlicesRoundTrip) {
  const std::vector<std::string> values = {"", "a", std::string(127, 'b'),
                                           std::string(128, 'c'),
                                           std::string(100000, 'd')};
  std::string s;
  for (const std::string& v : values) PutLengthPrefixedSlice(&s, v);
  Slice input(s);
  for (const std::string& expected : values) {
    Slice actual;
    ASSERT_TRUE(GetLengthPrefixedSlice(&input, &actual));
    EXPECT_EQ(expected, actual.ToString());
  }
  EXPECT_TRUE(input.empty());
}

TEST(CodingTest, LengthPrefixedSliceBorrowsInputBytes) {
  std::string s;
  PutLengthPrefixedSlice(&s, "hello");
  Slice input(s);
  Slice result;
  ASSERT_TRUE(GetLengthPrefixedSlice(&input, &result));
  EXPECT_EQ(s.data() + 1, result.data());
  EXPECT_EQ(5u, result.size());
}

TEST(CodingTest, LengthPrefixLongerThanRestFailsAndLeavesInputUnchanged) {
  std::string s;
  PutLengthPrefixedSlice(&s, "hello");
  for (size_t len = 0; len < s.size(); ++len) {
    Slice input(s.data(), len);
    Slice result("untouched");
    EXPECT_FALSE(GetLengthPrefixedSlice(&input, &result)) << len;
    EXPECT_EQ(len, input.size());
    EXPECT_EQ("untouched", result.ToString());
  }
}

TEST(CodingTest, HugeLengthPrefixFailsWithoutOverflow) {
  std::string s;
  PutVarint32(&s, std::numeric_limits<uint32_t>::max());
  s.append("abc");
  Slice input(s);
  Slice result;
  EXPECT_FALSE(GetLengthPrefixedSlice(&input, &result));
  EXPECT_EQ(nullptr,
            GetLengthPrefixedSlicePtr(s.data(), s.data() + s.size(), &result));
}

TEST(CodingTest, MalformedLengthPrefixFails) {
  const std::string s = Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 'x'});
  Slice input(s);
  Slice result;
  EXPECT_FALSE(GetLengthPrefixedSlice(&input, &result));
  EXPECT_EQ(s.size(), input.size());
}

TEST(CodingTest, GetLengthPrefixedSlicePtrReturnsBytePastValue) {
  std::string s;
  PutLengthPrefixedSlice(&s, "abc");
  s.append("tail");
  const char* const limit = s.data() + s.size();
  Slice result;
  const char* next = GetLengthPrefixedSlicePtr(s.data(), limit, &result);
  ASSERT_NE(nullptr, next);
  EXPECT_EQ("abc", result.ToString());
  EXPECT_EQ("tail", std::string(next, limit));
}

int Sign(int r) { return (r > 0) - (r < 0); }

TEST(CodingTest, CompareBytesAgreesWithMemcmpAtEveryLengthAndPosition) {
  // Every length through the inline limit and past it, with the first
  // difference at every position and both signs; bytes above 0x7f must
  // compare as unsigned, as memcmp's do.
  for (size_t n = 0; n <= kCompareBytesInline + 9; n++) {
    std::string a(n, '\x61');
    EXPECT_EQ(0, CompareBytes(a.data(), a.data(), n)) << "n " << n;
    std::string b = a;
    EXPECT_EQ(0, CompareBytes(a.data(), b.data(), n)) << "n " << n;
    for (size_t pos = 0; pos < n; pos++) {
      for (const unsigned char c : {0x00, 0x60, 0x62, 0x80, 0xff}) {
        b = a;
        b[pos] = static_cast<char>(c);
        const int want = Sign(std::memcmp(a.data(), b.data(), n));
        EXPECT_EQ(want, Sign(CompareBytes(a.data(), b.data(), n)))
            << "n " << n << " pos " << pos << " byte " << int{c};
        EXPECT_EQ(-want, Sign(CompareBytes(b.data(), a.data(), n)))
            << "n " << n << " pos " << pos << " byte " << int{c};
      }
    }
  }
}

TEST(CodingTest, SharedPrefixLengthFindsTheFirstDifferenceAnywhere) {
  // Every length past two eight-byte steps, with the first difference at
  // every position (and none), differing in the low or the high bits.
  for (size_t n = 0; n <= 27; n++) {
    const std::string a(n, '\x5a');
    EXPECT_EQ(n, SharedPrefixLength(a.data(), a.data(), n)) << "n " << n;
    for (size_t pos = 0; pos < n; pos++) {
      for (const unsigned char c : {0x5b, 0xda, 0x00}) {
        std::string b = a;
        b[pos] = static_cast<char>(c);
        if (pos + 1 < n) b[pos + 1] = '\x01';  // later bytes differ too
        EXPECT_EQ(pos, SharedPrefixLength(a.data(), b.data(), n))
            << "n " << n << " pos " << pos << " byte " << int{c};
        EXPECT_EQ(pos, SharedPrefixLength(b.data(), a.data(), n))
            << "n " << n << " pos " << pos << " byte " << int{c};
      }
    }
  }
}

TEST(CodingTest, CopyBytesCopiesExactlyNBytesAtEveryLengthAndAlignment) {
  // Every size class through the inline limit and past it, from and to
  // every alignment in a word; the bytes around the destination must keep
  // their guard value (an overlapping move that ran past n would not).
  std::string src(kCopyBytesInline + 40, '\0');
  for (size_t i = 0; i < src.size(); i++) {
    src[i] = static_cast<char>(i * 7 + 1);
  }
  for (size_t n = 0; n <= kCopyBytesInline + 17; n++) {
    for (size_t from = 0; from < 8; from++) {
      for (size_t to = 0; to < 8; to++) {
        std::string dst(n + 32, '\xee');
        CopyBytes(&dst[8 + to], src.data() + from, n);
        for (size_t i = 0; i < dst.size(); i++) {
          const bool copied = i >= 8 + to && i < 8 + to + n;
          const char want = copied ? src[from + i - 8 - to] : '\xee';
          ASSERT_EQ(want, dst[i])
              << "n " << n << " from " << from << " to " << to << " byte " << i;
        }
      }
    }
  }
}

TEST(CodingTest, CompareSlicesOrdersLikeSliceCompare) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  for (int i = 0; i < 20000; i++) {
    // Shared prefixes of random length make the difference land anywhere,
    // and one string is often a prefix of the other.
    std::string prefix;
    const size_t plen = rnd.Uniform(40);
    for (size_t j = 0; j < plen; j++) {
      prefix.push_back(static_cast<char>(rnd.Uniform(256)));
    }
    std::string a = prefix;
    std::string b = prefix;
    for (size_t j = rnd.Uniform(12); j > 0; j--) {
      a.push_back(static_cast<char>(rnd.Uniform(3) + 0x7f));
    }
    for (size_t j = rnd.Uniform(12); j > 0; j--) {
      b.push_back(static_cast<char>(rnd.Uniform(3) + 0x7f));
    }
    EXPECT_EQ(Sign(Slice(a).compare(Slice(b))),
              Sign(CompareSlices(Slice(a), Slice(b))))
        << "seed " << seed << " case " << i;
  }
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/compression.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "tests/testutil/test_util.h"
#include "util/coding.h"

namespace cascadedb {
namespace {

// Half random bytes, half repeats of them: compresses to roughly 50%.
std::string SemiCompressible(uint32_t* state, size_t n) {
  std::string s;
  while (s.size() < n) {
    const std::string chunk = test::RandomBytes(state, 50, true);
    s += chunk;
    s += chunk;
  }
  s.resize(n);
  return s;
}

class CompressionTest : public ::testing::TestWithParam<CompressionType> {
 protected:
  void SetUp() override { state_ = test::RandomSeed(); }

  // Compresses and uncompresses input at level, expecting the input back.
  void ExpectRoundTrip(const std::string& input, int level) {
    std::string compressed;
    ASSERT_TRUE(CompressBlock(GetParam(), level, input, &compressed));
    std::string output = "stale";
    ASSERT_OK(UncompressBlock(GetParam(), compressed, &output));
    EXPECT_EQ(input, output);
  }

  uint32_t state_ = 0;
};

TEST_P(CompressionTest, IsSupported) {
  EXPECT_TRUE(CompressionTypeSupported(GetParam()));
}

TEST_P(CompressionTest, RoundTripsEmptyInput) {
  ExpectRoundTrip("", kDefaultCompressionLevel);
}

TEST_P(CompressionTest, RoundTripsSemiCompressibleData) {
  for (size_t n : {1, 100, 4096, 65536}) {
    ExpectRoundTrip(SemiCompressible(&state_, n), kDefaultCompressionLevel);
  }
}

TEST_P(CompressionTest, RoundTripsRandomData) {
  ExpectRoundTrip(test::RandomBytes(&state_, 4096), kDefaultCompressionLevel);
}

TEST_P(CompressionTest, RoundTripsAtEveryKindOfLevel) {
  const std::string input = SemiCompressible(&state_, 4096);
  for (int level : {-5, 0, 1, 9, 19}) ExpectRoundTrip(input, level);
}

TEST_P(CompressionTest, RoundTripsMaximallyCompressibleData) {
  // The densest payloads a codec can produce must pass the reader's
  // expansion-ratio check.
  const std::string zeros(4 << 20, '\0');
  for (int level : {kDefaultCompressionLevel, -10, 1, 12}) {
    ExpectRoundTrip(zeros, level);
  }
}

TEST_P(CompressionTest, ShrinksRepetitiveData) {
  const std::string input(4096, 'x');
  std::string compressed;
  ASSERT_TRUE(
      CompressBlock(GetParam(), kDefaultCompressionLevel, input, &compressed));
  EXPECT_LT(compressed.size(), input.size() / 8);
}

TEST_P(CompressionTest, EveryTruncationIsCorruptionOrHarmless) {
  const std::string input = SemiCompressible(&state_, 2000);
  std::string compressed;
  ASSERT_TRUE(
      CompressBlock(GetParam(), kDefaultCompressionLevel, input, &compressed));
  for (size_t n = 0; n < compressed.size(); ++n) {
    // An exactly-sized copy lets ASan catch any read past the end.
    std::unique_ptr<char[]> copy(new char[n + 1]);
    memcpy(copy.get(), compressed.data(), n);
    std::string output;
    Status s = UncompressBlock(GetParam(), Slice(copy.get(), n), &output);
    // A prefix of the payload never decodes to the whole input.
    EXPECT_TRUE(s.IsCorruption() || output != input)
        << "length " << n << ": " << s.ToString();
  }
}

TEST_P(CompressionTest, EverySingleByteChangeIsCorruptionOrHarmless) {
  const std::string input = SemiCompressible(&state_, 1000);
  std::string compressed;
  ASSERT_TRUE(
      CompressBlock(GetParam(), kDefaultCompressionLevel, input, &compressed));
  for (size_t i = 0; i < compressed.size(); ++i) {
    for (int delta : {0x01, 0x80, 0xff}) {
      std::string bad = compressed;
      bad[i] = static_cast<char>(bad[i] ^ delta);
      std::string output;
      Status s = UncompressBlock(GetParam(), bad, &output);
      EXPECT_TRUE(s.ok() || s.IsCorruption()) << s.ToString();
    }
  }
}

TEST_P(CompressionTest, RandomGarbageIsCorruptionOrHarmless) {
  for (int i = 0; i < 1000; ++i) {
    const std::string garbage = test::RandomBytes(&state_, i % 64);
    std::string output;
    Status s = UncompressBlock(GetParam(), garbage, &output);
    EXPECT_TRUE(s.ok() || s.IsCorruption()) << s.ToString();
    EXPECT_LE(output.size(), kMaxUncompressedBlockSize);
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, CompressionTest,
                         ::testing::Values(kSnappyCompression, kLZ4Compression,
                                           kZSTD));

TEST(CompressionFramingTest, Lz4AndZstdPayloadsStartWithVarintSize) {
  const std::string input(3000, 'a');
  for (CompressionType type : {kLZ4Compression, kZSTD}) {
    std::string compressed;
    ASSERT_TRUE(
        CompressBlock(type, kDefaultCompressionLevel, input, &compressed));
    Slice payload(compressed);
    uint32_t size = 0;
    ASSERT_TRUE(GetVarint32(&payload, &size));
    EXPECT_EQ(3000u, size);
  }
}

TEST(CompressionFramingTest, HugeClaimedSizeIsCorruption) {
  for (CompressionType type : {kLZ4Compression, kZSTD}) {
    std::string payload;
    PutVarint32(&payload, 0xffffffffu);
    payload += "xyz";
    std::string output;
    Status s = UncompressBlock(type, payload, &output);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  }
  // A snappy header (varint length) claiming 4 GiB.
  std::string snappy_payload;
  PutVarint32(&snappy_payload, 0xffffffffu);
  std::string output;
  EXPECT_TRUE(UncompressBlock(kSnappyCompression, snappy_payload, &output)
                  .IsCorruption());
}

TEST(CompressionFramingTest, SizeBeyondCodecRatioIsCorruption) {
  // 100 MB claimed from a handful of bytes: impossible for snappy and lz4,
  // refused before anything is allocated.
  std::string lz4_payload;
  PutVarint32(&lz4_payload, 100u << 20);
  lz4_payload += "xyz";
  std::string output;
  Status s = UncompressBlock(kLZ4Compression, lz4_payload, &output);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("impossible"));
  std::string snappy_payload;
  PutVarint32(&snappy_payload, 100u << 20);
  snappy_payload += "xyz";
  s = UncompressBlock(kSnappyCompression, snappy_payload, &output);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("impossible"));
}

TEST(CompressionFramingTest, WrongClaimedSizeIsCorruption) {
  const std::string input(3000, 'a');
  for (CompressionType type : {kLZ4Compression, kZSTD}) {
    std::string compressed;
    ASSERT_TRUE(
        CompressBlock(type, kDefaultCompressionLevel, input, &compressed));
    Slice body(compressed);
    uint32_t size = 0;
    ASSERT_TRUE(GetVarint32(&body, &size));
    std::string lying;
    PutVarint32(&lying, size - 1);
    lying.append(body.data(), body.size());
    std::string output;
    Status s = UncompressBlock(type, lying, &output);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  }
}

TEST(CompressionTypeTest, NoCompressionDoesNotCompress) {
  std::string output;
  EXPECT_FALSE(CompressBlock(kNoCompression, kDefaultCompressionLevel,
                             "aaaaaaaa", &output));
  EXPECT_TRUE(CompressionTypeSupported(kNoCompression));
}

TEST(CompressionTypeTest, UnknownTypeIsNotSupported) {
  const auto unknown = static_cast<CompressionType>(9);
  EXPECT_FALSE(CompressionTypeSupported(unknown));
  std::string output;
  EXPECT_FALSE(CompressBlock(unknown, 0, "aaaaaaaa", &output));
  EXPECT_TRUE(UncompressBlock(unknown, "aaaa", &output).IsNotSupported());
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/readahead_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/table/table_test_util.h"
#include "tests/testutil/test_util.h"
#include "util/random.h"

namespace cascadedb {
namespace {

using test::StringSource;

std::string Read(const RandomAccessFile& file, uint64_t offset, size_t n) {
  std::string scratch(n, '\0');
  Slice result;
  Status s = file.Read(offset, n, &result, scratch.data());
  EXPECT_OK(s);
  return result.ToString();
}

TEST(ReadaheadFileTest, SequentialReadsAreServedFromOneLargeRead) {
  uint32_t state = 1;
  const std::string data = test::RandomBytes(&state, 100000);
  StringSource source(data);
  auto file = NewReadaheadRandomAccessFile(&source, 10000);
  for (uint64_t offset = 0; offset < 10000; offset += 100) {
    ASSERT_EQ(data.substr(offset, 100), Read(*file, offset, 100));
  }
  EXPECT_EQ(1u, source.reads());
  ASSERT_EQ(data.substr(9950, 100), Read(*file, 9950, 100));  // straddles
  EXPECT_EQ(2u, source.reads());
}

// A StringSource that records the prefetch hints it gets, and may hand
// out its own memory (like a mapping) or say it reads with direct I/O.
class HintedSource : public StringSource {
 public:
  explicit HintedSource(std::string data, bool mapped = false,
                        bool direct = false)
      : StringSource(std::move(data), mapped), direct_(direct) {}
  bool use_direct_io() const override { return direct_; }
  void Prefetch(uint64_t offset, size_t n) const override {
    hints_.push_back({offset, n});
  }
  const bool direct_;
  mutable std::vector<std::pair<uint64_t, size_t>> hints_;
};

TEST(ReadaheadFileTest, MappedTargetIsReadInPlaceAndPrefetched) {
  uint32_t state = 2;
  HintedSource source(test::RandomBytes(&state, 100000), /*mapped=*/true);
  auto file = NewReadaheadRandomAccessFile(&source, 10000);
  EXPECT_TRUE(file->ReturnsOwnMemory());
  for (uint64_t offset = 0; offset < 30000; offset += 100) {
    Slice result;
    ASSERT_OK(file->Read(offset, 100, &result, nullptr));
    ASSERT_EQ(source.contents().data() + offset, result.data());  // no copy
    ASSERT_EQ(100u, result.size());
  }
  // One hint per window the reader entered: 0, 10000, 20000.
  ASSERT_EQ(3u, source.hints_.size());
  EXPECT_EQ(0u, source.hints_[0].first);
  EXPECT_EQ(10000u, source.hints_[1].first);
  EXPECT_EQ(20000u, source.hints_[2].first);
  EXPECT_EQ(10000u, source.hints_[2].second);
}

TEST(ReadaheadFileTest, MappedTargetIsReadThroughItsCopyingReader) {
  uint32_t state = 3;
  const std::string data = test::RandomBytes(&state, 300000);
  StringSource source(data, /*mapped=*/true);
  source.OfferCopyingReaders();
  auto file = NewReadaheadRandomAccessFile(&source, 1 << 20);
  EXPECT_FALSE(file->ReturnsOwnMemory());
  EXPECT_EQ(1u, source.copiers());
  std::string scratch(4096, '\0');
  for (uint64_t offset = 0; offset < data.size(); offset += 4000) {
    Slice result;
    ASSERT_OK(file->Read(offset, 4000, &result, scratch.data()));
    ASSERT_EQ(scratch.data(), result.data());  // a copy, not the mapping
    ASSERT_EQ(data.substr(offset, 4000), result.ToString()) << offset;
  }
  EXPECT_EQ(0u, source.reads());  // nothing read in place
  // 64 KiB pieces, not the 1 MiB readahead: five for 300,000 bytes, plus
  // one per piece boundary a read straddled.
  EXPECT_EQ(64u << 10, source.largest_copying_read());
  EXPECT_GE(source.copying_reads(), 5u);
  EXPECT_LE(source.copying_reads(), 10u);
}

TEST(ReadaheadFileTest, BufferedReadsCopyPiecesAndHintEachWindow) {
  uint32_t state = 4;
  const std::string data = test::RandomBytes(&state, 600000);
  HintedSource source(data);
  auto file = NewReadaheadRandomAccessFile(&source, 256 << 10);
  for (uint64_t offset = 0; offset < data.size(); offset += 1000) {
    ASSERT_EQ(data.substr(offset, 1000), Read(*file, offset, 1000)) << offset;
  }
  // Refilled 64 KiB at a time (ten pieces, plus straddles), never 256 KiB.
  EXPECT_GE(source.reads(), 10u);
  EXPECT_LE(source.reads(), 20u);
  EXPECT_LE(source.bytes_read(), source.reads() * (64u << 10));
  // The OS was asked for each 256 KiB window as the reader entered it.
  ASSERT_EQ(3u, source.hints_.size());
  EXPECT_EQ(0u, source.hints_[0].first);
  EXPECT_EQ(262000u, source.hints_[1].first);
  EXPECT_EQ(524000u, source.hints_[2].first);
  EXPECT_EQ(256u << 10, source.hints_[2].second);
}

TEST(ReadaheadFileTest, DirectTargetIsReadAWholeReadaheadAtATime) {
  uint32_t state = 5;
  const std::string data = test::RandomBytes(&state, 600000);
  HintedSource source(data, /*mapped=*/false, /*direct=*/true);
  auto file = NewReadaheadRandomAccessFile(&source, 256 << 10);
  EXPECT_TRUE(file->use_direct_io());
  for (uint64_t offset = 0; offset < 250000; offset += 1000) {
    ASSERT_EQ(data.substr(offset, 1000), Read(*file, offset, 1000)) << offset;
  }
  EXPECT_EQ(1u, source.reads());
  EXPECT_EQ(256u << 10, source.bytes_read());
}

TEST(ReadaheadFileTest, RandomReadsReturnTheRightBytes) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  uint32_t state = seed;
  const std::string data = test::RandomBytes(&state, 50000);
  StringSource source(data);
  auto file = NewReadaheadRandomAccessFile(&source, 4096);
  for (int i = 0; i < 2000; ++i) {
    const uint64_t offset = rnd.Uniform(52000);
    const size_t n = rnd.Uniform(6000);
    const std::string expected =
        offset >= data.size() ? "" : data.substr(offset, n);
    ASSERT_EQ(expected, Read(*file, offset, n)) << offset << " " << n;
  }
}

TEST(ReadaheadFileTest, ReadsNearTheEndOfFileAreShort) {
  StringSource source("0123456789");
  auto file = NewReadaheadRandomAccessFile(&source, 4096);
  EXPECT_EQ("789", Read(*file, 7, 100));
  EXPECT_EQ("89", Read(*file, 8, 5));
  EXPECT_EQ("", Read(*file, 10, 5));
  EXPECT_EQ("", Read(*file, 50, 5));
  EXPECT_EQ("01", Read(*file, 0, 2));
}

TEST(ReadaheadFileTest, LargeReadsBypassTheBuffer) {
  const std::string data(20000, 'x');
  StringSource source(data);
  auto file = NewReadaheadRandomAccessFile(&source, 1000);
  EXPECT_EQ(data.substr(0, 5000), Read(*file, 0, 5000));
  EXPECT_EQ(1u, source.reads());
  EXPECT_EQ(5000u, source.bytes_read());
}

}  // namespace
}  // namespace cascadedb

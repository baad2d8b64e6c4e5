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

// A file that hands out its own memory (like a mapping) and counts the
// prefetch hints it gets.
class InPlaceSource : public RandomAccessFile {
 public:
  explicit InPlaceSource(std::string data) : data_(std::move(data)) {}
  Status Read(uint64_t offset, size_t n, Slice* result,
              char* /*scratch*/) const override {
    const size_t start = std::min<size_t>(offset, data_.size());
    *result = Slice(data_.data() + start, std::min(n, data_.size() - start));
    return Status::OK();
  }
  bool ReturnsOwnMemory() const override { return true; }
  void Prefetch(uint64_t offset, size_t n) const override {
    prefetches_.push_back({offset, n});
  }
  const std::string data_;
  mutable std::vector<std::pair<uint64_t, size_t>> prefetches_;
};

TEST(ReadaheadFileTest, MappedTargetIsReadInPlaceAndPrefetched) {
  uint32_t state = 2;
  InPlaceSource source(test::RandomBytes(&state, 100000));
  auto file = NewReadaheadRandomAccessFile(&source, 10000);
  EXPECT_TRUE(file->ReturnsOwnMemory());
  for (uint64_t offset = 0; offset < 30000; offset += 100) {
    Slice result;
    ASSERT_OK(file->Read(offset, 100, &result, nullptr));
    ASSERT_EQ(source.data_.data() + offset, result.data());  // no copy
    ASSERT_EQ(100u, result.size());
  }
  // One hint per window the reader entered: 0, 10000, 20000.
  ASSERT_EQ(3u, source.prefetches_.size());
  EXPECT_EQ(0u, source.prefetches_[0].first);
  EXPECT_EQ(10000u, source.prefetches_[1].first);
  EXPECT_EQ(20000u, source.prefetches_[2].first);
  EXPECT_EQ(10000u, source.prefetches_[2].second);
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

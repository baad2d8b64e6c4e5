// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "cascadedb/env.h"
#include "tests/testutil/test_util.h"
#include "util/coding.h"
#include "util/compression.h"
#include "util/crc32c.h"

namespace cascadedb {
namespace {

// A WritableFile appending to a string.
class StringSink : public WritableFile {
 public:
  Status Append(const Slice& data) override {
    contents_.append(data.data(), data.size());
    return Status::OK();
  }
  Status Close() override { return Status::OK(); }
  Status Flush() override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }
  uint64_t GetFileSize() const override { return contents_.size(); }
  std::string& contents() { return contents_; }

 private:
  std::string contents_;
};

// A RandomAccessFile over a string; reads copy into scratch.
class StringSource : public RandomAccessFile {
 public:
  explicit StringSource(std::string contents)
      : contents_(std::move(contents)) {}
  Status Read(uint64_t offset, size_t n, Slice* result,
              char* scratch) const override {
    if (offset > contents_.size()) {
      *result = Slice();
      return Status::OK();
    }
    n = std::min(n, static_cast<size_t>(contents_.size() - offset));
    memcpy(scratch, contents_.data() + offset, n);
    *result = Slice(scratch, n);
    return Status::OK();
  }

 private:
  std::string contents_;
};

class FailingSource : public RandomAccessFile {
 public:
  Status Read(uint64_t, size_t, Slice*, char*) const override {
    return Status::IOError("test.sst", "injected read error");
  }
};

// Owns the data of a BlockContents read by ReadBlock.
struct OwnedContents {
  BlockContents contents;
  ~OwnedContents() {
    if (contents.heap_allocated) delete[] contents.data.data();
  }
};

std::string CompressibleText(size_t n) {
  std::string s;
  while (s.size() < n) s += "the quick brown fox jumps over the lazy dog. ";
  s.resize(n);
  return s;
}

// ---------------------------------------------------------------- handles

TEST(BlockHandleTest, RoundTripsOffsetAndSize) {
  for (uint64_t offset : {uint64_t{0}, uint64_t{1}, uint64_t{127},
                          uint64_t{128}, uint64_t{1} << 40, ~uint64_t{0} - 1}) {
    BlockHandle h(offset, offset / 3);
    std::string encoded;
    h.EncodeTo(&encoded);
    EXPECT_LE(encoded.size(), BlockHandle::kMaxEncodedLength);
    Slice input(encoded);
    BlockHandle decoded;
    ASSERT_OK(decoded.DecodeFrom(&input));
    EXPECT_TRUE(input.empty());
    EXPECT_EQ(offset, decoded.offset());
    EXPECT_EQ(offset / 3, decoded.size());
  }
}

TEST(BlockHandleTest, EveryTruncationIsCorruption) {
  std::string encoded;
  BlockHandle(uint64_t{1} << 50, uint64_t{1} << 33).EncodeTo(&encoded);
  for (size_t n = 0; n < encoded.size(); ++n) {
    Slice input(encoded.data(), n);
    BlockHandle h;
    Status s = h.DecodeFrom(&input);
    EXPECT_TRUE(s.IsCorruption()) << "length " << n << ": " << s.ToString();
  }
}

// ---------------------------------------------------------------- footer

Footer SampleFooter() {
  Footer f;
  f.set_metaindex_handle(BlockHandle(123456789, 4096));
  f.set_index_handle(BlockHandle(987654321, 77));
  return f;
}

TEST(FooterTest, RoundTripsHandles) {
  std::string encoded;
  SampleFooter().EncodeTo(&encoded);
  ASSERT_EQ(Footer::kEncodedLength, encoded.size());
  Slice input(encoded);
  Footer decoded;
  ASSERT_OK(decoded.DecodeFrom(&input));
  EXPECT_EQ(123456789u, decoded.metaindex_handle().offset());
  EXPECT_EQ(4096u, decoded.metaindex_handle().size());
  EXPECT_EQ(987654321u, decoded.index_handle().offset());
  EXPECT_EQ(77u, decoded.index_handle().size());
  EXPECT_EQ(kTableFormatVersion, decoded.format_version());
}

TEST(FooterTest, HasFixedLengthWhateverTheHandles) {
  Footer small, large;
  small.set_metaindex_handle(BlockHandle(0, 0));
  small.set_index_handle(BlockHandle(0, 0));
  large.set_metaindex_handle(BlockHandle(~uint64_t{0} - 1, ~uint64_t{0} - 1));
  large.set_index_handle(BlockHandle(~uint64_t{0} - 1, ~uint64_t{0} - 1));
  std::string a, b;
  small.EncodeTo(&a);
  large.EncodeTo(&b);
  EXPECT_EQ(Footer::kEncodedLength, a.size());
  EXPECT_EQ(Footer::kEncodedLength, b.size());
}

TEST(FooterTest, EndsWithMagicNumber) {
  std::string encoded;
  SampleFooter().EncodeTo(&encoded);
  EXPECT_EQ(kTableMagicNumber, DecodeFixed64(&encoded[encoded.size() - 8]));
  EXPECT_EQ("CSDBSST1", encoded.substr(encoded.size() - 8));
}

TEST(FooterTest, DecodesFromEndOfLongerInput) {
  std::string file = "data blocks...";
  SampleFooter().EncodeTo(&file);
  Slice input(file);
  Footer decoded;
  ASSERT_OK(decoded.DecodeFrom(&input));
  EXPECT_EQ(987654321u, decoded.index_handle().offset());
}

TEST(FooterTest, BadMagicIsCorruption) {
  std::string encoded;
  SampleFooter().EncodeTo(&encoded);
  encoded[encoded.size() - 1] ^= 1;
  Slice input(encoded);
  Footer decoded;
  Status s = decoded.DecodeFrom(&input);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("bad table magic number"));
}

TEST(FooterTest, TooShortInputIsCorruption) {
  std::string encoded;
  SampleFooter().EncodeTo(&encoded);
  Slice input(encoded.data() + 1, encoded.size() - 1);
  Footer decoded;
  EXPECT_TRUE(decoded.DecodeFrom(&input).IsCorruption());
}

TEST(FooterTest, UnknownVersionIsNotSupported) {
  std::string encoded;
  SampleFooter().EncodeTo(&encoded);
  EncodeFixed32(&encoded[2 * BlockHandle::kMaxEncodedLength], 99);
  Slice input(encoded);
  Footer decoded;
  Status s = decoded.DecodeFrom(&input);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("99"));
}

TEST(FooterTest, MalformedHandleIsCorruption) {
  std::string encoded;
  SampleFooter().EncodeTo(&encoded);
  // Continuation bits everywhere: no varint ends inside the handle area.
  memset(&encoded[0], 0xff, 2 * BlockHandle::kMaxEncodedLength);
  Slice input(encoded);
  Footer decoded;
  EXPECT_TRUE(decoded.DecodeFrom(&input).IsCorruption());
}

// ---------------------------------------------------------------- 12.5% rule

TEST(FormatTest, CompressionMustSaveAnEighth) {
  EXPECT_TRUE(CompressionSavesEnough(4096, 3584));
  EXPECT_FALSE(CompressionSavesEnough(4096, 3585));
  EXPECT_FALSE(CompressionSavesEnough(0, 0));
}

// ---------------------------------------------------------------- blocks

// Writes one block after a 100-byte prefix, so offsets are not 0.
struct WrittenBlock {
  std::string file;
  BlockHandle handle;
  CompressionType type_used = kNoCompression;
};

WrittenBlock Write(const std::string& raw, CompressionType type) {
  WrittenBlock w;
  StringSink sink;
  EXPECT_OK(sink.Append(std::string(100, 'p')));
  uint64_t offset = 100;
  std::string scratch;
  EXPECT_OK(WriteBlock(&sink, &offset, raw, type, kDefaultCompressionLevel,
                       &scratch, &w.handle, &w.type_used));
  EXPECT_EQ(sink.contents().size(), offset);
  w.file = sink.contents();
  return w;
}

class BlockIoTest : public ::testing::TestWithParam<CompressionType> {};

TEST_P(BlockIoTest, WrittenBlockReadsBack) {
  const std::string raw = CompressibleText(4096);
  WrittenBlock w = Write(raw, GetParam());
  EXPECT_EQ(100u, w.handle.offset());
  EXPECT_EQ(GetParam(), w.type_used);
  EXPECT_EQ(w.file.size(), 100 + w.handle.size() + kBlockTrailerSize);
  StringSource source(w.file);
  OwnedContents read;
  ASSERT_OK(ReadBlock(&source, true, w.handle, &read.contents));
  EXPECT_EQ(raw, read.contents.data.ToString());
  EXPECT_TRUE(read.contents.heap_allocated);
}

TEST_P(BlockIoTest, IncompressibleDataIsStoredRaw) {
  uint32_t state = test::RandomSeed();
  const std::string raw = test::RandomBytes(&state, 4096);
  WrittenBlock w = Write(raw, GetParam());
  EXPECT_EQ(kNoCompression, w.type_used);
  EXPECT_EQ(raw.size(), w.handle.size());
  StringSource source(w.file);
  OwnedContents read;
  ASSERT_OK(ReadBlock(&source, true, w.handle, &read.contents));
  EXPECT_EQ(raw, read.contents.data.ToString());
}

TEST_P(BlockIoTest, FlippedByteIsChecksumMismatchAtOffset) {
  WrittenBlock w = Write(CompressibleText(1000), GetParam());
  for (size_t i = 100; i < w.file.size(); ++i) {
    std::string bad = w.file;
    bad[i] ^= 0x10;
    StringSource source(bad);
    OwnedContents read;
    Status s = ReadBlock(&source, true, w.handle, &read.contents);
    ASSERT_TRUE(s.IsCorruption()) << "byte " << i << ": " << s.ToString();
    EXPECT_EQ("block checksum mismatch at offset 100", s.message());
  }
}

TEST_P(BlockIoTest, UnverifiedCorruptPayloadNeverCrashes) {
  WrittenBlock w = Write(CompressibleText(1000), GetParam());
  for (size_t i = 100; i < w.file.size() - 4; ++i) {  // not the crc bytes
    std::string bad = w.file;
    bad[i] ^= 0x10;
    StringSource source(bad);
    OwnedContents read;
    // OK with different bytes, Corruption, or NotSupported (type byte).
    ReadBlock(&source, false, w.handle, &read.contents).IgnoreError();
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, BlockIoTest,
                         ::testing::Values(kNoCompression, kSnappyCompression,
                                           kLZ4Compression, kZSTD));

TEST(ReadBlockTest, UnverifiedFlipIsReturned) {
  WrittenBlock w = Write("hello block", kNoCompression);
  w.file[100] = 'j';
  StringSource source(w.file);
  OwnedContents read;
  ASSERT_OK(ReadBlock(&source, false, w.handle, &read.contents));
  EXPECT_EQ("jello block", read.contents.data.ToString());
}

TEST(ReadBlockTest, TruncatedFileIsCorruptionAtOffset) {
  WrittenBlock w = Write("hello block", kNoCompression);
  StringSource source(w.file.substr(0, w.file.size() - 1));
  OwnedContents read;
  Status s = ReadBlock(&source, true, w.handle, &read.contents);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ("truncated block read at offset 100", s.message());
}

// Builds a file holding payload with a trailer of the given type byte and a
// valid checksum, at offset 0.
std::string BlockWithType(const std::string& payload, unsigned char type) {
  std::string file = payload;
  char trailer[kBlockTrailerSize];
  trailer[0] = static_cast<char>(type);
  uint32_t crc =
      crc32c::Extend(crc32c::Value(payload.data(), payload.size()), trailer, 1);
  EncodeFixed32(trailer + 1, crc32c::Mask(crc));
  file.append(trailer, kBlockTrailerSize);
  return file;
}

TEST(ReadBlockTest, UnknownCompressionTypeIsNotSupportedAtOffset) {
  StringSource source(BlockWithType("payload", 9));
  OwnedContents read;
  Status s = ReadBlock(&source, true, BlockHandle(0, 7), &read.contents);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_EQ("unknown compression type 9 at offset 0", s.message());
}

TEST(ReadBlockTest, MalformedCompressedPayloadIsCorruptionAtOffset) {
  for (unsigned char type : {kSnappyCompression, kLZ4Compression, kZSTD}) {
    StringSource source(BlockWithType("\x05garbage!", type));
    OwnedContents read;
    Status s = ReadBlock(&source, true, BlockHandle(0, 9), &read.contents);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.message().find("at offset 0"))
        << s.ToString();
  }
}

TEST(ReadBlockTest, HugeHandleIsCorruptionNotAllocation) {
  StringSource source("tiny");
  OwnedContents read;
  Status s = ReadBlock(&source, true, BlockHandle(0, uint64_t{1} << 62),
                       &read.contents);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

TEST(ReadBlockTest, ReadErrorIsReturned) {
  FailingSource source;
  OwnedContents read;
  Status s = ReadBlock(&source, true, BlockHandle(0, 10), &read.contents);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/version_edit.h"

#include <gtest/gtest.h>

#include "tests/testutil/test_util.h"
#include "util/coding.h"

namespace cascadedb {

namespace {

VersionEdit FullEdit() {
  VersionEdit edit;
  edit.SetComparatorName("cascadedb.BytewiseComparator");
  edit.SetLogNumber(12);
  edit.SetNextFile(40);
  edit.SetLastSequence(kMaxSequenceNumber);
  edit.SetCompactCursor(2, InternalKey("cursor", 7, kTypeValue));
  edit.RemoveFile(3, 17);
  edit.RemoveFile(0, 1ull << 40);
  for (int i = 0; i < 3; i++) {
    FileMetaData f;
    f.number = 30 + i;
    f.file_size = 1000u * (i + 1);
    f.smallest = InternalKey("a" + std::to_string(i), 100 + i, kTypeValue);
    f.largest = InternalKey("z" + std::to_string(i), 200 + i, kTypeDeletion);
    f.smallest_seqno = 100 + i;
    f.largest_seqno = 200 + i;
    edit.AddFile(i, f);
  }
  return edit;
}

}  // namespace

TEST(VersionEditTest, EncodeDecodeRoundTrip) {
  const VersionEdit edit = FullEdit();
  std::string encoded;
  edit.EncodeTo(&encoded);
  VersionEdit parsed;
  ASSERT_OK(parsed.DecodeFrom(encoded));
  std::string encoded2;
  parsed.EncodeTo(&encoded2);
  EXPECT_EQ(encoded, encoded2);
  EXPECT_EQ(edit.DebugString(), parsed.DebugString());
  EXPECT_EQ(12u, parsed.log_number());
  EXPECT_EQ(40u, parsed.next_file_number());
  EXPECT_EQ(kMaxSequenceNumber, parsed.last_sequence());
  ASSERT_EQ(3u, parsed.new_files().size());
  const FileMetaData& f = parsed.new_files()[2].second;
  EXPECT_EQ(2, parsed.new_files()[2].first);
  EXPECT_EQ(32u, f.number);
  EXPECT_EQ(3000u, f.file_size);
  EXPECT_EQ("a2", f.smallest.user_key().ToString());
  EXPECT_EQ("z2", f.largest.user_key().ToString());
  EXPECT_EQ(102u, f.smallest_seqno);
  EXPECT_EQ(202u, f.largest_seqno);
  EXPECT_EQ(2u, parsed.deleted_files().size());
}

TEST(VersionEditTest, EmptyEditDecodesToNothing) {
  VersionEdit parsed;
  ASSERT_OK(parsed.DecodeFrom(Slice()));
  EXPECT_FALSE(parsed.has_comparator());
  EXPECT_FALSE(parsed.has_log_number());
  EXPECT_TRUE(parsed.new_files().empty());
}

TEST(VersionEditTest, EveryTruncationIsCorruption) {
  std::string encoded;
  FullEdit().EncodeTo(&encoded);
  // Cutting inside a field must be reported; cutting exactly between fields
  // yields a shorter valid edit, which a record checksum guards against.
  int corrupt = 0;
  for (size_t len = 0; len < encoded.size(); len++) {
    VersionEdit parsed;
    Status s = parsed.DecodeFrom(Slice(encoded.data(), len));
    if (!s.ok()) {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      corrupt++;
    }
  }
  EXPECT_GT(corrupt, static_cast<int>(encoded.size()) / 2);
}

TEST(VersionEditTest, UnknownTagIsCorruptionUnlessSafeToIgnore) {
  std::string encoded;
  FullEdit().EncodeTo(&encoded);

  std::string unknown = encoded;
  PutVarint32(&unknown, 99);
  PutVarint64(&unknown, 1);
  VersionEdit parsed;
  Status s = parsed.DecodeFrom(unknown);
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(std::string::npos, s.message().find("unknown tag 99"));

  std::string ignorable = encoded;
  PutVarint32(&ignorable, (1u << 13) | 99);
  PutLengthPrefixedSlice(&ignorable, "future field");
  ASSERT_OK(parsed.DecodeFrom(ignorable));
  EXPECT_EQ(3u, parsed.new_files().size());
}

TEST(VersionEditTest, OutOfRangeLevelIsCorruption) {
  std::string encoded;
  PutVarint32(&encoded, 6);  // deleted file
  PutVarint32(&encoded, 1000);
  PutVarint64(&encoded, 5);
  VersionEdit parsed;
  EXPECT_TRUE(parsed.DecodeFrom(encoded).IsCorruption());
}

}  // namespace cascadedb

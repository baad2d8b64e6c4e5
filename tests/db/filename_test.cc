// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/filename.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace cascadedb {

TEST(FileNameTest, NumberedNamesArePaddedToSixDigits) {
  EXPECT_EQ("db/000012.log", WalFileName("db", 12));
  EXPECT_EQ("db/000012.sst", TableFileName("db", 12));
  EXPECT_EQ("db/000012.dbtmp", TempFileName("db", 12));
  EXPECT_EQ("db/000012.recycle", RecycledTableFileName("db", 12));
  EXPECT_EQ("db/MANIFEST-000007", ManifestFileName("db", 7));
  EXPECT_EQ("db/OPTIONS-000007", OptionsFileName("db", 7));
  EXPECT_EQ("000123.sst", TableFileBaseName(123));
}

TEST(FileNameTest, NumbersGrowWiderWhenNeeded) {
  EXPECT_EQ("db/12345678.sst", TableFileName("db", 12345678));
  EXPECT_EQ("db/18446744073709551615.log", WalFileName("db", UINT64_MAX));
}

TEST(FileNameTest, FixedNames) {
  EXPECT_EQ("db/CURRENT", CurrentFileName("db"));
  EXPECT_EQ("db/LOCK", LockFileName("db"));
  EXPECT_EQ("db/LOG", InfoLogFileName("db"));
  EXPECT_EQ("db/LOG.old", OldInfoLogFileName("db"));
}

TEST(FileNameTest, ParsesEveryNameWeWrite) {
  struct Case {
    std::string name;
    uint64_t number;
    FileType type;
  };
  const Case cases[] = {
      {"000100.log", 100, FileType::kWalFile},
      {"0.log", 0, FileType::kWalFile},
      {"000007.sst", 7, FileType::kTableFile},
      {"18446744073709551615.sst", UINT64_MAX, FileType::kTableFile},
      {"000009.dbtmp", 9, FileType::kTempFile},
      {"000011.recycle", 11, FileType::kRecycledTableFile},
      {"MANIFEST-000002", 2, FileType::kManifestFile},
      {"OPTIONS-000005", 5, FileType::kOptionsFile},
      {"CURRENT", 0, FileType::kCurrentFile},
      {"LOCK", 0, FileType::kLockFile},
      {"LOG", 0, FileType::kInfoLogFile},
      {"LOG.old", 0, FileType::kInfoLogFile},
  };
  for (const Case& c : cases) {
    uint64_t number = 99;
    FileType type = FileType::kLockFile;
    ASSERT_TRUE(ParseFileName(c.name, &number, &type)) << c.name;
    EXPECT_EQ(c.number, number) << c.name;
    EXPECT_TRUE(c.type == type) << c.name;
  }
}

TEST(FileNameTest, GeneratedNamesParseBack) {
  uint64_t number;
  FileType type;
  ASSERT_TRUE(ParseFileName(TableFileBaseName(4242), &number, &type));
  EXPECT_EQ(4242u, number);
  EXPECT_TRUE(type == FileType::kTableFile);
  const std::string manifest = ManifestFileName("dir", 77);
  ASSERT_TRUE(ParseFileName(manifest.substr(4), &number, &type));
  EXPECT_EQ(77u, number);
  EXPECT_TRUE(type == FileType::kManifestFile);
}

TEST(FileNameTest, RejectsForeignNames) {
  const char* const names[] = {
      "",
      "foo",
      "foo-dx-100.log",
      ".log",
      "100",
      "100.",
      "100.lop",
      "100.sst.bak",
      "100.sst.recycle",
      ".recycle",
      "MANIFEST",
      "MANIFEST-",
      "MANIFEST-3x",
      "XMANIFEST-3",
      "CURRENTX",
      "LOCK.old",
      "LOG.older",
      "OPTIONS-",
      "-1.log",
      "184467440737095516150.log",  // overflows uint64
  };
  for (const char* name : names) {
    uint64_t number;
    FileType type;
    EXPECT_FALSE(ParseFileName(name, &number, &type)) << name;
  }
}

}  // namespace cascadedb

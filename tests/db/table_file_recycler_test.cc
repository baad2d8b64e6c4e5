// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/table_file_recycler.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "cascadedb/env.h"
#include "db/filename.h"
#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace {

class TableFileRecyclerTest : public testing::Test {
 protected:
  TableFileRecyclerTest() : env_(Env::Default()) {}

  std::string Table(uint64_t number) const {
    return TableFileName(dir_.path(), number);
  }
  std::string Recycled(uint64_t number) const {
    return RecycledTableFileName(dir_.path(), number);
  }
  void MakeTable(uint64_t number, const std::string& contents) {
    ASSERT_OK(WriteStringToFile(env_, contents, Table(number)));
  }
  std::string Contents(const std::string& path) {
    std::string data;
    EXPECT_OK(ReadFileToString(env_, path, &data));
    return data;
  }
  static ino_t Inode(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
  }

  Env* const env_;
  test::TempDir dir_;
};

TEST_F(TableFileRecyclerTest, KeepsUpToItsBytesUnderTheRecycleName) {
  TableFileRecycler recycler(env_, dir_.path(), 1000);
  MakeTable(5, std::string(400, 't'));
  MakeTable(6, std::string(500, 't'));
  MakeTable(7, std::string(200, 't'));
  MakeTable(8, std::string(2000, 't'));
  MakeTable(9, std::string(100, 't'));
  Status s;
  EXPECT_TRUE(recycler.Keep(5, &s));
  EXPECT_OK(s);
  EXPECT_TRUE(recycler.Keep(6, &s));
  EXPECT_FALSE(recycler.Keep(7, &s));  // 1100 > 1000: the caller deletes it
  EXPECT_OK(s);
  EXPECT_FALSE(recycler.Keep(8, &s));  // larger than all of it
  EXPECT_TRUE(recycler.Keep(9, &s));   // exactly 1000
  EXPECT_EQ(3u, recycler.NumKept());
  EXPECT_EQ(1000u, recycler.KeptBytes());
  EXPECT_TRUE(env_->FileExists(Table(5)).IsNotFound());
  EXPECT_OK(env_->FileExists(Recycled(5)));
  EXPECT_OK(env_->FileExists(Recycled(6)));
  EXPECT_OK(env_->FileExists(Table(7)));  // not renamed
  EXPECT_TRUE(recycler.IsKept(5));
  EXPECT_TRUE(recycler.IsKept(6));
  EXPECT_FALSE(recycler.IsKept(7));
  // Taking one makes room again.
  std::unique_ptr<WritableFile> file;
  bool reused = false;
  ASSERT_OK(recycler.NewTableFile(Table(20), EnvOptions(), &file, &reused));
  EXPECT_TRUE(reused);
  ASSERT_OK(file->Close());
  EXPECT_EQ(600u, recycler.KeptBytes());
  EXPECT_TRUE(recycler.Keep(7, &s));
  EXPECT_EQ(800u, recycler.KeptBytes());
}

// A table linked elsewhere too (a checkpoint's hard link) is never written
// over: the other name would see the new bytes. It is deleted instead.
TEST_F(TableFileRecyclerTest, ATableWithAnotherLinkIsNotKept) {
  TableFileRecycler recycler(env_, dir_.path(), 1 << 20);
  MakeTable(5, "checkpointed table");
  const std::string other = dir_.File("checkpoint-000005.sst");
  ASSERT_EQ(0, ::link(Table(5).c_str(), other.c_str()));
  Status s;
  EXPECT_FALSE(recycler.Keep(5, &s));
  EXPECT_OK(s);
  EXPECT_OK(env_->FileExists(Table(5)));  // left for the caller to delete
  EXPECT_EQ(0u, recycler.NumKept());
  EXPECT_EQ("checkpointed table", Contents(other));
}

// An Env that cannot count links gets no table written over.
TEST_F(TableFileRecyclerTest, AnEnvThatCannotCountLinksKeepsNothing) {
  class NoLinkCountEnv : public EnvWrapper {
   public:
    NoLinkCountEnv() : EnvWrapper(Env::Default()) {}
    Status NumFileLinks(const std::string& f, uint64_t* count) override {
      return Env::NumFileLinks(f, count);  // the base: NotSupported
    }
  } env;
  TableFileRecycler recycler(&env, dir_.path(), 1 << 20);
  MakeTable(5, "table");
  Status s;
  EXPECT_FALSE(recycler.Keep(5, &s));
  EXPECT_OK(env_->FileExists(Table(5)));
}

TEST_F(TableFileRecyclerTest, AMissingTableIsNotKeptAndTheErrorSaysWhy) {
  TableFileRecycler recycler(env_, dir_.path(), 1 << 20);
  Status s;
  EXPECT_FALSE(recycler.Keep(9, &s));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string::npos, s.ToString().find("000009.sst")) << s.ToString();
  EXPECT_EQ(0u, recycler.NumKept());
}

TEST_F(TableFileRecyclerTest, NewTablesAreWrittenOverTheOldestKeptFile) {
  TableFileRecycler recycler(env_, dir_.path(), 1 << 20);
  MakeTable(5, std::string(50000, 'a'));
  MakeTable(6, std::string(50000, 'b'));
  const ino_t inode5 = Inode(Table(5));
  Status s;
  ASSERT_TRUE(recycler.Keep(5, &s));
  ASSERT_TRUE(recycler.Keep(6, &s));

  std::unique_ptr<WritableFile> file;
  bool reused = false;
  ASSERT_OK(recycler.NewTableFile(Table(10), EnvOptions(), &file, &reused));
  EXPECT_TRUE(reused);
  EXPECT_EQ(inode5, Inode(Table(10)));  // the same file, renamed
  EXPECT_TRUE(env_->FileExists(Recycled(5)).IsNotFound());
  EXPECT_FALSE(recycler.IsKept(5));
  EXPECT_TRUE(recycler.IsKept(6));
  // Shorter than the old contents: the sync cuts them, so a crash before
  // Close leaves the new table's bytes only.
  ASSERT_OK(file->Append("new table"));
  ASSERT_OK(file->Sync());
  EXPECT_EQ("new table", Contents(Table(10)));
  ASSERT_OK(file->Close());
  EXPECT_EQ("new table", Contents(Table(10)));

  ASSERT_OK(recycler.NewTableFile(Table(11), EnvOptions(), &file, &reused));
  EXPECT_TRUE(reused);
  ASSERT_OK(file->Close());
  EXPECT_EQ(0u, recycler.NumKept());

  // None kept: a fresh file.
  ASSERT_OK(recycler.NewTableFile(Table(12), EnvOptions(), &file, &reused));
  EXPECT_FALSE(reused);
  ASSERT_OK(file->Append("fresh"));
  ASSERT_OK(file->Close());
  EXPECT_EQ("fresh", Contents(Table(12)));
}

TEST_F(TableFileRecyclerTest, AKeptFileGoneFromDiskGivesAFreshFile) {
  TableFileRecycler recycler(env_, dir_.path(), 1 << 20);
  MakeTable(5, "old");
  Status s;
  ASSERT_TRUE(recycler.Keep(5, &s));
  ASSERT_OK(env_->RemoveFile(Recycled(5)));
  std::unique_ptr<WritableFile> file;
  bool reused = true;
  ASSERT_OK(recycler.NewTableFile(Table(10), EnvOptions(), &file, &reused));
  EXPECT_FALSE(reused);
  ASSERT_OK(file->Append("fresh"));
  ASSERT_OK(file->Close());
  EXPECT_EQ("fresh", Contents(Table(10)));
  EXPECT_EQ(0u, recycler.NumKept());
}

TEST_F(TableFileRecyclerTest, CloseHandsBackTheKeptFilesAndStopsKeeping) {
  TableFileRecycler recycler(env_, dir_.path(), 1 << 20);
  for (uint64_t n : {5, 6, 7}) MakeTable(n, "table");
  Status s;
  ASSERT_TRUE(recycler.Keep(5, &s));
  ASSERT_TRUE(recycler.Keep(6, &s));
  const std::vector<std::string> kept = recycler.Close();
  EXPECT_EQ((std::vector<std::string>{Recycled(5), Recycled(6)}), kept);
  EXPECT_EQ(0u, recycler.NumKept());
  EXPECT_EQ(0u, recycler.KeptBytes());
  EXPECT_FALSE(recycler.Keep(7, &s));
  EXPECT_OK(s);
  EXPECT_OK(env_->FileExists(Table(7)));
  // New tables are fresh files; the handed-back ones are left alone.
  std::unique_ptr<WritableFile> file;
  bool reused = true;
  ASSERT_OK(recycler.NewTableFile(Table(10), EnvOptions(), &file, &reused));
  EXPECT_FALSE(reused);
  ASSERT_OK(file->Close());
  EXPECT_OK(env_->FileExists(Recycled(5)));
}

}  // namespace
}  // namespace cascadedb

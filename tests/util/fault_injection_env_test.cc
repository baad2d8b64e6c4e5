// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/fault_injection_env.h"

#include <memory>
#include <string>

#include "cascadedb/env.h"
#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace {

class FaultInjectionEnvTest : public ::testing::Test {
 protected:
  // Creates path through the fault env, appends each piece, syncing after
  // the first synced_pieces of them, and closes it.
  void WriteFile(const std::string& path,
                 const std::vector<std::string>& pieces, size_t synced_pieces) {
    std::unique_ptr<WritableFile> file;
    ASSERT_OK(env_.NewWritableFile(path, &file, EnvOptions()));
    for (size_t i = 0; i < pieces.size(); i++) {
      ASSERT_OK(file->Append(pieces[i]));
      if (i < synced_pieces) {
        ASSERT_OK(file->Sync());
      }
    }
    ASSERT_OK(file->Close());
  }

  std::string Contents(const std::string& path) {
    std::string data;
    Status s = ReadFileToString(Env::Default(), path, &data);
    return s.ok() ? data : "<" + s.ToString() + ">";
  }

  bool Exists(const std::string& path) {
    return Env::Default()->FileExists(path).ok();
  }

  test::TempDir dir_;
  FaultInjectionEnv env_{Env::Default()};
};

// ---------------------------------------------------------------- power loss

TEST_F(FaultInjectionEnvTest, UnsyncedDataIsDropped) {
  const std::string path = dir_.File("000001.log");
  WriteFile(path, {"synced", " unsynced"}, 1);
  ASSERT_OK(env_.SyncDir(dir_.path()));
  EXPECT_EQ("synced unsynced", Contents(path));
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_EQ("synced", Contents(path));
}

// Reuse goes through this Env's rename and create: both are counted and
// tracked, and the file starts empty (its old bytes are not simulated).
TEST_F(FaultInjectionEnvTest, ReusedFileIsARenameAndACreate) {
  const std::string old_path = dir_.File("000001.log");
  const std::string path = dir_.File("000002.log");
  WriteFile(old_path, {"old log"}, 1);
  ASSERT_OK(env_.SyncDir(dir_.path()));
  const uint64_t renames = env_.OperationCount(FaultKind::kRename);
  const uint64_t creates = env_.OperationCount(FaultKind::kCreate);
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(env_.ReuseWritableFile(path, old_path, &file, EnvOptions()));
  EXPECT_EQ(renames + 1, env_.OperationCount(FaultKind::kRename));
  EXPECT_EQ(creates + 1, env_.OperationCount(FaultKind::kCreate));
  ASSERT_OK(file->Append("new"));
  ASSERT_OK(file->Close());
  EXPECT_EQ("new", Contents(path));
  EXPECT_FALSE(Exists(old_path));
  // The rename was not made durable: a power loss undoes it.
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_FALSE(Exists(path));
  EXPECT_TRUE(Exists(old_path));
}

TEST_F(FaultInjectionEnvTest, SyncedDataIsKept) {
  const std::string path = dir_.File("000001.log");
  WriteFile(path, {"one", "two"}, 2);
  ASSERT_OK(env_.SyncDir(dir_.path()));
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_EQ("onetwo", Contents(path));
}

TEST_F(FaultInjectionEnvTest, FsyncCountsAsSync) {
  const std::string path = dir_.File("f");
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(env_.NewWritableFile(path, &file, EnvOptions()));
  ASSERT_OK(env_.SyncDir(dir_.path()));
  ASSERT_OK(file->Append("durable"));
  ASSERT_OK(file->Fsync());
  ASSERT_OK(file->Append("lost"));
  ASSERT_OK(file->Close());
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_EQ("durable", Contents(path));
}

TEST_F(FaultInjectionEnvTest, FileCreatedAfterLastDirSyncIsRemoved) {
  const std::string old_file = dir_.File("old");
  const std::string new_file = dir_.File("new");
  WriteFile(old_file, {"a"}, 1);
  ASSERT_OK(env_.SyncDir(dir_.path()));
  WriteFile(new_file, {"b"}, 1);  // data synced, directory entry not
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_EQ("a", Contents(old_file));
  EXPECT_FALSE(Exists(new_file));
}

TEST_F(FaultInjectionEnvTest, DirSyncOfOtherDirectoryDoesNotCount) {
  const std::string sub = dir_.File("sub");
  ASSERT_OK(env_.CreateDirIfMissing(sub));
  WriteFile(sub + "/f", {"x"}, 1);
  ASSERT_OK(env_.SyncDir(dir_.path()));
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_FALSE(Exists(sub + "/f"));
}

TEST_F(FaultInjectionEnvTest, UnsyncedRenameIsUndone) {
  const std::string current = dir_.File("CURRENT");
  const std::string tmp = dir_.File("CURRENT.tmp");
  WriteFile(current, {"MANIFEST-1"}, 1);
  ASSERT_OK(env_.SyncDir(dir_.path()));
  WriteFile(tmp, {"MANIFEST-2"}, 1);
  ASSERT_OK(env_.RenameFile(tmp, current));
  EXPECT_EQ("MANIFEST-2", Contents(current));
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_EQ("MANIFEST-1", Contents(current));
  EXPECT_FALSE(Exists(tmp));  // its creation was not durable either
}

TEST_F(FaultInjectionEnvTest, RenameMovesBackWhenOnlyCreationWasDurable) {
  const std::string src = dir_.File("src");
  const std::string dst = dir_.File("dst");
  WriteFile(src, {"data"}, 1);
  ASSERT_OK(env_.SyncDir(dir_.path()));
  ASSERT_OK(env_.RenameFile(src, dst));
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_EQ("data", Contents(src));
  EXPECT_FALSE(Exists(dst));
}

TEST_F(FaultInjectionEnvTest, RenameFollowedByDirSyncIsKept) {
  const std::string current = dir_.File("CURRENT");
  const std::string tmp = dir_.File("CURRENT.tmp");
  WriteFile(current, {"MANIFEST-1"}, 1);
  WriteFile(tmp, {"MANIFEST-2"}, 1);
  ASSERT_OK(env_.RenameFile(tmp, current));
  ASSERT_OK(env_.SyncDir(dir_.path() + "/"));  // trailing slash is ignored
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_EQ("MANIFEST-2", Contents(current));
  EXPECT_FALSE(Exists(tmp));
}

TEST_F(FaultInjectionEnvTest, TrackingFollowsARenamedFile) {
  const std::string src = dir_.File("src");
  const std::string dst = dir_.File("dst");
  WriteFile(src, {"kept", "lost"}, 1);
  ASSERT_OK(env_.RenameFile(src, dst));
  ASSERT_OK(env_.SyncDir(dir_.path()));
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_EQ("kept", Contents(dst));
}

TEST_F(FaultInjectionEnvTest, AppendableFileKeepsItsEarlierContents) {
  const std::string path = dir_.File("log");
  ASSERT_OK(WriteStringToFile(Env::Default(), "before", path));
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(env_.NewAppendableFile(path, &file, EnvOptions()));
  ASSERT_OK(file->Append(" after"));
  ASSERT_OK(file->Close());
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_EQ("before", Contents(path));
}

TEST_F(FaultInjectionEnvTest, HandleFromBeforePowerLossFails) {
  const std::string path = dir_.File("f");
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(env_.NewWritableFile(path, &file, EnvOptions()));
  ASSERT_OK(env_.SyncDir(dir_.path()));
  ASSERT_OK(file->Append("a"));
  ASSERT_OK(file->Sync());
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_TRUE(file->Append("b").IsIOError());
  EXPECT_TRUE(file->Sync().IsIOError());
  file.reset();
  EXPECT_EQ("a", Contents(path));
}

TEST_F(FaultInjectionEnvTest, ResetStateMakesEverythingDurable) {
  const std::string path = dir_.File("f");
  WriteFile(path, {"not", "synced"}, 0);
  env_.ResetState();
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_EQ("notsynced", Contents(path));
}

// ---------------------------------------------------------------- faults

TEST_F(FaultInjectionEnvTest, NthWriteFailsExactlyOnce) {
  const std::string path = dir_.File("f");
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(env_.NewWritableFile(path, &file, EnvOptions()));
  env_.SetFailNthWrite(2);
  ASSERT_OK(file->Append("0"));
  ASSERT_OK(file->Append("1"));
  Status s = file->Append("2");
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ("injected write failure " + path, s.message());
  ASSERT_OK(file->Append("3"));
  ASSERT_OK(file->Append("4"));
  ASSERT_OK(file->Close());
  EXPECT_EQ("0134", Contents(path));  // the failed append had no effect
  EXPECT_EQ(1u, env_.InjectedFailureCount());
}

TEST_F(FaultInjectionEnvTest, NthSyncFailsExactlyOnce) {
  const std::string path = dir_.File("f");
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(env_.NewWritableFile(path, &file, EnvOptions()));
  ASSERT_OK(env_.SyncDir(dir_.path()));
  env_.SetFailNthSync(1);
  ASSERT_OK(file->Append("a"));
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->Append("b"));
  Status s = file->Sync();
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ("injected sync failure " + path, s.message());
  ASSERT_OK(file->Close());
  ASSERT_OK(env_.DropUnsyncedData());
  EXPECT_EQ("a", Contents(path));  // the failed sync made nothing durable
  EXPECT_OK(env_.SyncDir(dir_.path()));
}

TEST_F(FaultInjectionEnvTest, NthRenameFailsExactlyOnce) {
  const std::string a = dir_.File("a");
  const std::string b = dir_.File("b");
  const std::string c = dir_.File("c");
  WriteFile(a, {"x"}, 1);
  env_.SetFailNthRename(0);
  Status s = env_.RenameFile(a, b);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ("injected rename failure " + a, s.message());
  EXPECT_TRUE(Exists(a));
  EXPECT_FALSE(Exists(b));
  ASSERT_OK(env_.RenameFile(a, c));
  EXPECT_TRUE(Exists(c));
}

TEST_F(FaultInjectionEnvTest, NthCreateFailsExactlyOnce) {
  const std::string path = dir_.File("f");
  env_.SetFailNthCreate(0);
  std::unique_ptr<WritableFile> file;
  Status s = env_.NewWritableFile(path, &file, EnvOptions());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_FALSE(Exists(path));
  ASSERT_OK(env_.NewWritableFile(path, &file, EnvOptions()));
}

TEST_F(FaultInjectionEnvTest, FailAllFailsUntilTurnedOff) {
  const std::string path = dir_.File("f");
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(env_.NewWritableFile(path, &file, EnvOptions()));
  env_.SetFailAll(FaultKind::kWrite, true);
  for (int i = 0; i < 3; i++) EXPECT_TRUE(file->Append("x").IsIOError());
  ASSERT_OK(file->Sync());  // other kinds are unaffected
  env_.SetFailAll(FaultKind::kWrite, false);
  ASSERT_OK(file->Append("y"));
  ASSERT_OK(file->Close());
  EXPECT_EQ("y", Contents(path));
}

TEST_F(FaultInjectionEnvTest, ClearFaultsDisarmsEverything) {
  const std::string path = dir_.File("f");
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(env_.NewWritableFile(path, &file, EnvOptions()));
  env_.SetFailNthWrite(0);
  env_.SetFailAll(FaultKind::kSync, true);
  env_.SetFilesystemActive(false);
  env_.ClearFaults();
  EXPECT_TRUE(env_.IsFilesystemActive());
  ASSERT_OK(file->Append("a"));
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->Close());
}

TEST_F(FaultInjectionEnvTest, CountersCountEachKind) {
  const std::string a = dir_.File("a");
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(env_.NewWritableFile(a, &file, EnvOptions()));
  ASSERT_OK(file->Append("1"));
  ASSERT_OK(file->Append("2"));
  ASSERT_OK(file->Append("3"));
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->Fsync());
  ASSERT_OK(file->Close());
  ASSERT_OK(env_.NewAppendableFile(a, &file, EnvOptions()));
  ASSERT_OK(file->Close());
  ASSERT_OK(env_.RenameFile(a, dir_.File("b")));
  ASSERT_OK(env_.SyncDir(dir_.path()));
  EXPECT_EQ(3u, env_.OperationCount(FaultKind::kWrite));
  EXPECT_EQ(3u, env_.OperationCount(FaultKind::kSync));
  EXPECT_EQ(1u, env_.OperationCount(FaultKind::kRename));
  EXPECT_EQ(2u, env_.OperationCount(FaultKind::kCreate));
  env_.ResetCounters();
  EXPECT_EQ(0u, env_.OperationCount(FaultKind::kWrite));
}

// A small workload in the shape of a DB writing a table and installing it:
// create, append, sync, rename, sync the directory.
Status Workload(Env* env, const std::string& dir) {
  std::unique_ptr<WritableFile> file;
  Status s = env->NewWritableFile(dir + "/000005.tmp", &file, EnvOptions());
  for (int i = 0; s.ok() && i < 4; i++) s = file->Append("block");
  if (s.ok()) s = file->Sync();
  if (s.ok()) s = file->Close();
  if (s.ok()) s = env->RenameFile(dir + "/000005.tmp", dir + "/000005.sst");
  if (s.ok()) s = env->SyncDir(dir);
  return s;
}

TEST_F(FaultInjectionEnvTest, FailingEachOperationInTurnFailsTheWorkload) {
  ASSERT_OK(Workload(&env_, dir_.path()));
  for (int k = 0; k < kNumFaultKinds; k++) {
    const FaultKind kind = static_cast<FaultKind>(k);
    const uint64_t count = env_.OperationCount(kind);
    ASSERT_GT(count, 0u) << FaultKindName(kind);
    for (uint64_t i = 0; i < count; i++) {
      env_.SetFailNth(kind, i);
      env_.ResetCounters();
      Status s = Workload(&env_, dir_.path());
      EXPECT_TRUE(s.IsIOError()) << FaultKindName(kind) << " #" << i;
      EXPECT_EQ(1u, env_.InjectedFailureCount());
      // The workload stopped at the failure: nothing of that kind after it.
      EXPECT_EQ(i + 1, env_.OperationCount(kind));
    }
    env_.ResetCounters();
    ASSERT_OK(Workload(&env_, dir_.path()));  // one failure only, each time
  }
}

TEST_F(FaultInjectionEnvTest, InactiveFilesystemFailsEveryChange) {
  const std::string path = dir_.File("f");
  WriteFile(path, {"data"}, 1);
  std::unique_ptr<WritableFile> open_file;
  ASSERT_OK(env_.NewWritableFile(dir_.File("g"), &open_file, EnvOptions()));

  env_.SetFilesystemActive(false);
  EXPECT_FALSE(env_.IsFilesystemActive());
  std::unique_ptr<WritableFile> file;
  Status s = env_.NewWritableFile(dir_.File("h"), &file, EnvOptions());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("filesystem inactive"));
  EXPECT_TRUE(open_file->Append("x").IsIOError());
  EXPECT_TRUE(open_file->Flush().IsIOError());
  EXPECT_TRUE(open_file->Sync().IsIOError());
  EXPECT_TRUE(env_.RenameFile(path, dir_.File("r")).IsIOError());
  EXPECT_TRUE(env_.RemoveFile(path).IsIOError());
  EXPECT_TRUE(env_.SyncDir(dir_.path()).IsIOError());
  std::string data;
  ASSERT_OK(ReadFileToString(&env_, path, &data));  // reads still work
  EXPECT_EQ("data", data);

  env_.SetFilesystemActive(true);
  ASSERT_OK(open_file->Append("x"));
  ASSERT_OK(env_.RemoveFile(path));
}

}  // namespace
}  // namespace cascadedb

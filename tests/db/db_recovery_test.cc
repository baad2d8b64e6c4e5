// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Recovery: WAL recovery modes against torn and damaged WALs, a MANIFEST
// that lost its tail, missing and orphaned files, durability of synced
// writes when unsynced data is dropped (a simulated power loss), and
// recycled WALs after a crash.

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "db/filename.h"
#include "tests/testutil/env_wrappers.h"
#include "tests/testutil/test_util.h"
#include "util/fault_injection_env.h"

namespace cascadedb {
namespace {

class DBRecoveryTest : public testing::Test {
 protected:
  DBRecoveryTest() {
    options_.create_if_missing = true;
    options_.stats_dump_period_sec = 0;
  }

  Status TryOpen() {
    db_.reset();
    return DB::Open(options_, dir_.path(), &db_);
  }

  std::string Get(const std::string& key) {
    std::string value;
    Status s = db_->Get(ReadOptions(), key, &value);
    return s.ok() ? value : (s.IsNotFound() ? "NOT_FOUND" : s.ToString());
  }

  // The names of the files in the DB directory with the given suffix.
  std::vector<std::string> Files(const std::string& suffix) {
    return test::FilesWithSuffix(dir_.path(), suffix);
  }

  std::string ReadFile(const std::string& name) {
    std::string data;
    EXPECT_OK(ReadFileToString(Env::Default(), dir_.File(name), &data));
    return data;
  }
  void WriteFile(const std::string& name, const std::string& data) {
    ASSERT_OK(WriteStringToFile(Env::Default(), data, dir_.File(name)));
  }

  // The name of a WAL `ahead` numbers newer than the WAL named `wal`.
  std::string NewerWal(const std::string& wal, uint64_t ahead) {
    uint64_t number = 0;
    FileType type;
    EXPECT_TRUE(ParseFileName(wal, &number, &type)) << wal;
    EXPECT_EQ(FileType::kWalFile, type) << wal;
    return BaseName(WalFileName("", number + ahead));
  }

  int NumImmutableMemtables() {
    uint64_t n = 0;
    EXPECT_TRUE(db_->GetIntProperty("cascadedb.num-immutable-mem-table", &n));
    return static_cast<int>(n);
  }

  std::string CurrentManifest() {
    std::string current = ReadFile("CURRENT");
    if (!current.empty() && current.back() == '\n') current.pop_back();
    return current;
  }

  // Writes n values of ~10 KiB under key<i>, leaving them only in the WAL.
  void WriteToWal(int n) {
    ASSERT_OK(TryOpen());
    for (int i = 0; i < n; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), "key" + std::to_string(i),
                         std::string(10000, static_cast<char>('a' + i))));
    }
    db_.reset();
    ASSERT_EQ(1u, Files(".log").size());
  }

  test::TempDir dir_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(DBRecoveryTest, TornWalTailToleratedByDefaultOnly) {
  WriteToWal(5);
  const std::string wal = Files(".log")[0];
  std::string data = ReadFile(wal);
  WriteFile(wal, data.substr(0, data.size() - 100));  // cut the last record

  options_.wal_recovery_mode = WALRecoveryMode::kAbsoluteConsistency;
  Status s = TryOpen();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(wal)) << s.ToString();

  options_.wal_recovery_mode = WALRecoveryMode::kTolerateCorruptedTailRecords;
  ASSERT_OK(TryOpen());
  EXPECT_EQ(std::string(10000, 'a'), Get("key0"));
  EXPECT_EQ(std::string(10000, 'd'), Get("key3"));
  EXPECT_EQ("NOT_FOUND", Get("key4"));
}

// A crash right after a WAL switch can leave the new WAL holding nothing
// but reserved zeros (an mmap WAL reserves its first 64 KiB at creation).
// It holds no record, so the WAL before it is still the newest with data,
// and that one's torn tail is tolerated as before.
TEST_F(DBRecoveryTest, ZeroFilledNewestWalDoesNotHideATornTail) {
  WriteToWal(5);
  const std::string wal = Files(".log")[0];
  std::string data = ReadFile(wal);
  WriteFile(wal, data.substr(0, data.size() - 100));  // cut the last record
  const std::string newer = NewerWal(wal, 100);
  WriteFile(newer, std::string(64 << 10, '\0'));

  ASSERT_OK(TryOpen());
  EXPECT_EQ(std::string(10000, 'a'), Get("key0"));
  EXPECT_EQ(std::string(10000, 'd'), Get("key3"));
  EXPECT_EQ("NOT_FOUND", Get("key4"));
}

// The next WAL is made ahead of the switch that needs it, often over a
// recycled WAL: a crash before the switch leaves a newer WAL that starts
// with an older log's records. It holds none of its own, so the WAL
// before it is still the newest with data, and that one's torn tail is
// tolerated as before.
TEST_F(DBRecoveryTest, RecycledNewestWalNeverWrittenDoesNotHideATornTail) {
  WriteToWal(5);
  const std::string wal = Files(".log")[0];
  std::string data = ReadFile(wal);
  ASSERT_GT(data.size(), 11u);
  ASSERT_EQ(5, data[6]) << "a recyclable FULL fragment, with a log number";
  const std::string newer = NewerWal(wal, 100);
  WriteFile(newer, data);  // the older log's records, as recycled
  WriteFile(wal, data.substr(0, data.size() - 100));  // cut the last record

  ASSERT_OK(TryOpen());
  EXPECT_EQ(std::string(10000, 'a'), Get("key0"));
  EXPECT_EQ(std::string(10000, 'd'), Get("key3"));
  EXPECT_EQ("NOT_FOUND", Get("key4"));
}

// A newest WAL shorter than a record header, not zeros, is read (a torn
// first header: the default mode drops it), not looked into past its end
// (found by db_open_fuzzer: an assertion in the header's check).
TEST_F(DBRecoveryTest, NewestWalShorterThanAHeaderIsATornTail) {
  WriteToWal(5);
  const std::string wal = Files(".log")[0];
  const std::string newer = NewerWal(wal, 100);
  WriteFile(newer, std::string("\x11\xff\xff", 3));

  ASSERT_OK(TryOpen());
  EXPECT_EQ(std::string(10000, 'a'), Get("key0"));
  EXPECT_EQ(std::string(10000, 'e'), Get("key4"));
}

TEST_F(DBRecoveryTest, DamagedWalMiddleByMode) {
  WriteToWal(8);
  const std::string wal = Files(".log")[0];
  std::string data = ReadFile(wal);
  // Damage the payload of the second record (records are ~10 KiB).
  data[15000] ^= 0x40;
  WriteFile(wal, data);

  options_.wal_recovery_mode = WALRecoveryMode::kTolerateCorruptedTailRecords;
  Status s = TryOpen();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("offset")) << s.ToString();

  options_.wal_recovery_mode = WALRecoveryMode::kAbsoluteConsistency;
  EXPECT_TRUE(TryOpen().IsCorruption());

  // Point in time: everything before the damage, nothing after.
  {
    test::TempDir copy;
    for (const std::string& f : Files("")) {
      if (f == "LOCK") continue;
      ASSERT_OK(WriteStringToFile(Env::Default(), ReadFile(f), copy.File(f)));
    }
    options_.wal_recovery_mode = WALRecoveryMode::kPointInTimeRecovery;
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, copy.path(), &db));
    std::string v;
    EXPECT_OK(db->Get(ReadOptions(), "key0", &v));
    EXPECT_TRUE(db->Get(ReadOptions(), "key1", &v).IsNotFound());
    EXPECT_TRUE(db->Get(ReadOptions(), "key7", &v).IsNotFound());
  }

  // Skip: everything but the damaged record.
  options_.wal_recovery_mode = WALRecoveryMode::kSkipAnyCorruptedRecords;
  ASSERT_OK(TryOpen());
  EXPECT_EQ(std::string(10000, 'a'), Get("key0"));
  EXPECT_EQ("NOT_FOUND", Get("key1"));
  EXPECT_EQ(std::string(10000, 'h'), Get("key7"));
}

TEST_F(DBRecoveryTest, ManifestThatLostItsTailIsCorruption) {
  ASSERT_OK(TryOpen());
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  const std::string manifest = CurrentManifest();
  const std::string before_flush = ReadFile(manifest);
  ASSERT_OK(db_->Flush(FlushOptions()));  // logs an edit, deletes the WAL
  db_.reset();
  ASSERT_GT(ReadFile(manifest).size(), before_flush.size());
  WriteFile(manifest, before_flush);  // the flush's edit is lost

  Status s = TryOpen();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(".log")) << s.ToString();

  // Without paranoid checks the DB opens (and the flushed data is in the
  // orphaned SST, which is then garbage: this is what paranoid_checks is
  // for).
  options_.paranoid_checks = false;
  EXPECT_OK(TryOpen());
}

TEST_F(DBRecoveryTest, MissingTableIsCorruptionNamingIt) {
  ASSERT_OK(TryOpen());
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  db_.reset();
  const std::vector<std::string> ssts = Files(".sst");
  ASSERT_EQ(1u, ssts.size());
  ASSERT_OK(Env::Default()->RemoveFile(dir_.File(ssts[0])));
  Status s = TryOpen();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(ssts[0])) << s.ToString();
}

TEST_F(DBRecoveryTest, OrphanTablesAreDeletedAtOpen) {
  ASSERT_OK(TryOpen());
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  db_.reset();
  WriteFile("000999.sst", "left behind by a crashed compaction");
  ASSERT_OK(TryOpen());
  EXPECT_EQ("1", Get("a"));
  EXPECT_TRUE(Env::Default()->FileExists(dir_.File("000999.sst")).IsNotFound());
}

TEST_F(DBRecoveryTest, BadCurrentFileIsCorruption) {
  ASSERT_OK(TryOpen());
  db_.reset();
  WriteFile("CURRENT", "MANIFEST-000777\n");
  Status s = TryOpen();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string::npos, s.ToString().find("MANIFEST-000777"))
      << s.ToString();
}

TEST_F(DBRecoveryTest, SyncedWritesSurvivePowerLoss) {
  FaultInjectionEnv env(Env::Default());
  test::CloseDBFirst close_first{&db_, nullptr};
  options_.env = &env;
  options_.write_buffer_size = 32 << 10;  // several WAL switches
  ASSERT_OK(TryOpen());
  WriteOptions sync;
  sync.sync = true;
  for (int i = 0; i < 400; ++i) {
    ASSERT_OK(db_->Put(WriteOptions(), "u" + std::to_string(i),
                       std::string(300, 'u')));
    if (i % 50 == 49) {
      ASSERT_OK(db_->Put(sync, "s" + std::to_string(i), "synced"));
    }
  }
  // Power loss: drop everything not synced, then reopen.
  env.SetFilesystemActive(false);
  db_.reset();
  ASSERT_OK(env.DropUnsyncedData());
  env.ClearFaults();
  ASSERT_OK(TryOpen());
  for (int i = 49; i < 400; i += 50) {
    EXPECT_EQ("synced", Get("s" + std::to_string(i))) << i;
    // Everything before a synced write is durable too (WAL order).
    EXPECT_EQ(std::string(300, 'u'), Get("u" + std::to_string(i)));
  }
  db_.reset();
}

// Flush's data is durable when it returns: the table, its directory entry
// and the MANIFEST edit that names it, with nothing synced after.
TEST_F(DBRecoveryTest, FlushedDataSurvivesPowerLoss) {
  FaultInjectionEnv env(Env::Default());
  // The DB goes before env, even on failure.
  test::CloseDBFirst close_first{&db_, nullptr};
  options_.env = &env;
  ASSERT_OK(TryOpen());
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 100; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), "k" + std::to_string(i),
                         "v" + std::to_string(round)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  env.SetFilesystemActive(false);
  db_.reset();
  ASSERT_OK(env.DropUnsyncedData());
  env.ClearFaults();
  ASSERT_OK(TryOpen());
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ("v2", Get("k" + std::to_string(i))) << i;
  }
}

// The older WAL of a memtable that is not flushed yet holds the only copy
// of its writes: a synced write to the newer WAL must sync it too before
// it is acknowledged, or a power loss takes them.
TEST_F(DBRecoveryTest, SyncedWriteSyncsTheOlderWalOfAnUnflushedMemtable) {
  FaultInjectionEnv fault(Env::Default());
  test::TableGateEnv env(&fault, {1});  // the first flush's table
  // Even on failure: the held flush is let go, then the DB goes before
  // the Envs.
  test::CloseDBFirst close_first{&db_, [&env] { env.ReleaseAll(); }};
  options_.env = &env;
  options_.write_buffer_size = 64 << 10;
  options_.disable_auto_compactions = true;
  ASSERT_OK(TryOpen());
  // Up to one memtable switch (a second WAL): that memtable's flush is
  // held, and the writes stop short of filling the next one.
  int n = 0;
  for (; n < 400 && NumImmutableMemtables() == 0; ++n) {
    ASSERT_OK(db_->Put(WriteOptions(), "u" + std::to_string(n),
                       std::string(300, 'u')));
  }
  ASSERT_EQ(1, NumImmutableMemtables());
  for (int i = 0; i < 1000 && !env.Holding(1); ++i) {
    Env::Default()->SleepForMicroseconds(10000);
  }
  ASSERT_TRUE(env.Holding(1)) << "no flush started";
  WriteOptions sync;
  sync.sync = true;
  ASSERT_OK(db_->Put(sync, "s", "synced"));
  // Power loss while the flush is still held.
  fault.SetFilesystemActive(false);
  env.ReleaseAll();
  db_.reset();
  ASSERT_OK(fault.DropUnsyncedData());
  fault.ClearFaults();
  ASSERT_OK(TryOpen());
  EXPECT_EQ("synced", Get("s"));
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(std::string(300, 'u'), Get("u" + std::to_string(i))) << i;
  }
}

// A process killed with SIGKILL mid-write loses no acknowledged write, with
// the WAL written through write(2) or through a shared mapping (the
// default): both leave the bytes in the page cache before the ack. The
// writer is this test binary run again (a fresh process, so its background
// threads exist) with CRASH_CHILD_* in its environment, running only
// KilledProcessWriter. It is a plain TEST, not a DBRecoveryTest: the
// fixture's temporary directory would outlive the killed process.
// ---------------------------------------------------------------- recycling

// The inode of path (0 if it cannot be read).
uint64_t Inode(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
}

// A crash image: every file of dir copied, as they are, into copy (the
// page cache holds what a killed process wrote, mmap writes included). A
// file renamed while the files are read (the next WAL made ahead over a
// kept one) has the directory listed again.
void CopyFiles(const std::string& dir, const std::string& copy) {
  for (int attempt = 0; attempt < 10; ++attempt) {
    std::vector<std::string> children;
    ASSERT_OK(Env::Default()->GetChildren(dir, &children));
    std::map<std::string, std::string> files;
    bool renamed = false;
    for (const std::string& c : children) {
      if (c == "LOCK") continue;
      Status s = ReadFileToString(Env::Default(), dir + "/" + c, &files[c]);
      if (s.IsNotFound()) {
        renamed = true;
        break;
      }
      ASSERT_OK(s);
    }
    if (renamed) continue;
    for (const auto& f : files) {
      ASSERT_OK(
          WriteStringToFile(Env::Default(), f.second, copy + "/" + f.first));
    }
    return;
  }
  FAIL() << "the files of " << dir << " kept changing";
}

TEST_F(DBRecoveryTest, ObsoleteWalIsWrittenOverAsTheNextWal) {
  options_.recycle_log_file_num = 1;
  ASSERT_OK(TryOpen());
  std::map<std::string, std::string> expected;
  uint64_t kept_inode = 0;
  int recycled = 0;
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 50; ++i) {
      const std::string key =
          "r" + std::to_string(round) + "k" + std::to_string(i);
      expected[key] =
          std::string(500 + 37 * round, static_cast<char>('a' + i % 26));
      ASSERT_OK(db_->Put(WriteOptions(), key, expected[key]));
    }
    ASSERT_OK(db_->WaitForCompact());  // the next WAL made ahead
    const std::vector<std::string> before = Files(".log");
    ASSERT_LE(2u, before.size());
    ASSERT_OK(db_->Flush(FlushOptions()));  // a new WAL; the old one kept
    // Flush returns once the table is installed; the flush keeps the old
    // WAL after that, and the WAL after the new one is made ahead.
    ASSERT_OK(db_->WaitForCompact());
    const std::vector<std::string> after = Files(".log");
    ASSERT_EQ(3u, after.size()) << "one WAL kept, the live one, the next";
    EXPECT_EQ(before[before.size() - 2], after[0]) << "the flushed WAL kept";
    EXPECT_EQ(before.back(), after[1]) << "the next WAL is the live one";
    // The WAL made ahead is the file kept at the last flush.
    const std::string newest = dir_.File(after.back());
    if (kept_inode != 0 && Inode(newest) == kept_inode) ++recycled;
    kept_inode = Inode(dir_.File(after.front()));
  }
  EXPECT_EQ(4, recycled);
  ASSERT_OK(TryOpen());  // closed: the kept WAL is deleted with it
  db_.reset();
  EXPECT_EQ(1u, Files(".log").size());
  ASSERT_OK(TryOpen());
  for (const auto& kv : expected)
    EXPECT_EQ(kv.second, Get(kv.first)) << kv.first;
}

// A crash image of an open DB, its next WAL made ahead over a recycled
// one, opens with every write, the live WAL's torn tail tolerated.
TEST_F(DBRecoveryTest, CrashImageWithTheNextWalMadeAheadOpens) {
  options_.recycle_log_file_num = 2;
  ASSERT_OK(TryOpen());
  std::map<std::string, std::string> expected;
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 30; ++i) {
      const std::string key =
          "r" + std::to_string(round) + "k" + std::to_string(i);
      expected[key] = std::string(700 + i, static_cast<char>('a' + round));
      ASSERT_OK(db_->Put(WriteOptions(), key, expected[key]));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    ASSERT_OK(db_->WaitForCompact());
  }
  for (int i = 0; i < 30; ++i) {
    const std::string key = "live" + std::to_string(i);
    expected[key] = std::string(700 + i, 'z');
    ASSERT_OK(db_->Put(WriteOptions(), key, expected[key]));
  }
  const std::vector<std::string> wals = Files(".log");
  ASSERT_EQ(3u, wals.size()) << "one kept, the live one, the next";
  const std::string next = ReadFile(wals[2]);
  ASSERT_GT(next.size(), 11u);
  EXPECT_EQ(5, next[6]) << "the next WAL is a recycled one";
  test::TempDir copy;
  CopyFiles(dir_.path(), copy.path());
  // The last write torn.
  const std::string live = copy.File(wals[1]);
  std::string data;
  ASSERT_OK(ReadFileToString(Env::Default(), live, &data));
  const std::string last = "live29";
  const size_t at = data.rfind(last);
  ASSERT_NE(std::string::npos, at);
  ASSERT_OK(WriteStringToFile(Env::Default(), data.substr(0, at + 200), live));
  expected.erase(last);
  db_.reset();

  std::unique_ptr<DB> db;
  Options o = options_;
  ASSERT_OK(DB::Open(o, copy.path(), &db));
  for (const auto& kv : expected) {
    std::string value;
    ASSERT_OK(db->Get(ReadOptions(), kv.first, &value)) << kv.first;
    EXPECT_EQ(kv.second, value) << kv.first;
  }
  std::string value;
  EXPECT_TRUE(db->Get(ReadOptions(), last, &value).IsNotFound());
}

TEST_F(DBRecoveryTest, NoWalIsKeptWhenRecyclingIsOffOrAbsolute) {
  for (int variant = 0; variant < 2; ++variant) {
    options_.recycle_log_file_num = variant == 0 ? 0 : 4;
    options_.wal_recovery_mode =
        variant == 0 ? WALRecoveryMode::kTolerateCorruptedTailRecords
                     : WALRecoveryMode::kAbsoluteConsistency;
    ASSERT_OK(TryOpen());
    for (int round = 0; round < 3; ++round) {
      ASSERT_OK(db_->Put(WriteOptions(), "k" + std::to_string(round), "v"));
      ASSERT_OK(db_->Flush(FlushOptions()));
      ASSERT_OK(db_->WaitForCompact());  // the old WAL removed
      EXPECT_EQ(2u, Files(".log").size())
          << variant << ": the live WAL and the next, made ahead";
    }
    // And the WAL has no log numbers in its headers.
    ASSERT_OK(db_->Put(WriteOptions(), "last", "v"));
    const std::string wal = ReadFile(Files(".log")[0]);
    ASSERT_GT(wal.size(), 7u);
    EXPECT_EQ(1, wal[6]) << "a FULL fragment without a log number";
  }
}

// A DB whose WAL was written over an older one (recycling, the default)
// and then closed cleanly opens under kAbsoluteConsistency with every
// write: a clean end of such a WAL is followed by the older log's bytes.
TEST_F(DBRecoveryTest, ARecycledWalClosedCleanlyOpensUnderAbsoluteConsistency) {
  options_.recycle_log_file_num = 2;
  ASSERT_OK(TryOpen());
  std::map<std::string, std::string> expected;
  for (int round = 0; round < 4; ++round) {
    // Shorter records each round, so the last log ends amid an older one's.
    for (int i = 0; i < 40; ++i) {
      const std::string key =
          "r" + std::to_string(round) + "k" + std::to_string(i);
      expected[key] =
          std::string(900 - 150 * round + i, static_cast<char>('a' + round));
      ASSERT_OK(db_->Put(WriteOptions(), key, expected[key]));
    }
    if (round < 3) {
      ASSERT_OK(db_->Flush(FlushOptions()));
      ASSERT_OK(db_->WaitForCompact());
    }
  }
  db_.reset();
  options_.wal_recovery_mode = WALRecoveryMode::kAbsoluteConsistency;
  ASSERT_OK(TryOpen());
  for (const auto& kv : expected) {
    EXPECT_EQ(kv.second, Get(kv.first)) << kv.first;
  }
}

// Holds the creation of tables (flush outputs) while held.
class HeldTablesEnv : public EnvWrapper {
 public:
  HeldTablesEnv() : EnvWrapper(Env::Default()) {}
  Status NewWritableFile(const std::string& fname,
                         std::unique_ptr<WritableFile>* result,
                         const EnvOptions& options) override {
    if (test::EndsWith(fname, ".sst")) {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return !held_; });
    }
    return target()->NewWritableFile(fname, result, options);
  }
  void Hold(bool held) {
    std::lock_guard<std::mutex> l(mu_);
    held_ = held;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
};

// A crash while two recycled WALs are live: the older one (its memtable
// not flushed yet) and the newest, both written over longer old logs whose
// bytes still follow their last records. Every acknowledged write comes
// back, with the default recovery mode (which fails Open on a damaged end
// of any WAL but the newest).
TEST_F(DBRecoveryTest, CrashWithRecycledWalsLosesNothing) {
  HeldTablesEnv env;
  options_.env = &env;
  options_.recycle_log_file_num = 2;
  options_.write_buffer_size = 4 << 20;
  options_.max_write_buffer_number = 4;
  ASSERT_OK(TryOpen());
  std::map<std::string, std::string> expected;
  auto put = [&](const std::string& key, size_t size) {
    expected[key] = std::string(size, key.back());
    ASSERT_OK(db_->Put(WriteOptions(), key, expected[key]));
  };
  // Two long WALs, flushed: both kept.
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 400; ++i)
      put("old" + std::to_string(round) + "-" + std::to_string(i), 1000);
    ASSERT_OK(db_->Flush(FlushOptions()));
    ASSERT_OK(db_->WaitForCompact());  // the flushed WAL kept
  }
  // Now the WAL written over the first kept one gets a few records of
  // other sizes, and is switched away from with its flush held.
  env.Hold(true);
  for (int i = 0; i < 37; ++i) put("older" + std::to_string(i), 777);
  FlushOptions no_wait;
  no_wait.wait = false;
  ASSERT_OK(db_->Flush(no_wait));
  // The newest WAL (the second kept file) gets a few records too.
  for (int i = 0; i < 23; ++i) put("newest" + std::to_string(i), 555);

  test::TempDir copy, repaired;
  CopyFiles(dir_.path(), copy.path());
  CopyFiles(dir_.path(), repaired.path());
  env.Hold(false);
  db_.reset();

  // Opened, and repaired (RepairDB reads the WALs too) then opened.
  Options plain = options_;
  plain.env = Env::Default();
  ASSERT_OK(RepairDB(repaired.path(), plain));
  for (const std::string& path : {copy.path(), repaired.path()}) {
    SCOPED_TRACE(path);
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(plain, path, &db));
    for (const auto& kv : expected) {
      std::string value;
      ASSERT_OK(db->Get(ReadOptions(), kv.first, &value)) << kv.first;
      EXPECT_EQ(kv.second, value) << kv.first;
    }
  }
}

// With the default recycle_log_file_num, two WALs that go obsolete before
// the next switch (two memtables flushed in a row, as when writes wait at
// the memtable limit) are both kept, and the next two WALs are written
// over them. With room for one, the second would be deleted.
TEST_F(DBRecoveryTest, DefaultsKeepTwoWalsThatGoObsoleteTogether) {
  HeldTablesEnv env;
  // Even on failure: the held flushes are let go, then the DB goes before
  // the Env.
  test::CloseDBFirst close_first{&db_, [&env] { env.Hold(false); }};
  options_.env = &env;
  options_.max_write_buffer_number = 4;  // two memtables wait, unstalled
  ASSERT_OK(TryOpen());
  // Open made the live WAL and the next one: the two whose memtables'
  // flushes are held below.
  const std::vector<std::string> first = Files(".log");
  ASSERT_EQ(2u, first.size()) << "the live WAL and the next, made ahead";
  const std::set<uint64_t> kept = {Inode(dir_.File(first[0])),
                                   Inode(dir_.File(first[1]))};
  env.Hold(true);
  FlushOptions no_wait;
  no_wait.wait = false;
  for (int round = 0; round < 2; ++round) {
    ASSERT_OK(db_->Put(WriteOptions(), "held" + std::to_string(round), "v"));
    ASSERT_OK(db_->Flush(no_wait));  // a new WAL; the flush is held
  }
  env.Hold(false);
  ASSERT_OK(db_->WaitForCompact());
  // Both went obsolete when the flushes ended. Kept, each is written over
  // by a later WAL (under a new name): when, depends on whether the second
  // switch came before the held flush made the next WAL.
  std::set<uint64_t> reused;
  for (int round = 0; round <= 2; ++round) {
    for (const std::string& name : Files(".log")) {
      if (name != first[0] && name != first[1]) {
        reused.insert(Inode(dir_.File(name)));
      }
    }
    if (round == 2) break;
    ASSERT_OK(db_->Put(WriteOptions(), "next" + std::to_string(round), "v"));
    ASSERT_OK(db_->Flush(FlushOptions()));
    ASSERT_OK(db_->WaitForCompact());
  }
  for (uint64_t inode : kept) EXPECT_EQ(1u, reused.count(inode)) << inode;
  ASSERT_OK(TryOpen());
  for (const char* key : {"held0", "held1", "next0", "next1"}) {
    EXPECT_EQ("v", Get(key)) << key;
  }
}

TEST(DBRecoveryChild, KilledProcessWriter) {
  const char* dir = std::getenv("CRASH_CHILD_DIR");
  if (dir == nullptr) GTEST_SKIP() << "run by AcknowledgedWritesSurvive...";
  const int fd = std::atoi(std::getenv("CRASH_CHILD_FD"));
  Options options;
  options.create_if_missing = true;
  options.stats_dump_period_sec = 0;
  options.allow_mmap_writes = std::getenv("CRASH_CHILD_MMAP")[0] == '1';
  options.recycle_log_file_num = std::getenv("CRASH_CHILD_RECYCLE")[0] == '1';
  options.write_buffer_size = 256 << 10;  // several WALs and flushes
  std::unique_ptr<DB> db;
  if (!DB::Open(options, dir, &db).ok()) ::_exit(2);
  for (uint32_t i = 0;; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%08u", i);
    if (!db->Put(WriteOptions(), key, std::string(100, 'v')).ok()) ::_exit(3);
    if (::write(fd, &i, sizeof(i)) != sizeof(i)) ::_exit(4);
  }
}

TEST_F(DBRecoveryTest, AcknowledgedWritesSurviveAKilledProcess) {
  if (std::getenv("CRASH_CHILD_DIR") != nullptr) GTEST_SKIP();
  for (int variant = 0; variant < 3; ++variant) {
    // Recycled WALs (the default) through mmap and write(2), and fresh
    // ones through mmap.
    const bool mmap_writes = variant != 1;
    const bool recycle = variant != 2;
    SCOPED_TRACE(std::string(mmap_writes ? "mmap WAL" : "write(2) WAL") +
                 (recycle ? ", recycled" : ", fresh"));
    test::TempDir dir;
    int pipe_fds[2];
    ASSERT_EQ(0, ::pipe(pipe_fds));
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(pipe_fds[0]);
      ::setenv("CRASH_CHILD_DIR", dir.path().c_str(), 1);
      ::setenv("CRASH_CHILD_FD", std::to_string(pipe_fds[1]).c_str(), 1);
      ::setenv("CRASH_CHILD_MMAP", mmap_writes ? "1" : "0", 1);
      ::setenv("CRASH_CHILD_RECYCLE", recycle ? "1" : "0", 1);
      ::execl("/proc/self/exe", "db_recovery_test",
              "--gtest_filter=DBRecoveryChild.KilledProcessWriter",
              static_cast<char*>(nullptr));
      ::_exit(5);
    }
    ::close(pipe_fds[1]);
    // Let it write a while (until 50000 acks, or it stops acking for 10 s),
    // then kill it without warning.
    uint32_t acked = 0;
    int count = 0;
    while (count < 50000) {
      struct pollfd p = {pipe_fds[0], POLLIN, 0};
      if (::poll(&p, 1, 10000) <= 0) break;
      uint32_t v;
      if (::read(pipe_fds[0], &v, sizeof(v)) != sizeof(v)) break;
      acked = v;
      count++;
    }
    ::kill(pid, SIGKILL);
    // Take what the child acknowledged before it died.
    uint32_t v;
    while (::read(pipe_fds[0], &v, sizeof(v)) == sizeof(v)) {
      acked = v;
      count++;
    }
    ::close(pipe_fds[0]);
    int status = 0;
    ASSERT_EQ(pid, ::waitpid(pid, &status, 0));
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited " << WEXITSTATUS(status);
    ASSERT_GE(count, 50000) << "the child stopped writing";

    options_.allow_mmap_writes = mmap_writes;
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, dir.path(), &db));
    for (uint32_t i = 0; i <= acked; ++i) {
      char key[16];
      std::snprintf(key, sizeof(key), "k%08u", i);
      std::string value;
      ASSERT_OK(db->Get(ReadOptions(), key, &value)) << key << " of " << acked;
      ASSERT_EQ(std::string(100, 'v'), value);
    }
  }
}

TEST_F(DBRecoveryTest, FailedWalWriteStopsWrites) {
  FaultInjectionEnv env(Env::Default());
  test::CloseDBFirst close_first{&db_, nullptr};
  options_.env = &env;
  options_.writable_file_max_buffer_size = 0;  // every append is a write
  ASSERT_OK(TryOpen());
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  env.SetFailAll(FaultKind::kWrite, true);
  EXPECT_FALSE(db_->Put(WriteOptions(), "b", "2").ok());
  env.SetFailAll(FaultKind::kWrite, false);
  // The WAL may hold half a record: the DB refuses writes until reopened.
  EXPECT_FALSE(db_->Put(WriteOptions(), "c", "3").ok());
  EXPECT_EQ("1", Get("a"));
  db_.reset();
  ASSERT_OK(TryOpen());
  EXPECT_EQ("1", Get("a"));
  EXPECT_EQ("NOT_FOUND", Get("c"));
  db_.reset();
}

}  // namespace
}  // namespace cascadedb

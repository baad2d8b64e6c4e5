// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Crash at every step: a workload of synced writes and deletions with
// flushes and compactions runs on a FaultInjectionEnv that fails the n-th
// write, sync, rename or file creation (for every n up to the workload's
// total), then power is cut (unsynced data dropped) and the DB reopened.
// Every write acknowledged with sync=true must be there, and no key whose
// deletion was acknowledged with sync=true may come back.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "tests/testutil/test_util.h"
#include "util/fault_injection_env.h"

namespace cascadedb {
namespace {

struct Outcome {
  // key -> value ("" = deleted) for every acknowledged synced operation.
  std::map<std::string, std::string> acked;
};

Options FaultOptions(Env* env) {
  Options options;
  options.env = env;
  options.create_if_missing = true;
  options.write_buffer_size = 16 << 10;
  options.target_file_size_base = 16 << 10;
  options.max_bytes_for_level_base = 64 << 10;
  options.level0_file_num_compaction_trigger = 2;
  options.stats_dump_period_sec = 0;
  options.writable_file_max_buffer_size = 4096;
  options.max_manifest_file_size = 4096;  // MANIFEST switches: renames
  return options;
}

// Runs the workload until the first failure; records what was acked.
void RunWorkload(DB* db, Outcome* out) {
  WriteOptions sync;
  sync.sync = true;
  for (int i = 0; i < 1200; ++i) {
    const std::string key = "k" + std::to_string(i % 150);
    Status s;
    std::string value;
    if (i % 7 == 3) {
      s = db->Delete(sync, key);
    } else {
      value =
          std::string(100, static_cast<char>('a' + i % 26)) + std::to_string(i);
      s = db->Put(sync, key, value);
    }
    if (!s.ok()) return;
    out->acked[key] = value;
    if (i % 100 == 99 && !db->Flush(FlushOptions()).ok()) return;
  }
  db->WaitForCompact().IgnoreError();  // failures are the point here
}

void CheckRecovered(DB* db, const Outcome& outcome, const std::string& label) {
  for (const auto& [key, value] : outcome.acked) {
    std::string got;
    Status s = db->Get(ReadOptions(), key, &got);
    if (value.empty()) {
      ASSERT_TRUE(s.IsNotFound())
          << label << ": deleted key " << key << " came back: " << s.ToString();
    } else {
      ASSERT_OK(s) << label << ": key " << key;
      ASSERT_EQ(value, got) << label << ": key " << key;
    }
  }
}

class DBFaultTest : public testing::TestWithParam<FaultKind> {};

TEST_P(DBFaultTest, CrashAtEveryStepKeepsSyncedWrites) {
  const FaultKind kind = GetParam();
  // Count the operations of this kind in a clean run.
  uint64_t total = 0;
  {
    test::TempDir dir;
    FaultInjectionEnv env(Env::Default());
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(FaultOptions(&env), dir.path(), &db));
    db.reset();
    env.ResetCounters();  // count from the reopen on
    ASSERT_OK(DB::Open(FaultOptions(&env), dir.path(), &db));
    Outcome outcome;
    RunWorkload(db.get(), &outcome);
    total = env.OperationCount(kind);
  }
  ASSERT_GT(total, 0u);
  // Crash points: every one for small totals, else an even spread of 25.
  const uint64_t step = total <= 25 ? 1 : total / 25;
  for (uint64_t n = 1; n <= total; n += step) {
    test::TempDir dir;
    FaultInjectionEnv env(Env::Default());
    Outcome outcome;
    {
      std::unique_ptr<DB> db;
      ASSERT_OK(DB::Open(FaultOptions(&env), dir.path(), &db));
      db.reset();
      env.ResetCounters();
      env.SetFailNth(kind, n);
      // The reopen itself may be where the failure lands.
      if (DB::Open(FaultOptions(&env), dir.path(), &db).ok()) {
        RunWorkload(db.get(), &outcome);
      }
      // Power loss: freeze the filesystem, stop the DB, drop unsynced data.
      env.SetFilesystemActive(false);
      db.reset();
      ASSERT_OK(env.DropUnsyncedData());
      env.ClearFaults();
    }
    std::unique_ptr<DB> db;
    const std::string label = "crash at operation " + std::to_string(n);
    Status s = DB::Open(FaultOptions(&env), dir.path(), &db);
    ASSERT_OK(s) << label;
    CheckRecovered(db.get(), outcome, label);
  }
}

uint64_t FilesBelowL0(DB* db) {
  uint64_t total = 0;
  for (int level = 1; level < 7; ++level) {
    uint64_t n = 0;
    EXPECT_TRUE(db->GetIntProperty(
        "cascadedb.num-files-at-level" + std::to_string(level), &n));
    total += n;
  }
  return total;
}

// A compaction syncs its outputs a few files late (CompactionJob keeps up
// to four unsynced while it merges on), but every one before the MANIFEST
// names them: a power cut right after a compaction with many outputs loses
// nothing.
TEST(DBFaultCompactionTest, ManyOutputsSurviveAPowerCutAfterInstall) {
  test::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  Options options = FaultOptions(&env);
  options.disable_auto_compactions = true;       // CompactRange does it all
  options.level0_slowdown_writes_trigger = 100;  // ~20 L0 files, no stall
  options.level0_stop_writes_trigger = 100;
  options.compression = kNoCompression;  // 16 KiB files of real bytes
  std::map<std::string, std::string> data;
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, dir.path(), &db));
    for (int i = 0; i < 3000; ++i) {
      const std::string key = "k" + std::to_string(100000 + i);
      const std::string value(100, static_cast<char>('a' + i % 26));
      ASSERT_OK(db->Put(WriteOptions(), key, value));
      data[key] = value;
    }
    ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    uint64_t l0 = 0;
    ASSERT_TRUE(db->GetIntProperty("cascadedb.num-files-at-level0", &l0));
    EXPECT_EQ(0u, l0);
    EXPECT_GE(FilesBelowL0(db.get()), 10u) << "too few outputs for the test";
    env.SetFilesystemActive(false);  // power cut: nothing more reaches disk
    db.reset();
    ASSERT_OK(env.DropUnsyncedData());
    env.ClearFaults();
  }
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dir.path(), &db));
  EXPECT_GE(FilesBelowL0(db.get()), 10u);
  for (const auto& [key, value] : data) {
    std::string got;
    ASSERT_OK(db->Get(ReadOptions(), key, &got)) << key;
    ASSERT_EQ(value, got) << key;
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, DBFaultTest,
                         testing::Values(FaultKind::kWrite, FaultKind::kSync,
                                         FaultKind::kRename,
                                         FaultKind::kCreate),
                         [](const testing::TestParamInfo<FaultKind>& info) {
                           switch (info.param) {
                             case FaultKind::kWrite:
                               return std::string("Write");
                             case FaultKind::kSync:
                               return std::string("Sync");
                             case FaultKind::kRename:
                               return std::string("Rename");
                             default:
                               return std::string("Create");
                           }
                         });

}  // namespace
}  // namespace cascadedb

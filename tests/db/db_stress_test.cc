// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// A bounded concurrency stress of the DB.
// - One writer commits rounds, each a single WriteBatch that rewrites or
//   deletes every round key; readers check that every scan (either
//   direction), seek, snapshot Get and snapshot iterator sees the base keys
//   and exactly one whole round, also with snapshots and iterators held
//   while more rounds are written.
// - A second writer adds unrelated keys (some synced, some refusing to wait
//   out a stall), so rounds share group commits; what it was told is
//   written must be there after each phase, and nothing it was refused.
// - An admin thread flushes, compacts ranges and reads properties.
// Tiny memtables and tables keep flushes and compactions running, so
// readers hold Versions whose tables are compacted away and release them
// (the pinned tables and the purge when a reader goes). The DB is closed
// and reopened between phases of the load, whatever it is doing (in one
// variant by a simulated power loss). At the end, no table outlives the
// Versions that listed it.
//
// CASCADEDB_STRESS_ROUNDS sets the number of rounds (default 150) for a
// longer run by hand; CASCADEDB_TEST_SEED replays a seed.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "cascadedb/options.h"
#include "cascadedb/write_batch.h"
#include "tests/testutil/test_util.h"
#include "util/fault_injection_env.h"
#include "util/random.h"

namespace cascadedb {
namespace {

constexpr int kKeys = 1000;      // rewritten by every round
constexpr int kBaseKeys = 4000;  // written once, before the rounds
constexpr int kReaders = 3;
constexpr int kPhases = 3;  // the DB is reopened between phases
// Key order: "base..." < "key..." < "other..." < kRoundKey.
const char kRoundKey[] = "~round";

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

std::string BaseKey(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "base%06d", i);
  return buf;
}

// 100 letters drawn from seed: compressible about as much as text.
std::string Letters(uint32_t seed) {
  Random rnd(seed);
  std::string v(100, ' ');
  for (char& c : v) c = static_cast<char>('a' + rnd.Uniform(26));
  return v;
}

std::string BaseValue(int i) { return Letters(0x5eed0000u + i); }

// In round r, key i is deleted when (i + r) % 5 == 0, else it holds
// Value(r, i): a round differs from the last in every key.
bool Present(int round, int i) { return (i + round) % 5 != 0; }

std::string Value(int round, int i) {
  return "r" + std::to_string(round) + ":" +
         Letters(static_cast<uint32_t>(round) * 1000003u + i);
}

// Parses kRoundKey's value; -1 if it is not a number.
int ParseRound(const std::string& value) {
  if (value.empty() || value.size() > 9) return -1;
  int r = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return -1;
    r = r * 10 + (c - '0');
  }
  return r;
}

int Rounds() {
  const char* env = std::getenv("CASCADEDB_STRESS_ROUNDS");
  if (env == nullptr) return 150;
  const int n = std::atoi(env);
  return n > 0 ? n : 150;
}

class DBStressTest : public testing::Test {
 protected:
  DBStressTest() {
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    options_.target_file_size_base = 16 << 10;
    options_.max_bytes_for_level_base = 64 << 10;
    options_.level0_file_num_compaction_trigger = 2;
    options_.block_cache_size = 64 << 10;  // misses, evictions
    options_.stats_dump_period_sec = 0;
  }

  ~DBStressTest() override { db_.reset(); }

  void WriteRound(int round) {
    WriteBatch batch;
    for (int i = 0; i < kKeys; ++i) {
      if (Present(round, i)) {
        ASSERT_OK(batch.Put(Key(i), Value(round, i)));
      } else {
        ASSERT_OK(batch.Delete(Key(i)));
      }
    }
    ASSERT_OK(batch.Put(kRoundKey, std::to_string(round)));
    ASSERT_OK(db_->Write(WriteOptions(), &batch));
  }

  // Walks it from the first key (or, if reverse, from the last) and checks
  // that it shows the base keys and one whole round; returns that round,
  // or -1 after a failure.
  static int CheckScan(Iterator* it, bool reverse = false) {
    std::vector<std::pair<std::string, std::string>> all;
    if (reverse) {
      for (it->SeekToLast(); it->Valid(); it->Prev()) {
        all.emplace_back(it->key().ToString(), it->value().ToString());
      }
      std::reverse(all.begin(), all.end());
    } else {
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        all.emplace_back(it->key().ToString(), it->value().ToString());
      }
    }
    EXPECT_OK(it->status());
    if (all.empty() || all.back().first != kRoundKey) {
      ADD_FAILURE() << "no round key at the end of the scan";
      return -1;
    }
    const int round = ParseRound(all.back().second);
    EXPECT_GE(round, 0) << all.back().second;
    if (round < 0) return -1;
    std::vector<std::pair<std::string, std::string>> expected;
    for (int i = 0; i < kBaseKeys; ++i) {
      expected.emplace_back(BaseKey(i), BaseValue(i));
    }
    for (int i = 0; i < kKeys; ++i) {
      if (Present(round, i)) expected.emplace_back(Key(i), Value(round, i));
    }
    size_t next = 0;
    for (const auto& entry : all) {
      if (entry.first.compare(0, 5, "other") == 0 || entry.first == kRoundKey) {
        continue;  // the other writer's, and the round itself
      }
      if (next >= expected.size() || entry != expected[next]) {
        ADD_FAILURE() << (reverse ? "reverse" : "forward") << " scan, round "
                      << round << ": expected "
                      << (next < expected.size() ? expected[next].first
                                                 : std::string("the end"))
                      << ", found " << entry.first << "=" << entry.second;
        return -1;
      }
      ++next;
    }
    if (next < expected.size()) {
      ADD_FAILURE() << "round " << round << ": keys from "
                    << expected[next].first << " on are missing";
      return -1;
    }
    return round;
  }

  // From a Seek to a random key, a few steps forward and back, against
  // the expected keys of round.
  static void CheckSeek(Iterator* it, int round, Random* rnd) {
    const int target = static_cast<int>(rnd->Uniform(kKeys));
    it->Seek(Key(target));
    int i = target;
    while (i < kKeys && !Present(round, i)) ++i;
    for (int step = 0; step < 4 && i < kKeys; ++step) {
      ASSERT_TRUE(it->Valid()) << "round " << round << " seek " << target;
      ASSERT_EQ(Key(i), it->key().ToString());
      ASSERT_EQ(Value(round, i), it->value().ToString());
      it->Next();
      do {
        ++i;
      } while (i < kKeys && !Present(round, i));
    }
    // The entry before Key(target) is the present key below it, or the
    // last base key when there is none.
    it->Seek(Key(target));
    ASSERT_TRUE(it->Valid()) << "round " << round << " seek " << target;
    it->Prev();
    ASSERT_TRUE(it->Valid()) << "round " << round << " prev of " << target;
    int j = target - 1;
    while (j >= 0 && !Present(round, j)) --j;
    if (j < 0) {
      EXPECT_EQ(BaseKey(kBaseKeys - 1), it->key().ToString());
      return;
    }
    EXPECT_EQ(Key(j), it->key().ToString());
    EXPECT_EQ(Value(round, j), it->value().ToString());
  }

  // A Get of Key(i) with ro against round: its value, or NotFound.
  void CheckGet(const ReadOptions& ro, int round, int i) {
    std::string value;
    Status s = db_->Get(ro, Key(i), &value);
    if (Present(round, i)) {
      ASSERT_OK(s) << "round " << round << " " << Key(i);
      ASSERT_EQ(Value(round, i), value);
    } else {
      ASSERT_TRUE(s.IsNotFound())
          << "round " << round << " " << Key(i) << ": " << s.ToString();
    }
  }

  // Gets of a few keys under one snapshot, all against its round.
  void CheckSnapshotGets(Random* rnd, const std::atomic<int>* written,
                         const std::atomic<bool>* done) {
    struct Held {
      DB* db;
      const Snapshot* snapshot;
      ~Held() { db->ReleaseSnapshot(snapshot); }
    } held{db_.get(), db_->GetSnapshot()};
    ReadOptions ro;
    ro.snapshot = held.snapshot;
    std::string value;
    ASSERT_OK(db_->Get(ro, kRoundKey, &value));
    const int round = ParseRound(value);
    ASSERT_GE(round, 0) << value;
    for (int n = 0; n < 20; ++n) {
      ASSERT_NO_FATAL_FAILURE(
          CheckGet(ro, round, static_cast<int>(rnd->Uniform(kKeys))));
    }
    if (rnd->OneIn(3)) {
      // Rounds later, through the compactions meanwhile (which must keep
      // what the snapshot sees), the same Gets and a scan at the snapshot.
      WaitForRounds(3, written, done);
      for (int i = 0; i < kKeys; i += 7) {
        ASSERT_NO_FATAL_FAILURE(CheckGet(ro, round, i));
      }
      std::unique_ptr<Iterator> it(db_->NewIterator(ro));
      EXPECT_EQ(round, CheckScan(it.get(), /*reverse=*/rnd->OneIn(2)));
    }
  }

  // Waits (up to 2 s) until n more rounds are written or the load ends.
  static void WaitForRounds(int n, const std::atomic<int>* written,
                            const std::atomic<bool>* done) {
    const int start = written->load(std::memory_order_acquire);
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (written->load(std::memory_order_acquire) < start + n &&
           !done->load(std::memory_order_acquire) &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  void Reader(uint32_t seed, const std::atomic<int>* written,
              const std::atomic<bool>* done) {
    Random rnd(seed);
    int last_round = 0;
    while (!done->load(std::memory_order_acquire) && !HasFailure()) {
      const uint32_t kind = rnd.Uniform(4);
      checks_[kind].fetch_add(1, std::memory_order_relaxed);
      switch (kind) {
        case 0: {  // a fresh scan never goes back in time
          std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
          const int round = CheckScan(it.get(), /*reverse=*/rnd.OneIn(3));
          EXPECT_GE(round, last_round);
          if (round > last_round) last_round = round;
          break;
        }
        case 1:
          CheckSnapshotGets(&rnd, written, done);
          break;
        case 2: {  // seeks at an iterator's round
          std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
          it->Seek(kRoundKey);
          ASSERT_TRUE(it->Valid());
          const int round = ParseRound(it->value().ToString());
          ASSERT_GE(round, 0);
          for (int n = 0; n < 5; ++n) CheckSeek(it.get(), round, &rnd);
          break;
        }
        default: {  // an iterator held while a few rounds go by
          std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
          WaitForRounds(3, written, done);
          CheckScan(it.get());
          break;
        }
      }
    }
  }

  // The base keys and round 0, then the rounds in kPhases phases of load,
  // the DB closed and reopened (mid-compaction, maybe) between phases.
  void Run() {
    ASSERT_OK(DB::Open(options_, dir_.path(), &db_));
    for (int i = 0; i < kBaseKeys; i += 100) {
      WriteBatch batch;
      for (int j = i; j < i + 100; ++j) {
        ASSERT_OK(batch.Put(BaseKey(j), BaseValue(j)));
      }
      ASSERT_OK(db_->Write(WriteOptions(), &batch));
    }
    WriteRound(0);
    ASSERT_OK(db_->SyncWAL());  // the base and round 0 survive a power loss
    const int rounds = Rounds();
    const uint32_t seed = test::RandomSeed();
    int last = 0;
    for (int phase = 1; phase <= kPhases; ++phase) {
      const int first = last + 1;
      last = rounds * phase / kPhases;
      RunPhase(first, last, seed + 16 * phase);
      if (HasFailure()) {
        std::string stats;
        db_->GetProperty("cascadedb.stats", &stats);
        std::printf("%s\n", stats.c_str());
        return;
      }
      if (phase < kPhases && power_loss_ != nullptr) {
        // The power goes while the DB may be flushing or compacting: what
        // was not synced is lost, but no more than that.
        power_loss_->SetFilesystemActive(false);
        db_.reset();
        ASSERT_OK(power_loss_->DropUnsyncedData());
        power_loss_->ClearFaults();
        ASSERT_OK(DB::Open(options_, dir_.path(), &db_));
        std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
        const int round = CheckScan(it.get());
        ASSERT_GE(round, durable_round_.load()) << "a synced round was lost";
        ASSERT_LE(round, last);
        std::printf(
            "power loss after round %d: round %d recovered, %d synced\n", last,
            round, durable_round_.load());
        CheckOthersAfterPowerLoss();
      } else if (phase < kPhases) {
        db_.reset();
        ASSERT_OK(DB::Open(options_, dir_.path(), &db_));
        std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
        ASSERT_EQ(last, CheckScan(it.get())) << "after reopening";
        CheckOthers();
      }
    }
    std::printf(
        "%d rounds in %d phases; readers: %d scans, %d snapshot reads, %d "
        "seek runs, %d held iterators; %zu other keys, %d writes refused\n",
        rounds, kPhases, checks_[0].load(), checks_[1].load(),
        checks_[2].load(), checks_[3].load(), others_.size(), refused_);

    ASSERT_OK(db_->WaitForCompact());
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    EXPECT_EQ(rounds, CheckScan(it.get()));
    it.reset();
    ExpectNoObsoleteTables();

    db_.reset();
    ASSERT_OK(DB::Open(options_, dir_.path(), &db_));
    it.reset(db_->NewIterator(ReadOptions()));
    EXPECT_EQ(rounds, CheckScan(it.get()));
    CheckOthers();
  }

  // Rounds first..last under the load of the other threads.
  void RunPhase(int first, int last, uint32_t seed) {
    std::atomic<int> written{first - 1};
    std::atomic<bool> done{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < kReaders; ++t) {
      threads.emplace_back([this, seed, t, &written, &done] {
        Reader(seed + t, &written, &done);
      });
    }
    threads.emplace_back([this, seed, &written, &done] {
      Random rnd(seed ^ 0x9e3779b9u);
      int n = 0;
      while (!done.load(std::memory_order_acquire) && !HasFailure()) {
        char key[32];
        std::snprintf(key, sizeof(key), "other%08u", rnd.Uniform(100000));
        // Some synced, some refusing to wait out a stall: group commits
        // mix them with the rounds.
        WriteOptions wo;
        wo.sync = rnd.OneIn(50);
        wo.no_slowdown = rnd.OneIn(10);
        const std::string value = std::to_string(n++);
        const int acknowledged = written.load(std::memory_order_acquire);
        Status s = db_->Put(wo, key, value);
        if (s.ok()) {
          others_[key] = OtherWrite{value, wo.sync};
          if (wo.sync) NoteDurable(acknowledged);
        } else if (wo.no_slowdown && s.IsIncomplete()) {
          ++refused_;
        } else {
          ADD_FAILURE() << key << ": " << s.ToString();
        }
        if (n % 8 == 0) {
          std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
      }
    });
    // The calls a user or a tool makes beside the load.
    threads.emplace_back([this, seed, &written, &done] {
      Random rnd(seed ^ 0x51ed27u);
      while (!done.load(std::memory_order_acquire) && !HasFailure()) {
        switch (rnd.Uniform(6)) {
          case 0:
            EXPECT_OK(db_->Flush(FlushOptions()));
            break;
          case 1: {  // a range of the round keys
            const int a = static_cast<int>(rnd.Uniform(kKeys));
            const int b = a + static_cast<int>(rnd.Uniform(kKeys - a));
            const std::string lo = Key(a), hi = Key(b);
            const Slice begin(lo), end(hi);
            EXPECT_OK(db_->CompactRange(CompactRangeOptions(), &begin, &end));
            break;
          }
          case 2: {
            std::string v;
            EXPECT_TRUE(db_->GetProperty("cascadedb.stats", &v));
            EXPECT_TRUE(db_->GetProperty("cascadedb.sstables", &v));
            break;
          }
          case 3: {
            std::vector<LiveFileMetaData> files;
            db_->GetLiveFilesMetaData(&files);
            break;
          }
          case 4: {
            const std::string lo = BaseKey(0), hi = Key(kKeys);
            const Range range(lo, hi);
            uint64_t size = 0;
            EXPECT_OK(db_->GetApproximateSizes(&range, 1, &size));
            break;
          }
          default: {
            const int acknowledged = written.load(std::memory_order_acquire);
            EXPECT_OK(db_->SyncWAL());
            NoteDurable(acknowledged);
            break;
          }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
    for (int r = first; r <= last && !HasFailure(); ++r) {
      WriteRound(r);
      written.store(r, std::memory_order_release);
    }
    done.store(true, std::memory_order_release);
    for (std::thread& t : threads) t.join();
  }

  // Every table on disk is one the current Version lists, once the files
  // readers held have been purged (on a background thread: waited for).
  void ExpectNoObsoleteTables() {
    uint64_t live = 0;
    size_t on_disk = 0;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(10);
    do {
      live = 0;
      for (int level = 0; level < options_.num_levels; ++level) {
        uint64_t n = 0;
        ASSERT_TRUE(db_->GetIntProperty(
            "cascadedb.num-files-at-level" + std::to_string(level), &n));
        live += n;
      }
      on_disk = test::FilesWithSuffix(dir_.path(), ".sst").size();
      if (on_disk == live) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } while (std::chrono::steady_clock::now() < deadline);
    EXPECT_EQ(live, on_disk)
        << "tables left on disk that no Version lists: " << TablesNotLive();
  }

  // The tables on disk that no Version lists, each with the LOG's lines
  // that name it: what a failure of ExpectNoObsoleteTables needs to say.
  std::string TablesNotLive() {
    std::vector<LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    std::set<std::string> live;
    for (const LiveFileMetaData& f : files) live.insert(f.name);
    std::string log;
    ReadFileToString(Env::Default(), dir_.path() + "/LOG", &log).IgnoreError();
    std::string out;
    for (const std::string& name : test::FilesWithSuffix(dir_.path(), ".sst")) {
      if (live.count(name) > 0) continue;
      out += "\n" + name;
      const std::string number = name.substr(0, name.find('.'));
      std::istringstream lines(log);
      for (std::string line; std::getline(lines, line);) {
        if (line.find(number) != std::string::npos) out += "\n  " + line;
      }
    }
    return out;
  }

  // The other writer's keys and the last value each was acknowledged with
  // (a write refused as Incomplete must not have happened). Written by
  // that thread during a phase, read between phases.
  void CheckOthers() {
    std::string value;
    for (const auto& kv : others_) {
      ASSERT_OK(db_->Get(ReadOptions(), kv.first, &value)) << kv.first;
      ASSERT_EQ(kv.second.value, value) << kv.first;
    }
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    size_t n = 0;
    for (it->Seek("other"); it->Valid() && it->key().starts_with("other");
         it->Next()) {
      ASSERT_EQ(1u, others_.count(it->key().ToString()))
          << it->key().ToString() << " was never acknowledged";
      ++n;
    }
    ASSERT_OK(it->status());
    EXPECT_EQ(others_.size(), n);
  }

  // After a power loss: a key whose last acknowledged write was synced
  // holds that write; any other key of the other writer was acknowledged
  // once (unsynced writes may be lost, refused ones never happened). The
  // recovered keys are then what later checks expect.
  void CheckOthersAfterPowerLoss() {
    std::string value;
    for (const auto& kv : others_) {
      if (!kv.second.synced) continue;
      ASSERT_OK(db_->Get(ReadOptions(), kv.first, &value)) << kv.first;
      ASSERT_EQ(kv.second.value, value) << kv.first << ", synced";
    }
    std::map<std::string, OtherWrite> recovered;
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    for (it->Seek("other"); it->Valid() && it->key().starts_with("other");
         it->Next()) {
      ASSERT_EQ(1u, others_.count(it->key().ToString()))
          << it->key().ToString() << " was never acknowledged";
      recovered[it->key().ToString()] =
          OtherWrite{it->value().ToString(), false};
    }
    ASSERT_OK(it->status());
    others_.swap(recovered);
  }

  // Rounds up to round survived a sync that began after they were
  // acknowledged (WAL order).
  void NoteDurable(int round) {
    int d = durable_round_.load();
    while (d < round && !durable_round_.compare_exchange_weak(d, round)) {
    }
  }

  test::TempDir dir_;
  Options options_;
  std::unique_ptr<DB> db_;
  // Set by the power-loss variant: the DB's Env, which loses what was not
  // synced between phases.
  std::unique_ptr<FaultInjectionEnv> power_loss_;
  std::atomic<int> durable_round_{0};
  struct OtherWrite {
    std::string value;
    bool synced;
  };
  std::map<std::string, OtherWrite> others_;
  int refused_ = 0;  // the other writer's no_slowdown writes refused
  std::atomic<int> checks_[4] = {};  // reader checks run, by kind
};

// max_open_files = -1: tables pinned in their file metadata.
TEST_F(DBStressTest, ReadersSeeWholeRoundsWithPinnedTables) { Run(); }

// A small table cache: tables closed and reopened under the readers.
TEST_F(DBStressTest, ReadersSeeWholeRoundsWithSmallTableCache) {
  options_.max_open_files = 20;
  Run();
}

// Writes applied to the memtable by the members of a write group.
TEST_F(DBStressTest, ReadersSeeWholeRoundsWithConcurrentMemtableWrites) {
  options_.allow_concurrent_memtable_write = true;
  Run();
}

// The other paths through the engine: skip-list memtables, entries
// compacted one by one (no block copies), outputs cut at their size only,
// no compression, round-robin picks.
TEST_F(DBStressTest, ReadersSeeWholeRoundsOnTheOtherPaths) {
  options_.memtable_rep = MemTableRep::kSkipList;
  options_.compaction_copy_blocks = false;
  options_.align_compaction_outputs = false;
  options_.compression = kNoCompression;
  options_.compaction_pri = CompactionPri::kRoundRobin;
  Run();
}

// Flushes run by the one compaction thread, pausing its compactions.
TEST_F(DBStressTest, ReadersSeeWholeRoundsWithFlushesInCompactions) {
  options_.flush_in_compaction = FlushInCompaction::kAlways;
  options_.max_background_compactions = 1;
  Run();
}

// A power loss between phases instead of a clean close: every synced
// round and synced write survives, and the DB comes back whole.
TEST_F(DBStressTest, ReadersSeeWholeRoundsThroughPowerLosses) {
  power_loss_ = std::make_unique<FaultInjectionEnv>(Env::Default());
  options_.env = power_loss_.get();
  // Several rounds to a memtable, so that more than one round can be lost.
  options_.write_buffer_size = 512 << 10;
  Run();
  db_.reset();  // before the Env
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The compaction policy on handmade Versions: files are metadata only (the
// picker never reads them), installed through a real VersionSet.

#include "db/compaction_picker.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/env.h"
#include "db/compaction.h"
#include "db/table_cache.h"
#include "db/version_set.h"
#include "tests/testutil/test_util.h"
#include "util/mutex.h"

namespace cascadedb {
namespace {

class CompactionPickerTest : public ::testing::Test {
 protected:
  CompactionPickerTest() : icmp_(BytewiseComparator()) {
    options_.num_levels = 4;
    options_.level0_file_num_compaction_trigger = 4;
    options_.max_bytes_for_level_base = 1000;
    options_.max_bytes_for_level_multiplier = 10;
    options_.target_file_size_base = 100;
    options_.target_file_size_multiplier = 1;
    TableOptions table_options;
    table_options.comparator = &icmp_;
    table_options.key_format = InternalKeyFormat::Get();
    table_cache_ = std::make_unique<TableCache>(
        dir_.path(), Env::Default(), EnvOptions(), table_options, 100);
    NewVersionSet();
  }

  ~CompactionPickerTest() override {
    MutexLock l(&mu_);
    for (Compaction* c : running_) delete c;
    vset_.reset();
  }

  void NewVersionSet() {
    MutexLock l(&mu_);
    vset_ = std::make_unique<VersionSet>(dir_.path(), &options_, EnvOptions(),
                                         table_cache_.get(), &icmp_);
    vset_->MarkFileNumberUsed(1000);
  }

  // Queues a file for the next Install().
  void Add(int level, uint64_t number, const std::string& smallest,
           const std::string& largest, uint64_t size, SequenceNumber seq = 1) {
    FileMetaData f;
    f.number = number;
    f.file_size = size;
    f.smallest = InternalKey(smallest, seq, kTypeValue);
    f.largest = InternalKey(largest, seq, kTypeValue);
    f.smallest_seqno = seq;
    f.largest_seqno = seq;
    edit_.AddFile(level, f);
  }

  void Install() {
    MutexLock l(&mu_);
    ASSERT_OK(vset_->LogAndApply(&edit_, &mu_));
    edit_.Clear();
  }

  Compaction* Pick() {
    MutexLock l(&mu_);
    return Track(vset_->picker()->PickCompaction(vset_->current()));
  }

  Compaction* CompactRange(int level, const char* begin, const char* end,
                           bool* busy = nullptr) {
    MutexLock l(&mu_);
    const InternalKey b(begin != nullptr ? begin : "", kMaxSequenceNumber,
                        kValueTypeForSeek);
    const InternalKey e(end != nullptr ? end : "", 0, kTypeDeletion);
    return Track(vset_->picker()->CompactRange(
        vset_->current(), level, begin != nullptr ? &b : nullptr,
        end != nullptr ? &e : nullptr, busy));
  }

  bool NeedsCompaction() {
    MutexLock l(&mu_);
    return vset_->picker()->NeedsCompaction(vset_->current());
  }

  double Score(int level) {
    MutexLock l(&mu_);
    return vset_->current()->CompactionScore(level);
  }

  // Ends a compaction without installing anything (as after a failure).
  void Done(Compaction* c) {
    MutexLock l(&mu_);
    running_.erase(c);
    c->ReleaseInputs();
    delete c;
  }

  static std::string Numbers(const std::vector<FileMetaData*>& files) {
    std::string r;
    for (const FileMetaData* f : files) {
      if (!r.empty()) r += ",";
      r += std::to_string(f->number);
    }
    return r;
  }

  Compaction* Track(Compaction* c) {
    if (c != nullptr) running_.insert(c);
    return c;
  }

  test::TempDir dir_;
  Options options_;
  InternalKeyComparator icmp_;
  std::unique_ptr<TableCache> table_cache_;
  Mutex mu_;
  std::unique_ptr<VersionSet> vset_;
  VersionEdit edit_;
  std::set<Compaction*> running_;
};

TEST_F(CompactionPickerTest, TargetSizes) {
  options_.target_file_size_multiplier = 2;
  CompactionPicker* picker = vset_->picker();
  EXPECT_EQ(1000u, picker->MaxBytesForLevel(1));
  EXPECT_EQ(10000u, picker->MaxBytesForLevel(2));
  EXPECT_EQ(100000u, picker->MaxBytesForLevel(3));
  EXPECT_EQ(100u, picker->MaxFileSizeForLevel(1));
  EXPECT_EQ(400u, picker->MaxFileSizeForLevel(3));
  options_.max_bytes_for_level_base = uint64_t{1} << 62;
  EXPECT_EQ(UINT64_MAX, picker->MaxBytesForLevel(3));  // saturates
}

TEST_F(CompactionPickerTest, ScoresFollowTheFormula) {
  Add(0, 1, "a", "z", 100, 1);
  Add(0, 2, "a", "z", 100, 2);
  Add(1, 11, "a", "m", 1500);
  Add(2, 21, "a", "m", 5000);
  Add(3, 31, "a", "z", 1000000);
  Install();
  EXPECT_DOUBLE_EQ(0.5, Score(0));
  EXPECT_DOUBLE_EQ(1.5, Score(1));
  EXPECT_DOUBLE_EQ(0.5, Score(2));
  EXPECT_DOUBLE_EQ(0.0, Score(3));  // the last level is never scored
  EXPECT_TRUE(NeedsCompaction());
}

TEST_F(CompactionPickerTest, HigherScoreBeatsL0BelowTheSlowdownTrigger) {
  // L0 at its compaction trigger but far from a stall: L1, which is five
  // times over its target, goes first (else L1->L2 would starve).
  for (int i = 1; i <= 4; i++) Add(0, i, "a", "z", 100, i);
  Add(1, 11, "a", "m", 5000);  // score 5
  Add(2, 21, "n", "z", 100);
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(1, c->level());
  EXPECT_EQ(CompactionReason::kLevelSize, c->reason());
  Done(c);
}

TEST_F(CompactionPickerTest, L0NearStallIsPreferredOverHigherScores) {
  options_.level0_slowdown_writes_trigger = 4;
  for (int i = 1; i <= 4; i++) Add(0, i, "a", "z", 100, i);
  Add(1, 11, "a", "m", 1900);  // score 1.9: higher, yet not bloated
  Add(2, 21, "a", "m", 100);   // so L1's file is no trivial move
  Install();
  EXPECT_DOUBLE_EQ(1.0, Score(0));
  EXPECT_DOUBLE_EQ(1.9, Score(1));
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(0, c->level());
  EXPECT_EQ(1, c->output_level());
  EXPECT_EQ(CompactionReason::kL0FileCount, c->reason());
  EXPECT_STREQ("L0FileCount", CompactionReasonName(c->reason()));
  EXPECT_EQ("4,3,2,1", Numbers(c->inputs(0)));  // newest first
  EXPECT_EQ("11", Numbers(c->inputs(1)));
  // Files being compacted no longer count.
  EXPECT_DOUBLE_EQ(0.0, Score(0));
  EXPECT_DOUBLE_EQ(0.0, Score(1));
  EXPECT_EQ(nullptr, Pick());
  Done(c);
  EXPECT_DOUBLE_EQ(1.0, Score(0));
}

TEST_F(CompactionPickerTest, L0NearStallYieldsToABloatedL1) {
  // L1 at twice its target or more: every L0->L1 compaction would rewrite
  // over twice its input from L1, so L1 drains first even near a stall.
  options_.level0_slowdown_writes_trigger = 4;
  for (int i = 1; i <= 4; i++) Add(0, i, "a", "z", 100, i);
  Add(1, 11, "a", "m", 5000);  // score 5
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(1, c->level());
  EXPECT_EQ(CompactionReason::kLevelSize, c->reason());
  EXPECT_EQ("11", Numbers(c->inputs(0)));
  // L1's file is taken, so L0 cannot run now either (it overlaps it).
  EXPECT_EQ(nullptr, Pick());
  Done(c);
}

TEST_F(CompactionPickerTest, HighestScoreFirstBelowTheL0Trigger) {
  Add(0, 1, "a", "z", 100);
  Add(1, 11, "a", "b", 1500);   // 1.5
  Add(2, 21, "c", "d", 30000);  // 3.0
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(2, c->level());
  EXPECT_EQ(3, c->output_level());
  EXPECT_EQ(CompactionReason::kLevelSize, c->reason());
  EXPECT_DOUBLE_EQ(3.0, c->score());
  Compaction* c2 = Pick();
  ASSERT_NE(nullptr, c2);
  EXPECT_EQ(1, c2->level());
}

TEST_F(CompactionPickerTest, OnlyOneL0CompactionAtATime) {
  for (int i = 1; i <= 4; i++) Add(0, i, "a", "z", 100, i);
  Install();
  Compaction* c1 = Pick();
  ASSERT_NE(nullptr, c1);
  ASSERT_EQ(0, c1->level());
  // Four more flushes arrive while it runs.
  for (int i = 5; i <= 8; i++) Add(0, i, "a", "z", 100, i);
  Install();
  EXPECT_DOUBLE_EQ(1.0, Score(0));
  EXPECT_FALSE(NeedsCompaction());
  EXPECT_EQ(nullptr, Pick());
  Done(c1);
  Compaction* c2 = Pick();
  ASSERT_NE(nullptr, c2);
  EXPECT_EQ(0, c2->level());
  EXPECT_EQ(8, c2->num_input_files(0));
}

TEST_F(CompactionPickerTest, FilesBeingCompactedAreNotPickedTwice) {
  Add(1, 11, "a", "b", 500);
  Add(1, 12, "c", "d", 500);
  Add(1, 13, "e", "f", 500);
  Add(1, 14, "g", "h", 500);
  Install();
  std::set<uint64_t> taken;
  std::vector<Compaction*> picked;
  for (int i = 0; i < 3; i++) {
    Compaction* c = Pick();
    ASSERT_NE(nullptr, c) << i;
    ASSERT_EQ(1, c->num_input_files(0));
    EXPECT_TRUE(taken.insert(c->input(0, 0)->number).second);
    EXPECT_TRUE(c->input(0, 0)->being_compacted);
    picked.push_back(c);
  }
  EXPECT_DOUBLE_EQ(0.5, Score(1));  // one 500-byte file left over
  EXPECT_FALSE(NeedsCompaction());
  EXPECT_EQ(nullptr, Pick());
  FileMetaData* first = picked[0]->input(0, 0);
  Done(picked[0]);
  EXPECT_FALSE(first->being_compacted);
  EXPECT_DOUBLE_EQ(1.0, Score(1));
  EXPECT_TRUE(NeedsCompaction());
}

TEST_F(CompactionPickerTest, RoundRobinCursorVisitsEveryFile) {
  options_.compaction_pri = CompactionPri::kRoundRobin;
  Add(1, 11, "a", "b", 300);
  Add(1, 12, "c", "d", 300);
  Add(1, 13, "e", "f", 300);
  Add(1, 14, "g", "h", 300);
  Add(1, 15, "i", "j", 300);
  Install();
  std::string order;
  for (int i = 0; i < 7; i++) {
    Compaction* c = Pick();
    ASSERT_NE(nullptr, c);
    order += Numbers(c->inputs(0)) + " ";
    Done(c);
  }
  EXPECT_EQ("11 12 13 14 15 11 12 ", order);
}

TEST_F(CompactionPickerTest, CompactCursorIsPersisted) {
  options_.compaction_pri = CompactionPri::kRoundRobin;
  Add(1, 11, "a", "b", 600);
  Add(1, 12, "c", "d", 600);
  Add(1, 13, "e", "f", 600);
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ("11", Numbers(c->inputs(0)));
  ASSERT_EQ(1u, c->edit()->compact_cursors().size());
  EXPECT_EQ(1, c->edit()->compact_cursors()[0].first);
  {
    // Install the cursor (as the compaction's edit would) and finish.
    MutexLock l(&mu_);
    ASSERT_OK(vset_->LogAndApply(c->edit(), &mu_));
  }
  Done(c);
  NewVersionSet();
  bool save_manifest;
  ASSERT_OK(vset_->Recover(&save_manifest));
  c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ("12", Numbers(c->inputs(0)));
}

TEST_F(CompactionPickerTest, MinOverlappingRatioTakesTheCheapestFileFirst) {
  ASSERT_EQ(CompactionPri::kMinOverlappingRatio, options_.compaction_pri);
  Add(1, 11, "a", "b", 500);  // overlaps 3000 bytes below: ratio 6
  Add(1, 12, "c", "d", 500);  // 200: ratio 0.4
  Add(1, 13, "e", "f", 500);  // 1000: ratio 2
  Add(2, 21, "a", "b", 3000);
  Add(2, 22, "c", "d", 200);
  Add(2, 23, "e", "f", 1000);
  Install();
  Compaction* first = Pick();
  ASSERT_NE(nullptr, first);
  EXPECT_EQ(1, first->level());
  EXPECT_EQ("12", Numbers(first->inputs(0)));
  EXPECT_EQ("22", Numbers(first->inputs(1)));
  // With 12 taken, the next cheapest.
  Compaction* second = Pick();
  ASSERT_NE(nullptr, second);
  EXPECT_EQ("13", Numbers(second->inputs(0)));
  EXPECT_EQ("23", Numbers(second->inputs(1)));
}

TEST_F(CompactionPickerTest, MinOverlappingRatioWeighsOverlapByFileSize) {
  Add(1, 11, "a", "b", 100);   // 500 below: ratio 5
  Add(1, 12, "c", "d", 1000);  // 1000 below, more bytes but ratio 1
  Add(2, 21, "a", "b", 500);
  Add(2, 22, "c", "d", 1000);
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ("12", Numbers(c->inputs(0)));
}

TEST_F(CompactionPickerTest, RoundRobinIgnoresOverlap) {
  options_.compaction_pri = CompactionPri::kRoundRobin;
  Add(1, 11, "a", "b", 500);
  Add(1, 12, "c", "d", 500);
  Add(1, 13, "e", "f", 500);
  Add(2, 21, "a", "b", 3000);
  Add(2, 22, "c", "d", 200);
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ("11", Numbers(c->inputs(0)));
}

TEST_F(CompactionPickerTest, RunningOutputRangeBlocksOverlappingCompactions) {
  Add(2, 21, "m", "n", 20000);  // score 2
  Add(3, 31, "a", "b", 100);
  Add(3, 32, "y", "z", 100);
  Install();
  // A manual compaction of the last level rewrites [a, z] there.
  Compaction* c1 = CompactRange(3, nullptr, nullptr);
  ASSERT_NE(nullptr, c1);
  EXPECT_EQ(3, c1->output_level());
  // [m, n] -> L3 touches no file of c1, but lands inside its output range.
  EXPECT_FALSE(NeedsCompaction());
  EXPECT_EQ(nullptr, Pick());
  Done(c1);
  Compaction* c2 = Pick();
  ASSERT_NE(nullptr, c2);
  EXPECT_EQ(2, c2->level());
  EXPECT_TRUE(c2->IsTrivialMove());
}

TEST_F(CompactionPickerTest, ManualL0CompactionIsBusyWhileL0Compacts) {
  for (int i = 1; i <= 4; i++) Add(0, i, "a", "z", 100, i);
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  bool busy = false;
  EXPECT_EQ(nullptr, CompactRange(0, nullptr, nullptr, &busy));
  EXPECT_TRUE(busy);
  EXPECT_EQ(nullptr, CompactRange(2, nullptr, nullptr, &busy));
  EXPECT_FALSE(busy);  // nothing there
}

TEST_F(CompactionPickerTest, ManualCompactionTakesTheOverlappingFiles) {
  Add(1, 11, "a", "b", 100);
  Add(1, 12, "c", "d", 100);
  Add(1, 13, "e", "f", 100);
  Add(2, 21, "c", "c", 100);
  Install();
  bool busy = true;
  Compaction* c1 = CompactRange(1, "c", "d", &busy);
  ASSERT_NE(nullptr, c1);
  EXPECT_FALSE(busy);
  EXPECT_EQ(CompactionReason::kManual, c1->reason());
  EXPECT_EQ("12", Numbers(c1->inputs(0)));
  EXPECT_EQ("21", Numbers(c1->inputs(1)));
  EXPECT_FALSE(c1->IsTrivialMove());
  EXPECT_EQ(nullptr, CompactRange(1, "c", "d", &busy));
  EXPECT_TRUE(busy);
  EXPECT_EQ(nullptr, CompactRange(1, "x", "z", &busy));
  EXPECT_FALSE(busy);
  Compaction* c2 = CompactRange(1, "a", "a", &busy);
  ASSERT_NE(nullptr, c2);
  EXPECT_EQ("11", Numbers(c2->inputs(0)));
  // A manual compaction does not move the cursor.
  EXPECT_TRUE(c2->edit()->compact_cursors().empty());
}

TEST_F(CompactionPickerTest, LastLevelCompactsIntoItself) {
  Add(3, 31, "a", "b", 100);
  Add(3, 32, "c", "d", 100);
  Install();
  Compaction* c = CompactRange(3, nullptr, nullptr);
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(3, c->level());
  EXPECT_EQ(3, c->output_level());
  EXPECT_EQ("31,32", Numbers(c->inputs(0)));
  EXPECT_EQ(0, c->num_input_files(1));
  EXPECT_TRUE(c->IsBottommostLevel());
  EXPECT_FALSE(c->IsTrivialMove());
  EXPECT_TRUE(c->IsBaseLevelForKey("a"));
  VersionEdit edit;
  c->AddInputDeletions(&edit);
  EXPECT_EQ((VersionEdit::DeletedFileSet{{3, 31}, {3, 32}}),
            edit.deleted_files());
}

// Charges f (at level) one lookup through Version::UpdateStats; returns
// whether that made it the file to compact.
bool ChargeSeek(Mutex* mu, VersionSet* vset, int level, uint64_t number) {
  MutexLock l(mu);
  Version* v = vset->current();
  Version::GetStats stats;
  for (FileMetaData* f : v->files(level)) {
    if (f->number == number) stats.seek_file = f;
  }
  stats.seek_file_level = level;
  return v->UpdateStats(stats);
}

TEST_F(CompactionPickerTest, FileIsSeekCompactedWhenItsSeeksAreUsedUp) {
  Add(1, 11, "a", "c", 100);  // small: 100 allowed seeks
  Add(2, 21, "b", "d", 500);
  Install();
  ASSERT_FALSE(NeedsCompaction());  // no level over its target
  for (int i = 0; i < 99; i++) {
    ASSERT_FALSE(ChargeSeek(&mu_, vset_.get(), 1, 11)) << i;
  }
  EXPECT_FALSE(NeedsCompaction());
  ASSERT_TRUE(ChargeSeek(&mu_, vset_.get(), 1, 11));  // the 100th
  EXPECT_TRUE(NeedsCompaction());
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(CompactionReason::kSeek, c->reason());
  EXPECT_EQ(1, c->level());
  EXPECT_EQ(2, c->output_level());
  EXPECT_EQ("11", Numbers(c->inputs(0)));
  EXPECT_EQ("21", Numbers(c->inputs(1)));
  // Running: not picked again.
  EXPECT_FALSE(NeedsCompaction());
  Done(c);
}

TEST_F(CompactionPickerTest, SizeCompactionsGoBeforeSeekCompactions) {
  Add(1, 11, "a", "c", 100);
  Add(2, 21, "m", "n", 20000);  // L2 over its 10000-byte target
  Add(3, 31, "m", "n", 100);
  Install();
  for (int i = 0; i < 100; i++) ChargeSeek(&mu_, vset_.get(), 1, 11);
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(CompactionReason::kLevelSize, c->reason());
  EXPECT_EQ(2, c->level());
  c = Pick();  // then the seek compaction, which collides with nothing
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(CompactionReason::kSeek, c->reason());
}

TEST_F(CompactionPickerTest, NoSeekCompactionWhenDisabledOrOnTheLastLevel) {
  options_.seek_compaction = false;
  Add(1, 11, "a", "c", 100);
  Add(3, 31, "a", "c", 100);
  Install();
  for (int i = 0; i < 99; i++) ChargeSeek(&mu_, vset_.get(), 1, 11);
  ASSERT_TRUE(ChargeSeek(&mu_, vset_.get(), 1, 11));
  EXPECT_FALSE(NeedsCompaction());  // marked, but the option is off
  options_.seek_compaction = true;
  EXPECT_TRUE(NeedsCompaction());
  // A last-level file is never marked: it has nowhere to go.
  for (int i = 0; i < 200; i++) {
    ASSERT_FALSE(ChargeSeek(&mu_, vset_.get(), 3, 31));
  }
}

TEST_F(CompactionPickerTest, SeekCompactionOutOfL0TakesOverlappingL0Files) {
  Add(0, 1, "a", "c", 100, 1);
  Add(0, 2, "b", "d", 100, 2);
  Add(0, 3, "x", "y", 100, 3);
  Install();
  for (int i = 0; i < 100; i++) ChargeSeek(&mu_, vset_.get(), 0, 2);
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(CompactionReason::kSeek, c->reason());
  EXPECT_EQ(0, c->level());
  std::set<uint64_t> inputs;
  for (const FileMetaData* f : c->inputs(0)) inputs.insert(f->number);
  EXPECT_EQ((std::set<uint64_t>{1, 2}), inputs);
}

TEST_F(CompactionPickerTest, ReadSampleChargesTheFirstOfTwoOverlappingFiles) {
  Add(1, 11, "a", "c", 100);
  Add(2, 21, "b", "d", 100);
  Install();
  MutexLock l(&mu_);
  Version* v = vset_->current();
  const InternalKey only_l2("d", 5, kTypeValue);  // one file: no charge
  const InternalKey both("b", 5, kTypeValue);     // L1 and L2
  for (int i = 0; i < 500; i++) {
    ASSERT_FALSE(v->RecordReadSample(only_l2.Encode()));
  }
  EXPECT_EQ(nullptr, v->file_to_compact());
  for (int i = 0; i < 99; i++) ASSERT_FALSE(v->RecordReadSample(both.Encode()));
  ASSERT_TRUE(v->RecordReadSample(both.Encode()));
  ASSERT_NE(nullptr, v->file_to_compact());
  EXPECT_EQ(11u, v->file_to_compact()->number);
  EXPECT_EQ(1, v->file_to_compact_level());
  EXPECT_FALSE(v->RecordReadSample(Slice("bad")));  // malformed: ignored
}

TEST_F(CompactionPickerTest, TrivialMoveWhenNothingOverlapsBelow) {
  Add(1, 11, "a", "b", 1500);
  Add(3, 31, "a", "b", 50);  // small grandparent overlap
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_TRUE(c->IsTrivialMove());
  EXPECT_FALSE(c->IsBottommostLevel());
  Done(c);
  // Asked for by the user, the same compaction rewrites the file.
  c = CompactRange(1, nullptr, nullptr);
  ASSERT_NE(nullptr, c);
  EXPECT_FALSE(c->IsTrivialMove());
}

TEST_F(CompactionPickerTest, TrivialMovesGoBeforeHigherScores) {
  // L1 is three times over its target and L2 1.75 times; L2's next
  // file overlaps nothing in L3, so moving it down is free and shrinks
  // what the L1 -> L2 compaction will have to rewrite: it goes first.
  Add(1, 11, "a", "m", 3000);  // score 3
  Add(2, 21, "a", "f", 7500);  // L2: score 1.75
  Add(2, 22, "g", "m", 10000);
  Add(3, 31, "g", "m", 5000);  // under 22, not under 21
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(2, c->level());
  EXPECT_EQ("21", Numbers(c->inputs(0)));
  EXPECT_TRUE(c->IsTrivialMove());
  // Nothing else moves for free: the highest score that can run goes next
  // (L1's file needs 21, so L2's other file, which overlaps L3).
  Compaction* c2 = Pick();
  ASSERT_NE(nullptr, c2);
  EXPECT_EQ(2, c2->level());
  EXPECT_EQ("22", Numbers(c2->inputs(0)));
  EXPECT_EQ("31", Numbers(c2->inputs(1)));
  EXPECT_FALSE(c2->IsTrivialMove());
  Done(c);
  Done(c2);
}

TEST_F(CompactionPickerTest, NoTrivialMoveOverLargeGrandparents) {
  Add(1, 11, "a", "b", 1500);
  Add(3, 31, "a", "b", 5000);  // > 10 x 100-byte target files
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ("31", Numbers(c->grandparents()));
  EXPECT_FALSE(c->IsTrivialMove());
}

TEST_F(CompactionPickerTest, NoTrivialMoveOntoOverlappingFiles) {
  Add(1, 11, "a", "b", 1500);
  Add(2, 21, "b", "c", 100);
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ("21", Numbers(c->inputs(1)));
  EXPECT_FALSE(c->IsTrivialMove());
  EXPECT_EQ(1600u, c->TotalInputBytes());
  EXPECT_EQ("a", c->smallest().user_key().ToString());
  EXPECT_EQ("c", c->largest().user_key().ToString());
  EXPECT_EQ("L1 -> L2: [11] + [21] (LevelSize, score 1.50)", c->Summary());
}

TEST_F(CompactionPickerTest, InputLevelGrowsWhenOutputFilesStayTheSame) {
  // Starting from file 11 (the overlap rule would move 13 down first).
  options_.compaction_pri = CompactionPri::kRoundRobin;
  Add(1, 11, "a", "b", 600);
  Add(1, 12, "c", "d", 600);
  Add(1, 13, "x", "y", 600);
  Add(2, 21, "a", "d", 100);
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ("11,12", Numbers(c->inputs(0)));
  EXPECT_EQ("21", Numbers(c->inputs(1)));
}

TEST_F(CompactionPickerTest, InputLevelGrowthIsLimited) {
  // 25 x 100-byte target files = 2500 bytes at most.
  Add(1, 11, "a", "b", 1300);
  Add(1, 12, "c", "d", 1300);
  Add(2, 21, "a", "d", 100);
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ("11", Numbers(c->inputs(0)));
  EXPECT_EQ("21", Numbers(c->inputs(1)));
}

TEST_F(CompactionPickerTest, SplitUserKeyMovesDownWhole) {
  FileMetaData a;
  a.number = 11;
  a.file_size = 600;
  a.smallest = InternalKey("a", 9, kTypeValue);
  a.largest = InternalKey("k", 9, kTypeValue);
  FileMetaData b = a;
  b.number = 12;
  b.smallest = InternalKey("k", 5, kTypeValue);
  b.largest = InternalKey("m", 5, kTypeValue);
  edit_.AddFile(1, a);
  edit_.AddFile(1, b);
  Add(1, 13, "x", "y", 600);
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ("11,12", Numbers(c->inputs(0)));
}

TEST_F(CompactionPickerTest, IsBaseLevelForKeyLooksBelowTheOutputLevel) {
  Add(1, 11, "a", "c", 1500);
  Add(2, 21, "b", "b", 100);
  Add(3, 31, "c", "d", 100);
  Add(3, 32, "x", "y", 100);
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_EQ("21", Numbers(c->inputs(1)));
  EXPECT_FALSE(c->IsBottommostLevel());
  EXPECT_TRUE(c->IsBaseLevelForKey("a"));
  EXPECT_TRUE(c->IsBaseLevelForKey("b"));  // L2 is the output level
  EXPECT_FALSE(c->IsBaseLevelForKey("c"));
  EXPECT_FALSE(c->IsBaseLevelForKey("d"));
  EXPECT_TRUE(c->IsBaseLevelForKey("e"));
  EXPECT_FALSE(c->IsBaseLevelForKey("x"));
  EXPECT_TRUE(c->IsBaseLevelForKey("z"));
}

TEST_F(CompactionPickerTest, BottommostWhenNothingBelowOverlaps) {
  Add(1, 11, "a", "c", 1500);
  Add(3, 32, "x", "y", 100);
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_TRUE(c->IsBottommostLevel());
}

TEST_F(CompactionPickerTest, ShouldStopBeforeCutsAtGrandparentOverlap) {
  Add(1, 11, "a", "z", 1500);
  for (int i = 0; i < 15; i++) {
    char lo[16];
    char hi[16];
    std::snprintf(lo, sizeof(lo), "g%02da", i);
    std::snprintf(hi, sizeof(hi), "g%02db", i);
    Add(3, 30 + i, lo, hi, 100);
  }
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  ASSERT_EQ(2, c->output_level());
  EXPECT_EQ(15u, c->grandparents().size());
  EXPECT_EQ(100u, c->MaxOutputFileSize());
  auto stop = [c](const char* key) {
    // An empty output: the alignment rule (tested below) never cuts one.
    return c->ShouldStopBefore(InternalKey(key, 1, kTypeValue).Encode(), 0);
  };
  EXPECT_FALSE(stop("a"));
  EXPECT_FALSE(stop("g05c"));  // 600 bytes overlapped
  EXPECT_TRUE(stop("g10c"));   // 1100 > 10 x 100
  EXPECT_FALSE(stop("g11c"));  // a new output: 100
}

// Grandparents g00..g14, each ending at "gNNb"; the L1 file over them all
// is compacted into L2. Outputs target 100 bytes.
class AlignedOutputsTest : public CompactionPickerTest {
 protected:
  Compaction* PickOverGrandparents(bool align) {
    options_.align_compaction_outputs = align;
    Add(1, 11, "a", "z", 1500);
    for (int i = 0; i < 15; i++) {
      char lo[16];
      char hi[16];
      std::snprintf(lo, sizeof(lo), "g%02da", i);
      std::snprintf(hi, sizeof(hi), "g%02db", i);
      Add(3, 30 + i, lo, hi, 10);
    }
    Install();
    Compaction* c = Pick();
    if (c != nullptr) {
      EXPECT_EQ(2, c->output_level());
    }
    return c;
  }

  static std::string Key(const char* user_key) {
    return InternalKey(user_key, 1, kTypeValue).Encode().ToString();
  }
};

TEST_F(AlignedOutputsTest, OutputsEndAtBoundariesOnceHalfFull) {
  Compaction* c = PickOverGrandparents(true);
  ASSERT_NE(nullptr, c);
  EXPECT_TRUE(c->AlignsOutputs());
  EXPECT_EQ(200u, c->OutputSizeLimit());  // may run past 100 to a boundary
  EXPECT_FALSE(c->ShouldStopBefore(Key("a"), 0));
  // Past g00's end with 40 bytes: under half the target, no cut.
  EXPECT_FALSE(c->ShouldStopBefore(Key("g01a"), 40));
  // Past g01's end with 60 bytes: two boundaries 30 bytes apart, so the
  // next is due at ~90, within the target: go on.
  EXPECT_FALSE(c->ShouldStopBefore(Key("g02a"), 60));
  // Inside g02: no boundary, whatever the size.
  EXPECT_FALSE(c->ShouldStopBefore(Key("g02aa"), 150));
  // Past g02's end with 80 bytes: the next (~27 on) would pass 100: cut.
  EXPECT_TRUE(c->ShouldStopBefore(Key("g03a"), 80));
  // A new output: its counts start again.
  EXPECT_FALSE(c->ShouldStopBefore(Key("g04a"), 10));
  Done(c);
}

TEST_F(AlignedOutputsTest, SparseBoundariesCutAtTheFirstPastHalf) {
  Compaction* c = PickOverGrandparents(true);
  ASSERT_NE(nullptr, c);
  EXPECT_FALSE(c->ShouldStopBefore(Key("a"), 0));
  // The first boundary the output meets, at 55 bytes: one boundary in 55
  // bytes predicts the next past 100.
  EXPECT_TRUE(c->ShouldStopBefore(Key("g01a"), 55));
  // And one met only past the target is cut at too.
  EXPECT_FALSE(c->ShouldStopBefore(Key("g01aa"), 0));
  EXPECT_TRUE(c->ShouldStopBefore(Key("g02a"), 170));
  Done(c);
}

TEST_F(AlignedOutputsTest, WouldCutWithinChangesNothing) {
  Compaction* c = PickOverGrandparents(true);
  ASSERT_NE(nullptr, c);
  // Before any key there is no output to cut.
  EXPECT_FALSE(c->WouldCutWithin(Key("g05a"), 90));
  EXPECT_FALSE(c->ShouldStopBefore(Key("a"), 0));
  // A run ending inside g00 crosses nothing.
  EXPECT_FALSE(c->WouldCutWithin(Key("g00aa"), 90));
  // A run ending past g00's end: a cut is due there with 90 bytes, not
  // with 40; asking twice gives the same answer.
  EXPECT_TRUE(c->WouldCutWithin(Key("g00c"), 90));
  EXPECT_TRUE(c->WouldCutWithin(Key("g00c"), 90));
  EXPECT_FALSE(c->WouldCutWithin(Key("g00c"), 40));
  // ShouldStopBefore agrees, key by key.
  EXPECT_TRUE(c->ShouldStopBefore(Key("g00c"), 90));
  Done(c);
}

TEST_F(AlignedOutputsTest, OffCutsOnlyAtSizeAndOverlap) {
  Compaction* c = PickOverGrandparents(false);
  ASSERT_NE(nullptr, c);
  EXPECT_FALSE(c->AlignsOutputs());
  EXPECT_EQ(100u, c->OutputSizeLimit());
  EXPECT_FALSE(c->ShouldStopBefore(Key("a"), 0));
  EXPECT_FALSE(c->ShouldStopBefore(Key("g01a"), 55));
  EXPECT_FALSE(c->ShouldStopBefore(Key("g03a"), 99));
  EXPECT_FALSE(c->WouldCutWithin(Key("g05a"), 99));
  Done(c);
}

TEST_F(CompactionPickerTest, NoGrandparentsNoAlignment) {
  options_.align_compaction_outputs = true;
  Add(1, 11, "a", "z", 1500);
  Add(2, 21, "b", "c", 10);
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  EXPECT_TRUE(c->grandparents().empty());
  EXPECT_FALSE(c->AlignsOutputs());
  EXPECT_EQ(100u, c->OutputSizeLimit());
  Done(c);
}

TEST_F(CompactionPickerTest, OutputCompressionFollowsTheOptions) {
  options_.compression = kSnappyCompression;
  Add(1, 11, "a", "b", 1500);
  Add(3, 31, "a", "b", 10);
  Install();
  Compaction* c = Pick();
  ASSERT_NE(nullptr, c);
  ASSERT_EQ(2, c->output_level());
  EXPECT_EQ(kSnappyCompression, c->OutputCompression());
  options_.compression_per_level = {kNoCompression, kNoCompression};
  EXPECT_EQ(kNoCompression, c->OutputCompression());  // past the end: last
  options_.compression_per_level = {kNoCompression, kNoCompression,
                                    kLZ4Compression};
  EXPECT_EQ(kLZ4Compression, c->OutputCompression());
  options_.bottommost_compression = kZSTD;
  EXPECT_EQ(kLZ4Compression, c->OutputCompression());  // L3 lies below
  Done(c);
  c = CompactRange(3, nullptr, nullptr);
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(kZSTD, c->OutputCompression());
}

TEST_F(CompactionPickerTest, EstimatedPendingCompactionBytes) {
  // Under every target: nothing pending.
  Add(0, 1, "a", "z", 100, 1);
  Add(1, 11, "a", "m", 500);
  Install();
  {
    MutexLock l(&mu_);
    EXPECT_EQ(0u, vset_->current()->EstimatedPendingCompactionBytes());
  }
  // L0 at its trigger: L0 and L1 bytes; 500 + 400 stays under L1's 1000.
  for (int i = 2; i <= 4; i++) Add(0, i, "a", "z", 100, i);
  Install();
  {
    MutexLock l(&mu_);
    EXPECT_EQ(900u, vset_->current()->EstimatedPendingCompactionBytes());
  }
  // L1 = 1500 (+400 from L0) over 1000: 900 x (12000 / 1900 + 1) = 6584;
  // L2 = 12000 (+900) over 10000: 2900 x (50000 / 12900 + 1) = 14140.
  edit_.RemoveFile(1, 11);
  Add(1, 12, "a", "m", 1500);
  Add(2, 21, "a", "m", 12000);
  Add(3, 31, "a", "m", 50000);
  Install();
  MutexLock l(&mu_);
  EXPECT_EQ(400u + 1500u + 6584u + 14140u,
            vset_->current()->EstimatedPendingCompactionBytes());
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// CompactionPicker: the leveled compaction policy. It decides which level
// to compact and which files to take, as pure functions of the current
// Version, the options and the compactions already running:
//
//   - Level scores (Version::CompactionScore): L0 = files not being
//     compacted / level0_file_num_compaction_trigger; Ln (1 <= n < last) =
//     bytes not being compacted / MaxBytesForLevel(n), where target(L1) =
//     max_bytes_for_level_base and target(Ln+1) = target(Ln) x
//     max_bytes_for_level_multiplier. The last level is never scored.
//   - Order: when L0 holds level0_slowdown_writes_trigger files or more
//     (and its score is >= 1), an L0 -> L1 compaction comes first whatever
//     the other scores, because L0 files are what stalls writes (SILK's
//     observation) - unless L1 holds twice its target or more, where every
//     L0 -> L1 compaction would rewrite over twice its input; then levels
//     by score, highest first. Before all of them, in that same order,
//     goes any level (score >= 1) whose next pick is a trivial move: it
//     costs a manifest record and shrinks the level for free, where a
//     level left over its target makes every compaction into it rewrite
//     the excess (measured: 5M overwrite with one compaction thread,
//     compaction WAF 4.33-4.38 -> 3.78-3.82).
//   - Seek compaction comes last, when no level needs compacting by score:
//     the file a Version marked as having used up its allowed seeks
//     (Version::UpdateStats) moves into the next level with its overlaps.
//   - Inputs: L0 takes its oldest file and every L0 file overlapping it,
//     transitively. A level >= 1 takes files round-robin after its compact
//     cursor (persisted with VersionEdit::SetCompactCursor), skipping files
//     that cannot run now. Inputs grow to whole user keys (a user key split
//     across two files of a level moves down whole), the output level's
//     overlapping files are added, and the input level grows while that
//     adds no output-level file and stays under 25 x the target file size
//     (LevelDB's SetupOtherInputs).
//   - Parallelism: at most one compaction out of L0 at a time; no file is
//     in two compactions; a compaction never writes into a key range of its
//     output level that a running compaction also writes, or that a file
//     still being logged by VersionSet::LogAndApply occupies. Compactions
//     that pass these rules touch disjoint data and may run in parallel.
//
// Thread safety: not thread-safe. Every method that looks at a Version or
// at running compactions requires the DB mutex (noted on each).

#ifndef CASCADEDB_DB_COMPACTION_PICKER_H_
#define CASCADEDB_DB_COMPACTION_PICKER_H_

#include <cstdint>
#include <vector>

#include "cascadedb/options.h"
#include "cascadedb/slice.h"
#include "db/compaction.h"
#include "db/dbformat.h"
#include "db/version_edit.h"

namespace cascadedb {

class Version;
class VersionSet;

class CompactionPicker {
 public:
  // Borrows vset (which owns the picker) and its options.
  explicit CompactionPicker(VersionSet* vset);
  CompactionPicker(const CompactionPicker&) = delete;
  CompactionPicker& operator=(const CompactionPicker&) = delete;
  // REQUIRES: no compaction from this picker is still alive.
  ~CompactionPicker();

  // True if some level has a score >= 1 and a compaction could be picked
  // for it now (PickCompaction would not return nullptr). Does not honour
  // disable_auto_compactions: that is the caller's choice.
  // REQUIRES: DB mutex held.
  bool NeedsCompaction(const Version* v) const;

  // Picks the most urgent compaction that can run now (see the file
  // comment), or returns nullptr if none is needed or possible. The result
  // is owned by the caller (delete it with the DB mutex held, after
  // ReleaseInputs); its inputs are marked being_compacted, it references v,
  // and v's scores are recomputed. REQUIRES: DB mutex held; v is the
  // current Version.
  Compaction* PickCompaction(Version* v);

  // A manual compaction of the files of level overlapping [begin, end]
  // (user-key range; nullptr = unbounded on that side) into level + 1, or
  // into level itself when level is the last one. Inputs are expanded like
  // automatic ones. Returns nullptr when level holds nothing in the range
  // (*busy = false) or when the files or the output range are taken by
  // running compactions (*busy = true: wait for one to finish and retry).
  // Ownership as for PickCompaction. busy may be null.
  // REQUIRES: DB mutex held; v is the current Version; 0 <= level <
  // num_levels.
  Compaction* CompactRange(Version* v, int level, const InternalKey* begin,
                           const InternalKey* end, bool* busy = nullptr);

  // Target bytes of level >= 1 (max_bytes_for_level_base x
  // max_bytes_for_level_multiplier^(level - 1), saturating); level 0 gets
  // max_bytes_for_level_base.
  uint64_t MaxBytesForLevel(int level) const;

  // Target output file size for level (target_file_size_base x
  // target_file_size_multiplier^(level - 1), saturating; level 0 as 1).
  uint64_t MaxFileSizeForLevel(int level) const;

  // Compactions picked and not yet released. REQUIRES: DB mutex held.
  int NumRunningCompactions() const {
    return static_cast<int>(running_.size());
  }

  // True if a running compaction reads from L0. REQUIRES: DB mutex held.
  bool L0CompactionRunning() const;

  // True if a running compaction writes into level with an output key
  // range overlapping [smallest_user_key, largest_user_key].
  // REQUIRES: DB mutex held.
  bool RangeOverlapsRunningOutput(int level, const Slice& smallest_user_key,
                                  const Slice& largest_user_key) const;

 private:
  friend class Compaction;
  struct Candidate;

  // Fills *c with a runnable compaction out of level, or returns false.
  bool PickAt(const Version* v, int level, Candidate* c) const;
  // PickAt for CompactionPri::kMinOverlappingRatio: tries c->level's files
  // from the smallest overlap with the next level per byte of their own.
  bool PickMinOverlappingRatio(const Version* v, Candidate* c) const;
  // Fills *c with a runnable seek compaction of v's file_to_compact (when
  // Options::seek_compaction), or returns false.
  bool PickSeek(const Version* v, Candidate* c) const;
  // Completes c->inputs[0] into a full compaction (boundary files, output
  // level files, expansion, grandparents, key range). Returns false if a
  // needed file is being compacted.
  bool SetupOtherInputs(const Version* v, Candidate* c) const;
  // True if c collides with nothing running or being logged.
  bool Runnable(const Candidate& c) const;
  // True if c would only re-link its one input file one level down
  // (Compaction::IsTrivialMove).
  bool IsTrivialMove(const Candidate& c) const;
  // Makes the Compaction: marks the inputs, advances the cursor, registers.
  Compaction* Commit(Version* v, Candidate* c);
  // Called by Compaction::ReleaseInputs.
  void Unregister(Compaction* c);
  // The levels with a score >= 1, in the order they are tried: L0 first,
  // then the others by score, highest first.
  std::vector<int> LevelsToTry(const Version* v) const;

  VersionSet* const vset_;
  const Options* const options_;
  const InternalKeyComparator* const icmp_;

  // ---- guarded by the DB mutex
  std::vector<Compaction*> running_;  // picked, not yet released
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_COMPACTION_PICKER_H_

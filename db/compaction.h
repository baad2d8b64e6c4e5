// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Compaction: one unit of compaction work chosen by the CompactionPicker —
// input files of level() (inputs(0)) and of output_level() (inputs(1)),
// merged into new files of output_level(). It also answers the questions
// the CompactionJob asks while merging: where to cut output files (target
// size, grandparent overlap), whether a deletion may be dropped (nothing
// deeper holds the key), which compression to use, and whether the work is
// a trivial move (one file re-linked one level down, no I/O).
//
// While a Compaction lives, its input Version is referenced and its input
// files are marked being_compacted, so no other compaction takes them and
// the picker keeps other compactions out of its output key range.
//
// Thread safety: not thread-safe. ReleaseInputs and the destructor need the
// DB mutex; the CompactionJob calls the rest from its one thread without it.

#ifndef CASCADEDB_DB_COMPACTION_H_
#define CASCADEDB_DB_COMPACTION_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cascadedb/options.h"
#include "cascadedb/slice.h"
#include "db/dbformat.h"
#include "db/version_edit.h"

namespace cascadedb {

class Version;
class VersionSet;

// Why a compaction was picked. Reported in logs and stats; not persisted.
enum class CompactionReason {
  kL0FileCount,  // L0 holds level0_file_num_compaction_trigger files or more
  kLevelSize,    // a level holds more bytes than its target
  kManual,       // DB::CompactRange
  kSeek,         // a file used up its allowed seeks (Options::seek_compaction)
};

// "L0FileCount", "LevelSize", "Manual" or "Seek".
const char* CompactionReasonName(CompactionReason reason);

class Compaction {
 public:
  Compaction(const Compaction&) = delete;
  Compaction& operator=(const Compaction&) = delete;
  // Releases the inputs if ReleaseInputs was not called, and drops the
  // reference to the input Version. REQUIRES: DB mutex held.
  ~Compaction();

  // The level the inputs come from, and the level the outputs go to:
  // level() + 1, or level() itself for a manual compaction of the last
  // level (whose inputs are then all in inputs(0)).
  int level() const { return level_; }
  int output_level() const { return output_level_; }
  CompactionReason reason() const { return reason_; }
  // The level's compaction score when picked (0 for manual compactions).
  double score() const { return score_; }
  bool is_manual() const { return reason_ == CompactionReason::kManual; }

  // The edit that will install the result. The picker has put the new
  // compaction cursor in it; the job adds deletions and outputs.
  VersionEdit* edit() { return &edit_; }

  // which 0: files of level(); which 1: files of output_level() (empty
  // when output_level() == level()). Level order: L0 newest first, other
  // levels by smallest key. The files are borrowed from the input Version.
  int num_input_files(int which) const {
    return static_cast<int>(inputs_[which].size());
  }
  FileMetaData* input(int which, int i) const { return inputs_[which][i]; }
  const std::vector<FileMetaData*>& inputs(int which) const {
    return inputs_[which];
  }

  // The files of output_level() + 1 overlapping the inputs' key range.
  const std::vector<FileMetaData*>& grandparents() const {
    return grandparents_;
  }

  // The smallest and largest internal keys over all inputs.
  const InternalKey& smallest() const { return smallest_; }
  const InternalKey& largest() const { return largest_; }

  // The target size of output files:
  // target_file_size_base * target_file_size_multiplier^(output_level - 1).
  // They are cut at OutputSizeLimit() at the latest, and may end sooner at
  // a grandparent boundary (ShouldStopBefore).
  uint64_t MaxOutputFileSize() const { return max_output_file_size_; }

  // The compression for output files: bottommost_compression when set and
  // IsBottommostLevel(), else compression_per_level[output_level] (levels
  // past its end use the last entry) when given, else compression.
  CompressionType OutputCompression() const;

  // True if the job can just re-link the single input file into
  // output_level(): one input file, nothing overlapping it in
  // output_level(), and at most 10 x MaxOutputFileSize() of overlapping
  // grandparent bytes (so a later compaction of it stays small). Never for
  // manual compactions, which must rewrite the data.
  bool IsTrivialMove() const;

  // IsTrivialMove's test on the parts of a compaction (the picker asks it
  // of candidates it has not built yet).
  static bool IsTrivialMove(CompactionReason reason, int level,
                            int output_level,
                            const std::vector<FileMetaData*>& level_inputs,
                            const std::vector<FileMetaData*>& output_inputs,
                            const std::vector<FileMetaData*>& grandparents,
                            uint64_t max_output_file_size);

  // True if no level below output_level() holds data in the inputs' key
  // range (in the input Version): the outputs are then the oldest data for
  // their keys.
  bool IsBottommostLevel() const { return bottommost_; }

  // Adds the deletion of every input file to *edit.
  void AddInputDeletions(VersionEdit* edit) const;

  // True if no level below output_level() may hold user_key, so a deletion
  // of it can be dropped. Keeps a cursor per level: REQUIRES that calls come
  // with user keys in ascending order (as the merge produces them).
  bool IsBaseLevelForKey(const Slice& user_key);

  // True if the output file being written (output_bytes long so far)
  // should be closed before internal_key. Only a key that is the first
  // past the end of a grandparent file (a "boundary") closes one, when
  // - the keys written to the output since it was opened now overlap more
  //   than 10 x MaxOutputFileSize() bytes of grandparent files; or
  // - outputs are aligned (AlignsOutputs()), the output holds at least half
  //   of MaxOutputFileSize(), and at the average spacing of the boundaries
  //   it has crossed the next one would come past MaxOutputFileSize().
  //   The output then ends where a grandparent file does, so a later
  //   compaction of it into output_level() + 1 reads no grandparent file
  //   it only grazes.
  // Call it for every key, in order.
  bool ShouldStopBefore(const Slice& internal_key, uint64_t output_bytes);

  // True if ShouldStopBefore would cut somewhere after the last key given
  // to it and up to last_internal_key, were it given a run of keys ending
  // there one by one while the output holds output_bytes. Changes nothing.
  // The job copies a stored block whole only when no such cut is due in
  // it, so every cut falls on its boundary and not after the block.
  bool WouldCutWithin(const Slice& last_internal_key,
                      uint64_t output_bytes) const;

  // Tells ShouldStopBefore that the job closed the output for another
  // reason (its size): the next output's overlap starts from zero.
  void OutputClosed();

  // Whether outputs are cut at grandparent boundaries (see
  // ShouldStopBefore): when there are grandparents and
  // Options::align_compaction_outputs is set.
  bool AlignsOutputs() const { return align_outputs_; }

  // The size at which the job closes an output whatever its keys:
  // MaxOutputFileSize(), or twice that when outputs are aligned (an output
  // may run past its target to end at a grandparent boundary).
  uint64_t OutputSizeLimit() const {
    return align_outputs_ ? 2 * max_output_file_size_ : max_output_file_size_;
  }

  // Bytes of all input files.
  uint64_t TotalInputBytes() const;

  // Clears being_compacted on the inputs, removes this compaction from the
  // picker's running set and re-scores the current Version, so the files
  // and the key range can be picked again. Call it when the compaction ends,
  // with or without success, after its edit is installed (if it is).
  // Idempotent. REQUIRES: DB mutex held.
  void ReleaseInputs();

  // The Version the inputs were picked from; referenced until the
  // Compaction is deleted.
  Version* input_version() const { return input_version_; }

  // "L1 -> L2: [12 13] + [20 21]" for logs.
  std::string Summary() const;

 private:
  friend class CompactionPicker;

  // Built only by the picker. Takes a reference on input_version.
  // REQUIRES: DB mutex held.
  Compaction(VersionSet* vset, Version* input_version, int level,
             int output_level, CompactionReason reason, double score);

  // The grandparent overlap at which outputs are cut.
  uint64_t MaxGrandParentOverlapBytes() const {
    return MaxGrandParentOverlapBytes(max_output_file_size_);
  }
  static uint64_t MaxGrandParentOverlapBytes(uint64_t max_output_file_size) {
    return 10 * max_output_file_size;
  }

  // Where the keys given to ShouldStopBefore have got among the
  // grandparents: the first file whose end they have not passed, and the
  // grandparent bytes and ends the current output has gone past.
  struct BoundaryCursor {
    size_t index = 0;
    uint64_t overlapped_bytes = 0;
    uint64_t crossed = 0;
  };

  // Moves *cursor past the grandparent files that end before internal_key
  // and returns whether a cut is due at one of those ends
  // (CutDueAtBoundary). Counts nothing before the first key
  // (seen_key_). ShouldStopBefore moves the real cursor, WouldCutWithin a
  // copy.
  bool AdvanceBoundaries(const Slice& internal_key, uint64_t output_bytes,
                         BoundaryCursor* cursor) const;

  // ShouldStopBefore's rules at a boundary, for an output of output_bytes
  // that now overlaps overlapped_bytes of grandparents and has crossed
  // `boundaries` of their ends.
  bool CutDueAtBoundary(uint64_t overlapped_bytes, uint64_t boundaries,
                        uint64_t output_bytes) const;

  VersionSet* const vset_;
  Version* const input_version_;
  const int level_;
  const int output_level_;
  const CompactionReason reason_;
  const double score_;
  const uint64_t max_output_file_size_;
  VersionEdit edit_;
  std::vector<FileMetaData*> inputs_[2];
  std::vector<FileMetaData*> grandparents_;
  InternalKey smallest_;
  InternalKey largest_;
  bool bottommost_ = false;
  bool released_ = false;

  // ShouldStopBefore's state: where the keys are among the grandparents,
  // and whether any key was seen.
  BoundaryCursor boundary_;
  bool seen_key_ = false;
  bool align_outputs_ = false;

  // IsBaseLevelForKey's cursor: per level, the index of the first file
  // whose largest user key may still be >= the keys asked about.
  std::vector<size_t> level_ptrs_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_COMPACTION_H_

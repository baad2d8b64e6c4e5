// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/compaction_picker.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <utility>
#include <vector>

#include "db/version_set.h"

namespace cascadedb {

namespace {

// How many target-sized files' worth of bytes an expanded compaction may
// read (LevelDB's ExpandedCompactionByteSizeLimit).
constexpr uint64_t kExpandedCompactionFactor = 25;

// L0 near a stall jumps the queue only while L1 holds less than this many
// times its target: beyond it every L0->L1 compaction rewrites over twice
// its input from L1, and draining L1 first is cheaper (measured: 1 KiB
// fillrandom with 4 MiB memtables, L1 W-Amp 3.8 -> 1.2).
constexpr double kL1BloatScore = 2.0;

bool AnyBeingCompacted(const std::vector<FileMetaData*>& files) {
  for (const FileMetaData* f : files) {
    if (f->being_compacted) return true;
  }
  return false;
}

// The smallest and largest internal keys of files. REQUIRES: non-empty.
void GetRange(const InternalKeyComparator& icmp,
              const std::vector<FileMetaData*>& files, InternalKey* smallest,
              InternalKey* largest) {
  assert(!files.empty());
  *smallest = files[0]->smallest;
  *largest = files[0]->largest;
  for (size_t i = 1; i < files.size(); i++) {
    const FileMetaData* f = files[i];
    if (icmp.Compare(f->smallest.Encode(), smallest->Encode()) < 0) {
      *smallest = f->smallest;
    }
    if (icmp.Compare(f->largest.Encode(), largest->Encode()) > 0) {
      *largest = f->largest;
    }
  }
}

// The range over the files of a and b. REQUIRES: a or b non-empty.
void GetRange2(const InternalKeyComparator& icmp,
               const std::vector<FileMetaData*>& a,
               const std::vector<FileMetaData*>& b, InternalKey* smallest,
               InternalKey* largest) {
  std::vector<FileMetaData*> all = a;
  all.insert(all.end(), b.begin(), b.end());
  GetRange(icmp, all, smallest, largest);
}

// The file of level_files with the smallest smallest-key among those that
// start after largest_key but with its user key: the continuation of that
// user key in the next file (LevelDB's FindSmallestBoundaryFile).
FileMetaData* FindSmallestBoundaryFile(
    const InternalKeyComparator& icmp,
    const std::vector<FileMetaData*>& level_files,
    const InternalKey& largest_key) {
  const Comparator* ucmp = icmp.user_comparator();
  FileMetaData* result = nullptr;
  for (FileMetaData* f : level_files) {
    if (icmp.Compare(f->smallest.Encode(), largest_key.Encode()) > 0 &&
        ucmp->Compare(f->smallest.user_key(), largest_key.user_key()) == 0) {
      if (result == nullptr ||
          icmp.Compare(f->smallest.Encode(), result->smallest.Encode()) < 0) {
        result = f;
      }
    }
  }
  return result;
}

// Adds to *files the files of level_files that continue the user key of
// their largest key, repeatedly. Without this, moving a file holding k@5
// down while the next file, holding k@3, stayed would put the older k@3
// above the newer k@5 (LevelDB's AddBoundaryInputs).
void AddBoundaryInputs(const InternalKeyComparator& icmp,
                       const std::vector<FileMetaData*>& level_files,
                       std::vector<FileMetaData*>* files) {
  if (files->empty()) return;
  InternalKey smallest;
  InternalKey largest;
  GetRange(icmp, *files, &smallest, &largest);
  while (true) {
    FileMetaData* next = FindSmallestBoundaryFile(icmp, level_files, largest);
    if (next == nullptr) break;
    files->push_back(next);
    largest = next->largest;
  }
}

// base x factor^exponent, saturating at the uint64_t maximum.
uint64_t SaturatingPower(uint64_t base, double factor, int exponent) {
  constexpr double kMax =
      static_cast<double>(std::numeric_limits<uint64_t>::max());
  double result = static_cast<double>(base);
  for (int i = 0; i < exponent; i++) {
    result *= factor;
    if (result >= kMax) return std::numeric_limits<uint64_t>::max();
  }
  return static_cast<uint64_t>(result);
}

}  // namespace

// A compaction being considered: plain data, so it can be built and
// thrown away without side effects (NeedsCompaction).
struct CompactionPicker::Candidate {
  int level = 0;
  int output_level = 1;
  CompactionReason reason = CompactionReason::kLevelSize;
  double score = 0;
  std::vector<FileMetaData*> inputs[2];
  std::vector<FileMetaData*> grandparents;
  InternalKey smallest;  // over all inputs
  InternalKey largest;
  InternalKey cursor;  // largest key of inputs[0]: the level's next cursor
};

CompactionPicker::CompactionPicker(VersionSet* vset)
    : vset_(vset), options_(vset->options()), icmp_(vset->icmp()) {}

CompactionPicker::~CompactionPicker() { assert(running_.empty()); }

uint64_t CompactionPicker::MaxBytesForLevel(int level) const {
  return SaturatingPower(options_->max_bytes_for_level_base,
                         options_->max_bytes_for_level_multiplier,
                         std::max(level - 1, 0));
}

uint64_t CompactionPicker::MaxFileSizeForLevel(int level) const {
  return SaturatingPower(
      options_->target_file_size_base,
      static_cast<double>(options_->target_file_size_multiplier),
      std::max(level - 1, 0));
}

bool CompactionPicker::L0CompactionRunning() const {
  for (const Compaction* c : running_) {
    if (c->level() == 0) return true;
  }
  return false;
}

bool CompactionPicker::RangeOverlapsRunningOutput(
    int level, const Slice& smallest_user_key,
    const Slice& largest_user_key) const {
  const Comparator* ucmp = icmp_->user_comparator();
  for (const Compaction* c : running_) {
    if (c->output_level() != level) continue;
    if (ucmp->Compare(c->largest().user_key(), smallest_user_key) >= 0 &&
        ucmp->Compare(c->smallest().user_key(), largest_user_key) <= 0) {
      return true;
    }
  }
  return false;
}

std::vector<int> CompactionPicker::LevelsToTry(const Version* v) const {
  std::vector<int> levels;
  // When L0 nears a write stall (its file count at the slowdown trigger),
  // L0 goes first whatever the other scores (SILK's idea). Below that, the
  // highest score goes first: always preferring L0 as soon as it reaches
  // its compaction trigger starves L1->L2 under a steady write load (with
  // one compaction thread L1 then grows without bound and every L0->L1
  // compaction rewrites all of it). Nor does L0 jump the queue over an L1
  // at kL1BloatScore or more: L0 sitting at the slowdown trigger would
  // otherwise keep L1 from ever draining.
  const int slowdown = vset_->options()->level0_slowdown_writes_trigger;
  const bool l0_urgent =
      v->CompactionScore(0) >= 1 && v->NumFiles(0) >= slowdown &&
      (v->num_levels() < 3 || v->CompactionScore(1) < kL1BloatScore);
  if (l0_urgent) levels.push_back(0);
  std::vector<int> others;
  for (int level = l0_urgent ? 1 : 0; level < v->num_levels() - 1; level++) {
    if (v->CompactionScore(level) >= 1) others.push_back(level);
  }
  std::stable_sort(others.begin(), others.end(), [v](int a, int b) {
    return v->CompactionScore(a) > v->CompactionScore(b);
  });
  levels.insert(levels.end(), others.begin(), others.end());
  return levels;
}

bool CompactionPicker::NeedsCompaction(const Version* v) const {
  for (int level : LevelsToTry(v)) {
    Candidate c;
    if (PickAt(v, level, &c)) return true;
  }
  Candidate c;
  return PickSeek(v, &c);
}

Compaction* CompactionPicker::PickCompaction(Version* v) {
  const std::vector<int> levels = LevelsToTry(v);
  // A trivial move costs one manifest record, not a rewrite, and leaves its
  // level smaller, so every later compaction into that level reads less:
  // any level that can shed its next file that way does so first. (Without
  // this a level below a busier one stays over its target while its next
  // level has room, and each compaction into it rewrites the excess.)
  for (int level : levels) {
    Candidate c;
    if (PickAt(v, level, &c) && IsTrivialMove(c)) return Commit(v, &c);
  }
  for (int level : levels) {
    Candidate c;
    if (PickAt(v, level, &c)) return Commit(v, &c);
  }
  Candidate c;
  if (PickSeek(v, &c)) return Commit(v, &c);
  return nullptr;
}

bool CompactionPicker::IsTrivialMove(const Candidate& c) const {
  return Compaction::IsTrivialMove(c.reason, c.level, c.output_level,
                                   c.inputs[0], c.inputs[1], c.grandparents,
                                   MaxFileSizeForLevel(c.output_level));
}

bool CompactionPicker::PickSeek(const Version* v, Candidate* c) const {
  FileMetaData* f = v->file_to_compact();
  if (!options_->seek_compaction || f == nullptr || f->being_compacted) {
    return false;
  }
  c->level = v->file_to_compact_level();
  c->output_level = c->level + 1;
  c->score = 0;
  c->reason = CompactionReason::kSeek;
  if (c->level == 0) {
    // Out of L0 only together with every L0 file overlapping it.
    if (L0CompactionRunning()) return false;
    v->GetOverlappingInputs(0, &f->smallest, &f->largest, &c->inputs[0]);
  } else {
    c->inputs[0].assign(1, f);
  }
  return SetupOtherInputs(v, c) && Runnable(*c);
}

bool CompactionPicker::PickAt(const Version* v, int level, Candidate* c) const {
  c->level = level;
  c->output_level = level + 1;
  c->score = v->CompactionScore(level);
  c->reason = level == 0 ? CompactionReason::kL0FileCount
                         : CompactionReason::kLevelSize;
  const std::vector<FileMetaData*>& files = v->files(level);

  if (level == 0) {
    if (L0CompactionRunning()) return false;
    // Start from the oldest file: it has waited longest, and taking it
    // brings along every file overlapping it, so no newer file leaves L0
    // ahead of an older one with the same keys.
    const FileMetaData* seed = nullptr;
    for (auto it = files.rbegin(); it != files.rend(); ++it) {
      if (!(*it)->being_compacted) {
        seed = *it;
        break;
      }
    }
    if (seed == nullptr) return false;
    v->GetOverlappingInputs(0, &seed->smallest, &seed->largest, &c->inputs[0]);
    return SetupOtherInputs(v, c) && Runnable(*c);
  }

  if (files.empty()) return false;
  if (options_->compaction_pri == CompactionPri::kMinOverlappingRatio) {
    return PickMinOverlappingRatio(v, c);
  }
  // Round robin: start with the first file after the level's cursor, so
  // every key range gets its turn (LevelDB's compact pointer).
  size_t start = 0;
  const std::string& cursor = vset_->CompactCursor(level);
  if (!cursor.empty()) {
    start = FindFile(*icmp_, files, cursor);
    if (start < files.size() &&
        icmp_->Compare(files[start]->largest.Encode(), cursor) == 0) {
      start++;
    }
    if (start >= files.size()) start = 0;
  }
  // A file whose compaction would collide with a running one is skipped
  // for the next one in turn.
  for (size_t k = 0; k < files.size(); k++) {
    FileMetaData* f = files[(start + k) % files.size()];
    if (f->being_compacted) continue;
    c->inputs[0].assign(1, f);
    c->inputs[1].clear();
    c->grandparents.clear();
    if (SetupOtherInputs(v, c) && Runnable(*c)) return true;
  }
  return false;
}

bool CompactionPicker::PickMinOverlappingRatio(const Version* v,
                                               Candidate* c) const {
  const std::vector<FileMetaData*>& files = v->files(c->level);
  // (next-level bytes the file overlaps) / (its own bytes), per file.
  std::vector<std::pair<double, size_t>> order;
  order.reserve(files.size());
  std::vector<FileMetaData*> overlap;
  for (size_t i = 0; i < files.size(); i++) {
    const FileMetaData* f = files[i];
    if (f->being_compacted) continue;
    v->GetOverlappingInputs(c->output_level, &f->smallest, &f->largest,
                            &overlap);
    order.emplace_back(
        static_cast<double>(TotalFileSize(overlap)) /
            static_cast<double>(std::max<uint64_t>(f->file_size, 1)),
        i);
  }
  // Ties (e.g. several files with no overlap) go to the leftmost file.
  std::sort(order.begin(), order.end());
  for (const auto& [ratio, i] : order) {
    c->inputs[0].assign(1, files[i]);
    c->inputs[1].clear();
    c->grandparents.clear();
    if (SetupOtherInputs(v, c) && Runnable(*c)) return true;
  }
  return false;
}

bool CompactionPicker::SetupOtherInputs(const Version* v, Candidate* c) const {
  const int level = c->level;
  const int out = c->output_level;
  if (level > 0) AddBoundaryInputs(*icmp_, v->files(level), &c->inputs[0]);
  if (AnyBeingCompacted(c->inputs[0])) return false;

  InternalKey smallest;
  InternalKey largest;
  GetRange(*icmp_, c->inputs[0], &smallest, &largest);
  v->GetOverlappingInputs(out, &smallest, &largest, &c->inputs[1]);
  AddBoundaryInputs(*icmp_, v->files(out), &c->inputs[1]);
  if (AnyBeingCompacted(c->inputs[1])) return false;

  InternalKey all_start;
  InternalKey all_limit;
  GetRange2(*icmp_, c->inputs[0], c->inputs[1], &all_start, &all_limit);

  // Take more files of level if that adds no file of the output level and
  // the whole stays under the size limit: the extra input is nearly free.
  if (!c->inputs[1].empty()) {
    std::vector<FileMetaData*> expanded0;
    v->GetOverlappingInputs(level, &all_start, &all_limit, &expanded0);
    if (level > 0) AddBoundaryInputs(*icmp_, v->files(level), &expanded0);
    const uint64_t limit = kExpandedCompactionFactor * MaxFileSizeForLevel(out);
    if (expanded0.size() > c->inputs[0].size() &&
        !AnyBeingCompacted(expanded0) &&
        TotalFileSize(c->inputs[1]) + TotalFileSize(expanded0) < limit) {
      InternalKey new_start;
      InternalKey new_limit;
      GetRange(*icmp_, expanded0, &new_start, &new_limit);
      std::vector<FileMetaData*> expanded1;
      v->GetOverlappingInputs(out, &new_start, &new_limit, &expanded1);
      AddBoundaryInputs(*icmp_, v->files(out), &expanded1);
      // expanded1 covers inputs[1]; the same size means the same files.
      if (expanded1.size() == c->inputs[1].size()) {
        c->inputs[0] = std::move(expanded0);
        c->inputs[1] = std::move(expanded1);
        GetRange2(*icmp_, c->inputs[0], c->inputs[1], &all_start, &all_limit);
      }
    }
  }

  c->smallest = all_start;
  c->largest = all_limit;
  GetRange(*icmp_, c->inputs[0], &smallest, &c->cursor);
  c->grandparents.clear();
  if (out + 1 < v->num_levels()) {
    v->GetOverlappingInputs(out + 1, &all_start, &all_limit, &c->grandparents);
  }
  return true;
}

bool CompactionPicker::Runnable(const Candidate& c) const {
  if (c.level == 0 && L0CompactionRunning()) return false;
  const Slice lo = c.smallest.user_key();
  const Slice hi = c.largest.user_key();
  // Two compactions writing one key range of a level would produce
  // overlapping files there.
  if (RangeOverlapsRunningOutput(c.output_level, lo, hi)) return false;
  // Likewise a file still being logged into the output level.
  if (vset_->PendingEditsOverlap(c.output_level, lo, hi)) return false;
  return true;
}

Compaction* CompactionPicker::Commit(Version* v, Candidate* c) {
  Compaction* result =
      new Compaction(vset_, v, c->level, c->output_level, c->reason, c->score);
  result->inputs_[0] = std::move(c->inputs[0]);
  result->inputs_[1] = std::move(c->inputs[1]);
  result->grandparents_ = std::move(c->grandparents);
  result->align_outputs_ = vset_->options()->align_compaction_outputs &&
                           !result->grandparents_.empty();
  result->smallest_ = c->smallest;
  result->largest_ = c->largest;
  for (auto& files : result->inputs_) {
    for (FileMetaData* f : files) f->being_compacted = true;
  }
  const Slice lo = result->smallest_.user_key();
  const Slice hi = result->largest_.user_key();
  result->bottommost_ = true;
  for (int level = c->output_level + 1; level < v->num_levels(); level++) {
    if (v->OverlapInLevel(level, &lo, &hi)) {
      result->bottommost_ = false;
      break;
    }
  }
  if (c->level > 0 && c->reason == CompactionReason::kLevelSize) {
    // Advanced now, not when the compaction finishes, so the next pick at
    // this level moves on even while this one runs.
    vset_->SetCompactCursor(c->level, c->cursor.Encode());
    result->edit_.SetCompactCursor(c->level, c->cursor);
  }
  running_.push_back(result);
  v->ComputeCompactionScore();
  return result;
}

void CompactionPicker::Unregister(Compaction* c) {
  auto it = std::find(running_.begin(), running_.end(), c);
  if (it != running_.end()) running_.erase(it);
}

Compaction* CompactionPicker::CompactRange(Version* v, int level,
                                           const InternalKey* begin,
                                           const InternalKey* end, bool* busy) {
  if (busy != nullptr) *busy = false;
  assert(level >= 0 && level < v->num_levels());
  Candidate c;
  c.level = level;
  // The last level compacts into itself (to drop deletions and hidden
  // versions there).
  c.output_level = level == v->num_levels() - 1 ? level : level + 1;
  c.reason = CompactionReason::kManual;
  c.score = 0;
  v->GetOverlappingInputs(level, begin, end, &c.inputs[0]);
  if (c.inputs[0].empty()) return nullptr;

  bool ok;
  if (c.output_level == level) {
    AddBoundaryInputs(*icmp_, v->files(level), &c.inputs[0]);
    ok = !AnyBeingCompacted(c.inputs[0]);
    if (ok) {
      GetRange(*icmp_, c.inputs[0], &c.smallest, &c.largest);
      c.cursor = c.largest;
    }
  } else {
    ok = SetupOtherInputs(v, &c);
  }
  if (!ok || !Runnable(c)) {
    if (busy != nullptr) *busy = true;
    return nullptr;
  }
  return Commit(v, &c);
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/compaction.h"

#include <algorithm>
#include <cassert>
#include <cinttypes>
#include <cstdio>

#include "db/compaction_picker.h"
#include "db/version_set.h"

namespace cascadedb {

const char* CompactionReasonName(CompactionReason reason) {
  switch (reason) {
    case CompactionReason::kL0FileCount:
      return "L0FileCount";
    case CompactionReason::kLevelSize:
      return "LevelSize";
    case CompactionReason::kManual:
      return "Manual";
    case CompactionReason::kSeek:
      return "Seek";
  }
  return "Unknown";
}

Compaction::Compaction(VersionSet* vset, Version* input_version, int level,
                       int output_level, CompactionReason reason, double score)
    : vset_(vset),
      input_version_(input_version),
      level_(level),
      output_level_(output_level),
      reason_(reason),
      score_(score),
      max_output_file_size_(vset->picker()->MaxFileSizeForLevel(output_level)),
      level_ptrs_(vset->num_levels(), 0) {
  input_version_->Ref();
}

Compaction::~Compaction() {
  ReleaseInputs();
  input_version_->Unref();
}

CompressionType Compaction::OutputCompression() const {
  return CompressionForLevel(*vset_->options(), output_level_, bottommost_);
}

bool Compaction::IsTrivialMove() const {
  return IsTrivialMove(reason_, level_, output_level_, inputs_[0], inputs_[1],
                       grandparents_, max_output_file_size_);
}

bool Compaction::IsTrivialMove(CompactionReason reason, int level,
                               int output_level,
                               const std::vector<FileMetaData*>& level_inputs,
                               const std::vector<FileMetaData*>& output_inputs,
                               const std::vector<FileMetaData*>& grandparents,
                               uint64_t max_output_file_size) {
  // A manual compaction is asked for to rewrite data (drop deletions,
  // recompress): moving a file would do neither.
  return reason != CompactionReason::kManual && level != output_level &&
         level_inputs.size() == 1 && output_inputs.empty() &&
         TotalFileSize(grandparents) <=
             MaxGrandParentOverlapBytes(max_output_file_size);
}

void Compaction::AddInputDeletions(VersionEdit* edit) const {
  for (int which = 0; which < 2; which++) {
    const int level = which == 0 ? level_ : output_level_;
    for (const FileMetaData* f : inputs_[which]) {
      edit->RemoveFile(level, f->number);
    }
  }
}

bool Compaction::IsBaseLevelForKey(const Slice& user_key) {
  const Comparator* ucmp = vset_->icmp()->user_comparator();
  for (int level = output_level_ + 1; level < input_version_->num_levels();
       level++) {
    const std::vector<FileMetaData*>& files = input_version_->files(level);
    // Keys come in ascending order, so files passed once stay passed.
    while (level_ptrs_[level] < files.size()) {
      const FileMetaData* f = files[level_ptrs_[level]];
      if (ucmp->Compare(user_key, f->largest.user_key()) <= 0) {
        if (ucmp->Compare(user_key, f->smallest.user_key()) >= 0) {
          return false;  // f's range holds user_key
        }
        break;
      }
      level_ptrs_[level]++;
    }
  }
  return true;
}

bool Compaction::ShouldStopBefore(const Slice& internal_key,
                                  uint64_t output_bytes) {
  const bool cut = AdvanceBoundaries(internal_key, output_bytes, &boundary_);
  seen_key_ = true;
  if (cut) OutputClosed();  // a new output starts here
  return cut;
}

bool Compaction::WouldCutWithin(const Slice& last_internal_key,
                                uint64_t output_bytes) const {
  BoundaryCursor cursor = boundary_;
  return AdvanceBoundaries(last_internal_key, output_bytes, &cursor);
}

bool Compaction::AdvanceBoundaries(const Slice& internal_key,
                                   uint64_t output_bytes,
                                   BoundaryCursor* cursor) const {
  const InternalKeyComparator& icmp = *vset_->icmp();
  // Count the grandparent files the output has gone past since it opened
  // (none before the first key: no output is open yet).
  bool cut = false;
  while (cursor->index < grandparents_.size() &&
         icmp.Compare(internal_key,
                      grandparents_[cursor->index]->largest.Encode()) > 0) {
    if (seen_key_) {
      cursor->overlapped_bytes += grandparents_[cursor->index]->file_size;
      cursor->crossed++;
      cut = cut || CutDueAtBoundary(cursor->overlapped_bytes, cursor->crossed,
                                    output_bytes);
    }
    cursor->index++;
  }
  return cut;
}

bool Compaction::CutDueAtBoundary(uint64_t overlapped_bytes,
                                  uint64_t boundaries,
                                  uint64_t output_bytes) const {
  if (overlapped_bytes > MaxGrandParentOverlapBytes()) return true;
  if (!align_outputs_ || output_bytes < max_output_file_size_ / 2) {
    return false;
  }
  // The boundaries crossed so far predict the next one's distance; cut at
  // this one if the next would come past the target.
  const uint64_t spacing = output_bytes / boundaries;
  return output_bytes + spacing > max_output_file_size_;
}

void Compaction::OutputClosed() {
  boundary_.overlapped_bytes = 0;
  boundary_.crossed = 0;
}

uint64_t Compaction::TotalInputBytes() const {
  return TotalFileSize(inputs_[0]) + TotalFileSize(inputs_[1]);
}

void Compaction::ReleaseInputs() {
  if (released_) return;
  released_ = true;
  for (auto& files : inputs_) {
    for (FileMetaData* f : files) {
      assert(f->being_compacted);
      f->being_compacted = false;
    }
  }
  vset_->picker()->Unregister(this);
  vset_->current()->ComputeCompactionScore();
}

std::string Compaction::Summary() const {
  std::string r = "L" + std::to_string(level_) + " -> L" +
                  std::to_string(output_level_) + ":";
  for (int which = 0; which < 2; which++) {
    if (which == 1 && inputs_[1].empty()) break;
    r.append(which == 0 ? " [" : " + [");
    for (size_t i = 0; i < inputs_[which].size(); i++) {
      if (i > 0) r.append(" ");
      r.append(std::to_string(inputs_[which][i]->number));
    }
    r.append("]");
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), " (%s, score %.2f)",
                CompactionReasonName(reason_), score_);
  r.append(buf);
  return r;
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "cascadedb/options.h"

#include <algorithm>
#include <string>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/env.h"

namespace cascadedb {

Options::Options() : comparator(BytewiseComparator()), env(Env::Default()) {}

const char* CompressionTypeName(CompressionType type) {
  switch (type) {
    case kNoCompression:
      return "NoCompression";
    case kSnappyCompression:
      return "Snappy";
    case kLZ4Compression:
      return "LZ4";
    case kZSTD:
      return "ZSTD";
    case kDisableCompressionOption:
      return "DisableOption";
  }
  return "Unknown";
}

const char* MemTableRepName(MemTableRep rep) {
  switch (rep) {
    case MemTableRep::kSkipList:
      return "skiplist";
    case MemTableRep::kBTree:
      return "btree";
  }
  return "unknown";
}

const char* CompactionPriName(CompactionPri pri) {
  switch (pri) {
    case CompactionPri::kMinOverlappingRatio:
      return "min_overlapping_ratio";
    case CompactionPri::kRoundRobin:
      return "round_robin";
  }
  return "unknown";
}

const char* FlushInCompactionName(FlushInCompaction f) {
  switch (f) {
    case FlushInCompaction::kAuto:
      return "auto";
    case FlushInCompaction::kNever:
      return "never";
    case FlushInCompaction::kAlways:
      return "always";
  }
  return "unknown";
}

CompressionType CompressionForLevel(const Options& options, int level,
                                    bool bottommost) {
  if (bottommost &&
      options.bottommost_compression != kDisableCompressionOption) {
    return options.bottommost_compression;
  }
  if (!options.compression_per_level.empty()) {
    const size_t index = std::min(static_cast<size_t>(level < 0 ? 0 : level),
                                  options.compression_per_level.size() - 1);
    return options.compression_per_level[index];
  }
  return options.compression;
}

const char* WALRecoveryModeName(WALRecoveryMode mode) {
  switch (mode) {
    case WALRecoveryMode::kTolerateCorruptedTailRecords:
      return "kTolerateCorruptedTailRecords";
    case WALRecoveryMode::kAbsoluteConsistency:
      return "kAbsoluteConsistency";
    case WALRecoveryMode::kPointInTimeRecovery:
      return "kPointInTimeRecovery";
    case WALRecoveryMode::kSkipAnyCorruptedRecords:
      return "kSkipAnyCorruptedRecords";
  }
  return "Unknown";
}

namespace {

// Collects every problem so the user fixes them all in one round.
class Problems {
 public:
  // Adds "name=value <what>" when bad is true.
  template <typename T>
  void Check(bool bad, const char* name, T value, const std::string& what) {
    if (!bad) return;
    if (!text_.empty()) text_.append("; ");
    text_.append(name).append("=").append(ToText(value)).append(" ");
    text_.append(what);
  }

  Status ToStatus() const {
    return text_.empty() ? Status::OK()
                         : Status::InvalidArgument("invalid options", text_);
  }

 private:
  static std::string ToText(const void* p) { return p ? "set" : "null"; }
  static std::string ToText(double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }
  template <typename T>
  static std::string ToText(T v) {
    return std::to_string(v);
  }

  std::string text_;
};

bool IsCodec(CompressionType t) {
  return t == kNoCompression || t == kSnappyCompression ||
         t == kLZ4Compression || t == kZSTD;
}

}  // namespace

Status ValidateOptions(const Options& o) {
  constexpr uint64_t kKiB = 1024;
  constexpr uint64_t kMiB = kKiB * 1024;
  constexpr uint64_t kGiB = kMiB * 1024;
  Problems p;
  p.Check(o.comparator == nullptr, "comparator",
          static_cast<const void*>(o.comparator), "must be set");
  p.Check(o.env == nullptr, "env", static_cast<const void*>(o.env),
          "must be set");

  p.Check(o.write_buffer_size < 4 * kKiB || o.write_buffer_size > 64 * kGiB,
          "write_buffer_size", o.write_buffer_size,
          "is outside [4096, 68719476736]");
  p.Check(o.max_write_buffer_number < 2 || o.max_write_buffer_number > 64,
          "max_write_buffer_number", o.max_write_buffer_number,
          "is outside [2, 64]");

  p.Check(!(o.memtable_prefix_bloom_size_ratio >= 0 &&
            o.memtable_prefix_bloom_size_ratio <= 0.25),
          "memtable_prefix_bloom_size_ratio",
          o.memtable_prefix_bloom_size_ratio, "is outside [0, 0.25]");
  p.Check(o.memtable_rep != MemTableRep::kSkipList &&
              o.memtable_rep != MemTableRep::kBTree,
          "memtable_rep", static_cast<int>(o.memtable_rep),
          "is not kSkipList (0) or kBTree (1)");

  p.Check(o.num_levels < 2 || o.num_levels > 20, "num_levels", o.num_levels,
          "is outside [2, 20]");
  p.Check(o.compaction_pri != CompactionPri::kMinOverlappingRatio &&
              o.compaction_pri != CompactionPri::kRoundRobin,
          "compaction_pri", static_cast<int>(o.compaction_pri),
          "is not kMinOverlappingRatio (3) or kRoundRobin (4)");
  p.Check(o.level0_file_num_compaction_trigger < 1,
          "level0_file_num_compaction_trigger",
          o.level0_file_num_compaction_trigger, "must be at least 1");
  p.Check(o.max_bytes_for_level_base == 0, "max_bytes_for_level_base",
          o.max_bytes_for_level_base, "must be positive");
  p.Check(!(o.max_bytes_for_level_multiplier > 1),
          "max_bytes_for_level_multiplier", o.max_bytes_for_level_multiplier,
          "must be greater than 1");
  p.Check(o.target_file_size_base < kKiB, "target_file_size_base",
          o.target_file_size_base, "must be at least 1024");
  p.Check(o.target_file_size_multiplier < 1, "target_file_size_multiplier",
          o.target_file_size_multiplier, "must be at least 1");
  p.Check(o.max_background_flushes < 1 || o.max_background_flushes > 64,
          "max_background_flushes", o.max_background_flushes,
          "is outside [1, 64]");
  p.Check(o.max_background_compactions < 1 || o.max_background_compactions > 64,
          "max_background_compactions", o.max_background_compactions,
          "is outside [1, 64]");
  p.Check(o.flush_in_compaction != FlushInCompaction::kAuto &&
              o.flush_in_compaction != FlushInCompaction::kNever &&
              o.flush_in_compaction != FlushInCompaction::kAlways,
          "flush_in_compaction", static_cast<int>(o.flush_in_compaction),
          "is not kAuto (0), kNever (1) or kAlways (2)");

  p.Check(
      o.level0_slowdown_writes_trigger < o.level0_file_num_compaction_trigger,
      "level0_slowdown_writes_trigger", o.level0_slowdown_writes_trigger,
      "is below level0_file_num_compaction_trigger=" +
          std::to_string(o.level0_file_num_compaction_trigger));
  p.Check(o.level0_stop_writes_trigger < o.level0_slowdown_writes_trigger,
          "level0_stop_writes_trigger", o.level0_stop_writes_trigger,
          "is below level0_slowdown_writes_trigger=" +
              std::to_string(o.level0_slowdown_writes_trigger));
  p.Check(o.soft_pending_compaction_bytes_limit != 0 &&
              o.hard_pending_compaction_bytes_limit != 0 &&
              o.soft_pending_compaction_bytes_limit >
                  o.hard_pending_compaction_bytes_limit,
          "soft_pending_compaction_bytes_limit",
          o.soft_pending_compaction_bytes_limit,
          "is above hard_pending_compaction_bytes_limit=" +
              std::to_string(o.hard_pending_compaction_bytes_limit));
  p.Check(o.delayed_write_rate == 0, "delayed_write_rate", o.delayed_write_rate,
          "must be positive");

  p.Check(o.block_size < 256 || o.block_size > 256 * kMiB, "block_size",
          o.block_size, "is outside [256, 268435456]");
  p.Check(o.block_restart_interval < 1, "block_restart_interval",
          o.block_restart_interval, "must be at least 1");
  const char* kCodecs = "is not a codec (0 none, 1 snappy, 4 lz4, 7 zstd)";
  p.Check(!IsCodec(o.compression), "compression",
          static_cast<int>(o.compression), kCodecs);
  for (size_t i = 0; i < o.compression_per_level.size(); ++i) {
    p.Check(!IsCodec(o.compression_per_level[i]),
            ("compression_per_level[" + std::to_string(i) + "]").c_str(),
            static_cast<int>(o.compression_per_level[i]), kCodecs);
  }
  p.Check(o.bottommost_compression != kDisableCompressionOption &&
              !IsCodec(o.bottommost_compression),
          "bottommost_compression", static_cast<int>(o.bottommost_compression),
          kCodecs);
  p.Check(static_cast<unsigned>(o.wal_recovery_mode) > 3, "wal_recovery_mode",
          static_cast<int>(o.wal_recovery_mode), "is outside [0, 3]");
  p.Check(o.max_manifest_file_size < 4 * kKiB, "max_manifest_file_size",
          o.max_manifest_file_size, "must be at least 4096");
  p.Check(o.max_open_files != -1 && o.max_open_files < 10, "max_open_files",
          o.max_open_files, "must be -1 (unlimited) or at least 10");
  p.Check(!(o.bloom_bits_per_key >= 0 && o.bloom_bits_per_key <= 100),
          "bloom_bits_per_key", o.bloom_bits_per_key, "is outside [0, 100]");

  p.Check(o.compaction_readahead_size > kGiB, "compaction_readahead_size",
          o.compaction_readahead_size, "is above 1073741824");
  p.Check(o.writable_file_max_buffer_size > kGiB,
          "writable_file_max_buffer_size", o.writable_file_max_buffer_size,
          "is above 1073741824");
  return p.ToStatus();
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/version_edit.h"

#include <cinttypes>
#include <cstdio>

#include "util/coding.h"

namespace cascadedb {

Table* PinnedTable::Set(Cache* cache, Cache::Handle* handle, Table* table) {
  Pin* pin = new Pin{cache, handle, table};
  Pin* expected = nullptr;
  if (pin_.compare_exchange_strong(expected, pin, std::memory_order_acq_rel,
                                   std::memory_order_acquire)) {
    return table;
  }
  delete pin;
  cache->Release(handle);
  return expected->table;
}

void PinnedTable::Reset() {
  Pin* pin = pin_.exchange(nullptr, std::memory_order_acq_rel);
  if (pin == nullptr) return;
  pin->cache->Release(pin->handle);
  delete pin;
}

namespace {

// Field tags of the encoding (docs/format/manifest.md). Persistent: never
// renumber. Tags with kTagSafeToIgnore set carry a length-prefixed payload
// that an older reader may skip.
enum Tag : uint32_t {
  kComparator = 1,
  kLogNumber = 2,
  kNextFileNumber = 3,
  kLastSequence = 4,
  kCompactCursor = 5,
  kDeletedFile = 6,
  kNewFile = 7,
};
constexpr uint32_t kTagSafeToIgnore = 1u << 13;

// Levels are stored as varint32 and must fit the engine's limit.
constexpr uint32_t kMaxEncodedLevel = 64;

bool GetLevel(Slice* input, int* level) {
  uint32_t v;
  if (!GetVarint32(input, &v) || v >= kMaxEncodedLevel) return false;
  *level = static_cast<int>(v);
  return true;
}

bool GetInternalKey(Slice* input, InternalKey* key) {
  Slice s;
  return GetLengthPrefixedSlice(input, &s) && key->DecodeFrom(s);
}

}  // namespace

void VersionEdit::EncodeTo(std::string* dst) const {
  if (has_comparator_) {
    PutVarint32(dst, kComparator);
    PutLengthPrefixedSlice(dst, comparator_);
  }
  if (has_log_number_) {
    PutVarint32(dst, kLogNumber);
    PutVarint64(dst, log_number_);
  }
  if (has_next_file_number_) {
    PutVarint32(dst, kNextFileNumber);
    PutVarint64(dst, next_file_number_);
  }
  if (has_last_sequence_) {
    PutVarint32(dst, kLastSequence);
    PutVarint64(dst, last_sequence_);
  }
  for (const auto& [level, key] : compact_cursors_) {
    PutVarint32(dst, kCompactCursor);
    PutVarint32(dst, static_cast<uint32_t>(level));
    PutLengthPrefixedSlice(dst, key.Encode());
  }
  for (const auto& [level, number] : deleted_files_) {
    PutVarint32(dst, kDeletedFile);
    PutVarint32(dst, static_cast<uint32_t>(level));
    PutVarint64(dst, number);
  }
  for (const auto& [level, f] : new_files_) {
    PutVarint32(dst, kNewFile);
    PutVarint32(dst, static_cast<uint32_t>(level));
    PutVarint64(dst, f.number);
    PutVarint64(dst, f.file_size);
    PutLengthPrefixedSlice(dst, f.smallest.Encode());
    PutLengthPrefixedSlice(dst, f.largest.Encode());
    PutVarint64(dst, f.smallest_seqno);
    PutVarint64(dst, f.largest_seqno);
  }
}

Status VersionEdit::DecodeFrom(const Slice& src) {
  Clear();
  Slice input = src;
  const char* bad = nullptr;
  uint32_t tag;
  while (bad == nullptr && GetVarint32(&input, &tag)) {
    switch (tag) {
      case kComparator: {
        Slice name;
        if (GetLengthPrefixedSlice(&input, &name)) {
          SetComparatorName(name);
        } else {
          bad = "comparator name";
        }
        break;
      }
      case kLogNumber:
        if (GetVarint64(&input, &log_number_)) {
          has_log_number_ = true;
        } else {
          bad = "log number";
        }
        break;
      case kNextFileNumber:
        if (GetVarint64(&input, &next_file_number_)) {
          has_next_file_number_ = true;
        } else {
          bad = "next file number";
        }
        break;
      case kLastSequence:
        if (GetVarint64(&input, &last_sequence_) &&
            last_sequence_ <= kMaxSequenceNumber) {
          has_last_sequence_ = true;
        } else {
          bad = "last sequence";
        }
        break;
      case kCompactCursor: {
        int level;
        InternalKey key;
        if (GetLevel(&input, &level) && GetInternalKey(&input, &key)) {
          compact_cursors_.emplace_back(level, key);
        } else {
          bad = "compaction cursor";
        }
        break;
      }
      case kDeletedFile: {
        int level;
        uint64_t number;
        if (GetLevel(&input, &level) && GetVarint64(&input, &number)) {
          deleted_files_.insert(std::make_pair(level, number));
        } else {
          bad = "deleted-file entry";
        }
        break;
      }
      case kNewFile: {
        int level;
        FileMetaData f;
        if (GetLevel(&input, &level) && GetVarint64(&input, &f.number) &&
            GetVarint64(&input, &f.file_size) &&
            GetInternalKey(&input, &f.smallest) &&
            GetInternalKey(&input, &f.largest) &&
            GetVarint64(&input, &f.smallest_seqno) &&
            GetVarint64(&input, &f.largest_seqno)) {
          new_files_.emplace_back(level, f);
        } else {
          bad = "new-file entry";
        }
        break;
      }
      default: {
        Slice skipped;
        if ((tag & kTagSafeToIgnore) == 0 ||
            !GetLengthPrefixedSlice(&input, &skipped)) {
          return Status::Corruption("version edit: unknown tag " +
                                    std::to_string(tag));
        }
        break;
      }
    }
  }
  if (bad == nullptr && !input.empty()) bad = "trailing bytes";
  if (bad != nullptr) {
    return Status::Corruption("version edit: bad " + std::string(bad));
  }
  return Status::OK();
}

std::string VersionEdit::DebugString() const {
  std::string r = "VersionEdit {";
  char buf[128];
  if (has_comparator_) r.append("\n  Comparator: ").append(comparator_);
  if (has_log_number_) {
    std::snprintf(buf, sizeof(buf), "\n  LogNumber: %" PRIu64, log_number_);
    r.append(buf);
  }
  if (has_next_file_number_) {
    std::snprintf(buf, sizeof(buf), "\n  NextFileNumber: %" PRIu64,
                  next_file_number_);
    r.append(buf);
  }
  if (has_last_sequence_) {
    std::snprintf(buf, sizeof(buf), "\n  LastSequence: %" PRIu64,
                  last_sequence_);
    r.append(buf);
  }
  for (const auto& [level, key] : compact_cursors_) {
    std::snprintf(buf, sizeof(buf), "\n  CompactCursor: L%d ", level);
    r.append(buf).append(key.DebugString());
  }
  for (const auto& [level, number] : deleted_files_) {
    std::snprintf(buf, sizeof(buf), "\n  DeleteFile: L%d %06" PRIu64, level,
                  number);
    r.append(buf);
  }
  for (const auto& [level, f] : new_files_) {
    std::snprintf(buf, sizeof(buf),
                  "\n  AddFile: L%d %06" PRIu64 " %" PRIu64
                  " bytes seq [%" PRIu64 ", %" PRIu64 "] ",
                  level, f.number, f.file_size, f.smallest_seqno,
                  f.largest_seqno);
    r.append(buf).append(f.smallest.DebugString()).append(" .. ");
    r.append(f.largest.DebugString());
  }
  r.append("\n}\n");
  return r;
}

}  // namespace cascadedb

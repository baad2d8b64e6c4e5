// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The record log shared by the WAL and the MANIFEST. The file is a sequence
// of 32 KiB blocks; each record is stored as one or more fragments, each
// with a 7-byte header:
//
//   masked CRC32C (4, little-endian) | length (2, little-endian) | type (1)
//
// or, in a recyclable log (a WAL that may be written over an obsolete one),
// an 11-byte header that adds the low 32 bits of the log's file number:
//
//   masked CRC32C (4) | length (2) | type (1) | log number (4, little-endian)
//
// The CRC covers the type byte, the log number (if any) and the payload.
// docs/format/log.md is the source of truth; these constants point there.
//
// Thread safety: constants only.

#ifndef CASCADEDB_DB_LOG_FORMAT_H_
#define CASCADEDB_DB_LOG_FORMAT_H_

#include <cstddef>

namespace cascadedb {
namespace log {

// Fragment types. Persistent (docs/format/log.md): never renumber.
enum RecordType : unsigned char {
  // Never written; zero bytes of a preallocated file read as this.
  kZeroType = 0,
  // A whole record in one fragment.
  kFullType = 1,
  // The first, a middle, and the last fragment of a record split across
  // blocks.
  kFirstType = 2,
  kMiddleType = 3,
  kLastType = 4,
  // The same four in a recyclable log, whose headers carry the log number.
  kRecyclableFullType = 5,
  kRecyclableFirstType = 6,
  kRecyclableMiddleType = 7,
  kRecyclableLastType = 8,
};

constexpr unsigned int kMaxRecordType = kRecyclableLastType;

inline bool IsRecyclableType(unsigned int type) {
  return type >= kRecyclableFullType && type <= kRecyclableLastType;
}

// The recyclable twin of a plain type (kFullType..kLastType), and back.
constexpr unsigned int kRecyclableTypeOffset = kRecyclableFullType - kFullType;
inline RecordType ToRecyclableType(RecordType plain) {
  return static_cast<RecordType>(plain + kRecyclableTypeOffset);
}
inline unsigned int ToPlainType(unsigned int recyclable) {
  return recyclable - kRecyclableTypeOffset;
}

// Records never straddle a block boundary without being fragmented.
constexpr size_t kBlockSize = 32768;

// checksum (4) + length (2) + type (1).
constexpr size_t kHeaderSize = 4 + 2 + 1;

// kHeaderSize + log number (4).
constexpr size_t kRecyclableHeaderSize = kHeaderSize + 4;

}  // namespace log
}  // namespace cascadedb

#endif  // CASCADEDB_DB_LOG_FORMAT_H_

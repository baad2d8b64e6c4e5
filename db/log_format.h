// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The record log shared by the WAL and the MANIFEST. The file is a sequence
// of 32 KiB blocks; each record is stored as one or more fragments, each
// with a 7-byte header:
//
//   masked CRC32C (4, little-endian) | length (2, little-endian) | type (1)
//
// The CRC covers the type byte and the payload. docs/format/log.md is the
// source of truth; these constants point there.
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
};

constexpr unsigned int kMaxRecordType = kLastType;

// Records never straddle a block boundary without being fragmented.
constexpr size_t kBlockSize = 32768;

// checksum (4) + length (2) + type (1).
constexpr size_t kHeaderSize = 4 + 2 + 1;

}  // namespace log
}  // namespace cascadedb

#endif  // CASCADEDB_DB_LOG_FORMAT_H_

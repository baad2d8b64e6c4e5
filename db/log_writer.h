// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// log::Writer: appends records to a record log (WAL or MANIFEST) in the
// format of docs/format/log.md: 32 KiB blocks, records split into
// FIRST/MIDDLE/LAST fragments across block boundaries, block tails too
// short for a header filled with zeros.
//
// Each AddRecord ends with WritableFile::Flush, so a record is handed to the
// OS before AddRecord returns (it survives a process crash); durability
// against power loss is the caller's WritableFile::Sync.
//
// Thread safety: not thread-safe (one writer, externally serialized: in the
// engine, the leader of a write group).

#ifndef CASCADEDB_DB_LOG_WRITER_H_
#define CASCADEDB_DB_LOG_WRITER_H_

#include <cstddef>
#include <cstdint>

#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "db/log_format.h"

namespace cascadedb {

class WritableFile;

namespace log {

class Writer {
 public:
  // Appends to dest, which is borrowed and must outlive the writer (and is
  // not closed by it). dest_length is the number of bytes dest already
  // holds (0 for a new file), so fragments keep to the block grid when
  // appending to an existing log.
  explicit Writer(WritableFile* dest, uint64_t dest_length = 0);

  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Appends one record holding slice (any size, possibly empty), then
  // flushes dest. Returns the WritableFile's error (IOError) if an append
  // or the flush fails. Errors are sticky: after one, the log may end in a
  // partial record, so every later call returns the same error without
  // writing; the caller must switch to a new log.
  Status AddRecord(const Slice& slice);

  // The log's length in bytes: dest_length plus everything written since
  // (including block-tail padding).
  uint64_t length() const { return length_; }

  // The borrowed destination.
  WritableFile* file() const { return dest_; }

 private:
  // Writes one fragment (header + payload) at the current position.
  Status EmitPhysicalRecord(RecordType type, const char* ptr, size_t length);

  WritableFile* const dest_;
  size_t block_offset_;  // Position within the current block.
  uint64_t length_;
  Status error_;  // The first error; sticky.

  // The CRC32C of each type byte, precomputed: the header CRC covers the
  // type followed by the payload.
  uint32_t type_crc_[kMaxRecordType + 1];
};

}  // namespace log
}  // namespace cascadedb

#endif  // CASCADEDB_DB_LOG_WRITER_H_

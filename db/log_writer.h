// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// log::Writer: appends records to a record log (WAL or MANIFEST) in the
// format of docs/format/log.md: 32 KiB blocks, records split into
// FIRST/MIDDLE/LAST fragments across block boundaries, block tails too
// short for a header filled with zeros. A recyclable log (Recyclable) puts
// its log number in every header.
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
#include <memory>

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

  // A writer of a recyclable log: every fragment header carries the low 32
  // bits of log_number (11-byte headers, the recyclable fragment types), so
  // a reader can tell this log's records from those of an obsolete log the
  // file held before. dest is written from offset 0.
  static std::unique_ptr<Writer> Recyclable(WritableFile* dest,
                                            uint64_t log_number);

  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Appends one record holding slice (any size, possibly empty), then
  // flushes dest. Returns the WritableFile's error (IOError) if an append
  // or the flush fails. Errors are sticky: after one, the log may end in a
  // partial record, so every later call returns the same error without
  // writing; the caller must switch to a new log.
  Status AddRecord(const Slice& slice);

  // Fills the rest of the current block with zeros (nothing if the block
  // is empty), so the next record starts a block. For a recyclable log
  // written over an older one: a reader then finds zeros, not the older
  // log's bytes, right after the last record, even if the file is never
  // cut to its length. Does not flush. Errors are sticky, as AddRecord's.
  Status PadBlock();

  // The log's length in bytes: dest_length plus everything written since
  // (including block-tail padding).
  uint64_t length() const { return length_; }

  // True for a writer made by Recyclable.
  bool recyclable() const { return recyclable_; }

  // The borrowed destination.
  WritableFile* file() const { return dest_; }

 private:
  // Writes one fragment (header + payload) at the current position.
  Status EmitPhysicalRecord(RecordType type, const char* ptr, size_t length);

  Writer(WritableFile* dest, uint64_t dest_length, bool recyclable,
         uint32_t log_number);

  WritableFile* const dest_;
  const bool recyclable_;
  const uint32_t log_number_;  // Low 32 bits; recyclable logs only.
  const size_t header_size_;   // kHeaderSize or kRecyclableHeaderSize.
  size_t block_offset_;        // Position within the current block.
  uint64_t length_;
  Status error_;  // The first error; sticky.

  // The CRC32C of each type byte (followed by the log number in a
  // recyclable log), precomputed: the header CRC covers those bytes
  // followed by the payload.
  uint32_t type_crc_[kMaxRecordType + 1];
};

}  // namespace log
}  // namespace cascadedb

#endif  // CASCADEDB_DB_LOG_WRITER_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/log_writer.h"

#include <cassert>

#include "cascadedb/env.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace cascadedb {
namespace log {

Writer::Writer(WritableFile* dest, uint64_t dest_length)
    : dest_(dest),
      block_offset_(static_cast<size_t>(dest_length % kBlockSize)),
      length_(dest_length) {
  for (unsigned int i = 0; i <= kMaxRecordType; i++) {
    const char t = static_cast<char>(i);
    type_crc_[i] = crc32c::Value(&t, 1);
  }
}

Status Writer::AddRecord(const Slice& slice) {
  if (!error_.ok()) return error_;
  const char* ptr = slice.data();
  size_t left = slice.size();

  // Emit at least one fragment, so an empty record is still a record.
  bool begin = true;
  Status s;
  do {
    const size_t leftover = kBlockSize - block_offset_;
    if (leftover < kHeaderSize) {
      // Too little room for a header: pad the block with zeros (readers
      // skip block tails shorter than a header) and start the next one.
      if (leftover > 0) {
        static constexpr char kZeros[kHeaderSize - 1] = {0, 0, 0, 0, 0, 0};
        s = dest_->Append(Slice(kZeros, leftover));
        if (!s.ok()) break;
        length_ += leftover;
      }
      block_offset_ = 0;
    }
    assert(kBlockSize - block_offset_ >= kHeaderSize);

    const size_t avail = kBlockSize - block_offset_ - kHeaderSize;
    const size_t fragment_length = left < avail ? left : avail;
    const bool end = (left == fragment_length);
    RecordType type;
    if (begin && end) {
      type = kFullType;
    } else if (begin) {
      type = kFirstType;
    } else if (end) {
      type = kLastType;
    } else {
      type = kMiddleType;
    }
    s = EmitPhysicalRecord(type, ptr, fragment_length);
    ptr += fragment_length;
    left -= fragment_length;
    begin = false;
  } while (s.ok() && left > 0);

  if (s.ok()) s = dest_->Flush();
  if (!s.ok()) error_ = s;
  return s;
}

Status Writer::EmitPhysicalRecord(RecordType type, const char* ptr,
                                  size_t length) {
  assert(length <= 0xffff);  // Fits the 2-byte length field.
  assert(block_offset_ + kHeaderSize + length <= kBlockSize);

  char header[kHeaderSize];
  uint32_t crc = crc32c::Extend(type_crc_[type], ptr, length);
  EncodeFixed32(header, crc32c::Mask(crc));
  header[4] = static_cast<char>(length & 0xff);
  header[5] = static_cast<char>(length >> 8);
  header[6] = static_cast<char>(type);

  Status s = dest_->Append(Slice(header, kHeaderSize));
  if (s.ok() && length > 0) s = dest_->Append(Slice(ptr, length));
  // Advance even on error: the sticky error stops further writes anyway.
  block_offset_ += kHeaderSize + length;
  length_ += kHeaderSize + length;
  return s;
}

}  // namespace log
}  // namespace cascadedb

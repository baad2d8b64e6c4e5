// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/log_writer.h"

#include <cassert>

#include "cascadedb/env.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace cascadedb {
namespace log {

Writer::Writer(WritableFile* dest, uint64_t dest_length)
    : Writer(dest, dest_length, /*recyclable=*/false, /*log_number=*/0) {}

std::unique_ptr<Writer> Writer::Recyclable(WritableFile* dest,
                                           uint64_t log_number) {
  return std::unique_ptr<Writer>(new Writer(dest, 0, /*recyclable=*/true,
                                            static_cast<uint32_t>(log_number)));
}

Writer::Writer(WritableFile* dest, uint64_t dest_length, bool recyclable,
               uint32_t log_number)
    : dest_(dest),
      recyclable_(recyclable),
      log_number_(log_number),
      header_size_(recyclable ? kRecyclableHeaderSize : kHeaderSize),
      block_offset_(static_cast<size_t>(dest_length % kBlockSize)),
      length_(dest_length) {
  char number[4];
  EncodeFixed32(number, log_number_);
  for (unsigned int i = 0; i <= kMaxRecordType; i++) {
    const char t = static_cast<char>(i);
    type_crc_[i] = crc32c::Value(&t, 1);
    if (recyclable_) type_crc_[i] = crc32c::Extend(type_crc_[i], number, 4);
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
    if (kBlockSize - block_offset_ < header_size_) {
      // Too little room for a header: pad the block with zeros (readers
      // skip block tails shorter than a header) and start the next one.
      // The zeros are written even over a recycled file's old bytes.
      s = PadBlock();
      if (!s.ok()) break;
    }
    assert(kBlockSize - block_offset_ >= header_size_);

    const size_t avail = kBlockSize - block_offset_ - header_size_;
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
    if (recyclable_) type = ToRecyclableType(type);
    s = EmitPhysicalRecord(type, ptr, fragment_length);
    ptr += fragment_length;
    left -= fragment_length;
    begin = false;
  } while (s.ok() && left > 0);

  if (s.ok()) s = dest_->Flush();
  if (!s.ok()) error_ = s;
  return s;
}

Status Writer::PadBlock() {
  if (!error_.ok()) return error_;
  if (block_offset_ == 0) return Status::OK();
  static constexpr char kZeros[4096] = {};
  Status s;
  size_t left = kBlockSize - block_offset_;
  while (s.ok() && left > 0) {
    const size_t n = left < sizeof(kZeros) ? left : sizeof(kZeros);
    s = dest_->Append(Slice(kZeros, n));
    left -= n;
    length_ += n;
  }
  if (!s.ok()) {
    error_ = s;
    return s;
  }
  block_offset_ = 0;
  return s;
}

Status Writer::EmitPhysicalRecord(RecordType type, const char* ptr,
                                  size_t length) {
  assert(length <= 0xffff);  // Fits the 2-byte length field.
  assert(block_offset_ + header_size_ + length <= kBlockSize);

  char header[kRecyclableHeaderSize];
  uint32_t crc = crc32c::Extend(type_crc_[type], ptr, length);
  EncodeFixed32(header, crc32c::Mask(crc));
  header[4] = static_cast<char>(length & 0xff);
  header[5] = static_cast<char>(length >> 8);
  header[6] = static_cast<char>(type);
  if (recyclable_) EncodeFixed32(header + kHeaderSize, log_number_);

  Status s = dest_->Append(Slice(header, header_size_));
  if (s.ok() && length > 0) s = dest_->Append(Slice(ptr, length));
  // Advance even on error: the sticky error stops further writes anyway.
  block_offset_ += header_size_ + length;
  length_ += header_size_ + length;
  return s;
}

}  // namespace log
}  // namespace cascadedb

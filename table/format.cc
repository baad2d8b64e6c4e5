// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/format.h"

#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "util/coding.h"
#include "util/compression.h"
#include "util/crc32c.h"

namespace cascadedb {

namespace {

// A block larger than this is treated as a corrupt handle rather than
// allocated: no writer produces one (block_size is at most 256 MiB).
constexpr uint64_t kMaxBlockSize = uint64_t{1} << 30;

std::string AtOffset(uint64_t offset) {
  return " at offset " + std::to_string(offset);
}

}  // namespace

void BlockHandle::EncodeTo(std::string* dst) const {
  // Encoding an unset handle is a bug in the caller.
  assert(offset_ != ~uint64_t{0});
  assert(size_ != ~uint64_t{0});
  PutVarint64(dst, offset_);
  PutVarint64(dst, size_);
}

Status BlockHandle::DecodeFrom(Slice* input) {
  if (GetVarint64(input, &offset_) && GetVarint64(input, &size_)) {
    return Status::OK();
  }
  return Status::Corruption("bad block handle");
}

void Footer::EncodeTo(std::string* dst) const {
  const size_t start = dst->size();
  metaindex_handle_.EncodeTo(dst);
  index_handle_.EncodeTo(dst);
  // Zero padding keeps the footer a fixed size whatever the varint lengths.
  dst->resize(start + 2 * BlockHandle::kMaxEncodedLength, '\0');
  PutFixed32(dst, format_version_);
  PutFixed64(dst, kTableMagicNumber);
  assert(dst->size() == start + kEncodedLength);
}

Status Footer::DecodeFrom(Slice* input) {
  if (input->size() < kEncodedLength) {
    return Status::Corruption("file is too short to be a table");
  }
  const char* footer = input->data() + input->size() - kEncodedLength;
  const char* magic_ptr = footer + 2 * BlockHandle::kMaxEncodedLength + 4;
  if (DecodeFixed64(magic_ptr) != kTableMagicNumber) {
    return Status::Corruption("bad table magic number");
  }
  const uint32_t version =
      DecodeFixed32(footer + 2 * BlockHandle::kMaxEncodedLength);
  if (version != kTableFormatVersion) {
    return Status::NotSupported("unknown table format version " +
                                std::to_string(version));
  }
  Slice handles(footer, 2 * BlockHandle::kMaxEncodedLength);
  Status s = metaindex_handle_.DecodeFrom(&handles);
  if (s.ok()) s = index_handle_.DecodeFrom(&handles);
  if (!s.ok()) return s;
  format_version_ = version;
  *input = Slice(input->data() + input->size(), 0);
  return Status::OK();
}

void EncodeBlockTrailer(const Slice& payload, CompressionType type,
                        char* trailer) {
  trailer[0] = static_cast<char>(type);
  uint32_t crc = crc32c::Value(payload.data(), payload.size());
  crc = crc32c::Extend(crc, trailer, 1);  // the type byte is covered too
  EncodeFixed32(trailer + 1, crc32c::Mask(crc));
}

namespace {

// Checks the checksum of a block as stored (payload and trailer), read at
// offset.
Status VerifyStoredBlock(const Slice& stored, uint64_t offset) {
  const char* data = stored.data();
  const size_t n = stored.size() - kBlockTrailerSize;
  const uint32_t expected = crc32c::Unmask(DecodeFixed32(data + n + 1));
  const uint32_t actual = crc32c::Value(data, n + 1);
  if (actual != expected) {
    return Status::Corruption("block checksum mismatch" + AtOffset(offset));
  }
  return Status::OK();
}

}  // namespace

Status ReadStoredBlock(RandomAccessFile* file, const BlockHandle& handle,
                       std::unique_ptr<char[]>* buf, Slice* stored) {
  const uint64_t offset = handle.offset();
  const uint64_t size = handle.size();
  if (size > kMaxBlockSize || offset > UINT64_MAX - size - kBlockTrailerSize) {
    return Status::Corruption("bad block handle (size " + std::to_string(size) +
                              ")" + AtOffset(offset));
  }
  const size_t n = static_cast<size_t>(size);
  // A file that returns its own memory (an mmap) needs no scratch buffer.
  buf->reset();
  if (!file->ReturnsOwnMemory()) buf->reset(new char[n + kBlockTrailerSize]);
  Slice contents;
  Status s = file->Read(offset, n + kBlockTrailerSize, &contents, buf->get());
  if (!s.ok()) return s;
  if (contents.size() != n + kBlockTrailerSize) {
    return Status::Corruption("truncated block read" + AtOffset(offset));
  }
  *stored = contents;
  return Status::OK();
}

namespace {

// UncompressStoredBlock without the checksum.
Status UncompressUnchecked(const Slice& stored, uint64_t offset,
                           std::unique_ptr<char[]>* buf,
                           BlockContents* result) {
  *result = BlockContents();
  const char* data = stored.data();
  const size_t n = stored.size() - kBlockTrailerSize;
  const auto type =
      static_cast<CompressionType>(static_cast<unsigned char>(data[n]));
  if (type == kNoCompression) {
    if (*buf != nullptr && data == buf->get()) {
      result->data = Slice(buf->release(), n);
      result->heap_allocated = true;
      result->cachable = true;
    } else {
      // The file handed back its own memory (e.g. an mmap): borrow it.
      result->data = Slice(data, n);
    }
    return Status::OK();
  }
  if (!CompressionTypeSupported(type)) {
    return Status::NotSupported("unknown compression type " +
                                std::to_string(static_cast<unsigned>(
                                    static_cast<unsigned char>(type))) +
                                AtOffset(offset));
  }
  std::unique_ptr<char[]> uncompressed;
  size_t uncompressed_size = 0;
  Status s =
      UncompressBlock(type, Slice(data, n), &uncompressed, &uncompressed_size);
  if (!s.ok()) {
    return Status::Corruption(s.message() + AtOffset(offset));
  }
  result->data = Slice(uncompressed.release(), uncompressed_size);
  result->heap_allocated = true;
  result->cachable = true;
  return Status::OK();
}

}  // namespace

Status UncompressStoredBlock(const Slice& stored, uint64_t offset,
                             bool verify_checksum, std::unique_ptr<char[]>* buf,
                             BlockContents* result) {
  *result = BlockContents();
  // A compressed block is checked after it is uncompressed, not before:
  // read from a mapping, its bytes are usually not in the CPU's caches
  // yet, and the uncompressing, which walks them in order anyway, hides
  // their fetching behind its own work, where the checksum would wait for
  // each line (seekrandom ~5% faster; docs/performance.md). The codecs are
  // safe on any input (reads with verify_checksum off rely on that too),
  // and nothing unchecked is returned: on a mismatch the result is freed.
  const size_t n = stored.size() - kBlockTrailerSize;
  const bool compressed =
      static_cast<CompressionType>(
          static_cast<unsigned char>(stored.data()[n])) != kNoCompression;
  if (verify_checksum && !compressed) {
    Status v = VerifyStoredBlock(stored, offset);
    if (!v.ok()) return v;
  }
  Status s = UncompressUnchecked(stored, offset, buf, result);
  if (verify_checksum && compressed) {
    // A bad checksum explains a malformed payload: it is the error named.
    Status v = VerifyStoredBlock(stored, offset);
    if (!v.ok()) {
      if (s.ok() && result->heap_allocated) delete[] result->data.data();
      *result = BlockContents();
      return v;
    }
  }
  return s;
}

Status ReadBlock(RandomAccessFile* file, bool verify_checksum,
                 const BlockHandle& handle, BlockContents* result) {
  *result = BlockContents();
  std::unique_ptr<char[]> buf;
  Slice stored;
  Status s = ReadStoredBlock(file, handle, &buf, &stored);
  if (!s.ok()) return s;
  return UncompressStoredBlock(stored, handle.offset(), verify_checksum, &buf,
                               result);
}

CompressionType ChooseBlockPayload(const Slice& raw, CompressionType type,
                                   int level, std::string* scratch,
                                   Slice* payload) {
  if (type != kNoCompression && CompressionTypeSupported(type) &&
      CompressBlock(type, level, raw, scratch) &&
      CompressionSavesEnough(raw.size(), scratch->size())) {
    *payload = *scratch;
    return type;
  }
  *payload = raw;
  return kNoCompression;
}

Status WriteBlock(WritableFile* file, uint64_t* offset, const Slice& raw,
                  CompressionType type, int level, std::string* scratch,
                  BlockHandle* handle, CompressionType* type_used) {
  Slice payload;
  const CompressionType stored =
      ChooseBlockPayload(raw, type, level, scratch, &payload);
  handle->set_offset(*offset);
  handle->set_size(payload.size());
  char trailer[kBlockTrailerSize];
  EncodeBlockTrailer(payload, stored, trailer);
  Status s = file->Append(payload);
  if (s.ok()) s = file->Append(Slice(trailer, kBlockTrailerSize));
  if (!s.ok()) return s;
  *offset += payload.size() + kBlockTrailerSize;
  *type_used = stored;
  return Status::OK();
}

}  // namespace cascadedb

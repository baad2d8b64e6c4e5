// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The SST container format: block handles, the 5-byte block trailer, the
// fixed-size footer, and reading/writing one block with its trailer. The
// byte layout is specified in docs/format/sst.md, which is the source of
// truth; the constants below point to its sections.
//
// Thread safety: BlockHandle and Footer are thread-compatible value types.
// ReadBlock is thread-safe (RandomAccessFile is); WriteBlock is not (a
// WritableFile is not).

#ifndef CASCADEDB_TABLE_FORMAT_H_
#define CASCADEDB_TABLE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cascadedb/env.h"
#include "cascadedb/options.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"

namespace cascadedb {

// The position of a block in the file: offset and size of the block's
// payload; size excludes the 5-byte trailer (docs/format/sst.md, "Block
// handle"). Encoded as varint64 offset, varint64 size.
class BlockHandle {
 public:
  // Two varint64s of at most 10 bytes each.
  static constexpr size_t kMaxEncodedLength = 10 + 10;

  BlockHandle() = default;
  BlockHandle(uint64_t offset, uint64_t size) : offset_(offset), size_(size) {}

  uint64_t offset() const { return offset_; }
  void set_offset(uint64_t offset) { offset_ = offset; }
  uint64_t size() const { return size_; }
  void set_size(uint64_t size) { size_ = size; }

  // Appends the encoding to *dst.
  void EncodeTo(std::string* dst) const;

  // Parses a handle from the front of *input and advances *input past it.
  // Returns Corruption("bad block handle") if the varints are malformed or
  // truncated; *input is then unspecified.
  Status DecodeFrom(Slice* input);

 private:
  // ~0 marks an unset handle (never written by a valid table).
  uint64_t offset_ = ~uint64_t{0};
  uint64_t size_ = ~uint64_t{0};
};

// The on-disk table format version written in the footer. Readers reject
// versions they do not know with NotSupported. Never reuse a value.
constexpr uint32_t kTableFormatVersion = 1;

// CascadeDB's SST magic: the bytes "CSDBSST1" stored little-endian as the
// last 8 bytes of every table (docs/format/sst.md, "Footer").
constexpr uint64_t kTableMagicNumber = 0x3154535342445343ull;

// The last kEncodedLength bytes of every table (docs/format/sst.md,
// "Footer"): metaindex handle, index handle, zero padding up to
// 2 * BlockHandle::kMaxEncodedLength, fixed32 format version, fixed64 magic.
class Footer {
 public:
  static constexpr size_t kEncodedLength =
      2 * BlockHandle::kMaxEncodedLength + 4 + 8;

  Footer() = default;

  const BlockHandle& metaindex_handle() const { return metaindex_handle_; }
  void set_metaindex_handle(const BlockHandle& h) { metaindex_handle_ = h; }
  const BlockHandle& index_handle() const { return index_handle_; }
  void set_index_handle(const BlockHandle& h) { index_handle_ = h; }
  uint32_t format_version() const { return format_version_; }

  // Appends exactly kEncodedLength bytes to *dst.
  void EncodeTo(std::string* dst) const;

  // Parses the footer from *input, which must hold at least kEncodedLength
  // bytes; the footer is taken from the last kEncodedLength of them. On
  // success *input is advanced to the end. Errors:
  //   Corruption("file is too short to be a table") — fewer bytes;
  //   Corruption("bad table magic number") — wrong magic;
  //   NotSupported("unknown table format version N");
  //   Corruption("bad block handle") — a malformed handle.
  Status DecodeFrom(Slice* input);

 private:
  BlockHandle metaindex_handle_;
  BlockHandle index_handle_;
  uint32_t format_version_ = kTableFormatVersion;
};

// Every block is followed by 1 byte compression type and a 4-byte masked
// CRC32C over the block payload and the type byte (docs/format/sst.md,
// "Block trailer").
constexpr size_t kBlockTrailerSize = 5;

// A compressed block is kept only if it is smaller than raw and at most
// raw - raw/8 bytes, i.e. it saves at least 12.5% (docs/format/sst.md,
// "Compression").
constexpr bool CompressionSavesEnough(size_t raw_size, size_t compressed_size) {
  return compressed_size < raw_size &&
         compressed_size <= raw_size - raw_size / 8;
}

// The uncompressed bytes of one block.
struct BlockContents {
  Slice data;                   // the uncompressed block
  bool cachable = false;        // true if data is heap memory we own
  bool heap_allocated = false;  // caller must delete[] data.data() when true
};

// Reads the block at handle from file, verifying the trailer checksum when
// verify_checksum, and uncompressing if needed. On success *result holds the
// block; when result->heap_allocated the caller owns result->data.data()
// (release with delete[], or hand it to a Block). A compressed block is
// uncompressed before its checksum is checked (the codecs are safe on any
// input); on a mismatch nothing is returned. Errors (the caller adds the
// file name with Status::WithContext; a checksum mismatch is named before
// any codec error it causes):
//   Corruption("truncated block read at offset N") — the file is short;
//   Corruption("block checksum mismatch at offset N");
//   NotSupported("unknown compression type T at offset N");
//   Corruption("<codec message> at offset N") — a malformed payload;
//   any IOError from file.
Status ReadBlock(RandomAccessFile* file, bool verify_checksum,
                 const BlockHandle& handle, BlockContents* result);

// ReadBlock in two steps, for a caller that wants a block's bytes as
// stored as well (a compaction copying blocks whole). ReadStoredBlock reads
// the payload and trailer at handle into *stored, unchecked;
// *stored points into the file's own memory (an mmap) or into *buf,
// allocated here otherwise. Errors: ReadBlock's truncation and I/O errors,
// and Corruption for an impossible handle.
Status ReadStoredBlock(RandomAccessFile* file, const BlockHandle& handle,
                       std::unique_ptr<char[]>* buf, Slice* stored);
// Uncompresses a block read by ReadStoredBlock (at offset, for messages)
// into *result, checking its checksum when verify_checksum (after
// uncompressing a compressed block, as ReadBlock says); an uncompressed block
// in *buf moves into *result, so *stored stays valid as long as *result (or
// *buf) does. Errors: Corruption("block checksum mismatch at offset N"),
// named before any codec error; NotSupported for an unknown compression
// type; Corruption for a malformed payload; each naming the offset.
Status UncompressStoredBlock(const Slice& stored, uint64_t offset,
                             bool verify_checksum, std::unique_ptr<char[]>* buf,
                             BlockContents* result);

// What WriteBlock stores for raw: the bytes compressed with type/level, in
// *scratch, when that saves >= 12.5%; else raw itself. Sets *payload to
// them and returns the compression they are stored with.
CompressionType ChooseBlockPayload(const Slice& raw, CompressionType type,
                                   int level, std::string* scratch,
                                   Slice* payload);

// Appends raw (compressed with type/level first when that saves >= 12.5%,
// else stored as kNoCompression) plus its trailer to file, at file offset
// *offset, then advances *offset by the bytes written. *scratch is a buffer
// reused across calls for the compressed bytes. On success *handle names the
// written block and *type_used the compression actually stored. Returns
// file's Append error, if any.
Status WriteBlock(WritableFile* file, uint64_t* offset, const Slice& raw,
                  CompressionType type, int level, std::string* scratch,
                  BlockHandle* handle, CompressionType* type_used);

// Fills trailer[0, kBlockTrailerSize) for payload stored with type: the type
// byte and the masked CRC32C of payload + type byte.
void EncodeBlockTrailer(const Slice& payload, CompressionType type,
                        char* trailer);

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_FORMAT_H_

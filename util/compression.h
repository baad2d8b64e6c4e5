// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Block compression: thin, bounds-checked wrappers over snappy, lz4 and zstd
// used for SST blocks. The payload framing of each codec (how the
// uncompressed size is recovered) is part of the SST format and is specified
// in docs/format/sst.md ("Compressed block payloads"):
//   snappy: the raw snappy stream (it carries its own length);
//   lz4, zstd: varint32 uncompressed size, then the codec's raw block.
// Whether a compressed block is kept (it must save >= 12.5%) is decided by
// the caller (table/format.cc, WriteBlock).
//
// Thread safety: thread-safe (pure functions).

#ifndef CASCADEDB_UTIL_COMPRESSION_H_
#define CASCADEDB_UTIL_COMPRESSION_H_

#include <memory>
#include <string>

#include "cascadedb/options.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"

namespace cascadedb {

// Level meaning "the codec's default level" (zstd 3, lz4 acceleration 1).
constexpr int kDefaultCompressionLevel = 32767;

// Largest uncompressed size a compressed payload may claim (a block is far
// smaller; anything above this is treated as corruption, never allocated).
constexpr size_t kMaxUncompressedBlockSize = size_t{1} << 30;

// True if this build supports type. kNoCompression and the three codecs are
// always supported; any other value is not.
bool CompressionTypeSupported(CompressionType type);

// Compresses input with type at level into *output (replacing its contents).
// level (kDefaultCompressionLevel = the codec's default):
//   zstd: the zstd level (negative = its fast modes);
//   lz4: 0 or default = LZ4 fast mode, negative = acceleration -level,
//        positive = LZ4HC at that level;
//   snappy: ignored.
// Returns false if the codec failed, or if type is kNoCompression or
// unsupported (the caller then stores the block uncompressed).
bool CompressBlock(CompressionType type, int level, const Slice& input,
                   std::string* output);

// Uncompresses input (a payload written by CompressBlock with the same type)
// into *output (replacing its contents). Returns Corruption if the bytes are
// malformed ("corrupted snappy block", "lz4 block size mismatch", ...) and
// NotSupported for an unknown type or kNoCompression. Never reads outside
// input, whatever its bytes.
Status UncompressBlock(CompressionType type, const Slice& input,
                       std::string* output);

// The same, into a new heap buffer of exactly the uncompressed size (*size
// bytes; the read path keeps it as the block, with no copy). On error
// *size is 0.
Status UncompressBlock(CompressionType type, const Slice& input,
                       std::unique_ptr<char[]>* output, size_t* size);

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_COMPRESSION_H_

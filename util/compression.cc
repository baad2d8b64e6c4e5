// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/compression.h"

#include <lz4.h>
#include <lz4hc.h>
#include <snappy.h>
#include <zstd.h>

#include <climits>
#include <cstdint>
#include <memory>
#include <string>

#include "util/coding.h"

namespace cascadedb {

namespace {

// zstd contexts are costly to create (hundreds of KiB), and blocks are small,
// so each thread keeps one of each for its lifetime.
struct ZstdCCtxDeleter {
  void operator()(ZSTD_CCtx* ctx) const { ZSTD_freeCCtx(ctx); }
};
struct ZstdDCtxDeleter {
  void operator()(ZSTD_DCtx* ctx) const { ZSTD_freeDCtx(ctx); }
};

ZSTD_CCtx* ThreadZstdCCtx() {
  thread_local std::unique_ptr<ZSTD_CCtx, ZstdCCtxDeleter> ctx(
      ZSTD_createCCtx());
  return ctx.get();
}

ZSTD_DCtx* ThreadZstdDCtx() {
  thread_local std::unique_ptr<ZSTD_DCtx, ZstdDCtxDeleter> ctx(
      ZSTD_createDCtx());
  return ctx.get();
}

bool SnappyCompress(const Slice& input, std::string* output) {
  output->resize(snappy::MaxCompressedLength(input.size()));
  size_t length = 0;
  snappy::RawCompress(input.data(), input.size(), &(*output)[0], &length);
  output->resize(length);
  return true;
}

// Writes the varint32 uncompressed-size prefix used by lz4 and zstd payloads
// (docs/format/sst.md, "Compressed block payloads"); returns its length.
size_t PutSizePrefix(const Slice& input, std::string* output) {
  output->clear();
  PutVarint32(output, static_cast<uint32_t>(input.size()));
  return output->size();
}

bool Lz4Compress(int level, const Slice& input, std::string* output) {
  if (input.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) return false;
  const int src_size = static_cast<int>(input.size());
  const size_t prefix = PutSizePrefix(input, output);
  const int bound = LZ4_compressBound(src_size);
  output->resize(prefix + static_cast<size_t>(bound));
  char* dst = &(*output)[prefix];
  int n;
  if (level != kDefaultCompressionLevel && level > 0) {
    n = LZ4_compress_HC(input.data(), dst, src_size, bound, level);
  } else {
    const int acceleration =
        (level != kDefaultCompressionLevel && level < 0) ? -level : 1;
    n = LZ4_compress_fast(input.data(), dst, src_size, bound, acceleration);
  }
  if (n <= 0) return false;
  output->resize(prefix + static_cast<size_t>(n));
  return true;
}

bool ZstdCompress(int level, const Slice& input, std::string* output) {
  if (input.size() > UINT32_MAX) return false;
  ZSTD_CCtx* ctx = ThreadZstdCCtx();
  if (ctx == nullptr) return false;
  const int zstd_level =
      level == kDefaultCompressionLevel ? ZSTD_CLEVEL_DEFAULT : level;
  const size_t prefix = PutSizePrefix(input, output);
  const size_t bound = ZSTD_compressBound(input.size());
  output->resize(prefix + bound);
  const size_t n = ZSTD_compressCCtx(ctx, &(*output)[prefix], bound,
                                     input.data(), input.size(), zstd_level);
  if (ZSTD_isError(n)) return false;
  output->resize(prefix + n);
  return true;
}

// The largest output a codec can produce from n input bytes, with room to
// spare: snappy's densest op turns 3 bytes into 64, lz4's length extension
// bytes each add 255. A claimed size above this is corruption, caught before
// anything is allocated.
constexpr size_t kSnappyMaxRatio = 32;
constexpr size_t kLz4MaxRatio = 256;

Status CheckClaimedSize(const char* codec, size_t claimed, size_t input_size,
                        size_t max_ratio) {
  if (claimed > kMaxUncompressedBlockSize ||
      (max_ratio != 0 && claimed / max_ratio > input_size + 64)) {
    return Status::Corruption(std::string("corrupted ") + codec +
                              " block: uncompressed size " +
                              std::to_string(claimed) + " is impossible");
  }
  return Status::OK();
}

// Parses the varint32 size prefix of an lz4/zstd payload, leaving *input at
// the codec's bytes.
Status ReadSizePrefix(const char* codec, size_t max_ratio, Slice* input,
                      size_t* size) {
  uint32_t n = 0;
  if (!GetVarint32(input, &n)) {
    return Status::Corruption(std::string("corrupted ") + codec +
                              " block: bad size prefix");
  }
  *size = n;
  return CheckClaimedSize(codec, n, input->size(), max_ratio);
}

// The uncompressed bytes: allocated once at their exact size, not
// zero-filled (a std::string would be, and then copied again).
struct Uncompressed {
  std::unique_ptr<char[]> data;
  size_t size = 0;
  char* Allocate(size_t n) {
    data.reset(new char[n == 0 ? 1 : n]);
    size = n;
    return data.get();
  }
  void clear() {
    data.reset();
    size = 0;
  }
};

Status SnappyUncompress(const Slice& input, Uncompressed* output) {
  size_t n = 0;
  if (!snappy::GetUncompressedLength(input.data(), input.size(), &n)) {
    return Status::Corruption("corrupted snappy block: bad length");
  }
  Status s = CheckClaimedSize("snappy", n, input.size(), kSnappyMaxRatio);
  if (!s.ok()) return s;
  char* out = output->Allocate(n);
  // RawUncompress checks every copy against the output length, so
  // malformed input fails rather than writing out of bounds.
  if (!snappy::RawUncompress(input.data(), input.size(), out)) {
    output->clear();
    return Status::Corruption("corrupted snappy block");
  }
  return Status::OK();
}

Status Lz4Uncompress(Slice input, Uncompressed* output) {
  size_t n = 0;
  Status s = ReadSizePrefix("lz4", kLz4MaxRatio, &input, &n);
  if (!s.ok()) return s;
  if (input.size() > static_cast<size_t>(INT_MAX)) {
    return Status::Corruption("corrupted lz4 block: payload is too large");
  }
  char* out = output->Allocate(n);
  // LZ4_decompress_safe never reads past src_size nor writes past dst
  // capacity, whatever the input.
  const int got = LZ4_decompress_safe(
      input.data(), out, static_cast<int>(input.size()), static_cast<int>(n));
  if (got < 0) {
    output->clear();
    return Status::Corruption("corrupted lz4 block");
  }
  if (static_cast<size_t>(got) != n) {
    output->clear();
    return Status::Corruption("corrupted lz4 block: size mismatch");
  }
  return Status::OK();
}

Status ZstdUncompress(Slice input, Uncompressed* output) {
  size_t n = 0;
  // zstd can expand without practical bound (RLE blocks), so instead of a
  // ratio the frame header's own content size must agree with the prefix.
  Status s = ReadSizePrefix("zstd", 0, &input, &n);
  if (!s.ok()) return s;
  const unsigned long long frame_size =  // NOLINT(runtime/int): zstd's type
      ZSTD_getFrameContentSize(input.data(), input.size());
  if (frame_size != ZSTD_CONTENTSIZE_UNKNOWN && frame_size != n) {
    return Status::Corruption("corrupted zstd block: bad frame header");
  }
  ZSTD_DCtx* ctx = ThreadZstdDCtx();
  if (ctx == nullptr) {
    return Status::Corruption("corrupted zstd block: no decompression context");
  }
  char* out = output->Allocate(n);
  const size_t got =
      ZSTD_decompressDCtx(ctx, out, n, input.data(), input.size());
  if (ZSTD_isError(got)) {
    output->clear();
    return Status::Corruption("corrupted zstd block", ZSTD_getErrorName(got));
  }
  if (got != n) {
    output->clear();
    return Status::Corruption("corrupted zstd block: size mismatch");
  }
  return Status::OK();
}

}  // namespace

bool CompressionTypeSupported(CompressionType type) {
  switch (type) {
    case kNoCompression:
    case kSnappyCompression:
    case kLZ4Compression:
    case kZSTD:
      return true;
    case kDisableCompressionOption:  // a placeholder, never a codec
      break;
  }
  return false;
}

bool CompressBlock(CompressionType type, int level, const Slice& input,
                   std::string* output) {
  switch (type) {
    case kSnappyCompression:
      return SnappyCompress(input, output);
    case kLZ4Compression:
      return Lz4Compress(level, input, output);
    case kZSTD:
      return ZstdCompress(level, input, output);
    case kNoCompression:
    case kDisableCompressionOption:
      break;
  }
  output->clear();
  return false;
}

namespace {

Status Uncompress(CompressionType type, const Slice& input,
                  Uncompressed* output) {
  switch (type) {
    case kSnappyCompression:
      return SnappyUncompress(input, output);
    case kLZ4Compression:
      return Lz4Uncompress(input, output);
    case kZSTD:
      return ZstdUncompress(input, output);
    case kNoCompression:
    case kDisableCompressionOption:
      break;
  }
  output->clear();
  return Status::NotSupported("cannot uncompress with compression type " +
                              std::to_string(static_cast<int>(type)));
}

}  // namespace

Status UncompressBlock(CompressionType type, const Slice& input,
                       std::string* output) {
  Uncompressed buf;
  Status s = Uncompress(type, input, &buf);
  if (s.ok()) {
    output->assign(buf.data.get(), buf.size);
  } else {
    output->clear();
  }
  return s;
}

Status UncompressBlock(CompressionType type, const Slice& input,
                       std::unique_ptr<char[]>* output, size_t* size) {
  Uncompressed buf;
  Status s = Uncompress(type, input, &buf);
  *output = std::move(buf.data);
  *size = s.ok() ? buf.size : 0;
  return s;
}

}  // namespace cascadedb

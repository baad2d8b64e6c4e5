// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Byte encodings shared by every on-disk format: little-endian fixed-width
// integers, LEB128-style varints (7 bits per byte, low groups first, high bit
// set on every byte but the last) and length-prefixed byte strings (a varint32
// length followed by the bytes).
//
// Encoders write into caller-provided memory or append to a std::string.
// Decoders never read past the limit they are given: malformed input (an
// overlong varint, a varint or length prefix running past the end) makes them
// return false or nullptr, and the input Slice is then left unchanged.
//
// Thread safety: every function is thread-safe; they only touch the memory
// passed to them.

#ifndef CASCADEDB_UTIL_CODING_H_
#define CASCADEDB_UTIL_CODING_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "cascadedb/slice.h"

namespace cascadedb {

// The longest encodings, in bytes.
constexpr int kMaxVarint32Length = 5;
constexpr int kMaxVarint64Length = 10;

// ---------------------------------------------------------------- fixed width

// Writes v little-endian into dst[0, 4). REQUIRES: dst has 4 writable bytes.
inline void EncodeFixed32(char* dst, uint32_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::memcpy(dst, &v, sizeof(v));
#else
  for (int i = 0; i < 4; ++i) dst[i] = static_cast<char>(v >> (8 * i));
#endif
}

// Writes v little-endian into dst[0, 8). REQUIRES: dst has 8 writable bytes.
inline void EncodeFixed64(char* dst, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::memcpy(dst, &v, sizeof(v));
#else
  for (int i = 0; i < 8; ++i) dst[i] = static_cast<char>(v >> (8 * i));
#endif
}

// Reads a little-endian value from p[0, 4). REQUIRES: p has 4 readable bytes.
inline uint32_t DecodeFixed32(const char* p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
#else
  const unsigned char* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(u[0]) | (static_cast<uint32_t>(u[1]) << 8) |
         (static_cast<uint32_t>(u[2]) << 16) |
         (static_cast<uint32_t>(u[3]) << 24);
#endif
}

// Reads a little-endian value from p[0, 8). REQUIRES: p has 8 readable bytes.
inline uint64_t DecodeFixed64(const char* p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
#else
  return static_cast<uint64_t>(DecodeFixed32(p)) |
         (static_cast<uint64_t>(DecodeFixed32(p + 4)) << 32);
#endif
}

// Reads p[0, 8) big-endian, so that integer order is the bytes' memcmp
// order. REQUIRES: p has 8 readable bytes.
inline uint64_t LoadBigEndian64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

// The 8 bytes of s from offset on, read big-endian and zero-padded past
// s's end: a key's "head". For byte strings a and b that share their first
// offset bytes, KeyHead(a, offset) < KeyHead(b, offset) implies a < b
// bytewise (a shorter string is smaller), and a > b for >; equal heads
// decide nothing. Sorted searches compare heads instead of keys.
inline uint64_t KeyHead(const Slice& s, size_t offset) {
  if (offset <= s.size() && s.size() - offset >= 8) {
    return LoadBigEndian64(s.data() + offset);
  }
  uint64_t h = 0;
  for (size_t i = 0; i < 8; i++) {
    const size_t pos = offset + i;
    const uint8_t c = pos < s.size() ? static_cast<uint8_t>(s.data()[pos]) : 0;
    h = (h << 8) | c;
  }
  return h;
}

// memcmp(a, b, n), inline and eight bytes a step for the short keys that
// sorted structures compare most (a call to memcmp costs as much as the
// comparing); runs longer than kCompareBytesInline go to memcmp. Only the
// sign of the result is meaningful, as with memcmp.
constexpr size_t kCompareBytesInline = 64;
inline int CompareBytes(const char* a, const char* b, size_t n) {
  if (n >= 8) {
    if (n > kCompareBytesInline) return std::memcmp(a, b, n);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const uint64_t x = LoadBigEndian64(a + i);
      const uint64_t y = LoadBigEndian64(b + i);
      if (x != y) return x < y ? -1 : 1;
    }
    if (i < n) {  // the last 8 bytes, overlapping bytes already found equal
      const uint64_t x = LoadBigEndian64(a + n - 8);
      const uint64_t y = LoadBigEndian64(b + n - 8);
      if (x != y) return x < y ? -1 : 1;
    }
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    const uint8_t x = static_cast<uint8_t>(a[i]);
    const uint8_t y = static_cast<uint8_t>(b[i]);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

// a.compare(b) through CompareBytes: bytewise, a shorter prefix first.
inline int CompareSlices(const Slice& a, const Slice& b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  const int r = CompareBytes(a.data(), b.data(), n);
  if (r != 0 || a.size() == b.size()) return r;
  return a.size() < b.size() ? -1 : 1;
}

// The number of leading bytes a[0, n) and b[0, n) share, eight bytes a
// step: block builders find each key's prefix shared with the previous one.
inline size_t SharedPrefixLength(const char* a, const char* b, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t x = DecodeFixed64(a + i);
    const uint64_t y = DecodeFixed64(b + i);
    // The lowest differing byte of a little-endian value is the first.
    if (x != y) return i + (static_cast<size_t>(__builtin_ctzll(x ^ y)) >> 3);
  }
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

// memcpy(dst, src, n), inline for the short keys and values that block
// builders, block iterators and memtables copy once or twice per entry: a
// call to memcpy costs more than copying them. Each size class copies its
// first and last bytes with fixed-size moves that may overlap in the middle;
// runs longer than kCopyBytesInline go to memcpy.
// REQUIRES: [dst, dst + n) and [src, src + n) do not overlap.
constexpr size_t kCopyBytesInline = 128;
inline void CopyBytes(char* dst, const char* src, size_t n) {
  if (n >= 16) {
    if (n > kCopyBytesInline) {
      std::memcpy(dst, src, n);
    } else if (n > 64) {
      std::memcpy(dst, src, 64);
      std::memcpy(dst + n - 64, src + n - 64, 64);
    } else if (n > 32) {
      std::memcpy(dst, src, 32);
      std::memcpy(dst + n - 32, src + n - 32, 32);
    } else {
      std::memcpy(dst, src, 16);
      std::memcpy(dst + n - 16, src + n - 16, 16);
    }
  } else if (n >= 8) {
    std::memcpy(dst, src, 8);
    std::memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(dst, src, 4);
    std::memcpy(dst + n - 4, src + n - 4, 4);
  } else if (n > 0) {
    dst[0] = src[0];
    dst[n / 2] = src[n / 2];
    dst[n - 1] = src[n - 1];
  }
}

// Appends the 4 (8) byte little-endian encoding of v to *dst.
void PutFixed32(std::string* dst, uint32_t v);
void PutFixed64(std::string* dst, uint64_t v);

// Decodes a fixed-width value from the front of *input and removes it.
// Returns false, leaving *input unchanged, if fewer than 4 (8) bytes remain.
bool GetFixed32(Slice* input, uint32_t* v);
bool GetFixed64(Slice* input, uint64_t* v);

// ---------------------------------------------------------------- varints

// Writes the varint encoding of v at dst and returns the byte past it.
// REQUIRES: dst has kMaxVarint32Length (kMaxVarint64Length) writable bytes,
// or at least VarintLength(v). Inline: block builders write three per entry,
// most of them one byte.
inline char* EncodeVarint64(char* dst, uint64_t v) {
  unsigned char* p = reinterpret_cast<unsigned char*>(dst);
  while (v >= 0x80) {
    *p++ = static_cast<unsigned char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<unsigned char>(v);
  return reinterpret_cast<char*>(p);
}
inline char* EncodeVarint32(char* dst, uint32_t v) {
  return EncodeVarint64(dst, v);
}

// Appends the varint encoding of v to *dst.
void PutVarint32(std::string* dst, uint32_t v);
void PutVarint64(std::string* dst, uint64_t v);

// The number of bytes in the varint encoding of v (1 to 10).
int VarintLength(uint64_t v);

// Decodes a varint from [p, limit). On success stores it in *v and returns
// the byte past it. Returns nullptr, leaving *v unspecified, if the varint
// runs past limit or is longer than 5 (10) bytes or encodes a value above
// UINT32_MAX (UINT64_MAX). Never reads at or beyond limit. Redundant
// encodings within the length limit (0x80 0x00 for 0) are accepted; no
// encoder produces them.
//
// The one-byte case is inlined; the *Fallback functions are the general
// decoders behind it. Call GetVarint32Ptr/GetVarint64Ptr, not them.
const char* GetVarint32PtrFallback(const char* p, const char* limit,
                                   uint32_t* v);
const char* GetVarint64PtrFallback(const char* p, const char* limit,
                                   uint64_t* v);

inline const char* GetVarint32Ptr(const char* p, const char* limit,
                                  uint32_t* v) {
  if (p < limit) {
    const uint32_t byte = static_cast<unsigned char>(*p);
    if ((byte & 0x80) == 0) {  // The common one-byte case.
      *v = byte;
      return p + 1;
    }
  }
  return GetVarint32PtrFallback(p, limit, v);
}

inline const char* GetVarint64Ptr(const char* p, const char* limit,
                                  uint64_t* v) {
  if (p < limit) {
    const uint64_t byte = static_cast<unsigned char>(*p);
    if ((byte & 0x80) == 0) {  // The common one-byte case.
      *v = byte;
      return p + 1;
    }
  }
  return GetVarint64PtrFallback(p, limit, v);
}

// Decodes a varint from the front of *input and removes it. Returns false,
// leaving *input unchanged, on malformed or truncated input.
bool GetVarint32(Slice* input, uint32_t* v);
bool GetVarint64(Slice* input, uint64_t* v);

// ----------------------------------------------------------------
// length-prefixed

// Appends varint32(value.size()) followed by value's bytes to *dst.
// REQUIRES: value.size() <= UINT32_MAX.
void PutLengthPrefixedSlice(std::string* dst, const Slice& value);

// Decodes a length-prefixed string from the front of *input into *result
// (which then borrows *input's bytes) and removes it from *input. Returns
// false, leaving *input unchanged, if the prefix is malformed or the length
// exceeds what remains.
bool GetLengthPrefixedSlice(Slice* input, Slice* result);

// Decodes a length-prefixed string from [p, limit) into *result (borrowing
// those bytes) and returns the byte past it, or nullptr on malformed or
// truncated input.
const char* GetLengthPrefixedSlicePtr(const char* p, const char* limit,
                                      Slice* result);

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_CODING_H_

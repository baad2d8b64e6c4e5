// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// CRC32C (Castagnoli polynomial 0x1EDC6F41, reflected 0x82F63B78), the
// checksum of every WAL record and SST block. Extend() uses the SSE4.2 crc32
// instruction when the CPU has it (checked once at run time) and a
// table-driven portable routine otherwise; both give identical results.
//
// Checksums stored next to the data they cover are masked (Mask/Unmask), so
// that a CRC computed over bytes that themselves contain CRCs stays well
// distributed.
//
// Thread safety: every function is thread-safe.

#ifndef CASCADEDB_UTIL_CRC32C_H_
#define CASCADEDB_UTIL_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace cascadedb {
namespace crc32c {

// Returns the CRC32C of A + data[0, n), where init_crc is the CRC32C of some
// byte string A (0 for the empty string). So Extend(Value(a), b, n) equals
// the CRC32C of a followed by b.
uint32_t Extend(uint32_t init_crc, const char* data, size_t n);

// The portable table-driven implementation of Extend(). Exposed so tests and
// benchmarks can compare it with the hardware path.
uint32_t ExtendPortable(uint32_t init_crc, const char* data, size_t n);

// True if Extend() uses the SSE4.2 crc32 instruction on this machine.
bool IsHardwareAccelerated();

// Returns the CRC32C of data[0, n).
inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

// The value added after rotation by Mask().
constexpr uint32_t kMaskDelta = 0xa282ead8u;

// Returns a masked form of crc, for storing next to the data it covers.
inline uint32_t Mask(uint32_t crc) {
  // Rotate right by 15 bits and add a constant.
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

// Returns the crc whose Mask() is masked.
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace crc32c
}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_CRC32C_H_

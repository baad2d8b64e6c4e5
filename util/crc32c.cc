// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Two implementations of the same function:
//
// - Portable: slicing-by-8. Eight 256-entry tables, built at compile time,
//   let one step fold eight input bytes into the register with eight
//   independent lookups instead of eight dependent ones.
//
// - SSE4.2 (x86-64 only): the crc32 instruction folds eight bytes per
//   instruction but has a latency of about three cycles, so a single chain
//   runs at a third of the instruction's throughput. Long inputs are
//   therefore cut into three equal stripes whose CRCs are computed in one
//   interleaved loop (three independent chains), then stitched together:
//   CRC is linear, so the register after "A then B" is the register after A
//   advanced over |B| zero bytes, xor the register of B started from zero.
//   Advancing over a fixed number of zero bytes is a linear map on 32 bits,
//   applied with four byte-indexed lookup tables built on first use.
//
// Only the hardware functions carry __attribute__((target("sse4.2"))); the
// rest of the library is compiled for the baseline ISA, and Extend() picks
// an implementation once per process with __builtin_cpu_supports.

#include "util/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CASCADEDB_CRC32C_HAVE_SSE42 1
#include <nmmintrin.h>
#else
#define CASCADEDB_CRC32C_HAVE_SSE42 0
#endif

#include "util/coding.h"

namespace cascadedb {
namespace crc32c {

namespace {

// The reflected Castagnoli polynomial.
constexpr uint32_t kPoly = 0x82f63b78u;

using Table = std::array<uint32_t, 256>;

// kSlices[0][b] is the register after feeding byte b into a zero register;
// kSlices[k][b] is kSlices[0][b] advanced over k further zero bytes.
constexpr std::array<Table, 8> MakeSliceTables() {
  std::array<Table, 8> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc >> 1) ^ ((crc & 1) ? kPoly : 0);
    }
    t[0][b] = crc;
  }
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      const uint32_t prev = t[k - 1][b];
      t[k][b] = (prev >> 8) ^ t[0][prev & 0xff];
    }
  }
  return t;
}

constexpr std::array<Table, 8> kSlices = MakeSliceTables();

inline uint32_t StepByte(uint32_t crc, char c) {
  return (crc >> 8) ^ kSlices[0][(crc ^ static_cast<unsigned char>(c)) & 0xff];
}

// Register-level CRC (no pre/post inversion) of data[0, n), portable.
uint32_t PortableRegister(uint32_t crc, const char* p, size_t n) {
  const char* const end = p + n;
  // Byte steps until p is 8-byte aligned: aligned wide loads are faster on
  // some platforms, and the prologue is at most seven steps.
  while (p != end && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    crc = StepByte(crc, *p++);
  }
  while (end - p >= 8) {
    // DecodeFixed32 reads little-endian, matching the reflected bit order.
    const uint32_t lo = DecodeFixed32(p) ^ crc;
    const uint32_t hi = DecodeFixed32(p + 4);
    crc = kSlices[7][lo & 0xff] ^ kSlices[6][(lo >> 8) & 0xff] ^
          kSlices[5][(lo >> 16) & 0xff] ^ kSlices[4][lo >> 24] ^
          kSlices[3][hi & 0xff] ^ kSlices[2][(hi >> 8) & 0xff] ^
          kSlices[1][(hi >> 16) & 0xff] ^ kSlices[0][hi >> 24];
    p += 8;
  }
  while (p != end) crc = StepByte(crc, *p++);
  return crc;
}

#if CASCADEDB_CRC32C_HAVE_SSE42

// Stripe lengths, in bytes, for the three-way interleaved loop. The long
// stripe amortizes the stitching on big buffers; the short one still gives
// a 4 KiB block five rounds of three-way parallelism.
constexpr size_t kLongStripe = 2048;
constexpr size_t kShortStripe = 256;

// The linear map "advance the register over `zero_bytes` zero bytes", as
// four tables indexed by the register's bytes.
struct ShiftTable {
  uint32_t t[4][256];

  explicit ShiftTable(size_t zero_bytes) {
    // Image of every single-bit register under the map, computed by
    // feeding the zero bytes; the map is linear, so xor-ing images of bits
    // gives the image of any value.
    uint32_t bit_image[32];
    for (int bit = 0; bit < 32; ++bit) {
      uint32_t crc = 1u << bit;
      for (size_t i = 0; i < zero_bytes; ++i) crc = StepByte(crc, 0);
      bit_image[bit] = crc;
    }
    for (int k = 0; k < 4; ++k) {
      for (uint32_t b = 0; b < 256; ++b) {
        uint32_t v = 0;
        for (int bit = 0; bit < 8; ++bit) {
          if (b & (1u << bit)) v ^= bit_image[8 * k + bit];
        }
        t[k][b] = v;
      }
    }
  }

  uint32_t Apply(uint32_t crc) const {
    return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^
           t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
  }
};

const ShiftTable& LongShift() {
  static const ShiftTable table(kLongStripe);
  return table;
}

const ShiftTable& ShortShift() {
  static const ShiftTable table(kShortStripe);
  return table;
}

inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// Runs three interleaved chains over stripes of `stripe` bytes for as long
// as three whole stripes remain, stitching each round into *crc.
__attribute__((target("sse4.2"))) inline void ThreeWay(
    uint32_t* crc, const char** pp, const char* end, size_t stripe,
    const ShiftTable& shift) {
  const char* p = *pp;
  while (static_cast<size_t>(end - p) >= 3 * stripe) {
    uint64_t c0 = *crc;
    uint64_t c1 = 0;
    uint64_t c2 = 0;
    const char* const stop = p + stripe;
    while (p != stop) {
      c0 = _mm_crc32_u64(c0, Load64(p));
      c1 = _mm_crc32_u64(c1, Load64(p + stripe));
      c2 = _mm_crc32_u64(c2, Load64(p + 2 * stripe));
      p += 8;
    }
    uint32_t r =
        shift.Apply(static_cast<uint32_t>(c0)) ^ static_cast<uint32_t>(c1);
    r = shift.Apply(r) ^ static_cast<uint32_t>(c2);
    *crc = r;
    p += 2 * stripe;
  }
  *pp = p;
}

// Register-level CRC of data[0, n) with the crc32 instruction.
__attribute__((target("sse4.2"))) uint32_t HardwareRegister(uint32_t crc,
                                                            const char* p,
                                                            size_t n) {
  const char* const end = p + n;
  while (p != end && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    crc = _mm_crc32_u8(crc, static_cast<unsigned char>(*p++));
  }
  if (static_cast<size_t>(end - p) >= 3 * kShortStripe) {
    ThreeWay(&crc, &p, end, kLongStripe, LongShift());
    ThreeWay(&crc, &p, end, kShortStripe, ShortShift());
  }
  uint64_t c = crc;
  while (end - p >= 8) {
    c = _mm_crc32_u64(c, Load64(p));
    p += 8;
  }
  crc = static_cast<uint32_t>(c);
  while (p != end) {
    crc = _mm_crc32_u8(crc, static_cast<unsigned char>(*p++));
  }
  return crc;
}

bool DetectSse42() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}

#endif  // CASCADEDB_CRC32C_HAVE_SSE42

}  // namespace

bool IsHardwareAccelerated() {
#if CASCADEDB_CRC32C_HAVE_SSE42
  // Thread-safe one-time initialization (C++11 magic statics).
  static const bool has_sse42 = DetectSse42();
  return has_sse42;
#else
  return false;
#endif
}

uint32_t ExtendPortable(uint32_t init_crc, const char* data, size_t n) {
  return ~PortableRegister(~init_crc, data, n);
}

uint32_t Extend(uint32_t init_crc, const char* data, size_t n) {
#if CASCADEDB_CRC32C_HAVE_SSE42
  if (IsHardwareAccelerated()) return ~HardwareRegister(~init_crc, data, n);
#endif
  return ExtendPortable(init_crc, data, n);
}

}  // namespace crc32c
}  // namespace cascadedb

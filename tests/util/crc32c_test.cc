// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/crc32c.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace crc32c {
namespace {

// The iSCSI SCSI Read (10) command PDU from RFC 3720, appendix B.4.
const unsigned char kIscsiReadCommand[48] = {
    0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
    0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};

struct Vector {
  std::string name;
  std::string data;
  uint32_t crc;
};

std::vector<Vector> PublishedVectors() {
  std::string ascending(32, '\0');
  std::string descending(32, '\0');
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<char>(i);
    descending[i] = static_cast<char>(31 - i);
  }
  return {
      {"32 zero bytes", std::string(32, '\0'), 0x8a9136aau},
      {"32 0xff bytes", std::string(32, '\xff'), 0x62a8ab43u},
      {"0..31 ascending", ascending, 0x46dd794eu},
      {"31..0 descending", descending, 0x113fdb5cu},
      {"iscsi read command",
       std::string(reinterpret_cast<const char*>(kIscsiReadCommand),
                   sizeof(kIscsiReadCommand)),
       0xd9963a56u},
      {"123456789", "123456789", 0xe3069283u},
      {"empty", "", 0u},
  };
}

TEST(Crc32cTest, ValueMatchesPublishedVectors) {
  for (const Vector& v : PublishedVectors()) {
    EXPECT_EQ(v.crc, Value(v.data.data(), v.data.size())) << v.name;
  }
}

TEST(Crc32cTest, PortableMatchesPublishedVectors) {
  for (const Vector& v : PublishedVectors()) {
    EXPECT_EQ(v.crc, ExtendPortable(0, v.data.data(), v.data.size())) << v.name;
  }
}

TEST(Crc32cTest, UsesHardwareExactlyWhenTheCpuHasSse42) {
  // Also records in the test log which path the other tests exercised.
  std::printf("crc32c hardware accelerated: %s\n",
              IsHardwareAccelerated() ? "yes" : "no");
#if defined(__x86_64__)
  EXPECT_EQ(static_cast<bool>(__builtin_cpu_supports("sse4.2")),
            IsHardwareAccelerated());
#else
  EXPECT_FALSE(IsHardwareAccelerated());
#endif
}

TEST(Crc32cTest, DispatchedMatchesPortableForEveryLengthAndAlignment) {
  uint32_t state = test::RandomSeed();
  // Up to two rounds of the hardware path's three-way interleaved loop
  // (three 256-byte stripes per round) plus a tail.
  constexpr size_t kMaxLength = 2 * 3 * 256 + 64;
  const std::string buf = test::RandomBytes(&state, kMaxLength + 8);
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t len = 0; len <= kMaxLength; ++len) {
      const char* p = buf.data() + offset;
      ASSERT_EQ(ExtendPortable(0, p, len), Extend(0, p, len))
          << "offset " << offset << " length " << len;
      ASSERT_EQ(ExtendPortable(0x12345678u, p, len),
                Extend(0x12345678u, p, len))
          << "offset " << offset << " length " << len;
    }
  }
}

TEST(Crc32cTest, DispatchedMatchesPortableOnLargeBuffers) {
  uint32_t state = test::RandomSeed();
  const std::string buf = test::RandomBytes(&state, (1 << 20) + 64);
  // Sizes around the stripe boundaries of the interleaved loop, plus large
  // blocks, at an odd offset.
  const size_t sizes[] = {767,  768,   769,   6143,    6144,          6145,
                          4096, 12345, 65536, 1 << 20, (1 << 20) + 63};
  for (size_t size : sizes) {
    EXPECT_EQ(ExtendPortable(0, buf.data() + 1, size),
              Extend(0, buf.data() + 1, size))
        << size;
  }
}

TEST(Crc32cTest, ExtendComposes) {
  uint32_t state = test::RandomSeed();
  const std::string buf = test::RandomBytes(&state, 5000);
  for (size_t split : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{100},
                       size_t{2500}, size_t{4999}, size_t{5000}}) {
    const uint32_t whole = Value(buf.data(), buf.size());
    const uint32_t first = Value(buf.data(), split);
    EXPECT_EQ(whole, Extend(first, buf.data() + split, buf.size() - split))
        << split;
    EXPECT_EQ(whole,
              ExtendPortable(first, buf.data() + split, buf.size() - split))
        << split;
  }
}

TEST(Crc32cTest, ExtendingWithNothingKeepsTheCrc) {
  EXPECT_EQ(0x12345678u, Extend(0x12345678u, "", 0));
  EXPECT_EQ(0x12345678u, ExtendPortable(0x12345678u, "", 0));
}

TEST(Crc32cTest, DifferentDataGivesDifferentCrc) {
  EXPECT_NE(Value("a", 1), Value("foo", 3));
  EXPECT_NE(Value("bar", 3), Value("foo", 3));
}

TEST(Crc32cTest, MaskChangesTheValue) {
  const uint32_t crc = Value("foo", 3);
  EXPECT_NE(crc, Mask(crc));
  EXPECT_NE(crc, Mask(Mask(crc)));
  EXPECT_NE(0u, Mask(0));
}

TEST(Crc32cTest, UnmaskInvertsMask) {
  uint32_t state = test::RandomSeed();
  const uint32_t fixed[] = {
      0u,          1u,         0x7fffffffu,    0x80000000u,
      0xffffffffu, kMaskDelta, Value("foo", 3)};
  for (uint32_t x : fixed) {
    EXPECT_EQ(x, Unmask(Mask(x))) << x;
    EXPECT_EQ(x, Unmask(Unmask(Mask(Mask(x))))) << x;
  }
  for (int i = 0; i < 1000; ++i) {
    const std::string r = test::RandomBytes(&state, 4);
    uint32_t x;
    std::memcpy(&x, r.data(), 4);
    ASSERT_EQ(x, Unmask(Mask(x))) << x;
  }
}

}  // namespace
}  // namespace crc32c
}  // namespace cascadedb

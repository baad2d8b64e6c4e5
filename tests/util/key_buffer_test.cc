// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/key_buffer.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/testutil/test_util.h"
#include "util/random.h"

namespace cascadedb {
namespace {

TEST(KeyBufferTest, StartsEmpty) {
  KeyBuffer b;
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(0u, b.size());
  EXPECT_EQ("", b.slice().ToString());
}

TEST(KeyBufferTest, RebuildKeepsTheSharedBytesAndAppendsTheRest) {
  KeyBuffer b;
  b.Rebuild(0, "apple", 5);
  EXPECT_EQ("apple", b.slice().ToString());
  b.Rebuild(2, "ricot", 5);
  EXPECT_EQ("apricot", b.slice().ToString());
  b.Rebuild(2, "", 0);
  EXPECT_EQ("ap", b.slice().ToString());
  EXPECT_EQ('p', b[1]);
  b.Assign("zebra");
  EXPECT_EQ("zebra", b.slice().ToString());
  b.clear();
  EXPECT_TRUE(b.empty());
}

TEST(KeyBufferTest, GrowsPastItsInlineBytesKeepingThePrefix) {
  KeyBuffer b;
  const std::string small(60, 'a');
  b.Assign(small);
  const std::string tail(200, 'b');
  b.Rebuild(50, tail.data(), tail.size());  // 250 bytes: on the heap now
  EXPECT_EQ(std::string(50, 'a') + tail, b.slice().ToString());
  b.Rebuild(10, "c", 1);  // shorter again, same memory
  EXPECT_EQ(std::string(10, 'a') + "c", b.slice().ToString());
  const std::string big(5000, 'd');
  b.Assign(big);
  EXPECT_EQ(big, b.slice().ToString());
}

TEST(KeyBufferTest, RandomRebuildsMatchAString) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  uint32_t state = seed;
  KeyBuffer b;
  std::string model;
  for (int i = 0; i < 5000; ++i) {
    const size_t shared = rnd.Uniform(static_cast<int>(model.size()) + 1);
    const std::string delta =
        test::RandomBytes(&state, rnd.OneIn(50) ? 300 : rnd.Uniform(40));
    model.resize(shared);
    model += delta;
    b.Rebuild(shared, delta.data(), delta.size());
    ASSERT_EQ(model, b.slice().ToString()) << "seed " << seed << " step " << i;
  }
}

}  // namespace
}  // namespace cascadedb

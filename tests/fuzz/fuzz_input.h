// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// What the libFuzzer targets share: FuzzInput hands out the fuzzer's bytes
// as the values a target needs (past the end: zeros), and FuzzFail stops a
// run on a broken contract so libFuzzer saves the input.
//
// Thread safety: not thread-safe (one input, one thread).

#ifndef CASCADEDB_TESTS_FUZZ_FUZZ_INPUT_H_
#define CASCADEDB_TESTS_FUZZ_FUZZ_INPUT_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace cascadedb {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t Fixed32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= static_cast<uint32_t>(Byte()) << (8 * i);
    return v;
  }
  // Up to n bytes (fewer at the end).
  std::string Bytes(size_t n) {
    n = std::min(n, size_ - std::min(pos_, size_));
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }
  // Everything not handed out yet.
  std::string Rest() { return Bytes(size_); }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Prints "<fuzzer>: <what>" and traps.
[[noreturn]] inline void FuzzFail(const char* fuzzer, const char* what) {
  fprintf(stderr, "%s: %s\n", fuzzer, what);
  __builtin_trap();
}

}  // namespace cascadedb

#endif  // CASCADEDB_TESTS_FUZZ_FUZZ_INPUT_H_

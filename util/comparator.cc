// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The built-in bytewise comparator.

#include "cascadedb/comparator.h"

#include <algorithm>
#include <cstdint>
#include <new>
#include <string>
#include <utility>

#include "util/coding.h"

namespace cascadedb {

namespace {

// Constructs a T in static storage on first use and never destroys it, so
// the object stays valid during static destruction (other singletons and
// detached background threads may still compare keys at exit).
template <typename T>
class NoDestructor {
 public:
  template <typename... Args>
  explicit NoDestructor(Args&&... args) {
    new (&storage_) T(std::forward<Args>(args)...);
  }
  NoDestructor(const NoDestructor&) = delete;
  NoDestructor& operator=(const NoDestructor&) = delete;

  T* get() { return std::launder(reinterpret_cast<T*>(&storage_)); }

 private:
  alignas(T) unsigned char storage_[sizeof(T)];
};

class BytewiseComparatorImpl final : public Comparator {
 public:
  int Compare(const Slice& a, const Slice& b) const override {
    return CompareSlices(a, b);
  }

  const char* Name() const override { return "cascadedb.BytewiseComparator"; }

  void FindShortestSeparator(std::string* start,
                             const Slice& limit) const override {
    const size_t min_length = std::min(start->size(), limit.size());
    size_t diff = 0;
    while (diff < min_length && (*start)[diff] == limit[diff]) {
      diff++;
    }
    if (diff >= min_length) {
      // One is a prefix of the other: no shorter string fits in between.
      return;
    }
    const uint8_t start_byte = static_cast<uint8_t>((*start)[diff]);
    const uint8_t limit_byte = static_cast<uint8_t>(limit[diff]);
    // start_byte < 0xff is implied by start_byte + 1 < limit_byte. Then
    // start[0, diff] + 1 is > start (bigger at diff) and < limit (smaller at
    // diff), and is no longer than start.
    if (start_byte < limit_byte && start_byte + 1 < limit_byte) {
      (*start)[diff] = static_cast<char>(start_byte + 1);
      start->resize(diff + 1);
    }
  }

  void FindShortSuccessor(std::string* key) const override {
    for (size_t i = 0; i < key->size(); i++) {
      const uint8_t byte = static_cast<uint8_t>((*key)[i]);
      if (byte != 0xff) {
        (*key)[i] = static_cast<char>(byte + 1);
        key->resize(i + 1);
        return;
      }
    }
    // All 0xff (or empty): no shorter successor exists; leave it.
  }
};

}  // namespace

const Comparator* BytewiseComparator() {
  static NoDestructor<BytewiseComparatorImpl> singleton;
  return singleton.get();
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// KeyBuffer: a key rebuilt over and over, entry after entry, by the loops
// that walk or write sorted keys (a block iterator's current key, a block
// builder's previous key, compaction's current user key). It keeps its
// memory between keys, holds keys up to 64 bytes without the heap, and
// rebuilds inline: std::string's resize/append/assign are calls into the
// shared library, one or two per entry on these paths.
//
// Thread safety: thread-compatible.

#ifndef CASCADEDB_UTIL_KEY_BUFFER_H_
#define CASCADEDB_UTIL_KEY_BUFFER_H_

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstring>
#include <memory>

#include "cascadedb/slice.h"
#include "util/coding.h"

namespace cascadedb {

class KeyBuffer {
 public:
  KeyBuffer() = default;
  KeyBuffer(const KeyBuffer&) = delete;
  KeyBuffer& operator=(const KeyBuffer&) = delete;

  // The key; valid until the next change.
  Slice slice() const { return Slice(data_, size_); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  char operator[](size_t i) const {
    assert(i < size_);
    return data_[i];
  }

  void clear() { size_ = 0; }

  // Keeps the first shared bytes and appends n bytes from p.
  // REQUIRES: shared <= size(); [p, p + n) is not inside this buffer.
  void Rebuild(size_t shared, const char* p, size_t n) {
    assert(shared <= size_);
    const size_t need = shared + n;
    if (need > capacity_) Grow(need);
    CopyBytes(data_ + shared, p, n);
    size_ = need;
  }

  // Replaces the key with key. REQUIRES: key is not inside this buffer.
  void Assign(const Slice& key) { Rebuild(0, key.data(), key.size()); }

 private:
  // Makes room for need bytes, keeping the current ones.
  void Grow(size_t need) {
    const size_t capacity = std::max(need, 2 * capacity_);
    std::unique_ptr<char[]> bigger(new char[capacity]);
    if (size_ > 0) std::memcpy(bigger.get(), data_, size_);
    heap_ = std::move(bigger);
    data_ = heap_.get();
    capacity_ = capacity;
  }

  char inline_[64];
  char* data_ = inline_;
  size_t size_ = 0;
  size_t capacity_ = sizeof(inline_);
  std::unique_ptr<char[]> heap_;  // data_ once keys outgrew inline_
};

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_KEY_BUFFER_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Slice: a pointer and a length naming bytes that someone else owns. It is
// the currency of every CascadeDB interface: keys, values, file contents.
//
// Thread safety: thread-compatible. A Slice never owns its bytes; the caller
// keeps them alive for as long as the Slice is used.

#ifndef CASCADEDB_INCLUDE_CASCADEDB_SLICE_H_
#define CASCADEDB_INCLUDE_CASCADEDB_SLICE_H_

#include <cassert>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace cascadedb {

class Slice {
 public:
  // An empty slice.
  Slice() : data_(""), size_(0) {}

  // Borrows d[0, n).
  Slice(const char* d, size_t n) : data_(d), size_(n) {}

  // Borrows the contents of s; s must outlive the slice and not be modified.
  Slice(const std::string& s) : data_(s.data()), size_(s.size()) {}  // NOLINT

  // Borrows the contents of sv.
  Slice(std::string_view sv) : data_(sv.data()), size_(sv.size()) {}  // NOLINT

  // Borrows the NUL-terminated string s (without the NUL).
  Slice(const char* s) : data_(s), size_(strlen(s)) {}  // NOLINT

  Slice(const Slice&) = default;
  Slice& operator=(const Slice&) = default;

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // REQUIRES: n < size()
  char operator[](size_t n) const {
    assert(n < size_);
    return data_[n];
  }

  void clear() {
    data_ = "";
    size_ = 0;
  }

  // Drops the first n bytes. REQUIRES: n <= size()
  void remove_prefix(size_t n) {
    assert(n <= size_);
    data_ += n;
    size_ -= n;
  }

  // Drops the last n bytes. REQUIRES: n <= size()
  void remove_suffix(size_t n) {
    assert(n <= size_);
    size_ -= n;
  }

  std::string ToString() const { return std::string(data_, size_); }
  std::string_view ToStringView() const {
    return std::string_view(data_, size_);
  }

  // Returns the bytes as printable text: printable ASCII as is, everything
  // else as \xNN; or, with hex=true, every byte as two hex digits.
  std::string ToPrintable(bool hex = false) const;

  // Three-way bytewise comparison: <0, 0 or >0.
  int compare(const Slice& b) const;

  bool starts_with(const Slice& x) const {
    return size_ >= x.size_ && memcmp(data_, x.data_, x.size_) == 0;
  }

 private:
  const char* data_;
  size_t size_;
};

inline bool operator==(const Slice& x, const Slice& y) {
  return x.size() == y.size() && memcmp(x.data(), y.data(), x.size()) == 0;
}

inline bool operator!=(const Slice& x, const Slice& y) { return !(x == y); }

inline int Slice::compare(const Slice& b) const {
  const size_t min_len = (size_ < b.size_) ? size_ : b.size_;
  int r = min_len == 0 ? 0 : memcmp(data_, b.data_, min_len);
  if (r == 0) {
    if (size_ < b.size_) {
      r = -1;
    } else if (size_ > b.size_) {
      r = +1;
    }
  }
  return r;
}

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_SLICE_H_

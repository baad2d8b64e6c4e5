// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "cascadedb/slice.h"

#include <cstdio>

namespace cascadedb {

std::string Slice::ToPrintable(bool hex) const {
  std::string result;
  result.reserve(size_ * (hex ? 2 : 1));
  char buf[8];
  for (size_t i = 0; i < size_; i++) {
    const unsigned char c = static_cast<unsigned char>(data_[i]);
    if (hex) {
      std::snprintf(buf, sizeof(buf), "%02X", c);
      result.append(buf);
    } else if (c >= ' ' && c <= '~' && c != '\\') {
      result.push_back(static_cast<char>(c));
    } else {
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      result.append(buf);
    }
  }
  return result;
}

}  // namespace cascadedb

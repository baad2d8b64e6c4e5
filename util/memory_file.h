// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Files held in memory: MemoryRandomAccessFile and MemorySequentialFile read
// a string as if it were a file, MemoryWritableFile appends to one. For
// building and reading SSTs and logs without a disk (sst_dump's recompress
// trials, benchmarks, the fuzzers).
// Tests that need injected failures or read counters have their own.
//
// Thread safety: MemoryRandomAccessFile is thread-safe (immutable);
// MemorySequentialFile and MemoryWritableFile are not thread-safe.

#ifndef CASCADEDB_UTIL_MEMORY_FILE_H_
#define CASCADEDB_UTIL_MEMORY_FILE_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "cascadedb/env.h"

namespace cascadedb {

class MemoryRandomAccessFile : public RandomAccessFile {
 public:
  explicit MemoryRandomAccessFile(std::string contents)
      : contents_(std::move(contents)) {}

  // Copies into scratch (so sanitizers see exactly the bytes a reader may
  // use); reads past the end are short.
  Status Read(uint64_t offset, size_t n, Slice* result,
              char* scratch) const override {
    if (offset >= contents_.size()) {
      *result = Slice(scratch, 0);
      return Status::OK();
    }
    const size_t len = std::min<uint64_t>(n, contents_.size() - offset);
    std::memcpy(scratch, contents_.data() + offset, len);
    *result = Slice(scratch, len);
    return Status::OK();
  }

 private:
  const std::string contents_;
};

class MemorySequentialFile : public SequentialFile {
 public:
  explicit MemorySequentialFile(std::string contents)
      : contents_(std::move(contents)) {}

  // Copies into scratch; reads at the end are short or empty.
  Status Read(size_t n, Slice* result, char* scratch) override {
    const size_t len = std::min(n, contents_.size() - pos_);
    std::memcpy(scratch, contents_.data() + pos_, len);
    *result = Slice(scratch, len);
    pos_ += len;
    return Status::OK();
  }
  Status Skip(uint64_t n) override {
    pos_ += static_cast<size_t>(std::min<uint64_t>(n, contents_.size() - pos_));
    return Status::OK();
  }

 private:
  const std::string contents_;
  size_t pos_ = 0;
};

class MemoryWritableFile : public WritableFile {
 public:
  Status Append(const Slice& data) override {
    contents_.append(data.data(), data.size());
    return Status::OK();
  }
  Status Close() override { return Status::OK(); }
  Status Flush() override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }
  uint64_t GetFileSize() const override { return contents_.size(); }

  // What was appended; may be moved out.
  std::string* contents() { return &contents_; }

 private:
  std::string contents_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_MEMORY_FILE_H_

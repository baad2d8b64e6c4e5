// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// In-memory files for the table tests: a WritableFile that appends to a
// string (and can be told to fail), and a RandomAccessFile over a string
// that counts its reads. Reads copy into the caller's scratch, like a real
// file, so ASan catches any read past a block; a source that returns its own
// memory (like a mapped file) can also hand out copying readers.
//
// Thread safety: StringSink is not thread-safe; StringSource is thread-safe.

#ifndef CASCADEDB_TESTS_TABLE_TABLE_TEST_UTIL_H_
#define CASCADEDB_TESTS_TABLE_TABLE_TEST_UTIL_H_

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cascadedb/env.h"

namespace cascadedb {
namespace test {

class StringSink : public WritableFile {
 public:
  Status Append(const Slice& data) override {
    if (fail_appends_after_ >= 0 && appends_ >= fail_appends_after_) {
      return Status::IOError("injected append failure");
    }
    ++appends_;
    contents_.append(data.data(), data.size());
    return Status::OK();
  }
  Status Close() override { return Status::OK(); }
  Status Flush() override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }
  uint64_t GetFileSize() const override { return contents_.size(); }
  Status Allocate(uint64_t offset, uint64_t len) override {
    allocations_.emplace_back(offset, len);
    return Status::OK();
  }

  const std::string& contents() const { return contents_; }
  // Appends after the first n succeed fail with IOError.
  void FailAppendsAfter(int n) { fail_appends_after_ = n; }
  const std::vector<std::pair<uint64_t, uint64_t>>& allocations() const {
    return allocations_;
  }

 private:
  std::string contents_;
  int appends_ = 0;
  int fail_appends_after_ = -1;
  std::vector<std::pair<uint64_t, uint64_t>> allocations_;
};

class StringSource : public RandomAccessFile {
 public:
  // mapped: reads return the contents' own memory, as a mapped file does,
  // instead of copying into scratch.
  explicit StringSource(std::string contents, bool mapped = false)
      : contents_(std::move(contents)), mapped_(mapped) {}

  Status Read(uint64_t offset, size_t n, Slice* result,
              char* scratch) const override {
    reads_.fetch_add(1, std::memory_order_relaxed);
    bytes_read_.fetch_add(n, std::memory_order_relaxed);
    if (offset >= contents_.size()) {
      *result = Slice(mapped_ ? contents_.data() : scratch, 0);
      return Status::OK();
    }
    const size_t len =
        std::min(n, contents_.size() - static_cast<size_t>(offset));
    if (mapped_) {
      *result = Slice(contents_.data() + offset, len);
      return Status::OK();
    }
    *result = CopyOut(offset, n, scratch);
    return Status::OK();
  }

  bool ReturnsOwnMemory() const override { return mapped_; }
  const std::string& contents() const { return contents_; }

  // From here on, hands out copying readers (NewCopyingReader): views of
  // the same contents that copy into scratch and count their reads here.
  void OfferCopyingReaders() { offer_copiers_ = true; }
  std::unique_ptr<RandomAccessFile> NewCopyingReader() const override {
    if (!offer_copiers_) return nullptr;
    copiers_.fetch_add(1, std::memory_order_relaxed);
    return std::make_unique<CopyingView>(this);
  }

  uint64_t reads() const { return reads_.load(std::memory_order_relaxed); }
  uint64_t copiers() const { return copiers_.load(std::memory_order_relaxed); }
  uint64_t copying_reads() const {
    return copying_reads_.load(std::memory_order_relaxed);
  }
  // The largest read asked of a copying reader, in bytes.
  uint64_t largest_copying_read() const {
    return largest_copying_read_.load(std::memory_order_relaxed);
  }
  uint64_t bytes_read() const {
    return bytes_read_.load(std::memory_order_relaxed);
  }

 private:
  class CopyingView : public RandomAccessFile {
   public:
    explicit CopyingView(const StringSource* owner) : owner_(owner) {}
    Status Read(uint64_t offset, size_t n, Slice* result,
                char* scratch) const override {
      owner_->copying_reads_.fetch_add(1, std::memory_order_relaxed);
      uint64_t largest = owner_->largest_copying_read_.load();
      while (n > largest &&
             !owner_->largest_copying_read_.compare_exchange_weak(largest, n)) {
      }
      *result = owner_->CopyOut(offset, n, scratch);
      return Status::OK();
    }

   private:
    const StringSource* const owner_;
  };

  // Copies the contents' bytes in [offset, offset + n), as far as they go,
  // into scratch.
  Slice CopyOut(uint64_t offset, size_t n, char* scratch) const {
    const size_t start = std::min<size_t>(offset, contents_.size());
    const size_t len = std::min(n, contents_.size() - start);
    std::memcpy(scratch, contents_.data() + start, len);
    return Slice(scratch, len);
  }

  const std::string contents_;
  const bool mapped_;
  bool offer_copiers_ = false;
  mutable std::atomic<uint64_t> reads_{0};
  mutable std::atomic<uint64_t> bytes_read_{0};
  mutable std::atomic<uint64_t> copiers_{0};
  mutable std::atomic<uint64_t> copying_reads_{0};
  mutable std::atomic<uint64_t> largest_copying_read_{0};
};

}  // namespace test
}  // namespace cascadedb

#endif  // CASCADEDB_TESTS_TABLE_TABLE_TEST_UTIL_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// In-memory file objects for tests that exercise file formats without a
// disk: StringSink (a WritableFile appending to a string) and StringSource
// (a SequentialFile reading from one), each able to fail on demand.
//
// Thread safety: not thread-safe (like the file interfaces they implement).

#ifndef CASCADEDB_TESTS_TESTUTIL_MEM_FILES_H_
#define CASCADEDB_TESTS_TESTUTIL_MEM_FILES_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "cascadedb/env.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"

namespace cascadedb {
namespace test {

// A WritableFile whose contents live in a string.
class StringSink : public WritableFile {
 public:
  StringSink() = default;

  const std::string& contents() const { return contents_; }
  std::string* mutable_contents() { return &contents_; }

  // Makes the append with this 0-based index (counting every Append call)
  // and all later ones fail with IOError. -1 (the default) never fails.
  void FailAppendsFrom(int index) { fail_from_ = index; }

  int appends() const { return appends_; }
  int flushes() const { return flushes_; }
  int syncs() const { return syncs_; }

  Status Append(const Slice& data) override {
    const int index = appends_++;
    if (fail_from_ >= 0 && index >= fail_from_) {
      return Status::IOError("string sink: injected append failure");
    }
    contents_.append(data.data(), data.size());
    return Status::OK();
  }
  Status Close() override { return Status::OK(); }
  Status Flush() override {
    flushes_++;
    return Status::OK();
  }
  Status Sync() override {
    syncs_++;
    return Status::OK();
  }
  uint64_t GetFileSize() const override { return contents_.size(); }

 private:
  std::string contents_;
  int fail_from_ = -1;
  int appends_ = 0;
  int flushes_ = 0;
  int syncs_ = 0;
};

// A SequentialFile reading a copy of a string.
class StringSource : public SequentialFile {
 public:
  explicit StringSource(std::string contents)
      : contents_(std::move(contents)) {}

  // Makes reads that would return bytes at or past offset fail with
  // IOError. UINT64_MAX (the default) never fails.
  void FailReadsAt(uint64_t offset) { fail_at_ = offset; }

  // Bytes returned by Read so far.
  uint64_t bytes_read() const { return bytes_read_; }

  Status Read(size_t n, Slice* result, char* scratch) override {
    const size_t left = contents_.size() - pos_;
    const size_t len = n < left ? n : left;
    if (len > 0 && pos_ + len > fail_at_) {
      *result = Slice();
      return Status::IOError("string source: injected read failure");
    }
    if (len > 0) std::memcpy(scratch, contents_.data() + pos_, len);
    *result = Slice(scratch, len);
    pos_ += len;
    bytes_read_ += len;
    return Status::OK();
  }

  Status Skip(uint64_t n) override {
    const size_t left = contents_.size() - pos_;
    pos_ += n < left ? static_cast<size_t>(n) : left;
    return Status::OK();
  }

 private:
  const std::string contents_;
  size_t pos_ = 0;
  uint64_t fail_at_ = UINT64_MAX;
  uint64_t bytes_read_ = 0;
};

}  // namespace test
}  // namespace cascadedb

#endif  // CASCADEDB_TESTS_TESTUTIL_MEM_FILES_H_

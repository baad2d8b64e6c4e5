// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/readahead_file.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <memory>

#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace cascadedb {

namespace {

class ReadaheadRandomAccessFile : public RandomAccessFile {
 public:
  ReadaheadRandomAccessFile(const RandomAccessFile* target,
                            size_t readahead_size)
      : target_(target),
        readahead_size_(readahead_size),
        in_place_(target->ReturnsOwnMemory()),
        buffer_(in_place_ ? nullptr : new char[readahead_size]) {}

  Status Read(uint64_t offset, size_t n, Slice* result,
              char* scratch) const override {
    if (n >= readahead_size_) return target_->Read(offset, n, result, scratch);
    if (in_place_) {
      // A mapped target: nothing to copy, only ask the OS for the window
      // ahead whenever the reader leaves the last one.
      {
        MutexLock lock(&mu_);
        if (!buffer_valid_ || offset < buffer_offset_ ||
            offset + n > buffer_offset_ + readahead_size_) {
          target_->Prefetch(offset, readahead_size_);
          buffer_valid_ = true;
          buffer_offset_ = offset;
        }
      }
      return target_->Read(offset, n, result, scratch);
    }
    MutexLock lock(&mu_);
    if (!Covers(offset, n)) {
      // Refill from offset. The result is copied into scratch below, never
      // returned as a pointer into buffer_, which the next refill replaces.
      Slice filled;
      Status s = target_->Read(offset, readahead_size_, &filled, buffer_.get());
      if (!s.ok()) {
        buffer_valid_ = false;
        return s;
      }
      if (filled.data() != buffer_.get() && !filled.empty()) {
        std::memcpy(buffer_.get(), filled.data(), filled.size());
      }
      buffer_valid_ = true;
      buffer_offset_ = offset;
      buffer_len_ = filled.size();
    }
    // A short buffer means the end of the file: return what there is.
    const size_t start = static_cast<size_t>(offset - buffer_offset_);
    const size_t available = buffer_len_ > start ? buffer_len_ - start : 0;
    const size_t copied = std::min(n, available);
    if (copied > 0) std::memcpy(scratch, buffer_.get() + start, copied);
    *result = Slice(scratch, copied);
    return Status::OK();
  }

  bool use_direct_io() const override { return target_->use_direct_io(); }
  bool ReturnsOwnMemory() const override { return in_place_; }

 private:
  // True if [offset, offset + n) lies in the buffer, or the buffer already
  // reaches the end of the file at or before offset + n.
  bool Covers(uint64_t offset, size_t n) const REQUIRES(mu_) {
    if (!buffer_valid_ || offset < buffer_offset_) return false;
    const uint64_t start = offset - buffer_offset_;
    if (start + n <= buffer_len_) return true;
    // A buffer shorter than requested ended at the end of the file.
    return buffer_len_ < readahead_size_ && start <= buffer_len_;
  }

  const RandomAccessFile* const target_;
  const size_t readahead_size_;
  const bool in_place_;  // the target returns its own memory: no buffer
  mutable Mutex mu_;
  // The bytes are guarded by mu_ (clang 14 cannot annotate a smart pointer).
  const std::unique_ptr<char[]> buffer_;
  mutable bool buffer_valid_ GUARDED_BY(mu_) = false;
  mutable uint64_t buffer_offset_ GUARDED_BY(mu_) = 0;
  mutable size_t buffer_len_ GUARDED_BY(mu_) = 0;
};

}  // namespace

std::unique_ptr<RandomAccessFile> NewReadaheadRandomAccessFile(
    const RandomAccessFile* target, size_t readahead_size) {
  assert(readahead_size > 0);
  return std::make_unique<ReadaheadRandomAccessFile>(target, readahead_size);
}

}  // namespace cascadedb

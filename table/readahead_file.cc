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

// The most a buffered read copies from its source at once, unless the
// source reads directly (each read is then the I/O, so it spans the whole
// readahead). A copy this size stays in the CPU's caches, and a buffer this
// size comes from the allocator's free lists: a 1-2 MiB buffer for each
// input iterator, fresh memory every time, cost a compaction more than the
// copy saved (docs/design/20261201-compaction-reads-copy.md). The OS still
// reads ahead by the whole readahead: each window is hinted.
constexpr size_t kMaxCopyBytes = 64 << 10;

class ReadaheadRandomAccessFile : public RandomAccessFile {
 public:
  ReadaheadRandomAccessFile(const RandomAccessFile* target,
                            size_t readahead_size)
      : copier_(target->ReturnsOwnMemory() ? target->NewCopyingReader()
                                           : nullptr),
        source_(copier_ != nullptr ? copier_.get() : target),
        readahead_size_(readahead_size),
        in_place_(source_->ReturnsOwnMemory()),
        buffer_size_(in_place_ ? 0 : BufferSize(*source_, readahead_size)),
        buffer_(in_place_ ? nullptr : new char[buffer_size_]) {}

  Status Read(uint64_t offset, size_t n, Slice* result,
              char* scratch) const override {
    if (n >= readahead_size_) return source_->Read(offset, n, result, scratch);
    {
      MutexLock lock(&mu_);
      // Ask the OS for the window ahead whenever the reader leaves the last.
      if (!window_valid_ || offset < window_offset_ ||
          offset + n > window_offset_ + readahead_size_) {
        source_->Prefetch(offset, readahead_size_);
        window_valid_ = true;
        window_offset_ = offset;
      }
      if (!in_place_ && n < buffer_size_) {
        return ReadBuffered(offset, n, result, scratch);
      }
    }
    // A mapped source copies nothing; a read as large as the buffer skips it.
    return source_->Read(offset, n, result, scratch);
  }

  bool use_direct_io() const override { return source_->use_direct_io(); }
  bool ReturnsOwnMemory() const override { return in_place_; }

 private:
  // The buffer of a source not read in place: the whole readahead for a
  // direct one.
  static size_t BufferSize(const RandomAccessFile& source,
                           size_t readahead_size) {
    if (source.use_direct_io()) return readahead_size;
    return std::min(readahead_size, kMaxCopyBytes);
  }

  Status ReadBuffered(uint64_t offset, size_t n, Slice* result,
                      char* scratch) const REQUIRES(mu_) {
    if (!Covers(offset, n)) {
      // Refill from offset. The result is copied into scratch below, never
      // returned as a pointer into buffer_, which the next refill replaces.
      Slice filled;
      Status s = source_->Read(offset, buffer_size_, &filled, buffer_.get());
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

  // True if [offset, offset + n) lies in the buffer, or the buffer already
  // reaches the end of the file at or before offset + n.
  bool Covers(uint64_t offset, size_t n) const REQUIRES(mu_) {
    if (!buffer_valid_ || offset < buffer_offset_) return false;
    const uint64_t start = offset - buffer_offset_;
    if (start + n <= buffer_len_) return true;
    // A buffer shorter than requested ended at the end of the file.
    return buffer_len_ < buffer_size_ && start <= buffer_len_;
  }

  // The target's copying reader, if it returns its own memory and has one.
  const std::unique_ptr<RandomAccessFile> copier_;
  const RandomAccessFile* const source_;  // copier_ or the target
  const size_t readahead_size_;
  const bool in_place_;  // the source returns its own memory: no buffer
  const size_t buffer_size_;
  mutable Mutex mu_;
  // The window last hinted: [window_offset_, + readahead_size_).
  mutable bool window_valid_ GUARDED_BY(mu_) = false;
  mutable uint64_t window_offset_ GUARDED_BY(mu_) = 0;
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

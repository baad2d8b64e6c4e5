// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/block_builder.h"

#include <algorithm>
#include <cassert>

#include "util/coding.h"

namespace cascadedb {

BlockBuilder::BlockBuilder(int restart_interval)
    : restart_interval_(restart_interval) {
  assert(restart_interval_ >= 1);
  restarts_.push_back(0);  // the first entry always starts a restart
}

void BlockBuilder::Reset() {
  size_ = 0;  // buffer_'s bytes stay, as room
  restarts_.clear();
  restarts_.push_back(0);
  counter_ = 0;
  num_entries_ = 0;
  finished_ = false;
  last_key_.clear();
}

void BlockBuilder::Add(const Slice& key, const Slice& value) {
  assert(!finished_);
  size_t shared = 0;
  if (counter_ < restart_interval_) {
    shared = SharedPrefixLength(last_key_.slice().data(), key.data(),
                                std::min(last_key_.size(), key.size()));
  } else {
    // A restart point stores its key in full so readers can start there.
    restarts_.push_back(static_cast<uint32_t>(size_));
    counter_ = 0;
  }
  const size_t non_shared = key.size() - shared;

  const size_t most = 3 * kMaxVarint32Length + non_shared + value.size();
  if (buffer_.size() - size_ < most) Grow(most);
  char* const start = &buffer_[0];
  char* p = EncodeVarint32(start + size_, static_cast<uint32_t>(shared));
  p = EncodeVarint32(p, static_cast<uint32_t>(non_shared));
  p = EncodeVarint32(p, static_cast<uint32_t>(value.size()));
  CopyBytes(p, key.data() + shared, non_shared);
  p += non_shared;
  CopyBytes(p, value.data(), value.size());
  p += value.size();
  size_ = static_cast<size_t>(p - start);

  last_key_.Rebuild(shared, key.data() + shared, non_shared);
  ++counter_;
  ++num_entries_;
}

void BlockBuilder::Grow(size_t n) {
  // Geometric, so a block's bytes are moved O(1) times on average. The
  // string keeps its length (zero-filled once) from block to block, as room.
  buffer_.resize(std::max(size_ + n, 2 * size_));
}

Slice BlockBuilder::Finish() {
  if (!finished_) {
    const size_t trailer = (restarts_.size() + 1) * sizeof(uint32_t);
    if (buffer_.size() - size_ < trailer) Grow(trailer);
    char* p = &buffer_[size_];
    for (uint32_t restart : restarts_) {
      EncodeFixed32(p, restart);
      p += sizeof(uint32_t);
    }
    EncodeFixed32(p, static_cast<uint32_t>(restarts_.size()));
    size_ += trailer;
    finished_ = true;
  }
  return Slice(buffer_.data(), size_);
}

void BlockBuilder::FinishInto(std::string* out) {
  // A copy, not a swap: *out goes to the compression queue, where a writer
  // on another CPU may read it, and a builder that took such a buffer back
  // wrote its next block into lines that CPU still shared. Each entry then
  // waited for its lines' ownership (the store buffer drained before the
  // next key could be read): ~0.1 us an entry, a fifth of a compaction
  // thread's time (docs/performance.md, "Block builders keep their own
  // buffer"). One copy of the block, which fetches all its lines at once,
  // costs a fraction of that.
  Finish();
  out->assign(buffer_.data(), size_);
  Reset();
}

size_t BlockBuilder::CurrentSizeEstimate() const {
  if (finished_) return size_;
  return size_ + restarts_.size() * sizeof(uint32_t) + sizeof(uint32_t);
}

}  // namespace cascadedb

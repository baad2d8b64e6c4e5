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
  buffer_.clear();
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
    const size_t limit = std::min(last_key_.size(), key.size());
    while (shared < limit && last_key_[shared] == key[shared]) ++shared;
  } else {
    // A restart point stores its key in full so readers can start there.
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    counter_ = 0;
  }
  const size_t non_shared = key.size() - shared;

  // The three lengths go in with one append (each PutVarint32 would be an
  // append of its own, with its own capacity check).
  char lengths[15];
  char* p = EncodeVarint32(lengths, static_cast<uint32_t>(shared));
  p = EncodeVarint32(p, static_cast<uint32_t>(non_shared));
  p = EncodeVarint32(p, static_cast<uint32_t>(value.size()));
  buffer_.append(lengths, static_cast<size_t>(p - lengths));
  buffer_.append(key.data() + shared, non_shared);
  buffer_.append(value.data(), value.size());

  last_key_.Rebuild(shared, key.data() + shared, non_shared);
  ++counter_;
  ++num_entries_;
}

Slice BlockBuilder::Finish() {
  if (!finished_) {
    for (uint32_t restart : restarts_) PutFixed32(&buffer_, restart);
    PutFixed32(&buffer_, static_cast<uint32_t>(restarts_.size()));
    finished_ = true;
  }
  return Slice(buffer_);
}

void BlockBuilder::FinishInto(std::string* out) {
  Finish();
  buffer_.swap(*out);
  Reset();
}

size_t BlockBuilder::CurrentSizeEstimate() const {
  if (finished_) return buffer_.size();
  return buffer_.size() + restarts_.size() * sizeof(uint32_t) +
         sizeof(uint32_t);
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/filter_block.h"

#include <cassert>

namespace cascadedb {

const char kFilterBlockPrefix[] = "filter.";

FilterBlockBuilder::FilterBlockBuilder(const FilterPolicy* policy)
    : policy_(policy),
      hashed_(dynamic_cast<const KeyHashFilterPolicy*>(policy)) {
  assert(policy_ != nullptr);
}

void FilterBlockBuilder::AddKey(const Slice& user_key) {
  // Internal keys of one user key arrive together (newest first), so
  // skipping consecutive duplicates drops almost all of them cheaply.
  if (hashed_ != nullptr) {
    if (num_keys_ > 0 && last_key_.slice() == user_key) return;
    last_key_.Assign(user_key);
    hashes_.push_back(hashed_->KeyHash(user_key));
    ++num_keys_;
    return;
  }
  if (!starts_.empty()) {
    const size_t last = starts_.back();
    if (Slice(keys_.data() + last, keys_.size() - last) == user_key) return;
  }
  starts_.push_back(keys_.size());
  ++num_keys_;
  keys_.append(user_key.data(), user_key.size());
}

Slice FilterBlockBuilder::Finish() {
  result_.clear();
  if (hashed_ != nullptr) {
    hashed_->CreateFilterFromHashes(hashes_.data(), hashes_.size(), &result_);
    std::vector<uint64_t>().swap(hashes_);
    return Slice(result_);
  }
  std::vector<Slice> keys;
  keys.reserve(starts_.size());
  for (size_t i = 0; i < starts_.size(); ++i) {
    const size_t end = i + 1 < starts_.size() ? starts_[i + 1] : keys_.size();
    keys.emplace_back(keys_.data() + starts_[i], end - starts_[i]);
  }
  policy_->CreateFilter(keys.data(), static_cast<int>(keys.size()), &result_);
  std::string().swap(keys_);
  std::vector<size_t>().swap(starts_);
  return Slice(result_);
}

FilterBlockReader::FilterBlockReader(const FilterPolicy* policy,
                                     const Slice& contents)
    : policy_(policy),
      hashed_(dynamic_cast<const KeyHashFilterPolicy*>(policy)),
      contents_(contents) {}

bool FilterBlockReader::KeyMayMatch(const Slice& user_key) const {
  if (policy_ == nullptr || contents_.empty()) return true;
  return policy_->KeyMayMatch(user_key, contents_);
}

void FilterBlockReader::Prefetch(const Slice& user_key) const {
  if (hashed_ != nullptr) hashed_->PrefetchKey(user_key, contents_);
}

}  // namespace cascadedb

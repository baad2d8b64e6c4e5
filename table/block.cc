// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/block.h"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "table/table_key_format.h"
#include "util/coding.h"
#include "util/key_buffer.h"

namespace cascadedb {

Block::Block(const BlockContents& contents)
    : data_(contents.data.data()),
      size_(contents.data.size()),
      restart_offset_(0),
      num_restarts_(0),
      owned_(contents.heap_allocated) {
  // Layout (docs/format/sst.md, "Restart array"): entries, then
  // num_restarts fixed32 offsets, then fixed32 num_restarts. A block that
  // cannot hold its own restart array is malformed (num_restarts_ = 0).
  if (size_ < sizeof(uint32_t) || size_ > UINT32_MAX) return;
  const uint32_t n = DecodeFixed32(data_ + size_ - sizeof(uint32_t));
  const size_t max_restarts = (size_ - sizeof(uint32_t)) / sizeof(uint32_t);
  if (n == 0 || n > max_restarts) return;
  num_restarts_ = n;
  restart_offset_ = static_cast<uint32_t>(size_ - (1 + n) * sizeof(uint32_t));
}

// The restart keys' heads (BuildSearchHeads). The prefix is the one the
// inner restart keys share: the first and last restart keys may lack it
// (an index block's last key is a short successor, "1" after
// "0000000004999999"), so heads cover restarts [begin, begin +
// heads.size()), the ones that have it, all of them but at most one at
// each end.
struct Block::SearchHeads {
  const TableKeyFormat* key_format;  // nullptr: stored keys are user keys
  std::string prefix;                // the covered restarts' user keys have it
  uint32_t restarts;                 // all of the block's
  uint32_t begin;                    // the first covered restart
  std::vector<uint64_t> heads;       // per covered restart, non-decreasing

  Slice UserKey(const Slice& key) const {
    return key_format != nullptr ? key_format->UserKey(key) : key;
  }

  // Narrows a search for the last restart point whose key is < target to
  // [*left, *right]: restarts before *left are < target (and *left too,
  // unless it is 0), restarts after *right are >= target.
  void Narrow(const Slice& target, uint32_t* left, uint32_t* right) const {
    const Slice user_key = UserKey(target);
    const size_t end = begin + heads.size();
    // The number of restarts whose key is < target lies in [lo, hi].
    size_t lo;
    size_t hi;
    const size_t common = std::min(user_key.size(), prefix.size());
    const int r =
        common > 0 ? std::memcmp(user_key.data(), prefix.data(), common) : 0;
    if (r < 0 || (r == 0 && user_key.size() < prefix.size())) {
      // Before every covered key; an uncovered first key may be either way.
      lo = 0;
      hi = begin;
    } else if (r > 0) {
      // After every covered key; so is an uncovered first key (it sorts
      // before them), an uncovered last key may be either way.
      lo = end;
      hi = restarts;
    } else {
      // Covered keys with a smaller head are < target, with a larger one
      // > target; uncovered keys sort before or after all of them (and the
      // target).
      const uint64_t head = KeyHead(user_key, prefix.size());
      const auto first = std::lower_bound(heads.begin(), heads.end(), head);
      const auto last = std::upper_bound(first, heads.end(), head);
      lo = begin + static_cast<size_t>(first - heads.begin());
      hi = begin + static_cast<size_t>(last - heads.begin());
    }
    *left = lo > 0 ? static_cast<uint32_t>(lo - 1) : 0;
    *right = hi > 0 ? static_cast<uint32_t>(hi - 1) : 0;
  }
};

Block::~Block() {
  if (owned_) delete[] data_;
}

size_t Block::MemoryUsage() const {
  size_t bytes = size_;
  if (heads_ != nullptr) {
    bytes += sizeof(SearchHeads) + heads_->prefix.capacity() +
             heads_->heads.capacity() * sizeof(uint64_t);
  }
  return bytes;
}

namespace {

// Decodes the three varint32 lengths of the entry at p (limit = end of the
// entries area). Returns the start of the key delta, or nullptr if the
// header is malformed or the delta and value overrun limit.
const char* DecodeEntry(const char* p, const char* limit, uint32_t* shared,
                        uint32_t* non_shared, uint32_t* value_length) {
  if (limit - p < 3) return nullptr;
  *shared = static_cast<unsigned char>(p[0]);
  *non_shared = static_cast<unsigned char>(p[1]);
  *value_length = static_cast<unsigned char>(p[2]);
  if ((*shared | *non_shared | *value_length) < 128) {
    p += 3;  // fast path: all three lengths fit in one byte each
  } else {
    if ((p = GetVarint32Ptr(p, limit, shared)) == nullptr) return nullptr;
    if ((p = GetVarint32Ptr(p, limit, non_shared)) == nullptr) return nullptr;
    if ((p = GetVarint32Ptr(p, limit, value_length)) == nullptr) {
      return nullptr;
    }
  }
  const uint64_t rest = static_cast<uint64_t>(limit - p);
  if (static_cast<uint64_t>(*non_shared) + *value_length > rest) {
    return nullptr;
  }
  return p;
}

// The full key of the restart entry at offset point (entries end at
// limit), borrowed from the block; false if the entry is malformed or not
// a restart (shares bytes with a previous key). REQUIRES: point <= limit.
bool DecodeRestartKey(const char* data, uint32_t limit, uint32_t point,
                      Slice* key) {
  uint32_t shared, non_shared, value_length;
  const char* p = DecodeEntry(data + point, data + limit, &shared, &non_shared,
                              &value_length);
  if (p == nullptr || shared != 0) return false;
  *key = Slice(p, non_shared);
  return true;
}

}  // namespace

bool Block::BuildSearchHeads(const TableKeyFormat* key_format) {
  heads_.reset();
  const uint32_t n = num_restarts_;
  if (n == 0) return false;
  auto heads = std::make_unique<SearchHeads>();
  heads->key_format = key_format;
  heads->restarts = n;
  // The user key of restart point i, borrowed from the block.
  auto restart_key = [&](uint32_t i, Slice* user_key) {
    const uint32_t point =
        DecodeFixed32(data_ + restart_offset_ + i * sizeof(uint32_t));
    Slice key;
    if (point >= restart_offset_ ||
        !DecodeRestartKey(data_, restart_offset_, point, &key)) {
      return false;
    }
    *user_key = heads->UserKey(key);
    return true;
  };
  // Sorted bytewise, every key between two keys shares their common
  // prefix; take it from the second and the second-to-last restart keys.
  Slice a, b;
  const uint32_t ia = n >= 3 ? 1 : 0;
  const uint32_t ib = n >= 3 ? n - 2 : n - 1;
  if (!restart_key(ia, &a) || !restart_key(ib, &b)) return false;
  size_t plen = 0;
  while (plen < a.size() && plen < b.size() &&
         a.data()[plen] == b.data()[plen]) {
    plen++;
  }
  heads->prefix.assign(a.data(), plen);
  // Cover every restart with the prefix: [ia, ib] surely (checked all the
  // same), the first and last ones if they have it too.
  Slice key;
  if (!restart_key(0, &key)) return false;
  heads->begin = key.starts_with(heads->prefix) ? 0 : ia;
  if (!restart_key(n - 1, &key)) return false;
  const uint32_t end = key.starts_with(heads->prefix) ? n : ib + 1;
  heads->heads.reserve(end - heads->begin);
  for (uint32_t i = heads->begin; i < end; i++) {
    if (!restart_key(i, &key) || !key.starts_with(heads->prefix)) return false;
    const uint64_t head = KeyHead(key, plen);
    if (!heads->heads.empty() && head < heads->heads.back()) return false;
    heads->heads.push_back(head);
  }
  heads_ = std::move(heads);
  return true;
}

// Position invariant: current_ is the offset of the current entry, or
// restarts_ when the iterator is not valid; next_ is the offset just past
// the current entry; restart_index_ is the last restart point at or before
// current_; key_ holds the current key, rebuilt from the restart point.
class Block::Iter : public Iterator {
 public:
  Iter(const Comparator* comparator, const char* data, uint32_t restarts,
       uint32_t num_restarts, const SearchHeads* heads)
      : comparator_(comparator),
        heads_(heads),
        data_(data),
        restarts_(restarts),
        num_restarts_(num_restarts),
        current_(restarts),
        next_(restarts),
        restart_index_(num_restarts - 1),
        restart_point_(restarts),
        next_restart_point_(0) {}

  bool Valid() const override { return current_ < restarts_; }
  Status status() const override { return status_; }
  Slice key() const override {
    assert(Valid());
    return key_.slice();
  }
  Slice value() const override {
    assert(Valid());
    return value_;
  }

  void Next() override {
    assert(Valid());
    ParseNextEntry();
  }

  void Prev() override {
    assert(Valid());
    const uint32_t original = current_;
    // Back up to the last restart point strictly before the current entry.
    uint32_t point = 0;
    for (;;) {
      if (!RestartPoint(restart_index_, &point)) return;
      if (point < original) break;
      if (restart_index_ == 0) {  // the current entry is the first one
        Invalidate();
        return;
      }
      --restart_index_;
    }
    SeekToRestartPoint(restart_index_, point);
    // Scan forward to the entry that ends where the original one starts.
    do {
      if (!ParseNextEntry()) return;
    } while (next_ < original);
    if (next_ != original) CorruptionError();  // restarts point mid-entry
  }

  void SeekToFirst() override {
    uint32_t point = 0;
    if (!RestartPoint(0, &point)) return;
    SeekToRestartPoint(0, point);
    ParseNextEntry();
  }

  void SeekToLast() override {
    uint32_t point = 0;
    if (!RestartPoint(num_restarts_ - 1, &point)) return;
    SeekToRestartPoint(num_restarts_ - 1, point);
    while (ParseNextEntry() && next_ < restarts_) {
    }
  }

  void Seek(const Slice& target) override {
    uint32_t index = 0;
    uint32_t point = 0;
    if (!FindRestartBefore(target, &index, &point)) return;
    SeekToRestartPoint(index, point);
    // Scan to the first entry >= target; at most one restart interval.
    while (ParseNextEntry()) {
      if (comparator_->Compare(key_.slice(), target) >= 0) return;
    }
  }

  void SeekForPrev(const Slice& target) override {
    Seek(target);
    if (!status_.ok()) return;
    if (!Valid()) {
      SeekToLast();  // every key is < target
    } else if (comparator_->Compare(key_.slice(), target) > 0) {
      Prev();  // the entry before the first key > target is <= target
    }
  }

 private:
  // Reads restart offset i into *point; a point past the entries area is
  // corruption.
  bool RestartPoint(uint32_t i, uint32_t* point) {
    assert(i < num_restarts_);
    *point = DecodeFixed32(data_ + restarts_ + i * sizeof(uint32_t));
    if (*point > restarts_) {
      CorruptionError();
      return false;
    }
    return true;
  }

  void SeekToRestartPoint(uint32_t index, uint32_t point) {
    key_.clear();
    restart_index_ = index;
    restart_point_ = point;
    next_restart_point_ = 0;  // found by the next ParseNextEntry
    next_ = point;
    current_ = restarts_;
  }

  // Binary-searches the restart array for the last restart point whose key
  // is < target (or restart 0 if none is), storing its index and offset.
  // With search heads, only restarts whose head ties the target's are
  // compared key by key. Returns false (with the iterator invalid) on
  // corruption or an empty block.
  bool FindRestartBefore(const Slice& target, uint32_t* index,
                         uint32_t* point) {
    uint32_t left = 0;
    uint32_t right = num_restarts_ - 1;
    if (heads_ != nullptr) heads_->Narrow(target, &left, &right);
    while (left < right) {
      const uint32_t mid = left + (right - left + 1) / 2;
      uint32_t mid_point = 0;
      Slice mid_key;
      if (!RestartPoint(mid, &mid_point)) return false;
      if (!RestartKey(mid_point, &mid_key)) return false;
      if (comparator_->Compare(mid_key, target) < 0) {
        left = mid;  // everything before mid is < target too
      } else {
        right = mid - 1;
      }
    }
    *index = left;
    if (!RestartPoint(left, point)) return false;
    if (*point == restarts_) {  // an empty block (or a bogus restart)
      Invalidate();
      return false;
    }
    return true;
  }

  // The full key stored at restart offset point, borrowed from the block.
  bool RestartKey(uint32_t point, Slice* key) {
    if (!DecodeRestartKey(data_, restarts_, point, key)) {
      CorruptionError();
      return false;
    }
    return true;
  }

  // Moves to the entry at next_. Returns false if there is none (the
  // iterator becomes invalid) or it is malformed (status_ = Corruption).
  bool ParseNextEntry() {
    current_ = next_;
    if (current_ >= restarts_) {
      Invalidate();
      return false;
    }
    uint32_t shared, non_shared, value_length;
    const char* p = DecodeEntry(data_ + current_, data_ + restarts_, &shared,
                                &non_shared, &value_length);
    if (p == nullptr || shared > key_.size()) {
      CorruptionError();
      return false;
    }
    if (current_ >= next_restart_point_ && !AdvanceRestartIndex()) {
      return false;
    }
    if (current_ == restart_point_ && shared != 0) {  // a restart: a full key
      CorruptionError();
      return false;
    }
    key_.Rebuild(shared, p, non_shared);
    value_ = Slice(p + non_shared, value_length);
    next_ = static_cast<uint32_t>((p + non_shared + value_length) - data_);
    return true;
  }

  // Moves restart_index_ to the last restart point at or before current_,
  // caching that point's offset and the next one's (restarts_ past the
  // last), so that ParseNextEntry reads the restart array once per
  // interval rather than once per entry.
  bool AdvanceRestartIndex() {
    while (restart_index_ + 1 < num_restarts_) {
      uint32_t point = 0;
      if (!RestartPoint(restart_index_ + 1, &point)) return false;
      if (point > current_) {
        next_restart_point_ = point;
        return true;
      }
      ++restart_index_;
      restart_point_ = point;
    }
    next_restart_point_ = restarts_;
    return true;
  }

  void Invalidate() {
    current_ = restarts_;
    next_ = restarts_;
    restart_index_ = num_restarts_ - 1;
    restart_point_ = restarts_;
    next_restart_point_ = 0;
    key_.clear();
    value_ = Slice();
  }

  void CorruptionError() {
    Invalidate();
    status_ = Status::Corruption("bad entry in block");
  }

  const Comparator* const comparator_;
  const SearchHeads* const heads_;  // nullptr: search restart keys only
  const char* const data_;          // the block
  const uint32_t restarts_;         // offset of the restart array
  const uint32_t num_restarts_;     // >= 1
  uint32_t current_;
  uint32_t next_;
  uint32_t restart_index_;
  uint32_t restart_point_;       // offset of restart restart_index_
  uint32_t next_restart_point_;  // of restart restart_index_ + 1; 0: unknown
  KeyBuffer key_;
  Slice value_;
  Status status_;
};

Iterator* Block::NewIterator(const Comparator* comparator) const {
  if (num_restarts_ == 0) {
    return NewErrorIterator(Status::Corruption("bad block contents"));
  }
  return new Iter(comparator, data_, restart_offset_, num_restarts_,
                  heads_.get());
}

}  // namespace cascadedb

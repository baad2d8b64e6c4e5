// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// IteratorWrapper: holds an Iterator* and caches its Valid() and key(), so
// the two-level and merging iterators, which ask for them over and over
// while comparing children, pay one virtual call per move instead of one per
// question. The cache is refreshed after every positioning call made through
// the wrapper, so the wrapped iterator must only be moved through it.
//
// Thread safety: not thread-safe (like the iterator it wraps).

#ifndef CASCADEDB_TABLE_ITERATOR_WRAPPER_H_
#define CASCADEDB_TABLE_ITERATOR_WRAPPER_H_

#include <cassert>

#include "cascadedb/iterator.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"

namespace cascadedb {

class IteratorWrapper {
 public:
  IteratorWrapper() = default;
  // Takes ownership of iter (which may be null).
  explicit IteratorWrapper(Iterator* iter) { Set(iter); }
  IteratorWrapper(const IteratorWrapper&) = delete;
  IteratorWrapper& operator=(const IteratorWrapper&) = delete;
  IteratorWrapper(IteratorWrapper&& other) noexcept
      : iter_(other.iter_), valid_(other.valid_), key_(other.key_) {
    other.iter_ = nullptr;
    other.valid_ = false;
  }
  ~IteratorWrapper() { delete iter_; }

  // The wrapped iterator (owned by the wrapper), or nullptr.
  Iterator* iter() const { return iter_; }

  // Deletes the current iterator and takes ownership of iter (may be null).
  void Set(Iterator* iter) {
    delete iter_;
    iter_ = iter;
    if (iter_ == nullptr) {
      valid_ = false;
    } else {
      Update();
    }
  }

  // The cached answers. key() REQUIRES: Valid().
  bool Valid() const { return valid_; }
  Slice key() const {
    assert(Valid());
    return key_;
  }
  Slice value() const {
    assert(Valid());
    return iter_->value();
  }
  // REQUIRES: iter() != nullptr.
  Status status() const {
    assert(iter_ != nullptr);
    return iter_->status();
  }

  // Positioning calls forward to the iterator, then refresh the cache.
  // REQUIRES: iter() != nullptr (and Valid() for Next and Prev).
  void Next() {
    assert(iter_ != nullptr);
    iter_->Next();
    Update();
  }
  void Prev() {
    assert(iter_ != nullptr);
    iter_->Prev();
    Update();
  }
  void Seek(const Slice& target) {
    assert(iter_ != nullptr);
    iter_->Seek(target);
    Update();
  }
  void SeekForPrev(const Slice& target) {
    assert(iter_ != nullptr);
    iter_->SeekForPrev(target);
    Update();
  }
  void SeekToFirst() {
    assert(iter_ != nullptr);
    iter_->SeekToFirst();
    Update();
  }
  void SeekToLast() {
    assert(iter_ != nullptr);
    iter_->SeekToLast();
    Update();
  }

 private:
  void Update() {
    valid_ = iter_->Valid();
    if (valid_) key_ = iter_->key();
  }

  Iterator* iter_ = nullptr;
  bool valid_ = false;
  // iter_->key() as of the last move; its bytes are valid until the next
  // move, which is exactly the Iterator::key() contract.
  Slice key_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_ITERATOR_WRAPPER_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/merging_iterator.h"

#include <cassert>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "table/iterator_wrapper.h"

namespace cascadedb {

namespace {

class MergingIterator : public Iterator {
 public:
  MergingIterator(const Comparator* comparator, Iterator** children, int n)
      : comparator_(comparator), children_(static_cast<size_t>(n)) {
    for (int i = 0; i < n; ++i) children_[i].Set(children[i]);
    heap_.reserve(children_.size());
  }

  bool Valid() const override { return current_ != nullptr && status_.ok(); }

  void SeekToFirst() override {
    ResetForSeek(Direction::kForward);
    for (IteratorWrapper& child : children_) {
      child.SeekToFirst();
      Collect(&child);
    }
    BuildHeap();
  }

  void SeekToLast() override {
    ResetForSeek(Direction::kReverse);
    for (IteratorWrapper& child : children_) {
      child.SeekToLast();
      Collect(&child);
    }
    BuildHeap();
  }

  void Seek(const Slice& target) override {
    ResetForSeek(Direction::kForward);
    for (IteratorWrapper& child : children_) {
      child.Seek(target);
      Collect(&child);
    }
    BuildHeap();
  }

  void SeekForPrev(const Slice& target) override {
    ResetForSeek(Direction::kReverse);
    for (IteratorWrapper& child : children_) {
      child.SeekForPrev(target);
      Collect(&child);
    }
    BuildHeap();
  }

  void Next() override {
    assert(Valid());
    if (direction_ != Direction::kForward) SwitchDirection(Direction::kForward);
    current_->Next();
    AdvanceTop();
  }

  void Prev() override {
    assert(Valid());
    if (direction_ != Direction::kReverse) SwitchDirection(Direction::kReverse);
    current_->Prev();
    AdvanceTop();
  }

  Slice key() const override {
    assert(Valid());
    return current_->key();
  }

  Slice value() const override {
    assert(Valid());
    return current_->value();
  }

  Status status() const override { return status_; }

 private:
  enum class Direction { kForward, kReverse };

  size_t Index(const IteratorWrapper* child) const {
    return static_cast<size_t>(child - children_.data());
  }

  // True if a's entry comes before b's in the current direction. Ties on
  // the key are broken by child index, which makes the order total.
  bool Before(const IteratorWrapper* a, const IteratorWrapper* b) const {
    int c = comparator_->Compare(a->key(), b->key());
    if (c == 0) c = Index(a) < Index(b) ? -1 : 1;
    return direction_ == Direction::kForward ? c < 0 : c > 0;
  }

  void ResetForSeek(Direction direction) {
    direction_ = direction;
    status_ = Status::OK();
    heap_.clear();
    current_ = nullptr;
  }

  // Adds a freshly positioned child to the heap array (not yet heap-ordered)
  // if it is valid, or records its error.
  void Collect(IteratorWrapper* child) {
    if (child->Valid()) {
      heap_.push_back(child);
    } else {
      NoteStatus(*child);
    }
  }

  void NoteStatus(const IteratorWrapper& child) {
    if (status_.ok() && child.iter() != nullptr) {
      Status s = child.status();
      if (!s.ok()) status_ = std::move(s);
    }
  }

  void BuildHeap() {
    for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
    current_ = heap_.empty() ? nullptr : heap_[0];
  }

  void SiftDown(size_t i) {
    const size_t n = heap_.size();
    IteratorWrapper* item = heap_[i];
    while (true) {
      size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && Before(heap_[child + 1], heap_[child])) ++child;
      if (!Before(heap_[child], item)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = item;
  }

  // The top child (current_) was just moved: restore the heap and pick the
  // new current entry.
  void AdvanceTop() {
    assert(!heap_.empty() && heap_[0] == current_);
    if (current_->Valid()) {
      SiftDown(0);
    } else {
      NoteStatus(*current_);
      heap_[0] = heap_.back();
      heap_.pop_back();
      if (!heap_.empty()) SiftDown(0);
    }
    current_ = heap_.empty() ? nullptr : heap_[0];
  }

  // Repositions every child other than current_ just past (forward) or just
  // before (reverse) the current entry in the (key, child index) order, then
  // rebuilds the heap for the new direction. current_ stays where it is and
  // becomes the top of the new heap.
  void SwitchDirection(Direction direction) {
    IteratorWrapper* const current = current_;
    const Slice key = current->key();  // stable: current does not move here
    const size_t current_index = Index(current);
    direction_ = direction;
    heap_.clear();
    heap_.push_back(current);
    for (IteratorWrapper& child : children_) {
      if (&child == current) continue;
      const bool after_current = Index(&child) > current_index;
      if (direction == Direction::kForward) {
        // Want the first entry > (key, current_index).
        child.Seek(key);
        if (child.Valid() && !after_current &&
            comparator_->Compare(child.key(), key) == 0) {
          child.Next();
        }
      } else {
        // Want the last entry < (key, current_index).
        child.SeekForPrev(key);
        if (child.Valid() && after_current &&
            comparator_->Compare(child.key(), key) == 0) {
          child.Prev();
        }
      }
      Collect(&child);
    }
    BuildHeap();
    assert(current_ == current);
  }

  const Comparator* const comparator_;
  std::vector<IteratorWrapper> children_;
  // The valid children, heap-ordered by Before(); heap_[0] is current_.
  std::vector<IteratorWrapper*> heap_;
  IteratorWrapper* current_ = nullptr;
  Direction direction_ = Direction::kForward;
  Status status_;  // first child error since the last seek
};

}  // namespace

Iterator* NewMergingIterator(const Comparator* comparator, Iterator** children,
                             int n) {
  assert(n >= 0);
  if (n == 0) return NewEmptyIterator();
  if (n == 1) return children[0];
  return new MergingIterator(comparator, children, n);
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/merging_iterator.h"

#include <cassert>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "table/iterator_wrapper.h"

namespace cascadedb {

namespace {

class MergingIterator : public Iterator {
 public:
  MergingIterator(const Comparator* comparator, Iterator** children, int n,
                  MergingIteratorOptions options)
      : comparator_(comparator),
        children_(static_cast<size_t>(n)),
        options_(std::move(options)) {
    for (int i = 0; i < n; ++i) children_[i].Set(children[i]);
    if (!options_.same_group) options_.probes.clear();  // never deferred
    options_.probes.resize(children_.size());
    heap_.reserve(children_.size());
    if (options_.same_group) deferred_.reserve(children_.size());
  }

  ~MergingIterator() override { CountSaved(); }

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
    // Children newest first: once one lands in target's group, the rest
    // (older) can only hold later keys of the group, or keys past it.
    // Without same_group nothing is deferred (no probes either).
    // Probing costs a filter lookup per child; see fruitless_seeks_. The
    // oldest child is never probed: reached with nothing found, it is
    // positioned whatever its filter says (holding the group, it has the
    // result; not holding it, every child is positioned). In a tree whose
    // keys are mostly in its last level, that is the probe of most seeks'
    // own level, a cache miss each.
    const bool probe_now = fruitless_seeks_ < kProbePauseAfter ||
                           ++paused_seeks_ % kProbeWhilePausedEvery == 0;
    // The probes are cache misses each (a filter line): start them all
    // before the first is read (13 L0 tables: seeks 3-4% faster).
    if (probe_now) {
      for (size_t i = 0; i + 1 < children_.size(); ++i) {
        const SeekProbe* const probe = options_.probes[i].get();
        if (probe != nullptr) probe->Prefetch(target);
      }
    }
    bool found = false;
    uint64_t positioned = 0;
    for (size_t i = 0; i < children_.size(); ++i) {
      IteratorWrapper* const child = &children_[i];
      const bool oldest = i + 1 == children_.size();
      const SeekProbe* const probe =
          probe_now && !oldest ? options_.probes[i].get() : nullptr;
      if (found || (probe != nullptr && !probe->MayContain(target))) {
        deferred_.push_back(child);
        continue;
      }
      child->Seek(target);
      Collect(child);
      ++positioned;
      found = child->Valid() && options_.same_group &&
              options_.same_group(child->key(), target);
    }
    CountSeeks(positioned);
    BuildHeap();
    if (!found) ++fruitless_seeks_;
    if (deferred_.empty()) return;
    if (found && Valid()) {
      assert(options_.same_group(current_->key(), target));
      deferred_target_.assign(target.data(), target.size());
    } else {
      PositionDeferred(target);
    }
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
    if (!deferred_.empty()) {
      ++fruitless_seeks_;  // the deferred children are positioned after all
      IteratorWrapper* const current = current_;
      PositionDeferred(deferred_target_);
      if (!status_.ok()) return;  // a deferred child's error ends the walk
      assert(current_ == current);
      (void)current;
    }
    if (direction_ != Direction::kForward) SwitchDirection(Direction::kForward);
    current_->Next();
    AdvanceTop();
  }

  void Prev() override {
    assert(Valid());
    // Switching direction repositions every child but the current one,
    // deferred or not.
    if (!deferred_.empty()) {
      ++fruitless_seeks_;
      CountSeeks(deferred_.size());  // repositioned by SwitchDirection
      deferred_.clear();
    }
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
    // Children left unpositioned until now were never needed: the last
    // seek's deferral paid.
    if (!deferred_.empty()) fruitless_seeks_ = 0;
    CountSaved();
    deferred_.clear();
    current_ = nullptr;
  }

  // Seeks the deferred children to target and adds them to the heap. After
  // a Seek that found target's group, each one's first key >= target comes
  // after the current entry (see MergingIteratorOptions), which stays on
  // top.
  void PositionDeferred(const Slice& target) {
    for (IteratorWrapper* child : deferred_) {
      child->Seek(target);
      Collect(child);
    }
    CountSeeks(deferred_.size());
    deferred_.clear();
    BuildHeap();
  }

  // Forward seeks' children positioned, and those still deferred (never
  // needed: called when their deferral ends unpaid-for), into statistics.
  void CountSeeks(uint64_t n) const {
    if (options_.statistics != nullptr && options_.same_group && n > 0) {
      options_.statistics->recordTick(kSeekChildSeeks, n);
    }
  }
  void CountSaved() const {
    if (options_.statistics != nullptr && !deferred_.empty()) {
      options_.statistics->recordTick(kSeekChildSeeksSaved, deferred_.size());
    }
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
    runner_up_ = 0;
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

  // The position (1 or 2) of the root's earlier child, whose entry comes
  // next unless the top child's own next entry does. Cached in runner_up_
  // (0: unknown) while heap_[1] and heap_[2] stay put, which they do for
  // as long as one child keeps the top: a scan then compares once per
  // step instead of twice.
  size_t RunnerUp() {
    if (runner_up_ == 0) {
      runner_up_ = heap_.size() > 2 && Before(heap_[2], heap_[1]) ? 2 : 1;
    }
    return runner_up_;
  }

  // The top child (current_) was just moved: restore the heap and pick the
  // new current entry.
  void AdvanceTop() {
    assert(!heap_.empty() && heap_[0] == current_);
    if (current_->Valid()) {
      if (heap_.size() > 1) {
        const size_t r = RunnerUp();
        if (Before(heap_[r], current_)) {
          heap_[0] = heap_[r];
          heap_[r] = current_;
          SiftDown(r);
          runner_up_ = 0;
        }
      }
    } else {
      NoteStatus(*current_);
      heap_[0] = heap_.back();
      heap_.pop_back();
      if (!heap_.empty()) SiftDown(0);
      runner_up_ = 0;
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
  size_t runner_up_ = 0;  // see RunnerUp()
  Direction direction_ = Direction::kForward;
  Status status_;                   // first child error since the last seek
  MergingIteratorOptions options_;  // probes: one per child, maybe null
  // Children a Seek left unpositioned, and that Seek's target: see
  // MergingIteratorOptions. Empty unless the current entry is in the
  // target's group and the iterator has not moved since.
  std::vector<IteratorWrapper*> deferred_;
  std::string deferred_target_;
  // Seeks in a row whose deferral saved nothing: the target's group was
  // absent, or the iterator moved before the next seek and so positioned
  // the deferred children anyway (a seek followed by a scan). At
  // kProbePauseAfter the probes pause, except on every
  // kProbeWhilePausedEvery-th seek; deferring the children older than the
  // one holding the group goes on, as it costs nothing. A seek whose
  // deferred children are still unpositioned at the next seek resets it.
  static constexpr uint32_t kProbePauseAfter = 8;
  static constexpr uint32_t kProbeWhilePausedEvery = 64;
  uint32_t fruitless_seeks_ = 0;
  uint32_t paused_seeks_ = 0;
};

}  // namespace

Iterator* NewMergingIterator(const Comparator* comparator, Iterator** children,
                             int n) {
  assert(n >= 0);
  if (n == 0) return NewEmptyIterator();
  if (n == 1) return children[0];
  return new MergingIterator(comparator, children, n, MergingIteratorOptions());
}

Iterator* NewMergingIterator(const Comparator* comparator, Iterator** children,
                             int n, MergingIteratorOptions options) {
  assert(n >= 0);
  if (n == 0) return NewEmptyIterator();
  if (n == 1) return children[0];
  return new MergingIterator(comparator, children, n, std::move(options));
}

}  // namespace cascadedb

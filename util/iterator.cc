// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "cascadedb/iterator.h"

#include <cassert>

namespace cascadedb {

Iterator::Iterator() {
  cleanup_head_.function = nullptr;
  cleanup_head_.next = nullptr;
}

Iterator::~Iterator() {
  if (cleanup_head_.function == nullptr) return;
  (*cleanup_head_.function)(cleanup_head_.arg1, cleanup_head_.arg2);
  CleanupNode* node = cleanup_head_.next;
  while (node != nullptr) {
    (*node->function)(node->arg1, node->arg2);
    CleanupNode* next = node->next;
    delete node;
    node = next;
  }
}

void Iterator::RegisterCleanup(CleanupFunction function, void* arg1,
                               void* arg2) {
  assert(function != nullptr);
  CleanupNode* node;
  if (cleanup_head_.function == nullptr) {
    node = &cleanup_head_;
  } else {
    // Append after the head so cleanups run in registration order.
    node = new CleanupNode();
    CleanupNode* tail = &cleanup_head_;
    while (tail->next != nullptr) tail = tail->next;
    tail->next = node;
    node->next = nullptr;
  }
  node->function = function;
  node->arg1 = arg1;
  node->arg2 = arg2;
}

namespace {

class EmptyIterator : public Iterator {
 public:
  explicit EmptyIterator(const Status& s) : status_(s) {}
  bool Valid() const override { return false; }
  void Seek(const Slice&) override {}
  void SeekForPrev(const Slice&) override {}
  void SeekToFirst() override {}
  void SeekToLast() override {}
  void Next() override { assert(false); }
  void Prev() override { assert(false); }
  Slice key() const override {
    assert(false);
    return Slice();
  }
  Slice value() const override {
    assert(false);
    return Slice();
  }
  Status status() const override { return status_; }

 private:
  const Status status_;
};

}  // namespace

Iterator* NewEmptyIterator() { return new EmptyIterator(Status::OK()); }

Iterator* NewErrorIterator(const Status& status) {
  return new EmptyIterator(status);
}

}  // namespace cascadedb

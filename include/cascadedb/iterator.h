// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Iterator: the abstract cursor over a sorted sequence of key/value pairs
// (a DB, a table, a block, a memtable). Implementations report errors through
// status(), never by crashing.
//
// Thread safety: not thread-safe. Several threads may each use their own
// iterator over the same source; one iterator needs external synchronization.

#ifndef CASCADEDB_INCLUDE_CASCADEDB_ITERATOR_H_
#define CASCADEDB_INCLUDE_CASCADEDB_ITERATOR_H_

#include "cascadedb/slice.h"
#include "cascadedb/status.h"

namespace cascadedb {

class Iterator {
 public:
  Iterator();
  Iterator(const Iterator&) = delete;
  Iterator& operator=(const Iterator&) = delete;
  // Runs the registered cleanup functions, in registration order.
  virtual ~Iterator();

  // True iff the iterator is positioned at an entry.
  virtual bool Valid() const = 0;

  // Positions at the first entry; Valid() is false if the source is empty.
  virtual void SeekToFirst() = 0;

  // Positions at the last entry; Valid() is false if the source is empty.
  virtual void SeekToLast() = 0;

  // Positions at the first entry with key >= target.
  virtual void Seek(const Slice& target) = 0;

  // Positions at the last entry with key <= target.
  virtual void SeekForPrev(const Slice& target) = 0;

  // Moves to the next entry. REQUIRES: Valid()
  virtual void Next() = 0;

  // Moves to the previous entry. REQUIRES: Valid()
  virtual void Prev() = 0;

  // The current key. The bytes stay valid until the iterator is moved or
  // destroyed. REQUIRES: Valid()
  virtual Slice key() const = 0;

  // The current value, valid like key(). REQUIRES: Valid()
  virtual Slice value() const = 0;

  // OK unless an error was met; an error also makes Valid() false.
  virtual Status status() const = 0;

  // Registers function(arg1, arg2) to run when the iterator is destroyed,
  // e.g. to release a pinned block. Not virtual: wrappers share this list.
  using CleanupFunction = void (*)(void* arg1, void* arg2);
  void RegisterCleanup(CleanupFunction function, void* arg1, void* arg2);

 private:
  struct CleanupNode {
    CleanupFunction function;
    void* arg1;
    void* arg2;
    CleanupNode* next;
  };
  // The first node is inline: most iterators register at most one cleanup.
  CleanupNode cleanup_head_;
};

// Returns an iterator over nothing that reports status (OK by default).
// The caller owns the result.
Iterator* NewEmptyIterator();
Iterator* NewErrorIterator(const Status& status);

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_ITERATOR_H_

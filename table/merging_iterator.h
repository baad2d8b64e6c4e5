// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The merging iterator: one sorted view over several sorted iterators (the
// memtables, the L0 tables and one iterator per deeper level). It keeps the
// children in a binary heap ordered by key (a min-heap going forward, a
// max-heap going backward), so each step costs O(log n) key comparisons.
//
// Entries with equal keys in different children are all returned, ordered by
// child index (children[0] first going forward); the db layer's internal keys
// are unique, so this only matters for plain-key users. Changing direction
// repositions every other child exactly, so Next and Prev may be mixed
// freely.
//
// Errors: once a child reports a non-OK status, the merging iterator is
// invalid and status() returns that error (the first one seen since the last
// seek), because carrying on without the child would silently hide data.
//
// Thread safety: not thread-safe (one iterator per thread).

#ifndef CASCADEDB_TABLE_MERGING_ITERATOR_H_
#define CASCADEDB_TABLE_MERGING_ITERATOR_H_

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"

namespace cascadedb {

// Returns a new iterator (owned by the caller) over the union of
// children[0, n). Takes ownership of each child iterator; the array itself is
// only read during the call. comparator is borrowed and must outlive the
// result; every child must be ordered by it. n == 0 gives an empty iterator;
// n == 1 returns children[0] itself.
Iterator* NewMergingIterator(const Comparator* comparator, Iterator** children,
                             int n);

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_MERGING_ITERATOR_H_

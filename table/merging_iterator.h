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

#include <functional>
#include <memory>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"
#include "cascadedb/statistics.h"

namespace cascadedb {

// Tells, without positioning a child of a merging iterator, that the child
// holds no entry in a seek target's group (a Bloom filter probe: the db
// layer's groups are the versions of one user key).
class SeekProbe {
 public:
  virtual ~SeekProbe() = default;
  // False only if the child surely holds no key in target's group.
  virtual bool MayContain(const Slice& target) const = 0;
  // Starts loading into the CPU caches what MayContain(target) will read,
  // where that is cheap to know (a hint; by default nothing).
  virtual void Prefetch(const Slice& /*target*/) const {}
};

// Deferred seeks. When same_group is set, a forward Seek(target) positions
// the children in order, skipping those whose probe rules out target's
// group, until one lands on a key in target's group; that key is the
// Seek's result, and the children skipped or not reached stay unpositioned
// until the iterator moves. Each of them comes after that key: a skipped
// child holds no key of the group, so its first key >= target is past the
// whole group; a child not reached is older, and holds only later keys of
// the group. If no child lands in the group, every deferred child is
// positioned before Seek returns. A deferred child's read error therefore
// shows up at the next move rather than at the Seek. Probes pause (but for
// an occasional sample) while seeks keep gaining nothing from them: targets
// that are absent, or seeks followed by Next or Prev, which position the
// deferred children anyway.
// Requirements: groups are contiguous in the comparator's order; target
// belongs to its own group; and children are ordered newest first: where
// two children hold keys of one group, each such key of the earlier child
// sorts before each of the later one (the db layer's memtables, L0 tables
// and levels, whose versions of a user key get older in that order).
struct MergingIteratorOptions {
  // True if a and b are in one group; empty: no deferred seeks.
  std::function<bool(const Slice& a, const Slice& b)> same_group;
  // probes[i] belongs to children[i]; null or missing: always positioned.
  std::vector<std::unique_ptr<SeekProbe>> probes;
  // Where forward seeks count the children they positioned and those they
  // saved (kSeekChildSeeks, kSeekChildSeeksSaved); null: not counted.
  // Borrowed; must outlive the iterator.
  Statistics* statistics = nullptr;
};

// Returns a new iterator (owned by the caller) over the union of
// children[0, n). Takes ownership of each child iterator; the array itself is
// only read during the call. comparator is borrowed and must outlive the
// result; every child must be ordered by it. n == 0 gives an empty iterator;
// n == 1 returns children[0] itself.
Iterator* NewMergingIterator(const Comparator* comparator, Iterator** children,
                             int n);

// As above, with deferred seeks (see MergingIteratorOptions). n == 1 still
// returns children[0] itself, dropping the probes.
Iterator* NewMergingIterator(const Comparator* comparator, Iterator** children,
                             int n, MergingIteratorOptions options);

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_MERGING_ITERATOR_H_

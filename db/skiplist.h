// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// SkipList: the sorted set under the memtable (Pugh, "Skip Lists: A
// Probabilistic Alternative to Balanced Trees", 1990), with branching
// factor 1/4 and at most 12 levels: about 1.33 links per node on average,
// and O(log n) expected search for the 10^6..10^8 entries a memtable holds.
//
// Nodes come from an Arena and are never freed one by one: dropping the
// list (with its memtable) is one arena release. A node can carry a caller
// payload in the same allocation (Reserve + Insert), which is how a
// memtable entry and its node cost one allocation.
//
// Invariants (what makes lock-free readers correct):
//   1. Nodes are never deleted or unlinked until the whole list is destroyed
//      (the Arena owns them); a pointer a reader holds stays valid.
//   2. A node's key and links are written before the node is published, and
//      publication is a release store (or release CAS) of the pointer to it
//      into its predecessor's link; readers load links with acquire. So a
//      reader that reaches a node sees its key and its links as they were
//      at publication or later.
//   3. A node is linked bottom-up: level 0 first. Level 0 is the whole set;
//      upper levels are shortcuts. Every node a reader reaches on level i>0
//      is already on all levels below i, so descending from it is safe.
//   4. A link never points "backwards": each level is sorted at all times,
//      because a node is linked only between its true neighbours (checked by
//      the CAS in concurrent mode, guaranteed by the single writer
//      otherwise).
//   5. Keys are immutable once inserted.
//
// Thread safety: readers (Contains, Iterator) are lock-free and safe at any
// time, concurrently with writers. Writes happen in one of two modes, and
// the caller must not mix them at the same time:
//   - single writer: one thread at a time calls Reserve/Insert (the caller
//     serializes, e.g. the memtable's write group leader);
//   - concurrent: any number of threads call ReserveConcurrently/
//     InsertConcurrently. Links are installed with CAS; the Arena is not
//     thread-safe, so the (short) node allocation and height draw run under
//     a mutex inside the list. The lock covers a bump allocation (tens of
//     nanoseconds) while the search it precedes takes microseconds, so it
//     is rarely contended; a per-core arena (RocksDB's ConcurrentArena)
//     would remove it if measurements ever show contention.
//
// Comparator: a copyable functor with int operator()(const Key&, const Key&)
// returning <0, 0 or >0. Key must be default-constructible and copyable
// (a pointer or an integer in practice).

#ifndef CASCADEDB_DB_SKIPLIST_H_
#define CASCADEDB_DB_SKIPLIST_H_

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>

#include "util/arena.h"
#include "util/mutex.h"
#include "util/random.h"

namespace cascadedb {

template <typename Key, class Comparator>
class SkipList {
 private:
  struct Node;

 public:
  static constexpr int kMaxHeight = 12;
  // Each level holds about 1/kBranching of the nodes of the level below.
  static constexpr uint32_t kBranching = 4;

  // A node allocated ahead of insertion, optionally with payload bytes for
  // the caller in the same allocation (placed right after the node). Fill
  // the payload, then pass the reservation to Insert (or
  // InsertConcurrently) exactly once. A reservation never inserted wastes
  // its arena bytes but is otherwise harmless.
  class Reservation {
   public:
    Reservation() = default;
    // The payload_bytes bytes asked for (nullptr if 0); 8-byte aligned.
    char* payload() const { return payload_; }

   private:
    friend class SkipList;
    Node* node_ = nullptr;
    char* payload_ = nullptr;
    int height_ = 0;
  };

  // Borrows arena, which must outlive the list; objects allocated from it
  // by the list live as long as the arena. cmp is copied.
  SkipList(Comparator cmp, Arena* arena);

  SkipList(const SkipList&) = delete;
  SkipList& operator=(const SkipList&) = delete;

  // ------------------------------------------------------ single writer

  // Reserves a node with payload_bytes bytes for the caller.
  // REQUIRES: single-writer mode (no concurrent writer of any kind).
  Reservation Reserve(size_t payload_bytes);

  // Inserts key using the node of r. Returns false, inserting nothing, if an
  // equal key is already present. REQUIRES: single-writer mode; r came from
  // Reserve() of this list and was not inserted before.
  bool Insert(const Reservation& r, const Key& key);

  // Reserve(0) + Insert.
  bool Insert(const Key& key) { return Insert(Reserve(0), key); }

  // ------------------------------------------------------ concurrent

  // Like Reserve, safe to call from several threads at once.
  // REQUIRES: concurrent mode.
  Reservation ReserveConcurrently(size_t payload_bytes);

  // Inserts key using the node of r, lock-free with respect to other
  // inserters. Returns false, inserting nothing, if an equal key is present
  // (or is inserted by another thread first). REQUIRES: concurrent mode; r
  // came from ReserveConcurrently() or Reserve() of this list.
  bool InsertConcurrently(const Reservation& r, const Key& key);

  // ReserveConcurrently(0) + InsertConcurrently.
  bool InsertConcurrently(const Key& key) {
    return InsertConcurrently(ReserveConcurrently(0), key);
  }

  // ------------------------------------------------------ readers

  // True iff an entry equal to key is in the list. Lock-free.
  bool Contains(const Key& key) const;

  // A cursor over the list. Sees every key inserted before it was
  // positioned, and possibly keys inserted since. Not thread-safe (one
  // thread per iterator); many iterators may run at once.
  class Iterator {
   public:
    // Borrows list, which must outlive the iterator. Starts not Valid.
    explicit Iterator(const SkipList* list) : list_(list), node_(nullptr) {}

    bool Valid() const { return node_ != nullptr; }

    // REQUIRES: Valid()
    const Key& key() const {
      assert(Valid());
      return node_->key;
    }

    // REQUIRES: Valid()
    void Next() {
      assert(Valid());
      node_ = node_->Next(0);
      PrefetchSuccessor();
    }

    // Moves to the previous entry (O(log n): a search from the head, as
    // nodes have no back links). REQUIRES: Valid()
    void Prev() {
      assert(Valid());
      node_ = list_->FindLast(node_->key, /*or_equal=*/false);
    }

    // Positions at the first entry >= target. (The search has already
    // prefetched the found node's successor.)
    void Seek(const Key& target) {
      node_ = list_->FindGreaterOrEqual(target, nullptr);
    }

    // Positions at the last entry <= target.
    void SeekForPrev(const Key& target) {
      node_ = list_->FindLast(target, /*or_equal=*/true);
    }

    void SeekToFirst() {
      node_ = list_->head_->Next(0);
      PrefetchSuccessor();
    }

    void SeekToLast() { node_ = list_->FindLast(); }

   private:
    // Nodes sit in the arena in insertion order, not key order: after
    // random inserts each Next lands on a cold cache line. Start loading
    // the node after the current one while the caller works on this one.
    void PrefetchSuccessor() const {
      if (node_ != nullptr) Prefetch(node_->NoBarrierNext(0));
    }

    const SkipList* list_;
    Node* node_;  // nullptr when not Valid.
  };

 private:
  // Draws a node height: 1 with probability 3/4, 2 with 3/16, and so on.
  // REQUIRES: the caller owns rnd_ (single writer, or alloc_mu_ held).
  int RandomHeight();

  // Allocates a node of the given height plus payload bytes from arena_.
  Reservation NewNode(int height, size_t payload_bytes);

  int GetMaxHeight() const {
    // Relaxed: see the comment where max_height_ grows in Insert().
    return max_height_.load(std::memory_order_relaxed);
  }

  bool Equal(const Key& a, const Key& b) const { return compare_(a, b) == 0; }

  // Starts loading node n (nullptr is fine): its links and the first bytes
  // after them, where a payload key sits. Only a hint; the load is not
  // ordered with anything (the acquire load of the link that leads to n is
  // what makes its contents visible).
  static void Prefetch(const Node* n) {
    if (n == nullptr) return;
    __builtin_prefetch(n);
    __builtin_prefetch(reinterpret_cast<const char*>(n) + 64);
  }

  // True if key sorts after the node's key (nullptr is +infinity).
  bool KeyIsAfterNode(const Key& key, const Node* n) const {
    return n != nullptr && compare_(n->key, key) < 0;
  }

  // The first node >= key, or nullptr. If prev is not null, fills
  // prev[level] with the last node < key on each level [0, max height).
  Node* FindGreaterOrEqual(const Key& key, Node** prev) const;

  // The last node < key (or <= key with or_equal), or nullptr if none.
  Node* FindLast(const Key& key, bool or_equal) const;

  // The last node of the list, or nullptr if empty.
  Node* FindLast() const;

  // On one level, starting at before (a node < key on that level), finds
  // the adjacent pair *out_prev < key <= *out_next (nullptr = end).
  void FindSpliceForLevel(const Key& key, Node* before, int level,
                          Node** out_prev, Node** out_next) const;

  // Immutable after construction.
  const Comparator compare_;
  Arena* const arena_;
  Node* const head_;  // Height kMaxHeight; its key is never compared.

  // The height of the tallest node. Only grows. Relaxed atomic (see
  // Insert()).
  std::atomic<int> max_height_;

  // Serializes arena allocation and height draws in concurrent mode.
  Mutex alloc_mu_;

  // Owned by the single writer; guarded by alloc_mu_ in concurrent mode.
  Random rnd_;
};

// A node is its key plus `height` links; links beyond next_[0] are allocated
// past the end of the struct. The payload, if any, follows the last link.
template <typename Key, class Comparator>
struct SkipList<Key, Comparator>::Node {
  Key key;

  // The successor at level n. Acquire: pairs with the release in SetNext so
  // the successor's key and links are visible (invariant 2).
  Node* Next(int n) {
    assert(n >= 0);
    return next_[n].load(std::memory_order_acquire);
  }

  // Publishes x as the successor at level n (release; invariant 2).
  void SetNext(int n, Node* x) {
    assert(n >= 0);
    next_[n].store(x, std::memory_order_release);
  }

  // Relaxed variants, for links no other thread can be reading yet (a node
  // not yet published), links only this thread writes (single writer
  // reading its own stores), or a pointer only used as a Prefetch() hint
  // and never dereferenced.
  Node* NoBarrierNext(int n) {
    assert(n >= 0);
    return next_[n].load(std::memory_order_relaxed);
  }
  void NoBarrierSetNext(int n, Node* x) {
    assert(n >= 0);
    next_[n].store(x, std::memory_order_relaxed);
  }

  // Installs x as the successor at level n if it is still expected. Release
  // on success publishes x (invariant 2). Relaxed on failure: the caller
  // re-reads the level with acquire loads before trying again.
  bool CasNext(int n, Node* expected, Node* x) {
    assert(n >= 0);
    return next_[n].compare_exchange_strong(
        expected, x, std::memory_order_release, std::memory_order_relaxed);
  }

  // Length equals the node's height; indexes beyond 0 run past the struct
  // into the rest of the allocation.
  std::atomic<Node*> next_[1];
};

template <typename Key, class Comparator>
SkipList<Key, Comparator>::SkipList(Comparator cmp, Arena* arena)
    : compare_(cmp),
      arena_(arena),
      head_(NewNode(kMaxHeight, 0).node_),
      max_height_(1),
      rnd_(0xdeadbeef) {}

template <typename Key, class Comparator>
int SkipList<Key, Comparator>::RandomHeight() {
  int height = 1;
  while (height < kMaxHeight && (rnd_.Next() % kBranching) == 0) {
    height++;
  }
  assert(height > 0 && height <= kMaxHeight);
  return height;
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Reservation
SkipList<Key, Comparator>::NewNode(int height, size_t payload_bytes) {
  static_assert(alignof(Node) <= Arena::kAlignment,
                "arena alignment too small for skiplist nodes");
  const size_t node_bytes =
      sizeof(Node) + sizeof(std::atomic<Node*>) * (height - 1);
  char* mem = arena_->AllocateAligned(node_bytes + payload_bytes);
  Node* node = new (mem) Node;  // Key default-constructed, links below.
  for (int i = 1; i < height; i++) {
    new (&node->next_[i]) std::atomic<Node*>(nullptr);
  }
  node->NoBarrierSetNext(0, nullptr);
  Reservation r;
  r.node_ = node;
  r.payload_ = payload_bytes > 0 ? mem + node_bytes : nullptr;
  r.height_ = height;
  return r;
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Reservation
SkipList<Key, Comparator>::Reserve(size_t payload_bytes) {
  return NewNode(RandomHeight(), payload_bytes);
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Reservation
SkipList<Key, Comparator>::ReserveConcurrently(size_t payload_bytes) {
  MutexLock lock(&alloc_mu_);
  return NewNode(RandomHeight(), payload_bytes);
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Node*
SkipList<Key, Comparator>::FindGreaterOrEqual(const Key& key,
                                              Node** prev) const {
  Node* x = head_;
  int level = GetMaxHeight() - 1;
  while (true) {
    Node* next = x->Next(level);
    // Either way the step after comparing next goes to next's successor on
    // this level or to x's on the level below: fetch both while the
    // comparison waits on next (a search is a chain of cache misses).
    if (level > 0) Prefetch(x->NoBarrierNext(level - 1));
    if (next != nullptr) Prefetch(next->NoBarrierNext(level));
    if (KeyIsAfterNode(key, next)) {
      x = next;  // Keep searching on this level.
    } else {
      if (prev != nullptr) prev[level] = x;
      if (level == 0) return next;
      level--;  // Drop down: next is >= key (or the end).
    }
  }
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Node* SkipList<Key, Comparator>::FindLast(
    const Key& key, bool or_equal) const {
  Node* x = head_;
  int level = GetMaxHeight() - 1;
  while (true) {
    Node* next = x->Next(level);
    const bool advance =
        next != nullptr && (or_equal ? compare_(next->key, key) <= 0
                                     : compare_(next->key, key) < 0);
    if (advance) {
      x = next;
    } else {
      if (level == 0) return x == head_ ? nullptr : x;
      level--;
    }
  }
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Node* SkipList<Key, Comparator>::FindLast()
    const {
  Node* x = head_;
  int level = GetMaxHeight() - 1;
  while (true) {
    Node* next = x->Next(level);
    if (next != nullptr) {
      x = next;
    } else {
      if (level == 0) return x == head_ ? nullptr : x;
      level--;
    }
  }
}

template <typename Key, class Comparator>
void SkipList<Key, Comparator>::FindSpliceForLevel(const Key& key, Node* before,
                                                   int level, Node** out_prev,
                                                   Node** out_next) const {
  while (true) {
    Node* next = before->Next(level);
    if (next != nullptr) Prefetch(next->NoBarrierNext(level));
    if (!KeyIsAfterNode(key, next)) {
      *out_prev = before;
      *out_next = next;
      return;
    }
    before = next;
  }
}

template <typename Key, class Comparator>
bool SkipList<Key, Comparator>::Insert(const Reservation& r, const Key& key) {
  assert(r.node_ != nullptr);
  Node* prev[kMaxHeight];
  Node* x = FindGreaterOrEqual(key, prev);
  if (x != nullptr && Equal(key, x->key)) return false;

  const int height = r.height_;
  const int max_height = GetMaxHeight();
  if (height > max_height) {
    for (int i = max_height; i < height; i++) prev[i] = head_;
    // Relaxed is enough: a reader that sees the new height before the new
    // node is linked reads head_'s link on the new levels, finds nullptr
    // (the end of that level) and drops to a lower level, which is correct;
    // one that sees the node there got it through an acquire load of a link
    // (invariant 2). A reader seeing the old height just starts lower.
    max_height_.store(height, std::memory_order_relaxed);
  }

  Node* node = r.node_;
  node->key = key;
  for (int i = 0; i < height; i++) {
    // The node is unpublished, so its own link needs no barrier; prev[i]'s
    // link is only ever written by this (single) writer, which reads its
    // own store. SetNext's release then publishes key and links together.
    node->NoBarrierSetNext(i, prev[i]->NoBarrierNext(i));
    prev[i]->SetNext(i, node);
  }
  return true;
}

template <typename Key, class Comparator>
bool SkipList<Key, Comparator>::InsertConcurrently(const Reservation& r,
                                                   const Key& key) {
  assert(r.node_ != nullptr);
  const int height = r.height_;

  // Raise max_height_ first so the search below covers every level this
  // node will be linked on. Relaxed, as in Insert(); the CAS loop makes
  // concurrent raises keep the largest height.
  int max_height = GetMaxHeight();
  while (height > max_height &&
         !max_height_.compare_exchange_weak(max_height, height,
                                            std::memory_order_relaxed)) {
  }
  if (height > max_height) max_height = height;

  // The splice: on each level, prev[i] < key <= next[i].
  Node* prev[kMaxHeight];
  Node* next[kMaxHeight];
  Node* before = head_;
  for (int level = max_height - 1; level >= 0; level--) {
    Node* p;
    Node* n;
    FindSpliceForLevel(key, before, level, &p, &n);
    if (n != nullptr && Equal(key, n->key)) return false;
    if (level < height) {
      prev[level] = p;
      next[level] = n;
    }
    before = p;
  }

  Node* node = r.node_;
  node->key = key;
  // Link bottom-up (invariant 3). Once level 0 is linked the key is in the
  // set; a failed CAS on an upper level just means another node landed in
  // our splice there, so recompute that level's splice from prev[i] (still
  // < key, and never unlinked) and try again.
  for (int i = 0; i < height; i++) {
    while (true) {
      // Unpublished on this level: no other thread reads this link yet.
      node->NoBarrierSetNext(i, next[i]);
      if (prev[i]->CasNext(i, next[i], node)) break;
      FindSpliceForLevel(key, prev[i], i, &prev[i], &next[i]);
      if (i == 0 && next[0] != nullptr && Equal(key, next[0]->key)) {
        return false;  // Another thread inserted an equal key first.
      }
    }
  }
  return true;
}

template <typename Key, class Comparator>
bool SkipList<Key, Comparator>::Contains(const Key& key) const {
  Node* x = FindGreaterOrEqual(key, nullptr);
  return x != nullptr && Equal(key, x->key);
}

}  // namespace cascadedb

#endif  // CASCADEDB_DB_SKIPLIST_H_

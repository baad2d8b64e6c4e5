// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// BTree: a sorted set with the interface of SkipList (db/skiplist.h), laid
// out for fewer cache misses per search. A skiplist search on a 64 MiB
// memtable follows about ten dependent links to cold cache lines; here a
// search reads a few small, hot inner nodes and then one leaf, whose lines
// are loaded together, and compares 8-byte key "heads" stored in the nodes
// instead of following a pointer to each key it passes.
//
// Layout. Leaves hold up to kLeafSlots keys, inner nodes up to kInnerSlots
// separators and one child more; both keep their keys sorted in an array of
// slots. A slot is the key (a pointer in practice) and its head: the 8 bytes
// of the key's byte string (Comparator::Bytes) that follow the node's
// prefix, big-endian, zero-padded. Every key of a node starts with the
// node's prefix (up to kMaxPrefix bytes, stored in the node), so comparing a
// search key with the prefix and then with heads decides most comparisons
// without touching the keys; equal heads fall back to the comparator.
// Separator i of an inner node is the smallest key of child i + 1's
// subtree, always present in it. Leaves are chained left to right. Nodes
// come from an Arena and are never freed or moved: dropping the tree is one
// arena release.
//
// Writers. One writer at a time (Insert), or many (InsertConcurrently),
// which take turns on a mutex inside the tree: unlike the skiplist there is
// no lock-free concurrent insert. The writer changes a node in place (an
// insert shifts the slots after the new one) and splits a full node in two,
// the left half staying where it was.
//
// Readers are lock-free and run concurrently with the writer, by optimistic
// validation (a seqlock per node): the writer makes a node's version odd
// while it changes the node and even again after; a reader notes an even
// version, reads the node with relaxed atomic loads, and checks the version
// again; if it moved, the reader starts over from the root. Going down, a
// reader reads the child pointer, then the child's version, then checks the
// parent: a split changes the parent before it releases the child, so a
// reader either sees the split complete or notices it. Keys are never
// removed and a node's memory stays valid until the tree dies, so a stale
// pointer is only ever read, never trusted.
//
// Comparator: a copyable functor with
//   int operator()(const Key& a, const Key& b) const  (<0, 0, >0), and
//   Slice Bytes(const Key& k) const: a byte string of k such that
//     Bytes(a) < Bytes(b) bytewise implies a < b (a memtable returns the
//     user key under a bytewise user comparator), or an empty Slice for
//     every key to turn heads off (every comparison then uses the
//     comparator);
// and may have
//   size_t KeyBytes(const Key& k) const: for pointer keys, the bytes at k
//     a reader of k goes on to read (a memtable: the whole entry, its value
//     too). A scan then loads keys ahead of itself as far as the keys it
//     passes reach; without it, the first three cache lines of each.
// Key must be trivially copyable and lock-free as a std::atomic (a pointer
// or an integer).

#ifndef CASCADEDB_DB_BTREE_H_
#define CASCADEDB_DB_BTREE_H_

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <thread>
#include <type_traits>
#include <utility>

#include "cascadedb/slice.h"
#include "util/arena.h"
#include "util/coding.h"
#include "util/mutex.h"

namespace cascadedb {

template <typename Key, class Comparator>
class BTree {
 public:
  static constexpr int kLeafSlots = 32;
  static constexpr int kInnerSlots = 31;  // Separators; children: one more.
  static constexpr int kMaxPrefix = 16;
  static constexpr int kMaxDepth = 24;  // 31^23 keys is far beyond memory.

  // Borrows arena, which must outlive the tree. cmp is copied.
  BTree(Comparator cmp, Arena* arena);

  BTree(const BTree&) = delete;
  BTree& operator=(const BTree&) = delete;

  // Inserts key. Returns false, inserting nothing, if an equal key is
  // present. REQUIRES: no other thread inserts at the same time (single
  // writer); readers may run.
  bool Insert(const Key& key);

  // Insert for several writers at once: they take turns on a mutex.
  bool InsertConcurrently(const Key& key) {
    MutexLock lock(&insert_mu_);
    return Insert(key);
  }

  // True iff a key equal to key is in the tree. Lock-free.
  bool Contains(const Key& key) const;

  // The number of keys. Exact for the writer; may lag for readers.
  size_t Size() const { return size_.load(std::memory_order_relaxed); }

  // Nodes' bytes taken from the arena (for memory accounting in tests).
  size_t NodeBytes() const {
    return node_bytes_.load(std::memory_order_relaxed);
  }

 private:
  struct Node;
  struct Leaf;
  struct Inner;

 public:
  // A cursor over the tree, like SkipList::Iterator: sees every key
  // inserted before it was positioned, and possibly keys inserted since.
  // One thread per iterator; many iterators may run at once.
  class Iterator {
   public:
    // Borrows tree, which must outlive the iterator. Starts not Valid.
    explicit Iterator(const BTree* tree) : tree_(tree) {}

    bool Valid() const { return leaf_ != nullptr; }

    // REQUIRES: Valid()
    const Key& key() const {
      assert(Valid());
      return key_;
    }

    // REQUIRES: Valid()
    void Next();

    // REQUIRES: Valid()
    void Prev();

    // Positions at the first key >= target.
    void Seek(const Key& target) { tree_->FindFirst(target, false, this); }

    // Positions at the last key <= target.
    void SeekForPrev(const Key& target) {
      tree_->FindLast(&target, true, this);
    }

    void SeekToFirst();

    void SeekToLast() { tree_->FindLast(nullptr, false, this); }

   private:
    friend class BTree;

    const BTree* tree_;
    // The position: slot index_ of leaf_ holds key_, as of leaf_'s even
    // version version_. key_ stays valid whatever happens to leaf_ (keys
    // are never removed); if leaf_ changed, a move searches from the root
    // relative to key_.
    const Leaf* leaf_ = nullptr;
    int index_ = 0;
    uint64_t version_ = 0;
    Key key_{};
    // Comparator::KeyBytes of the key the scan was on when it last left a
    // leaf (0: none yet), standing for the keys ahead (PrefetchRestAhead).
    size_t key_bytes_ = 0;
  };

 private:
  // A key with its head: the unit the nodes store. Atomic members so that
  // readers may load them while the writer stores (validated afterwards).
  struct Slot {
    std::atomic<uint64_t> head;
    std::atomic<Key> key;
  };

  struct Node {
    // Even when stable, odd while the writer changes the node.
    std::atomic<uint64_t> version{0};
    // Keys (leaf) or separators (inner) in use. The writer stores it with
    // release after the slots (and children) it covers, readers load it
    // with acquire: a reader never compares against a slot that was not
    // written, even in a snapshot that validation will reject.
    std::atomic<int> count{0};
    // The common prefix of the node's keys: its length, and its bytes in
    // two words (only the first prefix_len bytes are meaningful).
    std::atomic<int> prefix_len{0};
    std::atomic<uint64_t> prefix[2];
    const bool leaf;

    explicit Node(bool is_leaf) : leaf(is_leaf) {
      prefix[0].store(0, std::memory_order_relaxed);
      prefix[1].store(0, std::memory_order_relaxed);
    }
  };

  struct Leaf : Node {
    std::atomic<Leaf*> next{nullptr};  // The leaf to the right.
    Slot slots[kLeafSlots];
    Leaf() : Node(true) { ClearSlots(slots, kLeafSlots); }
  };

  struct Inner : Node {
    Slot slots[kInnerSlots];
    std::atomic<Node*> children[kInnerSlots + 1];
    Inner() : Node(false) {
      ClearSlots(slots, kInnerSlots);
      for (auto& c : children) c.store(nullptr, std::memory_order_relaxed);
    }
  };

  // Nodes start with empty slots rather than whatever the arena held.
  static void ClearSlots(Slot* slots, int n) {
    for (int i = 0; i < n; i++) {
      slots[i].head.store(0, std::memory_order_relaxed);
      slots[i].key.store(Key{}, std::memory_order_relaxed);
    }
  }

  // A search key prepared for one node: where it stands against the node's
  // prefix, and its head after the prefix.
  struct Probe {
    int order;      // <0: before every key of the node; >0: after; 0: heads.
    uint64_t head;  // Meaningful when order == 0.
  };

  // ---------------------------------------------------------------- reads

  // Waits until n is stable and returns its version (acquire). A change
  // takes well under a microsecond, but the writer may lose its CPU in the
  // middle of one (two busy threads per core are common here): after a
  // short spin the reader yields its CPU rather than burn the time slice
  // the writer needs.
  static uint64_t StableVersion(const Node* n) {
    for (int spins = 0;; spins++) {
      const uint64_t v = n->version.load(std::memory_order_acquire);
      if ((v & 1) == 0) return v;
      if (spins < 64) {
        CpuRelax();
      } else {
        std::this_thread::yield();
      }
    }
  }

  // True if n is still at version v: everything read from n since the
  // acquire load that returned v is a consistent snapshot.
  static bool Validate(const Node* n, uint64_t v) {
    std::atomic_thread_fence(std::memory_order_acquire);
    return n->version.load(std::memory_order_relaxed) == v;
  }

  // Starts loading a node: a whole leaf, or an inner node's header and
  // separators (its children pointers follow; inner nodes stay cached).
  static void PrefetchNode(const Node* n) {
    const char* p = reinterpret_cast<const char*>(n);
    for (size_t off = 0; off < sizeof(Leaf); off += 64) {
      __builtin_prefetch(p + off);
    }
  }

  // A scan reads the keys of a leaf one after another; when keys are
  // pointers their targets are scattered (a memtable's entries sit in
  // insertion order), so start loading the one kAhead slots ahead, which
  // near a leaf's end is in the next leaf; that leaf is loaded kAhead
  // steps before it is needed. Only a hint: nothing read here is trusted.
  static constexpr int kAhead = 8;
  static void PrefetchKeyAhead(const Leaf* leaf, int i, int count) {
    const int ahead = i + kAhead;
    if (ahead + kAhead == count || (i == 0 && count < 2 * kAhead)) {
      const Leaf* next = leaf->next.load(std::memory_order_relaxed);
      if (next != nullptr) PrefetchNode(next);
    }
    if constexpr (std::is_pointer<Key>::value) {
      const char* p = KeyAhead(leaf, i, count, kAhead);
      if (p == nullptr) return;
      // Three lines: a 16-byte key's entry with a 100-byte value (126
      // bytes, at any offset in its line) ends in the third.
      __builtin_prefetch(p);
      __builtin_prefetch(p + 64);
      __builtin_prefetch(p + 128);
    }
  }

  // The key n slots after slot i of leaf (count keys), in leaf or the next
  // one, as bytes; nullptr if there is none. Read without validation: only
  // for prefetching.
  static const char* KeyAhead(const Leaf* leaf, int i, int count, int n) {
    int j = i + n;
    if (j >= count) {
      leaf = leaf->next.load(std::memory_order_relaxed);
      j -= count;
      if (leaf == nullptr || j >= leaf->count.load(std::memory_order_relaxed)) {
        return nullptr;
      }
    }
    return reinterpret_cast<const char*>(
        leaf->slots[j].key.load(std::memory_order_relaxed));
  }

  // Whether Comparator has KeyBytes (see the file comment).
  template <class C, class = void>
  struct HasKeyBytes : std::false_type {};
  template <class C>
  struct HasKeyBytes<C, std::void_t<decltype(std::declval<const C&>().KeyBytes(
                            std::declval<const Key&>()))>>
      : std::is_pointer<Key> {};

  // Where keys are large (a memtable's entries with values of a few
  // hundred bytes or more), loads the rest of the key kRestAhead slots
  // ahead of slot i, past the three lines PrefetchKeyAhead asked for: its
  // reader (the flush's compressor) would otherwise wait for its lines in
  // turn. bytes is Iterator::key_bytes_, a key's size sampled once per
  // leaf: keys of one memtable are mostly alike in size, and reading the
  // size of the key ahead (a line not loaded yet), or of every key passed,
  // made a fast scan of small keys 40-60% and 20% slower. At most
  // kMaxRestBytes from the key's first line; the hardware streams the
  // rest. A flush of 1 KiB values spent 13-15% less CPU
  // (docs/performance.md, "A flush loads its large values ahead").
  static constexpr int kRestAhead = 4;
  static constexpr size_t kMaxRestBytes = 2048;
  static void PrefetchRestAhead(const Leaf* leaf, int i, int count,
                                size_t bytes) {
    const char* p = KeyAhead(leaf, i, count, kRestAhead);
    if (p == nullptr) return;
    // In integers: p is unvalidated, and only prefetched.
    const uintptr_t line = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{63};
    const uintptr_t end =
        std::min(reinterpret_cast<uintptr_t>(p) + bytes, line + kMaxRestBytes);
    for (uintptr_t q = line + 192; q < end; q += 64) {
      __builtin_prefetch(reinterpret_cast<const void*>(q));
    }
  }

  // Sets it->key_bytes_ from the key it is on (its caller has read it),
  // as a scan leaves a leaf.
  void SampleKeyBytes(Iterator* it) const {
    if constexpr (HasKeyBytes<Comparator>::value) {
      if (it->leaf_ != nullptr) it->key_bytes_ = compare_.KeyBytes(it->key_);
    }
  }

  // The node's prefix bytes, copied out (readers: validate afterwards).
  static void LoadPrefix(const Node* n, char out[kMaxPrefix]) {
    const uint64_t w0 = n->prefix[0].load(std::memory_order_relaxed);
    const uint64_t w1 = n->prefix[1].load(std::memory_order_relaxed);
    std::memcpy(out, &w0, 8);
    std::memcpy(out + 8, &w1, 8);
  }

  // Prepares key (whose bytes are kb) for a search in node n.
  static Probe MakeProbe(const Node* n, const Slice& kb) {
    Probe p{0, 0};
    const int plen = n->prefix_len.load(std::memory_order_relaxed);
    if (plen > 0) {
      char prefix[kMaxPrefix];
      LoadPrefix(n, prefix);
      const size_t common = kb.size() < static_cast<size_t>(plen)
                                ? kb.size()
                                : static_cast<size_t>(plen);
      const int r = common > 0 ? std::memcmp(kb.data(), prefix, common) : 0;
      if (r != 0) {
        p.order = r;
        return p;
      }
      if (kb.size() < static_cast<size_t>(plen)) {
        // A proper prefix of the node's prefix sorts before every key.
        p.order = -1;
        return p;
      }
    }
    p.head = KeyHead(kb, static_cast<size_t>(plen));
    return p;
  }

  // Compares the probed key with slot s: <0 if key < slot's key.
  int CompareWithSlot(const Key& key, const Probe& p, const Slot& s) const {
    if (p.order != 0) return p.order;
    const uint64_t h = s.head.load(std::memory_order_relaxed);
    if (p.head != h) return p.head < h ? -1 : +1;
    return compare_(key, s.key.load(std::memory_order_relaxed));
  }

  // The number of slots (of count, in slots[]) whose key is < key, or
  // <= key with or_equal: where key goes.
  int Rank(const Slot* slots, int count, const Key& key, const Probe& p,
           bool or_equal) const {
    if (p.order != 0) return p.order < 0 ? 0 : count;
    int lo = 0, hi = count;  // Slots [0, lo) qualify, [hi, count) do not.
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      const int c = CompareWithSlot(key, p, slots[mid]);
      if (c > 0 || (or_equal && c == 0)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  // Descends from the root to a leaf, taking at each inner node the child
  // after the separators <= *key (< *key unless or_equal), or the last
  // child if key is nullptr. Retries until the path read is consistent;
  // returns the leaf and, in *version, its stable version.
  const Leaf* FindLeaf(const Key* key, bool or_equal, uint64_t* version) const;

  // Positions it at the first key >= target (> target if strict).
  void FindFirst(const Key& target, bool strict, Iterator* it) const;

  // Positions it at the last key <= *target (< *target unless or_equal), or
  // at the last key if target is nullptr.
  void FindLast(const Key* target, bool or_equal, Iterator* it) const;

  // Sets it to slot i of leaf (version v), following next links when i is
  // past the end, after validating. Returns false if a validation failed
  // (the caller retries).
  bool SettleForward(const Leaf* leaf, uint64_t v, int i, Iterator* it) const;

  // ---------------------------------------------------------------- writes

  // Marks n as changing / changed (writer only).
  static void LockNode(Node* n) {
    const uint64_t v = n->version.load(std::memory_order_relaxed);
    assert((v & 1) == 0);
    n->version.store(v + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
  }
  static void UnlockNode(Node* n) {
    const uint64_t v = n->version.load(std::memory_order_relaxed);
    assert((v & 1) == 1);
    n->version.store(v + 1, std::memory_order_release);
  }

  Leaf* NewLeaf();
  Inner* NewInner();

  // bytes from the arena at a cache-line boundary, so a node's slots span
  // as few lines as possible.
  char* AllocateNode(size_t bytes) {
    constexpr size_t kLine = 64;
    char* mem = arena_->Allocate(bytes + kLine - 1);
    node_bytes_.fetch_add(bytes + kLine - 1, std::memory_order_relaxed);
    const uintptr_t p = reinterpret_cast<uintptr_t>(mem);
    return reinterpret_cast<char*>((p + kLine - 1) & ~uintptr_t{kLine - 1});
  }

  // The length of the common prefix of a and b, at most kMaxPrefix.
  static int CommonPrefix(const Slice& a, const Slice& b) {
    size_t n = a.size() < b.size() ? a.size() : b.size();
    if (n > kMaxPrefix) n = kMaxPrefix;
    size_t i = 0;
    while (i < n && a.data()[i] == b.data()[i]) i++;
    return static_cast<int>(i);
  }

  // Sets n's prefix to the first len bytes of b (writer, n locked or
  // unpublished).
  static void SetPrefix(Node* n, const Slice& b, int len) {
    char buf[kMaxPrefix] = {};
    std::memcpy(buf, b.data(), static_cast<size_t>(len));
    uint64_t w0, w1;
    std::memcpy(&w0, buf, 8);
    std::memcpy(&w1, buf + 8, 8);
    n->prefix[0].store(w0, std::memory_order_relaxed);
    n->prefix[1].store(w1, std::memory_order_relaxed);
    n->prefix_len.store(len, std::memory_order_relaxed);
  }

  // Makes n's prefix a prefix of kb too, shortening it (and recomputing the
  // heads of n's count slots) if needed. Writer only; n must be locked or
  // unpublished.
  void FitPrefix(Node* n, Slot* slots, int count, const Slice& kb);

  // Writes key and its head after prefix_len bytes into s (writer).
  void SetSlot(Slot* s, const Key& key, int prefix_len) const {
    s->head.store(KeyHead(compare_.Bytes(key), static_cast<size_t>(prefix_len)),
                  std::memory_order_relaxed);
    s->key.store(key, std::memory_order_relaxed);
  }
  // Shifts slots [i, n) one to the right and writes key at i (writer).
  void InsertSlot(Slot* slots, int n, int i, const Key& key,
                  int prefix_len) const {
    for (int j = n; j > i; j--) CopySlot(&slots[j], slots[j - 1]);
    SetSlot(&slots[i], key, prefix_len);
  }
  static void CopySlot(Slot* dst, const Slot& src) {
    dst->head.store(src.head.load(std::memory_order_relaxed),
                    std::memory_order_relaxed);
    dst->key.store(src.key.load(std::memory_order_relaxed),
                   std::memory_order_relaxed);
  }
  static void CopyPrefix(Node* dst, const Node* src) {
    dst->prefix[0].store(src->prefix[0].load(std::memory_order_relaxed),
                         std::memory_order_relaxed);
    dst->prefix[1].store(src->prefix[1].load(std::memory_order_relaxed),
                         std::memory_order_relaxed);
    dst->prefix_len.store(src->prefix_len.load(std::memory_order_relaxed),
                          std::memory_order_relaxed);
  }

  // Inserts separator sep with right child right after child position c of
  // the inner node path[depth] (splitting upwards as needed). left is the
  // child at position c, locked by the caller.
  void InsertIntoParent(Inner** path, int* child_pos, int depth, const Key& sep,
                        Node* right);

  // Declared before first_leaf_: allocating it counts in node_bytes_.
  std::atomic<size_t> size_{0};
  std::atomic<size_t> node_bytes_{0};

  // Immutable after construction.
  const Comparator compare_;
  Arena* const arena_;
  Leaf* const first_leaf_;  // The leftmost leaf, forever.

  std::atomic<Node*> root_;

  // Serializes InsertConcurrently.
  Mutex insert_mu_;
};

// ------------------------------------------------------------------ setup

template <typename Key, class Comparator>
BTree<Key, Comparator>::BTree(Comparator cmp, Arena* arena)
    : compare_(cmp), arena_(arena), first_leaf_(NewLeaf()) {
  // (size_ and node_bytes_ are initialized first: see their declaration.)
  root_.store(first_leaf_, std::memory_order_relaxed);
}

template <typename Key, class Comparator>
typename BTree<Key, Comparator>::Leaf* BTree<Key, Comparator>::NewLeaf() {
  static_assert(alignof(Leaf) <= Arena::kAlignment, "arena alignment");
  return new (AllocateNode(sizeof(Leaf))) Leaf();
}

template <typename Key, class Comparator>
typename BTree<Key, Comparator>::Inner* BTree<Key, Comparator>::NewInner() {
  static_assert(alignof(Inner) <= Arena::kAlignment, "arena alignment");
  return new (AllocateNode(sizeof(Inner))) Inner();
}

// ------------------------------------------------------------------ reads

template <typename Key, class Comparator>
const typename BTree<Key, Comparator>::Leaf* BTree<Key, Comparator>::FindLeaf(
    const Key* key, bool or_equal, uint64_t* version) const {
  const Slice kb = key != nullptr ? compare_.Bytes(*key) : Slice();
  while (true) {
    const Node* node = root_.load(std::memory_order_acquire);
    uint64_t v = StableVersion(node);
    // A node that stopped being the root after the load above holds only
    // part of the keys; the root pointer changes before the old root's
    // version does.
    if (node != root_.load(std::memory_order_acquire)) continue;
    bool consistent = true;
    while (!node->leaf) {
      const Inner* inner = static_cast<const Inner*>(node);
      const int count = inner->count.load(std::memory_order_acquire);
      int c = count;
      if (key != nullptr) {
        c = Rank(inner->slots, count, *key, MakeProbe(inner, kb), or_equal);
      }
      const Node* child = inner->children[c].load(std::memory_order_relaxed);
      if (!Validate(inner, v) || child == nullptr) {
        consistent = false;
        break;
      }
      PrefetchNode(child);
      const uint64_t cv = StableVersion(child);
      if (!Validate(inner, v)) {
        consistent = false;
        break;
      }
      node = child;
      v = cv;
    }
    if (!consistent) continue;
    *version = v;
    return static_cast<const Leaf*>(node);
  }
}

template <typename Key, class Comparator>
bool BTree<Key, Comparator>::SettleForward(const Leaf* leaf, uint64_t v, int i,
                                           Iterator* it) const {
  while (true) {
    const int count = leaf->count.load(std::memory_order_acquire);
    if (i < count) {
      const Key k = leaf->slots[i].key.load(std::memory_order_relaxed);
      PrefetchKeyAhead(leaf, i, count);
      if (!Validate(leaf, v)) return false;
      // Beyond the three lines PrefetchKeyAhead loads at any offset.
      if (it->key_bytes_ > 128)
        PrefetchRestAhead(leaf, i, count, it->key_bytes_);
      it->leaf_ = leaf;
      it->index_ = i;
      it->version_ = v;
      it->key_ = k;
      return true;
    }
    const Leaf* next = leaf->next.load(std::memory_order_relaxed);
    if (!Validate(leaf, v)) return false;
    if (next == nullptr) {
      it->leaf_ = nullptr;
      return true;
    }
    PrefetchNode(next);
    SampleKeyBytes(it);
    v = StableVersion(next);
    leaf = next;
    i = 0;
  }
}

template <typename Key, class Comparator>
void BTree<Key, Comparator>::FindFirst(const Key& target, bool strict,
                                       Iterator* it) const {
  const Slice kb = compare_.Bytes(target);
  while (true) {
    uint64_t v;
    const Leaf* leaf = FindLeaf(&target, /*or_equal=*/true, &v);
    const int count = leaf->count.load(std::memory_order_acquire);
    const Probe p = MakeProbe(leaf, kb);
    const int i = Rank(leaf->slots, count, target, p, /*or_equal=*/strict);
    // SettleForward validates v before it answers.
    if (SettleForward(leaf, v, i, it)) return;
  }
}

template <typename Key, class Comparator>
void BTree<Key, Comparator>::FindLast(const Key* target, bool or_equal,
                                      Iterator* it) const {
  const Slice kb = target != nullptr ? compare_.Bytes(*target) : Slice();
  while (true) {
    uint64_t v;
    const Leaf* leaf = FindLeaf(target, or_equal, &v);
    const int count = leaf->count.load(std::memory_order_acquire);
    int i = count;
    if (target != nullptr) {
      i = Rank(leaf->slots, count, *target, MakeProbe(leaf, kb), or_equal);
    }
    // Slot i - 1 is the answer. A leaf reached through a separator the
    // target passed holds that separator, so i > 0 except on the leftmost
    // path, where i == 0 means there is no such key.
    Key k{};
    if (i > 0) k = leaf->slots[i - 1].key.load(std::memory_order_relaxed);
    if (!Validate(leaf, v)) continue;
    if (i == 0) {
      it->leaf_ = nullptr;
    } else {
      it->leaf_ = leaf;
      it->index_ = i - 1;
      it->version_ = v;
      it->key_ = k;
    }
    return;
  }
}

template <typename Key, class Comparator>
bool BTree<Key, Comparator>::Contains(const Key& key) const {
  Iterator it(this);
  it.Seek(key);
  return it.Valid() && compare_(it.key(), key) == 0;
}

template <typename Key, class Comparator>
void BTree<Key, Comparator>::Iterator::SeekToFirst() {
  while (true) {
    const Leaf* leaf = tree_->first_leaf_;
    const uint64_t v = StableVersion(leaf);
    if (tree_->SettleForward(leaf, v, 0, this)) return;
  }
}

template <typename Key, class Comparator>
void BTree<Key, Comparator>::Iterator::Next() {
  assert(Valid());
  // Fast path: the leaf has not changed since the iterator read it.
  if (leaf_->version.load(std::memory_order_acquire) == version_ &&
      tree_->SettleForward(leaf_, version_, index_ + 1, this)) {
    return;
  }
  tree_->FindFirst(key_, /*strict=*/true, this);
}

template <typename Key, class Comparator>
void BTree<Key, Comparator>::Iterator::Prev() {
  assert(Valid());
  if (index_ > 0 &&
      leaf_->version.load(std::memory_order_acquire) == version_) {
    const Key k = leaf_->slots[index_ - 1].key.load(std::memory_order_relaxed);
    if (Validate(leaf_, version_)) {
      index_--;
      key_ = k;
      return;
    }
  }
  const Key current = key_;
  tree_->FindLast(&current, /*or_equal=*/false, this);
}

// ----------------------------------------------------------------- writes

template <typename Key, class Comparator>
void BTree<Key, Comparator>::FitPrefix(Node* n, Slot* slots, int count,
                                       const Slice& kb) {
  const int plen = n->prefix_len.load(std::memory_order_relaxed);
  char prefix[kMaxPrefix];
  LoadPrefix(n, prefix);
  const int common = CommonPrefix(Slice(prefix, static_cast<size_t>(plen)), kb);
  if (common == plen) return;
  n->prefix_len.store(common, std::memory_order_relaxed);
  for (int i = 0; i < count; i++) {
    const Key k = slots[i].key.load(std::memory_order_relaxed);
    slots[i].head.store(KeyHead(compare_.Bytes(k), static_cast<size_t>(common)),
                        std::memory_order_relaxed);
  }
}

template <typename Key, class Comparator>
bool BTree<Key, Comparator>::Insert(const Key& key) {
  const Slice kb = compare_.Bytes(key);
  // The writer is alone: it reads without validation, and records the path.
  Inner* path[kMaxDepth];
  int child_pos[kMaxDepth];
  int depth = 0;
  Node* node = root_.load(std::memory_order_relaxed);
  while (!node->leaf) {
    Inner* inner = static_cast<Inner*>(node);
    const int count = inner->count.load(std::memory_order_relaxed);
    const int c = Rank(inner->slots, count, key, MakeProbe(inner, kb), true);
    assert(depth < kMaxDepth);
    path[depth] = inner;
    child_pos[depth] = c;
    depth++;
    node = inner->children[c].load(std::memory_order_relaxed);
    // As readers do: the node's lines load together, not one per step of
    // its binary search.
    PrefetchNode(node);
  }
  Leaf* leaf = static_cast<Leaf*>(node);
  const int count = leaf->count.load(std::memory_order_relaxed);
  const Probe probe = MakeProbe(leaf, kb);
  const int i = Rank(leaf->slots, count, key, probe, false);
  // A key equal to slot i's has its head: only then is the slot's key read
  // (a cache miss into the arena, on almost every insert when it was read
  // regardless).
  if (i < count && CompareWithSlot(key, probe, leaf->slots[i]) == 0) {
    return false;
  }

  LockNode(leaf);
  if (count == 0) {
    // The first key (only the first leaf is ever empty): the prefix starts
    // as the key itself.
    const int len =
        static_cast<int>(kb.size() < kMaxPrefix ? kb.size() : kMaxPrefix);
    SetPrefix(leaf, kb, len);
  } else {
    FitPrefix(leaf, leaf->slots, count, kb);
  }
  const int plen = leaf->prefix_len.load(std::memory_order_relaxed);
  if (count < kLeafSlots) {
    InsertSlot(leaf->slots, count, i, key, plen);
    leaf->count.store(count + 1, std::memory_order_release);
    UnlockNode(leaf);
    size_.store(size_.load(std::memory_order_relaxed) + 1,
                std::memory_order_relaxed);
    return true;
  }

  // Split. Appending at the end of the last leaf (ascending inserts) moves
  // only the new key to the right, so such leaves end up full; otherwise
  // the halves split evenly.
  Leaf* right = NewLeaf();
  CopyPrefix(right, leaf);
  const bool append =
      i == count && leaf->next.load(std::memory_order_relaxed) == nullptr;
  const int mid = append ? count : count / 2;
  // Keys [0, count] with the new one at i; the left keeps [0, mid).
  int r = 0;
  for (int j = mid; j <= count; j++) {
    if (j == i) {
      SetSlot(&right->slots[r++], key, plen);
    }
    if (j < count) CopySlot(&right->slots[r++], leaf->slots[j]);
  }
  if (i < mid) InsertSlot(leaf->slots, mid, i, key, plen);
  right->count.store(r, std::memory_order_release);
  right->next.store(leaf->next.load(std::memory_order_relaxed),
                    std::memory_order_relaxed);
  const Key sep = right->slots[0].key.load(std::memory_order_relaxed);
  // Link the right leaf into the parent first (so a reader either finds it
  // there, or finds the left leaf still locked), then shrink the left leaf.
  InsertIntoParent(path, child_pos, depth - 1, sep, right);
  leaf->count.store(i < mid ? mid + 1 : mid, std::memory_order_release);
  leaf->next.store(right, std::memory_order_relaxed);
  UnlockNode(leaf);
  size_.store(size_.load(std::memory_order_relaxed) + 1,
              std::memory_order_relaxed);
  return true;
}

template <typename Key, class Comparator>
void BTree<Key, Comparator>::InsertIntoParent(Inner** path, int* child_pos,
                                              int depth, const Key& sep,
                                              Node* right) {
  const Slice sb = compare_.Bytes(sep);
  if (depth < 0) {
    // The root split: a new root over the old one and right.
    Node* old_root = root_.load(std::memory_order_relaxed);
    Inner* root = NewInner();
    CopyPrefix(root, old_root);
    FitPrefix(root, root->slots, 0, sb);
    SetSlot(&root->slots[0], sep,
            root->prefix_len.load(std::memory_order_relaxed));
    root->children[0].store(old_root, std::memory_order_relaxed);
    root->children[1].store(right, std::memory_order_relaxed);
    root->count.store(1, std::memory_order_release);
    // Release: a reader that loads the new root sees it initialized. The
    // old root is still locked by the caller, so a reader that started
    // from it notices.
    root_.store(root, std::memory_order_release);
    return;
  }
  Inner* inner = path[depth];
  const int c = child_pos[depth];  // sep goes to slot c, right to child c + 1.
  const int count = inner->count.load(std::memory_order_relaxed);
  LockNode(inner);
  FitPrefix(inner, inner->slots, count, sb);
  const int plen = inner->prefix_len.load(std::memory_order_relaxed);
  if (count < kInnerSlots) {
    for (int j = count; j > c; j--) {
      CopySlot(&inner->slots[j], inner->slots[j - 1]);
      inner->children[j + 1].store(
          inner->children[j].load(std::memory_order_relaxed),
          std::memory_order_relaxed);
    }
    SetSlot(&inner->slots[c], sep, plen);
    inner->children[c + 1].store(right, std::memory_order_relaxed);
    inner->count.store(count + 1, std::memory_order_release);
    UnlockNode(inner);
    return;
  }

  // Split the inner node. Build the full sequence: separators s[0..count]
  // with sep at c, children ch[0..count+1] with right at c + 1.
  Key seps[kInnerSlots + 1];
  uint64_t heads[kInnerSlots + 1];
  Node* kids[kInnerSlots + 2];
  {
    int s = 0;
    for (int j = 0; j <= count; j++) {
      if (j == c) {
        seps[s] = sep;
        heads[s] = KeyHead(sb, static_cast<size_t>(plen));
        s++;
      }
      if (j < count) {
        seps[s] = inner->slots[j].key.load(std::memory_order_relaxed);
        heads[s] = inner->slots[j].head.load(std::memory_order_relaxed);
        s++;
      }
    }
    int k = 0;
    for (int j = 0; j <= count; j++) {
      kids[k++] = inner->children[j].load(std::memory_order_relaxed);
      if (j == c) kids[k++] = right;
    }
  }
  const int total = count + 1;  // Separators in the sequence.
  // Appending at the end of the last inner node keeps the left one full.
  const bool append =
      c == count && (depth == 0 || [&] {
        for (int d = depth - 1; d >= 0; d--) {
          if (child_pos[d] != path[d]->count.load(std::memory_order_relaxed)) {
            return false;
          }
        }
        return true;
      }());
  // Left keeps separators [0, m) and children [0, m]; separator m goes up;
  // the new node takes separators (m, total) and children [m + 1, total].
  const int m = append ? total - 1 : total / 2;
  Inner* sibling = NewInner();
  CopyPrefix(sibling, inner);
  int n = 0;
  for (int j = m + 1; j < total; j++, n++) {
    sibling->slots[n].head.store(heads[j], std::memory_order_relaxed);
    sibling->slots[n].key.store(seps[j], std::memory_order_relaxed);
  }
  for (int j = m + 1; j <= total; j++) {
    sibling->children[j - (m + 1)].store(kids[j], std::memory_order_relaxed);
  }
  sibling->count.store(n, std::memory_order_release);
  for (int j = 0; j < m; j++) {
    inner->slots[j].head.store(heads[j], std::memory_order_relaxed);
    inner->slots[j].key.store(seps[j], std::memory_order_relaxed);
  }
  for (int j = 0; j <= m; j++) {
    inner->children[j].store(kids[j], std::memory_order_relaxed);
  }
  const Key up = seps[m];
  InsertIntoParent(path, child_pos, depth - 1, up, sibling);
  inner->count.store(m, std::memory_order_release);
  UnlockNode(inner);
}

}  // namespace cascadedb

#endif  // CASCADEDB_DB_BTREE_H_

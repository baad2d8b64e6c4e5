// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The sharded LRU cache behind NewLRUCache.
//
// The key space is split into 2^num_shard_bits shards by the top bits of a
// 32-bit hash of the key (the hash table inside a shard uses the low bits, so
// the two choices stay independent). Each shard has its own mutex, its own
// share of the capacity, an open-addressed hash table that doubles as it
// fills, and two circular doubly linked lists:
//
//   lru_     entries in the table that nobody pins, oldest first. Only these
//            can be evicted.
//   in_use_  entries in the table that at least one handle pins.
//
// An entry is in exactly one of three states:
//   in table, refs == 0   -> on lru_
//   in table, refs > 0    -> on in_use_
//   detached, refs > 0    -> on no list: erased or replaced while pinned.
//                            It is freed when its last handle is released.
// (A detached entry with refs == 0 is freed at once, outside the lock.)
//
// Accounting, per shard, guarded by the shard mutex:
//   usage_      charge of every entry the shard still owns: in the table, or
//               detached but pinned. That is the memory the cache really
//               holds, so the capacity is enforced against it: while an old
//               version of a key is pinned it still counts.
//   lru_usage_  charge of the entries on lru_. Pinned usage is
//               usage_ - lru_usage_.
//
// Eviction removes lru_ entries, oldest first, while usage_ > capacity_. It
// runs after Insert, after a Release that unpins an entry, and after
// SetCapacity. Pinned entries are never evicted, so usage may stay above the
// capacity until they are released. An Insert without a handle is unpinned
// and, being the newest entry, is evicted last; but if it does not fit even
// after every older unpinned entry is gone (a charge above the shard's
// capacity, capacity 0, or the shard full of pinned entries), it is evicted,
// and its deleter run, before Insert returns.
//
// Deleters never run under a shard mutex. Entries that leave the cache are
// unlinked under the lock and chained, in the order they left, onto a local
// PendingDeletes (through next_hash, which is free once the entry is out of
// the table) that runs the deleters after the lock is dropped. Two reasons: a
// deleter may be slow (freeing a large block), which would stall every other
// reader of the shard, and a deleter may call back into the cache (release
// another handle, erase a key), which would deadlock on the non-recursive
// mutex.

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <utility>

#include "cascadedb/cache.h"
#include "cascadedb/slice.h"
#include "util/hash.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace cascadedb {

namespace {

// Seed of the key hash; any constant works, it only has to stay fixed for
// the life of a cache.
constexpr uint32_t kHashSeed = 0x6c72752eu;

// Limits on the number of shards.
constexpr int kMaxAutoShardBits = 6;                  // 64 shards.
constexpr size_t kMinAutoShardCapacity = 512 * 1024;  // 512 KiB.
// An explicit num_shard_bits above this is clamped: more than 2^16 mutexes
// and tables would waste memory without adding any parallelism.
constexpr int kMaxShardBits = 16;

// One cache entry. The key bytes are stored right after the struct, in the
// same allocation.
struct LRUHandle : public Cache::Handle {
  void* value = nullptr;
  Cache::Deleter deleter = nullptr;
  LRUHandle* next_hash = nullptr;  // Chain on a to-free list.
  LRUHandle* next = nullptr;       // Neighbours on lru_ or in_use_.
  LRUHandle* prev = nullptr;
  size_t charge = 0;
  size_t key_length = 0;
  uint32_t refs = 0;  // Handles pinning the entry.
  uint32_t hash = 0;
  bool in_table = false;

  char* key_data() { return reinterpret_cast<char*>(this + 1); }
  Slice key() { return Slice(key_data(), key_length); }

  // Allocates an entry holding a copy of key, unpinned and in no table.
  static LRUHandle* Create(const Slice& key, uint32_t hash, void* value,
                           size_t charge, Cache::Deleter deleter) {
    void* mem = ::operator new(sizeof(LRUHandle) + key.size());
    LRUHandle* e = new (mem) LRUHandle();
    e->value = value;
    e->deleter = deleter;
    e->charge = charge;
    e->key_length = key.size();
    e->hash = hash;
    if (key.size() > 0) std::memcpy(e->key_data(), key.data(), key.size());
    return e;
  }

  // Runs the deleter and frees the memory. REQUIRES: the entry is detached
  // and unpinned, and no lock is held (see the file comment).
  static void Destroy(LRUHandle* e) {
    assert(e->refs == 0 && !e->in_table);
    if (e->deleter != nullptr) e->deleter(e->key(), e->value);
    e->~LRUHandle();
    ::operator delete(e);
  }
};

// Entries that have left the cache, chained through next_hash in the order
// they left, destroyed when this goes out of scope. Declare it before the
// MutexLock in the same scope: locals die in reverse order, so the lock is
// released first and the deleters run unlocked.
class PendingDeletes {
 public:
  PendingDeletes() = default;
  PendingDeletes(const PendingDeletes&) = delete;
  PendingDeletes& operator=(const PendingDeletes&) = delete;

  ~PendingDeletes() {
    while (head_ != nullptr) {
      LRUHandle* next = head_->next_hash;
      LRUHandle::Destroy(head_);
      head_ = next;
    }
  }

  void Add(LRUHandle* e) {
    e->next_hash = nullptr;
    *tail_ = e;
    tail_ = &e->next_hash;
  }

 private:
  LRUHandle* head_ = nullptr;
  LRUHandle** tail_ = &head_;
};

// An open-addressed hash table of LRUHandle keyed by (key, hash), with
// linear probing. Each slot keeps its entry's hash beside the pointer, so
// that a probe compares hashes in the slot array and reads an entry only
// when its hash matches: a lookup that misses (most of them, when reads
// cover far more data than the cache holds) touches no entry. Entries lie
// all over the heap, and reading one is a cache (and often TLB) miss:
// chained buckets, which kept the hash in the entry, spent ~70% of
// Lookup's time on that read (docs/performance.md, "Block cache lookups
// that miss read no entry"). The table doubles when more than half full,
// and a removal shifts later entries of its run back (no tombstones).
//
// Thread safety: not thread-safe; the owning shard locks around it.
class HandleTable {
 public:
  HandleTable() { Resize(kInitialSlots); }
  HandleTable(const HandleTable&) = delete;
  HandleTable& operator=(const HandleTable&) = delete;

  // The entry for key, or nullptr.
  LRUHandle* Lookup(const Slice& key, uint32_t hash) {
    return slots_[FindSlot(key, hash)].entry;
  }

  // Adds e, returning the entry with the same key that it replaced (now out
  // of the table), or nullptr.
  LRUHandle* Insert(LRUHandle* e) {
    size_t i = FindSlot(e->key(), e->hash);
    LRUHandle* old = slots_[i].entry;
    slots_[i] = Slot{e->hash, e};
    if (old == nullptr && ++elems_ * 2 > mask_ + 1) Resize((mask_ + 1) * 2);
    return old;
  }

  // Removes and returns the entry for key, or nullptr.
  LRUHandle* Remove(const Slice& key, uint32_t hash) {
    size_t hole = FindSlot(key, hash);
    LRUHandle* e = slots_[hole].entry;
    if (e == nullptr) return nullptr;
    --elems_;
    // Moves back each later entry of the run that the hole would otherwise
    // cut off from its home slot.
    for (size_t j = (hole + 1) & mask_; slots_[j].entry != nullptr;
         j = (j + 1) & mask_) {
      const size_t home = slots_[j].hash & mask_;
      // Distances from home, cyclically: the entry at j may move to the
      // hole only if the hole lies between its home and j.
      if (((j - home) & mask_) >= ((j - hole) & mask_)) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = Slot{};
    return e;
  }

 private:
  struct Slot {
    uint32_t hash = 0;
    LRUHandle* entry = nullptr;  // nullptr: empty
  };

  static constexpr size_t kInitialSlots = 32;  // A power of two.

  // The slot holding the entry for key, or the empty slot where it would go.
  size_t FindSlot(const Slice& key, uint32_t hash) const {
    size_t i = hash & mask_;
    while (slots_[i].entry != nullptr &&
           (slots_[i].hash != hash || slots_[i].entry->key() != key)) {
      i = (i + 1) & mask_;
    }
    return i;
  }

  // Reinserts every entry into new_slots slots (a power of two).
  void Resize(size_t new_slots) {
    std::unique_ptr<Slot[]> old = std::move(slots_);
    const size_t old_slots = old == nullptr ? 0 : mask_ + 1;
    slots_ = std::make_unique<Slot[]>(new_slots);
    mask_ = new_slots - 1;
    for (size_t i = 0; i < old_slots; ++i) {
      if (old[i].entry == nullptr) continue;
      size_t j = old[i].hash & mask_;
      while (slots_[j].entry != nullptr) j = (j + 1) & mask_;
      slots_[j] = old[i];
    }
  }

  std::unique_ptr<Slot[]> slots_;
  size_t mask_ = 0;   // Number of slots less one; the number is a power of 2.
  size_t elems_ = 0;  // Number of entries.
};

// One independently locked part of the cache.
//
// Thread safety: thread-safe.
class LRUCacheShard {
 public:
  LRUCacheShard() {
    // Empty circular lists point at their own dummy head.
    lru_.next = lru_.prev = &lru_;
    in_use_.next = in_use_.prev = &in_use_;
  }
  LRUCacheShard(const LRUCacheShard&) = delete;
  LRUCacheShard& operator=(const LRUCacheShard&) = delete;

  // REQUIRES: no entry is pinned.
  ~LRUCacheShard() {
    PendingDeletes to_free;  // Runs once the lock is released.
    MutexLock lock(&mu_);
    assert(in_use_.next == &in_use_);  // No pinned entry in the table.
    while (lru_.next != &lru_) EvictOldestLocked(&to_free);
    assert(usage_ == 0);  // No pinned entry out of the table either.
  }

  // Evicted entries go to *to_free, for the caller to destroy once it holds
  // no lock.
  void SetCapacity(size_t capacity, PendingDeletes* to_free) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    capacity_ = capacity;
    EvictLocked(to_free);
  }

  // Takes e (fresh from LRUHandle::Create) into the cache, pinned once if
  // pin is set.
  void Insert(LRUHandle* e, bool pin) EXCLUDES(mu_) {
    PendingDeletes to_free;  // Runs once the lock is released.
    MutexLock lock(&mu_);
    e->in_table = true;
    e->refs = pin ? 1 : 0;
    usage_ += e->charge;
    if (pin) {
      Append(&in_use_, e);
    } else {
      Append(&lru_, e);
      lru_usage_ += e->charge;
    }
    LRUHandle* old = table_.Insert(e);
    if (old != nullptr) DetachLocked(old, &to_free);
    // An unpinned e is the newest entry on lru_, so it goes last; it is
    // evicted here only if it cannot fit even with every older unpinned
    // entry gone.
    EvictLocked(&to_free);
  }

  LRUHandle* Lookup(const Slice& key, uint32_t hash) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    LRUHandle* e = table_.Lookup(key, hash);
    if (e != nullptr) {
      if (e->refs == 0) {
        Unlink(e);
        lru_usage_ -= e->charge;
        Append(&in_use_, e);
      }
      ++e->refs;
    }
    return e;
  }

  void Release(LRUHandle* e) EXCLUDES(mu_) {
    PendingDeletes to_free;  // Runs once the lock is released.
    MutexLock lock(&mu_);
    assert(e->refs > 0);
    if (--e->refs == 0) {
      if (e->in_table) {
        // Newly unpinned: it becomes the most recently used entry, and
        // may have been what kept usage above the capacity.
        Unlink(e);
        Append(&lru_, e);
        lru_usage_ += e->charge;
        EvictLocked(&to_free);
      } else {
        usage_ -= e->charge;
        to_free.Add(e);
      }
    }
  }

  void Erase(const Slice& key, uint32_t hash) EXCLUDES(mu_) {
    PendingDeletes to_free;  // Runs once the lock is released.
    MutexLock lock(&mu_);
    LRUHandle* e = table_.Remove(key, hash);
    if (e != nullptr) DetachLocked(e, &to_free);
  }

  void Prune() EXCLUDES(mu_) {
    PendingDeletes to_free;  // Runs once the lock is released.
    MutexLock lock(&mu_);
    while (lru_.next != &lru_) EvictOldestLocked(&to_free);
  }

  size_t GetUsage() const EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return usage_;
  }

  size_t GetPinnedUsage() const EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return usage_ - lru_usage_;
  }

 private:
  // Appends e to the newest end of list.
  static void Append(LRUHandle* list, LRUHandle* e) {
    e->next = list;
    e->prev = list->prev;
    e->prev->next = e;
    e->next->prev = e;
  }

  static void Unlink(LRUHandle* e) {
    e->next->prev = e->prev;
    e->prev->next = e->next;
    e->next = e->prev = nullptr;
  }

  // Takes e, just removed from table_, out of the cache: freed now (via
  // *to_free) if unpinned, else when its last handle is released.
  void DetachLocked(LRUHandle* e, PendingDeletes* to_free) REQUIRES(mu_) {
    mu_.AssertHeld();
    assert(e->in_table);
    e->in_table = false;
    Unlink(e);
    if (e->refs == 0) {
      lru_usage_ -= e->charge;
      usage_ -= e->charge;
      to_free->Add(e);
    }
  }

  // Removes the oldest unpinned entry. REQUIRES: lru_ is not empty.
  void EvictOldestLocked(PendingDeletes* to_free) REQUIRES(mu_) {
    mu_.AssertHeld();
    LRUHandle* oldest = lru_.next;
    assert(oldest != &lru_ && oldest->refs == 0);
    LRUHandle* removed = table_.Remove(oldest->key(), oldest->hash);
    assert(removed == oldest);
    (void)removed;  // Only checked in debug builds.
    DetachLocked(oldest, to_free);
  }

  // Evicts unpinned entries, oldest first, until usage fits the capacity or
  // only pinned entries are left.
  void EvictLocked(PendingDeletes* to_free) REQUIRES(mu_) {
    mu_.AssertHeld();
    while (usage_ > capacity_ && lru_.next != &lru_) {
      EvictOldestLocked(to_free);
    }
  }

  mutable Mutex mu_;
  size_t capacity_ GUARDED_BY(mu_) = 0;
  size_t usage_ GUARDED_BY(mu_) = 0;
  size_t lru_usage_ GUARDED_BY(mu_) = 0;
  // Dummy heads of circular lists; next is the oldest entry, prev the
  // newest. Only the link fields of the heads are used.
  LRUHandle lru_ GUARDED_BY(mu_);
  LRUHandle in_use_ GUARDED_BY(mu_);
  HandleTable table_ GUARDED_BY(mu_);
};

// Picks the shard bits for capacity: enough shards that each has at least
// kMinAutoShardCapacity, at most 2^kMaxAutoShardBits, at least one.
int AutoShardBits(size_t capacity) {
  int bits = 0;
  size_t shards_allowed = capacity / kMinAutoShardCapacity;
  while (bits < kMaxAutoShardBits && (size_t{2} << bits) <= shards_allowed) {
    ++bits;
  }
  return bits;
}

// The Cache returned by NewLRUCache.
//
// Thread safety: thread-safe.
class ShardedLRUCache final : public Cache {
 public:
  ShardedLRUCache(size_t capacity, int num_shard_bits)
      : shard_bits_(num_shard_bits),
        shards_(new LRUCacheShard[size_t{1} << num_shard_bits]) {
    SetCapacity(capacity);
  }

  void Insert(const Slice& key, void* value, size_t charge, Deleter deleter,
              Handle** handle) override {
    const uint32_t hash = HashKey(key);
    // Allocate and copy the key before taking any lock.
    LRUHandle* e = LRUHandle::Create(key, hash, value, charge, deleter);
    ShardFor(hash).Insert(e, handle != nullptr);
    if (handle != nullptr) *handle = e;
  }

  Handle* Lookup(const Slice& key) override {
    const uint32_t hash = HashKey(key);
    return ShardFor(hash).Lookup(key, hash);
  }

  void Release(Handle* handle) override {
    LRUHandle* e = static_cast<LRUHandle*>(handle);
    ShardFor(e->hash).Release(e);
  }

  void* Value(Handle* handle) override {
    // Set before the entry was published and never changed: no lock needed.
    return static_cast<LRUHandle*>(handle)->value;
  }

  void Erase(const Slice& key) override {
    const uint32_t hash = HashKey(key);
    ShardFor(hash).Erase(key, hash);
  }

  uint64_t NewId() override {
    // Only uniqueness matters, not ordering with other memory: relaxed.
    return last_id_.fetch_add(1, std::memory_order_relaxed) + 1;
  }

  void Prune() override {
    for (size_t i = 0; i < num_shards(); ++i) shards_[i].Prune();
  }

  void SetCapacity(size_t capacity) override {
    PendingDeletes to_free;  // Runs once capacity_mu_ is released too.
    MutexLock lock(&capacity_mu_);
    capacity_ = capacity;
    // Each shard gets ceil(capacity / shards) so that the shards together
    // never hold less than asked for.
    const size_t n = num_shards();
    const size_t per_shard = capacity / n + (capacity % n != 0 ? 1 : 0);
    for (size_t i = 0; i < n; ++i) shards_[i].SetCapacity(per_shard, &to_free);
  }

  size_t GetCapacity() const override {
    MutexLock lock(&capacity_mu_);
    return capacity_;
  }

  // Sums over the shards, each read under its own lock: exact when nothing
  // runs concurrently, a close snapshot otherwise.
  size_t GetUsage() const override {
    size_t total = 0;
    for (size_t i = 0; i < num_shards(); ++i) total += shards_[i].GetUsage();
    return total;
  }

  size_t GetPinnedUsage() const override {
    size_t total = 0;
    for (size_t i = 0; i < num_shards(); ++i) {
      total += shards_[i].GetPinnedUsage();
    }
    return total;
  }

 private:
  static uint32_t HashKey(const Slice& key) {
    return Hash(key.data(), key.size(), kHashSeed);
  }

  size_t num_shards() const { return size_t{1} << shard_bits_; }

  // The top shard_bits_ bits pick the shard; HandleTable uses the low bits.
  LRUCacheShard& ShardFor(uint32_t hash) const {
    return shards_[shard_bits_ == 0 ? 0 : hash >> (32 - shard_bits_)];
  }

  // Const after construction.
  const int shard_bits_;
  const std::unique_ptr<LRUCacheShard[]> shards_;

  // Serializes SetCapacity so the shards' capacities match capacity_. Lock
  // order: capacity_mu_ before any shard mutex.
  mutable Mutex capacity_mu_;
  size_t capacity_ GUARDED_BY(capacity_mu_) = 0;

  // Atomic: the last id handed out by NewId.
  std::atomic<uint64_t> last_id_{0};
};

}  // namespace

std::shared_ptr<Cache> NewLRUCache(size_t capacity, int num_shard_bits) {
  if (num_shard_bits < 0) num_shard_bits = AutoShardBits(capacity);
  num_shard_bits = std::min(num_shard_bits, kMaxShardBits);
  return std::make_shared<ShardedLRUCache>(capacity, num_shard_bits);
}

}  // namespace cascadedb

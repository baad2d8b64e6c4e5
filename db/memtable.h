// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// MemTable: the in-memory, sorted buffer that receives every write before it
// is flushed to an L0 table. Its entries are allocated from one Arena and
// encoded as
//
//   varint32 internal-key length | user key | 8-byte trailer
//        | varint32 value length | value
//
// and kept sorted by a BTree (Options::memtable_rep's default; its nodes
// come from the same arena) or a SkipList (each entry then shares ONE arena
// allocation with its skiplist node). Dropping a memtable is one
// arena release, whatever it holds. Entries are ordered by internal key
// (db/dbformat.h): user key ascending, newest sequence first.
//
// Lifetime: reference counted. The creator holds the first reference;
// every iterator holds one more, so an immutable memtable being flushed stays
// alive while a reader still scans it. The last Unref() deletes it.
//
// Thread safety: readers (Get, NewIterator and the iterators' use, the
// counters) are lock-free and may run at any time, concurrently with
// writes. Writes come in one of two modes, never mixed at the same time:
// Add (one writer at a time; the caller serializes), or AddConcurrently
// (any number of writers, for Options::allow_concurrent_memtable_write).
// Ref/Unref are thread-safe.

#ifndef CASCADEDB_DB_MEMTABLE_H_
#define CASCADEDB_DB_MEMTABLE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cascadedb/iterator.h"
#include "cascadedb/options.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "db/btree.h"
#include "db/dbformat.h"
#include "db/skiplist.h"
#include "util/arena.h"
#include "util/dynamic_bloom.h"
#include "util/mutex.h"

namespace cascadedb {

// Counters of a run of AddConcurrently calls, kept by one writer and folded
// into the memtable once (ApplyAddStats), so concurrent writers do not
// contend on the shared counters for every entry.
struct MemTableAddStats {
  uint64_t num_entries = 0;
  uint64_t num_deletes = 0;
  uint64_t data_size = 0;
};

class MemTable {
 public:
  // The arena block size a memtable for the given write_buffer_size should
  // use: write_buffer_size / 8, rounded to 4 KiB, within [4 KiB, 2 MiB].
  // Small enough that memory usage tracks the data of a small buffer, large
  // enough that a big memtable has few blocks to free; from 16 MiB buffers
  // on, one huge page (RocksDB caps it at 1 MiB; util/arena.h says why
  // ours are huge pages).
  static size_t ArenaBlockSizeFor(size_t write_buffer_size);

  // The bits of the memtable's bloom filter for the given options: 0 (no
  // filter) unless memtable_whole_key_filtering is set and
  // memtable_prefix_bloom_size_ratio > 0; else write_buffer_size x ratio
  // bytes' worth (RocksDB's sizing).
  static uint64_t BloomBitsFor(const Options& options);

  // An empty memtable with one reference (the caller's). Copies comparator
  // (which borrows its user comparator: that must outlive the memtable).
  // bloom_bits > 0 gives it a bloom filter over the user keys added
  // (util/dynamic_bloom.h), allocated from the arena (so it counts in
  // ApproximateMemoryUsage): Get answers "not here" for most absent keys
  // without searching the skiplist or tree. Like the tables' filters, it
  // requires a user comparator under which equal keys have equal bytes. rep
  // chooses the sorted structure. arena_pool, if not null, supplies the
  // arena's blocks and takes them back when the memtable is deleted.
  explicit MemTable(const InternalKeyComparator& comparator,
                    size_t arena_block_size = Arena::kDefaultBlockSize,
                    uint64_t bloom_bits = 0,
                    MemTableRep rep = MemTableRep::kSkipList,
                    std::shared_ptr<ArenaBlockPool> arena_pool = nullptr);

  MemTable(const MemTable&) = delete;
  MemTable& operator=(const MemTable&) = delete;

  // Takes a reference. Thread-safe.
  void Ref();

  // Drops a reference; the last one deletes the memtable. Thread-safe.
  void Unref();

  // Adds an entry: key (a user key) set to value at seq (type kTypeValue),
  // or key deleted at seq (type kTypeDeletion; value is then usually
  // empty). Copies key and value. Returns, adding nothing: InvalidArgument
  // if an entry with the same key, sequence and type already exists or if
  // key or value is too large for the entry encoding (4 GiB); NotSupported
  // for a type other than value or deletion.
  // REQUIRES: single-writer mode; seq <= kMaxSequenceNumber.
  Status Add(SequenceNumber seq, ValueType type, const Slice& key,
             const Slice& value);

  // Add for concurrent writers: any number of threads may call it at once.
  // If stats is not null the entry is counted there instead of in the
  // memtable, and the caller must call ApplyAddStats(*stats) when done.
  // REQUIRES: concurrent mode (no Add running at the same time).
  Status AddConcurrently(SequenceNumber seq, ValueType type, const Slice& key,
                         const Slice& value, MemTableAddStats* stats);

  // Folds counters gathered by AddConcurrently into the memtable's.
  // Thread-safe.
  void ApplyAddStats(const MemTableAddStats& stats);

  // Looks up key.user_key() as of key's sequence: the newest entry for that
  // user key with sequence <= the lookup sequence decides. Returns true if
  // there is one: a value (stored in *value, *s left unchanged) or a
  // deletion (*s = NotFound, *value unchanged). Returns false, changing
  // nothing, if the memtable has no visible entry for the key. When the
  // bloom filter answers without a search, *bloom_skips (if not null) is
  // incremented.
  bool Get(const LookupKey& key, std::string* value, Status* s,
           uint64_t* bloom_skips = nullptr) const;

  // True if the memtable has a bloom filter.
  bool has_bloom() const { return bloom_ != nullptr; }

  // False only if the bloom filter rules out user_key: no entry for it was
  // added before the call. True without a bloom filter. Thread-safe.
  bool MayContain(const Slice& user_key) const {
    return bloom_ == nullptr || bloom_->MayContain(user_key);
  }

  // An iterator over the entries: key() is the internal key, value() the
  // value. Supports Seek (to an internal key), SeekForPrev, Prev. The
  // caller owns the result; it holds a reference to the memtable, so the
  // memtable lives at least as long as the iterator. The iterator sees the
  // entries added before it is positioned, and maybe later ones.
  Iterator* NewIterator();

  // Bytes held by the arena (entries, nodes, and the unused tail of the
  // current block). What the write buffer budget is checked against.
  // Thread-safe; may lag a concurrent write slightly.
  size_t ApproximateMemoryUsage() const { return arena_.MemoryUsage(); }

  // Arena bytes the entries can still take before ApproximateMemoryUsage()
  // reaches usage_limit (see Arena::AllocatableBelow): the room a writer
  // that stops at that limit really has. REQUIRES: no Add running.
  size_t RoomBelow(size_t usage_limit) const {
    return arena_.AllocatableBelow(usage_limit);
  }

  // Arena bytes the entries took so far, per entry (0 when empty): what the
  // next ones are expected to cost, without what the memtable allocated
  // for itself when it was made (its bloom filter, its structure's head).
  // REQUIRES: no Add running.
  double ArenaBytesPerEntry() const;

  // Entries added (values and deletions).
  uint64_t NumEntries() const {
    return num_entries_.load(std::memory_order_relaxed);
  }

  // Deletions added.
  uint64_t NumDeletes() const {
    return num_deletes_.load(std::memory_order_relaxed);
  }

  // User bytes added: the sum of key and value sizes.
  uint64_t DataSize() const {
    return data_size_.load(std::memory_order_relaxed);
  }

  // Arena bytes per entry (0 when empty): what an entry costs in memory,
  // its encoding, skiplist node or tree slots, and arena slack included.
  // Feeds the "cascadedb.memtable-bytes-per-entry" property.
  double BytesPerEntry() const;

  // Arena bytes per entry minus user bytes per entry: the memtable's
  // overhead per entry (0 when empty).
  double OverheadBytesPerEntry() const;

  const InternalKeyComparator& comparator() const {
    return comparator_.comparator;
  }

  // The sorted structure in use.
  MemTableRep rep() const {
    return tree_ != nullptr ? MemTableRep::kBTree : MemTableRep::kSkipList;
  }

  // The current reference count, for tests.
  int TEST_refs() const { return refs_.load(std::memory_order_relaxed); }

  // The length of the entry encoded at entry (its internal key's length
  // prefix, then key, value length and value), as CheckEntry computes it
  // before encoding. A scan of the tree reads it to load whole entries
  // ahead of itself.
  static size_t EncodedEntryBytes(const char* entry);

 private:
  template <class TableIterator>
  friend class MemTableIterator;

  // Orders entries (pointers to "varint32 length | internal key | ...") by
  // internal key.
  struct KeyComparator {
    const InternalKeyComparator comparator;
    // The user comparator is the bytewise one: an entry's user key bytes
    // order entries (BTree's key heads).
    const bool bytewise;
    explicit KeyComparator(const InternalKeyComparator& c);
    int operator()(const char* a, const char* b) const;
    // For BTree: the entry's user key, or empty unless bytewise.
    Slice Bytes(const char* entry) const;
    // For BTree: EncodedEntryBytes.
    size_t KeyBytes(const char* entry) const {
      return EncodedEntryBytes(entry);
    }
  };

  using Table = SkipList<const char*, KeyComparator>;
  using Tree = BTree<const char*, KeyComparator>;

  // The first entry >= target (an encoded memtable key), or nullptr.
  const char* SeekEntry(const char* target) const;

  ~MemTable();  // Only Unref() deletes.

  // Checks sizes and type; on success sets *encoded_len to the entry size.
  static Status CheckEntry(ValueType type, const Slice& key, const Slice& value,
                           size_t* encoded_len);

  // Allocates, encodes and inserts one entry into the skiplist or the tree
  // (concurrent: AddConcurrently's mode). False if an equal entry exists.
  bool InsertEntry(bool concurrent, size_t encoded_len, SequenceNumber seq,
                   ValueType type, const Slice& key, const Slice& value);
  // The tree's part of InsertEntry. REQUIRES: one writer at a time.
  bool InsertIntoTree(size_t encoded_len, SequenceNumber seq, ValueType type,
                      const Slice& key, const Slice& value);
  static Status DuplicateEntry(SequenceNumber seq, ValueType type,
                               const Slice& key);

  // Writes the entry encoding at dst (encoded_len bytes).
  static void EncodeEntry(char* dst, SequenceNumber seq, ValueType type,
                          const Slice& key, const Slice& value);

  // Immutable after construction.
  const KeyComparator comparator_;

  // The reference count; acq_rel on the decrement so that the deleting
  // thread sees every other holder's use finished.
  std::atomic<int> refs_{1};

  // Arena and table: written by the writer(s) per the mode in the file
  // comment; read lock-free (see db/skiplist.h, db/btree.h). Exactly one of
  // table_ and tree_ holds the entries: the skiplist, or (tree_ not null)
  // the B-tree. (The unused skiplist costs its head node.)
  Arena arena_;
  Table table_;
  std::unique_ptr<Tree> tree_;

  // In concurrent mode with the B-tree, writers take turns on this for the
  // entry's allocation and the insert (the arena is not thread-safe).
  Mutex tree_mu_;

  // Over the user keys added; null when disabled. Its bits live in arena_.
  std::unique_ptr<DynamicBloom> bloom_;

  // arena_'s allocated bytes once the constructor is done.
  size_t base_allocated_ = 0;

  // Set by the first insert, which asks the arena's pool for blocks
  // ahead: until then this may be a memtable no one writes to (a DB opened
  // and not written since), and from then on the writer must not fault in
  // blocks itself.
  std::atomic<bool> asked_ahead_{false};

  // Counters. Relaxed: they are statistics; no memory is published through
  // them. In single-writer mode only the writer stores them.
  std::atomic<uint64_t> num_entries_{0};
  std::atomic<uint64_t> num_deletes_{0};
  std::atomic<uint64_t> data_size_{0};
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_MEMTABLE_H_

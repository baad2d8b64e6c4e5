// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/memtable.h"

#include <cstdio>
#include <cstring>
#include <utility>

#include "cascadedb/comparator.h"
#include "cascadedb/options.h"
#include "util/coding.h"

namespace cascadedb {

namespace {

// Decodes the length-prefixed slice at p. Only for entries this memtable
// wrote itself (trusted memory), so the varint is read without a real limit.
inline Slice DecodeLengthPrefixed(const char* p) {
  uint32_t len;
  p = GetVarint32Ptr(p, p + kMaxVarint32Length, &len);
  assert(p != nullptr);
  return Slice(p, len);
}

}  // namespace

// ---------------------------------------------------------------- iterator

// Iterates the memtable's entries as (internal key, value) pairs, over the
// skiplist's or the B-tree's iterator (TableIterator). Holds a reference to
// the memtable for its whole life.
template <class TableIterator>
class MemTableIterator : public Iterator {
 public:
  template <class Structure>
  MemTableIterator(MemTable* mem, const Structure* table)
      : mem_(mem), iter_(table) {
    mem_->Ref();
  }
  ~MemTableIterator() override { mem_->Unref(); }

  bool Valid() const override { return iter_.Valid(); }
  void SeekToFirst() override { iter_.SeekToFirst(); }
  void SeekToLast() override { iter_.SeekToLast(); }
  void Seek(const Slice& target) override { iter_.Seek(EncodeTarget(target)); }
  void SeekForPrev(const Slice& target) override {
    iter_.SeekForPrev(EncodeTarget(target));
  }
  void Next() override { iter_.Next(); }
  void Prev() override { iter_.Prev(); }
  Slice key() const override { return DecodeLengthPrefixed(iter_.key()); }
  Slice value() const override {
    const Slice k = DecodeLengthPrefixed(iter_.key());
    return DecodeLengthPrefixed(k.data() + k.size());
  }
  Status status() const override { return Status::OK(); }

 private:
  // Builds the memtable key (varint32 length + internal key) for a seek
  // target in tmp_ and returns it.
  const char* EncodeTarget(const Slice& target) {
    tmp_.clear();
    PutVarint32(&tmp_, static_cast<uint32_t>(target.size()));
    tmp_.append(target.data(), target.size());
    return tmp_.data();
  }

  MemTable* const mem_;
  TableIterator iter_;
  std::string tmp_;  // The encoded seek target.
};

// ---------------------------------------------------------------- memtable

size_t MemTable::ArenaBlockSizeFor(size_t write_buffer_size) {
  constexpr size_t kMin = 4096;
  constexpr size_t kMax = Arena::kHugePageSize;
  size_t size = write_buffer_size / 8;
  size = (size + kMin - 1) / kMin * kMin;
  if (size < kMin) size = kMin;
  if (size > kMax) size = kMax;
  return size;
}

uint64_t MemTable::BloomBitsFor(const Options& options) {
  if (!options.memtable_whole_key_filtering ||
      !(options.memtable_prefix_bloom_size_ratio > 0)) {
    return 0;
  }
  return static_cast<uint64_t>(static_cast<double>(options.write_buffer_size) *
                               options.memtable_prefix_bloom_size_ratio * 8);
}

MemTable::MemTable(const InternalKeyComparator& comparator,
                   size_t arena_block_size, uint64_t bloom_bits,
                   MemTableRep rep, std::shared_ptr<ArenaBlockPool> arena_pool)
    : comparator_(comparator),
      arena_(arena_block_size, std::move(arena_pool)),
      table_(comparator_, &arena_) {
  if (rep == MemTableRep::kBTree) {
    tree_ = std::make_unique<Tree>(comparator_, &arena_);
  }
  if (bloom_bits > 0)
    bloom_ = std::make_unique<DynamicBloom>(&arena_, bloom_bits);
  base_allocated_ = arena_.AllocatedBytes();
}

MemTable::~MemTable() { assert(refs_.load(std::memory_order_relaxed) == 0); }

void MemTable::Ref() {
  // Relaxed: taking a reference needs no ordering; the taker already holds
  // (or is handed under a lock) a reference that keeps the table alive.
  refs_.fetch_add(1, std::memory_order_relaxed);
}

void MemTable::Unref() {
  // acq_rel: the release orders this holder's reads before the delete; the
  // acquire on the final decrement makes every other holder's release
  // visible to the deleting thread.
  const int previous = refs_.fetch_sub(1, std::memory_order_acq_rel);
  assert(previous > 0);
  if (previous == 1) delete this;
}

MemTable::KeyComparator::KeyComparator(const InternalKeyComparator& c)
    : comparator(c), bytewise(c.user_comparator() == BytewiseComparator()) {}

int MemTable::KeyComparator::operator()(const char* a, const char* b) const {
  return comparator.Compare(DecodeLengthPrefixed(a), DecodeLengthPrefixed(b));
}

Slice MemTable::KeyComparator::Bytes(const char* entry) const {
  if (!bytewise) return Slice();
  return ExtractUserKey(DecodeLengthPrefixed(entry));
}

size_t MemTable::EncodedEntryBytes(const char* entry) {
  // The value follows the internal key, as MemTableIterator::value reads it.
  const Slice key = DecodeLengthPrefixed(entry);
  const Slice value = DecodeLengthPrefixed(key.data() + key.size());
  return static_cast<size_t>(value.data() + value.size() - entry);
}

Status MemTable::CheckEntry(ValueType type, const Slice& key,
                            const Slice& value, size_t* encoded_len) {
  // Values are compressed on their own only as they go into a table.
  if (type != kTypeValue && type != kTypeDeletion) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "memtable: value type %u not supported",
                  static_cast<unsigned int>(type));
    return Status::NotSupported(buf);
  }
  constexpr uint64_t kLimit = UINT32_MAX;
  const uint64_t internal_key_size =
      uint64_t{key.size()} + kInternalKeyTrailerSize;
  if (internal_key_size > kLimit || value.size() > kLimit) {
    char buf[96];
    std::snprintf(
        buf, sizeof(buf),
        "memtable: entry too large (key %zu bytes, value %zu bytes, "
        "limit %llu each)",
        key.size(), value.size(),
        static_cast<unsigned long long>(kLimit - kInternalKeyTrailerSize));
    return Status::InvalidArgument(buf);
  }
  *encoded_len = VarintLength(internal_key_size) + internal_key_size +
                 VarintLength(value.size()) + value.size();
  return Status::OK();
}

void MemTable::EncodeEntry(char* dst, SequenceNumber seq, ValueType type,
                           const Slice& key, const Slice& value) {
  const size_t key_size = key.size();
  const size_t value_size = value.size();
  char* p = EncodeVarint32(
      dst, static_cast<uint32_t>(key_size + kInternalKeyTrailerSize));
  CopyBytes(p, key.data(), key_size);
  p += key_size;
  EncodeFixed64(p, PackSequenceAndType(seq, type));
  p += kInternalKeyTrailerSize;
  p = EncodeVarint32(p, static_cast<uint32_t>(value_size));
  CopyBytes(p, value.data(), value_size);
}

bool MemTable::InsertEntry(bool concurrent, size_t encoded_len,
                           SequenceNumber seq, ValueType type, const Slice& key,
                           const Slice& value) {
  if (!asked_ahead_.load(std::memory_order_relaxed) &&
      !asked_ahead_.exchange(true, std::memory_order_relaxed)) {
    arena_.PrepareAhead();
  }
  if (tree_ != nullptr) {
    if (concurrent) {
      MutexLock lock(&tree_mu_);
      return InsertIntoTree(encoded_len, seq, type, key, value);
    }
    return InsertIntoTree(encoded_len, seq, type, key, value);
  }
  Table::Reservation r = concurrent ? table_.ReserveConcurrently(encoded_len)
                                    : table_.Reserve(encoded_len);
  EncodeEntry(r.payload(), seq, type, key, value);
  return concurrent ? table_.InsertConcurrently(r, r.payload())
                    : table_.Insert(r, r.payload());
}

bool MemTable::InsertIntoTree(size_t encoded_len, SequenceNumber seq,
                              ValueType type, const Slice& key,
                              const Slice& value) {
  char* entry = arena_.Allocate(encoded_len);
  EncodeEntry(entry, seq, type, key, value);
  return tree_->Insert(entry);
}

Status MemTable::DuplicateEntry(SequenceNumber seq, ValueType type,
                                const Slice& key) {
  return Status::InvalidArgument(
      "memtable: duplicate entry",
      ParsedInternalKey(key, seq, type).DebugString());
}

Status MemTable::Add(SequenceNumber seq, ValueType type, const Slice& key,
                     const Slice& value) {
  size_t encoded_len;
  Status s = CheckEntry(type, key, value, &encoded_len);
  if (!s.ok()) return s;
  // The filter's line loads while the skiplist or tree is searched.
  const uint32_t bloom_hash = bloom_ != nullptr ? DynamicBloom::HashOf(key) : 0;
  if (bloom_ != nullptr) bloom_->Prefetch(bloom_hash);
  if (!InsertEntry(/*concurrent=*/false, encoded_len, seq, type, key, value)) {
    return DuplicateEntry(seq, type, key);
  }
  // Before the write's sequence is published: a reader that can see the
  // entry sees its bloom bits (util/dynamic_bloom.h).
  if (bloom_ != nullptr) bloom_->Add(bloom_hash);
  // Single writer: load + store instead of a locked read-modify-write.
  num_entries_.store(num_entries_.load(std::memory_order_relaxed) + 1,
                     std::memory_order_relaxed);
  if (type == kTypeDeletion) {
    num_deletes_.store(num_deletes_.load(std::memory_order_relaxed) + 1,
                       std::memory_order_relaxed);
  }
  data_size_.store(
      data_size_.load(std::memory_order_relaxed) + key.size() + value.size(),
      std::memory_order_relaxed);
  return Status::OK();
}

Status MemTable::AddConcurrently(SequenceNumber seq, ValueType type,
                                 const Slice& key, const Slice& value,
                                 MemTableAddStats* stats) {
  size_t encoded_len;
  Status s = CheckEntry(type, key, value, &encoded_len);
  if (!s.ok()) return s;
  const uint32_t bloom_hash = bloom_ != nullptr ? DynamicBloom::HashOf(key) : 0;
  if (bloom_ != nullptr) bloom_->Prefetch(bloom_hash);
  if (!InsertEntry(/*concurrent=*/true, encoded_len, seq, type, key, value)) {
    return DuplicateEntry(seq, type, key);
  }
  if (bloom_ != nullptr) bloom_->AddConcurrently(bloom_hash);
  MemTableAddStats one;
  one.num_entries = 1;
  one.num_deletes = type == kTypeDeletion ? 1 : 0;
  one.data_size = key.size() + value.size();
  if (stats != nullptr) {
    stats->num_entries += one.num_entries;
    stats->num_deletes += one.num_deletes;
    stats->data_size += one.data_size;
  } else {
    ApplyAddStats(one);
  }
  return Status::OK();
}

void MemTable::ApplyAddStats(const MemTableAddStats& stats) {
  num_entries_.fetch_add(stats.num_entries, std::memory_order_relaxed);
  if (stats.num_deletes > 0) {
    num_deletes_.fetch_add(stats.num_deletes, std::memory_order_relaxed);
  }
  data_size_.fetch_add(stats.data_size, std::memory_order_relaxed);
}

bool MemTable::Get(const LookupKey& key, std::string* value, Status* s,
                   uint64_t* bloom_skips) const {
  if (bloom_ != nullptr && !bloom_->MayContain(key.user_key())) {
    if (bloom_skips != nullptr) ++*bloom_skips;
    return false;
  }
  const char* entry = SeekEntry(key.memtable_key().data());
  if (entry == nullptr) return false;
  // The seek landed on the first entry >= (user key, lookup sequence): the
  // newest version visible at that sequence, if it is for this user key.
  const Slice internal_key = DecodeLengthPrefixed(entry);
  if (comparator_.comparator.user_comparator()->Compare(
          ExtractUserKey(internal_key), key.user_key()) != 0) {
    return false;
  }
  switch (static_cast<ValueType>(ExtractTrailer(internal_key) & 0xff)) {
    case kTypeValue: {
      const Slice v =
          DecodeLengthPrefixed(internal_key.data() + internal_key.size());
      value->assign(v.data(), v.size());
      return true;
    }
    case kTypeDeletion:
      *s = Status::NotFound(Slice());
      return true;
    default:
      // Add() accepts only values and deletions.
      assert(false);
      return false;
  }
}

const char* MemTable::SeekEntry(const char* target) const {
  if (tree_ != nullptr) {
    Tree::Iterator iter(tree_.get());
    iter.Seek(target);
    return iter.Valid() ? iter.key() : nullptr;
  }
  Table::Iterator iter(&table_);
  iter.Seek(target);
  return iter.Valid() ? iter.key() : nullptr;
}

Iterator* MemTable::NewIterator() {
  if (tree_ != nullptr) {
    return new MemTableIterator<Tree::Iterator>(this, tree_.get());
  }
  return new MemTableIterator<Table::Iterator>(this, &table_);
}

double MemTable::BytesPerEntry() const {
  const uint64_t n = NumEntries();
  if (n == 0) return 0;
  return static_cast<double>(ApproximateMemoryUsage()) / n;
}

double MemTable::ArenaBytesPerEntry() const {
  const uint64_t n = NumEntries();
  if (n == 0) return 0;
  const size_t allocated = arena_.AllocatedBytes();
  return allocated > base_allocated_
             ? static_cast<double>(allocated - base_allocated_) /
                   static_cast<double>(n)
             : 0;
}

double MemTable::OverheadBytesPerEntry() const {
  const uint64_t n = NumEntries();
  if (n == 0) return 0;
  return (static_cast<double>(ApproximateMemoryUsage()) -
          static_cast<double>(DataSize())) /
         n;
}

}  // namespace cascadedb

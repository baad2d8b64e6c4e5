// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Internal keys: how the engine tells versions of one user key apart. Every
// entry in a memtable or an SST is stored under an internal key,
//
//   user key | 8-byte little-endian trailer = (sequence << 8) | value type
//
// ordered by user key ascending (the user's comparator), then sequence
// DESCENDING, then type descending, so the newest version of a key comes
// first and a seek to (key, snapshot sequence) lands on the newest version
// visible in that snapshot. The layout is part of the on-disk format (WAL
// replay aside, it is what every SST stores); see docs/format/sst.md.
//
// Also here: ParsedInternalKey and its codec, InternalKeyComparator (the
// Comparator the table layer is handed), InternalKey (an owned internal
// key), LookupKey (the memtable's lookup target) and InternalKeyFormat (how
// the table layer reads internal keys without knowing this file).
//
// Thread safety: the free functions are thread-safe. InternalKeyComparator
// and InternalKeyFormat are thread-safe (immutable after construction).
// InternalKey and LookupKey are thread-compatible value types.

#ifndef CASCADEDB_DB_DBFORMAT_H_
#define CASCADEDB_DB_DBFORMAT_H_

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "cascadedb/comparator.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "table/table_key_format.h"
#include "util/coding.h"

namespace cascadedb {

// A write's position in the total order of writes. Each record of a write
// batch gets its own. Only the low 56 bits are usable: the trailer packs the
// sequence with an 8-bit value type.
using SequenceNumber = uint64_t;

// The largest sequence number a write may get.
constexpr SequenceNumber kMaxSequenceNumber = (uint64_t{1} << 56) - 1;

// The kind of an entry, stored in the low byte of every internal key's
// trailer (and, with the same values, as the tag of write-batch records,
// docs/format/write_batch.md). Persistent: never renumber. Values not
// listed are unknown and rejected as corruption.
enum ValueType : unsigned char {
  kTypeDeletion = 0x0,
  kTypeValue = 0x1,
  // Reserved for features to come; no code writes them yet, and readers
  // reject them as not supported (never misread them).
  kTypeMerge = 0x2,
  kTypeRangeDeletion = 0x3,
  // A value stored compressed on its own (only in tables, never in a
  // memtable, a WAL or a write batch): one CompressionType byte, then the
  // codec's payload (db/value_compression.h, docs/format/sst.md).
  kTypeValueCompressed = 0x4,
};

// The type used when building a key to seek to: entries of one user key and
// sequence are ordered by type DESCENDING, so the highest type sorts first
// and a seek target built with it lands before every entry of that
// (user key, sequence). REQUIRES: no ValueType above it (raise it when one
// is added).
constexpr ValueType kValueTypeForSeek = kTypeValueCompressed;

// The size of the trailer after the user key.
constexpr size_t kInternalKeyTrailerSize = 8;

// True for the types this version reads and writes (value, deletion, and
// in tables a value compressed on its own).
inline bool IsSupportedValueType(ValueType t) {
  return t == kTypeValue || t == kTypeDeletion || t == kTypeValueCompressed;
}

// True for the types that carry a value (plain or compressed on its own).
inline bool IsValueType(ValueType t) {
  return t == kTypeValue || t == kTypeValueCompressed;
}

// True for every type listed above, supported or reserved.
inline bool IsKnownValueType(unsigned int t) {
  return t <= kTypeValueCompressed;
}

// The trailer for (seq, t). REQUIRES: seq <= kMaxSequenceNumber.
inline uint64_t PackSequenceAndType(SequenceNumber seq, ValueType t) {
  assert(seq <= kMaxSequenceNumber);
  return (seq << 8) | t;
}

// An internal key taken apart. user_key borrows the encoded key's bytes.
struct ParsedInternalKey {
  Slice user_key;
  SequenceNumber sequence = 0;
  ValueType type = kTypeDeletion;

  ParsedInternalKey() = default;
  ParsedInternalKey(const Slice& u, SequenceNumber seq, ValueType t)
      : user_key(u), sequence(seq), type(t) {}

  // "'<user key, printable>' @ <sequence> : <type>", for logs and tests.
  std::string DebugString() const;
};

// The encoded length of key: its user key plus the trailer.
inline size_t InternalKeyEncodingLength(const ParsedInternalKey& key) {
  return key.user_key.size() + kInternalKeyTrailerSize;
}

// Appends the encoding of key to *result.
void AppendInternalKey(std::string* result, const ParsedInternalKey& key);

// The user-key part of an internal key.
// REQUIRES: internal_key.size() >= kInternalKeyTrailerSize
inline Slice ExtractUserKey(const Slice& internal_key) {
  assert(internal_key.size() >= kInternalKeyTrailerSize);
  return Slice(internal_key.data(),
               internal_key.size() - kInternalKeyTrailerSize);
}

// The trailer of an internal key.
// REQUIRES: internal_key.size() >= kInternalKeyTrailerSize
inline uint64_t ExtractTrailer(const Slice& internal_key) {
  assert(internal_key.size() >= kInternalKeyTrailerSize);
  return DecodeFixed64(internal_key.data() + internal_key.size() -
                       kInternalKeyTrailerSize);
}

// Sets the type of the encoded internal key *key, in place (the type is
// the trailer's low byte, stored first: the trailer is little-endian).
// REQUIRES: key->size() >= kInternalKeyTrailerSize
inline void SetInternalKeyType(std::string* key, ValueType t) {
  assert(key->size() >= kInternalKeyTrailerSize);
  (*key)[key->size() - kInternalKeyTrailerSize] = static_cast<char>(t);
}

// ParseInternalKey's error for internal_key, which it could not decode.
Status MalformedInternalKey(const Slice& internal_key);

// Decodes internal_key into *result (whose user_key then borrows
// internal_key's bytes). Returns Corruption, naming the problem and showing
// the key hex-escaped and truncated, if the key is shorter than the trailer
// ("malformed internal key (5 bytes, need at least 8): 6162636465") or its
// type is unknown; NotSupported for a reserved type this version cannot
// read yet. *result is unspecified on error. Inline: scans and compactions
// decode every entry they pass; only the error is worded out of line.
inline Status ParseInternalKey(const Slice& internal_key,
                               ParsedInternalKey* result) {
  if (internal_key.size() >= kInternalKeyTrailerSize) {
    const uint64_t trailer = ExtractTrailer(internal_key);
    result->user_key = ExtractUserKey(internal_key);
    result->sequence = trailer >> 8;
    result->type = static_cast<ValueType>(trailer & 0xff);
    if (IsSupportedValueType(result->type)) return Status::OK();
  }
  return MalformedInternalKey(internal_key);
}

// The key's bytes hex-encoded for an error message, cut to the first 32
// bytes and marked "..." when longer ("6162...").
std::string KeyForMessage(const Slice& key);

// Orders internal keys: user key ascending by the user comparator, then
// sequence descending, then type descending. Keys too short to hold a
// trailer (only possible in corrupt data) compare as a user key with
// trailer 0, so a bad key never makes a comparison read out of bounds.
class InternalKeyComparator : public Comparator {
 public:
  // Borrows user_comparator, which must outlive this object.
  explicit InternalKeyComparator(const Comparator* user_comparator)
      : user_comparator_(user_comparator),
        bytewise_(user_comparator == BytewiseComparator()) {}

  // "cascadedb.InternalKeyComparator". Stored in each SST's properties; the
  // user comparator's name is stored separately by the DB.
  const char* Name() const override;

  // User keys in the user comparator's order, then the larger trailer
  // (newer sequence, then higher type) first. Inline, with the bytewise
  // user comparator compared in place: the memtable's skiplist and every
  // block seek call this once per step.
  int Compare(const Slice& a, const Slice& b) const override {
    // A key shorter than the trailer only comes from corrupt data; treat it
    // as a bare user key with trailer 0 so the order stays total and no
    // read leaves the key's bytes.
    const bool a_ok = a.size() >= kInternalKeyTrailerSize;
    const bool b_ok = b.size() >= kInternalKeyTrailerSize;
    const Slice ua = a_ok ? ExtractUserKey(a) : a;
    const Slice ub = b_ok ? ExtractUserKey(b) : b;
    int r;
    if (bytewise_) {
      r = CompareSlices(ua, ub);
    } else {
      r = user_comparator_->Compare(ua, ub);
    }
    if (r != 0) return r;
    const uint64_t ta = a_ok ? ExtractTrailer(a) : 0;
    const uint64_t tb = b_ok ? ExtractTrailer(b) : 0;
    if (ta > tb) return -1;
    if (ta < tb) return +1;
    return 0;
  }

  // Shortens the user-key part of *start (via the user comparator) and,
  // when it got shorter and larger, gives it the trailer that sorts first
  // for that user key, so *start <= result < limit holds as internal keys.
  void FindShortestSeparator(std::string* start,
                             const Slice& limit) const override;

  // Like FindShortestSeparator, toward the user comparator's successor.
  void FindShortSuccessor(std::string* key) const override;

  const Comparator* user_comparator() const { return user_comparator_; }

 private:
  const Comparator* const user_comparator_;
  const bool bytewise_;  // user_comparator_ is BytewiseComparator()
};

// An internal key owning its bytes. Used where a key must outlive the buffer
// it came from (version edits, file boundaries). An empty InternalKey is
// "unset".
class InternalKey {
 public:
  InternalKey() = default;
  InternalKey(const Slice& user_key, SequenceNumber seq, ValueType t) {
    AppendInternalKey(&rep_, ParsedInternalKey(user_key, seq, t));
  }

  // Replaces the contents with a copy of s. Returns false (and leaves the
  // key unset) if s is too short to be an internal key.
  bool DecodeFrom(const Slice& s) {
    if (s.size() < kInternalKeyTrailerSize) {
      rep_.clear();
      return false;
    }
    rep_.assign(s.data(), s.size());
    return true;
  }

  // The encoded key. REQUIRES: set.
  Slice Encode() const {
    assert(!rep_.empty());
    return rep_;
  }

  // REQUIRES: set.
  Slice user_key() const { return ExtractUserKey(rep_); }

  void SetFrom(const ParsedInternalKey& p) {
    rep_.clear();
    AppendInternalKey(&rep_, p);
  }

  bool empty() const { return rep_.empty(); }
  void Clear() { rep_.clear(); }

  // The parsed form for logs and tests, or "(bad)<hex>" if malformed.
  std::string DebugString() const;

 private:
  std::string rep_;
};

// The key a memtable lookup searches for: (user_key, sequence,
// kValueTypeForSeek), which sorts before every version of user_key visible
// at sequence. Its memory layout serves all three views without copying:
//
//   varint32 internal-key length | user key | trailer
//   ^ memtable_key()               ^ internal_key(), user_key()
//
// Keys up to ~190 bytes live in an inline buffer; longer ones on the heap.
class LookupKey {
 public:
  // REQUIRES: sequence <= kMaxSequenceNumber, user_key.size() below 4 GiB
  // minus the trailer.
  LookupKey(const Slice& user_key, SequenceNumber sequence);
  ~LookupKey();

  LookupKey(const LookupKey&) = delete;
  LookupKey& operator=(const LookupKey&) = delete;

  // The length-prefixed internal key, as stored in a memtable entry.
  Slice memtable_key() const { return Slice(start_, end_ - start_); }

  // The internal key.
  Slice internal_key() const { return Slice(kstart_, end_ - kstart_); }

  // The user key.
  Slice user_key() const {
    return Slice(kstart_, end_ - kstart_ - kInternalKeyTrailerSize);
  }

 private:
  const char* start_;
  const char* kstart_;
  const char* end_;
  char space_[200];  // Avoids an allocation for short keys.
};

// Reads internal keys for the table layer (table/table_key_format.h): the
// bloom filter is built over UserKey(), and the properties block counts
// deletions and records the sequence range. Keys too short to hold a
// trailer (corrupt data) are treated as plain user keys: sequence 0, not a
// deletion.
class InternalKeyFormat : public TableKeyFormat {
 public:
  Slice UserKey(const Slice& key) const override;
  uint64_t Sequence(const Slice& key) const override;
  bool IsDeletion(const Slice& key) const override;

  // A process-wide instance; never delete it.
  static const InternalKeyFormat* Get();
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_DBFORMAT_H_

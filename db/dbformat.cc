// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/dbformat.h"

#include <cstdio>
#include <cstring>

namespace cascadedb {

namespace {

// The longest key prefix an error message shows.
constexpr size_t kMaxKeyBytesInMessage = 32;

const char* ValueTypeName(unsigned int t) {
  switch (t) {
    case kTypeDeletion:
      return "del";
    case kTypeValue:
      return "val";
    case kTypeMerge:
      return "merge";
    case kTypeRangeDeletion:
      return "range_del";
    case kTypeValueCompressed:
      return "val_compressed";
    default:
      return "unknown";
  }
}

}  // namespace

std::string KeyForMessage(const Slice& key) {
  if (key.size() <= kMaxKeyBytesInMessage) return key.ToPrintable(true);
  return Slice(key.data(), kMaxKeyBytesInMessage).ToPrintable(true) + "...";
}

std::string ParsedInternalKey::DebugString() const {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "' @ %llu : %s",
                static_cast<unsigned long long>(sequence), ValueTypeName(type));
  return "'" + user_key.ToPrintable() + buf;
}

void AppendInternalKey(std::string* result, const ParsedInternalKey& key) {
  result->append(key.user_key.data(), key.user_key.size());
  PutFixed64(result, PackSequenceAndType(key.sequence, key.type));
}

Status MalformedInternalKey(const Slice& internal_key) {
  const size_t n = internal_key.size();
  if (n < kInternalKeyTrailerSize) {
    char buf[80];
    std::snprintf(buf, sizeof(buf),
                  "malformed internal key (%zu bytes, need at least %zu)", n,
                  kInternalKeyTrailerSize);
    return Status::Corruption(buf, KeyForMessage(internal_key));
  }
  const unsigned int type =
      static_cast<unsigned int>(ExtractTrailer(internal_key) & 0xff);
  char buf[80];
  if (IsKnownValueType(type)) {
    std::snprintf(buf, sizeof(buf),
                  "internal key has value type %u (%s), not supported by "
                  "this version",
                  type, ValueTypeName(type));
    return Status::NotSupported(buf, KeyForMessage(internal_key));
  }
  std::snprintf(buf, sizeof(buf), "internal key has unknown value type %u",
                type);
  return Status::Corruption(buf, KeyForMessage(internal_key));
}

// ---------------------------------------------------------------- comparator

const char* InternalKeyComparator::Name() const {
  return "cascadedb.InternalKeyComparator";
}

void InternalKeyComparator::FindShortestSeparator(std::string* start,
                                                  const Slice& limit) const {
  if (start->size() < kInternalKeyTrailerSize ||
      limit.size() < kInternalKeyTrailerSize) {
    return;  // Leaving *start unchanged is always correct.
  }
  const Slice user_start = ExtractUserKey(*start);
  const Slice user_limit = ExtractUserKey(limit);
  std::string tmp(user_start.data(), user_start.size());
  user_comparator_->FindShortestSeparator(&tmp, user_limit);
  // Only a user key that got shorter AND larger helps. A larger user key
  // needs the trailer that sorts first among its versions; since the user
  // comparator kept tmp < user_limit, the result stays below limit.
  if (tmp.size() < user_start.size() &&
      user_comparator_->Compare(user_start, tmp) < 0) {
    PutFixed64(&tmp,
               PackSequenceAndType(kMaxSequenceNumber, kValueTypeForSeek));
    assert(Compare(*start, tmp) < 0);
    assert(Compare(tmp, limit) < 0);
    start->swap(tmp);
  }
}

void InternalKeyComparator::FindShortSuccessor(std::string* key) const {
  if (key->size() < kInternalKeyTrailerSize) return;
  const Slice user_key = ExtractUserKey(*key);
  std::string tmp(user_key.data(), user_key.size());
  user_comparator_->FindShortSuccessor(&tmp);
  if (tmp.size() < user_key.size() &&
      user_comparator_->Compare(user_key, tmp) < 0) {
    PutFixed64(&tmp,
               PackSequenceAndType(kMaxSequenceNumber, kValueTypeForSeek));
    assert(Compare(*key, tmp) < 0);
    key->swap(tmp);
  }
}

// ---------------------------------------------------------------- keys

std::string InternalKey::DebugString() const {
  ParsedInternalKey parsed;
  if (ParseInternalKey(rep_, &parsed).ok()) return parsed.DebugString();
  return "(bad)" + Slice(rep_).ToPrintable(true);
}

LookupKey::LookupKey(const Slice& user_key, SequenceNumber sequence) {
  const size_t usize = user_key.size();
  const size_t internal_size = usize + kInternalKeyTrailerSize;
  assert(internal_size <= UINT32_MAX);
  const size_t needed = internal_size + kMaxVarint32Length;
  char* dst = needed <= sizeof(space_) ? space_ : new char[needed];
  start_ = dst;
  dst = EncodeVarint32(dst, static_cast<uint32_t>(internal_size));
  kstart_ = dst;
  if (usize > 0) std::memcpy(dst, user_key.data(), usize);
  dst += usize;
  EncodeFixed64(dst, PackSequenceAndType(sequence, kValueTypeForSeek));
  dst += kInternalKeyTrailerSize;
  end_ = dst;
}

LookupKey::~LookupKey() {
  if (start_ != space_) delete[] start_;
}

// ---------------------------------------------------------------- table view

Slice InternalKeyFormat::UserKey(const Slice& key) const {
  return key.size() >= kInternalKeyTrailerSize ? ExtractUserKey(key) : key;
}

uint64_t InternalKeyFormat::Sequence(const Slice& key) const {
  return key.size() >= kInternalKeyTrailerSize ? ExtractTrailer(key) >> 8 : 0;
}

bool InternalKeyFormat::IsDeletion(const Slice& key) const {
  return key.size() >= kInternalKeyTrailerSize &&
         (ExtractTrailer(key) & 0xff) == kTypeDeletion;
}

const InternalKeyFormat* InternalKeyFormat::Get() {
  static const InternalKeyFormat* const format = new InternalKeyFormat();
  return format;
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/db_iter.h"

#include <memory>
#include <string>

#include "db/value_compression.h"
#include "util/coding.h"
#include "util/key_buffer.h"
#include "util/random.h"

namespace cascadedb {

namespace {

// Internal entries of one user key come newest first. Moving forward, the
// internal iterator sits ON the entry the user sees (key() and value() read
// through). Moving backward, it sits just BEFORE every entry of the current
// user key, whose key and value are then copied into saved_key_ and
// saved_value_ (the entries are visited oldest first, so the newest visible
// one is only known once the previous user key is reached).
//
// A forward scan copies each user key it passes into saved_key_, to hide
// the key's older entries that follow; saved_key_ is a KeyBuffer, so that
// copy is one inline memcpy, and user keys under the bytewise comparator
// are compared inline (as ParseInternalKey decodes).
class DBIter : public Iterator {
 public:
  DBIter(const Comparator* ucmp, Iterator* iter, SequenceNumber sequence,
         ReadSampler* sampler, uint32_t seed)
      : ucmp_(ucmp),
        bytewise_(ucmp == BytewiseComparator()),
        iter_(iter),
        sequence_(sequence),
        sampler_(sampler),
        rnd_(seed),
        bytes_until_sample_(SamplePeriod()) {}

  bool Valid() const override { return valid_; }

  Slice key() const override {
    assert(valid_);
    return direction_ == kForward ? ExtractUserKey(iter_->key())
                                  : saved_key_.slice();
  }

  Slice value() const override {
    assert(valid_);
    if (direction_ != kForward) return Slice(saved_value_);
    if (value_uncompressed_) return Slice(uncompressed_value_);
    // A sampling iterator fetched the value already, for its size.
    return sampler_ != nullptr ? sampled_value_ : iter_->value();
  }

  Status status() const override {
    return status_.ok() ? iter_->status() : status_;
  }

  void SeekToFirst() override {
    direction_ = kForward;
    ClearSaved();
    iter_->SeekToFirst();
    FindNextUserEntry(false);
  }

  void SeekToLast() override {
    direction_ = kReverse;
    ClearSaved();
    iter_->SeekToLast();
    FindPrevUserEntry();
  }

  void Seek(const Slice& target) override {
    direction_ = kForward;
    ClearSaved();
    seek_key_.clear();
    AppendInternalKey(&seek_key_,
                      ParsedInternalKey(target, sequence_, kValueTypeForSeek));
    iter_->Seek(seek_key_);
    FindNextUserEntry(false);
  }

  void SeekForPrev(const Slice& target) override {
    direction_ = kReverse;
    ClearSaved();
    // (target, 0, kTypeDeletion) is the last internal key of user key
    // target, so this lands on the last entry with a user key <= target.
    seek_key_.clear();
    AppendInternalKey(&seek_key_, ParsedInternalKey(target, 0, kTypeDeletion));
    iter_->SeekForPrev(seek_key_);
    FindPrevUserEntry();
  }

  void Next() override {
    assert(valid_);
    if (direction_ == kReverse) {
      // iter_ is just before the entries of saved_key_ (or off the start).
      direction_ = kForward;
      if (iter_->Valid()) {
        iter_->Next();
      } else {
        iter_->SeekToFirst();
      }
    } else {
      saved_key_.Assign(ExtractUserKey(iter_->key()));
      iter_->Next();
    }
    // Skip the remaining (older) entries of the current user key.
    FindNextUserEntry(true);
  }

  void Prev() override {
    assert(valid_);
    if (direction_ == kForward) {
      // Step back over every entry of the current user key.
      saved_key_.Assign(ExtractUserKey(iter_->key()));
      for (;;) {
        iter_->Prev();
        if (!iter_->Valid()) {
          valid_ = false;
          ClearSaved();
          return;
        }
        if (CompareUser(ExtractUserKey(iter_->key()), saved_key_.slice()) < 0) {
          break;
        }
      }
      direction_ = kReverse;
    }
    FindPrevUserEntry();
  }

 private:
  enum Direction { kForward, kReverse };

  // A random period with mean kReadBytesPeriod, so iterators reading in
  // step do not all sample the same keys.
  int64_t SamplePeriod() {
    return rnd_.Uniform(2 * static_cast<int>(ReadSampler::kReadBytesPeriod));
  }

  void MaybeSample() {
    const Slice key = iter_->key();
    sampled_value_ = iter_->value();
    bytes_until_sample_ -=
        static_cast<int64_t>(key.size() + sampled_value_.size());
    while (bytes_until_sample_ < 0) {
      bytes_until_sample_ += SamplePeriod();
      sampler_->RecordReadSample(key);
    }
  }

  void ClearSaved() {
    saved_key_.clear();
    saved_value_.clear();
  }

  int CompareUser(const Slice& a, const Slice& b) const {
    return bytewise_ ? CompareSlices(a, b) : ucmp_->Compare(a, b);
  }

  // Parses iter_->key(); on a malformed key records the error and makes the
  // iterator invalid.
  bool ParseCurrent(ParsedInternalKey* ikey) {
    if (sampler_ != nullptr) MaybeSample();
    Status s = ParseInternalKey(iter_->key(), ikey);
    if (!s.ok()) {
      status_ = s;
      valid_ = false;
      ClearSaved();
      return false;
    }
    return true;
  }

  // Moves forward from iter_'s position to the first visible, live user
  // entry. With skipping, entries whose user key is <= saved_key_ are
  // hidden (they are older versions of a key already returned or deleted).
  void FindNextUserEntry(bool skipping) {
    while (iter_->Valid()) {
      ParsedInternalKey ikey;
      if (!ParseCurrent(&ikey)) return;
      if (ikey.sequence <= sequence_) {
        if (ikey.type == kTypeDeletion) {
          saved_key_.Assign(ikey.user_key);
          skipping = true;
        } else if (!skipping ||
                   CompareUser(ikey.user_key, saved_key_.slice()) > 0) {
          saved_key_.clear();
          value_uncompressed_ = ikey.type == kTypeValueCompressed;
          valid_ =
              !value_uncompressed_ ||
              Uncompress(ikey.user_key, iter_->value(), &uncompressed_value_);
          return;
        }
      }
      iter_->Next();
    }
    valid_ = false;
    saved_key_.clear();
  }

  // Moves backward from iter_'s position to the previous live user key,
  // leaving its newest visible version in saved_key_/saved_value_.
  void FindPrevUserEntry() {
    ValueType value_type = kTypeDeletion;
    while (iter_->Valid()) {
      ParsedInternalKey ikey;
      if (!ParseCurrent(&ikey)) return;
      if (ikey.sequence <= sequence_) {
        if (value_type != kTypeDeletion &&
            CompareUser(ikey.user_key, saved_key_.slice()) < 0) {
          break;  // saved_key_ has a live newest version: that is the entry
        }
        value_type = ikey.type;
        if (value_type == kTypeDeletion) {
          ClearSaved();
        } else {
          saved_key_.Assign(ikey.user_key);
          Slice v = iter_->value();
          saved_value_.assign(v.data(), v.size());
        }
      }
      iter_->Prev();
    }
    if (value_type == kTypeDeletion) {
      valid_ = false;
      ClearSaved();
      direction_ = kForward;
    } else if (value_type == kTypeValueCompressed) {
      // Only the newest visible version is uncompressed.
      valid_ = Uncompress(saved_key_.slice(), Slice(saved_value_),
                          &uncompressed_value_);
      if (valid_) saved_value_.swap(uncompressed_value_);
    } else {
      valid_ = true;
    }
  }

  // Uncompresses user_key's value, compressed on its own, into *out; on
  // damage records the error (naming the key) and returns false.
  bool Uncompress(const Slice& user_key, const Slice& stored,
                  std::string* out) {
    Status s = UncompressValue(stored, out);
    if (s.ok()) return true;
    status_ = s.WithContext("value of '" + user_key.ToPrintable() + "'");
    ClearSaved();
    return false;
  }

  const Comparator* const ucmp_;
  const bool bytewise_;  // ucmp_ is BytewiseComparator()
  const std::unique_ptr<Iterator> iter_;
  const SequenceNumber sequence_;
  Status status_;
  KeyBuffer saved_key_;
  std::string saved_value_;
  // Moving forward: the current entry's value was compressed on its own,
  // and uncompressed_value_ holds it uncompressed.
  bool value_uncompressed_ = false;
  std::string uncompressed_value_;
  std::string seek_key_;  // a seek's internal-key target
  Direction direction_ = kForward;
  bool valid_ = false;
  ReadSampler* const sampler_;
  // With a sampler: iter_->value() at the entry ParseCurrent last read,
  // which in the forward direction is the current one.
  Slice sampled_value_;
  Random rnd_;
  int64_t bytes_until_sample_;
};

}  // namespace

Iterator* NewDBIterator(const Comparator* user_comparator,
                        Iterator* internal_iter, SequenceNumber sequence,
                        ReadSampler* sampler, uint32_t seed) {
  return new DBIter(user_comparator, internal_iter, sequence, sampler, seed);
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// ObsoleteEntryFilter: decides, for a stream of internal entries in
// internal-key order (user key ascending, newest first), which entries no
// reader can ever see again, so flushes and compactions can drop them.
//
// The live snapshots cut the sequence space into stripes: stripe i holds the
// sequences in (snapshot[i-1], snapshot[i]], and the last stripe everything
// newer than the newest snapshot. A reader at any snapshot sees, of each
// user key, only the newest entry of some stripe; so an entry with a newer
// entry of the same user key in its own stripe is hidden from everyone and
// is dropped. A deletion is dropped too when every snapshot sees it (it is
// in the oldest stripe) and no deeper level can hold the key (the caller
// says so), because then there is nothing left for it to hide.
//
// Thread safety: not thread-safe (one job, one thread).

#ifndef CASCADEDB_DB_OBSOLETE_ENTRY_FILTER_H_
#define CASCADEDB_DB_OBSOLETE_ENTRY_FILTER_H_

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "cascadedb/comparator.h"
#include "db/dbformat.h"
#include "util/key_buffer.h"

namespace cascadedb {

class ObsoleteEntryFilter {
 public:
  // snapshots: the sequence numbers of the live snapshots, ascending.
  // user_comparator is borrowed.
  ObsoleteEntryFilter(const Comparator* user_comparator,
                      std::vector<SequenceNumber> snapshots)
      : ucmp_(user_comparator), snapshots_(std::move(snapshots)) {}

  // Returns true if the entry can be dropped. is_base_level(user_key)
  // tells whether no deeper level may hold user_key; it is only asked for
  // deletions, in ascending user-key order. If new_user_key is not null it
  // is set to whether this entry is the first of its user key (so a caller
  // cutting output files between user keys needs no comparison of its
  // own). REQUIRES: entries in internal-key order.
  template <typename BaseLevelFn>
  bool ShouldDrop(const ParsedInternalKey& ikey, BaseLevelFn&& is_base_level,
                  bool* new_user_key = nullptr) {
    const size_t stripe = StripeOf(ikey.sequence);
    const bool first = IsNewUserKey(ikey.user_key);
    if (new_user_key != nullptr) *new_user_key = first;
    if (first) {
      current_user_key_.Assign(ikey.user_key);
      has_current_ = true;
      last_stripe_ = stripe;
      return ikey.type == kTypeDeletion && stripe == 0 &&
             is_base_level(ikey.user_key);
    }
    if (stripe == last_stripe_) return true;  // hidden by a newer entry
    last_stripe_ = stripe;
    return ikey.type == kTypeDeletion && stripe == 0 &&
           is_base_level(ikey.user_key);
  }

  // True if an entry of user_key would be the first of its user key, i.e.
  // the last entry seen was of another one.
  bool IsNewUserKey(const Slice& user_key) const {
    return !has_current_ ||
           ucmp_->Compare(user_key, current_user_key_.slice()) != 0;
  }

  // Records an entry the caller kept without asking ShouldDrop (a copied
  // block's), as ShouldDrop would have seen it: the first entry of its
  // user key, at sequence. REQUIRES: IsNewUserKey(user_key), and keys in
  // order as for ShouldDrop.
  void NoteKept(const Slice& user_key, SequenceNumber sequence) {
    current_user_key_.Assign(user_key);
    has_current_ = true;
    last_stripe_ = StripeOf(sequence);
  }

  // For flushes: deletions are never dropped (deeper data may exist).
  bool ShouldDrop(const ParsedInternalKey& ikey) {
    return ShouldDrop(ikey, [](const Slice&) { return false; });
  }

 private:
  size_t StripeOf(SequenceNumber seq) const {
    return static_cast<size_t>(
        std::lower_bound(snapshots_.begin(), snapshots_.end(), seq) -
        snapshots_.begin());
  }

  const Comparator* const ucmp_;
  const std::vector<SequenceNumber> snapshots_;
  KeyBuffer current_user_key_;
  bool has_current_ = false;
  size_t last_stripe_ = 0;
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_OBSOLETE_ENTRY_FILTER_H_

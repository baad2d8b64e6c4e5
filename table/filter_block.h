// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The filter block: one filter per SST built by a FilterPolicy (normally the
// cache-local bloom of util/bloom.cc) over the table's USER keys. Its bytes
// are exactly what FilterPolicy::CreateFilter produced; the metaindex names
// the policy with the key "filter.<policy Name()>" (docs/format/sst.md,
// "Filter block"), so a reader with another policy ignores it.
//
// Thread safety: FilterBlockBuilder is not thread-safe; FilterBlockReader is
// thread-safe (immutable; the policy must be thread-safe).

#ifndef CASCADEDB_TABLE_FILTER_BLOCK_H_
#define CASCADEDB_TABLE_FILTER_BLOCK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cascadedb/filter_policy.h"
#include "cascadedb/slice.h"
#include "util/key_buffer.h"
#include "util/key_hash_filter_policy.h"

namespace cascadedb {

// Metaindex key prefix of the filter block: "filter." + policy->Name().
extern const char kFilterBlockPrefix[];

class FilterBlockBuilder {
 public:
  // policy is borrowed and must outlive the builder. REQUIRES: policy != null.
  explicit FilterBlockBuilder(const FilterPolicy* policy);
  FilterBlockBuilder(const FilterBlockBuilder&) = delete;
  FilterBlockBuilder& operator=(const FilterBlockBuilder&) = delete;

  // Adds a user key. A key equal to the previous one is skipped. A policy
  // that builds from key hashes (the built-in bloom) gets the key's hash
  // now; any other policy gets a copy of the key at Finish.
  void AddKey(const Slice& user_key);

  // Number of distinct keys added so far (consecutive duplicates skipped).
  size_t num_keys() const { return num_keys_; }

  // Builds the filter over every key added and returns its bytes, valid
  // until the builder is destroyed; frees the hashes or copied keys.
  // REQUIRES: called once.
  Slice Finish();

 private:
  const FilterPolicy* const policy_;
  // policy_ if it builds from key hashes, else nullptr.
  const KeyHashFilterPolicy* const hashed_;
  // With hashed_: the previous key and every key's hash.
  KeyBuffer last_key_;
  std::vector<uint64_t> hashes_;
  // Without: every key, concatenated, and where each starts.
  std::string keys_;
  std::vector<size_t> starts_;
  size_t num_keys_ = 0;  // keys added (kept after Finish)
  std::string result_;   // the filter, after Finish
};

class FilterBlockReader {
 public:
  // Borrows policy and contents; both must outlive the reader. A null policy
  // or empty contents make every key "may match".
  FilterBlockReader(const FilterPolicy* policy, const Slice& contents);

  // False only if user_key was certainly not added to the filter.
  bool KeyMayMatch(const Slice& user_key) const;

  // Starts loading the filter's bytes that KeyMayMatch(user_key) reads
  // (for the built-in bloom, one cache line; other policies: nothing).
  void Prefetch(const Slice& user_key) const;

 private:
  const FilterPolicy* const policy_;
  const KeyHashFilterPolicy* const hashed_;  // policy_, if it is one
  const Slice contents_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_FILTER_BLOCK_H_

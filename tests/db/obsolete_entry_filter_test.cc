// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/obsolete_entry_filter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cascadedb/comparator.h"
#include "db/dbformat.h"

namespace cascadedb {
namespace {

// Runs entries (in internal-key order; their user keys are literals) through a
// filter; returns one character per entry: 'k' kept or 'd' dropped, upper case
// when the entry was reported as the first of its user key.
std::string Filter(const std::vector<ParsedInternalKey>& entries,
                   std::vector<SequenceNumber> snapshots, bool base_level) {
  ObsoleteEntryFilter filter(BytewiseComparator(), std::move(snapshots));
  std::string out;
  for (const ParsedInternalKey& ikey : entries) {
    bool first = false;
    const bool drop = filter.ShouldDrop(
        ikey, [base_level](const Slice&) { return base_level; }, &first);
    const char c = drop ? 'd' : 'k';
    out += first ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return out;
}

TEST(ObsoleteEntryFilterTest, OlderVersionsWithoutSnapshotsAreDropped) {
  EXPECT_EQ("KddKKd", Filter({{"a", 9, kTypeValue},
                              {"a", 5, kTypeValue},
                              {"a", 1, kTypeDeletion},
                              {"b", 4, kTypeValue},
                              {"c", 8, kTypeValue},
                              {"c", 2, kTypeValue}},
                             {}, /*base_level=*/false));
}

TEST(ObsoleteEntryFilterTest, EachSnapshotKeepsTheVersionItSees) {
  // Snapshots 3 and 6 cut the sequences into (..3], (3..6], (6..].
  EXPECT_EQ("KdkdkK", Filter({{"a", 9, kTypeValue},
                              {"a", 8, kTypeValue},  // hidden by 9
                              {"a", 5, kTypeValue},  // seen by snapshot 6
                              {"a", 4, kTypeValue},  // hidden by 5
                              {"a", 2, kTypeValue},  // seen by snapshot 3
                              {"b", 1, kTypeValue}},
                             {3, 6}, /*base_level=*/false));
}

TEST(ObsoleteEntryFilterTest, DeletionsGoOnlyWhereNothingDeeperHoldsTheKey) {
  const std::vector<ParsedInternalKey> entries = {
      {"a", 7, kTypeDeletion}, {"a", 3, kTypeValue}, {"b", 2, kTypeDeletion}};
  EXPECT_EQ("KdK", Filter(entries, {}, /*base_level=*/false));
  EXPECT_EQ("DdD", Filter(entries, {}, /*base_level=*/true));
  // A snapshot older than the deletion still sees the value under it.
  EXPECT_EQ("KkD", Filter(entries, {5}, /*base_level=*/true));
}

// An entry the caller kept without asking (a copied block's) counts as
// the newest of its user key: an older version after it in the same stripe
// is dropped, one in an older stripe kept.
TEST(ObsoleteEntryFilterTest, NoteKeptActsAsAKeptFirstEntry) {
  ObsoleteEntryFilter filter(BytewiseComparator(), {3});
  auto never = [](const Slice&) { return false; };
  EXPECT_TRUE(filter.IsNewUserKey("a"));
  filter.NoteKept("a", 9);
  EXPECT_FALSE(filter.IsNewUserKey("a"));
  EXPECT_TRUE(filter.IsNewUserKey("b"));
  bool first = true;
  EXPECT_TRUE(filter.ShouldDrop({"a", 5, kTypeValue}, never, &first));
  EXPECT_FALSE(first);
  EXPECT_FALSE(filter.ShouldDrop({"a", 2, kTypeValue}, never, &first));
  filter.NoteKept("b", 2);
  EXPECT_TRUE(filter.ShouldDrop({"b", 1, kTypeValue}, never, &first));
  EXPECT_FALSE(filter.ShouldDrop({"c", 1, kTypeValue}, never, &first));
  EXPECT_TRUE(first);
}

}  // namespace
}  // namespace cascadedb

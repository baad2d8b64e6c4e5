// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/merging_iterator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"
#include "cascadedb/statistics.h"
#include "tests/table/iterator_test_util.h"
#include "tests/testutil/test_util.h"
#include "util/random.h"

namespace cascadedb {
namespace {

using test::Entry;
using test::VectorIterator;

Iterator* Child(std::vector<Entry> entries) {
  return new VectorIterator(BytewiseComparator(), std::move(entries));
}

std::vector<Entry> ScanForward(Iterator* iter) {
  std::vector<Entry> out;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    out.emplace_back(iter->key().ToString(), iter->value().ToString());
  }
  return out;
}

std::vector<Entry> ScanBackward(Iterator* iter) {
  std::vector<Entry> out;
  for (iter->SeekToLast(); iter->Valid(); iter->Prev()) {
    out.emplace_back(iter->key().ToString(), iter->value().ToString());
  }
  return out;
}

TEST(MergingIteratorTest, NoChildrenIsEmpty) {
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), nullptr, 0));
  iter->SeekToFirst();
  EXPECT_FALSE(iter->Valid());
  EXPECT_OK(iter->status());
}

TEST(MergingIteratorTest, OneChildIsReturnedItself) {
  Iterator* child = Child({{"a", "1"}});
  Iterator* children[] = {child};
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 1));
  EXPECT_EQ(child, iter.get());
}

TEST(MergingIteratorTest, InterleavesChildrenInOrder) {
  Iterator* children[] = {Child({{"a", "1"}, {"d", "4"}}), Child({}),
                          Child({{"b", "2"}, {"e", "5"}, {"f", "6"}}),
                          Child({{"c", "3"}})};
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 4));
  std::vector<Entry> expected = {{"a", "1"}, {"b", "2"}, {"c", "3"},
                                 {"d", "4"}, {"e", "5"}, {"f", "6"}};
  EXPECT_EQ(expected, ScanForward(iter.get()));
  std::reverse(expected.begin(), expected.end());
  EXPECT_EQ(expected, ScanBackward(iter.get()));
  EXPECT_OK(iter->status());
}

// A scan compares the top child's next entry with the runner-up only,
// while one child keeps the top; runs of every length hand the top over
// between three, four and five children, one of which ends early.
TEST(MergingIteratorTest, RunsOfOneChildHandTheTopOverInOrder) {
  for (int n = 3; n <= 5; ++n) {
    std::vector<std::vector<Entry>> parts(n);
    std::vector<Entry> expected;
    int key = 0;
    int child = 0;
    for (int run = 1; run <= 12; ++run) {
      for (int i = 0; i < run; ++i, ++key) {
        char k[16];
        std::snprintf(k, sizeof(k), "k%04d", key);
        expected.emplace_back(k, std::to_string(child));
        parts[child].push_back(expected.back());
      }
      // The next run goes to a child other than the one after this one,
      // so the runner-up changes as well as the top.
      child = (child + 1 + run % 2) % n;
      if (run == 8) parts[n - 1].clear();  // a child that ends early
    }
    // Drop what the cleared child would have returned.
    std::vector<Entry> kept;
    for (const Entry& e : expected) {
      for (const Entry& p : parts[std::stoi(e.second)]) {
        if (p == e) kept.push_back(e);
      }
    }
    std::vector<Iterator*> children;
    for (const auto& part : parts) children.push_back(Child(part));
    std::unique_ptr<Iterator> iter(
        NewMergingIterator(BytewiseComparator(), children.data(), n));
    EXPECT_EQ(kept, ScanForward(iter.get())) << n << " children";
    std::reverse(kept.begin(), kept.end());
    EXPECT_EQ(kept, ScanBackward(iter.get())) << n << " children";
    EXPECT_OK(iter->status());
  }
}

TEST(MergingIteratorTest, SeekAndSeekForPrevPickTheClosestChild) {
  Iterator* children[] = {Child({{"a", "1"}, {"e", "5"}}),
                          Child({{"c", "3"}, {"g", "7"}})};
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 2));
  iter->Seek("d");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("e", iter->key().ToString());
  iter->SeekForPrev("d");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("c", iter->key().ToString());
  iter->SeekForPrev("0");
  EXPECT_FALSE(iter->Valid());
  iter->Seek("h");
  EXPECT_FALSE(iter->Valid());
  iter->SeekForPrev("h");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("g", iter->key().ToString());
}

TEST(MergingIteratorTest, DirectionChangesRepositionOtherChildren) {
  Iterator* children[] = {Child({{"a", ""}, {"c", ""}, {"e", ""}}),
                          Child({{"b", ""}, {"d", ""}, {"f", ""}})};
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 2));
  iter->Seek("c");
  ASSERT_EQ("c", iter->key().ToString());
  iter->Prev();  // child 1 was at "d"; must come back to "b"
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("b", iter->key().ToString());
  iter->Next();  // child 0 was at "a"; must be moved past "b"
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("c", iter->key().ToString());
  iter->Next();
  EXPECT_EQ("d", iter->key().ToString());
  iter->Prev();
  EXPECT_EQ("c", iter->key().ToString());
  iter->Prev();
  EXPECT_EQ("b", iter->key().ToString());
  iter->Prev();
  EXPECT_EQ("a", iter->key().ToString());
  iter->Prev();
  EXPECT_FALSE(iter->Valid());
}

TEST(MergingIteratorTest, EqualKeysAreOrderedByChildIndexBothWays) {
  Iterator* children[] = {Child({{"k", "0"}, {"m", "0"}}), Child({{"k", "1"}}),
                          Child({{"j", "2"}, {"k", "2"}})};
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 3));
  std::vector<Entry> expected = {
      {"j", "2"}, {"k", "0"}, {"k", "1"}, {"k", "2"}, {"m", "0"}};
  EXPECT_EQ(expected, ScanForward(iter.get()));
  std::reverse(expected.begin(), expected.end());
  EXPECT_EQ(expected, ScanBackward(iter.get()));

  // Turning around in the middle of a run of equal keys neither skips nor
  // repeats an entry.
  iter->Seek("k");
  ASSERT_EQ("0", iter->value().ToString());
  iter->Next();
  ASSERT_EQ("1", iter->value().ToString());
  iter->Prev();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("0", iter->value().ToString());
  iter->Next();
  iter->Next();
  ASSERT_EQ("2", iter->value().ToString());
  iter->Prev();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("1", iter->value().ToString());
  iter->Next();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("2", iter->value().ToString());
}

TEST(MergingIteratorTest, MatchesMapModelUnderRandomDirectionChanges) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  for (int round = 0; round < 20; ++round) {
    const int n = 1 + static_cast<int>(rnd.Uniform(8));
    std::map<std::string, std::string> model;
    std::vector<std::map<std::string, std::string>> parts(n);
    for (int i = 0; i < 300; ++i) {
      std::string key = "key" + std::to_string(rnd.Uniform(1000));
      if (model.count(key) != 0) continue;  // distinct across children
      std::string value = "v" + std::to_string(rnd.Next());
      model[key] = value;
      // Skew: some children get most of the keys, some stay empty.
      parts[rnd.Skewed(3) % n][key] = value;
    }
    std::vector<Iterator*> children;
    for (const auto& part : parts) {
      children.push_back(Child(std::vector<Entry>(part.begin(), part.end())));
    }
    std::unique_ptr<Iterator> iter(
        NewMergingIterator(BytewiseComparator(), children.data(), n));
    const std::vector<Entry> entries(model.begin(), model.end());
    test::CheckAgainstModel(
        iter.get(), BytewiseComparator(), entries, &rnd, 2000, [](Random* r) {
          std::string t = "key" + std::to_string(r->Uniform(1100));
          if (r->OneIn(4)) t += "!";
          return t;
        });
    if (HasFatalFailure()) {
      ADD_FAILURE() << "round " << round << " with " << n << " children";
      return;
    }
  }
}

TEST(MergingIteratorTest, ChildErrorMakesIteratorInvalid) {
  Iterator* children[] = {
      Child({{"a", "1"}, {"c", "3"}}),
      new VectorIterator(BytewiseComparator(), {{"b", "2"}},
                         Status::Corruption("bad block")),
  };
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 2));
  iter->SeekToFirst();
  EXPECT_FALSE(iter->Valid());
  EXPECT_TRUE(iter->status().IsCorruption());
  iter->SeekForPrev("c");
  EXPECT_FALSE(iter->Valid());
  EXPECT_TRUE(iter->status().IsCorruption());
}

// A child that fails the first time it is moved by Next or Prev.
class FailOnMoveIterator : public VectorIterator {
 public:
  using VectorIterator::VectorIterator;
  bool Valid() const override { return !failed_ && VectorIterator::Valid(); }
  void Next() override { failed_ = true; }
  void Prev() override { failed_ = true; }
  void Seek(const Slice& target) override {
    failed_ = false;
    VectorIterator::Seek(target);
  }
  void SeekToFirst() override {
    failed_ = false;
    VectorIterator::SeekToFirst();
  }
  Status status() const override {
    return failed_ ? Status::IOError("read failed") : Status::OK();
  }

 private:
  bool failed_ = false;
};

TEST(MergingIteratorTest, ChildErrorDuringNextStopsTheScan) {
  Iterator* children[] = {
      Child({{"a", ""}, {"c", ""}, {"e", ""}}),
      new FailOnMoveIterator(BytewiseComparator(),
                             std::vector<Entry>{{"b", ""}, {"d", ""}}),
  };
  std::unique_ptr<Iterator> iter(
      NewMergingIterator(BytewiseComparator(), children, 2));
  std::vector<std::string> keys;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    keys.push_back(iter->key().ToString());
  }
  // "c" and "e" must not be returned as if "d" did not exist.
  EXPECT_EQ((std::vector<std::string>{"a", "b"}), keys);
  EXPECT_TRUE(iter->status().IsIOError());
  iter->Seek("a");  // a new seek starts over
  EXPECT_TRUE(iter->Valid());
  EXPECT_OK(iter->status());
}

// ---- deferred seeks
//
// Keys are a 4-byte user key ("k042") and one version byte, 255 - version,
// so the newest version of a user key sorts first; a group is a user key.
// Children are newest first: a user key in several children has its
// newest versions in the earliest one.

std::string VersionedKey(int user, int version) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "k%03d", user);
  return std::string(buf) + static_cast<char>(255 - version);
}

bool SameUserKey(const Slice& a, const Slice& b) {
  return a.size() == 5 && b.size() == 5 &&
         Slice(a.data(), 4) == Slice(b.data(), 4);
}

// A probe over a child's user keys: exact, plus false positives for the
// user keys in extra (a Bloom filter's mistakes). Counts its calls, and
// its prefetches if given a counter.
class SetProbe : public SeekProbe {
 public:
  SetProbe(std::set<std::string> users, int* calls, int* prefetches = nullptr)
      : users_(std::move(users)), calls_(calls), prefetches_(prefetches) {}
  bool MayContain(const Slice& target) const override {
    ++*calls_;
    return users_.count(std::string(target.data(), 4)) != 0;
  }
  void Prefetch(const Slice& /*target*/) const override {
    if (prefetches_ != nullptr) ++*prefetches_;
  }

 private:
  const std::set<std::string> users_;
  int* const calls_;
  int* const prefetches_;
};

// A child that counts its seeks.
class CountingIterator : public VectorIterator {
 public:
  CountingIterator(std::vector<Entry> entries, int* seeks,
                   Status error = Status::OK())
      : VectorIterator(BytewiseComparator(), std::move(entries),
                       std::move(error)),
        seeks_(seeks) {}
  void Seek(const Slice& target) override {
    ++*seeks_;
    VectorIterator::Seek(target);
  }

 private:
  int* const seeks_;
};

MergingIteratorOptions DeferredSeeks() {
  MergingIteratorOptions options;
  options.same_group = SameUserKey;
  return options;
}

TEST(MergingIteratorTest, DeferredSeekPositionsOnlyTheChildrenNeeded) {
  // child 0: k001 v3; child 1: k001 v2, k002 v2; child 2: k001 v1, k003 v1.
  int seeks[3] = {0, 0, 0};
  int probe_calls = 0;
  Iterator* children[] = {
      new CountingIterator({{VersionedKey(1, 3), "a3"}}, &seeks[0]),
      new CountingIterator(
          {{VersionedKey(1, 2), "a2"}, {VersionedKey(2, 2), "b2"}}, &seeks[1]),
      new CountingIterator(
          {{VersionedKey(1, 1), "a1"}, {VersionedKey(3, 1), "c1"}}, &seeks[2]),
  };
  MergingIteratorOptions options = DeferredSeeks();
  options.probes.push_back(
      std::make_unique<SetProbe>(std::set<std::string>{"k001"}, &probe_calls));
  options.probes.push_back(std::make_unique<SetProbe>(
      std::set<std::string>{"k001", "k002"}, &probe_calls));
  options.probes.push_back(nullptr);  // no filter: positioned when reached
  std::unique_ptr<Iterator> iter(NewMergingIterator(
      BytewiseComparator(), children, 3, std::move(options)));

  // k002 is only in child 1: child 0's probe rules it out, child 2 is
  // older than the child that holds it.
  iter->Seek(VersionedKey(2, 9));
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("b2", iter->value().ToString());
  EXPECT_EQ(0, seeks[0]);
  EXPECT_EQ(1, seeks[1]);
  EXPECT_EQ(0, seeks[2]);
  EXPECT_EQ(2, probe_calls);  // child 2 was never probed
  // Moving on positions the deferred children first.
  iter->Next();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("c1", iter->value().ToString());
  EXPECT_EQ(1, seeks[0]);
  EXPECT_EQ(1, seeks[2]);
  iter->Next();
  EXPECT_FALSE(iter->Valid());

  // k001's newest version is in child 0; the older ones follow on Next.
  iter->Seek(VersionedKey(1, 9));
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("a3", iter->value().ToString());
  EXPECT_EQ(2, seeks[0]);
  EXPECT_EQ(1, seeks[1]);
  iter->Next();
  EXPECT_EQ("a2", iter->value().ToString());
  iter->Next();
  EXPECT_EQ("a1", iter->value().ToString());

  // Prev after a deferred seek repositions every child.
  iter->Seek(VersionedKey(2, 9));
  EXPECT_EQ("b2", iter->value().ToString());
  iter->Prev();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("a1", iter->value().ToString());

  // An absent group: every child is positioned before Seek returns.
  iter->Seek(VersionedKey(0, 9));
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("a3", iter->value().ToString());
  iter->Seek(VersionedKey(2, 1));  // past the only k002 version
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("c1", iter->value().ToString());
}

TEST(MergingIteratorTest, StatisticsCountChildSeeksAndSeeksSaved) {
  // child 0: k001 v3; child 1: k002 v2; child 2: k003 v1.
  int seeks[3] = {0, 0, 0};
  int probe_calls = 0;
  Iterator* children[] = {
      new CountingIterator({{VersionedKey(1, 3), "a3"}}, &seeks[0]),
      new CountingIterator({{VersionedKey(2, 2), "b2"}}, &seeks[1]),
      new CountingIterator({{VersionedKey(3, 1), "c1"}}, &seeks[2]),
  };
  std::shared_ptr<Statistics> stats = CreateDBStatistics();
  MergingIteratorOptions options = DeferredSeeks();
  options.statistics = stats.get();
  options.probes.push_back(
      std::make_unique<SetProbe>(std::set<std::string>{"k001"}, &probe_calls));
  std::unique_ptr<Iterator> iter(NewMergingIterator(
      BytewiseComparator(), children, 3, std::move(options)));
  auto seeks_ticked = [&] { return stats->getTickerCount(kSeekChildSeeks); };
  auto saved_ticked = [&] {
    return stats->getTickerCount(kSeekChildSeeksSaved);
  };

  // k002: child 0 ruled out, child 2 older than the hit; both deferred.
  iter->Seek(VersionedKey(2, 9));
  EXPECT_EQ(1u, seeks_ticked());
  EXPECT_EQ(0u, saved_ticked());  // not yet known to be saved
  // The next seek ends that deferral unpaid-for: two seeks saved.
  iter->Seek(VersionedKey(2, 9));
  EXPECT_EQ(2u, seeks_ticked());
  EXPECT_EQ(2u, saved_ticked());
  // Next positions the deferred children after all.
  iter->Next();
  EXPECT_EQ("c1", iter->value().ToString());
  EXPECT_EQ(4u, seeks_ticked());
  EXPECT_EQ(2u, saved_ticked());
  // k001 is in child 0: the other two are deferred, and saved when the
  // iterator goes.
  iter->Seek(VersionedKey(1, 9));
  EXPECT_EQ("a3", iter->value().ToString());
  EXPECT_EQ(5u, seeks_ticked());
  iter.reset();
  EXPECT_EQ(4u, saved_ticked());
  // Every child seek was counted.
  EXPECT_EQ(seeks_ticked(),
            static_cast<uint64_t>(seeks[0] + seeks[1] + seeks[2]));
}

TEST(MergingIteratorTest, TheOldestChildIsPositionedWithoutAProbe) {
  // Reached with nothing found, the last child is positioned whatever its
  // filter would say, so it is not asked.
  int seeks[2] = {0, 0};
  int probe_calls[2] = {0, 0};
  Iterator* children[] = {
      new CountingIterator({{VersionedKey(1, 2), "a2"}}, &seeks[0]),
      new CountingIterator(
          {{VersionedKey(2, 1), "b1"}, {VersionedKey(4, 1), "d1"}}, &seeks[1]),
  };
  MergingIteratorOptions options = DeferredSeeks();
  options.probes.push_back(std::make_unique<SetProbe>(
      std::set<std::string>{"k001"}, &probe_calls[0]));
  options.probes.push_back(std::make_unique<SetProbe>(
      std::set<std::string>{"k002", "k004"}, &probe_calls[1]));
  std::unique_ptr<Iterator> iter(NewMergingIterator(
      BytewiseComparator(), children, 2, std::move(options)));

  iter->Seek(VersionedKey(2, 9));  // only in the oldest child
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("b1", iter->value().ToString());
  EXPECT_EQ(1, probe_calls[0]);
  EXPECT_EQ(0, seeks[0]);  // ruled out by its probe
  EXPECT_EQ(1, seeks[1]);
  iter->Seek(VersionedKey(3, 9));  // in no child: both positioned
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("d1", iter->value().ToString());
  EXPECT_EQ(1, seeks[0]);
  EXPECT_EQ(2, seeks[1]);
  iter->Seek(VersionedKey(1, 9));  // in the newest: the oldest deferred
  EXPECT_EQ("a2", iter->value().ToString());
  EXPECT_EQ(2, seeks[1]);
  EXPECT_EQ(3, probe_calls[0]);
  EXPECT_EQ(0, probe_calls[1]);
  iter->Next();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("b1", iter->value().ToString());
}

TEST(MergingIteratorTest, DeferredChildErrorShowsAtTheNextMove) {
  int seeks[2] = {0, 0};
  Iterator* children[] = {
      new CountingIterator({{VersionedKey(1, 2), "a2"}}, &seeks[0]),
      new CountingIterator({{VersionedKey(2, 1), "b1"}}, &seeks[1],
                           Status::Corruption("bad block")),
  };
  int probe_calls = 0;
  MergingIteratorOptions options = DeferredSeeks();
  options.probes.push_back(nullptr);
  options.probes.push_back(
      std::make_unique<SetProbe>(std::set<std::string>{"k002"}, &probe_calls));
  std::unique_ptr<Iterator> iter(NewMergingIterator(
      BytewiseComparator(), children, 2, std::move(options)));
  iter->Seek(VersionedKey(1, 9));
  ASSERT_TRUE(iter->Valid());  // the damaged child was not needed yet
  EXPECT_EQ("a2", iter->value().ToString());
  EXPECT_EQ(0, seeks[1]);
  iter->Next();
  EXPECT_FALSE(iter->Valid());
  EXPECT_TRUE(iter->status().IsCorruption()) << iter->status().ToString();
  // Where the damaged child may hold the group, the Seek reports it.
  iter->Seek(VersionedKey(2, 9));
  EXPECT_FALSE(iter->Valid());
  EXPECT_TRUE(iter->status().IsCorruption()) << iter->status().ToString();
}

TEST(MergingIteratorTest, ProbesPauseWhileTheyGainNothing) {
  int seeks[2] = {0, 0};
  int probe_calls = 0;
  int prefetches = 0;
  Iterator* children[] = {
      new CountingIterator({{VersionedKey(2, 2), "b2"}}, &seeks[0]),
      new CountingIterator({{VersionedKey(4, 1), "d1"}}, &seeks[1]),
  };
  MergingIteratorOptions options = DeferredSeeks();
  options.probes.push_back(std::make_unique<SetProbe>(
      std::set<std::string>{"k002"}, &probe_calls, &prefetches));
  options.probes.push_back(std::make_unique<SetProbe>(
      std::set<std::string>{"k004"}, &probe_calls, &prefetches));
  std::unique_ptr<Iterator> iter(NewMergingIterator(
      BytewiseComparator(), children, 2, std::move(options)));
  for (int i = 0; i < 50; ++i) {
    iter->Seek(VersionedKey(3, 9));  // absent: lands on k004
    ASSERT_TRUE(iter->Valid());
    EXPECT_EQ("d1", iter->value().ToString());
  }
  // Probed until eight seeks in a row had missed, not on every seek (and
  // child 1, the oldest, never); prefetched exactly before those probes.
  EXPECT_EQ(8, probe_calls);
  EXPECT_EQ(8, prefetches);
  // A seek that finds its group (among the children positioned anyway)
  // turns probing back on.
  iter->Seek(VersionedKey(2, 9));
  EXPECT_EQ("b2", iter->value().ToString());
  const int before = probe_calls;
  seeks[1] = 0;
  iter->Seek(VersionedKey(2, 9));
  EXPECT_EQ("b2", iter->value().ToString());
  EXPECT_EQ(before + 1, probe_calls);  // child 0 probed, child 1 deferred
  EXPECT_EQ(0, seeks[1]);

  // Seeks each followed by Next position the deferred child anyway: the
  // probes pause after eight of them too.
  const int before_scans = probe_calls;
  for (int i = 0; i < 20; ++i) {
    iter->Seek(VersionedKey(2, 9));
    ASSERT_TRUE(iter->Valid());
    EXPECT_EQ("b2", iter->value().ToString());
    iter->Next();
    ASSERT_TRUE(iter->Valid());
    EXPECT_EQ("d1", iter->value().ToString());
  }
  EXPECT_EQ(before_scans + 8, probe_calls);
}

// Random children holding random versions of random user keys, newest
// first, with probes that have false positives or are missing: every
// mix of seeks, Next and Prev gives what a plain merge gives.
TEST(MergingIteratorTest, DeferredSeeksMatchThePlainMerge) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  for (int round = 0; round < 30; ++round) {
    const int n = 2 + static_cast<int>(rnd.Uniform(6));
    std::vector<std::vector<Entry>> parts(n);
    std::vector<std::set<std::string>> users(n);
    for (int user = 0; user < 60; ++user) {
      // Versions from newest (child 0 side) to oldest.
      int version = 200;
      for (int child = 0; child < n; ++child) {
        if (!rnd.OneIn(3)) continue;
        const int count = 1 + static_cast<int>(rnd.Uniform(2));
        for (int v = 0; v < count; ++v) {
          parts[child].emplace_back(VersionedKey(user, version),
                                    "v" + std::to_string(version));
          version -= 1 + static_cast<int>(rnd.Uniform(5));
        }
        users[child].insert(VersionedKey(user, 0).substr(0, 4));
      }
    }
    std::vector<Entry> model;
    std::vector<Iterator*> children;
    MergingIteratorOptions options = DeferredSeeks();
    int probe_calls = 0;
    bool any_probe = false;
    for (int child = 0; child < n; ++child) {
      std::sort(parts[child].begin(), parts[child].end());
      model.insert(model.end(), parts[child].begin(), parts[child].end());
      children.push_back(Child(parts[child]));
      if (rnd.OneIn(4)) {
        options.probes.push_back(nullptr);
        continue;
      }
      std::set<std::string> may = users[child];
      for (int user = 0; user < 60; ++user) {
        if (rnd.OneIn(10)) may.insert(VersionedKey(user, 0).substr(0, 4));
      }
      options.probes.push_back(
          std::make_unique<SetProbe>(std::move(may), &probe_calls));
      if (child + 1 < n) any_probe = true;  // the oldest is never asked
    }
    std::sort(model.begin(), model.end());
    std::unique_ptr<Iterator> iter(NewMergingIterator(
        BytewiseComparator(), children.data(), n, std::move(options)));
    test::CheckAgainstModel(
        iter.get(), BytewiseComparator(), model, &rnd, 3000, [](Random* r) {
          return VersionedKey(static_cast<int>(r->Uniform(62)),
                              static_cast<int>(r->Uniform(210)));
        });
    if (HasFatalFailure()) {
      ADD_FAILURE() << "round " << round << " with " << n << " children";
      return;
    }
    if (any_probe) {
      EXPECT_GT(probe_calls, 0);
    }
  }
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/skiplist.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "tests/testutil/test_util.h"
#include "util/arena.h"
#include "util/random.h"

namespace cascadedb {
namespace {

using Key = uint64_t;

struct KeyComparator {
  int operator()(const Key& a, const Key& b) const {
    return a < b ? -1 : (a > b ? +1 : 0);
  }
};

using List = SkipList<Key, KeyComparator>;

// The list's contents in iteration order.
std::vector<Key> Scan(const List& list) {
  std::vector<Key> keys;
  List::Iterator iter(&list);
  for (iter.SeekToFirst(); iter.Valid(); iter.Next())
    keys.push_back(iter.key());
  return keys;
}

// Distinct random keys, in random order.
std::vector<Key> DistinctKeys(uint32_t seed, size_t n) {
  Random64 rnd(seed);
  std::unordered_set<Key> seen;
  std::vector<Key> keys;
  while (keys.size() < n) {
    const Key k = rnd.Next();
    if (seen.insert(k).second) keys.push_back(k);
  }
  return keys;
}

// Spins (yielding the CPU) until counter reaches n: a start barrier for
// threads, without sleeping.
void WaitFor(const std::atomic<int>& counter, int n) {
  while (counter.load(std::memory_order_acquire) < n) std::this_thread::yield();
}

TEST(SkipListTest, EmptyListHasNoEntries) {
  Arena arena;
  List list(KeyComparator(), &arena);
  EXPECT_FALSE(list.Contains(10));
  List::Iterator iter(&list);
  EXPECT_FALSE(iter.Valid());
  iter.SeekToFirst();
  EXPECT_FALSE(iter.Valid());
  iter.Seek(100);
  EXPECT_FALSE(iter.Valid());
  iter.SeekForPrev(100);
  EXPECT_FALSE(iter.Valid());
  iter.SeekToLast();
  EXPECT_FALSE(iter.Valid());
}

TEST(SkipListTest, InsertRejectsEqualKey) {
  Arena arena;
  List list(KeyComparator(), &arena);
  EXPECT_TRUE(list.Insert(7));
  EXPECT_FALSE(list.Insert(7));
  EXPECT_EQ(std::vector<Key>({7}), Scan(list));
}

TEST(SkipListTest, RandomOperationsMatchStdSet) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  Arena arena;
  List list(KeyComparator(), &arena);
  std::set<Key> model;
  constexpr int kKeySpace = 5000;
  for (int i = 0; i < 2000; i++) {
    const Key k = rnd.Uniform(kKeySpace);
    ASSERT_EQ(model.insert(k).second, list.Insert(k)) << "key " << k;
  }
  EXPECT_EQ(std::vector<Key>(model.begin(), model.end()), Scan(list));

  // Backward iteration.
  std::vector<Key> backward;
  List::Iterator iter(&list);
  for (iter.SeekToLast(); iter.Valid(); iter.Prev())
    backward.push_back(iter.key());
  EXPECT_EQ(std::vector<Key>(model.rbegin(), model.rend()), backward);

  for (int i = 0; i < 2000; i++) {
    const Key target = rnd.Uniform(kKeySpace + 10);
    EXPECT_EQ(model.count(target) == 1, list.Contains(target)) << target;

    // Seek: first >= target; then step both ways from there.
    auto lower = model.lower_bound(target);
    iter.Seek(target);
    if (lower == model.end()) {
      EXPECT_FALSE(iter.Valid()) << target;
    } else {
      ASSERT_TRUE(iter.Valid()) << target;
      EXPECT_EQ(*lower, iter.key());
      iter.Next();
      auto next = std::next(lower);
      EXPECT_EQ(next != model.end(), iter.Valid());
      if (next != model.end() && iter.Valid()) {
        EXPECT_EQ(*next, iter.key());
      }
      iter.Seek(target);
      iter.Prev();
      EXPECT_EQ(lower != model.begin(), iter.Valid());
      if (lower != model.begin() && iter.Valid()) {
        EXPECT_EQ(*std::prev(lower), iter.key());
      }
    }

    // SeekForPrev: last <= target.
    auto upper = model.upper_bound(target);
    iter.SeekForPrev(target);
    if (upper == model.begin()) {
      EXPECT_FALSE(iter.Valid()) << target;
    } else {
      ASSERT_TRUE(iter.Valid()) << target;
      EXPECT_EQ(*std::prev(upper), iter.key());
    }
  }

  iter.SeekToFirst();
  ASSERT_TRUE(iter.Valid());
  EXPECT_EQ(*model.begin(), iter.key());
  iter.SeekToLast();
  ASSERT_TRUE(iter.Valid());
  EXPECT_EQ(*model.rbegin(), iter.key());
}

// Keys that point at NUL-terminated strings, to use the node payload.
struct CStringComparator {
  int operator()(const char* a, const char* b) const {
    return std::strcmp(a, b);
  }
};

TEST(SkipListTest, ReservedPayloadHoldsTheKeyBytes) {
  Arena arena;
  SkipList<const char*, CStringComparator> list(CStringComparator(), &arena);
  const std::vector<std::string> words = {"pear", "apple", "fig", "banana"};
  for (const std::string& w : words) {
    auto r = list.Reserve(w.size() + 1);
    ASSERT_NE(nullptr, r.payload());
    EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(r.payload()) % 8);
    std::memcpy(r.payload(), w.c_str(), w.size() + 1);
    ASSERT_TRUE(list.Insert(r, r.payload()));
  }
  std::vector<std::string> seen;
  SkipList<const char*, CStringComparator>::Iterator iter(&list);
  for (iter.SeekToFirst(); iter.Valid(); iter.Next())
    seen.push_back(iter.key());
  EXPECT_EQ(std::vector<std::string>({"apple", "banana", "fig", "pear"}), seen);
}

TEST(SkipListTest, ReaderSeesOnlyValidKeysInOrderDuringInserts) {
  const uint32_t seed = test::RandomSeed();
  const std::vector<Key> keys = DistinctKeys(seed, 20000);
  const std::unordered_set<Key> valid(keys.begin(), keys.end());

  Arena arena;
  List list(KeyComparator(), &arena);
  // keys[0, published) are in the list. Release/acquire: a reader that
  // sees the count also sees those insertions.
  std::atomic<size_t> published{0};
  std::atomic<bool> writer_done{false};
  std::atomic<int> readers_started{0};
  std::atomic<int> scans{0};
  constexpr int kReaders = 2;

  std::atomic<bool> failed{false};

  // One scan plus point lookups; returns a description of the first
  // violation, or "".
  auto check_once = [&](Random* rnd) -> std::string {
    const size_t known = published.load(std::memory_order_acquire);
    std::vector<Key> seen;
    List::Iterator iter(&list);
    for (iter.SeekToFirst(); iter.Valid(); iter.Next()) {
      const Key k = iter.key();
      if (valid.count(k) == 0) {
        return "reader saw a key never inserted: " + std::to_string(k);
      }
      if (!seen.empty() && seen.back() >= k) {
        return "out of order: " + std::to_string(seen.back()) + " then " +
               std::to_string(k);
      }
      seen.push_back(k);
    }
    // Everything published before the scan began must have been seen.
    for (size_t j = 0; j < known; j++) {
      if (!std::binary_search(seen.begin(), seen.end(), keys[j])) {
        return "published key missing from scan: " + std::to_string(keys[j]);
      }
    }
    // Point lookups of published keys land exactly on them.
    for (int probe = 0; probe < 20 && known > 0; probe++) {
      const Key k = keys[rnd->Uniform(static_cast<int>(known))];
      iter.Seek(k);
      if (!iter.Valid() || iter.key() != k) {
        return "Seek missed published key " + std::to_string(k);
      }
      iter.SeekForPrev(k);
      if (!iter.Valid() || iter.key() != k) {
        return "SeekForPrev missed published key " + std::to_string(k);
      }
    }
    return "";
  };

  auto reader = [&](uint32_t reader_seed) {
    Random rnd(reader_seed);
    readers_started.fetch_add(1, std::memory_order_release);
    bool last_round = false;
    while (!last_round) {
      last_round = writer_done.load(std::memory_order_acquire);
      const std::string error = check_once(&rnd);
      if (!error.empty()) {
        ADD_FAILURE() << error;
        failed.store(true);
        return;
      }
      scans.fetch_add(1, std::memory_order_relaxed);
    }
  };

  std::vector<std::thread> readers;
  for (int i = 0; i < kReaders; i++) readers.emplace_back(reader, seed + i + 1);
  WaitFor(readers_started, kReaders);
  for (size_t i = 0; i < keys.size() && !failed.load(); i++) {
    EXPECT_TRUE(list.Insert(keys[i]));
    published.store(i + 1, std::memory_order_release);
    if (i % 1000 == 999) {
      // Let the readers complete scans against this partial list, so scans
      // and inserts interleave however fast the writer is.
      const int target = scans.load(std::memory_order_relaxed) + kReaders;
      while (scans.load(std::memory_order_relaxed) < target && !failed.load()) {
        std::this_thread::yield();
      }
    }
  }
  writer_done.store(true, std::memory_order_release);
  for (std::thread& t : readers) t.join();

  EXPECT_GE(scans.load(), 20 * kReaders);
  std::vector<Key> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Scan(list));
}

TEST(SkipListTest, ConcurrentInsertersLeaveEveryKeyPresentAndOrdered) {
  const uint32_t seed = test::RandomSeed();
  constexpr int kThreads = 4;
  constexpr size_t kPerThread = 5000;
  const std::vector<Key> keys = DistinctKeys(seed, kThreads * kPerThread);

  Arena arena;
  List list(KeyComparator(), &arena);
  std::atomic<int> ready{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1, std::memory_order_release);
      WaitFor(ready, kThreads);  // Start together to maximize overlap.
      for (size_t i = t * kPerThread; i < (t + 1) * kPerThread; i++) {
        if (!list.InsertConcurrently(keys[i])) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(0, failures.load());
  std::vector<Key> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Scan(list));
  for (Key k : keys) ASSERT_TRUE(list.Contains(k)) << k;
  // Backward iteration walks the same order (upper levels consistent).
  std::vector<Key> backward;
  List::Iterator iter(&list);
  for (iter.SeekToLast(); iter.Valid(); iter.Prev())
    backward.push_back(iter.key());
  EXPECT_EQ(std::vector<Key>(sorted.rbegin(), sorted.rend()), backward);
}

TEST(SkipListTest, ConcurrentInsertersOfSameKeysInsertEachOnce) {
  const uint32_t seed = test::RandomSeed();
  constexpr int kThreads = 4;
  const std::vector<Key> keys = DistinctKeys(seed, 5000);

  Arena arena;
  List list(KeyComparator(), &arena);
  std::atomic<int> ready{0};
  std::atomic<int> successes{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&] {
      ready.fetch_add(1, std::memory_order_release);
      WaitFor(ready, kThreads);
      for (Key k : keys) {
        if (list.InsertConcurrently(k)) successes.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(static_cast<int>(keys.size()), successes.load());
  std::vector<Key> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Scan(list));
}

TEST(SkipListTest, ReaderSeesOrderedKeysDuringConcurrentInserts) {
  const uint32_t seed = test::RandomSeed();
  constexpr int kWriters = 2;
  constexpr size_t kPerThread = 5000;
  const std::vector<Key> keys = DistinctKeys(seed, kWriters * kPerThread);
  const std::unordered_set<Key> valid(keys.begin(), keys.end());

  Arena arena;
  List list(KeyComparator(), &arena);
  std::atomic<int> ready{0};
  std::atomic<int> writers_done{0};
  std::thread reader([&] {
    ready.fetch_add(1, std::memory_order_release);
    bool last_round = false;
    while (!last_round) {
      last_round = writers_done.load(std::memory_order_acquire) == kWriters;
      List::Iterator iter(&list);
      bool have_prev = false;
      Key prev = 0;
      size_t count = 0;
      for (iter.SeekToFirst(); iter.Valid(); iter.Next()) {
        const Key k = iter.key();
        if (valid.count(k) == 0 || (have_prev && prev >= k)) {
          ADD_FAILURE() << "bad key " << k << " after " << prev;
          return;
        }
        prev = k;
        have_prev = true;
        count++;
      }
      if (last_round && count != keys.size()) {
        ADD_FAILURE() << "final scan saw " << count << " keys";
      }
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kWriters; t++) {
    writers.emplace_back([&, t] {
      ready.fetch_add(1, std::memory_order_release);
      WaitFor(ready, kWriters + 1);
      for (size_t i = t * kPerThread; i < (t + 1) * kPerThread; i++) {
        EXPECT_TRUE(list.InsertConcurrently(keys[i]));
      }
      writers_done.fetch_add(1, std::memory_order_release);
    });
  }
  for (std::thread& t : writers) t.join();
  reader.join();
}

}  // namespace
}  // namespace cascadedb

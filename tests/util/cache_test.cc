// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "cascadedb/cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/testutil/test_util.h"
#include "util/random.h"

namespace cascadedb {

namespace {

// Records every deleter call. Thread-safe.
class DeletionLog {
 public:
  void Record(const Slice& key, const std::string& expected_key, int value) {
    std::lock_guard<std::mutex> lock(mu_);
    order_.push_back(value);
    ++counts_[value];
    if (key != Slice(expected_key)) ++key_mismatches_;
  }

  // Values deleted so far, in deletion order.
  std::vector<int> Order() const {
    std::lock_guard<std::mutex> lock(mu_);
    return order_;
  }

  // Times the deleter ran for value.
  int Count(int value) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = counts_.find(value);
    return it == counts_.end() ? 0 : it->second;
  }

  // Deleter calls whose key was not the entry's key.
  int KeyMismatches() const {
    std::lock_guard<std::mutex> lock(mu_);
    return key_mismatches_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<int> order_;
  std::map<int, int> counts_;
  int key_mismatches_ = 0;
};

// What the tests store in the cache: the deleter reports it to log, and,
// if reenter is set, calls back into that cache first.
struct TestValue {
  DeletionLog* log;
  std::string key;
  int value;
  Cache* reenter = nullptr;
};

void DeleteTestValue(const Slice& key, void* v) {
  TestValue* tv = static_cast<TestValue*>(v);
  if (tv->reenter != nullptr) {
    // Deadlocks if the cache runs deleters under its mutex.
    Cache::Handle* h = tv->reenter->Lookup("reentry-probe");
    if (h != nullptr) tv->reenter->Release(h);
  }
  tv->log->Record(key, tv->key, tv->value);
  delete tv;
}

std::string Key(int k) { return "key" + std::to_string(k); }

class CacheTest : public ::testing::Test {
 protected:
  // A cache with one shard unless num_shard_bits says otherwise, so that
  // capacity and LRU order are exact.
  void NewCache(size_t capacity, int num_shard_bits = 0) {
    cache_ = NewLRUCache(capacity, num_shard_bits);
  }

  TestValue* MakeValue(int key, int value) {
    return new TestValue{&log_, Key(key), value};
  }

  void Insert(int key, int value, size_t charge = 1) {
    cache_->Insert(Key(key), MakeValue(key, value), charge, &DeleteTestValue,
                   nullptr);
  }

  Cache::Handle* InsertPinned(int key, int value, size_t charge = 1) {
    Cache::Handle* h = nullptr;
    cache_->Insert(Key(key), MakeValue(key, value), charge, &DeleteTestValue,
                   &h);
    return h;
  }

  int ValueOf(Cache::Handle* h) {
    return static_cast<TestValue*>(cache_->Value(h))->value;
  }

  // The value cached for key (pinned and released again), or -1.
  int Lookup(int key) {
    Cache::Handle* h = cache_->Lookup(Key(key));
    if (h == nullptr) return -1;
    const int v = ValueOf(h);
    cache_->Release(h);
    return v;
  }

  // Declared first so that it outlives the cache's final deleter calls.
  DeletionLog log_;
  std::shared_ptr<Cache> cache_;
};

TEST_F(CacheTest, LookupFindsInsertedValueAndMissesAbsentKey) {
  NewCache(100);
  EXPECT_EQ(-1, Lookup(1));
  Insert(1, 101);
  EXPECT_EQ(101, Lookup(1));
  EXPECT_EQ(-1, Lookup(2));
  Insert(2, 201);
  EXPECT_EQ(101, Lookup(1));
  EXPECT_EQ(201, Lookup(2));
  EXPECT_TRUE(log_.Order().empty());
}

TEST_F(CacheTest, InsertReplacesValueOfSameKey) {
  NewCache(100);
  Insert(1, 101);
  Insert(1, 102);
  EXPECT_EQ(102, Lookup(1));
  EXPECT_EQ(std::vector<int>({101}), log_.Order());
  EXPECT_EQ(1u, cache_->GetUsage());
}

TEST_F(CacheTest, KeysAreComparedAsBytes) {
  NewCache(100);
  const std::string a("a\0b", 3);
  const std::string b("a\0c", 3);
  cache_->Insert(a, new TestValue{&log_, a, 1}, 1, &DeleteTestValue, nullptr);
  cache_->Insert(b, new TestValue{&log_, b, 2}, 1, &DeleteTestValue, nullptr);
  cache_->Insert("", new TestValue{&log_, "", 3}, 1, &DeleteTestValue, nullptr);
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, int>>{{a, 1}, {b, 2}, {"", 3}}) {
    Cache::Handle* h = cache_->Lookup(key);
    ASSERT_NE(nullptr, h);
    EXPECT_EQ(value, static_cast<TestValue*>(cache_->Value(h))->value);
    cache_->Release(h);
  }
  EXPECT_EQ(nullptr, cache_->Lookup(std::string("a\0", 2)));
}

TEST_F(CacheTest, EraseRemovesEntryAndRunsDeleterOnce) {
  NewCache(100);
  Insert(1, 101);
  Insert(2, 201);
  cache_->Erase(Key(1));
  EXPECT_EQ(-1, Lookup(1));
  EXPECT_EQ(201, Lookup(2));
  EXPECT_EQ(std::vector<int>({101}), log_.Order());
  cache_->Erase(Key(1));  // Absent now: nothing to do.
  cache_->Erase(Key(3));
  EXPECT_EQ(std::vector<int>({101}), log_.Order());
  EXPECT_EQ(1u, cache_->GetUsage());
}

TEST_F(CacheTest, ErasedEntryStaysValidWhilePinned) {
  NewCache(100);
  Cache::Handle* h = InsertPinned(1, 101, 5);
  ASSERT_NE(nullptr, h);
  cache_->Erase(Key(1));
  EXPECT_EQ(-1, Lookup(1));
  EXPECT_EQ(101, ValueOf(h));
  EXPECT_TRUE(log_.Order().empty());
  cache_->Release(h);
  EXPECT_EQ(std::vector<int>({101}), log_.Order());
  EXPECT_EQ(0u, cache_->GetUsage());
}

TEST_F(CacheTest, ReplacedEntryIsDeletedWhenItsLastHandleIsReleased) {
  NewCache(100);
  Insert(1, 101);
  Cache::Handle* h1 = cache_->Lookup(Key(1));
  Cache::Handle* h2 = cache_->Lookup(Key(1));
  ASSERT_NE(nullptr, h1);
  ASSERT_NE(nullptr, h2);
  Insert(1, 102);
  EXPECT_EQ(102, Lookup(1));
  EXPECT_EQ(101, ValueOf(h1));
  cache_->Release(h1);
  EXPECT_TRUE(log_.Order().empty());
  cache_->Release(h2);
  EXPECT_EQ(std::vector<int>({101}), log_.Order());
}

TEST_F(CacheTest, PinnedEntrySurvivesEviction) {
  NewCache(10);
  Cache::Handle* h = InsertPinned(0, 100);
  for (int i = 1; i <= 100; i++) Insert(i, 100 + i);
  EXPECT_EQ(0, log_.Count(100));
  EXPECT_EQ(100, ValueOf(h));
  EXPECT_EQ(100, Lookup(0));  // Still in the cache, not only alive.
  EXPECT_EQ(10u, cache_->GetUsage());
  cache_->Release(h);
  // Now it is an ordinary entry, and the most recently used one: the next
  // nine inserts evict the nine others, the tenth evicts it.
  for (int i = 101; i <= 109; i++) Insert(i, 100 + i);
  EXPECT_EQ(0, log_.Count(100));
  Insert(110, 210);
  EXPECT_EQ(1, log_.Count(100));
  EXPECT_EQ(-1, Lookup(0));
}

TEST_F(CacheTest, EvictionRemovesLeastRecentlyInsertedFirst) {
  NewCache(10);
  for (int i = 0; i < 10; i++) Insert(i, 100 + i);
  Insert(10, 110);
  EXPECT_EQ(std::vector<int>({100}), log_.Order());
  Insert(11, 111);
  EXPECT_EQ(std::vector<int>({100, 101}), log_.Order());
}

TEST_F(CacheTest, RecentlyLookedUpEntriesSurviveEviction) {
  NewCache(10);
  for (int i = 0; i < 10; i++) Insert(i, 100 + i);
  for (int i = 0; i < 5; i++) EXPECT_EQ(100 + i, Lookup(i));
  for (int i = 10; i < 15; i++) Insert(i, 100 + i);
  EXPECT_EQ(std::vector<int>({105, 106, 107, 108, 109}), log_.Order());
  for (int i = 0; i < 5; i++) EXPECT_EQ(100 + i, Lookup(i));
  for (int i = 5; i < 10; i++) EXPECT_EQ(-1, Lookup(i));
  for (int i = 10; i < 15; i++) EXPECT_EQ(100 + i, Lookup(i));
}

TEST_F(CacheTest, HeavyEntryEvictsSeveralLightOnes) {
  NewCache(10);
  for (int i = 0; i < 10; i++) Insert(i, 100 + i, 1);
  Insert(100, 1000, 4);
  EXPECT_EQ(std::vector<int>({100, 101, 102, 103}), log_.Order());
  EXPECT_EQ(1000, Lookup(100));
  for (int i = 4; i < 10; i++) EXPECT_EQ(100 + i, Lookup(i));
  EXPECT_EQ(10u, cache_->GetUsage());
}

TEST_F(CacheTest, UnpinnedEntryLargerThanCapacityIsDroppedAtOnce) {
  NewCache(10);
  Insert(1, 101, 11);
  EXPECT_EQ(-1, Lookup(1));
  EXPECT_EQ(std::vector<int>({101}), log_.Order());
  EXPECT_EQ(0u, cache_->GetUsage());
}

TEST_F(CacheTest, UsageAndPinnedUsageAreExact) {
  NewCache(100);
  Insert(1, 101, 3);
  Cache::Handle* b = InsertPinned(2, 201, 5);
  Cache::Handle* c = InsertPinned(3, 301, 7);
  EXPECT_EQ(15u, cache_->GetUsage());
  EXPECT_EQ(12u, cache_->GetPinnedUsage());

  Cache::Handle* a = cache_->Lookup(Key(1));
  ASSERT_NE(nullptr, a);
  EXPECT_EQ(15u, cache_->GetPinnedUsage());
  Cache::Handle* a2 = cache_->Lookup(Key(1));  // Pinning twice counts once.
  EXPECT_EQ(15u, cache_->GetPinnedUsage());
  cache_->Release(a2);
  EXPECT_EQ(15u, cache_->GetPinnedUsage());

  cache_->Release(b);
  EXPECT_EQ(15u, cache_->GetUsage());
  EXPECT_EQ(10u, cache_->GetPinnedUsage());

  // An erased entry that is still pinned still holds its memory.
  cache_->Erase(Key(3));
  EXPECT_EQ(15u, cache_->GetUsage());
  EXPECT_EQ(10u, cache_->GetPinnedUsage());
  cache_->Release(c);
  EXPECT_EQ(8u, cache_->GetUsage());
  EXPECT_EQ(3u, cache_->GetPinnedUsage());

  cache_->Release(a);
  EXPECT_EQ(8u, cache_->GetUsage());
  EXPECT_EQ(0u, cache_->GetPinnedUsage());

  Insert(1, 102, 2);  // Replaces charge 3 with charge 2.
  EXPECT_EQ(7u, cache_->GetUsage());
  EXPECT_EQ(100u, cache_->GetCapacity());
}

TEST_F(CacheTest, ReleaseOverCapacityEvictsTheReleasedEntry) {
  NewCache(10);
  Cache::Handle* a = InsertPinned(1, 101, 5);
  Cache::Handle* b = InsertPinned(2, 201, 5);
  Cache::Handle* c = InsertPinned(3, 301, 5);
  EXPECT_EQ(15u, cache_->GetUsage());  // Everything pinned: over capacity.
  EXPECT_TRUE(log_.Order().empty());
  cache_->Release(b);
  EXPECT_EQ(std::vector<int>({201}), log_.Order());
  EXPECT_EQ(10u, cache_->GetUsage());
  cache_->Release(a);  // Fits now: stays cached.
  EXPECT_EQ(10u, cache_->GetUsage());
  EXPECT_EQ(101, Lookup(1));
  cache_->Release(c);
  EXPECT_EQ(std::vector<int>({201}), log_.Order());
}

TEST_F(CacheTest, PruneDropsOnlyUnpinnedEntries) {
  NewCache(100);
  Insert(1, 101);
  Insert(2, 201);
  Insert(3, 301);
  Cache::Handle* h = cache_->Lookup(Key(2));
  cache_->Prune();
  EXPECT_EQ(1, log_.Count(101));
  EXPECT_EQ(1, log_.Count(301));
  EXPECT_EQ(0, log_.Count(201));
  EXPECT_EQ(1u, cache_->GetUsage());
  EXPECT_EQ(201, Lookup(2));
  cache_->Release(h);
  EXPECT_EQ(201, Lookup(2));  // Still cached after the release.
  cache_->Prune();
  EXPECT_EQ(1, log_.Count(201));
  EXPECT_EQ(0u, cache_->GetUsage());
}

TEST_F(CacheTest, ShrinkingCapacityEvictsOldestEntries) {
  NewCache(10);
  for (int i = 0; i < 10; i++) Insert(i, 100 + i);
  cache_->SetCapacity(4);
  EXPECT_EQ(4u, cache_->GetCapacity());
  EXPECT_EQ(4u, cache_->GetUsage());
  EXPECT_EQ(std::vector<int>({100, 101, 102, 103, 104, 105}), log_.Order());
  for (int i = 6; i < 10; i++) EXPECT_EQ(100 + i, Lookup(i));
  cache_->SetCapacity(20);  // Growing evicts nothing.
  EXPECT_EQ(4u, cache_->GetUsage());
  for (int i = 10; i < 26; i++) Insert(i, 100 + i);
  EXPECT_EQ(20u, cache_->GetUsage());
}

TEST_F(CacheTest, ShrinkingCapacityKeepsPinnedEntries) {
  NewCache(10);
  Cache::Handle* a = InsertPinned(1, 101, 3);
  Cache::Handle* b = InsertPinned(2, 201, 3);
  cache_->SetCapacity(0);
  EXPECT_TRUE(log_.Order().empty());
  EXPECT_EQ(6u, cache_->GetUsage());
  cache_->Release(a);
  cache_->Release(b);
  EXPECT_EQ(std::vector<int>({101, 201}), log_.Order());
  EXPECT_EQ(0u, cache_->GetUsage());
}

TEST_F(CacheTest, NewIdReturnsDistinctIds) {
  NewCache(10);
  std::vector<uint64_t> ids_a;
  std::vector<uint64_t> ids_b;
  std::thread t([&] {
    for (int i = 0; i < 1000; i++) ids_a.push_back(cache_->NewId());
  });
  for (int i = 0; i < 1000; i++) ids_b.push_back(cache_->NewId());
  t.join();
  std::set<uint64_t> all(ids_a.begin(), ids_a.end());
  all.insert(ids_b.begin(), ids_b.end());
  EXPECT_EQ(2000u, all.size());
}

TEST_F(CacheTest, ZeroCapacityKeepsOnlyPinnedEntries) {
  NewCache(0);
  Insert(1, 101);
  EXPECT_EQ(-1, Lookup(1));
  EXPECT_EQ(std::vector<int>({101}), log_.Order());
  EXPECT_EQ(0u, cache_->GetUsage());

  Cache::Handle* h = InsertPinned(2, 201, 7);
  EXPECT_EQ(201, ValueOf(h));
  EXPECT_EQ(7u, cache_->GetUsage());
  Cache::Handle* h2 = cache_->Lookup(Key(2));  // Found while pinned.
  ASSERT_NE(nullptr, h2);
  cache_->Release(h2);
  cache_->Release(h);
  EXPECT_EQ(-1, Lookup(2));
  EXPECT_EQ(1, log_.Count(201));
  EXPECT_EQ(0u, cache_->GetUsage());
}

TEST_F(CacheTest, DeleterRunsExactlyOncePerEntry) {
  NewCache(50);
  int next_value = 0;
  for (int round = 0; round < 5; round++) {
    for (int k = 0; k < 80; k++) Insert(k, next_value++);  // Some evicted.
    for (int k = 0; k < 80; k += 3) cache_->Erase(Key(k));
    for (int k = 1; k < 80; k += 7) Insert(k, next_value++);  // Replaces.
  }
  Cache::Handle* h = cache_->Lookup(Key(1));
  ASSERT_NE(nullptr, h);
  cache_->Release(h);
  cache_.reset();  // Deletes what is left.
  EXPECT_EQ(static_cast<size_t>(next_value), log_.Order().size());
  for (int v = 0; v < next_value; v++) {
    EXPECT_EQ(1, log_.Count(v)) << "value " << v;
  }
  EXPECT_EQ(0, log_.KeyMismatches());
}

TEST_F(CacheTest, DeleterMayCallBackIntoTheCache) {
  NewCache(2);  // One shard: every key shares one mutex.
  auto reentrant = [&](int key, int value) {
    TestValue* tv = MakeValue(key, value);
    tv->reenter = cache_.get();
    cache_->Insert(Key(key), tv, 1, &DeleteTestValue, nullptr);
  };
  reentrant(1, 101);
  cache_->Erase(Key(1));  // Deleter via Erase.
  reentrant(2, 201);
  reentrant(3, 301);
  reentrant(4, 401);  // Deleter via eviction.
  reentrant(4, 402);  // Deleter via replacement.
  cache_->Prune();    // Deleter via Prune.
  EXPECT_EQ(std::vector<int>({101, 201, 401, 301, 402}), log_.Order());
}

TEST_F(CacheTest, ManyEntriesAreAllFound) {
  NewCache(1000000);
  constexpr int kN = 50000;  // Forces the hash table to grow many times.
  for (int i = 0; i < kN; i++) Insert(i, i);
  EXPECT_EQ(static_cast<size_t>(kN), cache_->GetUsage());
  for (int i = 0; i < kN; i++) ASSERT_EQ(i, Lookup(i)) << i;
  for (int i = 0; i < kN; i += 2) cache_->Erase(Key(i));
  for (int i = 0; i < kN; i++) ASSERT_EQ(i % 2 == 0 ? -1 : i, Lookup(i)) << i;
}

// Inserts, replacements, erases and evictions in random order against a
// model, in one shard so that every key shares one table: removals in the
// middle of runs of probed slots must leave every other key findable.
TEST_F(CacheTest, RandomOperationsMatchAModel) {
  constexpr int kKeys = 3000;
  constexpr size_t kCapacity = 2000;  // evictions too, once it fills
  NewCache(kCapacity);
  Random rnd(test::RandomSeed());
  std::map<int, int> model;  // key -> value, for keys that must be there
  for (int step = 0; step < 200000; ++step) {
    const int key = static_cast<int>(rnd.Uniform(kKeys));
    switch (rnd.Uniform(3)) {
      case 0:
        Insert(key, step);
        model[key] = step;
        break;
      case 1:
        cache_->Erase(Key(key));
        model.erase(key);
        break;
      default: {
        const int got = Lookup(key);
        auto it = model.find(key);
        if (got == -1) {
          // Absent: never inserted, erased, or evicted (forget it).
          if (it != model.end()) model.erase(it);
        } else {
          ASSERT_NE(model.end(), it) << "key " << key << " came back";
          ASSERT_EQ(it->second, got) << "key " << key;
        }
      }
    }
  }
  // Everything the cache still holds is the model's newest value.
  size_t found = 0;
  for (int key = 0; key < kKeys; ++key) {
    const int got = Lookup(key);
    if (got == -1) continue;
    ++found;
    ASSERT_EQ(1u, model.count(key)) << key;
    ASSERT_EQ(model[key], got) << key;
  }
  EXPECT_EQ(found, cache_->GetUsage());
  EXPECT_LE(found, kCapacity);
}

TEST_F(CacheTest, ManyShardsHoldEntriesAndSumUsage) {
  NewCache(1 << 20, 6);
  constexpr int kN = 10000;
  for (int i = 0; i < kN; i++) Insert(i, i, 3);
  std::vector<Cache::Handle*> pinned;
  for (int i = 0; i < kN; i++) {
    Cache::Handle* h = cache_->Lookup(Key(i));
    ASSERT_NE(nullptr, h) << i;
    ASSERT_EQ(i, ValueOf(h));
    if (i % 10 == 0) {
      pinned.push_back(h);
    } else {
      cache_->Release(h);
    }
  }
  EXPECT_EQ(3u * kN, cache_->GetUsage());
  EXPECT_EQ(3u * pinned.size(), cache_->GetPinnedUsage());
  for (Cache::Handle* h : pinned) cache_->Release(h);
  EXPECT_EQ(0u, cache_->GetPinnedUsage());
  cache_->Prune();
  EXPECT_EQ(0u, cache_->GetUsage());
  EXPECT_EQ(static_cast<size_t>(kN), log_.Order().size());
}

// Each of 2^bits shards gets ceil(capacity / 2^bits): an unpinned entry
// stays only if its charge fits one shard.
TEST_F(CacheTest, ExplicitShardsSplitCapacityRoundingUp) {
  NewCache(100, 2);    // 4 shards of 25.
  Insert(2, 201, 26);  // First, so it cannot push key 1 out.
  Insert(1, 101, 25);
  EXPECT_EQ(101, Lookup(1));
  EXPECT_EQ(-1, Lookup(2));
  NewCache(101, 2);  // 4 shards of 26.
  Insert(2, 202, 26);
  EXPECT_EQ(202, Lookup(2));
}

TEST_F(CacheTest, AutomaticShardingKeepsSmallCacheInOneShard) {
  NewCache(1000, -1);  // Below 1 MiB: a single shard holds everything.
  for (int i = 0; i < 1000; i++) Insert(i, i);
  EXPECT_TRUE(log_.Order().empty());
  Insert(1000, 1000);
  EXPECT_EQ(std::vector<int>({0}), log_.Order());
}

TEST_F(CacheTest, AutomaticShardingGivesEachShardAtLeastHalfAMebibyte) {
  constexpr size_t kKiB = 1024;
  NewCache(4096 * kKiB, -1);  // 8 shards of 512 KiB.
  Insert(2, 201, 513 * kKiB);
  Insert(1, 101, 512 * kKiB);
  EXPECT_EQ(101, Lookup(1));
  EXPECT_EQ(-1, Lookup(2));
  NewCache(4096 * kKiB - 1, -1);  // 4 shards of 1 MiB.
  Insert(2, 202, 513 * kKiB);
  EXPECT_EQ(202, Lookup(2));
}

TEST_F(CacheTest, AutomaticShardingUsesAtMost64Shards) {
  constexpr size_t kMiB = 1024 * 1024;
  NewCache(1024 * kMiB, -1);  // 64 shards of 16 MiB.
  Insert(2, 201, 17 * kMiB);  // Would fit in 32 shards of 32 MiB.
  Insert(1, 101, 16 * kMiB);  // Would not fit in 128 shards of 8 MiB.
  EXPECT_EQ(101, Lookup(1));
  EXPECT_EQ(-1, Lookup(2));
}

// Four threads insert, look up, pin, release and erase overlapping keys in a
// small cache with several shards; afterwards every value was deleted
// exactly once and nothing is left.
TEST_F(CacheTest, ConcurrentOperationsKeepEntriesConsistent) {
  NewCache(100, 2);
  const uint32_t seed = test::RandomSeed();
  constexpr int kThreads = 4;
  constexpr int kOpsPerThread = 20000;
  constexpr int kKeys = 200;
  std::atomic<int> next_value{0};
  std::atomic<int> wrong_values{0};

  auto worker = [&](int t) {
    Random rnd(seed + static_cast<uint32_t>(t));
    std::vector<Cache::Handle*> held;
    for (int i = 0; i < kOpsPerThread; i++) {
      const int key = static_cast<int>(rnd.Uniform(kKeys));
      switch (rnd.Uniform(5)) {
        case 0:
        case 1: {
          const bool pin = rnd.OneIn(4);
          Cache::Handle* h = nullptr;
          cache_->Insert(Key(key), MakeValue(key, next_value.fetch_add(1)),
                         1 + rnd.Uniform(3), &DeleteTestValue,
                         pin ? &h : nullptr);
          if (pin) held.push_back(h);
          break;
        }
        case 2: {
          Cache::Handle* h = cache_->Lookup(Key(key));
          if (h != nullptr) {
            if (static_cast<TestValue*>(cache_->Value(h))->key != Key(key)) {
              wrong_values.fetch_add(1);
            }
            held.push_back(h);
          }
          break;
        }
        case 3:
          cache_->Erase(Key(key));
          break;
        case 4:
          break;
      }
      // Hold at most a few handles, releasing the oldest.
      while (held.size() > 3 || (!held.empty() && rnd.OneIn(3))) {
        cache_->Release(held.front());
        held.erase(held.begin());
      }
    }
    for (Cache::Handle* h : held) cache_->Release(h);
  };

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) threads.emplace_back(worker, t);
  for (std::thread& th : threads) th.join();

  EXPECT_EQ(0, wrong_values.load());
  EXPECT_EQ(0u, cache_->GetPinnedUsage());
  EXPECT_LE(cache_->GetUsage(), 100u);
  cache_->Prune();
  EXPECT_EQ(0u, cache_->GetUsage());
  const int created = next_value.load();
  EXPECT_EQ(static_cast<size_t>(created), log_.Order().size());
  for (int v = 0; v < created; v++) {
    ASSERT_EQ(1, log_.Count(v)) << "value " << v;
  }
  EXPECT_EQ(0, log_.KeyMismatches());
}

}  // namespace

}  // namespace cascadedb

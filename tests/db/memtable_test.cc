// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/memtable.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"
#include "cascadedb/options.h"
#include "tests/testutil/test_util.h"
#include "util/coding.h"
#include "util/random.h"
#include "util/thread_pool.h"

namespace cascadedb {
namespace {

std::string IKey(const std::string& user_key, SequenceNumber seq,
                 ValueType type) {
  std::string encoded;
  AppendInternalKey(&encoded, ParsedInternalKey(user_key, seq, type));
  return encoded;
}

// Parameters: whether the memtable has a bloom filter, and its sorted
// structure (every behaviour must be the same either way).
class MemTableTest
    : public ::testing::TestWithParam<std::tuple<bool, MemTableRep>> {
 protected:
  MemTableTest()
      : cmp_(BytewiseComparator()),
        mem_(new MemTable(cmp_, Arena::kDefaultBlockSize,
                          std::get<0>(GetParam()) ? 64 * 1024 : 0,
                          std::get<1>(GetParam()))) {}
  ~MemTableTest() override {
    if (mem_ != nullptr) mem_->Unref();
  }

  void Put(SequenceNumber seq, const std::string& key,
           const std::string& value) {
    ASSERT_OK(mem_->Add(seq, kTypeValue, key, value));
  }
  void Delete(SequenceNumber seq, const std::string& key) {
    ASSERT_OK(mem_->Add(seq, kTypeDeletion, key, Slice()));
  }

  // "value", "NOT_FOUND" (a deletion) or "MISSING" (no visible entry).
  std::string Get(const std::string& key, SequenceNumber seq) {
    LookupKey lkey(key, seq);
    std::string value;
    Status s;
    if (!mem_->Get(lkey, &value, &s)) return "MISSING";
    if (s.IsNotFound()) return "NOT_FOUND";
    EXPECT_OK(s);
    return value;
  }

  InternalKeyComparator cmp_;
  MemTable* mem_;
};

TEST_P(MemTableTest, GetReturnsNewestValue) {
  Put(1, "k", "v1");
  Put(2, "k", "v2");
  Put(3, "other", "x");
  EXPECT_EQ("v2", Get("k", kMaxSequenceNumber));
  EXPECT_EQ("x", Get("other", kMaxSequenceNumber));
}

TEST_P(MemTableTest, DeletionHidesOlderValue) {
  Put(1, "k", "v1");
  Delete(2, "k");
  EXPECT_EQ("NOT_FOUND", Get("k", kMaxSequenceNumber));
  EXPECT_EQ("NOT_FOUND", Get("k", 2));
}

TEST_P(MemTableTest, SnapshotSeesOnlyEntriesAtOrBelowItsSequence) {
  Put(10, "k", "v10");
  Delete(20, "k");
  Put(30, "k", "v30");
  EXPECT_EQ("MISSING", Get("k", 9));
  EXPECT_EQ("v10", Get("k", 10));
  EXPECT_EQ("v10", Get("k", 19));
  EXPECT_EQ("NOT_FOUND", Get("k", 20));
  EXPECT_EQ("NOT_FOUND", Get("k", 29));
  EXPECT_EQ("v30", Get("k", 30));
  EXPECT_EQ("v30", Get("k", kMaxSequenceNumber));
}

TEST_P(MemTableTest, GetIgnoresNeighbouringUserKeys) {
  Put(1, "ab", "v");
  Put(2, "abc", "w");
  EXPECT_EQ("MISSING", Get("a", kMaxSequenceNumber));
  EXPECT_EQ("MISSING", Get("abb", kMaxSequenceNumber));
  EXPECT_EQ("MISSING", Get("abcd", kMaxSequenceNumber));
  EXPECT_EQ("MISSING", Get("", kMaxSequenceNumber));
  EXPECT_EQ("v", Get("ab", kMaxSequenceNumber));
}

TEST_P(MemTableTest, EmptyKeyAndValueRoundTrip) {
  Put(1, "", "");
  EXPECT_EQ("", Get("", kMaxSequenceNumber));
}

TEST_P(MemTableTest, AddRejectsDuplicateEntry) {
  Put(5, "k", "v");
  const Status s = mem_->Add(5, kTypeValue, "k", "other");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(1u, mem_->NumEntries());
  EXPECT_EQ("v", Get("k", kMaxSequenceNumber));
}

TEST_P(MemTableTest, AddRejectsReservedType) {
  EXPECT_TRUE(mem_->Add(5, kTypeMerge, "k", "v").IsNotSupported());
  EXPECT_EQ(0u, mem_->NumEntries());
}

TEST_P(MemTableTest, IteratorWalksInternalKeyOrderBothWays) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  uint32_t bytes_state = seed;
  // Model: internal key -> value, ordered like the memtable.
  struct Less {
    const InternalKeyComparator* cmp;
    bool operator()(const std::string& a, const std::string& b) const {
      return cmp->Compare(a, b) < 0;
    }
  };
  std::map<std::string, std::string, Less> model(Less{&cmp_});
  for (SequenceNumber seq = 1; seq <= 1000; seq++) {
    char key[16];
    std::snprintf(key, sizeof(key), "key%03u", rnd.Uniform(200));
    const ValueType type = rnd.OneIn(4) ? kTypeDeletion : kTypeValue;
    const std::string value =
        type == kTypeValue ? test::RandomBytes(&bytes_state, rnd.Uniform(20))
                           : "";
    ASSERT_OK(mem_->Add(seq, type, key, value));
    model[IKey(key, seq, type)] = value;
  }

  std::unique_ptr<Iterator> iter(mem_->NewIterator());
  auto it = model.begin();
  for (iter->SeekToFirst(); iter->Valid(); iter->Next(), ++it) {
    ASSERT_NE(model.end(), it);
    EXPECT_EQ(it->first, iter->key().ToString());
    EXPECT_EQ(it->second, iter->value().ToString());
  }
  EXPECT_EQ(model.end(), it);
  EXPECT_OK(iter->status());

  auto rit = model.rbegin();
  for (iter->SeekToLast(); iter->Valid(); iter->Prev(), ++rit) {
    ASSERT_NE(model.rend(), rit);
    EXPECT_EQ(rit->first, iter->key().ToString());
  }
  EXPECT_EQ(model.rend(), rit);

  for (int i = 0; i < 300; i++) {
    char key[16];
    std::snprintf(key, sizeof(key), "key%03u", rnd.Uniform(210));
    const std::string target = IKey(key, rnd.Uniform(1100), kValueTypeForSeek);
    auto lower = model.lower_bound(target);
    iter->Seek(target);
    ASSERT_EQ(lower != model.end(), iter->Valid());
    if (iter->Valid()) {
      EXPECT_EQ(lower->first, iter->key().ToString());
    }
    auto upper = model.upper_bound(target);
    iter->SeekForPrev(target);
    ASSERT_EQ(upper != model.begin(), iter->Valid());
    if (iter->Valid()) {
      EXPECT_EQ(std::prev(upper)->first, iter->key().ToString());
    }
  }
}

TEST_P(MemTableTest, CountsEntriesDeletesAndUserBytes) {
  Put(1, "a", "xyz");      // 4 bytes
  Delete(2, "bb");         // 2 bytes
  Put(3, "ccc", "12345");  // 8 bytes
  EXPECT_EQ(3u, mem_->NumEntries());
  EXPECT_EQ(1u, mem_->NumDeletes());
  EXPECT_EQ(14u, mem_->DataSize());
}

TEST_P(MemTableTest, EmptyMemTableReportsZeroBytesPerEntry) {
  EXPECT_EQ(0.0, mem_->BytesPerEntry());
  EXPECT_EQ(0.0, mem_->OverheadBytesPerEntry());
}

TEST_P(MemTableTest, UsesTheRequestedStructure) {
  EXPECT_EQ(std::get<1>(GetParam()), mem_->rep());
}

// Writes stop once a memtable's usage reaches the write buffer size. The
// flush pacing divides the active memtable's RoomBelow by the full
// (flushing) memtable's ArenaBytesPerEntry to know how many more entries
// fit; checked from several points on the way to the limit, with blocks
// an eighth of the limit as in the DB (MemTable::ArenaBlockSizeFor).
TEST_P(MemTableTest, RoomBelowAndBytesPerEntryPredictTheEntriesThatFit) {
  const bool bloom = std::get<0>(GetParam());
  const MemTableRep rep = std::get<1>(GetParam());
  const size_t kLimit = 512 * 1024;
  const size_t kBlock = MemTable::ArenaBlockSizeFor(kLimit);
  int seq = 0;
  auto put = [&](MemTable* mem) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%07d", (seq * 7919) % 1000003);
    ++seq;
    ASSERT_OK(mem->Add(seq, kTypeValue, key, std::string(100, 'v')));
  };
  MemTable* full = new MemTable(cmp_, kBlock, bloom ? 64 * 1024 : 0, rep);
  EXPECT_EQ(0.0, full->ArenaBytesPerEntry());
  while (full->ApproximateMemoryUsage() < kLimit) put(full);
  const double per_entry = full->ArenaBytesPerEntry();
  // 8 + 100 + 8 bytes of entry at least, and not twice that.
  EXPECT_GT(per_entry, 116.0);
  EXPECT_LT(per_entry, 232.0);
  for (double share : {0.0, 0.3, 0.6, 0.9}) {
    SCOPED_TRACE(share);
    MemTable* mem = new MemTable(cmp_, kBlock, bloom ? 64 * 1024 : 0, rep);
    while (mem->ApproximateMemoryUsage() < share * kLimit) put(mem);
    const double predicted =
        static_cast<double>(mem->RoomBelow(kLimit)) / per_entry;
    int fitted = 0;
    while (mem->ApproximateMemoryUsage() < kLimit) {
      put(mem);
      ++fitted;
    }
    // The tree's nodes come in lumps (a split adds a node for 32 slots).
    EXPECT_NEAR(predicted, fitted, 0.05 * predicted + 2);
    EXPECT_EQ(0u, mem->RoomBelow(kLimit));
    mem->Unref();
  }
  full->Unref();
}

// A memtable built on a block pool gives its blocks back when deleted, and
// the next one, built on recycled (dirty) memory, behaves like a fresh one.
TEST_P(MemTableTest, ANewMemTableReusesTheLastOnesBlocks) {
  auto pool = std::make_shared<ArenaBlockPool>(4096, 64 * 4096);
  const bool bloom = std::get<0>(GetParam());
  const MemTableRep rep = std::get<1>(GetParam());
  for (int round = 0; round < 3; round++) {
    MemTable* mem = new MemTable(cmp_, 4096, bloom ? 64 * 1024 : 0, rep, pool);
    for (int i = 0; i < 500; i++) {
      char key[16];
      std::snprintf(key, sizeof(key), "k%05d", (i * 7919) % 500);
      ASSERT_OK(mem->Add(i + 1, kTypeValue, key,
                         std::string(50, static_cast<char>('a' + round))));
    }
    for (int i = 0; i < 500; i += 37) {
      char key[16];
      std::snprintf(key, sizeof(key), "k%05d", i);
      std::string value;
      Status s;
      ASSERT_TRUE(mem->Get(LookupKey(key, kMaxSequenceNumber), &value, &s));
      ASSERT_OK(s);
      EXPECT_EQ(std::string(50, static_cast<char>('a' + round)), value);
    }
    std::string value;
    Status s;
    EXPECT_FALSE(mem->Get(LookupKey("absent", kMaxSequenceNumber), &value, &s));
    const size_t pooled_before = pool->PooledBytes();
    if (round > 0) {
      EXPECT_LT(pooled_before, 64u * 4096);  // it took some
    }
    mem->Unref();
    EXPECT_GT(pool->PooledBytes(), pooled_before);
  }
}

// A memtable asks its pool for blocks ahead at its first insert, not when
// built: one that is never written to (a DB opened and not written) costs no
// prepared blocks, and a written one's writer finds its second block
// prepared instead of faulting it in.
TEST_P(MemTableTest, TheFirstInsertAsksForBlocksAhead) {
  auto pool = std::make_shared<ArenaBlockPool>(4096, 64 * 4096,
                                               /*prepare_ahead=*/4);
  const bool bloom = std::get<0>(GetParam());
  const MemTableRep rep = std::get<1>(GetParam());
  MemTable* mem = new MemTable(cmp_, 4096, bloom ? 64 * 1024 : 0, rep, pool);
  WritersHelper()->WaitForJobs();
  EXPECT_EQ(0u, pool->PreparedBlocks());
  ASSERT_OK(mem->Add(1, kTypeValue, "k", "v"));
  WritersHelper()->WaitForJobs();
  EXPECT_EQ(4u, pool->PreparedBlocks());
  EXPECT_EQ(4u * 4096, pool->PooledBytes());
  ASSERT_OK(mem->Add(2, kTypeValue, "l", "w"));  // asks only once
  WritersHelper()->WaitForJobs();
  EXPECT_EQ(4u, pool->PreparedBlocks());
  mem->Unref();

  MemTable* concurrent =
      new MemTable(cmp_, 4096, bloom ? 64 * 1024 : 0, rep, pool);
  // Empty the pool (the first memtable's blocks came back to it), so the
  // ask shows.
  while (char* block = pool->Take(/*prepare_more=*/false)) {
    Arena::DeleteBlock(block, 4096);
  }
  ASSERT_OK(concurrent->AddConcurrently(1, kTypeValue, "k", "v", nullptr));
  WritersHelper()->WaitForJobs();
  EXPECT_EQ(4u * 4096, pool->PooledBytes());
  concurrent->Unref();
}

// Entries in random order, with several versions of some keys, and seeks
// from every kind of target: the memtable agrees with a std::map of the
// same internal keys, forwards and backwards.
TEST_P(MemTableTest, RandomEntriesMatchAnOrderedMap) {
  Random rnd(301);
  struct ByInternalKey {
    const InternalKeyComparator* cmp;
    bool operator()(const std::string& a, const std::string& b) const {
      return cmp->Compare(a, b) < 0;
    }
  };
  std::map<std::string, std::string, ByInternalKey> model(ByInternalKey{&cmp_});
  for (SequenceNumber seq = 1; seq <= 20000; seq++) {
    char key[17];
    std::snprintf(key, sizeof(key), "%016u", rnd.Uniform(5000));
    const bool del = rnd.OneIn(8);
    const std::string value = del ? "" : "v" + std::to_string(seq);
    ASSERT_OK(mem_->Add(seq, del ? kTypeDeletion : kTypeValue, key, value));
    model[IKey(key, seq, del ? kTypeDeletion : kTypeValue)] = value;
  }
  std::unique_ptr<Iterator> iter(mem_->NewIterator());
  auto it = model.begin();
  for (iter->SeekToFirst(); iter->Valid(); iter->Next(), ++it) {
    ASSERT_TRUE(it != model.end());
    ASSERT_EQ(it->first, iter->key().ToString());
    ASSERT_EQ(it->second, iter->value().ToString());
  }
  EXPECT_TRUE(it == model.end());
  auto rit = model.rbegin();
  for (iter->SeekToLast(); iter->Valid(); iter->Prev(), ++rit) {
    ASSERT_TRUE(rit != model.rend());
    ASSERT_EQ(rit->first, iter->key().ToString());
  }
  EXPECT_TRUE(rit == model.rend());
  for (int i = 0; i < 2000; i++) {
    char key[17];
    std::snprintf(key, sizeof(key), "%016u", rnd.Uniform(5100));
    const std::string target = IKey(key, rnd.Uniform(21000), kTypeValue);
    iter->Seek(target);
    auto lb = model.lower_bound(target);
    ASSERT_EQ(lb != model.end(), iter->Valid()) << target;
    if (iter->Valid()) {
      ASSERT_EQ(lb->first, iter->key().ToString());
    }
  }
}

// With a user comparator that is not bytewise, the B-tree cannot order by
// key bytes and must fall back to the comparator everywhere.
TEST_P(MemTableTest, NonBytewiseComparatorOrdersEntries) {
  InternalKeyComparator cmp(test::ReverseBytewiseComparator());
  MemTable* mem =
      new MemTable(cmp, Arena::kDefaultBlockSize, 0, std::get<1>(GetParam()));
  for (int i = 0; i < 3000; i++) {
    char key[17];
    std::snprintf(key, sizeof(key), "%016d", (i * 7919) % 3000);
    ASSERT_OK(mem->Add(i + 1, kTypeValue, key, "v"));
  }
  std::unique_ptr<Iterator> iter(mem->NewIterator());
  int n = 0;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next(), n++) {
    char key[17];
    std::snprintf(key, sizeof(key), "%016d", 2999 - n);
    ASSERT_EQ(key, ExtractUserKey(iter->key()).ToString());
  }
  EXPECT_EQ(3000, n);
  LookupKey lkey("0000000000001234", kMaxSequenceNumber);
  std::string value;
  Status s;
  EXPECT_TRUE(mem->Get(lkey, &value, &s));
  iter.reset();
  mem->Unref();
}

// EncodedEntryBytes reads an entry's length from its own bytes: every
// length-prefix width of key and value, deletions (empty values) too.
TEST(MemTableEncodingTest, EncodedEntryBytesSpansKeyAndValue) {
  InternalKeyComparator cmp(BytewiseComparator());
  MemTable* mem = new MemTable(cmp, 64 << 10);
  const std::vector<size_t> key_sizes = {0, 1, 16, 119, 120, 300, 17000};
  const std::vector<size_t> value_sizes = {0,    1,     127,   128,
                                           1024, 16383, 16384, 70000};
  std::map<std::string, size_t> expected;  // user key -> encoded length
  SequenceNumber seq = 1;
  for (size_t ks : key_sizes) {
    for (size_t vs : value_sizes) {
      // Distinct user keys of size ks: a counter in the first bytes.
      std::string key(ks, 'k');
      const std::string tag = std::to_string(seq);
      if (ks < tag.size()) continue;  // 0/1-byte keys once each, below
      key.replace(0, tag.size(), tag);
      const bool deletion = vs == 0 && ks % 2 == 0;
      const std::string value(vs, 'v');
      ASSERT_OK(
          mem->Add(seq++, deletion ? kTypeDeletion : kTypeValue, key, value));
      const size_t ik = ks + 8;
      expected[key] = VarintLength(ik) + ik + VarintLength(vs) + vs;
    }
  }
  for (size_t ks : {0, 1}) {
    const std::string key(ks, 'a');
    ASSERT_OK(mem->Add(seq++, kTypeValue, key, "value"));
    expected[key] = VarintLength(ks + 8) + ks + 8 + VarintLength(5) + 5;
  }
  std::unique_ptr<Iterator> iter(mem->NewIterator());
  size_t seen = 0;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next(), seen++) {
    const Slice ikey = iter->key();
    const std::string user_key(ikey.data(), ikey.size() - 8);
    ASSERT_EQ(1u, expected.count(user_key)) << user_key.size();
    // The entry starts with the internal key's length prefix.
    const char* entry = ikey.data() - VarintLength(ikey.size());
    EXPECT_EQ(expected[user_key], MemTable::EncodedEntryBytes(entry))
        << "key " << user_key.size() << " bytes";
    const Slice value = iter->value();
    if (!value.empty()) {
      EXPECT_EQ(value.data() + value.size(),
                entry + MemTable::EncodedEntryBytes(entry));
    }
  }
  EXPECT_EQ(expected.size(), seen);
  iter.reset();
  mem->Unref();
}

// Bytes per entry of 50000 entries with 16-byte keys and 100-byte values,
// inserted in the given order.
double BytesPerEntryOf16ByteKeys(MemTableRep rep, bool ascending) {
  InternalKeyComparator cmp(BytewiseComparator());
  // 64 KiB blocks: the unused tail of the last block is then negligible
  // next to 50000 entries (a 64 MiB buffer's 1 MiB blocks would need
  // millions of entries to say the same).
  MemTable* mem = new MemTable(cmp, 64 << 10, 0, rep);
  const std::string value(100, 'v');
  constexpr int kEntries = 50000;
  for (int i = 0; i < kEntries; i++) {
    char key[17];
    std::snprintf(key, sizeof(key), "%016d",
                  ascending ? i : (i * 7919) % kEntries);
    EXPECT_OK(mem->Add(i + 1, kTypeValue, Slice(key, 16), value));
  }
  const double bytes = mem->BytesPerEntry();
  mem->Unref();
  return bytes;
}

// The B-tree's leaves fill to ~70% under random inserts (100% ascending):
// its slots (16 bytes each) cost a little more than a skiplist node.
TEST(MemTableMemoryTest, BTreeEntryCostsAtMost156BytesAscendingAnd160Random) {
  const double ascending = BytesPerEntryOf16ByteKeys(MemTableRep::kBTree, true);
  const double random = BytesPerEntryOf16ByteKeys(MemTableRep::kBTree, false);
  EXPECT_LE(ascending, 156.0);
  EXPECT_LE(random, 160.0);
  EXPECT_GT(ascending, 116.0);
  EXPECT_GT(random, ascending);  // Half-full leaves after random splits.
}

TEST(MemTableMemoryTest, EntryOf16ByteKeyAnd100ByteValueCostsAtMost156Bytes) {
  InternalKeyComparator cmp(BytewiseComparator());
  // 64 KiB blocks: the unused tail of the last block is then negligible
  // next to 50000 entries (a 64 MiB buffer's 1 MiB blocks would need
  // millions of entries to say the same).
  MemTable* mem = new MemTable(cmp, 64 << 10);
  const std::string value(100, 'v');
  constexpr int kEntries = 50000;
  const size_t before = mem->ApproximateMemoryUsage();
  for (int i = 0; i < kEntries; i++) {
    char key[17];
    std::snprintf(key, sizeof(key), "%016d", i);
    ASSERT_OK(mem->Add(i + 1, kTypeValue, Slice(key, 16), value));
  }
  EXPECT_GT(mem->ApproximateMemoryUsage(), before);
  EXPECT_GE(mem->ApproximateMemoryUsage(), mem->DataSize());
  // Entry encoding (2 varints + 8-byte trailer), node (key pointer + 1.33
  // links on average) and arena slack stay within 40 bytes per entry.
  EXPECT_LE(mem->BytesPerEntry(), 156.0);
  EXPECT_GT(mem->BytesPerEntry(), 116.0);
  EXPECT_NEAR(mem->BytesPerEntry() - 116.0, mem->OverheadBytesPerEntry(), 1e-6);
  mem->Unref();
}

TEST(MemTableMemoryTest, ArenaBlockSizeFollowsWriteBufferSize) {
  EXPECT_EQ(4096u, MemTable::ArenaBlockSizeFor(0));
  EXPECT_EQ(4096u, MemTable::ArenaBlockSizeFor(4096));
  EXPECT_EQ(128u << 10, MemTable::ArenaBlockSizeFor(1 << 20));
  EXPECT_EQ(1u << 20, MemTable::ArenaBlockSizeFor(8 << 20));
  EXPECT_EQ(2u << 20, MemTable::ArenaBlockSizeFor(16 << 20));
  EXPECT_EQ(2u << 20, MemTable::ArenaBlockSizeFor(64 << 20));
  EXPECT_EQ(8192u, MemTable::ArenaBlockSizeFor(40000));  // 5000 -> 8192
}

TEST_P(MemTableTest, IteratorHoldsReference) {
  Put(1, "k", "v");
  EXPECT_EQ(1, mem_->TEST_refs());
  Iterator* iter = mem_->NewIterator();
  EXPECT_EQ(2, mem_->TEST_refs());
  // The creator lets go; the iterator keeps the memtable alive.
  MemTable* mem = mem_;
  mem_ = nullptr;
  mem->Unref();
  iter->SeekToFirst();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ(IKey("k", 1, kTypeValue), iter->key().ToString());
  EXPECT_EQ("v", iter->value().ToString());
  delete iter;  // Drops the last reference (ASan checks the release).
}

TEST_P(MemTableTest, RefAndUnrefBalance) {
  mem_->Ref();
  mem_->Ref();
  EXPECT_EQ(3, mem_->TEST_refs());
  mem_->Unref();
  mem_->Unref();
  EXPECT_EQ(1, mem_->TEST_refs());
}

TEST_P(MemTableTest, ConcurrentAddsAreAllVisible) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      MemTableAddStats stats;
      for (int i = 0; i < kPerThread; i++) {
        const int n = t * kPerThread + i;
        char key[16];
        std::snprintf(key, sizeof(key), "k%06d", n);
        const ValueType type = (n % 10 == 0) ? kTypeDeletion : kTypeValue;
        // Half the threads batch their counters, half count per entry.
        EXPECT_OK(mem_->AddConcurrently(n + 1, type, key, "val",
                                        t % 2 == 0 ? &stats : nullptr));
      }
      if (t % 2 == 0) mem_->ApplyAddStats(stats);
    });
  }
  for (std::thread& t : threads) t.join();

  constexpr int kTotal = kThreads * kPerThread;
  EXPECT_EQ(static_cast<uint64_t>(kTotal), mem_->NumEntries());
  EXPECT_EQ(static_cast<uint64_t>(kTotal / 10), mem_->NumDeletes());
  EXPECT_EQ(static_cast<uint64_t>(kTotal) * 10, mem_->DataSize());
  for (int n = 0; n < kTotal; n++) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%06d", n);
    ASSERT_EQ(n % 10 == 0 ? "NOT_FOUND" : "val", Get(key, kMaxSequenceNumber))
        << key;
  }
  std::unique_ptr<Iterator> iter(mem_->NewIterator());
  int count = 0;
  std::string prev;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next(), count++) {
    if (count > 0) {
      ASSERT_LT(cmp_.Compare(prev, iter->key()), 0);
    }
    prev = iter->key().ToString();
  }
  EXPECT_EQ(kTotal, count);
}

INSTANTIATE_TEST_SUITE_P(
    BloomAndRep, MemTableTest,
    ::testing::Combine(::testing::Bool(),
                       ::testing::Values(MemTableRep::kSkipList,
                                         MemTableRep::kBTree)));

TEST(MemTableBloomTest, BloomBitsFollowTheOptions) {
  Options o;
  EXPECT_EQ(static_cast<uint64_t>(o.write_buffer_size * 0.02 * 8),
            MemTable::BloomBitsFor(o));
  o.memtable_prefix_bloom_size_ratio = 0;
  EXPECT_EQ(0u, MemTable::BloomBitsFor(o));
  o.memtable_prefix_bloom_size_ratio = 0.1;
  o.memtable_whole_key_filtering = false;
  EXPECT_EQ(0u, MemTable::BloomBitsFor(o));
}

TEST(MemTableBloomTest, AbsentKeysSkipTheSkiplistAndTheFilterIsCharged) {
  InternalKeyComparator cmp(BytewiseComparator());
  MemTable* plain = new MemTable(cmp);
  // 50,000 bytes of filter: more than an arena block, so it shows.
  MemTable* mem = new MemTable(cmp, Arena::kDefaultBlockSize, 400 * 1000);
  EXPECT_FALSE(plain->has_bloom());
  ASSERT_TRUE(mem->has_bloom());
  // The filter's bits come from the arena: the write buffer pays for them.
  EXPECT_GE(mem->ApproximateMemoryUsage(),
            plain->ApproximateMemoryUsage() + 400 * 1000 / 8);
  for (int i = 0; i < 1000; i += 2) {
    ASSERT_OK(mem->Add(i + 1, kTypeValue, "key" + std::to_string(i), "v"));
  }
  uint64_t useful = 0;
  for (int i = 0; i < 1000; i++) {
    LookupKey lkey("key" + std::to_string(i), kMaxSequenceNumber);
    std::string value;
    Status s;
    const uint64_t before = useful;
    const bool found = mem->Get(lkey, &value, &s, &useful);
    EXPECT_EQ(i % 2 == 0, found) << i;
    EXPECT_LE(useful - before, 1u) << i;
    if (found) {
      EXPECT_EQ(before, useful) << i;  // a present key is never ruled out
      EXPECT_EQ("v", value);
    }
  }
  // 500 absent keys at 800 bits per added key: nearly all ruled out.
  EXPECT_GE(useful, 490u);
  plain->Unref();
  mem->Unref();
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/btree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "cascadedb/slice.h"
#include "tests/testutil/test_util.h"
#include "util/arena.h"
#include "util/random.h"

namespace cascadedb {
namespace {

// ---------------------------------------------------------------- keys

// Printable form of a byte string, for failure messages.
std::string Escape(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out + "\"";
}

void EncodeBigEndian(uint64_t v, char* out) {
  for (int i = 7; i >= 0; i--) {
    out[i] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
}

uint64_t DecodeBigEndian(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

// Fixed-width keys: a key points at 8 big-endian bytes, as a memtable key
// points at its encoded bytes. The comparator orders by the decoded value,
// which is the bytewise order of Bytes().
struct FixedComparator {
  int operator()(const char* a, const char* b) const {
    const uint64_t x = DecodeBigEndian(a);
    const uint64_t y = DecodeBigEndian(b);
    return x < y ? -1 : (x > y ? +1 : 0);
  }
  Slice Bytes(const char* k) const { return Slice(k, 8); }
  static std::string Show(const char* k) {
    return std::to_string(DecodeBigEndian(k));
  }
};

// Owns fixed-width keys; their addresses never change.
class FixedKeys {
 public:
  const char* Make(uint64_t v) {
    store_.emplace_back();
    EncodeBigEndian(v, store_.back().data());
    return store_.back().data();
  }

 private:
  std::deque<std::array<char, 8>> store_;
};

// Keys in one block, each in a record of stride bytes, so that a key's
// index is computed from its address (the threaded tests mark keys seen in
// plain arrays). With records in key order, index order is key order.
class KeyTable {
 public:
  // Each record is at most stride bytes; shorter ones are NUL-padded.
  KeyTable(const std::vector<std::string>& records, size_t stride)
      : n_(records.size()), stride_(stride), bytes_(stride * records.size()) {
    for (size_t i = 0; i < n_; i++) {
      assert(records[i].size() <= stride);
      std::memcpy(&bytes_[stride * i], records[i].data(), records[i].size());
    }
  }
  size_t size() const { return n_; }
  const char* key(size_t i) const { return bytes_.data() + stride_ * i; }
  // The index of k, or size() if k does not point at a key of this table.
  size_t IndexOf(const char* k) const {
    const uintptr_t base = reinterpret_cast<uintptr_t>(bytes_.data());
    const uintptr_t p = reinterpret_cast<uintptr_t>(k);
    if (p < base || p >= base + bytes_.size() || (p - base) % stride_ != 0) {
      return n_;
    }
    return (p - base) / stride_;
  }

 private:
  const size_t n_;
  const size_t stride_;
  std::vector<char> bytes_;
};

// Fixed-width keys for values, in their order.
KeyTable FixedKeyTable(const std::vector<uint64_t>& values) {
  std::vector<std::string> records;
  for (uint64_t v : values) {
    char buf[8];
    EncodeBigEndian(v, buf);
    records.emplace_back(buf, 8);
  }
  return KeyTable(records, 8);
}

// Variable-length keys: NUL-terminated strings owned by the test.
struct StringComparator {
  int operator()(const char* a, const char* b) const {
    return std::strcmp(a, b);  // Compares as unsigned char, like memcmp.
  }
  Slice Bytes(const char* k) const { return Slice(k, std::strlen(k)); }
  static std::string Show(const char* k) { return Escape(k); }
};

// The same order with heads turned off: every comparison is the
// comparator's.
struct StringComparatorNoHeads : StringComparator {
  Slice Bytes(const char*) const { return Slice(); }
};

// Owns string keys; their addresses never change.
class StringKeys {
 public:
  const char* Add(std::string s) {
    store_.push_back(std::move(s));
    return store_.back().c_str();
  }

 private:
  std::deque<std::string> store_;
};

// A memtable entry in miniature: a user key and a sequence number, ordered
// by user key ascending, then sequence descending. Bytes() is the user key,
// so distinct keys may have equal bytes and heads: the comparator decides.
struct Entry {
  std::string user_key;
  uint64_t seq;
};

struct EntryComparator {
  int operator()(const Entry* a, const Entry* b) const {
    const int r = Slice(a->user_key).compare(Slice(b->user_key));
    if (r != 0) return r;
    return a->seq > b->seq ? -1 : (a->seq < b->seq ? +1 : 0);
  }
  Slice Bytes(const Entry* e) const { return Slice(e->user_key); }
  static std::string Show(const Entry* e) {
    return Escape(e->user_key) + "@" + std::to_string(e->seq);
  }
};

// In place, with the test's seed.
template <typename T>
void Shuffle(std::vector<T>* v, Random64* rnd) {
  for (size_t i = v->size(); i > 1; i--) {
    std::swap((*v)[i - 1], (*v)[rnd->Uniform(i)]);
  }
}

// 0, 1, ..., n - 1 in an order drawn from seed.
std::vector<size_t> ShuffledIndexes(size_t n, uint32_t seed) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; i++) order[i] = i;
  Random64 rnd(seed);
  Shuffle(&order, &rnd);
  return order;
}

// A value for a fixed-width key: full-width, or with leading zero bytes
// (long node prefixes), or next to an earlier value (keys sharing 7 of 8
// bytes). Never 0 or UINT64_MAX, which stay free as targets below the
// minimum and above the maximum.
uint64_t RandomValue(Random64* rnd, const std::vector<uint64_t>& earlier) {
  while (true) {
    uint64_t v;
    switch (rnd->Uniform(3)) {
      case 0:
        v = rnd->Next();
        break;
      case 1:
        v = rnd->Next() >> (8 * (1 + rnd->Uniform(7)));
        break;
      default:
        v = earlier.empty()
                ? rnd->Next()
                : earlier[rnd->Uniform(earlier.size())] - 3 + rnd->Uniform(7);
        break;
    }
    if (v != 0 && v != UINT64_MAX) return v;
  }
}

// n distinct values from RandomValue, in random order.
std::vector<uint64_t> DistinctValues(uint32_t seed, size_t n) {
  Random64 rnd(seed);
  std::unordered_set<uint64_t> seen;
  std::vector<uint64_t> values;
  while (values.size() < n) {
    const uint64_t v = RandomValue(&rnd, values);
    if (seen.insert(v).second) values.push_back(v);
  }
  return values;
}

// The same, sorted.
std::vector<uint64_t> SortedDistinctValues(uint32_t seed, size_t n) {
  std::vector<uint64_t> values = DistinctValues(seed, n);
  std::sort(values.begin(), values.end());
  return values;
}

// Spins (yielding the CPU) until counter reaches n: a start barrier for
// threads, without sleeping.
void WaitFor(const std::atomic<int>& counter, int n) {
  while (counter.load(std::memory_order_acquire) < n) std::this_thread::yield();
}

// Sizes at which the random tests check everything: around the first leaf
// split (32 keys), the first inner split (32 children), and beyond.
bool IsCheckpoint(size_t n) {
  static const std::set<size_t> kCheckpoints = {
      1,    2,     3,     31,    32,    33,    34,   63,   64,
      65,   100,   500,   1000,  1023,  1024,  1025, 1100, 2000,
      5000, 10000, 20000, 32768, 33000, 50000, 80000};
  return kCheckpoints.count(n) != 0;
}

// ---------------------------------------------------------------- checker

// A tree and a std::set holding the same keys; checks that every read of
// the tree agrees with the set.
template <typename Key, class Cmp>
class Checker {
 public:
  using Tree = BTree<Key, Cmp>;
  using Iter = typename Tree::Iterator;
  struct Less {
    Cmp cmp;
    bool operator()(const Key& a, const Key& b) const { return cmp(a, b) < 0; }
  };
  using Model = std::set<Key, Less>;
  using Pos = typename Model::const_iterator;

  explicit Checker(Cmp cmp = Cmp())
      : cmp_(cmp), tree_(cmp, &arena_), model_(Less{cmp}) {}

  Tree& tree() { return tree_; }
  const Model& model() const { return model_; }

  // Inserts into both; the tree must agree on whether key is new.
  void Insert(const Key& key) {
    const bool fresh = model_.insert(key).second;
    ASSERT_EQ(fresh, tree_.Insert(key)) << "Insert(" << Cmp::Show(key) << ")";
  }

  // Whether it is at pos of the model (not Valid for end()).
  ::testing::AssertionResult At(const Iter& it, Pos pos) const {
    if (pos == model_.end()) {
      if (!it.Valid()) return ::testing::AssertionSuccess();
      return ::testing::AssertionFailure()
             << "expected no key, got " << Cmp::Show(it.key());
    }
    if (!it.Valid()) {
      return ::testing::AssertionFailure()
             << "expected " << Cmp::Show(*pos) << ", got no key";
    }
    if (cmp_(it.key(), *pos) != 0) {
      return ::testing::AssertionFailure() << "expected " << Cmp::Show(*pos)
                                           << ", got " << Cmp::Show(it.key());
    }
    return ::testing::AssertionSuccess();
  }

  // Size, and full forward and backward scans.
  void CheckScans() const {
    ASSERT_EQ(model_.size(), tree_.Size());
    Iter it(&tree_);
    size_t i = 0;
    auto m = model_.begin();
    for (it.SeekToFirst(); it.Valid(); it.Next(), ++m, ++i) {
      ASSERT_TRUE(m != model_.end())
          << "forward scan has a key past the last: " << Cmp::Show(it.key());
      ASSERT_TRUE(At(it, m)) << "forward scan, position " << i;
    }
    ASSERT_TRUE(m == model_.end())
        << "forward scan ended after " << i << " of " << model_.size();
    i = 0;
    auto r = model_.rbegin();
    for (it.SeekToLast(); it.Valid(); it.Prev(), ++r, ++i) {
      ASSERT_TRUE(r != model_.rend())
          << "backward scan has a key before the first: "
          << Cmp::Show(it.key());
      ASSERT_TRUE(At(it, std::prev(r.base()))) << "backward scan, step " << i;
    }
    ASSERT_TRUE(r == model_.rend())
        << "backward scan ended after " << i << " of " << model_.size();
  }

  // SeekToFirst / SeekToLast, and one step inwards from each.
  void CheckEnds() const {
    Iter it(&tree_);
    it.SeekToFirst();
    ASSERT_TRUE(At(it, model_.begin())) << "SeekToFirst";
    if (it.Valid()) {
      it.Prev();
      ASSERT_FALSE(it.Valid()) << "Prev from the first key";
      it.SeekToFirst();
      it.Next();
      ASSERT_TRUE(At(it, std::next(model_.begin()))) << "Next from the first";
    }
    it.SeekToLast();
    const Pos last = model_.empty() ? model_.end() : std::prev(model_.end());
    ASSERT_TRUE(At(it, last)) << "SeekToLast";
    if (it.Valid()) {
      it.Next();
      ASSERT_FALSE(it.Valid()) << "Next from the last key";
      it.SeekToLast();
      it.Prev();
      ASSERT_TRUE(
          At(it, last == model_.begin() ? model_.end() : std::prev(last)))
          << "Prev from the last";
    }
  }

  // Contains, Seek and SeekForPrev of target, and a step both ways from
  // where each lands.
  void CheckTarget(const Key& target) const {
    const std::string t = Cmp::Show(target);
    ASSERT_EQ(model_.count(target) == 1, tree_.Contains(target))
        << "Contains(" << t << ")";
    Iter it(&tree_);
    const Pos lower = model_.lower_bound(target);
    it.Seek(target);
    ASSERT_TRUE(At(it, lower)) << "Seek(" << t << ")";
    if (lower != model_.end()) {
      it.Next();
      ASSERT_TRUE(At(it, std::next(lower))) << "Seek(" << t << "), Next";
      it.Seek(target);
      it.Prev();
      ASSERT_TRUE(
          At(it, lower == model_.begin() ? model_.end() : std::prev(lower)))
          << "Seek(" << t << "), Prev";
    }
    const Pos upper = model_.upper_bound(target);
    it.SeekForPrev(target);
    if (upper == model_.begin()) {
      ASSERT_TRUE(At(it, model_.end())) << "SeekForPrev(" << t << ")";
    } else {
      const Pos last = std::prev(upper);
      ASSERT_TRUE(At(it, last)) << "SeekForPrev(" << t << ")";
      it.Next();
      ASSERT_TRUE(At(it, upper)) << "SeekForPrev(" << t << "), Next";
      it.SeekForPrev(target);
      it.Prev();
      ASSERT_TRUE(
          At(it, last == model_.begin() ? model_.end() : std::prev(last)))
          << "SeekForPrev(" << t << "), Prev";
    }
  }

  void CheckAll() const {
    ASSERT_NO_FATAL_FAILURE(CheckScans());
    ASSERT_NO_FATAL_FAILURE(CheckEnds());
  }

 private:
  const Cmp cmp_;
  Arena arena_;
  Tree tree_;
  Model model_;
};

using FixedChecker = Checker<const char*, FixedComparator>;
using FixedTree = BTree<const char*, FixedComparator>;

// A search target for the fixed-width tests: present, next to a present
// key, or anywhere.
uint64_t FixedTarget(Random64* rnd, const std::vector<uint64_t>& inserted) {
  const uint64_t some = inserted[rnd->Uniform(inserted.size())];
  switch (rnd->Uniform(4)) {
    case 0:
      return some;
    case 1:
      return some + 1;
    case 2:
      return some - 1;
    default:
      return rnd->OneIn(2) ? rnd->Next() : rnd->Next() >> 32;
  }
}

// ---------------------------------------------------------------- string keys

// A variable-length key: a stem (many long and shared, some prefixes of
// others), zero-heavy digits, and a suffix with small or large bytes; or a
// proper prefix or an extension of an earlier key.
std::string RandomStringKey(Random* rnd,
                            const std::vector<const char*>& earlier) {
  static const char* const kStems[] = {
      "user/profile/",
      "user/profile/0000",
      "user/profile/000000000000/",
      "user/profile/0000000000000000000000000000/x/",
      "user/prof",
      "user/settings/",
      "user/",
      "u",
      "a\x01",
      "\x01",
      "\x01\x01\x01",
      "order/2026-01-01/",
      "zzzzzzzzzzzzzzzzzzzz",
  };
  static const char* const kSuffixes[] = {
      "",     "",     "",     "\x01", "\x01\x01", "/",
      "\x7f", "\x80", "\xff", "0",    "/\x01z",
  };
  const int n = static_cast<int>(earlier.size());
  if (n > 0 && rnd->OneIn(8)) {
    // A proper prefix of an earlier key, at least one byte long.
    std::string s = earlier[rnd->Uniform(n)];
    if (s.size() > 1)
      s.resize(1 + rnd->Uniform(static_cast<int>(s.size()) - 1));
    return s;
  }
  if (n > 0 && rnd->OneIn(8)) {
    // An earlier key, extended.
    std::string s = earlier[rnd->Uniform(n)];
    s += kSuffixes[3 + rnd->Uniform(8)];
    return s;
  }
  std::string s = kStems[rnd->Uniform(sizeof(kStems) / sizeof(kStems[0]))];
  const int digits = static_cast<int>(rnd->Uniform(14));
  for (int d = 0; d < digits; d++) {
    s.push_back(rnd->OneIn(2) ? '0'
                              : static_cast<char>('0' + rnd->Uniform(10)));
  }
  s += kSuffixes[rnd->Uniform(sizeof(kSuffixes) / sizeof(kSuffixes[0]))];
  return s;
}

// A search target for the string tests: present, a proper prefix of a
// present key (any length, "" included), an extension, a neighbour in the
// last byte, a fresh key, or beyond either end.
std::string StringTarget(Random* rnd, const std::vector<const char*>& keys) {
  std::string s = keys[rnd->Uniform(static_cast<int>(keys.size()))];
  switch (rnd->Uniform(7)) {
    case 0:
      return s;
    case 1:
      s.resize(rnd->Uniform(static_cast<int>(s.size())));
      return s;
    case 2: {
      static const char* const kExtensions[] = {"\x01", "0", "\xff",
                                                "\x01\x01"};
      return s + kExtensions[rnd->Uniform(4)];
    }
    case 3: {
      unsigned char& last = reinterpret_cast<unsigned char&>(s.back());
      if (last > 1 && (last == 0xff || rnd->OneIn(2))) {
        last--;
      } else if (last < 0xff) {
        last++;
      }
      return s;
    }
    case 4:
      return RandomStringKey(rnd, keys);
    case 5:
      return "";
    default:
      return "\xff\xff";
  }
}

template <class Cmp>
void CheckStringKeysAgainstStdSet(uint32_t seed) {
  Random rnd(seed);
  StringKeys store;
  Checker<const char*, Cmp> c;
  std::vector<const char*> inserted;
  constexpr size_t kInserts = 110000;
  for (size_t i = 1; i <= kInserts; i++) {
    const char* k = store.Add(RandomStringKey(&rnd, inserted));
    ASSERT_NO_FATAL_FAILURE(c.Insert(k));
    inserted.push_back(k);
    if (IsCheckpoint(i)) {
      ASSERT_NO_FATAL_FAILURE(c.CheckAll()) << "after " << i << " inserts";
      for (int t = 0; t < 200; t++) {
        const std::string target = StringTarget(&rnd, inserted);
        ASSERT_NO_FATAL_FAILURE(c.CheckTarget(target.c_str()))
            << "after " << i << " inserts";
      }
    }
  }
  // More keys than a tree of depth 3 holds (32^3): depth >= 4.
  ASSERT_GT(c.model().size(), 32u * 32 * 32);
  // "" is below every key and "\xff" above every key.
  ASSERT_NE('\0', **c.model().begin());
  ASSERT_GT(0x7f, static_cast<unsigned char>(**c.model().rbegin()));
  ASSERT_NO_FATAL_FAILURE(c.CheckAll());
  ASSERT_NO_FATAL_FAILURE(c.CheckTarget(""));
  ASSERT_NO_FATAL_FAILURE(c.CheckTarget("\xff"));
  for (int t = 0; t < 30000; t++) {
    const std::string target = StringTarget(&rnd, inserted);
    ASSERT_NO_FATAL_FAILURE(c.CheckTarget(target.c_str()));
  }
}

// The keys and their neighbours around one long key: every prefix of it,
// each followed by a small and a large byte, and "". Node prefixes grow to
// kMaxPrefix (16) and shrink again as these arrive in random order.
template <class Cmp>
void CheckPrefixChain(uint32_t seed) {
  const std::string base = "user/profile/0000000123/\x01\x01tail";
  std::vector<std::string> strings = {""};
  for (size_t len = 0; len <= base.size(); len++) {
    const std::string p = base.substr(0, len);
    if (len > 0) strings.push_back(p);
    strings.push_back(p + "\x01");
    strings.push_back(p + "\xff");
    strings.push_back(p + "0");
  }
  Random64 rnd(seed);
  for (int round = 0; round < 40; round++) {
    std::vector<std::string> order = strings;
    if (round == 1) std::sort(order.begin(), order.end());
    if (round == 2) std::sort(order.rbegin(), order.rend());
    if (round > 2) Shuffle(&order, &rnd);
    StringKeys store;
    Checker<const char*, Cmp> c;
    for (const std::string& s : order) {
      ASSERT_NO_FATAL_FAILURE(c.Insert(store.Add(s))) << "round " << round;
    }
    // Inserting any of them again changes nothing.
    for (const std::string& s : order) {
      ASSERT_FALSE(c.tree().Insert(store.Add(s))) << Escape(s);
    }
    ASSERT_NO_FATAL_FAILURE(c.CheckAll()) << "round " << round;
    for (size_t len = 0; len <= base.size() + 1; len++) {
      const std::string p = base.substr(0, len);
      for (const char* tail : {"", "\x01", "\x02", "\x01\x01", "0", "1", "\xfe",
                               "\xff", "\xff\xff"}) {
        const std::string target = p + tail;
        ASSERT_NO_FATAL_FAILURE(c.CheckTarget(target.c_str()))
            << "round " << round;
      }
    }
  }
}

// db_bench's keys: 16-digit zero-padded decimals.
std::string DbBenchKey(uint64_t k) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%016llu",
                static_cast<unsigned long long>(k));
  return buf;
}

// The bytes NodeBytes() accounts for a leaf and for an inner node (the
// same for every comparator here: a slot holds a pointer key either way),
// measured on splits of ascending keys: 1..32 fill the first leaf, 33 adds
// a leaf and a root, 34..64 fill the second leaf, 65 adds a leaf alone.
struct NodeSizes {
  size_t leaf;
  size_t inner;
};

NodeSizes MeasureNodeSizes() {
  Arena arena;
  FixedTree tree(FixedComparator(), &arena);
  FixedKeys keys;
  size_t bytes[66];
  for (uint64_t v = 1; v <= 65; v++) {
    tree.Insert(keys.Make(v));
    bytes[v] = tree.NodeBytes();
  }
  NodeSizes sizes;
  sizes.leaf = bytes[65] - bytes[64];
  sizes.inner = bytes[33] - bytes[32] - sizes.leaf;
  return sizes;
}

// The bytes of a tree of n keys whose nodes are full (32 keys a leaf, 32
// children an inner node), but for the last node of each level.
size_t FullTreeBytes(size_t n, const NodeSizes& sizes) {
  size_t nodes = (n + 31) / 32;
  size_t bytes = nodes * sizes.leaf;
  while (nodes > 1) {
    nodes = (nodes + 31) / 32;
    bytes += nodes * sizes.inner;
  }
  return bytes;
}

// Expects tree, filled with n ascending keys, to have full nodes: a full
// last leaf or inner node keeps all its keys or children when a key is
// appended, and the new key starts a node of its own. (Within one leaf: see
// NodeBytesCountsEveryNode.)
template <class Tree>
void ExpectFullNodes(const Tree& tree, size_t n) {
  const NodeSizes sizes = MeasureNodeSizes();
  ASSERT_GT(sizes.leaf, 0u);
  ASSERT_GT(sizes.inner, 0u);
  const size_t full = FullTreeBytes(n, sizes);
  EXPECT_LE(tree.NodeBytes(), full + sizes.leaf);
  EXPECT_GE(tree.NodeBytes() + sizes.leaf, full);
}

// ================================================================ tests

TEST(BTreeTest, EmptyTreeHasNoKeys) {
  {
    Arena arena;
    FixedTree tree(FixedComparator(), &arena);
    FixedKeys keys;
    EXPECT_EQ(0u, tree.Size());
    FixedTree::Iterator it(&tree);
    EXPECT_FALSE(it.Valid());
    for (uint64_t v : {uint64_t{0}, uint64_t{7}, UINT64_MAX}) {
      const char* k = keys.Make(v);
      EXPECT_FALSE(tree.Contains(k));
      it.Seek(k);
      EXPECT_FALSE(it.Valid()) << v;
      it.SeekForPrev(k);
      EXPECT_FALSE(it.Valid()) << v;
    }
    it.SeekToFirst();
    EXPECT_FALSE(it.Valid());
    it.SeekToLast();
    EXPECT_FALSE(it.Valid());
  }
  Checker<const char*, StringComparator> heads;
  Checker<const char*, StringComparatorNoHeads> no_heads;
  ASSERT_NO_FATAL_FAILURE(heads.CheckAll());
  ASSERT_NO_FATAL_FAILURE(no_heads.CheckAll());
  for (const char* t : {"", "a", "user/profile/0000000000000001", "\xff"}) {
    ASSERT_NO_FATAL_FAILURE(heads.CheckTarget(t));
    ASSERT_NO_FATAL_FAILURE(no_heads.CheckTarget(t));
  }
}

TEST(BTreeTest, InsertRejectsEqualKeyAndKeepsTheFirst) {
  Arena arena;
  FixedTree tree(FixedComparator(), &arena);
  FixedKeys keys;
  const char* first = keys.Make(7);
  const char* again = keys.Make(7);  // Equal, at another address.
  EXPECT_TRUE(tree.Insert(first));
  EXPECT_FALSE(tree.Insert(again));
  EXPECT_FALSE(tree.Insert(first));
  EXPECT_EQ(1u, tree.Size());
  FixedTree::Iterator it(&tree);
  it.SeekToFirst();
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(first, it.key());
  it.Next();
  EXPECT_FALSE(it.Valid());

  // The same in a tree of depth >= 3: re-inserting every key, at new
  // addresses, fails and leaves every stored key as it was.
  const uint32_t seed = test::RandomSeed();
  const std::vector<uint64_t> values = DistinctValues(seed, 20000);
  Arena arena2;
  FixedTree big(FixedComparator(), &arena2);
  std::vector<const char*> originals;
  for (uint64_t v : values) {
    originals.push_back(keys.Make(v));
    ASSERT_TRUE(big.Insert(originals.back())) << v;
  }
  for (uint64_t v : values) {
    ASSERT_FALSE(big.Insert(keys.Make(v))) << v;
  }
  EXPECT_EQ(values.size(), big.Size());
  std::vector<const char*> sorted = originals;
  std::sort(sorted.begin(), sorted.end(), [](const char* a, const char* b) {
    return FixedComparator()(a, b) < 0;
  });
  FixedTree::Iterator scan(&big);
  size_t i = 0;
  for (scan.SeekToFirst(); scan.Valid(); scan.Next(), i++) {
    ASSERT_LT(i, sorted.size());
    ASSERT_EQ(sorted[i], scan.key())  // The very pointer first inserted.
        << "position " << i << ": " << FixedComparator::Show(scan.key());
  }
  EXPECT_EQ(sorted.size(), i);
}

// FixedComparator, counting its calls (each reads two stored keys).
struct CountingComparator {
  int* calls;
  int operator()(const char* a, const char* b) const {
    ++*calls;
    return FixedComparator()(a, b);
  }
  Slice Bytes(const char* k) const { return FixedComparator().Bytes(k); }
};

// An insert reads a stored key only where heads cannot decide: keys whose
// heads all differ go in without one comparator call (the check for an
// equal key used to read the neighbour's key on every insert, a cache miss
// into a memtable's arena), and an equal key is still caught.
TEST(BTreeTest, InsertReadsStoredKeysOnlyWhereHeadsAreEqual) {
  int calls = 0;
  Arena arena;
  BTree<const char*, CountingComparator> tree(CountingComparator{&calls},
                                              &arena);
  FixedKeys keys;
  const uint32_t seed = test::RandomSeed();
  const std::vector<uint64_t> values = DistinctValues(seed, 5000);
  for (uint64_t v : values) ASSERT_TRUE(tree.Insert(keys.Make(v))) << v;
  EXPECT_EQ(0, calls);
  EXPECT_FALSE(tree.Insert(keys.Make(values[values.size() / 2])));
  EXPECT_GE(calls, 1);
  EXPECT_EQ(values.size(), tree.Size());
}

// NodeBytes() accounts every node taken from the arena, the leaf a new
// tree starts with included.
TEST(BTreeTest, NodeBytesCountsEveryNode) {
  const size_t leaf = MeasureNodeSizes().leaf;
  ASSERT_GT(leaf, 0u);
  Arena arena;
  FixedTree tree(FixedComparator(), &arena);
  EXPECT_EQ(leaf, tree.NodeBytes()) << "a new tree holds one leaf";
  EXPECT_LE(tree.NodeBytes(), arena.MemoryUsage());
}

TEST(BTreeTest, FixedKeysMatchStdSetUnderRandomInserts) {
  const uint32_t seed = test::RandomSeed();
  Random64 rnd(seed);
  FixedKeys keys;
  FixedChecker c;
  std::vector<uint64_t> inserted;
  constexpr size_t kInserts = 120000;
  for (size_t i = 1; i <= kInserts; i++) {
    // One insert in five repeats an earlier key.
    const uint64_t v = !inserted.empty() && rnd.OneIn(5)
                           ? inserted[rnd.Uniform(inserted.size())]
                           : RandomValue(&rnd, inserted);
    ASSERT_NO_FATAL_FAILURE(c.Insert(keys.Make(v)));
    inserted.push_back(v);
    if (IsCheckpoint(i)) {
      ASSERT_NO_FATAL_FAILURE(c.CheckAll()) << "after " << i << " inserts";
      for (int t = 0; t < 200; t++) {
        ASSERT_NO_FATAL_FAILURE(
            c.CheckTarget(keys.Make(FixedTarget(&rnd, inserted))))
            << "after " << i << " inserts";
      }
    }
  }
  ASSERT_GT(c.model().size(), 32u * 32 * 32);  // Depth >= 4.
  ASSERT_NO_FATAL_FAILURE(c.CheckAll());
  // Below the minimum and above the maximum (never inserted).
  ASSERT_NO_FATAL_FAILURE(c.CheckTarget(keys.Make(0)));
  ASSERT_NO_FATAL_FAILURE(c.CheckTarget(keys.Make(UINT64_MAX)));
  for (int t = 0; t < 30000; t++) {
    ASSERT_NO_FATAL_FAILURE(
        c.CheckTarget(keys.Make(FixedTarget(&rnd, inserted))));
  }
}

// Inserts 100000 fixed keys in one direction (steps of 1 to 1000, now and
// then a jump of up to 2^40), checking the tree against the set at
// checkpoints and with 20000 targets at the end.
void CheckMonotoneFixedKeys(bool ascending, FixedChecker* c) {
  const uint32_t seed = test::RandomSeed();
  Random64 rnd(seed);
  FixedKeys keys;
  std::vector<uint64_t> inserted;
  constexpr size_t kInserts = 100000;
  uint64_t v =
      ascending ? 1 + rnd.Uniform(1000) : UINT64_MAX - 1 - rnd.Uniform(1000);
  for (size_t i = 1; i <= kInserts; i++) {
    const uint64_t step =
        1 + (rnd.OneIn(10) ? rnd.Uniform(uint64_t{1} << 40) : 0);
    v = ascending ? v + step : v - step;
    ASSERT_NO_FATAL_FAILURE(c->Insert(keys.Make(v)));
    inserted.push_back(v);
    if (IsCheckpoint(i)) {
      ASSERT_NO_FATAL_FAILURE(c->CheckAll()) << "after " << i << " inserts";
      for (int t = 0; t < 200; t++) {
        ASSERT_NO_FATAL_FAILURE(
            c->CheckTarget(keys.Make(FixedTarget(&rnd, inserted))));
      }
    }
  }
  for (int t = 0; t < 20000; t++) {
    ASSERT_NO_FATAL_FAILURE(
        c->CheckTarget(keys.Make(FixedTarget(&rnd, inserted))));
  }
  ASSERT_NO_FATAL_FAILURE(c->CheckTarget(keys.Make(0)));
  ASSERT_NO_FATAL_FAILURE(c->CheckTarget(keys.Make(UINT64_MAX)));
}

// Ascending inserts take the append path: a full last leaf (and a full last
// inner node) keeps its keys and the new key starts the next one, so nodes
// end up full.
TEST(BTreeTest, FixedKeysAscendingFillNodes) {
  FixedChecker c;
  ASSERT_NO_FATAL_FAILURE(CheckMonotoneFixedKeys(/*ascending=*/true, &c));
  ExpectFullNodes(c.tree(), 100000);
}

TEST(BTreeTest, FixedKeysDescending) {
  FixedChecker c;
  ASSERT_NO_FATAL_FAILURE(CheckMonotoneFixedKeys(/*ascending=*/false, &c));
}

TEST(BTreeTest, StringKeysWithSharedPrefixesMatchStdSet) {
  CheckStringKeysAgainstStdSet<StringComparator>(test::RandomSeed());
}

TEST(BTreeTest, StringKeysWithSharedPrefixesMatchStdSetWithoutHeads) {
  CheckStringKeysAgainstStdSet<StringComparatorNoHeads>(test::RandomSeed());
}

TEST(BTreeTest, PrefixChainKeysAndEmptyKey) {
  CheckPrefixChain<StringComparator>(test::RandomSeed());
}

TEST(BTreeTest, PrefixChainKeysAndEmptyKeyWithoutHeads) {
  CheckPrefixChain<StringComparatorNoHeads>(test::RandomSeed());
}

// db_bench's fillrandom, fillseq and a descending fill.
template <class Cmp>
void CheckDbBenchKeys(uint32_t seed, int mode /* 0 random, 1 up, 2 down */) {
  Random rnd(seed);
  StringKeys store;
  Checker<const char*, Cmp> c;
  std::vector<const char*> inserted;
  constexpr uint64_t kNum = 120000;
  for (uint64_t i = 1; i <= kNum; i++) {
    const uint64_t k = mode == 0   ? rnd.Uniform(static_cast<int>(kNum))
                       : mode == 1 ? i - 1
                                   : kNum - i;
    const char* key = store.Add(DbBenchKey(k));
    ASSERT_NO_FATAL_FAILURE(c.Insert(key));
    inserted.push_back(key);
    if (IsCheckpoint(i)) {
      ASSERT_NO_FATAL_FAILURE(c.CheckAll()) << "after " << i << " inserts";
      for (int t = 0; t < 100; t++) {
        const std::string target = DbBenchKey(rnd.Uniform(kNum + 10));
        ASSERT_NO_FATAL_FAILURE(c.CheckTarget(target.c_str()));
      }
    }
  }
  ASSERT_NO_FATAL_FAILURE(c.CheckAll());
  for (int t = 0; t < 20000; t++) {
    std::string target = DbBenchKey(rnd.Uniform(kNum + 10));
    if (rnd.OneIn(4)) target.resize(rnd.Uniform(17));  // A proper prefix.
    if (rnd.OneIn(4)) target += rnd.OneIn(2) ? "\x01" : "5";
    ASSERT_NO_FATAL_FAILURE(c.CheckTarget(target.c_str()));
  }
  ASSERT_NO_FATAL_FAILURE(c.CheckTarget(""));
  ASSERT_NO_FATAL_FAILURE(c.CheckTarget("/"));  // Just below '0'.
  ASSERT_NO_FATAL_FAILURE(c.CheckTarget(":"));  // Just above '9'.
  if (mode == 1) ExpectFullNodes(c.tree(), kNum);
}

TEST(BTreeTest, DbBenchKeysRandomOrder) {
  CheckDbBenchKeys<StringComparator>(test::RandomSeed(), 0);
}

TEST(BTreeTest, DbBenchKeysRandomOrderWithoutHeads) {
  CheckDbBenchKeys<StringComparatorNoHeads>(test::RandomSeed(), 0);
}

TEST(BTreeTest, DbBenchKeysAscending) {
  CheckDbBenchKeys<StringComparator>(test::RandomSeed(), 1);
}

TEST(BTreeTest, DbBenchKeysDescending) {
  CheckDbBenchKeys<StringComparator>(test::RandomSeed(), 2);
}

// Many entries share a user key, so whole leaves and inner nodes hold keys
// with equal bytes and heads; the comparator orders them.
TEST(BTreeTest, EntriesWithEqualBytesMatchStdSet) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  std::vector<const char*> user_keys;
  StringKeys strings;
  std::unordered_set<std::string> seen;
  while (user_keys.size() < 8000) {
    std::string k = RandomStringKey(&rnd, user_keys);
    if (seen.insert(k).second) user_keys.push_back(strings.Add(std::move(k)));
  }
  std::deque<Entry> entries;
  std::vector<const Entry*> order;
  for (const char* u : user_keys) {
    // Most user keys have a few versions; some have hundreds.
    const int versions =
        rnd.OneIn(40) ? 100 + rnd.Uniform(200) : 1 + rnd.Uniform(5);
    for (int v = 0; v < versions; v++) {
      entries.push_back(Entry{u, 1 + rnd.Uniform(1000000)});
      order.push_back(&entries.back());
    }
  }
  Random64 rnd64(seed);
  Shuffle(&order, &rnd64);

  Checker<const Entry*, EntryComparator> c;
  std::deque<Entry> targets;
  auto target = [&]() -> const Entry* {
    std::string u = user_keys[rnd.Uniform(static_cast<int>(user_keys.size()))];
    switch (rnd.Uniform(4)) {
      case 0:
        break;
      case 1:
        u.resize(rnd.Uniform(static_cast<int>(u.size())));
        break;
      case 2:
        u += "\x01";
        break;
      default:
        u = RandomStringKey(&rnd, user_keys);
        break;
    }
    const uint64_t seq = rnd.OneIn(4)   ? UINT64_MAX
                         : rnd.OneIn(4) ? 0
                                        : rnd.Uniform(1000001);
    targets.push_back(Entry{u, seq});
    return &targets.back();
  };
  size_t i = 0;
  for (const Entry* e : order) {
    ASSERT_NO_FATAL_FAILURE(c.Insert(e));
    if (IsCheckpoint(++i)) {
      ASSERT_NO_FATAL_FAILURE(c.CheckAll()) << "after " << i << " inserts";
      for (int t = 0; t < 200; t++) {
        ASSERT_NO_FATAL_FAILURE(c.CheckTarget(target()));
      }
    }
  }
  ASSERT_GT(c.model().size(), 32u * 32 * 32);
  ASSERT_NO_FATAL_FAILURE(c.CheckAll());
  for (int t = 0; t < 20000; t++) {
    ASSERT_NO_FATAL_FAILURE(c.CheckTarget(target()));
  }
  // Every version of a user key with many, newest first, by Seek to the
  // newest possible and Next.
  for (int t = 0; t < 200; t++) {
    Entry newest{user_keys[rnd.Uniform(static_cast<int>(user_keys.size()))],
                 UINT64_MAX};
    ASSERT_NO_FATAL_FAILURE(c.CheckTarget(&newest));
  }
}

// Integer keys (Key = uint64_t), which have no byte string to point at:
// heads off.
struct IntegerComparator {
  int operator()(const uint64_t& a, const uint64_t& b) const {
    return a < b ? -1 : (a > b ? +1 : 0);
  }
  Slice Bytes(const uint64_t&) const { return Slice(); }
  static std::string Show(uint64_t k) { return std::to_string(k); }
};

TEST(BTreeTest, IntegerKeysMatchStdSet) {
  const uint32_t seed = test::RandomSeed();
  Random64 rnd(seed);
  Checker<uint64_t, IntegerComparator> c;
  std::vector<uint64_t> inserted;
  for (size_t i = 1; i <= 60000; i++) {
    const uint64_t v = !inserted.empty() && rnd.OneIn(5)
                           ? inserted[rnd.Uniform(inserted.size())]
                           : RandomValue(&rnd, inserted);
    ASSERT_NO_FATAL_FAILURE(c.Insert(v));
    inserted.push_back(v);
    if (IsCheckpoint(i)) {
      ASSERT_NO_FATAL_FAILURE(c.CheckAll()) << "after " << i << " inserts";
    }
  }
  ASSERT_NO_FATAL_FAILURE(c.CheckAll());
  ASSERT_NO_FATAL_FAILURE(c.CheckTarget(0));
  ASSERT_NO_FATAL_FAILURE(c.CheckTarget(UINT64_MAX));
  for (int t = 0; t < 20000; t++) {
    ASSERT_NO_FATAL_FAILURE(c.CheckTarget(FixedTarget(&rnd, inserted)));
  }
}

// An iterator left at a key while many keys are inserted around it (its
// leaf splits many times, and so do its neighbours) moves to the key's true
// neighbours in the tree as it is now, including keys inserted since.
TEST(BTreeTest, PositionedIteratorMovesToNeighborsInsertedSince) {
  const uint32_t seed = test::RandomSeed();
  Random64 rnd(seed);
  FixedKeys keys;
  FixedChecker c;
  constexpr uint64_t kGap = uint64_t{1} << 20;
  constexpr uint64_t kInitial = 2000;
  for (uint64_t i = 1; i <= kInitial; i++) {
    ASSERT_NO_FATAL_FAILURE(c.Insert(keys.Make(i * kGap)));
  }
  std::vector<uint64_t> at = {
      kGap,           2 * kGap, 1000 * kGap, 1001 * kGap, (kInitial - 1) * kGap,
      kInitial * kGap};
  for (int i = 0; i < 14; i++) at.push_back((1 + rnd.Uniform(kInitial)) * kGap);
  std::vector<FixedTree::Iterator> forward, backward;
  for (uint64_t a : at) {
    forward.emplace_back(&c.tree());
    backward.emplace_back(&c.tree());
    forward.back().Seek(keys.Make(a));
    backward.back().SeekForPrev(keys.Make(a));
    ASSERT_TRUE(forward.back().Valid());
    ASSERT_EQ(a, DecodeBigEndian(forward.back().key()));
    ASSERT_TRUE(backward.back().Valid());
    ASSERT_EQ(a, DecodeBigEndian(backward.back().key()));
  }

  // Around half of the positions, 80 keys right next to it; everywhere,
  // 100000 random keys, some below the first and above the last.
  for (size_t p = 0; p < at.size(); p += 2) {
    for (uint64_t d = 1; d <= 40; d++) {
      ASSERT_NO_FATAL_FAILURE(c.Insert(keys.Make(at[p] + d)));
      ASSERT_NO_FATAL_FAILURE(c.Insert(keys.Make(at[p] - d)));
    }
  }
  ASSERT_NO_FATAL_FAILURE(c.Insert(keys.Make(1)));
  ASSERT_NO_FATAL_FAILURE(c.Insert(keys.Make((kInitial + 1) * kGap)));
  for (int i = 0; i < 100000; i++) {
    ASSERT_NO_FATAL_FAILURE(
        c.Insert(keys.Make(1 + rnd.Uniform((kInitial + 2) * kGap))));
  }

  for (size_t p = 0; p < at.size(); p++) {
    const char* a = keys.Make(at[p]);
    ASSERT_EQ(at[p], DecodeBigEndian(forward[p].key()));
    auto next = c.model().upper_bound(a);
    for (int step = 0; step < 100; step++, ++next) {
      forward[p].Next();
      ASSERT_TRUE(c.At(forward[p], next))
          << "Next #" << step << " from " << at[p];
      if (next == c.model().end()) break;
    }
    auto prev = c.model().lower_bound(a);
    for (int step = 0; step < 100; step++) {
      backward[p].Prev();
      if (prev == c.model().begin()) {
        ASSERT_FALSE(backward[p].Valid()) << "Prev from " << at[p];
        break;
      }
      --prev;
      ASSERT_TRUE(c.At(backward[p], prev))
          << "Prev #" << step << " from " << at[p];
    }
  }
}

// Stepping an iterator while inserting around it at every step: each Next
// (Prev) lands on the successor (predecessor) in the tree at that time:
// right after the current key, in a burst that splits its leaf, between it
// and its old neighbour, or far away.
TEST(BTreeTest, IteratorStepsToTrueNeighborsWhileInsertsHappenAroundIt) {
  const uint32_t seed = test::RandomSeed();
  for (bool forward : {true, false}) {
    SCOPED_TRACE(forward ? "forward" : "backward");
    Random64 rnd(seed + (forward ? 0 : 1));
    FixedKeys keys;
    FixedChecker c;
    constexpr uint64_t kLow = uint64_t{1} << 20;
    constexpr uint64_t kRange = uint64_t{1} << 40;
    for (int i = 0; i < 3000; i++) {
      ASSERT_NO_FATAL_FAILURE(c.Insert(keys.Make(kLow + rnd.Uniform(kRange))));
    }
    const int dir = forward ? +1 : -1;
    FixedChecker::Iter it(&c.tree());
    if (forward) {
      it.SeekToFirst();
    } else {
      it.SeekToLast();
    }
    size_t steps = 0;
    while (it.Valid()) {
      const char* cur = it.key();
      const uint64_t v = DecodeBigEndian(cur);
      if (c.model().size() < 40000) {
        switch (rnd.Uniform(6)) {
          case 0:  // The very next key.
            ASSERT_NO_FATAL_FAILURE(c.Insert(keys.Make(v + dir)));
            break;
          case 1:  // Just behind.
            ASSERT_NO_FATAL_FAILURE(c.Insert(keys.Make(v - dir)));
            break;
          case 2:  // A burst ahead, splitting the current leaf.
            for (int d = 2; d < 42; d++) {
              ASSERT_NO_FATAL_FAILURE(c.Insert(keys.Make(v + dir * d)));
            }
            break;
          case 3: {  // Between the current key and its neighbour.
            auto n = forward ? c.model().upper_bound(cur)
                             : c.model().lower_bound(cur);
            if (forward && n != c.model().end()) {
              const uint64_t w = DecodeBigEndian(*n);
              ASSERT_NO_FATAL_FAILURE(c.Insert(keys.Make(v + (w - v) / 2)));
            } else if (!forward && n != c.model().begin()) {
              const uint64_t w = DecodeBigEndian(*std::prev(n));
              ASSERT_NO_FATAL_FAILURE(c.Insert(keys.Make(w + (v - w) / 2)));
            }
            break;
          }
          case 4:
            ASSERT_NO_FATAL_FAILURE(
                c.Insert(keys.Make(kLow + rnd.Uniform(kRange))));
            break;
          default:
            break;
        }
      }
      FixedChecker::Pos expected;
      if (forward) {
        expected = c.model().upper_bound(cur);
        it.Next();
      } else {
        expected = c.model().lower_bound(cur);
        expected = expected == c.model().begin() ? c.model().end()
                                                 : std::prev(expected);
        it.Prev();
      }
      ASSERT_TRUE(c.At(it, expected)) << "step " << steps << " from " << v;
      steps++;
    }
    EXPECT_GT(steps, 3000u);
    ASSERT_NO_FATAL_FAILURE(c.CheckAll());
  }
}

// One writer inserts table's keys (in key order) in random order while
// readers scan both ways and seek, continuously: every scan is strictly
// ordered and holds every key published before it began; a seek of a
// published key lands on it; a seek of a target in the gap between two
// keys lands on the published key next to it. gap(s, &buf) returns a
// target strictly between keys s - 1 and s (kept in buf), or nullptr.
template <class Cmp, class Gap>
void CheckReadersDuringInserts(const KeyTable& table, const Gap& gap,
                               uint32_t seed) {
  using Tree = BTree<const char*, Cmp>;
  const size_t n = table.size();
  auto show = [&](size_t i) { return Cmp::Show(table.key(i)); };
  // The writer inserts table.key(order[0]), table.key(order[1]), ...
  const std::vector<size_t> order = ShuffledIndexes(n, seed);
  std::vector<size_t> position(n);  // position[order[j]] == j
  for (size_t j = 0; j < n; j++) position[order[j]] = j;

  Arena arena;
  Tree tree(Cmp(), &arena);
  // Keys order[0, published) are in the tree. Release/acquire: a reader
  // that sees the count also sees those insertions.
  std::atomic<size_t> published{0};
  std::atomic<bool> writer_done{false};
  std::atomic<int> readers_started{0};
  std::atomic<int> rounds{0};
  std::atomic<bool> failed{false};
  constexpr int kReaders = 2;

  // A full scan; "" or the first violation.
  auto scan = [&](bool forward, std::vector<uint32_t>* stamp,
                  uint32_t id) -> std::string {
    const std::string dir = forward ? "forward" : "backward";
    const size_t known = published.load(std::memory_order_acquire);
    typename Tree::Iterator it(&tree);
    if (forward) {
      it.SeekToFirst();
    } else {
      it.SeekToLast();
    }
    size_t prev = n;
    for (; it.Valid(); forward ? it.Next() : it.Prev()) {
      const size_t idx = table.IndexOf(it.key());
      if (idx == n) return dir + " scan returned a pointer to no key";
      if (prev != n && (forward ? idx <= prev : idx >= prev)) {
        return dir + " scan out of order: " + show(prev) + " then " + show(idx);
      }
      (*stamp)[idx] = id;
      prev = idx;
    }
    for (size_t j = 0; j < known; j++) {
      if ((*stamp)[order[j]] != id) {
        return dir + " scan missed published key " + show(order[j]) + " (" +
               std::to_string(j) + " of " + std::to_string(known) +
               " published)";
      }
    }
    return "";
  };

  // Point lookups; "" or the first violation.
  auto probe = [&](Random64* rnd) -> std::string {
    typename Tree::Iterator it(&tree);
    std::string buf;
    for (int p = 0; p < 64; p++) {
      const size_t s = rnd->Uniform(n);
      const std::string name = show(s);
      size_t known = published.load(std::memory_order_acquire);
      bool present = position[s] < known;
      if (present && !tree.Contains(table.key(s))) {
        return "Contains missed published key " + name;
      }
      it.Seek(table.key(s));
      size_t got = it.Valid() ? table.IndexOf(it.key()) : n;
      if (present ? got != s : (it.Valid() && got < s)) {
        return "Seek(" + name + ") landed wrong";
      }
      it.SeekForPrev(table.key(s));
      got = it.Valid() ? table.IndexOf(it.key()) : n;
      if (present ? got != s : (it.Valid() && got > s)) {
        return "SeekForPrev(" + name + ") landed wrong";
      }
      // A target in the gap just below key s, when there is one.
      const char* target = s > 0 ? gap(s, &buf) : nullptr;
      if (target == nullptr) continue;
      known = published.load(std::memory_order_acquire);
      present = position[s] < known;
      const bool below_present = position[s - 1] < known;
      it.Seek(target);
      got = it.Valid() ? table.IndexOf(it.key()) : n;
      if (it.Valid() ? (got < s || (present && got != s)) : present) {
        return "Seek(gap below " + name + ") landed wrong";
      }
      if (it.Valid() && got == s) {
        it.Prev();
        got = it.Valid() ? table.IndexOf(it.key()) : n;
        if (it.Valid() ? (got >= s || (below_present && got != s - 1))
                       : below_present) {
          return "Seek(gap below " + name + "), Prev landed wrong";
        }
      }
      it.SeekForPrev(target);
      got = it.Valid() ? table.IndexOf(it.key()) : n;
      if (it.Valid() ? (got >= s || (below_present && got != s - 1))
                     : below_present) {
        return "SeekForPrev(gap below " + name + ") landed wrong";
      }
      if (it.Valid() && got == s - 1) {
        it.Next();
        got = it.Valid() ? table.IndexOf(it.key()) : n;
        if (it.Valid() ? (got < s || (present && got != s)) : present) {
          return "SeekForPrev(gap below " + name + "), Next landed wrong";
        }
      }
    }
    return "";
  };

  auto reader = [&](uint32_t reader_seed) {
    Random64 rnd(reader_seed);
    std::vector<uint32_t> stamp(n, 0);
    uint32_t id = 0;
    readers_started.fetch_add(1, std::memory_order_release);
    bool last_round = false;
    while (!last_round) {
      last_round = writer_done.load(std::memory_order_acquire);
      for (bool forward : {true, false}) {
        const std::string error = scan(forward, &stamp, ++id);
        if (!error.empty()) {
          ADD_FAILURE() << error;
          failed.store(true);
          return;
        }
      }
      const std::string error = probe(&rnd);
      if (!error.empty()) {
        ADD_FAILURE() << error;
        failed.store(true);
        return;
      }
      rounds.fetch_add(1, std::memory_order_relaxed);
    }
  };

  std::vector<std::thread> readers;
  for (int i = 0; i < kReaders; i++) readers.emplace_back(reader, seed + i + 1);
  WaitFor(readers_started, kReaders);
  constexpr size_t kPause = 500;
  for (size_t j = 0; j < n && !failed.load(); j++) {
    if (!tree.Insert(table.key(order[j]))) {
      ADD_FAILURE() << "Insert of a new key failed: " << show(order[j]);
      failed.store(true);
      break;
    }
    published.store(j + 1, std::memory_order_release);
    if (j % kPause == kPause - 1) {
      // Let the readers complete rounds against this partial tree, so
      // reads and inserts interleave however fast the writer is.
      const int target = rounds.load(std::memory_order_relaxed) + kReaders;
      while (rounds.load(std::memory_order_relaxed) < target &&
             !failed.load()) {
        std::this_thread::yield();
      }
    }
  }
  writer_done.store(true, std::memory_order_release);
  for (std::thread& t : readers) t.join();

  EXPECT_GE(rounds.load(), static_cast<int>(n / kPause) * kReaders);
  EXPECT_EQ(n, tree.Size());
  typename Tree::Iterator it(&tree);
  size_t i = 0;
  for (it.SeekToFirst(); it.Valid(); it.Next(), i++) {
    ASSERT_EQ(i, table.IndexOf(it.key()));
  }
  EXPECT_EQ(n, i);
}

// Fixed keys with KeyBytes: each key a scan asks the size of is recorded
// in asked_keys, which the test sets.
struct AskedKeys {
  const KeyTable* table = nullptr;
  std::atomic<size_t> asks{0};
  // Asks about a pointer to no key of the table: a slot read ahead that
  // was never written, or a stale pointer into a node.
  std::atomic<size_t> strays{0};
  std::vector<size_t> order;  // indexes asked, in turn (one reader only)
  bool record_order = false;
};
AskedKeys* asked_keys = nullptr;

struct FixedComparatorWithKeyBytes : FixedComparator {
  size_t KeyBytes(const char* k) const {
    asked_keys->asks.fetch_add(1, std::memory_order_relaxed);
    const size_t idx = asked_keys->table->IndexOf(k);
    if (idx == asked_keys->table->size()) {
      asked_keys->strays.fetch_add(1, std::memory_order_relaxed);
    } else if (asked_keys->record_order) {
      asked_keys->order.push_back(idx);
    }
    return 8;
  }
};

// A scan asks the sizes of keys it has returned already (their bytes were
// read, and are whole), never of keys ahead of it, and only now and then
// (asking at every step slowed a fast scan). Inserts ask nothing.
TEST(BTreeTest, ScanAsksKeySizesOfKeysItPassed) {
  const uint32_t seed = test::RandomSeed();
  constexpr size_t kKeys = 20000;
  const KeyTable table = FixedKeyTable(SortedDistinctValues(seed, kKeys));
  AskedKeys asked;
  asked.table = &table;
  asked_keys = &asked;
  Arena arena;
  BTree<const char*, FixedComparatorWithKeyBytes> tree(
      FixedComparatorWithKeyBytes(), &arena);
  for (size_t i : ShuffledIndexes(kKeys, seed)) {
    ASSERT_TRUE(tree.Insert(table.key(i)));
  }
  EXPECT_EQ(0u, asked.asks.load());

  asked.record_order = true;
  BTree<const char*, FixedComparatorWithKeyBytes>::Iterator it(&tree);
  size_t step = 0;
  for (it.SeekToFirst(); it.Valid(); it.Next(), step++) {
    ASSERT_EQ(step, table.IndexOf(it.key()));
    // Asked while moving to key step: only about keys before it.
    for (size_t idx : asked.order) {
      ASSERT_LT(idx, step) << "asked the size of key " << idx
                           << " before the scan returned it";
    }
    asked.order.clear();
  }
  EXPECT_EQ(kKeys, step);
  EXPECT_EQ(0u, asked.strays.load());
  // At least once per leaf (the leaves hold 32 keys at most), and far
  // from every step.
  EXPECT_GE(asked.asks.load(), kKeys / 32);
  EXPECT_LE(asked.asks.load(), kKeys / 8);
  asked_keys = nullptr;
}

// CheckReadersDuringInserts over table, the fixed keys of values (sorted,
// distinct), with the targets between them.
template <class Cmp>
void CheckReadersDuringFixedInserts(const std::vector<uint64_t>& values,
                                    const KeyTable& table, uint32_t seed) {
  auto gap = [&](size_t s, std::string* buf) -> const char* {
    if (values[s] - 1 == values[s - 1]) return nullptr;
    buf->resize(8);
    EncodeBigEndian(values[s] - 1, &(*buf)[0]);
    return buf->data();
  };
  CheckReadersDuringInserts<Cmp>(table, gap, seed);
}

TEST(BTreeTest, ReadersSeeEveryPublishedKeyInOrderDuringInserts) {
  const uint32_t seed = test::RandomSeed();
  // Depth 4 before the end.
  const std::vector<uint64_t> values = SortedDistinctValues(seed, 60000);
  CheckReadersDuringFixedInserts<FixedComparator>(values, FixedKeyTable(values),
                                                  seed);
}

// The same with a comparator that has KeyBytes: while nodes change under
// them, scans ask the sizes of keys of the table only (never of a slot
// that was not written, whose bytes a memtable would decode).
TEST(BTreeTest, ReadersAskKeySizesOnlyOfKeysDuringInserts) {
  const uint32_t seed = test::RandomSeed();
  const std::vector<uint64_t> values = SortedDistinctValues(seed, 60000);
  const KeyTable table = FixedKeyTable(values);
  AskedKeys asked;
  asked.table = &table;
  asked_keys = &asked;
  CheckReadersDuringFixedInserts<FixedComparatorWithKeyBytes>(values, table,
                                                              seed);
  EXPECT_GT(asked.asks.load(), 0u);  // the readers' scans asked
  EXPECT_EQ(0u, asked.strays.load());
  asked_keys = nullptr;
}

// The same with string keys that share long prefixes, with and without
// heads: the writer shortens node prefixes and rewrites heads in place
// while readers compare against them.
template <class Cmp>
void CheckReadersDuringStringInserts(uint32_t seed) {
  constexpr size_t kKeys = 50000;
  constexpr size_t kStride = 64;
  Random rnd(seed);
  std::vector<const char*> earlier;
  StringKeys store;
  std::set<std::string> distinct;
  while (distinct.size() < kKeys) {
    std::string k = RandomStringKey(&rnd, earlier);
    if (k.size() >= kStride || !distinct.insert(k).second) continue;
    earlier.push_back(store.Add(std::move(k)));
  }
  // std::string orders by unsigned bytes, as strcmp does.
  const std::vector<std::string> sorted(distinct.begin(), distinct.end());
  const KeyTable table(sorted, kStride);
  auto gap = [&](size_t s, std::string* buf) -> const char* {
    *buf = sorted[s - 1] + "\x01";
    return *buf < sorted[s] ? buf->c_str() : nullptr;
  };
  CheckReadersDuringInserts<Cmp>(table, gap, seed);
}

TEST(BTreeTest, ReadersSeeEveryPublishedStringKeyInOrderDuringInserts) {
  CheckReadersDuringStringInserts<StringComparator>(test::RandomSeed());
}

TEST(BTreeTest,
     ReadersSeeEveryPublishedStringKeyInOrderDuringInsertsWithoutHeads) {
  CheckReadersDuringStringInserts<StringComparatorNoHeads>(test::RandomSeed());
}

// Checks that tree holds exactly table's keys (sorted values), in order
// both ways, each found by Contains.
void ExpectExactlyTheTable(const FixedTree& tree, const KeyTable& table) {
  EXPECT_EQ(table.size(), tree.Size());
  FixedTree::Iterator it(&tree);
  size_t i = 0;
  for (it.SeekToFirst(); it.Valid(); it.Next(), i++) {
    ASSERT_EQ(i, table.IndexOf(it.key())) << FixedComparator::Show(it.key());
  }
  EXPECT_EQ(table.size(), i);
  for (it.SeekToLast(); it.Valid(); it.Prev()) {
    ASSERT_GT(i, 0u);
    i--;
    ASSERT_EQ(i, table.IndexOf(it.key())) << FixedComparator::Show(it.key());
  }
  EXPECT_EQ(0u, i);
  for (size_t k = 0; k < table.size(); k++) {
    ASSERT_TRUE(tree.Contains(table.key(k))) << k;
  }
}

TEST(BTreeTest, ConcurrentInsertersWithDisjointKeys) {
  const uint32_t seed = test::RandomSeed();
  constexpr int kThreads = 4;
  constexpr size_t kPerThread = 25000;
  const std::vector<uint64_t> values =
      SortedDistinctValues(seed, kThreads * kPerThread);
  const KeyTable table = FixedKeyTable(values);
  const std::vector<size_t> order = ShuffledIndexes(values.size(), seed);

  Arena arena;
  FixedTree tree(FixedComparator(), &arena);
  std::atomic<int> ready{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1, std::memory_order_release);
      WaitFor(ready, kThreads);  // Start together to maximize overlap.
      for (size_t i = t * kPerThread; i < (t + 1) * kPerThread; i++) {
        if (!tree.InsertConcurrently(table.key(order[i]))) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(0, failures.load());
  ExpectExactlyTheTable(tree, table);
}

// Every key is inserted by two threads, each from its own copy of the key
// (another address): exactly one of the two inserts succeeds, and the tree
// holds the winner's copy.
TEST(BTreeTest, ConcurrentInsertersWithOverlappingKeysInsertEachOnce) {
  const uint32_t seed = test::RandomSeed();
  constexpr int kThreads = 4;
  constexpr size_t kKeys = 40000;
  const std::vector<uint64_t> values = SortedDistinctValues(seed, kKeys);
  std::vector<std::unique_ptr<KeyTable>> copies;
  for (int t = 0; t < kThreads; t++) {
    copies.push_back(std::make_unique<KeyTable>(FixedKeyTable(values)));
  }
  // Thread t inserts keys t * kKeys / 4 ... for half the key space, wrapping
  // around, in its own random order.
  std::vector<std::vector<size_t>> work(kThreads);
  Random64 rnd(seed);
  for (int t = 0; t < kThreads; t++) {
    for (size_t j = 0; j < kKeys / 2; j++) {
      work[t].push_back((t * kKeys / kThreads + j) % kKeys);
    }
    Shuffle(&work[t], &rnd);
  }
  std::vector<std::atomic<int>> winner(kKeys);
  for (auto& w : winner) w.store(-1);

  Arena arena;
  FixedTree tree(FixedComparator(), &arena);
  std::atomic<int> ready{0};
  std::atomic<int> double_wins{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1, std::memory_order_release);
      WaitFor(ready, kThreads);
      for (size_t s : work[t]) {
        if (tree.InsertConcurrently(copies[t]->key(s))) {
          int expected = -1;
          if (!winner[s].compare_exchange_strong(expected, t)) {
            double_wins.fetch_add(1);
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(0, double_wins.load());
  EXPECT_EQ(kKeys, tree.Size());
  FixedTree::Iterator it(&tree);
  size_t i = 0;
  for (it.SeekToFirst(); it.Valid(); it.Next(), i++) {
    ASSERT_LT(i, kKeys);
    const int w = winner[i].load();
    ASSERT_GE(w, 0) << "no insert of " << values[i] << " succeeded";
    ASSERT_EQ(i, copies[w]->IndexOf(it.key()))
        << "position " << i << " holds " << FixedComparator::Show(it.key())
        << ", not the copy of " << values[i] << " that thread " << w
        << " inserted";
  }
  EXPECT_EQ(kKeys, i);
  for (it.SeekToLast(); it.Valid(); it.Prev()) {
    ASSERT_GT(i, 0u);
    i--;
    ASSERT_EQ(i, copies[winner[i].load()]->IndexOf(it.key()));
  }
  EXPECT_EQ(0u, i);
}

TEST(BTreeTest, ReaderSeesOrderedKeysDuringConcurrentInserters) {
  const uint32_t seed = test::RandomSeed();
  constexpr int kWriters = 2;
  constexpr size_t kPerThread = 20000;
  const std::vector<uint64_t> values =
      SortedDistinctValues(seed, kWriters * kPerThread);
  const KeyTable table = FixedKeyTable(values);
  const std::vector<size_t> order = ShuffledIndexes(values.size(), seed);

  Arena arena;
  FixedTree tree(FixedComparator(), &arena);
  std::atomic<int> ready{0};
  std::atomic<int> writers_done{0};
  std::atomic<int> scans{0};
  std::thread reader([&] {
    ready.fetch_add(1, std::memory_order_release);
    bool last_round = false;
    while (!last_round) {
      last_round = writers_done.load(std::memory_order_acquire) == kWriters;
      FixedTree::Iterator it(&tree);
      size_t prev = table.size();
      size_t count = 0;
      for (it.SeekToFirst(); it.Valid(); it.Next()) {
        const size_t idx = table.IndexOf(it.key());
        if (idx == table.size() || (prev != table.size() && prev >= idx)) {
          ADD_FAILURE() << "bad key at scan position " << count;
          return;
        }
        prev = idx;
        count++;
      }
      if (last_round && count != table.size()) {
        ADD_FAILURE() << "final scan saw " << count << " keys";
      }
      scans.fetch_add(1);
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kWriters; t++) {
    writers.emplace_back([&, t] {
      ready.fetch_add(1, std::memory_order_release);
      WaitFor(ready, kWriters + 1);
      for (size_t i = t * kPerThread; i < (t + 1) * kPerThread; i++) {
        EXPECT_TRUE(tree.InsertConcurrently(table.key(order[i])));
      }
      writers_done.fetch_add(1, std::memory_order_release);
    });
  }
  for (std::thread& t : writers) t.join();
  reader.join();
  EXPECT_GE(scans.load(), 1);
  ExpectExactlyTheTable(tree, table);
}

}  // namespace
}  // namespace cascadedb

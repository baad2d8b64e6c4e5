// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cascadedb/cache.h"
#include "cascadedb/comparator.h"
#include "cascadedb/env.h"
#include "cascadedb/filter_policy.h"
#include "cascadedb/iterator.h"
#include "cascadedb/statistics.h"
#include "table/block_admission.h"
#include "table/compression_queue.h"
#include "table/format.h"
#include "table/table_builder.h"
#include "table/table_key_format.h"
#include "tests/table/iterator_test_util.h"
#include "tests/table/table_test_util.h"
#include "tests/testutil/test_util.h"
#include "util/coding.h"
#include "util/mutex.h"
#include "util/random.h"

namespace cascadedb {
namespace {

using KVMap = std::map<std::string, std::string>;
using test::StringSink;
using test::StringSource;

constexpr char kFileName[] = "000042.sst";

// Builds a table of kv (in order) and returns its bytes.
std::string BuildTable(const TableOptions& options, const KVMap& kv,
                       TableProperties* properties = nullptr) {
  StringSink sink;
  TableBuilder builder(options, &sink);
  for (const auto& [k, v] : kv) builder.Add(k, v);
  Status s = builder.Finish();
  EXPECT_OK(s);
  EXPECT_EQ(sink.contents().size(), builder.FileSize());
  if (properties != nullptr) *properties = builder.properties();
  return sink.contents();
}

// Opens contents as a table; *source (if not null) gets the file, which the
// table owns.
Status OpenTable(const TableOptions& options, const std::string& contents,
                 std::unique_ptr<Table>* table, StringSource** source = nullptr,
                 bool mapped = false) {
  auto file = std::make_unique<StringSource>(contents, mapped);
  if (source != nullptr) *source = file.get();
  return Table::Open(options, std::move(file), contents.size(), kFileName,
                     table);
}

struct GetResult {
  int calls = 0;
  std::string key;
  std::string value;
};

void SaveResult(void* arg, const Slice& k, const Slice& v) {
  GetResult* r = static_cast<GetResult*>(arg);
  ++r->calls;
  r->key = k.ToString();
  r->value = v.ToString();
}

Status Get(const Table& table, const Slice& key, GetResult* result,
           const ReadOptions& options = ReadOptions()) {
  *result = GetResult();
  return table.InternalGet(options, key, result, &SaveResult);
}

// Random keys sharing prefixes, with values that are sometimes
// compressible and sometimes not.
KVMap RandomKV(Random* rnd, uint32_t* state, int n) {
  KVMap kv;
  while (static_cast<int>(kv.size()) < n) {
    std::string key = "user" + std::to_string(rnd->Uniform(100)) + "/" +
                      test::RandomBytes(state, 1 + rnd->Uniform(16), true);
    std::string value;
    if (rnd->OneIn(2)) {
      value = std::string(rnd->Uniform(300),
                          static_cast<char>('a' + rnd->Uniform(26)));
    } else {
      value = test::RandomBytes(state, rnd->Uniform(100));
    }
    kv[key] = value;
  }
  return kv;
}

// Keys "key000000".. with values of value_size bytes.
KVMap SequentialKV(int n, size_t value_size) {
  KVMap kv;
  for (int i = 0; i < n; ++i) {
    char key[32];
    snprintf(key, sizeof(key), "key%06d", i);
    kv[key] = std::string(value_size, static_cast<char>('a' + i % 26));
  }
  return kv;
}

std::vector<test::Entry> Scan(Iterator* iter) {
  std::vector<test::Entry> out;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    out.emplace_back(iter->key().ToString(), iter->value().ToString());
  }
  return out;
}

// ---------------------------------------------------------------- round trip

using RoundTripParam = std::tuple<CompressionType, size_t, bool>;

class TableRoundTripTest : public ::testing::TestWithParam<RoundTripParam> {
 protected:
  void SetUp() override {
    seed_ = test::RandomSeed();
    rnd_ = std::make_unique<Random>(seed_);
    uint32_t state = seed_;
    kv_ = RandomKV(rnd_.get(), &state, 2000);
    entries_.assign(kv_.begin(), kv_.end());
    bloom_ = NewBloomFilterPolicy(10);
    options_.compression = std::get<0>(GetParam());
    options_.block_size = std::get<1>(GetParam());
    if (std::get<2>(GetParam())) {
      // The bloom filter, and the index searched by key heads.
      options_.filter_policy = bloom_.get();
      options_.user_keys_bytewise = true;
    }
    contents_ = BuildTable(options_, kv_, &properties_);
    ASSERT_OK(OpenTable(options_, contents_, &table_));
  }

  uint32_t seed_ = 0;
  std::unique_ptr<Random> rnd_;
  KVMap kv_;
  std::vector<test::Entry> entries_;
  std::unique_ptr<const FilterPolicy> bloom_;
  TableOptions options_;
  std::string contents_;
  TableProperties properties_;
  std::unique_ptr<Table> table_;
};

TEST_P(TableRoundTripTest, ScanReturnsEveryEntryInBothDirections) {
  std::unique_ptr<Iterator> iter(table_->NewIterator(ReadOptions()));
  EXPECT_EQ(entries_, Scan(iter.get()));
  std::vector<test::Entry> backward;
  for (iter->SeekToLast(); iter->Valid(); iter->Prev()) {
    backward.emplace_back(iter->key().ToString(), iter->value().ToString());
  }
  std::reverse(backward.begin(), backward.end());
  EXPECT_EQ(entries_, backward);
  EXPECT_OK(iter->status());
}

TEST_P(TableRoundTripTest, RandomSeeksAndStepsMatchModel) {
  std::unique_ptr<Iterator> iter(table_->NewIterator(ReadOptions()));
  const std::vector<test::Entry>* entries = &entries_;
  uint32_t state = seed_ + 1;
  test::CheckAgainstModel(
      iter.get(), BytewiseComparator(), entries_, rnd_.get(), 3000,
      [entries, &state](Random* r) {
        switch (r->Uniform(4)) {
          case 0:  // an existing key
            return (*entries)[r->Uniform(static_cast<int>(entries->size()))]
                .first;
          case 1:  // just after an existing key
            return (*entries)[r->Uniform(static_cast<int>(entries->size()))]
                       .first +
                   std::string(1, '\0');
          case 2:  // outside the key range
            return std::string(r->OneIn(2) ? "" : "zzzz");
          default:
            return "user" + test::RandomBytes(&state, r->Uniform(6), true);
        }
      });
}

TEST_P(TableRoundTripTest, GetFindsEveryKey) {
  for (const auto& [k, v] : kv_) {
    GetResult r;
    ASSERT_OK(Get(*table_, k, &r));
    ASSERT_EQ(1, r.calls) << k;
    ASSERT_EQ(k, r.key);
    ASSERT_EQ(v, r.value);
  }
}

TEST_P(TableRoundTripTest, GetOfAbsentKeyNeverReturnsAWrongEntry) {
  uint32_t state = seed_ + 2;
  for (int i = 0; i < 2000; ++i) {
    const std::string key =
        "user" + std::to_string(rnd_->Uniform(100)) + "/" +
        test::RandomBytes(&state, 1 + rnd_->Uniform(16), true) + "~";
    if (kv_.count(key) != 0) continue;
    GetResult r;
    ASSERT_OK(Get(*table_, key, &r));
    if (r.calls == 0) continue;  // filtered out, or past its block
    auto next = kv_.lower_bound(key);
    ASSERT_NE(kv_.end(), next) << key;
    EXPECT_EQ(next->first, r.key) << key;
    EXPECT_EQ(next->second, r.value) << key;
  }
}

TEST_P(TableRoundTripTest, PropertiesDescribeTheTable) {
  const TableProperties& p = table_->properties();
  EXPECT_EQ(kv_.size(), p.num_entries);
  uint64_t raw_key_size = 0, raw_value_size = 0;
  for (const auto& [k, v] : kv_) {
    raw_key_size += k.size();
    raw_value_size += v.size();
  }
  EXPECT_EQ(raw_key_size, p.raw_key_size);
  EXPECT_EQ(raw_value_size, p.raw_value_size);
  EXPECT_EQ(0u, p.num_deletions);
  EXPECT_EQ(CompressionTypeName(options_.compression), p.compression_name);
  EXPECT_EQ(BytewiseComparator()->Name(), p.comparator_name);
  EXPECT_EQ(options_.filter_policy != nullptr ? bloom_->Name() : "",
            p.filter_policy_name);
  EXPECT_EQ(options_.filter_policy != nullptr, table_->has_filter());
  EXPECT_EQ(options_.filter_policy != nullptr, p.filter_size > 0);
  EXPECT_GE(p.num_data_blocks,
            (raw_key_size + raw_value_size) / (options_.block_size + 400));
  EXPECT_GT(p.index_size, 0u);
  EXPECT_LT(p.data_size + p.index_size + p.filter_size, contents_.size());
  // The builder's and the reader's view agree.
  EXPECT_EQ(properties_.ToString(), p.ToString());
}

std::string RoundTripName(
    const ::testing::TestParamInfo<RoundTripParam>& info) {
  return std::string(CompressionTypeName(std::get<0>(info.param))) + "_Block" +
         std::to_string(std::get<1>(info.param)) +
         (std::get<2>(info.param) ? "_BloomHeads" : "_NoFilter");
}

INSTANTIATE_TEST_SUITE_P(
    AllCompressionsAndBlockSizes, TableRoundTripTest,
    ::testing::Combine(::testing::Values(kNoCompression, kSnappyCompression,
                                         kLZ4Compression, kZSTD),
                       ::testing::Values(size_t{256}, size_t{4096},
                                         size_t{65536}),
                       ::testing::Bool()),
    RoundTripName);

// ---------------------------------------------------------------- basics

TEST(TableTest, EmptyTableHasNoEntries) {
  auto bloom = NewBloomFilterPolicy(10);
  TableOptions options;
  options.filter_policy = bloom.get();
  TableProperties props;
  const std::string contents = BuildTable(options, {}, &props);
  EXPECT_EQ(0u, props.num_entries);
  std::unique_ptr<Table> table;
  ASSERT_OK(OpenTable(options, contents, &table));
  std::unique_ptr<Iterator> iter(table->NewIterator(ReadOptions()));
  iter->SeekToFirst();
  EXPECT_FALSE(iter->Valid());
  iter->SeekForPrev("x");
  EXPECT_FALSE(iter->Valid());
  EXPECT_OK(iter->status());
  GetResult r;
  ASSERT_OK(Get(*table, "x", &r));
  EXPECT_EQ(0, r.calls);
  EXPECT_EQ(0u, table->ApproximateOffsetOf("x"));
}

// Bytewise order, but index keys are never shortened.
class NoShorteningComparator : public Comparator {
 public:
  int Compare(const Slice& a, const Slice& b) const override {
    return BytewiseComparator()->Compare(a, b);
  }
  const char* Name() const override { return "test.NoShortening"; }
  void FindShortestSeparator(std::string*, const Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

TEST(TableTest, IndexUsesShortenedSeparators) {
  // Long keys whose neighbours differ by 2 in an early byte, so that a
  // short separator fits between any two of them.
  KVMap kv;
  for (int i = 0; i < 500; ++i) {
    std::string key;
    key.push_back(static_cast<char>((2 * i) >> 8));
    key.push_back(static_cast<char>((2 * i) & 0xff));
    kv[key + std::string(200, 'x')] = "v";
  }
  TableOptions options;
  options.block_size = 512;
  options.compression = kNoCompression;  // compare raw index sizes
  TableProperties shortened;
  const std::string contents = BuildTable(options, kv, &shortened);
  NoShorteningComparator plain;
  options.comparator = &plain;
  TableProperties unshortened;
  BuildTable(options, kv, &unshortened);
  EXPECT_LT(shortened.index_size * 4, unshortened.index_size);

  // And the shortened index still finds every key.
  options.comparator = BytewiseComparator();
  std::unique_ptr<Table> table;
  ASSERT_OK(OpenTable(options, contents, &table));
  for (const auto& [k, v] : kv) {
    GetResult r;
    ASSERT_OK(Get(*table, k, &r));
    ASSERT_EQ(k, r.key);
  }
}

TEST(TableTest, SeekEdgeCasesAcrossBlocks) {
  TableOptions options;
  options.block_size = 64;  // a few keys per block
  const KVMap kv = SequentialKV(50, 20);
  const std::string contents = BuildTable(options, kv);
  std::unique_ptr<Table> table;
  ASSERT_OK(OpenTable(options, contents, &table));
  std::unique_ptr<Iterator> iter(table->NewIterator(ReadOptions()));

  iter->Seek("");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("key000000", iter->key().ToString());
  iter->Prev();
  EXPECT_FALSE(iter->Valid());

  iter->Seek("key000049");
  ASSERT_TRUE(iter->Valid());
  iter->Next();
  EXPECT_FALSE(iter->Valid());

  iter->Seek("key0000495");
  EXPECT_FALSE(iter->Valid());

  iter->SeekForPrev("key000000");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("key000000", iter->key().ToString());

  iter->SeekForPrev("key0000");
  EXPECT_FALSE(iter->Valid());

  iter->SeekForPrev("zzz");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("key000049", iter->key().ToString());

  // Every key: Seek to just before it, SeekForPrev to just after it.
  for (const auto& [k, v] : kv) {
    iter->Seek(k.substr(0, k.size() - 1));
    ASSERT_TRUE(iter->Valid());
    if (k.back() == '0') {
      EXPECT_EQ(k, iter->key().ToString());
    }
    iter->SeekForPrev(k + "5");
    ASSERT_TRUE(iter->Valid());
    EXPECT_EQ(k, iter->key().ToString());
    EXPECT_EQ(v, iter->value().ToString());
  }
  EXPECT_OK(iter->status());
}

// ---------------------------------------------------------------- filter

TEST(TableTest, BloomHasNoFalseNegativesAndRulesOutMostAbsentKeys) {
  auto bloom = NewBloomFilterPolicy(10);
  TableOptions options;
  options.filter_policy = bloom.get();
  const KVMap kv = SequentialKV(1000, 10);
  std::unique_ptr<Table> table;
  ASSERT_OK(OpenTable(options, BuildTable(options, kv), &table));
  for (const auto& [k, v] : kv) {
    GetResult r;
    ASSERT_OK(Get(*table, k, &r));
    ASSERT_EQ(k, r.key);
  }
  EXPECT_EQ(kv.size(), table->filter_positive());
  EXPECT_EQ(0u, table->filter_useful());
  for (int i = 0; i < 1000; ++i) {
    GetResult r;
    ASSERT_OK(Get(*table, "absent" + std::to_string(i), &r));
  }
  EXPECT_GT(table->filter_useful(), 950u);  // ~1% false positives
  EXPECT_EQ(2000u, table->filter_useful() + table->filter_positive());
}

TEST(TableTest, FilterRejectionReadsNoDataBlock) {
  auto bloom = NewBloomFilterPolicy(10);
  TableOptions options;
  options.filter_policy = bloom.get();
  std::unique_ptr<Table> table;
  StringSource* source = nullptr;
  ASSERT_OK(OpenTable(options, BuildTable(options, SequentialKV(100, 10)),
                      &table, &source));
  const uint64_t reads_after_open = source->reads();
  int rejected = 0;
  for (int i = 0; i < 100; ++i) {
    const uint64_t useful = table->filter_useful();
    const uint64_t reads = source->reads();
    GetResult r;
    ASSERT_OK(Get(*table, "key" + std::to_string(i) + "x", &r));
    if (table->filter_useful() > useful) {
      ++rejected;
      EXPECT_EQ(reads, source->reads());
      EXPECT_EQ(0, r.calls);
    }
  }
  EXPECT_GT(rejected, 90);
  // Lookups that pass the filter do read.
  GetResult r;
  ASSERT_OK(Get(*table, "key000007", &r));
  EXPECT_GT(source->reads(), reads_after_open);
}

// A filter policy of another name: the table's filter must be ignored.
class OtherPolicy : public FilterPolicy {
 public:
  const char* Name() const override { return "test.OtherPolicy"; }
  void CreateFilter(const Slice*, int, std::string* dst) const override {
    dst->append("x");
  }
  bool KeyMayMatch(const Slice&, const Slice&) const override {
    return false;  // would hide every key if it were used
  }
};

TEST(TableTest, FilterOfAnotherPolicyIsIgnored) {
  auto bloom = NewBloomFilterPolicy(10);
  TableOptions options;
  options.filter_policy = bloom.get();
  const KVMap kv = SequentialKV(10, 10);
  const std::string contents = BuildTable(options, kv);
  OtherPolicy other;
  options.filter_policy = &other;
  std::unique_ptr<Table> table;
  ASSERT_OK(OpenTable(options, contents, &table));
  EXPECT_FALSE(table->has_filter());
  GetResult r;
  ASSERT_OK(Get(*table, "key000003", &r));
  EXPECT_EQ("key000003", r.key);
  EXPECT_EQ(0u, table->filter_useful() + table->filter_positive());
}

// ---------------------------------------------------------------- key format

// Test keys: user key + fixed64 little-endian (sequence << 8 | type), type 0
// meaning deletion; ordered by user key, then by sequence descending.
std::string TestKey(const std::string& user_key, uint64_t seq, bool deletion) {
  std::string key = user_key;
  PutFixed64(&key, (seq << 8) | (deletion ? 0 : 1));
  return key;
}

class TestKeyFormat : public TableKeyFormat {
 public:
  Slice UserKey(const Slice& key) const override {
    return key.size() < 8 ? key : Slice(key.data(), key.size() - 8);
  }
  uint64_t Sequence(const Slice& key) const override {
    return Trailer(key) >> 8;
  }
  bool IsDeletion(const Slice& key) const override {
    return (Trailer(key) & 0xff) == 0;
  }
  static uint64_t Trailer(const Slice& key) {
    return key.size() < 8 ? 0 : DecodeFixed64(key.data() + key.size() - 8);
  }
};

class TestKeyComparator : public Comparator {
 public:
  int Compare(const Slice& a, const Slice& b) const override {
    TestKeyFormat f;
    int c = f.UserKey(a).compare(f.UserKey(b));
    if (c != 0) return c;
    const uint64_t ta = TestKeyFormat::Trailer(a);
    const uint64_t tb = TestKeyFormat::Trailer(b);
    return ta > tb ? -1 : (ta < tb ? 1 : 0);
  }
  const char* Name() const override { return "test.TestKeyComparator"; }
  void FindShortestSeparator(std::string*, const Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

// Wraps the bloom policy and records the keys the filter is built from and
// asked about.
class RecordingPolicy : public FilterPolicy {
 public:
  RecordingPolicy() : bloom_(NewBloomFilterPolicy(10)) {}
  const char* Name() const override { return bloom_->Name(); }
  void CreateFilter(const Slice* keys, int n, std::string* dst) const override {
    MutexLock lock(&mu_);
    for (int i = 0; i < n; ++i) built_.push_back(keys[i].ToString());
    bloom_->CreateFilter(keys, n, dst);
  }
  bool KeyMayMatch(const Slice& key, const Slice& filter) const override {
    MutexLock lock(&mu_);
    probed_.push_back(key.ToString());
    return bloom_->KeyMayMatch(key, filter);
  }
  std::vector<std::string> built() const {
    MutexLock lock(&mu_);
    return built_;
  }
  std::vector<std::string> probed() const {
    MutexLock lock(&mu_);
    return probed_;
  }

 private:
  std::unique_ptr<const FilterPolicy> bloom_;
  mutable Mutex mu_;
  mutable std::vector<std::string> built_ GUARDED_BY(mu_);
  mutable std::vector<std::string> probed_ GUARDED_BY(mu_);
};

class TableKeyFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.comparator = &comparator_;
    options_.key_format = &format_;
    options_.filter_policy = &policy_;
    // "a" has three versions (one a deletion), "b" one, "c" a deletion.
    StringSink sink;
    TableBuilder builder(options_, &sink);
    builder.Add(TestKey("a", 30, false), "a30");
    builder.Add(TestKey("a", 20, true), "");
    builder.Add(TestKey("a", 7, false), "a7");
    builder.Add(TestKey("b", 12, false), "b12");
    builder.Add(TestKey("c", 44, true), "");
    ASSERT_OK(builder.Finish());
    ASSERT_OK(OpenTable(options_, sink.contents(), &table_));
  }

  TestKeyComparator comparator_;
  TestKeyFormat format_;
  RecordingPolicy policy_;
  TableOptions options_;
  std::unique_ptr<Table> table_;
};

TEST_F(TableKeyFormatTest, PropertiesHoldSequenceRangeAndDeletions) {
  const TableProperties& p = table_->properties();
  EXPECT_EQ(5u, p.num_entries);
  EXPECT_EQ(2u, p.num_deletions);
  EXPECT_EQ(7u, p.smallest_seqno);
  EXPECT_EQ(44u, p.largest_seqno);
  EXPECT_EQ("test.TestKeyComparator", p.comparator_name);
}

TEST_F(TableKeyFormatTest, FilterIsBuiltAndProbedWithUserKeys) {
  EXPECT_EQ((std::vector<std::string>{"a", "b", "c"}), policy_.built());
  // A lookup at a newer sequence than any stored version: the filter is
  // asked about the user key, and the newest version is found.
  GetResult r;
  ASSERT_OK(Get(*table_, TestKey("a", 100, false), &r));
  EXPECT_EQ((std::vector<std::string>{"a"}), policy_.probed());
  ASSERT_EQ(1, r.calls);
  EXPECT_EQ(TestKey("a", 30, false), r.key);
  EXPECT_EQ("a30", r.value);
  // A lookup at sequence 25 finds the deletion at 20.
  ASSERT_OK(Get(*table_, TestKey("a", 25, false), &r));
  EXPECT_EQ(TestKey("a", 20, true), r.key);
}

TEST_F(TableKeyFormatTest, FilterRulesOutAbsentUserKeys) {
  int ruled_out = 0;
  for (int i = 0; i < 100; ++i) {
    GetResult r;
    ASSERT_OK(Get(*table_, TestKey("zz" + std::to_string(i), 1, false), &r));
    if (r.calls == 0) ++ruled_out;
  }
  EXPECT_EQ(static_cast<uint64_t>(ruled_out), table_->filter_useful());
  EXPECT_GT(ruled_out, 90);
}

// ---------------------------------------------------------------- block cache

class TableCacheTest : public ::testing::Test {
 protected:
  void Open(bool cache_index_and_filter_blocks, bool mapped = false) {
    options_.block_cache = cache_.get();
    options_.filter_policy = bloom_.get();
    options_.block_size = 256;
    options_.cache_index_and_filter_blocks = cache_index_and_filter_blocks;
    kv_ = SequentialKV(500, 50);
    ASSERT_OK(OpenTable(options_, BuildTable(options_, kv_), &table_, &source_,
                        mapped));
  }

  // Runs of more than 4 blocks are long scans; tickers go to stats_.
  void OpenForLongScans(bool mapped) {
    stats_ = CreateDBStatistics();
    options_.statistics = stats_.get();
    options_.long_scan_blocks = 4;
    Open(false, mapped);
  }

  std::shared_ptr<Statistics> stats_;
  std::shared_ptr<Cache> cache_ = NewLRUCache(8 << 20, 0);
  std::unique_ptr<const FilterPolicy> bloom_ = NewBloomFilterPolicy(10);
  TableOptions options_;
  KVMap kv_;
  std::unique_ptr<Table> table_;
  StringSource* source_ = nullptr;
};

TEST_F(TableCacheTest, SecondReadOfABlockIsACacheHit) {
  Open(false);
  EXPECT_EQ(0u, cache_->GetUsage());  // index and filter held by the table
  GetResult r;
  ASSERT_OK(Get(*table_, "key000123", &r));
  EXPECT_EQ(0u, table_->block_cache_hits());
  EXPECT_EQ(1u, table_->block_cache_misses());
  EXPECT_GT(cache_->GetUsage(), 0u);
  const uint64_t reads = source_->reads();
  ASSERT_OK(Get(*table_, "key000123", &r));
  EXPECT_EQ("key000123", r.key);
  EXPECT_EQ(1u, table_->block_cache_hits());
  EXPECT_EQ(1u, table_->block_cache_misses());
  EXPECT_EQ(reads, source_->reads());       // served from memory
  EXPECT_EQ(0u, cache_->GetPinnedUsage());  // nothing left pinned
}

TEST_F(TableCacheTest, IteratorsShareTheCache) {
  options_.long_scan_blocks = 0;  // scans fill the cache like any read
  Open(false);
  std::unique_ptr<Iterator> iter(table_->NewIterator(ReadOptions()));
  ASSERT_EQ(kv_.size(), Scan(iter.get()).size());
  const uint64_t misses = table_->block_cache_misses();
  EXPECT_EQ(table_->properties().num_data_blocks, misses);
  EXPECT_EQ(0u, table_->block_cache_hits());
  // A second iterator reads every block from the cache.
  std::unique_ptr<Iterator> second(table_->NewIterator(ReadOptions()));
  ASSERT_EQ(kv_.size(), Scan(second.get()).size());
  EXPECT_EQ(misses, table_->block_cache_misses());
  EXPECT_EQ(misses, table_->block_cache_hits());
}

TEST_F(TableCacheTest, IteratorPinsOnlyItsCurrentBlock) {
  Open(false);
  std::unique_ptr<Iterator> iter(table_->NewIterator(ReadOptions()));
  iter->SeekToFirst();
  ASSERT_TRUE(iter->Valid());
  const size_t pinned = cache_->GetPinnedUsage();
  EXPECT_GT(pinned, 0u);
  iter->Seek("key000400");  // another block: the first one is unpinned
  ASSERT_TRUE(iter->Valid());
  EXPECT_LE(cache_->GetPinnedUsage(), pinned + 64);
  iter.reset();
  EXPECT_EQ(0u, cache_->GetPinnedUsage());
}

TEST_F(TableCacheTest, FillCacheFalseDoesNotInsert) {
  Open(false);
  ReadOptions no_fill;
  no_fill.fill_cache = false;
  GetResult r;
  ASSERT_OK(Get(*table_, "key000123", &r, no_fill));
  EXPECT_EQ("key000123", r.key);
  ASSERT_OK(Get(*table_, "key000123", &r, no_fill));
  EXPECT_EQ(0u, cache_->GetUsage());
  EXPECT_EQ(0u, table_->block_cache_hits());
  EXPECT_EQ(2u, table_->block_cache_misses());
  std::unique_ptr<Iterator> iter(table_->NewIterator(no_fill));
  ASSERT_EQ(kv_.size(), Scan(iter.get()).size());
  EXPECT_EQ(0u, cache_->GetUsage());
}

TEST_F(TableCacheTest, AdmissionCachesADataBlockOnItsSecondMiss) {
  BlockAdmission admission(8 << 20, 256);
  options_.block_admission = &admission;
  Open(true);  // index and filter in the cache: admitted regardless
  const size_t meta_usage = cache_->GetUsage();
  EXPECT_GT(meta_usage, 0u);
  GetResult r;
  ASSERT_OK(Get(*table_, "key000123", &r));
  EXPECT_EQ("key000123", r.key);
  EXPECT_EQ(meta_usage, cache_->GetUsage());  // first miss: not cached
  ASSERT_OK(Get(*table_, "key000123", &r));
  EXPECT_GT(cache_->GetUsage(), meta_usage);  // second miss: cached
  const uint64_t hits = table_->block_cache_hits();
  ASSERT_OK(Get(*table_, "key000123", &r));
  EXPECT_EQ("key000123", r.key);
  EXPECT_EQ(hits + 3, table_->block_cache_hits());  // index, filter, data
  EXPECT_EQ(0u, cache_->GetPinnedUsage());
}

TEST_F(TableCacheTest, LongScanStopsFillingTheCache) {
  options_.long_scan_blocks = 4;
  Open(false);
  const uint64_t blocks = table_->properties().num_data_blocks;
  ASSERT_GT(blocks, 20u);
  std::unique_ptr<Iterator> iter(table_->NewIterator(ReadOptions()));
  ASSERT_EQ(std::vector<test::Entry>(kv_.begin(), kv_.end()), Scan(iter.get()));
  EXPECT_EQ(blocks, table_->block_cache_misses());
  iter.reset();
  // Only the scan's first four blocks were cached: a second scan finds
  // those and reads the rest again.
  std::unique_ptr<Iterator> second(table_->NewIterator(ReadOptions()));
  ASSERT_EQ(std::vector<test::Entry>(kv_.begin(), kv_.end()),
            Scan(second.get()));
  EXPECT_EQ(4u, table_->block_cache_hits());
  EXPECT_EQ(2 * blocks - 4, table_->block_cache_misses());
  second.reset();
  EXPECT_EQ(0u, cache_->GetPinnedUsage());
}

TEST_F(TableCacheTest, LongBackwardScanStopsFillingTheCache) {
  options_.long_scan_blocks = 4;
  Open(false);
  const uint64_t blocks = table_->properties().num_data_blocks;
  std::unique_ptr<Iterator> iter(table_->NewIterator(ReadOptions()));
  size_t n = 0;
  for (iter->SeekToLast(); iter->Valid(); iter->Prev()) n++;
  ASSERT_OK(iter->status());
  EXPECT_EQ(kv_.size(), n);
  EXPECT_EQ(blocks, table_->block_cache_misses());
  // The last four blocks are the cached ones.
  std::unique_ptr<Iterator> forward(table_->NewIterator(ReadOptions()));
  ASSERT_EQ(kv_.size(), Scan(forward.get()).size());
  EXPECT_EQ(4u, table_->block_cache_hits());
}

// Reads of a long scan after the first long_scan_blocks: lookups until 32
// miss in a row, then one probe every 16 reads while the probes miss.
uint64_t SkippedLookups(uint64_t long_reads) {
  if (long_reads <= 32) return 0;
  const uint64_t rest = long_reads - 32;
  return rest - rest / 16;
}

TEST_F(TableCacheTest, LongScanOfAMappedFileStopsLookingAfterMisses) {
  OpenForLongScans(/*mapped=*/true);
  const uint64_t blocks = table_->properties().num_data_blocks;
  ASSERT_GT(blocks, 4u + 32u + 16u);
  std::unique_ptr<Iterator> iter(table_->NewIterator(ReadOptions()));
  ASSERT_EQ(std::vector<test::Entry>(kv_.begin(), kv_.end()), Scan(iter.get()));
  const uint64_t skipped = SkippedLookups(blocks - 4);
  EXPECT_EQ(skipped, stats_->getTickerCount(kBlockCacheLookupSkipped));
  EXPECT_EQ(blocks - skipped, table_->block_cache_misses());
  EXPECT_EQ(0u, table_->block_cache_hits());
  // A seek elsewhere starts a new run, which looks up again.
  iter->Seek("key000250");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ(blocks - skipped + 1, table_->block_cache_misses());
}

TEST_F(TableCacheTest, LongScanThatDoesNotFillStopsLookingToo) {
  OpenForLongScans(/*mapped=*/true);
  const uint64_t blocks = table_->properties().num_data_blocks;
  ReadOptions no_fill;
  no_fill.fill_cache = false;  // a bulk scan as LevelDB's docs advise
  std::unique_ptr<Iterator> iter(table_->NewIterator(no_fill));
  ASSERT_EQ(kv_.size(), Scan(iter.get()).size());
  const uint64_t skipped = SkippedLookups(blocks - 4);
  EXPECT_EQ(skipped, stats_->getTickerCount(kBlockCacheLookupSkipped));
  EXPECT_EQ(blocks - skipped, table_->block_cache_misses());
  EXPECT_EQ(0u, cache_->GetUsage());
}

TEST_F(TableCacheTest, LongScanKeepsLookingWhileTheCacheHits) {
  OpenForLongScans(/*mapped=*/true);
  const uint64_t blocks = table_->properties().num_data_blocks;
  // Point lookups cache the second half of the table's blocks.
  GetResult r;
  for (const auto& kv : kv_) {
    if (kv.first >= "key000250") {
      ASSERT_OK(Get(*table_, kv.first, &r));
    }
  }
  const uint64_t misses = table_->block_cache_misses();
  const uint64_t hits = table_->block_cache_hits();
  std::unique_ptr<Iterator> iter(table_->NewIterator(ReadOptions()));
  ASSERT_EQ(std::vector<test::Entry>(kv_.begin(), kv_.end()), Scan(iter.get()));
  // The first half misses long enough to skip lookups; within 16 blocks
  // of the cached half a probe hits, and every block after it is found.
  const uint64_t skipped = stats_->getTickerCount(kBlockCacheLookupSkipped);
  EXPECT_GT(skipped, 0u);
  EXPECT_LT(skipped, blocks / 2);
  const uint64_t scan_hits = table_->block_cache_hits() - hits;
  const uint64_t scan_misses = table_->block_cache_misses() - misses;
  EXPECT_EQ(blocks, scan_hits + scan_misses + skipped);
  EXPECT_GE(scan_hits + 16, blocks / 2) << "hits " << scan_hits;
  // Whole table cached: nothing is skipped.
  for (const auto& kv : kv_) ASSERT_OK(Get(*table_, kv.first, &r));
  std::unique_ptr<Iterator> again(table_->NewIterator(ReadOptions()));
  const uint64_t before = table_->block_cache_hits();
  ASSERT_EQ(kv_.size(), Scan(again.get()).size());
  EXPECT_EQ(blocks, table_->block_cache_hits() - before);
  EXPECT_EQ(skipped, stats_->getTickerCount(kBlockCacheLookupSkipped));
}

TEST_F(TableCacheTest, LongScanOfAFileReadIntoBuffersAlwaysLooks) {
  OpenForLongScans(/*mapped=*/false);
  const uint64_t blocks = table_->properties().num_data_blocks;
  std::unique_ptr<Iterator> iter(table_->NewIterator(ReadOptions()));
  ASSERT_EQ(kv_.size(), Scan(iter.get()).size());
  EXPECT_EQ(0u, stats_->getTickerCount(kBlockCacheLookupSkipped));
  EXPECT_EQ(blocks, table_->block_cache_misses());
}

TEST_F(TableCacheTest, LongCompactionScanThroughABufferStopsLooking) {
  options_.readahead_size = 64 << 10;
  OpenForLongScans(/*mapped=*/false);
  const uint64_t blocks = table_->properties().num_data_blocks;
  ReadOptions no_fill;
  no_fill.fill_cache = false;
  std::unique_ptr<Iterator> iter(
      table_->NewIterator(no_fill, /*for_compaction=*/true));
  ASSERT_EQ(kv_.size(), Scan(iter.get()).size());
  // A missed block comes from the readahead buffer: as cheap as a mapping.
  const uint64_t skipped = SkippedLookups(blocks - 4);
  EXPECT_EQ(skipped, stats_->getTickerCount(kBlockCacheLookupSkipped));
  EXPECT_EQ(blocks - skipped, table_->block_cache_misses());
}

TEST_F(TableCacheTest, SeeksAndLookupsStillFillTheCache) {
  options_.long_scan_blocks = 4;
  Open(false);
  std::unique_ptr<Iterator> iter(table_->NewIterator(ReadOptions()));
  Scan(iter.get());  // a long scan first: it must not stop later fills
  const uint64_t misses = table_->block_cache_misses();
  // Seeks to blocks far apart are not a run: each block read is cached,
  // so seeking to the same keys again hits.
  const char* targets[] = {"key000480", "key000020", "key000250",
                           "key000400", "key000120", "key000330"};
  for (const char* t : targets) {
    iter->Seek(t);
    ASSERT_TRUE(iter->Valid());
    EXPECT_EQ(t, iter->key().ToString());
  }
  const uint64_t hits = table_->block_cache_hits();
  for (const char* t : targets) iter->Seek(t);
  EXPECT_EQ(hits + 6, table_->block_cache_hits());
  // A point lookup fills too.
  GetResult r;
  ASSERT_OK(Get(*table_, "key000200", &r));
  const uint64_t after_get = table_->block_cache_hits();
  ASSERT_OK(Get(*table_, "key000200", &r));
  EXPECT_EQ(after_get + 1, table_->block_cache_hits());
  EXPECT_GT(table_->block_cache_misses(), misses);
}

TEST_F(TableCacheTest, IndexAndFilterBlocksCanLiveInTheCache) {
  Open(true);
  const size_t meta_usage = cache_->GetUsage();
  EXPECT_GE(meta_usage, table_->properties().index_size - 5 +
                            table_->properties().filter_size - 5);
  // A lookup finds index and filter in the cache (two hits) and misses
  // on the data block.
  GetResult r;
  ASSERT_OK(Get(*table_, "key000123", &r));
  EXPECT_EQ("key000123", r.key);
  EXPECT_EQ(2u, table_->block_cache_hits());
  EXPECT_EQ(1u, table_->block_cache_misses());

  // Evicted index and filter are read again on demand.
  cache_->Prune();
  EXPECT_EQ(0u, cache_->GetUsage());
  ASSERT_OK(Get(*table_, "key000321", &r));
  EXPECT_EQ("key000321", r.key);
  EXPECT_EQ(4u, table_->block_cache_misses());
  EXPECT_GE(cache_->GetUsage(), meta_usage);
  std::unique_ptr<Iterator> iter(table_->NewIterator(ReadOptions()));
  EXPECT_EQ(kv_.size(), Scan(iter.get()).size());
  iter.reset();

  // Closing the table frees its index and filter entries at once.
  cache_->Prune();  // drop data blocks
  ASSERT_OK(Get(*table_, "key000001", &r));
  table_.reset();
  EXPECT_LT(cache_->GetUsage(), meta_usage);
}

TEST_F(TableCacheTest, IndexSearchHeadsAreChargedToTheCache) {
  Open(true);
  const size_t plain_usage = cache_->GetUsage();
  table_.reset();
  cache_->Prune();
  options_.user_keys_bytewise = true;
  Open(true);
  const size_t heads_usage = cache_->GetUsage();
  EXPECT_GE(heads_usage,
            plain_usage + table_->properties().num_data_blocks * 8);
  // Evicted, the index is read again with its heads, and still found.
  cache_->Prune();
  GetResult r;
  ASSERT_OK(Get(*table_, "key000321", &r));
  EXPECT_EQ("key000321", r.key);
  EXPECT_GE(cache_->GetUsage(), heads_usage);
}

TEST_F(TableCacheTest, SmallCacheKeepsResultsCorrectUnderEviction) {
  cache_ = NewLRUCache(2048, 0);
  Open(true);
  for (const auto& [k, v] : kv_) {
    GetResult r;
    ASSERT_OK(Get(*table_, k, &r));
    ASSERT_EQ(k, r.key);
    ASSERT_EQ(v, r.value);
  }
  EXPECT_LE(cache_->GetUsage(), 2048u + 1024u);
}

TEST_F(TableCacheTest, TablesSharingACacheDoNotSeeEachOthersBlocks) {
  Open(false);
  KVMap other_kv = SequentialKV(500, 50);
  for (auto& [k, v] : other_kv) v = "other";
  std::unique_ptr<Table> other;
  ASSERT_OK(OpenTable(options_, BuildTable(options_, other_kv), &other));
  GetResult r;
  ASSERT_OK(Get(*table_, "key000123", &r));
  ASSERT_OK(Get(*other, "key000123", &r));
  EXPECT_EQ("other", r.value);
  ASSERT_OK(Get(*table_, "key000123", &r));
  EXPECT_EQ(kv_["key000123"], r.value);
}

TEST_F(TableCacheTest, ConcurrentReadersSeeCorrectData) {
  cache_ = NewLRUCache(16 << 10, 1);  // small: evictions race with reads
  Open(false);
  std::vector<std::thread> threads;
  std::vector<int> errors(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([this, t, &errors] {
      Random rnd(t);
      for (int i = 0; i < 2000; ++i) {
        auto it = kv_.begin();
        std::advance(it, rnd.Uniform(static_cast<int>(kv_.size())));
        GetResult r;
        Status s = Get(*table_, it->first, &r);
        if (!s.ok() || r.key != it->first || r.value != it->second) {
          ++errors[t];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ((std::vector<int>{0, 0, 0, 0}), errors);
}

// ---------------------------------------------------------------- offsets

TEST(TableTest, ApproximateOffsetOfIsMonotonicAndNearRealOffsets) {
  TableOptions options;
  options.block_size = 1024;
  const KVMap kv = SequentialKV(2000, 100);
  // Before Add(k), FileSize() is where the block that will hold k starts.
  StringSink sink;
  TableBuilder builder(options, &sink);
  std::vector<uint64_t> real_offsets;
  for (const auto& [k, v] : kv) {
    real_offsets.push_back(builder.FileSize());
    builder.Add(k, v);
  }
  ASSERT_OK(builder.Finish());
  std::unique_ptr<Table> table;
  ASSERT_OK(OpenTable(options, sink.contents(), &table));

  uint64_t previous = 0;
  size_t i = 0;
  for (const auto& [k, v] : kv) {
    const uint64_t offset = table->ApproximateOffsetOf(k);
    EXPECT_GE(offset, previous) << k;
    const uint64_t real = real_offsets[i++];
    EXPECT_LE(std::max(offset, real) - std::min(offset, real),
              options.block_size)
        << k;
    previous = offset;
  }
  EXPECT_EQ(0u, table->ApproximateOffsetOf(""));
  const uint64_t end = table->ApproximateOffsetOf("zzz");
  EXPECT_GE(end, previous);
  EXPECT_EQ(table->properties().data_size, end);
}

// ---------------------------------------------------------------- corruption

std::string Hex(const std::string& s) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

// Reads everything in table; returns the first error or OK, and checks
// that whatever was returned before an error is a correct prefix.
Status CheckTableReads(const Table& table, const KVMap& kv) {
  ReadOptions options;
  options.verify_checksums = true;
  std::unique_ptr<Iterator> iter(table.NewIterator(options));
  std::vector<test::Entry> seen = Scan(iter.get());
  const std::vector<test::Entry> expected(kv.begin(), kv.end());
  if (!iter->status().ok()) {
    EXPECT_LE(seen.size(), expected.size());
    seen.resize(std::min(seen.size(), expected.size()));
    EXPECT_TRUE(std::equal(seen.begin(), seen.end(), expected.begin()));
    return iter->status();
  }
  EXPECT_EQ(expected, seen);
  for (const auto& [k, v] : kv) {
    GetResult r;
    Status s = Get(table, k, &r, options);
    if (!s.ok()) return s;
    EXPECT_EQ(1, r.calls) << Hex(k);
    EXPECT_EQ(k, r.key);
    EXPECT_EQ(v, r.value);
  }
  return Status::OK();
}

TEST(TableTest, EveryFlippedByteIsDetectedOrHarmless) {
  auto bloom = NewBloomFilterPolicy(10);
  for (CompressionType type : {kNoCompression, kSnappyCompression}) {
    TableOptions options;
    options.filter_policy = bloom.get();
    options.compression = type;
    options.block_size = 256;
    const KVMap kv = SequentialKV(40, 30);
    const std::string good = BuildTable(options, kv);
    int detected = 0;
    for (size_t i = 0; i < good.size(); ++i) {
      std::string bad = good;
      bad[i] ^= 0xff;
      std::unique_ptr<Table> table;
      Status s = OpenTable(options, bad, &table);
      if (s.ok()) s = CheckTableReads(*table, kv);
      if (!s.ok()) {
        ++detected;
        EXPECT_NE(std::string::npos, s.message().find(kFileName))
            << "byte " << i << ": " << s.ToString();
      }
      if (HasFailure()) {
        ADD_FAILURE() << "flipping byte " << i << " of " << good.size() << " ("
                      << CompressionTypeName(type) << ")";
        return;
      }
    }
    // Only the footer's zero padding may be flipped without notice.
    EXPECT_GE(detected, static_cast<int>(good.size()) -
                            static_cast<int>(Footer::kEncodedLength));
  }
}

// The footer has no checksum: a handle in it that names another block with
// a valid checksum must still be caught.
TEST(TableTest, FooterNamingAnotherValidBlockIsCorruption) {
  auto bloom = NewBloomFilterPolicy(10);
  TableOptions options;
  options.filter_policy = bloom.get();
  const std::string good = BuildTable(options, SequentialKV(100, 30));
  Footer footer;
  Slice input(good.data() + good.size() - Footer::kEncodedLength,
              Footer::kEncodedLength);
  ASSERT_OK(footer.DecodeFrom(&input));
  auto with_footer = [&good](const Footer& f) {
    std::string encoded;
    f.EncodeTo(&encoded);
    return good.substr(0, good.size() - Footer::kEncodedLength) + encoded;
  };
  Footer index_is_metaindex = footer;
  index_is_metaindex.set_index_handle(footer.metaindex_handle());
  Footer metaindex_is_index = footer;
  metaindex_is_index.set_metaindex_handle(footer.index_handle());
  Footer swapped = footer;
  swapped.set_index_handle(footer.metaindex_handle());
  swapped.set_metaindex_handle(footer.index_handle());
  for (const Footer& bad : {index_is_metaindex, metaindex_is_index, swapped}) {
    std::unique_ptr<Table> table;
    Status s = OpenTable(options, with_footer(bad), &table);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  }
  std::unique_ptr<Table> table;
  EXPECT_OK(OpenTable(options, with_footer(footer), &table));
}

TEST(TableTest, TruncatedFileIsCorruptionNamingTheFile) {
  TableOptions options;
  const std::string good = BuildTable(options, SequentialKV(100, 30));
  for (size_t len = 0; len < good.size(); ++len) {
    std::unique_ptr<Table> table;
    Status s = OpenTable(options, good.substr(0, len), &table);
    ASSERT_TRUE(s.IsCorruption()) << len << ": " << s.ToString();
    EXPECT_EQ(0u, s.message().find(std::string(kFileName) + ": "))
        << s.ToString();
    EXPECT_EQ(nullptr, table);
  }
}

TEST(TableTest, FileShorterThanItsStatedSizeIsCorruption) {
  TableOptions options;
  const std::string good = BuildTable(options, SequentialKV(100, 30));
  for (size_t cut : {size_t{1}, size_t{10}, good.size() / 2}) {
    std::unique_ptr<Table> table;
    Status s = Table::Open(
        options,
        std::make_unique<StringSource>(good.substr(0, good.size() - cut)),
        good.size(), kFileName, &table);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.message().find(kFileName));
  }
}

TEST(TableTest, CorruptDataBlockFailsTheScanNamingFileAndOffset) {
  TableOptions options;
  options.compression = kNoCompression;
  options.block_size = 256;
  const KVMap kv = SequentialKV(100, 30);
  std::string contents = BuildTable(options, kv);
  contents[600] ^= 0x01;  // inside a data block past the first two
  std::unique_ptr<Table> table;
  ASSERT_OK(OpenTable(options, contents, &table));
  std::unique_ptr<Iterator> iter(table->NewIterator(ReadOptions()));
  const size_t seen = Scan(iter.get()).size();
  EXPECT_LT(seen, kv.size());
  Status s = iter->status();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("000042.sst: block checksum"))
      << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("at offset")) << s.ToString();
}

TEST(TableTest, VerifyChecksumsFalseSkipsTheCheck) {
  TableOptions options;
  options.compression = kNoCompression;
  KVMap kv = {{"key", std::string(100, 'v')}};
  std::string contents = BuildTable(options, kv);
  const size_t pos = contents.find(std::string(100, 'v'));
  ASSERT_NE(std::string::npos, pos);
  contents[pos] = 'X';  // a value byte: the block still parses
  std::unique_ptr<Table> table;
  ASSERT_OK(OpenTable(options, contents, &table));
  GetResult r;
  ReadOptions verify;
  EXPECT_TRUE(Get(*table, "key", &r, verify).IsCorruption());
  ReadOptions no_verify;
  no_verify.verify_checksums = false;
  ASSERT_OK(Get(*table, "key", &r, no_verify));
  EXPECT_EQ('X', r.value[0]);
}

// ---------------------------------------------------------------- stored
// blocks

// Walks a table's blocks and returns, per block, its bytes as stored and
// its entries.
struct WalkedBlock {
  std::string stored;
  std::vector<test::Entry> entries;
};
std::vector<WalkedBlock> WalkBlocks(const Table& table, Status* status) {
  std::vector<WalkedBlock> blocks;
  Table::BlockWalker walker(&table);
  for (walker.SeekToFirst(); walker.Valid(); walker.Next()) {
    blocks.push_back({walker.stored().ToString(), Scan(walker.entries())});
  }
  *status = walker.status();
  return blocks;
}

TEST(TableTest, BlockWalkerGivesEveryDataBlockAsStored) {
  TableOptions options;
  options.block_size = 256;
  Random rnd(301);
  uint32_t state = 301;
  const KVMap kv = RandomKV(&rnd, &state, 500);
  TableProperties props;
  const std::string contents = BuildTable(options, kv, &props);
  std::unique_ptr<Table> table;
  ASSERT_OK(OpenTable(options, contents, &table));
  Status s;
  const std::vector<WalkedBlock> blocks = WalkBlocks(*table, &s);
  ASSERT_OK(s);
  EXPECT_EQ(props.num_data_blocks, blocks.size());
  std::string stored;
  std::vector<test::Entry> entries;
  for (const WalkedBlock& b : blocks) {
    stored += b.stored;
    entries.insert(entries.end(), b.entries.begin(), b.entries.end());
  }
  // The data blocks come first in the file, back to back.
  EXPECT_EQ(contents.substr(0, props.data_size), stored);
  EXPECT_EQ(std::vector<test::Entry>(kv.begin(), kv.end()), entries);
}

// A data block whose bytes are mostly values added as already compressed
// is stored uncompressed, without a codec pass; other blocks are compressed
// as usual. With a compression queue the table is the same, byte for byte.
TEST(TableTest, BlocksOfCompressedValuesAreNotCompressedAgain) {
  const KVMap kv = SequentialKV(200, 1000);  // values of one byte repeated
  auto build = [&kv](const TableOptions& options) {
    StringSink sink;
    TableBuilder builder(options, &sink);
    int i = 0;
    for (const auto& [k, v] : kv) {
      // The first half in runs of blocks added as compressed.
      builder.Add(k, v, /*value_compressed=*/i++ < 100);
    }
    EXPECT_OK(builder.Finish());
    EXPECT_EQ(sink.contents().size(), builder.FileSize());
    return sink.contents();
  };
  TableOptions options;
  options.compression = kSnappyCompression;
  const std::string contents = build(options);
  CompressionQueue queue;
  queue.SetHelpersExpected(true);
  TableOptions queued = options;
  queued.compression_queue = &queue;
  EXPECT_TRUE(contents == build(queued));
  EXPECT_FALSE(queue.HasWork());

  std::unique_ptr<Table> table;
  ASSERT_OK(OpenTable(options, contents, &table));
  Status s;
  const std::vector<WalkedBlock> blocks = WalkBlocks(*table, &s);
  ASSERT_OK(s);
  int raw = 0;
  int compressed = 0;
  for (const WalkedBlock& b : blocks) {
    ASSERT_FALSE(b.entries.empty());
    const auto type = static_cast<unsigned char>(
        b.stored[b.stored.size() - kBlockTrailerSize]);
    const bool added_compressed = b.entries.front().first < "key000100";
    EXPECT_EQ(added_compressed ? kNoCompression : kSnappyCompression, type)
        << b.entries.front().first;
    (type == kNoCompression ? raw : compressed)++;
  }
  EXPECT_GT(raw, 10);
  EXPECT_GT(compressed, 10);
  EXPECT_EQ(
      kv.size(),
      Scan(std::unique_ptr<Iterator>(table->NewIterator(ReadOptions())).get())
          .size());
}

TEST(TableTest, BlockWalkerStopsAtACorruptBlockNamingTheFile) {
  // Stored and compressed blocks alike (a compressed one is uncompressed
  // before its checksum is checked, and the mismatch is still the error).
  for (CompressionType type : {kNoCompression, kSnappyCompression}) {
    SCOPED_TRACE(static_cast<int>(type));
    TableOptions options;
    options.compression = type;
    options.block_size = 256;
    std::string contents = BuildTable(options, SequentialKV(200, 30));
    contents[600] ^= 0x01;  // inside a data block past the first two
    std::unique_ptr<Table> table;
    ASSERT_OK(OpenTable(options, contents, &table));
    Status s;
    const std::vector<WalkedBlock> blocks = WalkBlocks(*table, &s);
    ASSERT_GE(blocks.size(), 2u);
    const std::string& first = blocks[0].stored;
    EXPECT_EQ(type, static_cast<CompressionType>(static_cast<unsigned char>(
                        first[first.size() - kBlockTrailerSize])));
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.message().find("000042.sst: block checksum"))
        << s.ToString();
  }
}

// Every other block copied whole, the others added entry by entry: the
// table is byte for byte the one built from the entries (the same blocks,
// index, filter and properties).
// With a compression queue (its blocks compressed by the builder), the
// copied blocks are written in turn behind the queued ones.
class CopiedBlocksTest : public testing::TestWithParam<bool> {};

TEST_P(CopiedBlocksTest, BuildTheSameTable) {
  std::unique_ptr<const FilterPolicy> bloom(NewBloomFilterPolicy(10));
  TableOptions options;
  options.block_size = 512;
  options.filter_policy = bloom.get();
  CompressionQueue queue;
  Random rnd(17);
  uint32_t state = 17;
  const KVMap kv = RandomKV(&rnd, &state, 800);
  const std::string original = BuildTable(options, kv);
  std::unique_ptr<Table> table;
  ASSERT_OK(OpenTable(options, original, &table));

  if (GetParam()) {
    queue.SetHelpersExpected(true);
    options.compression_queue = &queue;
  }
  StringSink sink;
  TableBuilder builder(options, &sink);
  Table::BlockWalker walker(table.get());
  int i = 0;
  for (walker.SeekToFirst(); walker.Valid(); walker.Next(), ++i) {
    Iterator* entries = walker.entries();
    if (i % 2 == 0) {
      builder.AddStoredBlock(walker.stored(), entries);
    } else {
      for (entries->SeekToFirst(); entries->Valid(); entries->Next()) {
        builder.Add(entries->key(), entries->value());
      }
    }
  }
  ASSERT_OK(walker.status());
  ASSERT_OK(builder.Finish());
  EXPECT_EQ(original.size(), sink.contents().size());
  EXPECT_TRUE(original == sink.contents());
  ASSERT_OK(OpenTable(options, sink.contents(), &table));
  GetResult r;
  for (const auto& [k, v] : kv) {
    ASSERT_OK(Get(*table, k, &r));
    ASSERT_EQ(1, r.calls) << k;
    ASSERT_EQ(v, r.value);
  }
  EXPECT_FALSE(queue.HasWork());
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutQueue, CopiedBlocksTest,
                         testing::Bool());

TEST(TableTest, StoredBlockBeforeTheLastKeyIsInvalidArgument) {
  TableOptions options;
  options.block_size = 256;
  const std::string source = BuildTable(options, SequentialKV(50, 30));
  std::unique_ptr<Table> table;
  ASSERT_OK(OpenTable(options, source, &table));
  Table::BlockWalker walker(table.get());
  walker.SeekToFirst();
  ASSERT_TRUE(walker.Valid());
  StringSink sink;
  TableBuilder builder(options, &sink);
  builder.Add("zzz", "v");
  builder.AddStoredBlock(walker.stored(), walker.entries());
  EXPECT_TRUE(builder.status().IsInvalidArgument())
      << builder.status().ToString();
  EXPECT_EQ(1u, builder.NumEntries());
  builder.Abandon();
}

// ---------------------------------------------------------------- I/O

TEST(TableTest, CompactionIteratorReadsAhead) {
  TableOptions options;
  options.compression = kNoCompression;
  options.block_size = 1024;
  options.readahead_size = 64 << 10;
  const KVMap kv = SequentialKV(5000, 100);  // ~550 KB, ~540 blocks
  std::unique_ptr<Table> table;
  StringSource* source = nullptr;
  ASSERT_OK(OpenTable(options, BuildTable(options, kv), &table, &source));

  uint64_t reads = source->reads();
  std::unique_ptr<Iterator> iter(table->NewIterator(ReadOptions()));
  ASSERT_EQ(kv.size(), Scan(iter.get()).size());
  const uint64_t plain_reads = source->reads() - reads;
  EXPECT_EQ(table->properties().num_data_blocks, plain_reads);

  reads = source->reads();
  iter.reset(table->NewIterator(ReadOptions(), /*for_compaction=*/true));
  std::vector<test::Entry> entries = Scan(iter.get());
  EXPECT_OK(iter->status());
  EXPECT_EQ(std::vector<test::Entry>(kv.begin(), kv.end()), entries);
  const uint64_t readahead_reads = source->reads() - reads;
  EXPECT_LE(readahead_reads,
            table->properties().data_size / options.readahead_size + 2);
}

TEST(TableTest, CompactionReadsAMappedTableThroughItsCopyingReader) {
  TableOptions options;
  options.block_size = 1024;
  options.readahead_size = 1 << 20;
  const KVMap kv = SequentialKV(5000, 100);
  std::unique_ptr<Table> table;
  StringSource* source = nullptr;
  ASSERT_OK(OpenTable(options, BuildTable(options, kv), &table, &source,
                      /*mapped=*/true));
  source->OfferCopyingReaders();
  const uint64_t in_place = source->reads();

  // The compaction's iterator and block walker copy every block through a
  // reader of their own, and touch no mapped byte (no prefetch either).
  std::unique_ptr<Iterator> iter(
      table->NewIterator(ReadOptions(), /*for_compaction=*/true));
  EXPECT_EQ(std::vector<test::Entry>(kv.begin(), kv.end()), Scan(iter.get()));
  EXPECT_OK(iter->status());
  EXPECT_EQ(1u, source->copiers());
  const uint64_t copied = source->copying_reads();
  EXPECT_GT(copied, 0u);
  EXPECT_LE(source->largest_copying_read(), 64u << 10);
  Status s;
  EXPECT_EQ(table->properties().num_data_blocks, WalkBlocks(*table, &s).size());
  EXPECT_OK(s);
  EXPECT_EQ(2u, source->copiers());
  EXPECT_GT(source->copying_reads(), copied);
  EXPECT_EQ(in_place, source->reads());

  // Point lookups and user scans still read the mapping in place.
  GetResult r;
  ASSERT_OK(Get(*table, "key001234", &r));
  EXPECT_EQ(kv.at("key001234"), r.value);
  iter.reset(table->NewIterator(ReadOptions()));
  EXPECT_EQ(kv.size(), Scan(iter.get()).size());
  EXPECT_GT(source->reads(), in_place);
  EXPECT_EQ(2u, source->copiers());
}

TEST(TableTest, TableOnDiskRoundTripsThroughTheEnv) {
  test::TempDir dir;
  const std::string fname = dir.File("000007.sst");
  Env* env = Env::Default();
  TableOptions options;
  const KVMap kv = SequentialKV(3000, 64);
  {
    std::unique_ptr<WritableFile> file;
    ASSERT_OK(env->NewWritableFile(fname, &file, EnvOptions()));
    TableBuilder builder(options, file.get());
    for (const auto& [k, v] : kv) builder.Add(k, v);
    ASSERT_OK(builder.Finish());
    ASSERT_OK(file->Sync());
    ASSERT_OK(file->Close());
  }
  uint64_t size = 0;
  ASSERT_OK(env->GetFileSize(fname, &size));
  std::unique_ptr<RandomAccessFile> file;
  ASSERT_OK(env->NewRandomAccessFile(fname, &file, EnvOptions()));
  std::unique_ptr<Table> table;
  ASSERT_OK(Table::Open(options, std::move(file), size, fname, &table));
  std::unique_ptr<Iterator> iter(table->NewIterator(ReadOptions()));
  EXPECT_EQ(std::vector<test::Entry>(kv.begin(), kv.end()), Scan(iter.get()));
}

TEST(TableTest, TableOverDirectIoFileRoundTrips) {
  test::TempDir dir;
  const std::string fname = dir.File("000008.sst");
  Env* env = Env::Default();
  TableOptions options;
  options.readahead_size = 256 << 10;
  const KVMap kv = SequentialKV(3000, 64);
  {
    std::unique_ptr<WritableFile> file;
    ASSERT_OK(env->NewWritableFile(fname, &file, EnvOptions()));
    TableBuilder builder(options, file.get());
    for (const auto& [k, v] : kv) builder.Add(k, v);
    ASSERT_OK(builder.Finish());
    ASSERT_OK(file->Close());
  }
  uint64_t size = 0;
  ASSERT_OK(env->GetFileSize(fname, &size));
  EnvOptions direct;
  direct.use_direct_reads = true;
  std::unique_ptr<RandomAccessFile> file;
  Status s = env->NewRandomAccessFile(fname, &file, direct);
  if (s.IsNotSupported()) {
    GTEST_SKIP() << "no O_DIRECT on this filesystem: " << s.ToString();
  }
  ASSERT_OK(s);
  EXPECT_TRUE(file->use_direct_io());
  std::unique_ptr<Table> table;
  ASSERT_OK(Table::Open(options, std::move(file), size, fname, &table));
  const std::vector<test::Entry> expected(kv.begin(), kv.end());
  std::unique_ptr<Iterator> iter(table->NewIterator(ReadOptions()));
  EXPECT_EQ(expected, Scan(iter.get()));
  iter.reset(table->NewIterator(ReadOptions(), /*for_compaction=*/true));
  EXPECT_EQ(expected, Scan(iter.get()));
  for (const auto& [k, v] : kv) {
    GetResult r;
    ASSERT_OK(Get(*table, k, &r));
    ASSERT_EQ(v, r.value);
  }
}

}  // namespace
}  // namespace cascadedb

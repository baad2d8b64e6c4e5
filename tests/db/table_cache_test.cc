// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/table_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/env.h"
#include "db/dbformat.h"
#include "db/filename.h"
#include "table/table_builder.h"
#include "tests/testutil/env_wrappers.h"
#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace {

struct Found {
  int calls = 0;
  std::string key;
  std::string value;
};

void SaveFound(void* arg, const Slice& k, const Slice& v) {
  Found* found = static_cast<Found*>(arg);
  found->calls++;
  found->key = k.ToString();
  found->value = v.ToString();
}

class TableCacheTest : public ::testing::Test {
 protected:
  TableCacheTest() : icmp_(BytewiseComparator()) {
    table_options_.comparator = &icmp_;
    table_options_.key_format = InternalKeyFormat::Get();
    table_options_.compression = kNoCompression;
  }

  // Writes table number holding keys "<prefix>000".. with values "v<i>",
  // at sequences 1.., and returns its size.
  uint64_t WriteTable(uint64_t number, const std::string& prefix, int n) {
    std::unique_ptr<WritableFile> file;
    EXPECT_OK(env_.NewWritableFile(TableFileName(dir_.path(), number), &file,
                                   EnvOptions()));
    TableBuilder builder(table_options_, file.get());
    for (int i = 0; i < n; i++) {
      char key[32];
      std::snprintf(key, sizeof(key), "%s%03d", prefix.c_str(), i);
      builder.Add(InternalKey(key, 1 + i, kTypeValue).Encode(),
                  "v" + std::to_string(i));
    }
    EXPECT_OK(builder.Finish());
    EXPECT_OK(file->Sync());
    EXPECT_OK(file->Close());
    return builder.FileSize();
  }

  // The FileMetaData a Version would hold for table number.
  static std::unique_ptr<FileMetaData> File(uint64_t number, uint64_t size) {
    auto f = std::make_unique<FileMetaData>();
    f->number = number;
    f->file_size = size;
    return f;
  }

  std::unique_ptr<TableCache> NewCache(int entries) {
    return std::make_unique<TableCache>(dir_.path(), &env_, EnvOptions(),
                                        table_options_, entries);
  }

  test::TempDir dir_;
  test::TableOpenCountingEnv env_;  // tells cache hits from misses
  InternalKeyComparator icmp_;
  TableOptions table_options_;
};

TEST_F(TableCacheTest, IteratorReadsEveryEntry) {
  const uint64_t size = WriteTable(7, "k", 50);
  auto cache = NewCache(100);
  Table* table = nullptr;
  std::unique_ptr<Iterator> it(
      cache->NewIterator(ReadOptions(), 7, size, &table));
  ASSERT_NE(nullptr, table);
  EXPECT_EQ(50u, table->properties().num_entries);
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%03d", n);
    EXPECT_EQ(key, ExtractUserKey(it->key()).ToString());
    EXPECT_EQ("v" + std::to_string(n), it->value().ToString());
    n++;
  }
  ASSERT_OK(it->status());
  EXPECT_EQ(50, n);
}

TEST_F(TableCacheTest, SecondUseIsACacheHit) {
  const uint64_t size = WriteTable(7, "k", 10);
  auto cache = NewCache(100);
  Cache::Handle* h1 = nullptr;
  Cache::Handle* h2 = nullptr;
  ASSERT_OK(cache->FindTable(7, size, &h1));
  ASSERT_OK(cache->FindTable(7, size, &h2));
  EXPECT_EQ(cache->GetTable(h1), cache->GetTable(h2));
  EXPECT_EQ(1, env_.opened());
  cache->Release(h1);
  cache->Release(h2);
  std::unique_ptr<Iterator> it(cache->NewIterator(ReadOptions(), 7, size));
  it->SeekToFirst();
  EXPECT_TRUE(it->Valid());
  EXPECT_EQ(1, env_.opened());
  EXPECT_EQ(1u, cache->NumOpenTables());
}

TEST_F(TableCacheTest, GetFindsTheEntryAtOrAfterTheKey) {
  const uint64_t size = WriteTable(7, "k", 20);
  auto cache = NewCache(100);
  Found found;
  // Sequence 100 sorts before k005@6, so the lookup lands on it.
  ASSERT_OK(cache->Get(ReadOptions(), *File(7, size),
                       InternalKey("k005", 100, kValueTypeForSeek).Encode(),
                       &found, &SaveFound));
  EXPECT_EQ(1, found.calls);
  EXPECT_EQ("k005", ExtractUserKey(found.key).ToString());
  EXPECT_EQ("v5", found.value);
}

TEST_F(TableCacheTest, LookupsPinTheTableInItsFileWhenAllTablesStayOpen) {
  const uint64_t size = WriteTable(7, "k", 20);
  auto cache = NewCache(TableCache::kAllTables);
  auto file = File(7, size);
  const std::string target =
      InternalKey("k005", 100, kValueTypeForSeek).Encode().ToString();
  Found found;
  ASSERT_OK(cache->Get(ReadOptions(), *file, target, &found, &SaveFound));
  EXPECT_EQ("v5", found.value);
  ASSERT_NE(nullptr, file->table.get());
  // Evicted, the pinned table stays open, and lookups through the file
  // still reach it without opening it again.
  cache->Evict(7);
  EXPECT_EQ(1, env_.open_now());
  ASSERT_OK(cache->Get(ReadOptions(), *file, target, &found, &SaveFound));
  EXPECT_TRUE(cache->KeyMayMatch(ReadOptions(), *file, "k005"));
  EXPECT_EQ(2, found.calls);
  EXPECT_EQ(1, env_.opened());
  // A copy does not share the pin; the table closes with the last owner.
  {
    FileMetaData copy = *file;
    EXPECT_EQ(nullptr, copy.table.get());
  }
  EXPECT_EQ(1, env_.open_now());
  file.reset();
  EXPECT_EQ(0, env_.open_now());
}

TEST_F(TableCacheTest, AssigningToAFileReleasesItsPin) {
  const uint64_t size = WriteTable(7, "k", 20);
  auto cache = NewCache(TableCache::kAllTables);
  auto file = File(7, size);
  EXPECT_TRUE(cache->KeyMayMatch(ReadOptions(), *file, "k005"));
  ASSERT_NE(nullptr, file->table.get());
  cache->Evict(7);
  *file = FileMetaData();
  EXPECT_EQ(nullptr, file->table.get());
  EXPECT_EQ(0, env_.open_now());
}

TEST_F(TableCacheTest, LookupsDoNotPinWhenOpenTablesAreLimited) {
  const uint64_t size = WriteTable(7, "k", 20);
  auto cache = NewCache(100);
  auto file = File(7, size);
  Found found;
  ASSERT_OK(cache->Get(ReadOptions(), *file,
                       InternalKey("k005", 100, kValueTypeForSeek).Encode(),
                       &found, &SaveFound));
  EXPECT_TRUE(cache->KeyMayMatch(ReadOptions(), *file, "k005"));
  EXPECT_EQ(nullptr, file->table.get());
  // Nothing holds the table: evicting it closes it.
  cache->Evict(7);
  EXPECT_EQ(0, env_.open_now());
}

TEST_F(TableCacheTest, ConcurrentFirstLookupsKeepOnePin) {
  const uint64_t size = WriteTable(7, "k", 20);
  auto cache = NewCache(TableCache::kAllTables);
  for (int round = 0; round < 20; round++) {
    auto file = File(7, size);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++) {
      threads.emplace_back([&] {
        Found found;
        EXPECT_OK(
            cache->Get(ReadOptions(), *file,
                       InternalKey("k005", 100, kValueTypeForSeek).Encode(),
                       &found, &SaveFound));
        EXPECT_EQ("v5", found.value);
      });
    }
    for (std::thread& t : threads) t.join();
    ASSERT_NE(nullptr, file->table.get());
    cache->Evict(7);
    file.reset();
    // Every losing pin was released: nothing keeps the table open.
    EXPECT_EQ(0, env_.open_now());
  }
}

TEST_F(TableCacheTest, EvictClosesTheTableAndNextUseReopens) {
  const uint64_t size = WriteTable(7, "k", 10);
  auto cache = NewCache(100);
  Cache::Handle* h = nullptr;
  ASSERT_OK(cache->FindTable(7, size, &h));
  cache->Release(h);
  cache->Evict(7);
  EXPECT_EQ(0u, cache->NumOpenTables());
  ASSERT_OK(cache->FindTable(7, size, &h));
  cache->Release(h);
  EXPECT_EQ(2, env_.opened());
}

TEST_F(TableCacheTest, EvictedTableStaysUsableWhilePinned) {
  const uint64_t size = WriteTable(7, "k", 10);
  auto cache = NewCache(100);
  std::unique_ptr<Iterator> it(cache->NewIterator(ReadOptions(), 7, size));
  cache->Evict(7);
  ASSERT_OK(env_.RemoveFile(TableFileName(dir_.path(), 7)));
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) n++;
  ASSERT_OK(it->status());
  EXPECT_EQ(10, n);
}

TEST_F(TableCacheTest, CapacityLimitsOpenTables) {
  std::vector<uint64_t> sizes;
  for (uint64_t number = 1; number <= 4; number++) {
    sizes.push_back(WriteTable(number, "k", 5));
  }
  auto cache = NewCache(2);
  for (uint64_t number = 1; number <= 4; number++) {
    Cache::Handle* h = nullptr;
    ASSERT_OK(cache->FindTable(number, sizes[number - 1], &h));
    cache->Release(h);
    EXPECT_LE(cache->NumOpenTables(), 2u);
  }
  // Table 1 was evicted as least recently used: using it opens it again.
  Cache::Handle* h = nullptr;
  ASSERT_OK(cache->FindTable(1, sizes[0], &h));
  cache->Release(h);
  EXPECT_EQ(5, env_.opened());
}

TEST_F(TableCacheTest, MissingFileIsCorruptionNamingThePath) {
  auto cache = NewCache(100);
  const std::string path = TableFileName(dir_.path(), 99);
  std::unique_ptr<Iterator> it(cache->NewIterator(ReadOptions(), 99, 1000));
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
  EXPECT_NE(std::string::npos, it->status().ToString().find(path))
      << it->status().ToString();

  Found found;
  Status s =
      cache->Get(ReadOptions(), *File(99, 1000),
                 InternalKey("a", 1, kTypeValue).Encode(), &found, &SaveFound);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(path)) << s.ToString();
  EXPECT_EQ(0, found.calls);
  EXPECT_EQ(0u, cache->NumOpenTables());
}

TEST_F(TableCacheTest, FailedOpenIsNotCached) {
  auto cache = NewCache(100);
  Cache::Handle* h = nullptr;
  EXPECT_FALSE(cache->FindTable(5, 100, &h).ok());
  EXPECT_EQ(nullptr, h);
  const uint64_t size = WriteTable(5, "k", 3);
  ASSERT_OK(cache->FindTable(5, size, &h));
  cache->Release(h);
}

TEST_F(TableCacheTest, GarbageFileIsCorruptionNamingTheFile) {
  const std::string path = TableFileName(dir_.path(), 8);
  const std::string garbage(200, 'x');
  ASSERT_OK(WriteStringToFile(&env_, garbage, path));
  auto cache = NewCache(100);
  Table* table = reinterpret_cast<Table*>(1);
  std::unique_ptr<Iterator> it(
      cache->NewIterator(ReadOptions(), 8, garbage.size(), &table));
  EXPECT_EQ(nullptr, table);
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
  EXPECT_NE(std::string::npos, it->status().ToString().find("000008.sst"));
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// libFuzzer target for the SST reader. Two kinds of input, picked by the
// first byte:
//   even: the rest is a table file, opened and read as is (mostly caught by
//         the footer and checksums; reads use verify_checksums=false too, so
//         block parsing and decompression see garbage);
//   odd:  the rest describes entries and options; the fuzzer builds a valid
//         table from them, applies a few byte mutations given by the input,
//         then checks the reader's contract: with verify_checksums=true it
//         either reports an error or returns exactly the entries written.
// Any crash, sanitizer report or silently wrong read is a bug.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/cache.h"
#include "cascadedb/env.h"
#include "cascadedb/filter_policy.h"
#include "cascadedb/iterator.h"
#include "table/table.h"
#include "table/table_builder.h"
#include "tests/fuzz/fuzz_input.h"
#include "util/memory_file.h"

namespace cascadedb {
namespace {

using Input = FuzzInput;

[[noreturn]] void Fail(const char* what) {
  FuzzFail("table_reader_fuzzer", what);
}

void IgnoreResult(void*, const Slice&, const Slice&) {}

struct Found {
  bool called = false;
  std::string key, value;
};

void SaveResult(void* arg, const Slice& k, const Slice& v) {
  Found* f = static_cast<Found*>(arg);
  f->called = true;
  f->key = k.ToString();
  f->value = v.ToString();
}

const FilterPolicy* Bloom() {
  static const FilterPolicy* bloom = NewBloomFilterPolicy(10).release();
  return bloom;
}

Cache* SharedCache() {
  static std::shared_ptr<Cache>* cache =
      new std::shared_ptr<Cache>(NewLRUCache(1 << 20));
  return cache->get();
}

// Reads a raw table: nothing is known about its contents, so only the
// absence of crashes is checked.
void ReadRawTable(const std::string& contents) {
  for (bool cache_meta : {false, true}) {
    TableOptions options;
    options.filter_policy = Bloom();
    options.block_cache = SharedCache();
    options.cache_index_and_filter_blocks = cache_meta;
    options.readahead_size = 4096;
    std::unique_ptr<Table> table;
    Status s =
        Table::Open(options, std::make_unique<MemoryRandomAccessFile>(contents),
                    contents.size(), "fuzz.sst", &table);
    if (!s.ok()) continue;
    for (bool verify : {true, false}) {
      ReadOptions ro;
      ro.verify_checksums = verify;
      ro.fill_cache = !verify;
      std::unique_ptr<Iterator> it(table->NewIterator(ro, !verify));
      std::vector<std::string> keys;
      int n = 0;
      for (it->SeekToFirst(); it->Valid() && n < 10000; it->Next(), ++n) {
        if (keys.size() < 16) keys.push_back(it->key().ToString());
        (void)it->value();
      }
      for (it->SeekToLast(); it->Valid() && n < 20000; it->Prev(), ++n) {
      }
      keys.push_back("");
      keys.push_back("\xff\xff");
      for (const std::string& k : keys) {
        it->Seek(k);
        it->SeekForPrev(k);
        table->InternalGet(ro, k, nullptr, &IgnoreResult).IgnoreError();
        (void)table->ApproximateOffsetOf(k);
      }
      it->status().IgnoreError();  // any error is fine: no crash is the test
    }
  }
}

// Builds a table from the input, mutates it, and checks the reader.
void BuildMutateAndCheck(Input* in) {
  static const CompressionType kTypes[] = {kNoCompression, kSnappyCompression,
                                           kLZ4Compression, kZSTD};
  const uint8_t flags = in->Byte();
  TableOptions options;
  options.compression = kTypes[flags & 3];
  options.filter_policy = (flags & 4) ? Bloom() : nullptr;
  options.block_cache = (flags & 8) ? SharedCache() : nullptr;
  options.cache_index_and_filter_blocks = (flags & 16) != 0;
  options.block_size = 64 + 32 * (in->Byte() & 31);
  options.block_restart_interval = 1 + (in->Byte() & 15);
  const int mutations = in->Byte() & 3;
  std::vector<std::pair<uint16_t, uint8_t>> edits;
  for (int i = 0; i < mutations; ++i) {
    const uint16_t pos = static_cast<uint16_t>(in->Byte() << 8 | in->Byte());
    edits.emplace_back(pos, in->Byte() | 1);  // a non-zero xor
  }
  std::map<std::string, std::string> model;
  while (!in->empty() && model.size() < 2000) {
    std::string key = in->Bytes(in->Byte() & 31);
    model[key] = in->Bytes(in->Byte());
  }

  MemoryWritableFile file;
  TableBuilder builder(options, &file);
  for (const auto& [k, v] : model) builder.Add(k, v);
  if (!builder.Finish().ok()) Fail("building from valid input failed");
  std::string contents = *file.contents();
  for (const auto& [pos, x] : edits) {
    if (!contents.empty()) contents[pos % contents.size()] ^= x;
  }
  const bool pristine = edits.empty();

  std::unique_ptr<Table> table;
  Status s =
      Table::Open(options, std::make_unique<MemoryRandomAccessFile>(contents),
                  contents.size(), "fuzz.sst", &table);
  if (!s.ok()) {
    if (pristine) Fail("a valid table did not open");
    return;
  }
  ReadOptions ro;  // verify_checksums = true
  std::unique_ptr<Iterator> it(table->NewIterator(ro));
  auto expected = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++expected) {
    if (expected == model.end() || it->key() != Slice(expected->first) ||
        it->value() != Slice(expected->second)) {
      Fail("scan returned an entry that was not written");
    }
  }
  if (it->status().ok() && expected != model.end()) {
    Fail("scan ended early without an error");
  }
  if (pristine && !it->status().ok()) Fail("scan of a valid table failed");
  for (const auto& [k, v] : model) {
    Found found;
    s = table->InternalGet(ro, k, &found, &SaveResult);
    if (!s.ok()) {
      if (pristine) Fail("get on a valid table failed");
      continue;
    }
    if (!found.called || found.key != k || found.value != v) {
      Fail("get returned a wrong result");
    }
  }
}

}  // namespace
}  // namespace cascadedb

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if ((data[0] & 1) == 0) {
    cascadedb::ReadRawTable(
        std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  } else {
    cascadedb::Input in(data + 1, size - 1);
    cascadedb::BuildMutateAndCheck(&in);
  }
  return 0;
}

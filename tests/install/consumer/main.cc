// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Uses the installed public API only: options validation, the Env, the
// block cache and the bloom filter. Exits non-zero on any failure.

#include <cstdio>
#include <memory>
#include <string>

#include "cascadedb/cache.h"
#include "cascadedb/comparator.h"
#include "cascadedb/env.h"
#include "cascadedb/filter_policy.h"
#include "cascadedb/options.h"
#include "cascadedb/status.h"

namespace {

int Fail(const char* what, const cascadedb::Status& s) {
  std::fprintf(stderr, "consumer: %s: %s\n", what, s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer SCRATCH_DIR\n");
    return 2;
  }
  cascadedb::Options options;
  cascadedb::Status s = cascadedb::ValidateOptions(options);
  if (!s.ok()) return Fail("default options", s);
  options.level0_stop_writes_trigger = 1;
  if (cascadedb::ValidateOptions(options).ok()) {
    return Fail("bad options accepted", cascadedb::Status::OK());
  }

  cascadedb::Env* env = cascadedb::Env::Default();
  const std::string dir = argv[1];
  s = env->CreateDirIfMissing(dir);
  if (!s.ok()) return Fail("create dir", s);
  const std::string file = dir + "/hello";
  s = cascadedb::WriteStringToFile(env, "hello cascadedb", file, true);
  if (!s.ok()) return Fail("write", s);
  std::string data;
  s = cascadedb::ReadFileToString(env, file, &data);
  if (!s.ok()) return Fail("read", s);

  std::shared_ptr<cascadedb::Cache> cache = cascadedb::NewLRUCache(1 << 20);
  cache->Insert("k", new int(7), 1,
                [](const cascadedb::Slice&, void* v) {
                  delete static_cast<int*>(v);
                },
                nullptr);
  cascadedb::Cache::Handle* h = cache->Lookup("k");
  if (h == nullptr) return Fail("cache lookup", cascadedb::Status::OK());
  cache->Release(h);

  auto bloom = cascadedb::NewBloomFilterPolicy(10);
  cascadedb::Slice keys[1] = {"key"};
  std::string filter;
  bloom->CreateFilter(keys, 1, &filter);
  if (!bloom->KeyMayMatch("key", filter)) {
    return Fail("bloom false negative", cascadedb::Status::OK());
  }
  std::printf("%s, comparator %s\n", data.c_str(),
              cascadedb::BytewiseComparator()->Name());
  return 0;
}

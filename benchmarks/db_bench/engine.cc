// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Engine registry for db_bench: which adapters this binary was built with
// (DB_BENCH_HAVE_LEVELDB / DB_BENCH_HAVE_ROCKSDB come from CMake when the
// Debian packages were found) and a factory by name.

#include <memory>
#include <string>
#include <vector>

#include "benchmarks/db_bench/engine.h"

namespace cascadedb {
namespace db_bench {

#ifndef DB_BENCH_HAVE_LEVELDB
std::unique_ptr<Engine> NewLevelDBEngine() { return nullptr; }
#endif
#ifndef DB_BENCH_HAVE_ROCKSDB
std::unique_ptr<Engine> NewRocksDBEngine() { return nullptr; }
#endif

std::vector<std::string> AvailableEngines() {
  std::vector<std::string> names = {"cascadedb"};
#ifdef DB_BENCH_HAVE_LEVELDB
  names.push_back("leveldb");
#endif
#ifdef DB_BENCH_HAVE_ROCKSDB
  names.push_back("rocksdb");
#endif
  return names;
}

std::unique_ptr<Engine> NewEngine(std::string_view name) {
  if (name == "cascadedb") return NewCascadeDBEngine();
  if (name == "leveldb") return NewLevelDBEngine();
  if (name == "rocksdb") return NewRocksDBEngine();
  return nullptr;
}

}  // namespace db_bench
}  // namespace cascadedb

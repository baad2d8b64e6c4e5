// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Runner: runs the --benchmarks list against one Engine. It opens (and for
// fill benchmarks re-creates) the database, starts the benchmark threads
// and the per-second Sampler, snapshots the engine's and the OS's figures
// around each benchmark, prints each report, and feeds --report_dir.
//
// Thread safety: not thread-safe; one Runner per process, driven by main.
#ifndef CASCADEDB_BENCHMARKS_DB_BENCH_BENCHMARK_RUNNER_H_
#define CASCADEDB_BENCHMARKS_DB_BENCH_BENCHMARK_RUNNER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "benchmarks/db_bench/engine.h"
#include "benchmarks/db_bench/generators.h"
#include "benchmarks/db_bench/report.h"
#include "benchmarks/db_bench/workloads.h"
#include "cascadedb/status.h"

namespace cascadedb {
namespace db_bench {

// Exit codes of db_bench.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // an engine or I/O error while running
constexpr int kExitUsage = 2;    // a bad flag value

class Runner {
 public:
  // engine is the adapter to drive; report_dir may be null (no files);
  // warnings are printed in the header (flags the engine ignores).
  Runner(std::unique_ptr<Engine> engine, EngineConfig config,
         std::unique_ptr<ReportDir> report_dir,
         std::vector<std::string> warnings, std::string command_line);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Runs every benchmark of --benchmarks in order and returns the exit
  // code.
  int Run();

 private:
  // Opens the database (destroying it first when fresh), resets the
  // since-open figures. InvalidArgument means the engine rejected options.
  Status OpenDatabase(bool fresh);
  BenchResult RunBenchmark(const std::string& name, int index);
  void RunThreads(const WorkloadSpec& spec, int index, BenchResult* r);
  void BeginFigures(ResourceFigures* res);
  void EndFigures(ResourceFigures* res);
  void PrintHeader();
  RunInfo MakeRunInfo() const;
  uint64_t SeedFor(int benchmark_index, int thread) const;

  std::unique_ptr<Engine> engine_;
  const EngineConfig config_;
  std::unique_ptr<ReportDir> report_dir_;
  const std::vector<std::string> warnings_;
  const std::string command_line_;
  const KeyFormatter keys_;
  uint64_t seed_base_ = 0;
  uint64_t run_start_ns_ = 0;
  // Which keys are live; null when it is unknown (--use_existing_db).
  std::unique_ptr<LiveKeySet> live_;
  bool db_open_ = false;
  // Figures since the database was last opened.
  ResourceFigures since_open_;
};

}  // namespace db_bench
}  // namespace cascadedb

#endif  // CASCADEDB_BENCHMARKS_DB_BENCH_BENCHMARK_RUNNER_H_

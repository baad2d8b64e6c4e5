// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// db_bench: the LevelDB/RocksDB-style benchmark for CascadeDB, and for
// LevelDB and RocksDB when it was built with them. main parses and checks
// the flags (a bad value is a one-line error and exit code 2), builds the
// engine adapter and the report directory, and hands over to Runner.
//
//   db_bench --benchmarks=fillrandom,readrandom --num=1000000
//            --report_dir=/tmp/report
//
// Thread safety: single-threaded setup; Runner owns the threads.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "benchmarks/db_bench/benchmark_runner.h"
#include "benchmarks/db_bench/engine.h"
#include "benchmarks/db_bench/flags.h"
#include "benchmarks/db_bench/report.h"

namespace {

int Usage(const std::string& message) {
  std::fprintf(stderr, "db_bench: %s\n", message.c_str());
  return cascadedb::db_bench::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cascadedb::db_bench;  // NOLINT(build/namespaces)
  std::string error;
  switch (ParseFlags(argc, argv, &error)) {
    case ParseResult::kHelp:
      PrintUsage(argv[0]);
      return kExitOk;
    case ParseResult::kError:
      return Usage(error);
    case ParseResult::kOk:
      break;
  }
  error = ValidateFlags();
  if (!error.empty()) return Usage(error);

  std::unique_ptr<Engine> engine = NewEngine(FLAGS_engine);
  EngineConfig config = BuildEngineConfig();
  std::vector<std::string> warnings;
  cascadedb::Status s = engine->Check(config, &warnings);
  if (!s.ok()) return Usage(s.ToString());

  std::unique_ptr<ReportDir> report_dir;
  if (!FLAGS_report_dir.empty()) {
    s = ReportDir::Open(FLAGS_report_dir, &report_dir);
    if (!s.ok()) return Usage(s.ToString());
  }

  std::string command_line;
  for (int i = 0; i < argc; i++) {
    if (i > 0) command_line += ' ';
    command_line += argv[i];
  }
  Runner runner(std::move(engine), std::move(config), std::move(report_dir),
                std::move(warnings), command_line);
  return runner.Run();
}

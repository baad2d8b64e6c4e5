// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// db_bench's command line: the gflags flags (named as in LevelDB's and
// RocksDB's db_bench, so existing scripts carry over), a parser that never
// exits the process (bad input becomes a one-line message; main exits 2),
// range checks, and the mapping from flags to EngineConfig.
//
// Engine option flags show CascadeDB's defaults in --help, but a flag that
// is not given is not applied: every engine then keeps its own default.
//
// Thread safety: not thread-safe; parse and validate before starting
// threads, then only read the FLAGS_ variables.
#ifndef CASCADEDB_BENCHMARKS_DB_BENCH_FLAGS_H_
#define CASCADEDB_BENCHMARKS_DB_BENCH_FLAGS_H_

#include <gflags/gflags.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "benchmarks/db_bench/engine.h"

// Workload.
DECLARE_string(benchmarks);
DECLARE_string(engine);
DECLARE_int64(num);
DECLARE_int64(reads);
DECLARE_int32(key_size);
DECLARE_int32(value_size);
DECLARE_double(compression_ratio);
DECLARE_int32(threads);
DECLARE_int64(seed);
DECLARE_int32(readwritepercent);
DECLARE_uint64(benchmark_write_rate_limit);
DECLARE_string(db);
DECLARE_bool(use_existing_db);
// Reporting.
DECLARE_bool(histogram);
DECLARE_bool(statistics);
DECLARE_int64(stats_interval_seconds);
DECLARE_bool(stats_per_interval);
DECLARE_int32(perf_level);
DECLARE_uint64(slow_write_micros);
DECLARE_string(report_dir);
// Engine options.
DECLARE_int64(write_buffer_size);
DECLARE_int32(max_write_buffer_number);
DECLARE_int32(num_levels);
DECLARE_int32(level0_file_num_compaction_trigger);
DECLARE_int32(level0_slowdown_writes_trigger);
DECLARE_int32(level0_stop_writes_trigger);
DECLARE_uint64(max_bytes_for_level_base);
DECLARE_double(max_bytes_for_level_multiplier);
DECLARE_uint64(target_file_size_base);
DECLARE_int32(target_file_size_multiplier);
DECLARE_int32(max_background_compactions);
DECLARE_int32(max_background_flushes);
DECLARE_int32(max_subcompactions);
DECLARE_int32(compaction_pri);
DECLARE_bool(compaction_copy_blocks);
DECLARE_bool(stalled_writers_compress);
DECLARE_bool(background_yields_to_writers);
DECLARE_bool(align_compaction_outputs);
DECLARE_string(compression_type);
DECLARE_string(memtablerep);
DECLARE_double(bloom_bits);
DECLARE_double(memtable_bloom_size_ratio);
DECLARE_bool(memtable_whole_key_filtering);
DECLARE_int64(cache_size);
DECLARE_int64(block_size);
DECLARE_bool(sync);
DECLARE_bool(disable_wal);
DECLARE_bool(use_direct_reads);
DECLARE_bool(verify_checksum);
DECLARE_bool(mmap_read);
DECLARE_bool(mmap_write);
DECLARE_uint64(recycle_log_file_num);
DECLARE_uint64(recycle_table_bytes);
DECLARE_uint64(wal_bytes_per_sync);
DECLARE_uint64(bytes_per_sync);
DECLARE_uint64(long_scan_blocks);
DECLARE_uint64(value_compression_min_size);
DECLARE_string(compaction_cpu_priority);
DECLARE_string(flush_in_compaction);
DECLARE_bool(cache_admit_on_second_miss);
DECLARE_bool(use_direct_io_for_flush_and_compaction);
DECLARE_uint64(delayed_write_rate);
DECLARE_uint64(soft_pending_compaction_bytes_limit);
DECLARE_uint64(hard_pending_compaction_bytes_limit);
DECLARE_int64(rate_limiter_bytes_per_sec);

namespace cascadedb {
namespace db_bench {

enum class ParseResult { kOk, kHelp, kError };

// Sets the FLAGS_ variables from argv[1..argc). Accepts --name=value,
// -name=value, --name value (non-bool flags), --name and --noname (bool
// flags). Returns kHelp for --help/-h/--helpfull, kError with a one-line
// *error for an unknown flag, a malformed value or a stray argument.
ParseResult ParseFlags(int argc, char** argv, std::string* error);

// Prints the usage text with db_bench's own flags.
void PrintUsage(const char* argv0);

// Range and name checks gflags' types cannot express. Returns "" when every
// flag is fine, else one line naming every bad flag and its limit.
std::string ValidateFlags();

// True if the flag was given on the command line (or set since).
bool FlagIsSet(const char* name);

// The engine settings: flags that were given, plus the db path.
EngineConfig BuildEngineConfig();

// The database directory: --db, or <TEST_TMPDIR or /tmp>/cascadedb-bench-
// <uid>/<engine> when --db is empty.
std::string DatabasePath();

// Reads per thread: --reads, or --num when --reads is negative.
int64_t ReadsPerThread();

// The benchmark names db_bench knows, in --help order.
const std::vector<std::string>& KnownBenchmarks();
// --benchmarks split at commas; empty entries are dropped.
std::vector<std::string> SplitBenchmarks(std::string_view list);

}  // namespace db_bench
}  // namespace cascadedb

#endif  // CASCADEDB_BENCHMARKS_DB_BENCH_FLAGS_H_

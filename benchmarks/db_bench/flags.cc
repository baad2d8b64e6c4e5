// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// db_bench flag definitions, parsing without exit, validation and the
// flags -> EngineConfig mapping (see flags.h).

#include "benchmarks/db_bench/flags.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "benchmarks/db_bench/generators.h"

// ---------------------------------------------------------------- workload
DEFINE_string(
    benchmarks,
    "fillseq,fillsync,fillrandom,overwrite,readrandom,readseq,readreverse,"
    "seekrandom,readmissing,compact,readrandom,fill100K,stats",
    "Comma-separated list of benchmarks to run in order:\n"
    "  fillseq       write --num values in sequential key order\n"
    "  fillrandom    write --num values in random key order\n"
    "  overwrite     overwrite --num values in random key order\n"
    "  fillsync      write --num/1000 values in random order, sync=true\n"
    "  fill100K      write --num/1000 100 KB values in random order\n"
    "  deleterandom  delete --num keys in random order\n"
    "  readrandom    read --reads random keys\n"
    "  readmissing   read --reads keys that are not in the database\n"
    "  readseq       read --reads entries in key order with an iterator\n"
    "  readreverse   read --reads entries in reverse key order\n"
    "  seekrandom    --reads seeks to random keys\n"
    "  readwhilewriting  --threads readers doing readrandom, plus one\n"
    "                writer (paced by --benchmark_write_rate_limit)\n"
    "  readrandomwriterandom  --reads ops per thread, --readwritepercent\n"
    "                of them reads, the rest writes\n"
    "  compact       compact the whole key range\n"
    "  flush         flush the memtable\n"
    "  waitforcompaction  wait until no flush or compaction is pending\n"
    "  stats, levelstats, sstables  print the engine's report\n"
    "fillseq, fillrandom, fillsync and fill100K start from an empty "
    "database unless --use_existing_db.");
DEFINE_string(engine, "cascadedb",
              "Engine to benchmark: cascadedb, or leveldb / rocksdb when "
              "db_bench was built with them");
DEFINE_int64(num, 1000000, "Number of key/values to place in the database");
DEFINE_int64(reads, -1,
             "Number of read operations per thread; negative: --num");
DEFINE_int32(key_size, 16, "Size of each key in bytes (zero-padded decimal)");
DEFINE_int32(value_size, 100, "Size of each value in bytes");
DEFINE_double(compression_ratio, 0.5,
              "Arrange for values to compress to this fraction of their "
              "size");
DEFINE_int32(threads, 1, "Number of concurrent benchmark threads");
DEFINE_int64(seed, 301,
             "Seed base for the key generators (thread t of benchmark b "
             "uses seed + 1000 * b + t); 0: derived from the clock");
DEFINE_int32(readwritepercent, 90,
             "readrandomwriterandom: percentage of operations that are "
             "reads (the rest are writes)");
DEFINE_uint64(benchmark_write_rate_limit, 0,
              "If non-zero, pace the benchmark's writes (keys + values) to "
              "this many bytes per second, over all threads");
DEFINE_string(db, "",
              "Database directory; default "
              "<TEST_TMPDIR or /tmp>/cascadedb-bench-<uid>/<engine>");
DEFINE_bool(use_existing_db, false,
            "Keep the existing database: do not destroy it at start, and "
            "skip the fill benchmarks that need an empty one");

// ---------------------------------------------------------------- reports
DEFINE_bool(histogram, false, "Also print every non-empty latency bucket");
DEFINE_bool(statistics, false,
            "Collect the engine's statistics and print them at the end");
DEFINE_int64(stats_interval_seconds, 5,
             "Print a progress line (ops done, current ops/s, ETA, stall "
             "state) to stderr every this many seconds; 0: never");
DEFINE_int32(perf_level, 1,
             "The engine's per-thread perf context, in RocksDB's numbering: "
             "0-2 off; 3-5 times the parts of each write (queue, stall, WAL, "
             "memtable), and the report splits the time of writes slower "
             "than 1 ms into them (CascadeDB and RocksDB; LevelDB has none)");
DEFINE_uint64(slow_write_micros, 1000,
              "With --perf_level=3 or more: writes slower than this many "
              "microseconds are the report's slow writes, their time split "
              "by where it went (e.g. 150 to explain a p99.9 near 200 us)");
DEFINE_bool(stats_per_interval, false,
            "With each progress line, also print the engine's stats report");
DEFINE_string(report_dir, "",
              "If set, write timeline.csv (one row per second) and "
              "summary.json into this directory (created if missing)");

// ---------------------------------------------------------------- options
// Defaults shown are CascadeDB's (include/cascadedb/options.h). A flag not
// given is not applied, so every engine keeps its own default.
DEFINE_int64(write_buffer_size, 64 << 20,
             "Bytes of memtable before it is flushed (engine default if "
             "not given)");
DEFINE_int32(max_write_buffer_number, 2,
             "Memtables (active + immutable) that may exist at once");
DEFINE_int32(num_levels, 7, "Number of LSM levels, L0 included");
DEFINE_int32(level0_file_num_compaction_trigger, 4,
             "L0 files that trigger an L0->L1 compaction");
DEFINE_int32(level0_slowdown_writes_trigger, 20,
             "L0 files at which writes are slowed down");
DEFINE_int32(level0_stop_writes_trigger, 36, "L0 files at which writes stop");
DEFINE_uint64(max_bytes_for_level_base, 256ull << 20,
              "Target size of L1 in bytes");
DEFINE_double(max_bytes_for_level_multiplier, 10,
              "Size ratio between consecutive levels");
DEFINE_uint64(target_file_size_base, 64ull << 20,
              "Target SST size at L1 in bytes");
DEFINE_int32(target_file_size_multiplier, 1,
             "Growth of the target SST size per level");
DEFINE_int32(max_background_compactions, 2, "Compaction threads");
DEFINE_int32(max_background_flushes, 1, "Flush threads");
DEFINE_int32(max_subcompactions, 1, "Threads one compaction may be split into");
DEFINE_int32(compaction_pri, 3,
             "Which file of L1+ a compaction takes, RocksDB's numbers: 3 "
             "min overlapping ratio, 4 round robin (not given: the engine's "
             "default; LevelDB takes only 4)");
DEFINE_bool(compaction_copy_blocks, true,
            "Compactions write blocks of the output level that pass "
            "unchanged out whole (Options::compaction_copy_blocks; not "
            "given: the engine's default; LevelDB and RocksDB take only "
            "false)");
DEFINE_bool(stalled_writers_compress, true,
            "Writers held back by a delay or stop compress the flushes' and "
            "compactions' data blocks while they wait "
            "(Options::stalled_writers_compress; not given: the engine's "
            "default; LevelDB and RocksDB take only false)");
DEFINE_bool(background_yields_to_writers, true,
            "Flushes and compactions yield their CPU to a write held up "
            "waiting for one (Options::background_yields_to_writers; not "
            "given: the engine's default; LevelDB and RocksDB take only "
            "false)");
DEFINE_bool(align_compaction_outputs, true,
            "Compactions end output files where files of the level below "
            "end (Options::align_compaction_outputs; RocksDB's "
            "level_compaction_dynamic_file_size; not given: the engine's "
            "default; LevelDB takes only false)");
DEFINE_string(compaction_cpu_priority, "normal",
              "CPU priority of the compaction threads: normal, low (nice 19) "
              "or idle (SCHED_IDLE); see docs/tuning.md (not given: normal; "
              "LevelDB takes only normal)");
DEFINE_string(flush_in_compaction, "auto",
              "Who flushes a memtable while a compaction runs: auto, never "
              "(the flush thread) or always (the running compaction job); "
              "see docs/tuning.md (CascadeDB only: LevelDB behaves as "
              "always and takes only that, RocksDB as never)");
DEFINE_string(compression_type, "snappy",
              "Block compression: none, snappy, lz4 or zstd");
DEFINE_double(bloom_bits, 10, "Bloom filter bits per key; 0: no filter");
DEFINE_int64(cache_size, 32 << 20, "Block cache bytes; 0: no block cache");
DEFINE_string(memtablerep, "btree",
              "The memtable's structure: btree or skip_list (not given: the "
              "engine's own; LevelDB and RocksDB take only skip_list)");
DEFINE_double(memtable_bloom_size_ratio, 0.02,
              "Memtable bloom filter bytes / write_buffer_size, in [0, 0.25]; "
              "0: none (not given: the engine's default)");
DEFINE_bool(memtable_whole_key_filtering, true,
            "Filter whole keys with the memtable bloom filter (not given: "
            "the engine's default)");
DEFINE_int64(block_size, 4096, "Uncompressed bytes per SST data block");
DEFINE_bool(cache_admit_on_second_miss, true,
            "Cache a data block on its second recent miss, not its first "
            "(not given: the engine's default; LevelDB and RocksDB take only "
            "false)");
DEFINE_uint64(long_scan_blocks, 16,
              "A scan stops adding a table's blocks to the block cache after "
              "this many in a row; 0: scans fill the cache (not given: the "
              "engine's default; LevelDB and RocksDB take only 0)");
DEFINE_uint64(value_compression_min_size, 512,
              "Values of at least this many bytes are compressed on their own "
              "as they go into tables, not in blocks; 0: every value is "
              "compressed in blocks (not given: the engine's default; "
              "LevelDB and RocksDB take only 0)");
DEFINE_bool(sync, false, "Sync the WAL on every write");
DEFINE_bool(disable_wal, false, "Write without the WAL");
DEFINE_bool(verify_checksum, true,
            "Verify the checksum of every block a read takes from an SST "
            "(ReadOptions::verify_checksums)");
DEFINE_bool(use_direct_reads, false, "Read SSTs with O_DIRECT");
DEFINE_bool(mmap_read, false,
            "Read SSTs through mmap (not given: the engine's default)");
DEFINE_bool(mmap_write, false,
            "Write the WAL through mmap (not given: the engine's default)");
DEFINE_uint64(recycle_log_file_num, 2,
              "Obsolete WALs kept and written over by new WALs; 0: off (not "
              "given: the engine's default; LevelDB takes only 0)");
DEFINE_uint64(recycle_table_bytes, 16 << 20,
              "Bytes of obsolete table files kept and written over by new "
              "tables; 0: off (not given: the engine's default; LevelDB and "
              "RocksDB take only 0)");
DEFINE_uint64(wal_bytes_per_sync, 0,
              "Start write-back of WAL data every this many bytes; 0: off "
              "(not given: the engine's default)");
DEFINE_uint64(bytes_per_sync, 1048576,
              "Start write-back of SST data every this many bytes "
              "(sync_file_range); 0: off (not given: the engine's default)");
DEFINE_bool(use_direct_io_for_flush_and_compaction, false,
            "Write flush and compaction output with O_DIRECT");
DEFINE_uint64(delayed_write_rate, 16ull << 20,
              "Write rate (bytes/s) while a slowdown trigger is active");
DEFINE_uint64(soft_pending_compaction_bytes_limit, 64ull << 30,
              "Pending compaction bytes at which writes slow down; 0: off");
DEFINE_uint64(hard_pending_compaction_bytes_limit, 256ull << 30,
              "Pending compaction bytes at which writes stop; 0: off");
DEFINE_int64(rate_limiter_bytes_per_sec, 0,
             "Cap on flush + compaction output bytes per second; 0: none");

namespace cascadedb {
namespace db_bench {

namespace {

bool IsHelp(const std::string& arg) {
  return arg == "--help" || arg == "-help" || arg == "-h" ||
         arg == "--helpfull" || arg == "-helpfull" || arg == "--helpshort" ||
         arg == "-helpshort";
}

// Collects every problem on one line.
class Problems {
 public:
  void Add(const std::string& what) {
    if (!text_.empty()) text_ += "; ";
    text_ += what;
  }
  template <typename T>
  void Check(bool bad, const char* flag, T value, const char* limit) {
    if (!bad) return;
    std::ostringstream s;
    s << "--" << flag << "=" << value << " " << limit;
    Add(s.str());
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

}  // namespace

ParseResult ParseFlags(int argc, char** argv, std::string* error) {
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (IsHelp(arg)) return ParseResult::kHelp;
    if (arg.size() < 2 || arg[0] != '-') {
      *error =
          "unexpected argument '" + arg + "' (flags look like --name=value)";
      return ParseResult::kError;
    }
    const size_t dashes = (arg[1] == '-') ? 2 : 1;
    const size_t eq = arg.find('=');
    std::string name = arg.substr(
        dashes, eq == std::string::npos ? std::string::npos : eq - dashes);
    std::string value;
    bool has_value = eq != std::string::npos;
    if (has_value) value = arg.substr(eq + 1);

    gflags::CommandLineFlagInfo info;
    bool known = gflags::GetCommandLineFlagInfo(name.c_str(), &info);
    if (!known && !has_value && name.compare(0, 2, "no") == 0) {
      // --nosync is --sync=false.
      const std::string positive = name.substr(2);
      if (gflags::GetCommandLineFlagInfo(positive.c_str(), &info) &&
          info.type == "bool") {
        name = positive;
        value = "false";
        has_value = true;
        known = true;
      }
    }
    if (!known) {
      *error = "unknown flag --" + name + " (see --help)";
      return ParseResult::kError;
    }
    if (!has_value) {
      if (info.type == "bool") {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        *error = "flag --" + name + " needs a value";
        return ParseResult::kError;
      }
    }
    if (gflags::SetCommandLineOption(name.c_str(), value.c_str()).empty()) {
      *error = "invalid value '" + value + "' for --" + name + " (" +
               info.type + " expected)";
      return ParseResult::kError;
    }
  }
  return ParseResult::kOk;
}

void PrintUsage(const char* argv0) {
  gflags::SetUsageMessage(
      "db_bench: LevelDB/RocksDB-style benchmarks for CascadeDB (and the "
      "peers it was built with).\nUsage: db_bench --benchmarks=fillrandom,"
      "readrandom --num=1000000 [--engine=leveldb|rocksdb] "
      "[--report_dir=DIR]");
  // Only flags defined in db_bench's own files: libraries linked in may
  // define flags of their own.
  gflags::ShowUsageWithFlagsRestrict(argv0, "db_bench/flags");
}

const std::vector<std::string>& KnownBenchmarks() {
  static const std::vector<std::string> kNames = {"fillseq",
                                                  "fillrandom",
                                                  "overwrite",
                                                  "fillsync",
                                                  "fill100K",
                                                  "deleterandom",
                                                  "readrandom",
                                                  "readmissing",
                                                  "readseq",
                                                  "readreverse",
                                                  "seekrandom",
                                                  "readwhilewriting",
                                                  "readrandomwriterandom",
                                                  "compact",
                                                  "flush",
                                                  "waitforcompaction",
                                                  "stats",
                                                  "levelstats",
                                                  "sstables"};
  return kNames;
}

std::vector<std::string> SplitBenchmarks(std::string_view list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view name = list.substr(start, comma - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) out.emplace_back(name);
    start = comma + 1;
  }
  return out;
}

std::string ValidateFlags() {
  Problems p;
  // Engine.
  if (NewEngine(FLAGS_engine) == nullptr) {
    std::string known;
    for (const std::string& e : AvailableEngines()) {
      known += known.empty() ? e : ", " + e;
    }
    if (FLAGS_engine == "leveldb" || FLAGS_engine == "rocksdb") {
      p.Add("--engine=" + FLAGS_engine + ": this db_bench was built without " +
            FLAGS_engine + " (install lib" + FLAGS_engine +
            "-dev and rebuild; available: " + known + ")");
    } else {
      p.Add("--engine=" + FLAGS_engine + " is unknown (available: " + known +
            ")");
    }
  }
  // Benchmarks.
  const std::vector<std::string> names = SplitBenchmarks(FLAGS_benchmarks);
  if (names.empty()) p.Add("--benchmarks is empty");
  for (const std::string& n : names) {
    bool found = false;
    for (const std::string& k : KnownBenchmarks()) found = found || k == n;
    if (!found) p.Add("--benchmarks: unknown benchmark '" + n + "'");
  }
  // Workload shape.
  p.Check(FLAGS_num < 1 || FLAGS_num > (int64_t{1} << 40), "num", FLAGS_num,
          "is outside [1, 2^40]");
  p.Check(FLAGS_reads > (int64_t{1} << 40), "reads", FLAGS_reads,
          "is above 2^40");
  p.Check(FLAGS_key_size < 1 || FLAGS_key_size > 4096, "key_size",
          FLAGS_key_size, "is outside [1, 4096]");
  if (FLAGS_num >= 1 && FLAGS_key_size >= 1 && FLAGS_key_size <= 4096) {
    const int digits = DecimalDigits(static_cast<uint64_t>(FLAGS_num - 1));
    if (FLAGS_key_size < digits) {
      p.Add("--key_size=" + std::to_string(FLAGS_key_size) +
            " is too small for --num=" + std::to_string(FLAGS_num) +
            " (keys need " + std::to_string(digits) + " digits)");
    }
  }
  p.Check(FLAGS_value_size < 0 || FLAGS_value_size > (64 << 20), "value_size",
          FLAGS_value_size, "is outside [0, 67108864]");
  p.Check(!(FLAGS_compression_ratio > 0 && FLAGS_compression_ratio <= 1),
          "compression_ratio", FLAGS_compression_ratio, "is outside (0, 1]");
  p.Check(FLAGS_threads < 1 || FLAGS_threads > 1024, "threads", FLAGS_threads,
          "is outside [1, 1024]");
  p.Check(FLAGS_seed < 0, "seed", FLAGS_seed, "is negative");
  p.Check(FLAGS_readwritepercent < 0 || FLAGS_readwritepercent > 100,
          "readwritepercent", FLAGS_readwritepercent, "is outside [0, 100]");
  p.Check(FLAGS_stats_interval_seconds < 0, "stats_interval_seconds",
          FLAGS_stats_interval_seconds, "is negative");
  p.Check(FLAGS_perf_level < 0 || FLAGS_perf_level > 5, "perf_level",
          FLAGS_perf_level, "is outside [0, 5]");
  p.Check(FLAGS_slow_write_micros < 1 ||
              FLAGS_slow_write_micros > 3600ull * 1000 * 1000,
          "slow_write_micros", FLAGS_slow_write_micros,
          "is outside [1, 3600000000]");
  // Engine options (each engine validates the rest when it opens).
  p.Check(FLAGS_write_buffer_size < 1, "write_buffer_size",
          FLAGS_write_buffer_size, "must be positive");
  p.Check(FLAGS_max_write_buffer_number < 1, "max_write_buffer_number",
          FLAGS_max_write_buffer_number, "must be positive");
  p.Check(FLAGS_num_levels < 1, "num_levels", FLAGS_num_levels,
          "must be positive");
  p.Check(FLAGS_level0_file_num_compaction_trigger < 1,
          "level0_file_num_compaction_trigger",
          FLAGS_level0_file_num_compaction_trigger, "must be positive");
  p.Check(FLAGS_level0_slowdown_writes_trigger < 1,
          "level0_slowdown_writes_trigger",
          FLAGS_level0_slowdown_writes_trigger, "must be positive");
  p.Check(FLAGS_level0_stop_writes_trigger < 1, "level0_stop_writes_trigger",
          FLAGS_level0_stop_writes_trigger, "must be positive");
  p.Check(FLAGS_max_bytes_for_level_base < 1, "max_bytes_for_level_base",
          FLAGS_max_bytes_for_level_base, "must be positive");
  p.Check(!(FLAGS_max_bytes_for_level_multiplier > 0),
          "max_bytes_for_level_multiplier",
          FLAGS_max_bytes_for_level_multiplier, "must be positive");
  p.Check(FLAGS_target_file_size_base < 1, "target_file_size_base",
          FLAGS_target_file_size_base, "must be positive");
  p.Check(FLAGS_target_file_size_multiplier < 1, "target_file_size_multiplier",
          FLAGS_target_file_size_multiplier, "must be positive");
  p.Check(FLAGS_max_background_compactions < 1, "max_background_compactions",
          FLAGS_max_background_compactions, "must be positive");
  p.Check(FLAGS_max_background_flushes < 1, "max_background_flushes",
          FLAGS_max_background_flushes, "must be positive");
  p.Check(FLAGS_max_subcompactions < 1, "max_subcompactions",
          FLAGS_max_subcompactions, "must be positive");
  const std::string& c = FLAGS_compression_type;
  p.Check(c != "none" && c != "snappy" && c != "lz4" && c != "zstd",
          "compression_type", c, "is not one of none, snappy, lz4, zstd");
  p.Check(FLAGS_memtablerep != "skip_list" && FLAGS_memtablerep != "btree",
          "memtablerep", FLAGS_memtablerep, "is not one of skip_list, btree");
  p.Check(FLAGS_compaction_cpu_priority != "normal" &&
              FLAGS_compaction_cpu_priority != "low" &&
              FLAGS_compaction_cpu_priority != "idle",
          "compaction_cpu_priority", FLAGS_compaction_cpu_priority,
          "is not one of normal, low, idle");
  p.Check(FLAGS_flush_in_compaction != "auto" &&
              FLAGS_flush_in_compaction != "never" &&
              FLAGS_flush_in_compaction != "always",
          "flush_in_compaction", FLAGS_flush_in_compaction,
          "is not one of auto, never, always");
  p.Check(!(FLAGS_bloom_bits >= 0 && FLAGS_bloom_bits <= 100), "bloom_bits",
          FLAGS_bloom_bits, "is outside [0, 100]");
  p.Check(!(FLAGS_memtable_bloom_size_ratio >= 0 &&
            FLAGS_memtable_bloom_size_ratio <= 0.25),
          "memtable_bloom_size_ratio", FLAGS_memtable_bloom_size_ratio,
          "is outside [0, 0.25]");
  p.Check(FLAGS_cache_size < 0, "cache_size", FLAGS_cache_size, "is negative");
  p.Check(FLAGS_block_size < 1, "block_size", FLAGS_block_size,
          "must be positive");
  p.Check(FLAGS_delayed_write_rate < 1, "delayed_write_rate",
          FLAGS_delayed_write_rate, "must be positive");
  p.Check(FLAGS_rate_limiter_bytes_per_sec < 0, "rate_limiter_bytes_per_sec",
          FLAGS_rate_limiter_bytes_per_sec, "is negative");
  return p.text();
}

bool FlagIsSet(const char* name) {
  gflags::CommandLineFlagInfo info;
  if (!gflags::GetCommandLineFlagInfo(name, &info)) return false;
  return !info.is_default;
}

std::string DatabasePath() {
  if (!FLAGS_db.empty()) return FLAGS_db;
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string base = (tmp != nullptr && tmp[0] != '\0') ? tmp : "/tmp";
  return base + "/cascadedb-bench-" + std::to_string(getuid()) + "/" +
         FLAGS_engine;
}

int64_t ReadsPerThread() { return FLAGS_reads < 0 ? FLAGS_num : FLAGS_reads; }

EngineConfig BuildEngineConfig() {
  EngineConfig c;
  c.db_path = DatabasePath();
  // Copies the flag into the optional only when it was given.
#define DB_BENCH_MAP(field, flag, type) \
  if (FlagIsSet(#flag)) c.field = static_cast<type>(FLAGS_##flag)
  DB_BENCH_MAP(write_buffer_size, write_buffer_size, uint64_t);
  DB_BENCH_MAP(max_write_buffer_number, max_write_buffer_number, int);
  DB_BENCH_MAP(num_levels, num_levels, int);
  DB_BENCH_MAP(level0_file_num_compaction_trigger,
               level0_file_num_compaction_trigger, int);
  DB_BENCH_MAP(max_bytes_for_level_base, max_bytes_for_level_base, uint64_t);
  DB_BENCH_MAP(max_bytes_for_level_multiplier, max_bytes_for_level_multiplier,
               double);
  DB_BENCH_MAP(target_file_size_base, target_file_size_base, uint64_t);
  DB_BENCH_MAP(target_file_size_multiplier, target_file_size_multiplier, int);
  DB_BENCH_MAP(max_background_compactions, max_background_compactions, int);
  DB_BENCH_MAP(max_background_flushes, max_background_flushes, int);
  DB_BENCH_MAP(max_subcompactions, max_subcompactions, int);
  DB_BENCH_MAP(compaction_pri, compaction_pri, int);
  DB_BENCH_MAP(compaction_copy_blocks, compaction_copy_blocks, bool);
  DB_BENCH_MAP(align_compaction_outputs, align_compaction_outputs, bool);
  DB_BENCH_MAP(stalled_writers_compress, stalled_writers_compress, bool);
  DB_BENCH_MAP(background_yields_to_writers, background_yields_to_writers,
               bool);
  DB_BENCH_MAP(level0_slowdown_writes_trigger, level0_slowdown_writes_trigger,
               int);
  DB_BENCH_MAP(level0_stop_writes_trigger, level0_stop_writes_trigger, int);
  DB_BENCH_MAP(delayed_write_rate, delayed_write_rate, uint64_t);
  DB_BENCH_MAP(soft_pending_compaction_bytes_limit,
               soft_pending_compaction_bytes_limit, uint64_t);
  DB_BENCH_MAP(hard_pending_compaction_bytes_limit,
               hard_pending_compaction_bytes_limit, uint64_t);
  DB_BENCH_MAP(rate_limiter_bytes_per_sec, rate_limiter_bytes_per_sec,
               uint64_t);
  DB_BENCH_MAP(compression_type, compression_type, std::string);
  DB_BENCH_MAP(bloom_bits, bloom_bits, double);
  DB_BENCH_MAP(memtablerep, memtablerep, std::string);
  DB_BENCH_MAP(compaction_cpu_priority, compaction_cpu_priority, std::string);
  DB_BENCH_MAP(flush_in_compaction, flush_in_compaction, std::string);
  DB_BENCH_MAP(memtable_bloom_size_ratio, memtable_bloom_size_ratio, double);
  DB_BENCH_MAP(memtable_whole_key_filtering, memtable_whole_key_filtering,
               bool);
  DB_BENCH_MAP(cache_size, cache_size, uint64_t);
  DB_BENCH_MAP(block_size, block_size, uint64_t);
  DB_BENCH_MAP(long_scan_blocks, long_scan_blocks, uint64_t);
  DB_BENCH_MAP(value_compression_min_size, value_compression_min_size,
               uint64_t);
  DB_BENCH_MAP(cache_admit_on_second_miss, cache_admit_on_second_miss, bool);
  DB_BENCH_MAP(use_direct_reads, use_direct_reads, bool);
  DB_BENCH_MAP(verify_checksums, verify_checksum, bool);
  DB_BENCH_MAP(mmap_read, mmap_read, bool);
  DB_BENCH_MAP(mmap_write, mmap_write, bool);
  DB_BENCH_MAP(recycle_log_file_num, recycle_log_file_num, uint64_t);
  DB_BENCH_MAP(recycle_table_bytes, recycle_table_bytes, uint64_t);
  DB_BENCH_MAP(bytes_per_sync, bytes_per_sync, uint64_t);
  DB_BENCH_MAP(wal_bytes_per_sync, wal_bytes_per_sync, uint64_t);
  DB_BENCH_MAP(use_direct_io_for_flush_and_compaction,
               use_direct_io_for_flush_and_compaction, bool);
#undef DB_BENCH_MAP
  c.statistics = FLAGS_statistics;
  c.sync = FLAGS_sync;
  c.disable_wal = FLAGS_disable_wal;
  return c;
}

}  // namespace db_bench
}  // namespace cascadedb

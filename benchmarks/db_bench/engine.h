// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Engine: the small interface db_bench drives, so the same workloads run on
// CascadeDB and, when their Debian packages are installed, on LevelDB and
// RocksDB. An adapter maps the command-line settings (EngineConfig) onto its
// engine's options and reports what the engine knows about itself (L0 files,
// stalls, write amplification) in engine-neutral structs. Figures an engine
// does not report stay empty, and db_bench prints "n/a" for them: adapters
// never estimate what the engine did not say.
//
// Thread safety: an Engine is thread-safe once Open returned OK (Put, Get,
// iterators and the reporting calls may run on any thread at once); Open
// and Close must not overlap any other call. An EngineIterator is used by
// one thread at a time.
#ifndef CASCADEDB_BENCHMARKS_DB_BENCH_ENGINE_H_
#define CASCADEDB_BENCHMARKS_DB_BENCH_ENGINE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cascadedb/status.h"

namespace cascadedb {
namespace db_bench {

// Settings from the command line. An empty optional means the flag was not
// given: the engine keeps its own default (so "each engine's defaults" and
// "matched options" are both one command line away).
struct EngineConfig {
  std::string db_path;

  // Write buffering.
  std::optional<uint64_t> write_buffer_size;
  std::optional<int> max_write_buffer_number;
  // Levels and compaction.
  std::optional<int> num_levels;
  std::optional<int> level0_file_num_compaction_trigger;
  std::optional<uint64_t> max_bytes_for_level_base;
  std::optional<double> max_bytes_for_level_multiplier;
  std::optional<uint64_t> target_file_size_base;
  std::optional<int> target_file_size_multiplier;
  std::optional<int> max_background_compactions;
  std::optional<int> max_background_flushes;
  std::optional<int> max_subcompactions;
  // RocksDB's CompactionPri numbers: 3 min overlapping ratio, 4 round robin.
  std::optional<int> compaction_pri;
  // Compactions copy unchanged blocks whole (Options::compaction_copy_blocks).
  std::optional<bool> compaction_copy_blocks;
  // Stalled writers compress background blocks
  // (Options::stalled_writers_compress).
  std::optional<bool> stalled_writers_compress;
  // Flushes and compactions yield their CPU to a held-up write
  // (Options::background_yields_to_writers).
  std::optional<bool> background_yields_to_writers;
  // Compaction outputs end at the grandparents' file boundaries
  // (Options::align_compaction_outputs).
  std::optional<bool> align_compaction_outputs;
  // The compaction threads' CPU priority: normal, low or idle.
  std::optional<std::string> compaction_cpu_priority;
  // Who flushes while a compaction runs: auto, never or always
  // (Options::flush_in_compaction).
  std::optional<std::string> flush_in_compaction;
  // Stalls.
  std::optional<int> level0_slowdown_writes_trigger;
  std::optional<int> level0_stop_writes_trigger;
  std::optional<uint64_t> delayed_write_rate;
  std::optional<uint64_t> soft_pending_compaction_bytes_limit;
  std::optional<uint64_t> hard_pending_compaction_bytes_limit;
  std::optional<uint64_t> rate_limiter_bytes_per_sec;
  // Tables and caching.
  std::optional<std::string> compression_type;      // none, snappy, lz4, zstd
  std::optional<double> bloom_bits;                 // 0 = no filter
  std::optional<std::string> memtablerep;           // skip_list, btree
  std::optional<double> memtable_bloom_size_ratio;  // 0 = no memtable bloom
  std::optional<bool> memtable_whole_key_filtering;
  std::optional<uint64_t> cache_size;  // 0 = no block cache
  std::optional<uint64_t> block_size;
  std::optional<uint64_t> long_scan_blocks;  // 0 = scans fill the cache
  // Values this large are compressed on their own; 0 = only in blocks.
  std::optional<uint64_t> value_compression_min_size;
  std::optional<bool> cache_admit_on_second_miss;
  // I/O.
  std::optional<bool> use_direct_reads;
  std::optional<bool> mmap_read;
  std::optional<bool> mmap_write;
  std::optional<uint64_t> recycle_log_file_num;  // 0 = off
  std::optional<uint64_t> recycle_table_bytes;   // 0 = off
  std::optional<uint64_t> bytes_per_sync;        // 0 = off
  std::optional<uint64_t> wal_bytes_per_sync;    // 0 = off
  std::optional<bool> use_direct_io_for_flush_and_compaction;

  // Reads: verify every block's checksum (ReadOptions::verify_checksums).
  std::optional<bool> verify_checksums;

  // Collect the engine's tickers and histograms (--statistics).
  bool statistics = false;
  // WriteOptions of every write (fillsync forces sync on its own writes).
  bool sync = false;
  bool disable_wal = false;
};

// What the engine says about itself at one moment. Every field is empty
// when the engine does not report it.
struct EngineSample {
  std::optional<uint64_t> l0_files;
  std::optional<uint64_t> immutable_memtables;
  std::optional<uint64_t> pending_compaction_bytes;
  // Cumulative bytes read and written by compactions since Open.
  std::optional<uint64_t> compaction_bytes_read;
  std::optional<uint64_t> compaction_bytes_written;
  // "normal", "delayed" or "stopped", and the cause when not normal.
  std::optional<std::string> stall_state;
  std::optional<std::string> stall_cause;
  // Cumulative wall time spent in each stall cause's state since Open
  // (episode micros), keyed by cause.
  std::map<std::string, uint64_t> stall_episode_micros;
};

// Stall accounting since Open, by cause. Empty maps when not reported.
struct StallStats {
  bool reported = false;
  // cause -> counter name ("episodes", "stall-micros", "max-stall-micros",
  // "episode-micros") -> value.
  std::map<std::string, std::map<std::string, uint64_t>> by_cause;
  // Figures that are not per cause: "total.stall-micros", "writes-delayed",
  // "writes-stopped", ...
  std::map<std::string, uint64_t> totals;
  // Free-form notes, e.g. what the engine's counters mean.
  std::string note;
};

// Bytes written by the engine since Open, for write amplification.
struct WriteAmpStats {
  std::optional<uint64_t> user_bytes;  // keys + values the user wrote
  std::optional<uint64_t> wal_bytes;
  std::optional<uint64_t> flush_bytes;
  std::optional<uint64_t> compaction_bytes;
  // Bytes written into each level (flush output counts at L0).
  std::map<int, uint64_t> level_write_bytes;
  std::map<int, uint64_t> level_read_bytes;
  // Where the figures come from, e.g. "cascadedb.write-amplification".
  std::string source;
};

// The settings that bound memory, after the engine's defaults are applied.
struct MemoryBudget {
  uint64_t write_buffer_size = 0;
  int max_write_buffer_number = 0;
  uint64_t cache_size = 0;
  uint64_t Total() const {
    return write_buffer_size * static_cast<uint64_t>(max_write_buffer_number) +
           cache_size;
  }
};

// A forward/backward cursor over the whole DB as of its creation.
class EngineIterator {
 public:
  virtual ~EngineIterator() = default;
  virtual bool Valid() const = 0;
  virtual void SeekToFirst() = 0;
  virtual void SeekToLast() = 0;
  virtual void Seek(std::string_view target) = 0;
  virtual void Next() = 0;
  virtual void Prev() = 0;
  // Borrowed until the next move.
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  virtual Status status() const = 0;
};

// Where a thread's writes spent their time (nanoseconds), from the
// engine's per-thread perf context: queued behind other writers, delayed
// and stopped by write stalls, appending to the WAL, inserting into the
// memtable, and switching to a new memtable (and WAL) when the active one
// is full. Wall time: a wait for a CPU counts in the part it fell in.
struct WriteTimes {
  uint64_t queue = 0;
  uint64_t delay = 0;
  uint64_t stop = 0;
  uint64_t memtable_switch = 0;
  uint64_t wal = 0;
  uint64_t memtable = 0;
  uint64_t mutex = 0;  // taking the DB mutex back after WAL and memtable

  uint64_t Sum() const {
    return queue + delay + stop + memtable_switch + wal + memtable + mutex;
  }
  void Add(const WriteTimes& o) {
    queue += o.queue;
    delay += o.delay;
    stop += o.stop;
    memtable_switch += o.memtable_switch;
    wal += o.wal;
    memtable += o.memtable;
    mutex += o.mutex;
  }
};

// Writes slower than threshold_nanos, and where their time went
// (--perf_level, --slow_write_micros).
struct SlowWrites {
  static constexpr uint64_t kDefaultThresholdNanos = 1000 * 1000;

  uint64_t threshold_nanos = kDefaultThresholdNanos;
  uint64_t count = 0;
  uint64_t nanos = 0;  // their latencies, summed
  WriteTimes parts;    // the engine's split of them, summed

  // What no part accounts for.
  uint64_t Other() const {
    return nanos > parts.Sum() ? nanos - parts.Sum() : 0;
  }

  void Add(uint64_t latency_nanos, const WriteTimes& t) {
    count++;
    nanos += latency_nanos;
    parts.Add(t);
  }
  // REQUIRES: o has the same threshold.
  void Merge(const SlowWrites& o) {
    count += o.count;
    nanos += o.nanos;
    parts.Add(o.parts);
  }
};

class Engine {
 public:
  virtual ~Engine() = default;

  // "cascadedb", "leveldb" or "rocksdb".
  virtual const char* Name() const = 0;
  // Library version, e.g. "1.23".
  virtual std::string Version() const = 0;
  // Lines to print with the header and next to every figure, e.g. that
  // the library was built with assertions enabled.
  virtual std::vector<std::string> Notes() const = 0;
  // A short tag appended to every result line ("" for none).
  virtual std::string ResultTag() const { return std::string(); }

  // Checks config against what the engine supports, without touching the
  // disk. Returns InvalidArgument naming the flag for values the engine
  // rejects or cannot honour; appends to *warnings one line per flag the
  // engine has no equivalent for (the value is then ignored).
  virtual Status Check(const EngineConfig& config,
                       std::vector<std::string>* warnings) const = 0;

  // Opens (creating if missing) the database in config.db_path.
  virtual Status Open(const EngineConfig& config) = 0;
  // Closes the database; reopening with Open is allowed.
  virtual Status Close() = 0;
  // Deletes the database's files. REQUIRES: closed.
  virtual Status Destroy(const EngineConfig& config) = 0;

  // The effective option values, one "name=value" per entry, in the order
  // the header prints them.
  virtual std::vector<std::string> EffectiveOptions() const = 0;
  virtual MemoryBudget Budget() const = 0;

  virtual Status Put(std::string_view key, std::string_view value,
                     bool sync) = 0;
  virtual Status Delete(std::string_view key, bool sync) = 0;
  // NotFound when absent.
  virtual Status Get(std::string_view key, std::string* value) = 0;
  virtual std::unique_ptr<EngineIterator> NewIterator() = 0;

  virtual Status CompactAll() = 0;
  virtual Status Flush() = 0;
  virtual Status WaitForCompaction() = 0;

  // Text of the engine's "stats", "levelstats", "sstables" or
  // "stall-stats" report. False when the engine has none.
  virtual bool TextProperty(std::string_view what, std::string* text) = 0;
  virtual EngineSample Sample() = 0;
  virtual StallStats Stalls() = 0;
  virtual WriteAmpStats WriteAmp() = 0;
  // Live data as the engine estimates it (bytes); empty if unknown.
  virtual std::optional<uint64_t> EstimateLiveDataSize() = 0;
  // The --statistics dump; false when statistics are off or unsupported.
  virtual bool StatisticsText(std::string* text) = 0;

  // Per-thread write times (--perf_level). EnableWriteTimes turns them on
  // for the calling thread and says whether the engine has them; the other
  // two act on the calling thread's figures since its last reset.
  virtual bool EnableWriteTimes() { return false; }
  virtual void ResetWriteTimes() {}
  virtual WriteTimes ThreadWriteTimes() { return WriteTimes(); }
};

// Adapter factories. The peers' factories return nullptr when db_bench was
// built without that library.
std::unique_ptr<Engine> NewCascadeDBEngine();
std::unique_ptr<Engine> NewLevelDBEngine();
std::unique_ptr<Engine> NewRocksDBEngine();

// Engines this binary was built with, e.g. {"cascadedb", "leveldb"}.
std::vector<std::string> AvailableEngines();
// The engine named name, or nullptr if unknown or not built in.
std::unique_ptr<Engine> NewEngine(std::string_view name);

}  // namespace db_bench
}  // namespace cascadedb

#endif  // CASCADEDB_BENCHMARKS_DB_BENCH_ENGINE_H_

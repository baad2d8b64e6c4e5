// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The LevelDB adapter of db_bench (built only when Debian's libleveldb-dev
// is installed). LevelDB fixes several settings at compile time (7 levels,
// L0 triggers 4/8/12, a 10 MiB L1 growing 10x, one memtable plus one
// immutable, one background thread); a flag asking for anything else is
// reported as ignored rather than silently dropped, and flags LevelDB
// cannot honour at all (no WAL, direct I/O, lz4/zstd) are errors. Figures
// come only from LevelDB's own properties ("leveldb.stats",
// "leveldb.num-files-at-level<N>", "leveldb.sstables"); LevelDB reports
// no stalls, so those stay empty.
//
// Thread safety: as Engine (engine.h).

#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/write_batch.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "benchmarks/db_bench/engine.h"

namespace cascadedb {
namespace db_bench {

namespace {

// LevelDB's compile-time settings (db/dbformat.h, version_set.cc).
constexpr int kLevels = 7;
constexpr int kL0Compaction = 4;
constexpr int kL0Slowdown = 8;
constexpr int kL0Stop = 12;
constexpr uint64_t kL1Bytes = 10ull << 20;
constexpr uint64_t kDefaultCache = 8ull << 20;

Status FromLevelDB(const leveldb::Status& s) {
  if (s.ok()) return Status::OK();
  if (s.IsNotFound()) return Status::NotFound(s.ToString());
  if (s.IsCorruption()) return Status::Corruption(s.ToString());
  if (s.IsInvalidArgument()) return Status::InvalidArgument(s.ToString());
  if (s.IsNotSupportedError()) return Status::NotSupported(s.ToString());
  return Status::IOError(s.ToString());
}

leveldb::Slice ToSlice(std::string_view v) {
  return leveldb::Slice(v.data(), v.size());
}

class LevelDBIterator : public EngineIterator {
 public:
  explicit LevelDBIterator(leveldb::Iterator* it) : it_(it) {}
  bool Valid() const override { return it_->Valid(); }
  void SeekToFirst() override { it_->SeekToFirst(); }
  void SeekToLast() override { it_->SeekToLast(); }
  void Seek(std::string_view target) override { it_->Seek(ToSlice(target)); }
  void Next() override { it_->Next(); }
  void Prev() override { it_->Prev(); }
  std::string_view key() const override {
    const leveldb::Slice k = it_->key();
    return std::string_view(k.data(), k.size());
  }
  std::string_view value() const override {
    const leveldb::Slice v = it_->value();
    return std::string_view(v.data(), v.size());
  }
  Status status() const override { return FromLevelDB(it_->status()); }

 private:
  std::unique_ptr<leveldb::Iterator> it_;
};

// One row of the "leveldb.stats" table.
struct LevelRow {
  int level;
  double read_mb;
  double write_mb;
};

// Parses the rows under the dashed line of "leveldb.stats":
// "Level Files Size(MB) Time(sec) Read(MB) Write(MB)".
std::vector<LevelRow> ParseStats(const std::string& text) {
  std::vector<LevelRow> rows;
  std::istringstream in(text);
  std::string line;
  bool table = false;
  while (std::getline(in, line)) {
    if (line.rfind("---", 0) == 0) {
      table = true;
      continue;
    }
    if (!table) continue;
    int level = 0;
    int files = 0;
    double size = 0;
    double time = 0;
    double read = 0;
    double write = 0;
    if (std::sscanf(line.c_str(), "%d %d %lf %lf %lf %lf", &level, &files,
                    &size, &time, &read, &write) == 6) {
      rows.push_back(LevelRow{level, read, write});
    }
  }
  return rows;
}

class LevelDBEngine : public Engine {
 public:
  ~LevelDBEngine() override { Close().IgnoreError(); }

  const char* Name() const override { return "leveldb"; }
  std::string Version() const override {
    return std::to_string(leveldb::kMajorVersion) + "." +
           std::to_string(leveldb::kMinorVersion);
  }
  std::vector<std::string> Notes() const override {
    return {
        "LevelDB is Debian's libleveldb (a release-like build); it "
        "reports no stall accounting, and its stats round bytes to MB"};
  }

  Status Check(const EngineConfig& c,
               std::vector<std::string>* warnings) const override {
    std::string errors;
    auto error = [&](const std::string& what) {
      errors += (errors.empty() ? "" : "; ") + what;
    };
    if (c.disable_wal) error("--disable_wal: LevelDB always writes its log");
    if (c.use_direct_reads.value_or(false)) {
      error("--use_direct_reads: LevelDB has no direct I/O");
    }
    if (c.memtablerep.value_or("skip_list") != "skip_list") {
      error("--memtablerep=" + *c.memtablerep +
            ": LevelDB's memtable is a skiplist");
    }
    if (c.cache_admit_on_second_miss.value_or(false)) {
      error(
          "--cache_admit_on_second_miss: LevelDB caches every block it reads");
    }
    if (c.long_scan_blocks.value_or(0) != 0) {
      error("--long_scan_blocks: LevelDB's scans always fill the block cache");
    }
    if (c.value_compression_min_size.value_or(0) != 0) {
      error(
          "--value_compression_min_size: LevelDB compresses values only "
          "in blocks");
    }
    if (c.memtable_bloom_size_ratio.value_or(0) > 0) {
      error(
          "--memtable_bloom_size_ratio: LevelDB has no memtable bloom filter");
    }
    if (!c.mmap_read.value_or(true)) {
      error("--mmap_read=false: LevelDB's default Env always maps tables");
    }
    if (c.wal_bytes_per_sync.value_or(0) > 0) {
      error("--wal_bytes_per_sync: LevelDB has no background write-back");
    }
    if (c.bytes_per_sync.value_or(0) > 0) {
      error("--bytes_per_sync: LevelDB has no background write-back");
    }
    if (c.mmap_write.value_or(false)) {
      error("--mmap_write: LevelDB's default Env writes its log with write(2)");
    }
    if (c.recycle_log_file_num.value_or(0) > 0) {
      error("--recycle_log_file_num: LevelDB always creates a new log file");
    }
    if (c.recycle_table_bytes.value_or(0) > 0) {
      error("--recycle_table_bytes: LevelDB always creates a new table file");
    }
    if (c.use_direct_io_for_flush_and_compaction.value_or(false)) {
      error(
          "--use_direct_io_for_flush_and_compaction: LevelDB has no direct "
          "I/O");
    }
    if (c.compaction_pri.value_or(4) != 4) {
      error("--compaction_pri=" + std::to_string(*c.compaction_pri) +
            ": LevelDB compacts round robin (4)");
    }
    if (c.compaction_copy_blocks.value_or(false)) {
      error(
          "--compaction_copy_blocks: LevelDB rebuilds every block it "
          "compacts (false)");
    }
    if (c.stalled_writers_compress.value_or(false)) {
      error(
          "--stalled_writers_compress: LevelDB's stalled writers only wait "
          "(false)");
    }
    if (c.background_yields_to_writers.value_or(false)) {
      error(
          "--background_yields_to_writers: LevelDB's compaction keeps its "
          "CPU (false)");
    }
    if (c.align_compaction_outputs.value_or(false)) {
      error(
          "--align_compaction_outputs: LevelDB cuts compaction outputs at "
          "their size and grandparent overlap only (false)");
    }
    if (c.flush_in_compaction.value_or("always") != "always") {
      error("--flush_in_compaction=" + *c.flush_in_compaction +
            ": LevelDB's one background thread always flushes between a "
            "compaction's entries");
    }
    if (c.compaction_cpu_priority.value_or("normal") != "normal") {
      error("--compaction_cpu_priority=" + *c.compaction_cpu_priority +
            ": LevelDB's Env cannot lower its background thread");
    }
    if (c.compression_type && *c.compression_type != "none" &&
        *c.compression_type != "snappy") {
      error("--compression_type=" + *c.compression_type +
            ": LevelDB 1.23 supports only none and snappy");
    }
    if (!errors.empty()) return Status::InvalidArgument(errors);

    auto fixed = [&](bool given, bool differs, const std::string& flag,
                     const std::string& how) {
      if (given && differs) {
        warnings->push_back("leveldb ignores " + flag + ": " + how);
      }
    };
    fixed(c.max_write_buffer_number.has_value(),
          c.max_write_buffer_number.value_or(2) != 2,
          "--max_write_buffer_number",
          "it keeps one memtable plus one immutable");
    fixed(c.num_levels.has_value(), c.num_levels.value_or(kLevels) != kLevels,
          "--num_levels", "it has 7 levels");
    fixed(c.level0_file_num_compaction_trigger.has_value(),
          c.level0_file_num_compaction_trigger.value_or(kL0Compaction) !=
              kL0Compaction,
          "--level0_file_num_compaction_trigger", "it is fixed at 4");
    fixed(c.level0_slowdown_writes_trigger.has_value(),
          c.level0_slowdown_writes_trigger.value_or(kL0Slowdown) != kL0Slowdown,
          "--level0_slowdown_writes_trigger", "it is fixed at 8");
    fixed(c.level0_stop_writes_trigger.has_value(),
          c.level0_stop_writes_trigger.value_or(kL0Stop) != kL0Stop,
          "--level0_stop_writes_trigger", "it is fixed at 12");
    fixed(c.max_bytes_for_level_base.has_value(),
          c.max_bytes_for_level_base.value_or(kL1Bytes) != kL1Bytes,
          "--max_bytes_for_level_base", "L1 is fixed at 10 MiB");
    fixed(c.max_bytes_for_level_multiplier.has_value(),
          c.max_bytes_for_level_multiplier.value_or(10) != 10,
          "--max_bytes_for_level_multiplier", "it is fixed at 10");
    fixed(c.target_file_size_multiplier.has_value(),
          c.target_file_size_multiplier.value_or(1) != 1,
          "--target_file_size_multiplier",
          "one max_file_size serves every level");
    fixed(c.max_background_compactions.has_value(),
          c.max_background_compactions.value_or(1) != 1,
          "--max_background_compactions",
          "one background thread does all flushes and compactions");
    fixed(c.max_background_flushes.has_value(),
          c.max_background_flushes.value_or(1) != 1, "--max_background_flushes",
          "one background thread does all flushes and compactions");
    fixed(c.max_subcompactions.has_value(),
          c.max_subcompactions.value_or(1) != 1, "--max_subcompactions",
          "compactions are never split");
    fixed(c.delayed_write_rate.has_value(), true, "--delayed_write_rate",
          "at the slowdown trigger each write sleeps 1 ms");
    fixed(c.soft_pending_compaction_bytes_limit.has_value(), true,
          "--soft_pending_compaction_bytes_limit", "it has no such limit");
    fixed(c.hard_pending_compaction_bytes_limit.has_value(), true,
          "--hard_pending_compaction_bytes_limit", "it has no such limit");
    fixed(c.rate_limiter_bytes_per_sec.has_value(),
          c.rate_limiter_bytes_per_sec.value_or(0) != 0,
          "--rate_limiter_bytes_per_sec", "it has no rate limiter");
    fixed(c.statistics, true, "--statistics", "it has no statistics object");
    fixed(c.bloom_bits.has_value(),
          c.bloom_bits.value_or(0) != std::floor(c.bloom_bits.value_or(0)),
          "--bloom_bits fraction", "bits per key are rounded to an integer");
    return Status::OK();
  }

  Status Open(const EngineConfig& c) override {
    options_ = leveldb::Options();
    options_.create_if_missing = true;
    if (c.write_buffer_size) options_.write_buffer_size = *c.write_buffer_size;
    if (c.target_file_size_base) {
      options_.max_file_size = *c.target_file_size_base;
    }
    if (c.block_size) options_.block_size = *c.block_size;
    if (c.compression_type) {
      options_.compression = *c.compression_type == "none"
                                 ? leveldb::kNoCompression
                                 : leveldb::kSnappyCompression;
    }
    cache_.reset();
    cache_size_ = kDefaultCache;
    if (c.cache_size) {
      cache_.reset(leveldb::NewLRUCache(*c.cache_size));
      options_.block_cache = cache_.get();
      cache_size_ = *c.cache_size;
    }
    filter_.reset();
    if (c.bloom_bits && *c.bloom_bits > 0) {
      filter_.reset(leveldb::NewBloomFilterPolicy(
          static_cast<int>(std::lround(*c.bloom_bits))));
      options_.filter_policy = filter_.get();
    }
    bloom_bits_ = filter_ ? static_cast<int>(std::lround(*c.bloom_bits)) : 0;
    write_options_.sync = c.sync;
    if (c.verify_checksums)
      read_options_.verify_checksums = *c.verify_checksums;
    leveldb::DB* db = nullptr;
    leveldb::Status s = leveldb::DB::Open(options_, c.db_path, &db);
    if (!s.ok()) return FromLevelDB(s);
    db_.reset(db);
    return Status::OK();
  }

  Status Close() override {
    db_.reset();
    return Status::OK();
  }

  Status Destroy(const EngineConfig& c) override {
    return FromLevelDB(leveldb::DestroyDB(c.db_path, leveldb::Options()));
  }

  std::vector<std::string> EffectiveOptions() const override {
    auto u = [](uint64_t v) { return std::to_string(v); };
    return {
        "write_buffer_size=" + u(options_.write_buffer_size),
        "max_write_buffer_number=2 (fixed)",
        "num_levels=7 (fixed)",
        "level0 triggers=4/8/12 (fixed)",
        "max_bytes_for_level_base=10485760 (fixed), multiplier=10 (fixed)",
        "max_file_size=" + u(options_.max_file_size),
        "background threads=1 (fixed)",
        std::string("compression=") +
            (options_.compression == leveldb::kNoCompression ? "none"
                                                             : "snappy"),
        "bloom_bits=" + u(static_cast<uint64_t>(bloom_bits_)),
        "block_cache=" + u(cache_size_),
        "block_size=" + u(options_.block_size),
        "max_open_files=" + u(static_cast<uint64_t>(options_.max_open_files)),
        "sync=" + u(write_options_.sync),
        "verify_checksums=" + u(read_options_.verify_checksums),
    };
  }

  MemoryBudget Budget() const override {
    MemoryBudget b;
    b.write_buffer_size = options_.write_buffer_size;
    b.max_write_buffer_number = 2;
    b.cache_size = cache_size_;
    return b;
  }

  Status Put(std::string_view key, std::string_view value, bool sync) override {
    leveldb::WriteOptions wo = write_options_;
    wo.sync = wo.sync || sync;
    return FromLevelDB(db_->Put(wo, ToSlice(key), ToSlice(value)));
  }

  Status Delete(std::string_view key, bool sync) override {
    leveldb::WriteOptions wo = write_options_;
    wo.sync = wo.sync || sync;
    return FromLevelDB(db_->Delete(wo, ToSlice(key)));
  }

  Status Get(std::string_view key, std::string* value) override {
    return FromLevelDB(db_->Get(read_options_, ToSlice(key), value));
  }

  std::unique_ptr<EngineIterator> NewIterator() override {
    return std::make_unique<LevelDBIterator>(db_->NewIterator(read_options_));
  }

  Status CompactAll() override {
    db_->CompactRange(nullptr, nullptr);
    return Status::OK();
  }

  Status Flush() override {
    // LevelDB has no Flush; compacting an empty range flushes the memtable
    // (CompactRange starts with TEST_CompactMemTable) and nothing else.
    const leveldb::Slice empty_begin("\xff\xff\xff\xff");
    const leveldb::Slice empty_end("\xff\xff\xff\xff");
    db_->CompactRange(&empty_begin, &empty_end);
    return Status::OK();
  }

  Status WaitForCompaction() override {
    // LevelDB has no call for it; a full CompactRange would do far more
    // work than waiting, so report it as unsupported.
    return Status::NotSupported("leveldb has no WaitForCompaction");
  }

  bool TextProperty(std::string_view what, std::string* text) override {
    if (what == "stats") return db_->GetProperty("leveldb.stats", text);
    if (what == "sstables") return db_->GetProperty("leveldb.sstables", text);
    if (what == "levelstats") {
      std::string out = "Level Files\n";
      for (int level = 0; level < kLevels; level++) {
        std::string n;
        if (!db_->GetProperty(
                "leveldb.num-files-at-level" + std::to_string(level), &n)) {
          return false;
        }
        out += std::to_string(level) + " " + n + "\n";
      }
      *text = out;
      return true;
    }
    return false;
  }

  EngineSample Sample() override {
    EngineSample s;
    std::string n;
    if (db_->GetProperty("leveldb.num-files-at-level0", &n)) {
      s.l0_files = std::strtoull(n.c_str(), nullptr, 10);
    }
    std::string stats;
    if (db_->GetProperty("leveldb.stats", &stats)) {
      double read = 0;
      double write = 0;
      for (const LevelRow& r : ParseStats(stats)) {
        read += r.read_mb;
        // Level 0's writes are memtable flushes, not compactions.
        if (r.level > 0) write += r.write_mb;
      }
      s.compaction_bytes_read = static_cast<uint64_t>(read * 1048576);
      s.compaction_bytes_written = static_cast<uint64_t>(write * 1048576);
    }
    return s;
  }

  StallStats Stalls() override {
    StallStats out;
    out.note = "leveldb reports no stall accounting";
    return out;
  }

  WriteAmpStats WriteAmp() override {
    WriteAmpStats out;
    std::string stats;
    if (!db_->GetProperty("leveldb.stats", &stats)) return out;
    out.source = "leveldb.stats (whole MB)";
    uint64_t flush = 0;
    uint64_t compaction = 0;
    for (const LevelRow& r : ParseStats(stats)) {
      const uint64_t w = static_cast<uint64_t>(r.write_mb * 1048576);
      out.level_write_bytes[r.level] = w;
      out.level_read_bytes[r.level] =
          static_cast<uint64_t>(r.read_mb * 1048576);
      (r.level == 0 ? flush : compaction) += w;
    }
    out.flush_bytes = flush;
    out.compaction_bytes = compaction;
    return out;
  }

  std::optional<uint64_t> EstimateLiveDataSize() override {
    return std::nullopt;
  }

  bool StatisticsText(std::string* /*text*/) override { return false; }

 private:
  leveldb::Options options_;
  leveldb::WriteOptions write_options_;
  leveldb::ReadOptions read_options_;
  std::unique_ptr<leveldb::Cache> cache_;
  std::unique_ptr<const leveldb::FilterPolicy> filter_;
  uint64_t cache_size_ = kDefaultCache;
  int bloom_bits_ = 0;
  std::unique_ptr<leveldb::DB> db_;
};

}  // namespace

std::unique_ptr<Engine> NewLevelDBEngine() {
  return std::make_unique<LevelDBEngine>();
}

}  // namespace db_bench
}  // namespace cascadedb

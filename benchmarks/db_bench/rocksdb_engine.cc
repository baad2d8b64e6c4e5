// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The RocksDB adapter of db_bench (built only when Debian's librocksdb-dev
// is installed). Options map one to one (same names). Figures come from
// RocksDB's own properties: "rocksdb.cfstats" (per-level compaction bytes,
// io_stalls.* counts), "rocksdb.dbstats" (user and WAL bytes, total stall
// micros), "rocksdb.num-files-at-level0", "rocksdb.is-write-stopped" and
// "rocksdb.actual-delayed-write-rate". RocksDB does not time stalls by
// cause, so per-cause figures are its condition counts only.
//
// Debian builds librocksdb with assertions enabled; every figure printed
// for this engine says so (ResultTag), and it must not be read as a
// release build's.
//
// Thread safety: as Engine (engine.h).

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/rate_limiter.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/db_bench/engine.h"

namespace cascadedb {
namespace db_bench {

namespace {

constexpr uint64_t kDefaultCache = 8ull << 20;  // RocksDB 7.x internal cache

Status FromRocksDB(const rocksdb::Status& s) {
  if (s.ok()) return Status::OK();
  if (s.IsNotFound()) return Status::NotFound(s.ToString());
  if (s.IsCorruption()) return Status::Corruption(s.ToString());
  if (s.IsInvalidArgument()) return Status::InvalidArgument(s.ToString());
  if (s.IsNotSupported()) return Status::NotSupported(s.ToString());
  if (s.IsIncomplete()) return Status::Incomplete(s.ToString());
  return Status::IOError(s.ToString());
}

rocksdb::Slice ToSlice(std::string_view v) {
  return rocksdb::Slice(v.data(), v.size());
}

double ToDouble(const std::map<std::string, std::string>& m,
                const std::string& key, bool* found) {
  auto it = m.find(key);
  if (it == m.end()) {
    *found = false;
    return 0;
  }
  *found = true;
  return std::strtod(it->second.c_str(), nullptr);
}

uint64_t GiBToBytes(double gb) {
  return static_cast<uint64_t>(gb * 1073741824.0);
}

class RocksDBIterator : public EngineIterator {
 public:
  explicit RocksDBIterator(rocksdb::Iterator* it) : it_(it) {}
  bool Valid() const override { return it_->Valid(); }
  void SeekToFirst() override { it_->SeekToFirst(); }
  void SeekToLast() override { it_->SeekToLast(); }
  void Seek(std::string_view target) override { it_->Seek(ToSlice(target)); }
  void Next() override { it_->Next(); }
  void Prev() override { it_->Prev(); }
  std::string_view key() const override {
    const rocksdb::Slice k = it_->key();
    return std::string_view(k.data(), k.size());
  }
  std::string_view value() const override {
    const rocksdb::Slice v = it_->value();
    return std::string_view(v.data(), v.size());
  }
  Status status() const override { return FromRocksDB(it_->status()); }

 private:
  std::unique_ptr<rocksdb::Iterator> it_;
};

class RocksDBEngine : public Engine {
 public:
  ~RocksDBEngine() override { Close().IgnoreError(); }

  const char* Name() const override { return "rocksdb"; }
  std::string Version() const override {
    return rocksdb::GetRocksVersionAsString(true);
  }
  std::vector<std::string> Notes() const override {
    return {
        "RocksDB is Debian's librocksdb, built with assertions enabled "
        "(its own db_bench prints \"Assertions are enabled\"): it runs "
        "well below a release build, so a lead over these figures is "
        "not a lead over RocksDB"};
  }
  std::string ResultTag() const override {
    return "[rocksdb: Debian build, assertions on]";
  }

  Status Check(const EngineConfig& c,
               std::vector<std::string>* /*warnings*/) const override {
    rocksdb::Options o;
    return MakeOptions(c, &o, nullptr);
  }

  Status Open(const EngineConfig& c) override {
    Status s = MakeOptions(c, &options_, &cache_size_);
    if (!s.ok()) return s;
    if (c.compaction_cpu_priority) {
      compaction_cpu_priority_ = *c.compaction_cpu_priority;
      if (compaction_cpu_priority_ != "normal") {
        // RocksDB's own API for the same thing, on its LOW pool.
        rocksdb::Status rs = options_.env->LowerThreadPoolCPUPriority(
            rocksdb::Env::LOW, compaction_cpu_priority_ == "idle"
                                   ? rocksdb::CpuPriority::kIdle
                                   : rocksdb::CpuPriority::kLow);
        if (!rs.ok()) return FromRocksDB(rs);
      }
    }
    options_.create_if_missing = true;
    write_options_.sync = c.sync;
    if (c.verify_checksums)
      read_options_.verify_checksums = *c.verify_checksums;
    write_options_.disableWAL = c.disable_wal;
    rocksdb::DB* db = nullptr;
    rocksdb::Status rs = rocksdb::DB::Open(options_, c.db_path, &db);
    if (!rs.ok()) return FromRocksDB(rs);
    db_.reset(db);
    return Status::OK();
  }

  Status Close() override {
    if (db_ == nullptr) return Status::OK();
    rocksdb::Status s = db_->Close();
    db_.reset();
    return FromRocksDB(s);
  }

  Status Destroy(const EngineConfig& c) override {
    return FromRocksDB(rocksdb::DestroyDB(c.db_path, rocksdb::Options()));
  }

  std::vector<std::string> EffectiveOptions() const override {
    const rocksdb::Options& o = options_;
    auto u = [](uint64_t v) { return std::to_string(v); };
    return {
        "write_buffer_size=" + u(o.write_buffer_size),
        "max_write_buffer_number=" + u(o.max_write_buffer_number),
        "num_levels=" + u(o.num_levels),
        "level0_file_num_compaction_trigger=" +
            u(o.level0_file_num_compaction_trigger),
        "level0_slowdown_writes_trigger=" + u(o.level0_slowdown_writes_trigger),
        "level0_stop_writes_trigger=" + u(o.level0_stop_writes_trigger),
        "max_bytes_for_level_base=" + u(o.max_bytes_for_level_base),
        "max_bytes_for_level_multiplier=" +
            std::to_string(o.max_bytes_for_level_multiplier),
        "target_file_size_base=" + u(o.target_file_size_base),
        "target_file_size_multiplier=" + u(o.target_file_size_multiplier),
        "max_background_jobs=" + u(o.max_background_jobs),
        "max_background_compactions=" +
            std::to_string(o.max_background_compactions),
        "max_background_flushes=" + std::to_string(o.max_background_flushes),
        "max_subcompactions=" + u(o.max_subcompactions),
        "compaction_cpu_priority=" + compaction_cpu_priority_,
        "compaction_pri=" + u(static_cast<uint64_t>(o.compaction_pri)),
        "compression=" + CompressionName(o.compression),
        "bloom_bits=" + bloom_,
        "memtable_prefix_bloom_size_ratio=" +
            std::to_string(o.memtable_prefix_bloom_size_ratio),
        "memtable_whole_key_filtering=" + u(o.memtable_whole_key_filtering),
        "block_cache=" + u(cache_size_),
        "block_size=" + u(block_size_),
        "delayed_write_rate=" + u(o.delayed_write_rate),
        "soft_pending_compaction_bytes_limit=" +
            u(o.soft_pending_compaction_bytes_limit),
        "hard_pending_compaction_bytes_limit=" +
            u(o.hard_pending_compaction_bytes_limit),
        "use_direct_reads=" + u(o.use_direct_reads),
        "allow_mmap_reads=" + u(o.allow_mmap_reads),
        "allow_mmap_writes=" + u(o.allow_mmap_writes),
        "recycle_log_file_num=" + u(o.recycle_log_file_num),
        "bytes_per_sync=" + u(o.bytes_per_sync),
        "wal_bytes_per_sync=" + u(o.wal_bytes_per_sync),
        "use_direct_io_for_flush_and_compaction=" +
            u(o.use_direct_io_for_flush_and_compaction),
        "sync=" + u(write_options_.sync),
        "verify_checksums=" + u(read_options_.verify_checksums),
        "disableWAL=" + u(write_options_.disableWAL),
    };
  }

  MemoryBudget Budget() const override {
    MemoryBudget b;
    b.write_buffer_size = options_.write_buffer_size;
    b.max_write_buffer_number = options_.max_write_buffer_number;
    b.cache_size = cache_size_;
    return b;
  }

  Status Put(std::string_view key, std::string_view value, bool sync) override {
    rocksdb::WriteOptions wo = write_options_;
    wo.sync = wo.sync || sync;
    return FromRocksDB(db_->Put(wo, ToSlice(key), ToSlice(value)));
  }

  Status Delete(std::string_view key, bool sync) override {
    rocksdb::WriteOptions wo = write_options_;
    wo.sync = wo.sync || sync;
    return FromRocksDB(db_->Delete(wo, ToSlice(key)));
  }

  Status Get(std::string_view key, std::string* value) override {
    return FromRocksDB(db_->Get(read_options_, ToSlice(key), value));
  }

  std::unique_ptr<EngineIterator> NewIterator() override {
    return std::make_unique<RocksDBIterator>(db_->NewIterator(read_options_));
  }

  Status CompactAll() override {
    return FromRocksDB(
        db_->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr));
  }

  Status Flush() override {
    return FromRocksDB(db_->Flush(rocksdb::FlushOptions()));
  }

  Status WaitForCompaction() override {
    // RocksDB 7.8 has no WaitForCompact; poll the same properties RocksDB's
    // own db_bench polls until no flush or compaction is pending or
    // running.
    const char* const kBusy[] = {
        "rocksdb.compaction-pending", "rocksdb.num-running-compactions",
        "rocksdb.mem-table-flush-pending", "rocksdb.num-running-flushes"};
    while (true) {
      bool busy = false;
      for (const char* p : kBusy) {
        uint64_t v = 0;
        if (db_->GetIntProperty(p, &v) && v != 0) busy = true;
      }
      if (!busy) return Status::OK();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  bool TextProperty(std::string_view what, std::string* text) override {
    if (what == "stats" || what == "levelstats" || what == "sstables") {
      return db_->GetProperty("rocksdb." + std::string(what), text);
    }
    return false;
  }

  EngineSample Sample() override {
    EngineSample s;
    s.l0_files = IntProperty("rocksdb.num-files-at-level0");
    s.immutable_memtables = IntProperty("rocksdb.num-immutable-mem-table");
    s.pending_compaction_bytes =
        IntProperty("rocksdb.estimate-pending-compaction-bytes");
    std::map<std::string, std::string> cf;
    if (db_->GetMapProperty("rocksdb.cfstats", &cf)) {
      bool f1 = false;
      bool f2 = false;
      bool f3 = false;
      const double read = ToDouble(cf, "compaction.Sum.ReadGB", &f1);
      const double write = ToDouble(cf, "compaction.Sum.WriteGB", &f2);
      // L0's writes are (almost all) memtable flushes.
      const double l0 = ToDouble(cf, "compaction.L0.WriteGB", &f3);
      if (f1) s.compaction_bytes_read = GiBToBytes(read);
      if (f2) s.compaction_bytes_written = GiBToBytes(write - (f3 ? l0 : 0));
    }
    const std::optional<uint64_t> stopped =
        IntProperty("rocksdb.is-write-stopped");
    const std::optional<uint64_t> delayed =
        IntProperty("rocksdb.actual-delayed-write-rate");
    if (stopped && delayed) {
      s.stall_state =
          *stopped ? "stopped" : (*delayed != 0 ? "delayed" : "normal");
    }
    return s;
  }

  StallStats Stalls() override {
    StallStats out;
    std::map<std::string, std::string> cf;
    if (db_->GetMapProperty("rocksdb.cfstats", &cf)) {
      out.reported = true;
      for (const auto& [key, text] : cf) {
        if (key.rfind("io_stalls.", 0) == 0) {
          out.totals[key] = std::strtoull(text.c_str(), nullptr, 10);
        }
      }
    }
    std::map<std::string, std::string> dbs;
    if (db_->GetMapProperty("rocksdb.dbstats", &dbs)) {
      auto it = dbs.find("db.user_write_stall_micros");
      if (it != dbs.end()) {
        out.reported = true;
        out.totals["total.stall-micros"] =
            std::strtoull(it->second.c_str(), nullptr, 10);
      }
    }
    out.note =
        "rocksdb times stalls only in total (dbstats); io_stalls.* are "
        "counts of stall conditions, not episodes";
    return out;
  }

  WriteAmpStats WriteAmp() override {
    WriteAmpStats out;
    std::map<std::string, std::string> cf;
    std::map<std::string, std::string> dbs;
    const bool have_cf = db_->GetMapProperty("rocksdb.cfstats", &cf);
    const bool have_db = db_->GetMapProperty("rocksdb.dbstats", &dbs);
    if (!have_cf && !have_db) return out;
    out.source = "rocksdb.cfstats + rocksdb.dbstats";
    if (have_db) {
      auto u = dbs.find("db.user_bytes_written");
      if (u != dbs.end()) {
        out.user_bytes = std::strtoull(u->second.c_str(), nullptr, 10);
      }
      auto w = dbs.find("db.wal_bytes_written");
      if (w != dbs.end()) {
        out.wal_bytes = std::strtoull(w->second.c_str(), nullptr, 10);
      }
    }
    uint64_t flush = 0;
    uint64_t compaction = 0;
    for (int level = 0; level < options_.num_levels; level++) {
      const std::string prefix = "compaction.L" + std::to_string(level) + ".";
      bool fw = false;
      bool fr = false;
      const double w = ToDouble(cf, prefix + "WriteGB", &fw);
      const double r = ToDouble(cf, prefix + "ReadGB", &fr);
      if (!fw) continue;
      out.level_write_bytes[level] = GiBToBytes(w);
      if (fr) out.level_read_bytes[level] = GiBToBytes(r);
      (level == 0 ? flush : compaction) += GiBToBytes(w);
    }
    if (have_cf) {
      out.flush_bytes = flush;
      out.compaction_bytes = compaction;
    }
    return out;
  }

  std::optional<uint64_t> EstimateLiveDataSize() override {
    return IntProperty("rocksdb.estimate-live-data-size");
  }

  bool StatisticsText(std::string* text) override {
    if (options_.statistics == nullptr) return false;
    *text = options_.statistics->ToString();
    return true;
  }

  // RocksDB's write_delay_time covers its stops too (one DelayWrite).
  bool EnableWriteTimes() override {
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableTimeExceptForMutex);
    return true;
  }
  void ResetWriteTimes() override { rocksdb::get_perf_context()->Reset(); }
  WriteTimes ThreadWriteTimes() override {
    const rocksdb::PerfContext& p = *rocksdb::get_perf_context();
    WriteTimes t;
    t.queue = p.write_thread_wait_nanos;
    t.delay = p.write_delay_time;
    t.memtable_switch = p.write_scheduling_flushes_compactions_time;
    t.wal = p.write_wal_time;
    t.memtable = p.write_memtable_time;
    return t;
  }

 private:
  static std::string CompressionName(rocksdb::CompressionType t) {
    switch (t) {
      case rocksdb::kNoCompression:
        return "none";
      case rocksdb::kSnappyCompression:
        return "snappy";
      case rocksdb::kLZ4Compression:
        return "lz4";
      case rocksdb::kZSTD:
        return "zstd";
      default:
        return "other";
    }
  }

  // Fills *o from c; when cache_size is not null also builds the table
  // factory (cache and filter) and records the effective cache size.
  Status MakeOptions(const EngineConfig& c, rocksdb::Options* o,
                     uint64_t* cache_size) const {
    if (c.write_buffer_size) o->write_buffer_size = *c.write_buffer_size;
    if (c.max_write_buffer_number) {
      o->max_write_buffer_number = *c.max_write_buffer_number;
    }
    if (c.num_levels) o->num_levels = *c.num_levels;
    if (c.level0_file_num_compaction_trigger) {
      o->level0_file_num_compaction_trigger =
          *c.level0_file_num_compaction_trigger;
    }
    if (c.level0_slowdown_writes_trigger) {
      o->level0_slowdown_writes_trigger = *c.level0_slowdown_writes_trigger;
    }
    if (c.level0_stop_writes_trigger) {
      o->level0_stop_writes_trigger = *c.level0_stop_writes_trigger;
    }
    if (c.max_bytes_for_level_base) {
      o->max_bytes_for_level_base = *c.max_bytes_for_level_base;
    }
    if (c.max_bytes_for_level_multiplier) {
      o->max_bytes_for_level_multiplier = *c.max_bytes_for_level_multiplier;
    }
    if (c.target_file_size_base) {
      o->target_file_size_base = *c.target_file_size_base;
    }
    if (c.target_file_size_multiplier) {
      o->target_file_size_multiplier = *c.target_file_size_multiplier;
    }
    if (c.max_background_compactions) {
      o->max_background_compactions = *c.max_background_compactions;
    }
    if (c.max_background_flushes) {
      o->max_background_flushes = *c.max_background_flushes;
    }
    if (c.compaction_pri) {
      if (*c.compaction_pri < 0 || *c.compaction_pri > 4) {
        return Status::InvalidArgument(
            "--compaction_pri=" + std::to_string(*c.compaction_pri),
            "is not a RocksDB CompactionPri (0-4)");
      }
      o->compaction_pri =
          static_cast<rocksdb::CompactionPri>(*c.compaction_pri);
    }
    if (c.compaction_copy_blocks.value_or(false)) {
      return Status::InvalidArgument(
          "--compaction_copy_blocks",
          "RocksDB rebuilds every block it compacts (false)");
    }
    if (c.stalled_writers_compress.value_or(false)) {
      return Status::InvalidArgument(
          "--stalled_writers_compress",
          "RocksDB's stalled writers only wait (false)");
    }
    if (c.background_yields_to_writers.value_or(false)) {
      return Status::InvalidArgument(
          "--background_yields_to_writers",
          "RocksDB's flushes and compactions keep their CPU (false)");
    }
    if (c.align_compaction_outputs) {
      o->level_compaction_dynamic_file_size = *c.align_compaction_outputs;
    }
    if (c.recycle_table_bytes.value_or(0) > 0) {
      return Status::InvalidArgument(
          "--recycle_table_bytes",
          "RocksDB always creates a new table file (0)");
    }
    if (c.flush_in_compaction.value_or("never") != "never") {
      return Status::InvalidArgument(
          "--flush_in_compaction=" + *c.flush_in_compaction,
          "RocksDB always flushes in its flush threads (never)");
    }
    if (c.max_subcompactions) {
      o->max_subcompactions = static_cast<uint32_t>(*c.max_subcompactions);
    }
    if (c.delayed_write_rate) o->delayed_write_rate = *c.delayed_write_rate;
    if (c.soft_pending_compaction_bytes_limit) {
      o->soft_pending_compaction_bytes_limit =
          *c.soft_pending_compaction_bytes_limit;
    }
    if (c.hard_pending_compaction_bytes_limit) {
      o->hard_pending_compaction_bytes_limit =
          *c.hard_pending_compaction_bytes_limit;
    }
    if (c.use_direct_reads) o->use_direct_reads = *c.use_direct_reads;
    if (c.mmap_read) o->allow_mmap_reads = *c.mmap_read;
    if (c.memtable_bloom_size_ratio) {
      o->memtable_prefix_bloom_size_ratio = *c.memtable_bloom_size_ratio;
    }
    if (c.memtable_whole_key_filtering) {
      o->memtable_whole_key_filtering = *c.memtable_whole_key_filtering;
    }
    if (c.mmap_write) o->allow_mmap_writes = *c.mmap_write;
    if (c.recycle_log_file_num) {
      o->recycle_log_file_num = static_cast<size_t>(*c.recycle_log_file_num);
    }
    if (c.bytes_per_sync) o->bytes_per_sync = *c.bytes_per_sync;
    if (c.wal_bytes_per_sync) o->wal_bytes_per_sync = *c.wal_bytes_per_sync;
    if (c.use_direct_io_for_flush_and_compaction) {
      o->use_direct_io_for_flush_and_compaction =
          *c.use_direct_io_for_flush_and_compaction;
    }
    if (c.compression_type) {
      const std::string& t = *c.compression_type;
      if (t == "none")
        o->compression = rocksdb::kNoCompression;
      else if (t == "snappy")
        o->compression = rocksdb::kSnappyCompression;
      else if (t == "lz4")
        o->compression = rocksdb::kLZ4Compression;
      else if (t == "zstd")
        o->compression = rocksdb::kZSTD;
      else
        return Status::InvalidArgument("--compression_type=" + t,
                                       "is not none, snappy, lz4 or zstd");
    }
    if (c.memtablerep.value_or("skip_list") != "skip_list") {
      // RocksDB has other memtables, but no B-tree to compare with.
      return Status::InvalidArgument("--memtablerep=" + *c.memtablerep,
                                     "is not a RocksDB memtable this db_bench "
                                     "maps (skip_list)");
    }
    if (c.cache_admit_on_second_miss.value_or(false)) {
      return Status::InvalidArgument(
          "--cache_admit_on_second_miss",
          "RocksDB's block cache admits every block (only false maps)");
    }
    if (c.long_scan_blocks.value_or(0) != 0) {
      return Status::InvalidArgument(
          "--long_scan_blocks=" + std::to_string(*c.long_scan_blocks),
          "RocksDB's scans always fill the block cache (only 0 maps)");
    }
    if (c.value_compression_min_size.value_or(0) != 0) {
      return Status::InvalidArgument(
          "--value_compression_min_size=" +
              std::to_string(*c.value_compression_min_size),
          "RocksDB compresses values in blocks (only 0 maps)");
    }
    if (cache_size == nullptr) return Status::OK();

    rocksdb::BlockBasedTableOptions table;
    *cache_size = kDefaultCache;
    if (c.block_size) table.block_size = *c.block_size;
    block_size_ = table.block_size;
    if (c.cache_size) {
      *cache_size = *c.cache_size;
      if (*c.cache_size == 0) {
        table.no_block_cache = true;
      } else {
        table.block_cache = rocksdb::NewLRUCache(*c.cache_size);
      }
    }
    bloom_ = "none";
    if (c.bloom_bits && *c.bloom_bits > 0) {
      table.filter_policy.reset(
          rocksdb::NewBloomFilterPolicy(*c.bloom_bits, false));
      bloom_ = std::to_string(*c.bloom_bits);
    }
    o->table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    if (c.rate_limiter_bytes_per_sec && *c.rate_limiter_bytes_per_sec > 0) {
      o->rate_limiter.reset(rocksdb::NewGenericRateLimiter(
          static_cast<int64_t>(*c.rate_limiter_bytes_per_sec)));
    }
    if (c.statistics) o->statistics = rocksdb::CreateDBStatistics();
    return Status::OK();
  }

  std::optional<uint64_t> IntProperty(const char* name) {
    uint64_t v = 0;
    if (db_->GetIntProperty(name, &v)) return v;
    return std::nullopt;
  }

  rocksdb::Options options_;
  rocksdb::WriteOptions write_options_;
  rocksdb::ReadOptions read_options_;
  std::string compaction_cpu_priority_ = "normal";
  uint64_t cache_size_ = kDefaultCache;
  // Set by MakeOptions while opening (the only writer), read by
  // EffectiveOptions afterwards.
  mutable uint64_t block_size_ = 4096;
  mutable std::string bloom_ = "none";
  std::unique_ptr<rocksdb::DB> db_;
};

}  // namespace

std::unique_ptr<Engine> NewRocksDBEngine() {
  return std::make_unique<RocksDBEngine>();
}

}  // namespace db_bench
}  // namespace cascadedb

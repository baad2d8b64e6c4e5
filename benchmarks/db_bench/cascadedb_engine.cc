// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The CascadeDB adapter of db_bench: maps EngineConfig onto
// cascadedb::Options and reads the engine's own accounting through its
// properties ("cascadedb.stall-stats", "cascadedb.write-amplification",
// ...). A property the engine does not answer leaves the figure empty.
//
// Thread safety: as Engine (engine.h).

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "benchmarks/db_bench/engine.h"
#include "cascadedb/cache.h"
#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "cascadedb/filter_policy.h"
#include "cascadedb/iterator.h"
#include "cascadedb/options.h"
#include "cascadedb/perf_context.h"
#include "cascadedb/rate_limiter.h"
#include "cascadedb/statistics.h"

#ifndef DB_BENCH_CASCADEDB_VERSION
#define DB_BENCH_CASCADEDB_VERSION "unknown"
#endif

namespace cascadedb {
namespace db_bench {

namespace {

const char* const kStallCauses[] = {"memtable_limit", "l0_slowdown", "l0_stop",
                                    "pending_compaction_slowdown",
                                    "pending_compaction_stop"};

bool ParseU64(const std::string& s, uint64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (end == s.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

bool ParseCompression(const std::string& name, CompressionType* type) {
  if (name == "none")
    *type = kNoCompression;
  else if (name == "snappy")
    *type = kSnappyCompression;
  else if (name == "lz4")
    *type = kLZ4Compression;
  else if (name == "zstd")
    *type = kZSTD;
  else
    return false;
  return true;
}

class CascadeDBIterator : public EngineIterator {
 public:
  explicit CascadeDBIterator(Iterator* it) : it_(it) {}
  bool Valid() const override { return it_->Valid(); }
  void SeekToFirst() override { it_->SeekToFirst(); }
  void SeekToLast() override { it_->SeekToLast(); }
  void Seek(std::string_view target) override {
    it_->Seek(Slice(target.data(), target.size()));
  }
  void Next() override { it_->Next(); }
  void Prev() override { it_->Prev(); }
  std::string_view key() const override {
    const Slice k = it_->key();
    return std::string_view(k.data(), k.size());
  }
  std::string_view value() const override {
    const Slice v = it_->value();
    return std::string_view(v.data(), v.size());
  }
  Status status() const override { return it_->status(); }

 private:
  std::unique_ptr<Iterator> it_;
};

class CascadeDBEngine : public Engine {
 public:
  const char* Name() const override { return "cascadedb"; }
  std::string Version() const override { return DB_BENCH_CASCADEDB_VERSION; }
  std::vector<std::string> Notes() const override {
    std::vector<std::string> notes;
#ifndef NDEBUG
    notes.push_back(
        "CascadeDB is built without NDEBUG (assertions on): not a Release "
        "build, figures understate it");
#endif
    return notes;
  }

  Status Check(const EngineConfig& config,
               std::vector<std::string>* /*warnings*/) const override {
    if (config.max_subcompactions.has_value() &&
        *config.max_subcompactions != 1) {
      return Status::InvalidArgument(
          "--max_subcompactions=" + std::to_string(*config.max_subcompactions),
          "cascadedb does not split compactions (only 1 is supported)");
    }
    Options options;
    Status s = MakeOptions(config, &options);
    if (s.ok()) s = ValidateOptions(options);
    return s;
  }

  Status Open(const EngineConfig& config) override {
    Status s = MakeOptions(config, &options_);
    if (!s.ok()) return s;
    if (config.compaction_cpu_priority) {
      compaction_cpu_priority_ = *config.compaction_cpu_priority;
      if (compaction_cpu_priority_ != "normal") {
        // The Env's LOW pool runs the compactions. One-way, and for the
        // whole process: db_bench opens one DB at a time with the same
        // flags, so later opens ask for the same or nothing.
        s = options_.env->LowerThreadPoolCPUPriority(
            Env::Priority::kLow, compaction_cpu_priority_ == "idle"
                                     ? Env::CpuPriority::kIdle
                                     : Env::CpuPriority::kLow);
        if (!s.ok()) return s;
      }
    }
    options_.create_if_missing = true;
    write_options_.sync = config.sync;
    write_options_.disableWAL = config.disable_wal;
    if (config.verify_checksums) {
      read_options_.verify_checksums = *config.verify_checksums;
    }
    std::unique_ptr<DB> db;
    s = DB::Open(options_, config.db_path, &db);
    if (s.ok()) db_ = std::move(db);
    return s;
  }

  Status Close() override {
    if (db_ == nullptr) return Status::OK();
    Status s = db_->Close();
    db_.reset();
    return s;
  }

  Status Destroy(const EngineConfig& config) override {
    return DestroyDB(config.db_path, Options());
  }

  std::vector<std::string> EffectiveOptions() const override {
    const Options& o = options_;
    auto u = [](uint64_t v) { return std::to_string(v); };
    std::vector<std::string> out = {
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
        "max_background_compactions=" + u(o.max_background_compactions),
        "max_background_flushes=" + u(o.max_background_flushes),
        "compaction_cpu_priority=" + compaction_cpu_priority_,
        "compaction_pri=" + std::string(CompactionPriName(o.compaction_pri)),
        "compaction_copy_blocks=" + u(o.compaction_copy_blocks),
        "align_compaction_outputs=" + u(o.align_compaction_outputs),
        "stalled_writers_compress=" + u(o.stalled_writers_compress),
        "background_yields_to_writers=" + u(o.background_yields_to_writers),
        "flush_in_compaction=" +
            std::string(FlushInCompactionName(o.flush_in_compaction)),
        "compression=" + std::string(CompressionTypeName(o.compression)),
        "bloom_bits_per_key=" + std::to_string(o.bloom_bits_per_key),
        "memtable_prefix_bloom_size_ratio=" +
            std::to_string(o.memtable_prefix_bloom_size_ratio),
        "memtable_whole_key_filtering=" + u(o.memtable_whole_key_filtering),
        "memtable_rep=" + std::string(MemTableRepName(o.memtable_rep)),
        "block_cache_size=" + u(CacheSize()),
        "block_size=" + u(o.block_size),
        "long_scan_blocks=" + u(o.long_scan_blocks),
        "value_compression_min_size=" + u(o.value_compression_min_size),
        "block_cache_admit_on_second_miss=" +
            u(o.block_cache_admit_on_second_miss),
        "delayed_write_rate=" + u(o.delayed_write_rate),
        "soft_pending_compaction_bytes_limit=" +
            u(o.soft_pending_compaction_bytes_limit),
        "hard_pending_compaction_bytes_limit=" +
            u(o.hard_pending_compaction_bytes_limit),
        "use_direct_reads=" + u(o.use_direct_reads),
        "allow_mmap_reads=" + u(o.allow_mmap_reads),
        "allow_mmap_writes=" + u(o.allow_mmap_writes),
        "recycle_log_file_num=" + u(o.recycle_log_file_num),
        "recycle_table_bytes=" + u(o.recycle_table_bytes),
        "bytes_per_sync=" + u(o.bytes_per_sync),
        "wal_bytes_per_sync=" + u(o.wal_bytes_per_sync),
        "use_direct_io_for_flush_and_compaction=" +
            u(o.use_direct_io_for_flush_and_compaction),
        "rate_limiter=" + (o.rate_limiter
                               ? u(static_cast<uint64_t>(
                                     o.rate_limiter->GetBytesPerSecond())) +
                                     " B/s"
                               : std::string("none")),
        "sync=" + u(write_options_.sync),
        "disableWAL=" + u(write_options_.disableWAL),
        "verify_checksums=" + u(read_options_.verify_checksums),
    };
    return out;
  }

  MemoryBudget Budget() const override {
    MemoryBudget b;
    b.write_buffer_size = options_.write_buffer_size;
    b.max_write_buffer_number = options_.max_write_buffer_number;
    b.cache_size = CacheSize();
    return b;
  }

  Status Put(std::string_view key, std::string_view value, bool sync) override {
    WriteOptions wo = write_options_;
    wo.sync = wo.sync || sync;
    return db_->Put(wo, Slice(key.data(), key.size()),
                    Slice(value.data(), value.size()));
  }

  Status Delete(std::string_view key, bool sync) override {
    WriteOptions wo = write_options_;
    wo.sync = wo.sync || sync;
    return db_->Delete(wo, Slice(key.data(), key.size()));
  }

  Status Get(std::string_view key, std::string* value) override {
    return db_->Get(read_options_, Slice(key.data(), key.size()), value);
  }

  std::unique_ptr<EngineIterator> NewIterator() override {
    return std::make_unique<CascadeDBIterator>(db_->NewIterator(read_options_));
  }

  Status CompactAll() override {
    return db_->CompactRange(CompactRangeOptions(), nullptr, nullptr);
  }
  Status Flush() override { return db_->Flush(FlushOptions()); }
  Status WaitForCompaction() override { return db_->WaitForCompact(); }

  bool TextProperty(std::string_view what, std::string* text) override {
    return db_->GetProperty("cascadedb." + std::string(what), text);
  }

  EngineSample Sample() override {
    EngineSample s;
    s.l0_files = IntProperty("cascadedb.num-files-at-level0");
    s.immutable_memtables = IntProperty("cascadedb.num-immutable-mem-table");
    s.pending_compaction_bytes =
        IntProperty("cascadedb.estimate-pending-compaction-bytes");
    s.compaction_bytes_read = IntProperty("cascadedb.compaction-bytes-read");
    s.compaction_bytes_written =
        IntProperty("cascadedb.compaction-bytes-written");
    std::map<std::string, std::string> m;
    if (db_->GetMapProperty("cascadedb.stall-stats", &m)) {
      auto state = m.find("state");
      if (state != m.end()) s.stall_state = state->second;
      auto cause = m.find("cause");
      if (cause != m.end()) s.stall_cause = cause->second;
      for (const char* c : kStallCauses) {
        uint64_t v = 0;
        auto it = m.find(std::string(c) + ".episode-micros");
        if (it != m.end() && ParseU64(it->second, &v)) {
          s.stall_episode_micros[c] = v;
        }
      }
    }
    return s;
  }

  StallStats Stalls() override {
    StallStats out;
    std::map<std::string, std::string> m;
    if (!db_->GetMapProperty("cascadedb.stall-stats", &m)) return out;
    out.reported = true;
    for (const auto& [key, text] : m) {
      uint64_t v = 0;
      if (!ParseU64(text, &v)) continue;
      bool per_cause = false;
      for (const char* c : kStallCauses) {
        const std::string prefix = std::string(c) + ".";
        if (key.compare(0, prefix.size(), prefix) == 0) {
          out.by_cause[c][key.substr(prefix.size())] = v;
          per_cause = true;
        }
      }
      if (!per_cause) out.totals[key] = v;
    }
    out.note = "cascadedb.stall-stats";
    return out;
  }

  WriteAmpStats WriteAmp() override {
    WriteAmpStats out;
    std::map<std::string, std::string> m;
    if (!db_->GetMapProperty("cascadedb.write-amplification", &m)) return out;
    out.source = "cascadedb.write-amplification";
    for (const auto& [key, text] : m) {
      uint64_t v = 0;
      if (!ParseU64(text, &v)) continue;
      if (key == "user-bytes") out.user_bytes = v;
      if (key == "wal-bytes") out.wal_bytes = v;
      if (key == "flush-bytes") out.flush_bytes = v;
      if (key == "compaction-bytes") out.compaction_bytes = v;
      int level = 0;
      char field[32] = {0};
      if (std::sscanf(key.c_str(), "L%d.%31s", &level, field) == 2) {
        const std::string f = field;
        if (f == "write-bytes") out.level_write_bytes[level] = v;
        if (f == "read-bytes") out.level_read_bytes[level] = v;
      }
    }
    return out;
  }

  std::optional<uint64_t> EstimateLiveDataSize() override {
    return IntProperty("cascadedb.estimate-live-data-size");
  }

  bool StatisticsText(std::string* text) override {
    if (options_.statistics == nullptr) return false;
    *text = options_.statistics->ToString();
    return true;
  }

  bool EnableWriteTimes() override {
    SetPerfLevel(PerfLevel::kEnableTime);
    return true;
  }
  void ResetWriteTimes() override { GetPerfContext()->Reset(); }
  WriteTimes ThreadWriteTimes() override {
    const PerfContext& p = *GetPerfContext();
    WriteTimes t;
    t.queue = p.write_thread_wait_nanos;
    t.delay = p.write_delay_nanos;
    t.stop = p.write_stop_nanos;
    t.memtable_switch = p.write_memtable_switch_nanos;
    t.wal = p.write_wal_nanos;
    t.memtable = p.write_memtable_nanos;
    t.mutex = p.db_mutex_lock_nanos;
    return t;
  }

 private:
  static Status MakeOptions(const EngineConfig& c, Options* o) {
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
    if (c.compaction_pri) {
      // ValidateOptions names a value other than 3 or 4.
      o->compaction_pri = static_cast<CompactionPri>(*c.compaction_pri);
    }
    if (c.compaction_copy_blocks) {
      o->compaction_copy_blocks = *c.compaction_copy_blocks;
    }
    if (c.align_compaction_outputs) {
      o->align_compaction_outputs = *c.align_compaction_outputs;
    }
    if (c.stalled_writers_compress) {
      o->stalled_writers_compress = *c.stalled_writers_compress;
    }
    if (c.background_yields_to_writers) {
      o->background_yields_to_writers = *c.background_yields_to_writers;
    }
    if (c.max_background_flushes) {
      o->max_background_flushes = *c.max_background_flushes;
    }
    if (c.flush_in_compaction) {
      const std::string& f = *c.flush_in_compaction;
      o->flush_in_compaction = f == "never"    ? FlushInCompaction::kNever
                               : f == "always" ? FlushInCompaction::kAlways
                                               : FlushInCompaction::kAuto;
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
    if (c.compression_type &&
        !ParseCompression(*c.compression_type, &o->compression)) {
      return Status::InvalidArgument(
          "--compression_type=" + *c.compression_type,
          "is not none, snappy, lz4 or zstd");
    }
    if (c.bloom_bits) o->bloom_bits_per_key = *c.bloom_bits;
    if (c.memtablerep) {
      o->memtable_rep = *c.memtablerep == "btree" ? MemTableRep::kBTree
                                                  : MemTableRep::kSkipList;
    }
    if (c.memtable_bloom_size_ratio) {
      o->memtable_prefix_bloom_size_ratio = *c.memtable_bloom_size_ratio;
    }
    if (c.memtable_whole_key_filtering) {
      o->memtable_whole_key_filtering = *c.memtable_whole_key_filtering;
    }
    if (c.cache_size) o->block_cache_size = *c.cache_size;
    if (c.block_size) o->block_size = *c.block_size;
    if (c.long_scan_blocks) o->long_scan_blocks = *c.long_scan_blocks;
    if (c.value_compression_min_size) {
      o->value_compression_min_size = *c.value_compression_min_size;
    }
    if (c.cache_admit_on_second_miss) {
      o->block_cache_admit_on_second_miss = *c.cache_admit_on_second_miss;
    }
    if (c.use_direct_reads) o->use_direct_reads = *c.use_direct_reads;
    if (c.mmap_read) o->allow_mmap_reads = *c.mmap_read;
    if (c.mmap_write) o->allow_mmap_writes = *c.mmap_write;
    if (c.recycle_log_file_num) {
      o->recycle_log_file_num = static_cast<size_t>(*c.recycle_log_file_num);
    }
    if (c.recycle_table_bytes) {
      o->recycle_table_bytes = *c.recycle_table_bytes;
    }
    if (c.bytes_per_sync) o->bytes_per_sync = *c.bytes_per_sync;
    if (c.wal_bytes_per_sync) o->wal_bytes_per_sync = *c.wal_bytes_per_sync;
    if (c.use_direct_io_for_flush_and_compaction) {
      o->use_direct_io_for_flush_and_compaction =
          *c.use_direct_io_for_flush_and_compaction;
    }
    if (c.rate_limiter_bytes_per_sec && *c.rate_limiter_bytes_per_sec > 0) {
      o->rate_limiter.reset(NewGenericRateLimiter(
          static_cast<int64_t>(*c.rate_limiter_bytes_per_sec)));
    }
    if (c.statistics) o->statistics = CreateDBStatistics();
    return Status::OK();
  }

  uint64_t CacheSize() const {
    if (options_.block_cache != nullptr) {
      return options_.block_cache->GetCapacity();
    }
    return options_.block_cache_size;
  }

  std::optional<uint64_t> IntProperty(const char* name) {
    uint64_t v = 0;
    if (db_->GetIntProperty(name, &v)) return v;
    return std::nullopt;
  }

  Options options_;
  WriteOptions write_options_;
  ReadOptions read_options_;
  std::string compaction_cpu_priority_ = "normal";
  std::unique_ptr<DB> db_;
};

}  // namespace

std::unique_ptr<Engine> NewCascadeDBEngine() {
  return std::make_unique<CascadeDBEngine>();
}

}  // namespace db_bench
}  // namespace cascadedb

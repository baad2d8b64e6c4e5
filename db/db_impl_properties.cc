// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// DBImpl's properties (DB::GetProperty, GetIntProperty, GetMapProperty):
// the "cascadedb.*" names documented in docs/properties.md, read under the
// DB mutex from the current Version, the memtables, InternalStats and the
// WriteController. Split from db_impl.cc, which keeps the engine itself.

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cascadedb/cache.h"
#include "cascadedb/statistics.h"
#include "db/compaction_picker.h"
#include "db/db_impl.h"
#include "db/filename.h"
#include "db/memtable.h"
#include "db/table_cache.h"
#include "db/version_set.h"

namespace cascadedb {

std::vector<LevelState> DBImpl::LevelStates() {
  std::vector<LevelState> states;
  Version* v = versions_->current();
  for (int level = 0; level < v->num_levels(); ++level) {
    LevelState st;
    st.num_files = v->NumFiles(level);
    st.being_compacted = 0;
    for (const FileMetaData* f : v->files(level)) {
      if (f->being_compacted) ++st.being_compacted;
    }
    st.bytes = v->NumLevelBytes(level);
    st.score = v->CompactionScore(level);
    states.push_back(st);
  }
  return states;
}

std::string DBImpl::LevelStatsTable() {
  std::string result = "Level Files Size(MB)\n--------------------\n";
  Version* v = versions_->current();
  char buf[100];
  for (int level = 0; level < v->num_levels(); ++level) {
    std::snprintf(buf, sizeof(buf), "%5d %5d %8.0f\n", level,
                  v->NumFiles(level),
                  static_cast<double>(v->NumLevelBytes(level)) / 1048576.0);
    result.append(buf);
  }
  return result;
}

std::string DBImpl::SSTablesTable() {
  return versions_->current()->DebugString();
}

std::string DBImpl::StatsTable() {
  std::string result = internal_stats_.DumpStats(LevelStates(), true);
  result.append("\n");
  result.append(write_controller_.StallStatsTable(env_->NowMicros()));
  result.append("\n");
  result.append(BackgroundCpuTable());
  return result;
}

bool DBImpl::GetBackgroundCpu(std::vector<BackgroundCpu>* rows) {
  mutex_.AssertHeld();
  rows->clear();
  BackgroundCpu low{"low", "compaction (low pool)"};
  BackgroundCpu high{"high", "flush (high pool)"};
  BackgroundCpu deletion{"deletion", "obsolete-file deletion"};
  if (!env_->GetThreadPoolCpuTime(Env::Priority::kLow, &low.on_cpu_micros,
                                  &low.waiting_micros)
           .ok() ||
      !env_->GetThreadPoolCpuTime(Env::Priority::kHigh, &high.on_cpu_micros,
                                  &high.waiting_micros)
           .ok()) {
    return false;
  }
  *rows = {low, high};
  // An Env without helper threads of its own, or that does not count them,
  // has no such row.
  BackgroundCpu helper{"helper", "Env helper (WAL regions)"};
  if (env_->GetHelperThreadsCpuTime(&helper.on_cpu_micros,
                                    &helper.waiting_micros)
          .ok()) {
    rows->push_back(helper);
  }
  // The deletion thread starts with the first file it is handed.
  if (deleter_ != nullptr) {
    deleter_->AddCpuTime(&deletion.on_cpu_micros, &deletion.waiting_micros);
  }
  rows->push_back(deletion);
  return true;
}

std::string DBImpl::BackgroundCpuTable() {
  std::vector<BackgroundCpu> rows;
  std::string result =
      "Background threads' CPU (since their threads started; the low and "
      "high pools are the Env's, shared by every DB on it):\n";
  if (!GetBackgroundCpu(&rows)) {
    result.append("n/a (the kernel keeps no per-thread CPU figures)\n");
    return result;
  }
  char buf[160];
  std::snprintf(buf, sizeof(buf), "%-26s %10s %10s %10s\n", "threads",
                "on-cpu-s", "waiting-s", "waiting-%");
  result.append(buf);
  for (const BackgroundCpu& r : rows) {
    const double on = static_cast<double>(r.on_cpu_micros) / 1e6;
    const double wait = static_cast<double>(r.waiting_micros) / 1e6;
    std::snprintf(buf, sizeof(buf), "%-26s %10.3f %10.3f %10.1f\n", r.name, on,
                  wait, on + wait > 0 ? 100.0 * wait / (on + wait) : 0.0);
    result.append(buf);
  }
  return result;
}

bool DBImpl::GetProperty(const Slice& property, std::string* value) {
  value->clear();
  const std::string name = property.ToString();
  MutexLock l(&mutex_);
  if (closed_) return false;
  if (name == "cascadedb.stats") {
    *value = StatsTable();
    return true;
  }
  if (name == "cascadedb.levelstats") {
    *value = LevelStatsTable();
    return true;
  }
  if (name == "cascadedb.sstables") {
    *value = SSTablesTable();
    return true;
  }
  if (name == "cascadedb.stall-stats") {
    *value = write_controller_.StallStatsTable(env_->NowMicros());
    value->append("blocks compressed by stalled writers: " +
                  std::to_string(BlocksCompressedByWriters()) + "\n");
    value->append("background yields to held-up writes: " +
                  std::to_string(writer_watch_.yields()) + ", to flushes: " +
                  std::to_string(flush_watch_.yields()) + "\n");
    return true;
  }
  if (name == "cascadedb.compaction-stats") {
    *value = internal_stats_.DumpStats(LevelStates(), false);
    return true;
  }
  if (name == "cascadedb.background-cpu") {
    *value = BackgroundCpuTable();
    return true;
  }
  if (name == "cascadedb.memtable-bytes-per-entry" ||
      name == "cascadedb.memtable-overhead-bytes-per-entry") {
    const double v = name == "cascadedb.memtable-bytes-per-entry"
                         ? mem_->BytesPerEntry()
                         : mem_->OverheadBytesPerEntry();
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f", v);
    *value = buf;
    return true;
  }
  if (name == "cascadedb.options-statistics") {
    if (stats_ == nullptr) return false;
    *value = stats_->ToString();
    return true;
  }
  if (name == "cascadedb.aggregated-table-properties") {
    TableProperties total;
    if (!AggregateTableProperties(&total)) return false;
    *value = total.ToString();
    return true;
  }
  uint64_t n;
  if (GetIntPropertyLocked(name, &n)) {
    *value = std::to_string(n);
    return true;
  }
  return false;
}

bool DBImpl::AggregateTableProperties(TableProperties* total) {
  Version* v = versions_->current();
  for (int level = 0; level < v->num_levels(); ++level) {
    for (const FileMetaData* f : v->files(level)) {
      Cache::Handle* handle = nullptr;
      if (!table_cache_->FindTable(f->number, f->file_size, &handle).ok()) {
        return false;
      }
      const TableProperties& p = table_cache_->GetTable(handle)->properties();
      total->num_entries += p.num_entries;
      total->num_deletions += p.num_deletions;
      total->raw_key_size += p.raw_key_size;
      total->raw_value_size += p.raw_value_size;
      total->data_size += p.data_size;
      total->index_size += p.index_size;
      total->filter_size += p.filter_size;
      total->num_data_blocks += p.num_data_blocks;
      table_cache_->Release(handle);
    }
  }
  return true;
}

bool DBImpl::GetIntProperty(const Slice& property, uint64_t* value) {
  MutexLock l(&mutex_);
  if (closed_) return false;
  return GetIntPropertyLocked(property.ToString(), value);
}

bool DBImpl::GetIntPropertyLocked(const std::string& name, uint64_t* value) {
  Version* v = versions_->current();
  const std::string kFilesAtLevel = "cascadedb.num-files-at-level";
  if (name.compare(0, kFilesAtLevel.size(), kFilesAtLevel) == 0) {
    const std::string rest = name.substr(kFilesAtLevel.size());
    if (rest.empty() || rest.size() > 2 ||
        rest.find_first_not_of("0123456789") != std::string::npos) {
      return false;
    }
    const int level = std::stoi(rest);
    if (level >= v->num_levels()) return false;
    *value = static_cast<uint64_t>(v->NumFiles(level));
    return true;
  }
  if (name == "cascadedb.num-immutable-mem-table") {
    *value = imm_.size();
  } else if (name == "cascadedb.estimate-pending-compaction-bytes") {
    *value = v->EstimatedPendingCompactionBytes();
  } else if (name == "cascadedb.cur-size-active-mem-table") {
    *value = mem_->ApproximateMemoryUsage();
  } else if (name == "cascadedb.cur-size-all-mem-tables") {
    uint64_t total = mem_->ApproximateMemoryUsage();
    for (const ImmutableMemTable& m : imm_) {
      total += m.mem->ApproximateMemoryUsage();
    }
    *value = total;
  } else if (name == "cascadedb.num-entries-active-mem-table") {
    *value = mem_->NumEntries();
  } else if (name == "cascadedb.memtable-pool-bytes") {
    *value = arena_pool_->PooledBytes();
  } else if (name == "cascadedb.memtable-blocks-prepared") {
    *value = arena_pool_->PreparedBlocks();
  } else if (name == "cascadedb.estimate-num-keys") {
    // Entries minus twice the deletions (each hides one entry), as
    // RocksDB estimates; overwritten keys are counted more than once.
    uint64_t entries = mem_->NumEntries(), deletes = mem_->NumDeletes();
    for (const ImmutableMemTable& m : imm_) {
      entries += m.mem->NumEntries();
      deletes += m.mem->NumDeletes();
    }
    TableProperties tables;
    if (!AggregateTableProperties(&tables)) return false;
    entries += tables.num_entries;
    deletes += tables.num_deletions;
    *value = entries > 2 * deletes ? entries - 2 * deletes : 0;
  } else if (name == "cascadedb.estimate-table-readers-mem") {
    // Open tables hold their index and filter blocks unless those live in
    // the block cache, and an index's search heads: 8 bytes per data block.
    TableProperties tables;
    if (!AggregateTableProperties(&tables)) return false;
    const uint64_t heads = table_options_.user_keys_bytewise
                               ? tables.num_data_blocks * sizeof(uint64_t)
                               : 0;
    *value = options_.cache_index_and_filter_blocks
                 ? 0
                 : tables.index_size + tables.filter_size + heads;
  } else if (name == "cascadedb.block-cache-pinned-usage") {
    *value = block_cache_ != nullptr ? block_cache_->GetPinnedUsage() : 0;
  } else if (name == "cascadedb.num-live-sst-files") {
    // Files any Version still references (an iterator may pin old ones).
    std::set<uint64_t> live;
    versions_->AddLiveFiles(&live);
    *value = live.size();
  } else if (name == "cascadedb.total-sst-files-size" ||
             name == "cascadedb.live-sst-files-size") {
    uint64_t total = 0;
    for (int level = 0; level < v->num_levels(); ++level) {
      total += v->NumLevelBytes(level);
    }
    *value = total;
  } else if (name == "cascadedb.estimate-live-data-size") {
    // The last non-empty level holds most live data; like RocksDB, count
    // each level's bytes once, the largest level dominating.
    uint64_t total = 0;
    for (int level = 0; level < v->num_levels(); ++level) {
      total = std::max<uint64_t>(total, v->NumLevelBytes(level));
    }
    *value = total;
  } else if (name == "cascadedb.num-running-compactions") {
    *value = static_cast<uint64_t>(bg_compactions_scheduled_);
  } else if (name == "cascadedb.num-running-flushes") {
    *value = bg_flush_scheduled_ ? 1 : 0;
  } else if (name == "cascadedb.compaction-pending") {
    *value = versions_->picker()->NeedsCompaction(v) ? 1 : 0;
  } else if (name == "cascadedb.mem-table-flush-pending") {
    *value = imm_.empty() ? 0 : 1;
  } else if (name == "cascadedb.background-errors") {
    *value = bg_error_.ok() ? 0 : 1;
  } else if (name == "cascadedb.num-snapshots") {
    *value = snapshots_.size();
  } else if (name == "cascadedb.block-cache-usage") {
    *value = block_cache_ != nullptr ? block_cache_->GetUsage() : 0;
  } else if (name == "cascadedb.block-cache-capacity") {
    *value = block_cache_ != nullptr ? block_cache_->GetCapacity() : 0;
  } else if (name == "cascadedb.block-cache-admission-window") {
    *value = block_admission_ != nullptr ? block_admission_->window() : 0;
  } else if (name == "cascadedb.compaction-bytes-read" ||
             name == "cascadedb.compaction-bytes-written") {
    uint64_t read = 0, written = 0;
    for (int level = 1; level < v->num_levels(); ++level) {
      const CompactionStats st = internal_stats_.GetLevelStats(level);
      read += st.bytes_read_non_output_levels + st.bytes_read_output_level;
      written += st.bytes_written;
    }
    *value = name == "cascadedb.compaction-bytes-read" ? read : written;
  } else if (name == "cascadedb.flush-bytes-written") {
    *value = internal_stats_.GetLevelStats(0).bytes_written;
  } else if (name == "cascadedb.actual-delayed-write-rate") {
    *value = write_controller_.state() == WriteState::kDelayed
                 ? write_controller_.delayed_write_rate()
                 : 0;
  } else if (name == "cascadedb.is-write-stopped") {
    *value = write_controller_.state() == WriteState::kStopped ? 1 : 0;
  } else if (name == "cascadedb.total-stall-micros") {
    *value = write_controller_.total_stall_micros();
  } else if (name == "cascadedb.latest-sequence-number") {
    *value = versions_->LastSequence();
  } else {
    return false;
  }
  return true;
}

bool DBImpl::GetMapProperty(const Slice& property,
                            std::map<std::string, std::string>* value) {
  value->clear();
  const std::string name = property.ToString();
  MutexLock l(&mutex_);
  if (closed_) return false;
  if (name == "cascadedb.stall-stats") {
    write_controller_.GetStallStatsMap(env_->NowMicros(), value);
    (*value)["blocks-compressed-by-writers"] =
        std::to_string(BlocksCompressedByWriters());
    (*value)["yields-to-writers"] = std::to_string(writer_watch_.yields());
    (*value)["yields-to-flushes"] = std::to_string(flush_watch_.yields());
    return true;
  }
  if (name == "cascadedb.write-amplification") {
    internal_stats_.GetWriteAmpMap(value);
    return true;
  }
  if (name == "cascadedb.background-cpu") {
    std::vector<BackgroundCpu> rows;
    if (!GetBackgroundCpu(&rows)) return false;
    for (const BackgroundCpu& r : rows) {
      const std::string prefix = std::string(r.key) + ".";
      (*value)[prefix + "on-cpu-micros"] = std::to_string(r.on_cpu_micros);
      (*value)[prefix + "waiting-micros"] = std::to_string(r.waiting_micros);
    }
    return true;
  }
  if (name == "cascadedb.levelstats") {
    const std::vector<LevelState> states = LevelStates();
    for (size_t level = 0; level < states.size(); ++level) {
      const std::string prefix = "L" + std::to_string(level) + ".";
      (*value)[prefix + "files"] = std::to_string(states[level].num_files);
      (*value)[prefix + "bytes"] = std::to_string(states[level].bytes);
      (*value)[prefix + "score"] = std::to_string(states[level].score);
    }
    return true;
  }
  return false;
}

}  // namespace cascadedb

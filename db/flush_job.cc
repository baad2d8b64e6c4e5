// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/flush_job.h"

#include <memory>

#include "db/obsolete_entry_filter.h"
#include "db/table_file_writer.h"

namespace cascadedb {

FlushJob::FlushJob(const std::string& dbname, Env* env,
                   const EnvOptions& env_options, RateLimiter* rate_limiter,
                   const TableOptions& table_options,
                   const Comparator* user_comparator, MemTable* mem,
                   std::vector<SequenceNumber> snapshots, uint64_t file_number)
    : dbname_(dbname),
      env_(env),
      env_options_(env_options),
      rate_limiter_(rate_limiter),
      table_options_(table_options),
      ucmp_(user_comparator),
      mem_(mem),
      snapshots_(std::move(snapshots)),
      file_number_(file_number) {}

Status FlushJob::Run(FileMetaData* meta) {
  const uint64_t start = env_->NowMicros();
  const uint64_t start_cpu = env_->NowCPUNanos();
  *meta = FileMetaData();
  stats_.memtable_bytes = mem_->ApproximateMemoryUsage();
  stats_.input_deletes = mem_->NumDeletes();

  std::unique_ptr<Iterator> iter(mem_->NewIterator());
  ObsoleteEntryFilter filter(ucmp_, snapshots_);
  TableFileWriter writer(env_, env_options_, rate_limiter_,
                         RateLimiter::IOPriority::kHigh);
  writer.SetRecycler(recycler_);
  writer.SetYieldWatches(yield_watches_);
  Status s;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    ++stats_.input_entries;
    if (progress_ != nullptr && stats_.input_entries % kProgressStep == 0) {
      progress_->entries_read.store(stats_.input_entries,
                                    std::memory_order_relaxed);
    }
    ParsedInternalKey ikey;
    s = ParseInternalKey(iter->key(), &ikey);
    if (!s.ok()) break;
    if (filter.ShouldDrop(ikey)) {
      ++stats_.dropped_entries;
      continue;
    }
    if (!writer.is_open()) {
      s = writer.Open(dbname_, file_number_, table_options_);
      if (!s.ok()) break;
    }
    writer.Add(iter->key(), iter->value());
  }
  if (s.ok()) s = iter->status();
  if (progress_ != nullptr) {
    progress_->entries_read.store(stats_.input_entries,
                                  std::memory_order_relaxed);
    progress_->read_end_micros.store(env_->NowMicros(),
                                     std::memory_order_relaxed);
  }
  if (s.ok() && writer.is_open()) {
    s = writer.Finish(meta);
  } else {
    writer.Abandon();
  }
  if (!s.ok()) *meta = FileMetaData();
  stats_.bytes_written = meta->file_size;
  stats_.recycled_file = s.ok() && writer.reused_file();
  stats_.micros = env_->NowMicros() - start;
  stats_.cpu_micros = (env_->NowCPUNanos() - start_cpu) / 1000;
  // The flush's thread is done with it: compactions stop yielding to it.
  if (yield_watches_.own != nullptr) yield_watches_.own->Waiting();
  return s;
}

}  // namespace cascadedb

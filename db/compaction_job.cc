// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/compaction_job.h"

#include <memory>

#include "db/dbformat.h"
#include "db/filename.h"
#include "db/obsolete_entry_filter.h"
#include "db/table_cache.h"
#include "db/table_file_writer.h"
#include "db/version_set.h"

namespace cascadedb {

CompactionJob::CompactionJob(const std::string& dbname, Env* env,
                             const EnvOptions& env_options,
                             RateLimiter* rate_limiter,
                             const TableOptions& table_options,
                             const Comparator* user_comparator,
                             VersionSet* versions, Compaction* compaction,
                             std::vector<SequenceNumber> snapshots,
                             std::function<uint64_t()> new_file_number,
                             const std::atomic<bool>* shutting_down)
    : dbname_(dbname),
      env_(env),
      env_options_(env_options),
      rate_limiter_(rate_limiter),
      table_options_(table_options),
      ucmp_(user_comparator),
      versions_(versions),
      compaction_(compaction),
      snapshots_(std::move(snapshots)),
      new_file_number_(std::move(new_file_number)),
      shutting_down_(shutting_down) {
  table_options_.compression = compaction_->OutputCompression();
  table_options_.preallocation_size = compaction_->MaxOutputFileSize();
}

// An output is synced only when kMaxUnsyncedOutputs newer ones are
// finished, or at the end: the device writes it back meanwhile (started
// by FinishUnsynced) while the merge goes on, instead of the job waiting
// for every file in turn. One directory sync covers them all.
Status CompactionJob::FinishOutput(TableFileWriter* writer) {
  FileMetaData meta;
  stats_.output_records += writer->NumEntries();
  std::unique_ptr<WritableFile> file;
  Status s = writer->FinishUnsynced(&meta, &file);
  if (!s.ok()) return s;
  stats_.bytes_written += meta.file_size;
  outputs_.push_back(meta);
  unsynced_.push_back(std::move(file));
  if (unsynced_.size() > kMaxUnsyncedOutputs) s = SyncOldestOutput();
  return s;
}

Status CompactionJob::SyncOldestOutput() {
  std::unique_ptr<WritableFile> file = std::move(unsynced_.front());
  unsynced_.pop_front();
  Status s = file->Sync();
  Status c = file->Close();
  return s.ok() ? c : s;
}

Status CompactionJob::SyncOutputs() {
  Status s;
  while (s.ok() && !unsynced_.empty()) s = SyncOldestOutput();
  if (s.ok() && !outputs_.empty()) s = env_->SyncDir(dbname_);
  return s;
}

Status CompactionJob::OpenOutputs() {
  TableCache* const cache = versions_->table_cache();
  for (const FileMetaData& f : outputs_) {
    Cache::Handle* handle = nullptr;
    Status s = cache->FindTable(f.number, f.file_size, &handle);
    if (!s.ok()) return s;
    cache->Release(handle);
  }
  return Status::OK();
}

void CompactionJob::MaybePause() {
  if (pause_requested_ == nullptr ||
      !pause_requested_->load(std::memory_order_relaxed)) {
    return;
  }
  const uint64_t start = env_->NowMicros();
  const uint64_t start_cpu = env_->NowCPUNanos();
  serve_pause_();
  paused_micros_ += env_->NowMicros() - start;
  paused_cpu_nanos_ += env_->NowCPUNanos() - start_cpu;
}

Status CompactionJob::Run() {
  const uint64_t start = env_->NowMicros();
  const uint64_t start_cpu = env_->NowCPUNanos();
  Compaction* const c = compaction_;
  for (int which = 0; which < 2; ++which) {
    for (const FileMetaData* f : c->inputs(which)) {
      if (which == 0) {
        stats_.bytes_read_input_level += f->file_size;
        ++stats_.input_files_input_level;
      } else {
        stats_.bytes_read_output_level += f->file_size;
        ++stats_.input_files_output_level;
      }
    }
  }
  // An L0 -> L0 or same-level compaction has its inputs in inputs(0) only.

  const RateLimiter::IOPriority priority = c->level() == 0
                                               ? RateLimiter::IOPriority::kHigh
                                               : RateLimiter::IOPriority::kLow;
  std::unique_ptr<Iterator> input(versions_->MakeInputIterator(c));
  ObsoleteEntryFilter filter(ucmp_, snapshots_);
  TableFileWriter writer(env_, env_options_, rate_limiter_, priority);
  bool cut_requested = false;
  Status s;
  for (input->SeekToFirst(); input->Valid(); input->Next()) {
    if (shutting_down_ != nullptr &&
        shutting_down_->load(std::memory_order_acquire)) {
      s = Status::Aborted("compaction stopped: the DB is closing");
      break;
    }
    MaybePause();
    const Slice key = input->key();
    ++stats_.input_records;
    ParsedInternalKey ikey;
    s = ParseInternalKey(key, &ikey);
    if (!s.ok()) break;
    bool new_user_key;
    const bool drop = filter.ShouldDrop(
        ikey,
        [c](const Slice& user_key) { return c->IsBaseLevelForKey(user_key); },
        &new_user_key);
    // ShouldStopBefore tracks the grandparent overlap; it must see every
    // key in order, but a file is only cut between user keys.
    if (c->ShouldStopBefore(key)) cut_requested = true;
    if (new_user_key) {
      if (cut_requested && writer.is_open()) {
        s = FinishOutput(&writer);
        if (!s.ok()) break;
      }
      cut_requested = false;
    }
    if (drop) {
      ++stats_.dropped_records;
      continue;
    }
    if (!writer.is_open()) {
      s = writer.Open(dbname_, new_file_number_(), table_options_);
      if (!s.ok()) break;
    }
    writer.Add(key, input->value());
    if (writer.FileSize() >= c->MaxOutputFileSize()) cut_requested = true;
  }
  if (s.ok()) s = input->status();
  if (s.ok() && writer.is_open()) s = FinishOutput(&writer);
  writer.Abandon();
  input.reset();
  if (s.ok()) s = SyncOutputs();
  unsynced_.clear();  // after an error: closed unsynced, deleted below
  if (s.ok()) s = OpenOutputs();
  if (!s.ok()) {
    for (const FileMetaData& f : outputs_) {
      versions_->table_cache()->Evict(f.number);  // if it opened
      // Best effort: outputs not in the MANIFEST are garbage at next Open.
      env_->RemoveFile(TableFileName(dbname_, f.number)).IgnoreError();
    }
    outputs_.clear();
  }
  stats_.micros = env_->NowMicros() - start - paused_micros_;
  stats_.cpu_micros =
      (env_->NowCPUNanos() - start_cpu - paused_cpu_nanos_) / 1000;
  return s;
}

void CompactionJob::AddToEdit(VersionEdit* edit) const {
  compaction_->AddInputDeletions(edit);
  for (const FileMetaData& f : outputs_) {
    edit->AddFile(compaction_->output_level(), f);
  }
}

}  // namespace cascadedb

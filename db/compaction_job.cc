// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/compaction_job.h"

#include <memory>

#include "db/dbformat.h"
#include "db/filename.h"
#include "db/obsolete_entry_filter.h"
#include "db/table_cache.h"
#include "db/table_file_writer.h"
#include "db/version_set.h"
#include "table/table.h"
#include "util/key_buffer.h"

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

CompactionJob::~CompactionJob() = default;

// The files of one level (sorted, not overlapping) walked entry by entry as
// an iterator would, and block by block: at each block's first entry the
// block as stored can be taken whole instead (SkipBlock).
class CompactionJob::RunReader {
 public:
  // files and cache are borrowed. compression: the outputs'.
  RunReader(TableCache* cache, const std::vector<FileMetaData*>* files,
            CompressionType compression)
      : cache_(cache),
        files_(files),
        compression_name_(CompressionTypeName(compression)) {}
  RunReader(const RunReader&) = delete;
  RunReader& operator=(const RunReader&) = delete;
  ~RunReader() { CloseFile(); }

  void SeekToFirst() {
    CloseFile();
    next_file_ = 0;
    status_ = Status::OK();
    EnterBlock();
  }
  // False at the end or after an error (status()).
  bool Valid() const {
    return walker_ != nullptr && walker_->Valid() &&
           walker_->entries()->Valid();
  }
  Status status() const { return status_; }
  Slice key() const { return walker_->entries()->key(); }
  Slice value() const { return walker_->entries()->value(); }
  void Next() {
    Iterator* entries = walker_->entries();
    entries->Next();
    at_block_start_ = false;
    if (entries->Valid()) return;
    if (!entries->status().ok()) {
      Fail(entries->status());
      return;
    }
    walker_->Next();
    EnterBlock();
  }

  // The current entry is its block's first; then the block's bytes as
  // stored, its index key and an iterator over its entries (which a caller
  // may walk, as long as it seeks it back to the first entry) are valid.
  bool AtBlockStart() const { return at_block_start_; }
  // The current file was written with the outputs' compression, so each
  // of its blocks is stored as an output's would be (compressed, or not
  // where that did not save enough).
  bool SameCompression() const { return same_compression_; }
  Slice stored() const { return walker_->stored(); }
  Slice index_key() const { return walker_->index_key(); }
  Iterator* block_entries() const { return walker_->entries(); }
  // To the next block's first entry. REQUIRES: AtBlockStart().
  void SkipBlock() {
    walker_->Next();
    EnterBlock();
  }

 private:
  // From the walker's current block on, to the first entry of a block,
  // opening the next files as needed.
  void EnterBlock() {
    at_block_start_ = false;
    while (status_.ok()) {
      if (walker_ != nullptr && walker_->Valid()) {
        Iterator* entries = walker_->entries();
        entries->SeekToFirst();
        if (entries->Valid()) {
          at_block_start_ = true;
          return;
        }
        if (!entries->status().ok()) {
          Fail(entries->status());
          return;
        }
        walker_->Next();  // an empty block
        continue;
      }
      if (walker_ != nullptr && !walker_->status().ok()) {
        Fail(walker_->status());
        return;
      }
      CloseFile();
      if (next_file_ >= files_->size()) return;  // the end
      const FileMetaData* f = (*files_)[next_file_++];
      Status s = cache_->FindTable(f->number, f->file_size, &handle_);
      if (!s.ok()) {
        Fail(s);
        return;
      }
      const Table* table = cache_->GetTable(handle_);
      same_compression_ =
          table->properties().compression_name == compression_name_;
      walker_ = std::make_unique<Table::BlockWalker>(table);
      walker_->SeekToFirst();
    }
  }
  void Fail(const Status& s) {
    status_ = s;
    CloseFile();
  }
  void CloseFile() {
    walker_.reset();
    if (handle_ != nullptr) cache_->Release(handle_);
    handle_ = nullptr;
  }

  TableCache* const cache_;
  const std::vector<FileMetaData*>* const files_;
  const std::string compression_name_;
  size_t next_file_ = 0;
  bool same_compression_ = false;
  Cache::Handle* handle_ = nullptr;  // pins the current file's table
  std::unique_ptr<Table::BlockWalker> walker_;
  bool at_block_start_ = false;
  Status status_;
};

// An output is synced only when kMaxUnsyncedOutputs newer ones are
// finished, or at the end: the device writes it back meanwhile (started
// by FinishUnsynced) while the merge goes on, instead of the job waiting
// for every file in turn. One directory sync covers them all.
Status CompactionJob::FinishOutput() {
  FileMetaData meta;
  stats_.output_records += writer_->NumEntries();
  std::unique_ptr<WritableFile> file;
  Status s = writer_->FinishUnsynced(&meta, &file);
  if (!s.ok()) return s;
  stats_.bytes_written += meta.file_size;
  if (writer_->reused_file()) ++stats_.recycled_outputs;
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
  // With blocks copied whole, the output level's files are read block by
  // block beside a merge of the other inputs ("upper").
  std::unique_ptr<RunReader> lower;
  if (copy_blocks_ && c->level() != c->output_level() &&
      !c->inputs(1).empty()) {
    lower = std::make_unique<RunReader>(versions_->table_cache(), &c->inputs(1),
                                        table_options_.compression);
  }
  std::unique_ptr<Iterator> upper(
      versions_->MakeInputIterator(c, /*include_output_level=*/!lower));
  filter_ = std::make_unique<ObsoleteEntryFilter>(ucmp_, snapshots_);
  writer_ = std::make_unique<TableFileWriter>(env_, env_options_, rate_limiter_,
                                              priority);
  writer_->SetRecycler(recycler_);
  writer_->SetYieldWatches(yield_watches_);
  cut_requested_ = false;
  const InternalKeyComparator* icmp = versions_->icmp();
  Status s;
  upper->SeekToFirst();
  if (lower != nullptr) lower->SeekToFirst();
  while (true) {
    if (shutting_down_ != nullptr &&
        shutting_down_->load(std::memory_order_acquire)) {
      s = Status::Aborted("compaction stopped: the DB is closing");
      break;
    }
    MaybePause();
    bool from_lower = false;
    if (lower != nullptr && lower->Valid()) {
      from_lower =
          !upper->Valid() || icmp->Compare(lower->key(), upper->key()) < 0;
    } else if (lower != nullptr && !lower->status().ok()) {
      s = lower->status();
      break;
    } else if (!upper->Valid()) {
      break;
    }
    if (from_lower) {
      if (lower->AtBlockStart() && TryCopyBlock(lower.get(), upper.get(), &s)) {
        if (!s.ok()) break;
        continue;
      }
      s = AddEntry(lower->key(), lower->value());
      if (!s.ok()) break;
      lower->Next();
    } else {
      s = AddEntry(upper->key(), upper->value());
      if (!s.ok()) break;
      upper->Next();
    }
  }
  if (s.ok()) s = upper->status();
  if (s.ok() && writer_->is_open()) s = FinishOutput();
  writer_->Abandon();
  upper.reset();
  lower.reset();
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

Status CompactionJob::AddEntry(const Slice& key, const Slice& value) {
  Compaction* const c = compaction_;
  ++stats_.input_records;
  ParsedInternalKey ikey;
  Status s = ParseInternalKey(key, &ikey);
  if (!s.ok()) return s;
  bool new_user_key;
  const bool drop = filter_->ShouldDrop(
      ikey,
      [c](const Slice& user_key) { return c->IsBaseLevelForKey(user_key); },
      &new_user_key);
  // ShouldStopBefore tracks the grandparent overlap; it must see every
  // key in order, but a file is only cut between user keys.
  if (c->ShouldStopBefore(key, OutputBytes())) cut_requested_ = true;
  if (new_user_key) {
    if (cut_requested_ && writer_->is_open()) {
      s = FinishOutput();
      if (!s.ok()) return s;
    }
    cut_requested_ = false;
  }
  if (drop) {
    ++stats_.dropped_records;
    return Status::OK();
  }
  if (!writer_->is_open()) {
    s = writer_->Open(dbname_, new_file_number_(), table_options_);
    if (!s.ok()) return s;
  }
  writer_->Add(key, value);
  if (writer_->FileSize() >= c->OutputSizeLimit()) RequestSizeCut();
  return Status::OK();
}

uint64_t CompactionJob::OutputBytes() const {
  return writer_->is_open() ? writer_->FileSize() : 0;
}

void CompactionJob::RequestSizeCut() {
  cut_requested_ = true;
  compaction_->OutputClosed();
}

bool CompactionJob::TryCopyBlock(RunReader* lower, Iterator* upper, Status* s) {
  Compaction* const c = compaction_;
  if (!lower->SameCompression()) return false;
  // The index key is >= each key of the block, so an upper user key past
  // its user key is past the whole block. Only its user key is used: a
  // shortened separator carries kValueTypeForSeek, not an entry's type, so
  // it is not parsed as an entry's key.
  const Slice index_key = lower->index_key();
  if (index_key.size() < kInternalKeyTrailerSize) return false;
  const Slice bound = ExtractUserKey(index_key);
  if (upper->Valid()) {
    ParsedInternalKey next;
    if (!ParseInternalKey(upper->key(), &next).ok() ||
        ucmp_->Compare(next.user_key, bound) <= 0) {
      return false;
    }
  }
  Iterator* entries = lower->block_entries();
  KeyBuffer last_key;
  SequenceNumber last_sequence = 0;
  uint64_t n = 0;
  bool copyable = true;
  for (; copyable && entries->Valid(); entries->Next()) {
    ParsedInternalKey ikey;
    copyable = ParseInternalKey(entries->key(), &ikey).ok() &&
               IsValueType(ikey.type) &&
               (n == 0 ? filter_->IsNewUserKey(ikey.user_key)
                       : ucmp_->Compare(ikey.user_key,
                                        ExtractUserKey(last_key.slice())) != 0);
    last_key.Assign(entries->key());
    last_sequence = ikey.sequence;
    ++n;
  }
  copyable = copyable && entries->status().ok() && n > 0;
  entries->SeekToFirst();  // where the entry-by-entry path expects it
  if (!copyable) return false;

  // Outputs end exactly at grandparent boundaries: a block across one
  // where a cut is due goes entry by entry.
  if (c->WouldCutWithin(last_key.slice(), OutputBytes())) return false;
  // The cut rules of AddEntry: the block's first key is a new user key, so
  // a cut due there is made before the block; one due inside it (only the
  // size's) waits for the block's end (the next new user key).
  if (c->ShouldStopBefore(entries->key(), OutputBytes())) {
    cut_requested_ = true;
  }
  if (cut_requested_ && writer_->is_open()) {
    *s = FinishOutput();
    if (!s->ok()) return true;
  }
  cut_requested_ = false;
  for (entries->Next(); entries->Valid(); entries->Next()) {
    if (c->ShouldStopBefore(entries->key(), OutputBytes())) {
      cut_requested_ = true;
    }
  }
  if (!writer_->is_open()) {
    *s = writer_->Open(dbname_, new_file_number_(), table_options_);
    if (!s->ok()) return true;
  }
  const Slice stored = lower->stored();
  writer_->AddStoredBlock(stored, entries);
  filter_->NoteKept(ExtractUserKey(last_key.slice()), last_sequence);
  stats_.input_records += n;
  ++stats_.copied_blocks;
  stats_.copied_bytes += stored.size();
  if (writer_->FileSize() >= c->OutputSizeLimit()) RequestSizeCut();
  lower->SkipBlock();
  return true;
}

void CompactionJob::AddToEdit(VersionEdit* edit) const {
  compaction_->AddInputDeletions(edit);
  for (const FileMetaData& f : outputs_) {
    edit->AddFile(compaction_->output_level(), f);
  }
}

}  // namespace cascadedb

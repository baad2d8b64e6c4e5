// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The Repairer (see db/repair.h for the steps and why a rewrite is sometimes
// needed) and RepairDB, the public entry point. Not thread-safe: one repair
// runs on one thread, with the database's LOCK held.

#include "db/repair.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <utility>

#include "cascadedb/comparator.h"
#include "cascadedb/db.h"
#include "cascadedb/iterator.h"
#include "db/filename.h"
#include "db/flush_job.h"
#include "db/log_reader.h"
#include "db/log_writer.h"
#include "db/memtable.h"
#include "db/obsolete_entry_filter.h"
#include "db/table_cache.h"
#include "db/table_file_writer.h"
#include "db/write_batch_internal.h"
#include "table/merging_iterator.h"

namespace cascadedb {

namespace {

// Tables the repairer's cache keeps open at once (the merge of a rewrite
// pins every table regardless).
constexpr int kTableCacheEntries = 1000;

// Collects what the log reader drops from a WAL, for the LOG.
struct LogReporter : public log::Reader::Reporter {
  Logger* info_log = nullptr;
  std::string fname;
  uint64_t dropped_bytes = 0;
  int problems = 0;

  void Corruption(size_t bytes, const Status& s) override {
    dropped_bytes += bytes;
    ++problems;
    Log(InfoLogLevel::kWarn, info_log, "%s: dropping %zu bytes: %s",
        fname.c_str(), bytes, s.ToString().c_str());
  }
  void TornTail(size_t bytes, const Status& s) override {
    dropped_bytes += bytes;
    ++problems;
    Log(InfoLogLevel::kWarn, info_log,
        "%s: dropping torn tail of %zu bytes: %s", fname.c_str(), bytes,
        s.ToString().c_str());
  }
};

// Writes every line to two loggers (either may be missing).
class TeeLogger : public Logger {
 public:
  TeeLogger(std::shared_ptr<Logger> first, Logger* second)
      : first_(std::move(first)), second_(second) {}

  void Logv(const char* format, va_list ap) override {
    if (first_ != nullptr) {
      va_list copy;
      va_copy(copy, ap);
      first_->Logv(format, copy);
      va_end(copy);
    }
    if (second_ != nullptr) second_->Logv(format, ap);
  }

 private:
  const std::shared_ptr<Logger> first_;
  Logger* const second_;
};

}  // namespace

Repairer::Repairer(const std::string& dbname, const Options& options,
                   Logger* report)
    : dbname_(dbname),
      options_(options),
      env_(options.env != nullptr ? options.env : Env::Default()),
      icmp_(options.comparator != nullptr ? options.comparator
                                          : BytewiseComparator()),
      report_(report) {
  options_.env = env_;
  if (options_.filter_policy == nullptr && options_.bloom_bits_per_key > 0) {
    owned_filter_policy_ = NewBloomFilterPolicy(options_.bloom_bits_per_key);
  }
  table_options_.comparator = &icmp_;
  table_options_.key_format = InternalKeyFormat::Get();
  table_options_.filter_policy = options_.filter_policy != nullptr
                                     ? options_.filter_policy.get()
                                     : owned_filter_policy_.get();
  table_options_.block_size = options_.block_size;
  table_options_.block_restart_interval = options_.block_restart_interval;
  table_options_.compression = options_.compression;
  table_options_.compression_level = options_.compression_opts.level;
  table_options_.value_compression_min_size =
      options_.value_compression_min_size;
  table_options_.block_cache = nullptr;  // every block is read once
  table_cache_ = std::make_unique<TableCache>(
      dbname_, env_, EnvOptions(), table_options_, kTableCacheEntries);
}

Repairer::~Repairer() {
  table_cache_.reset();  // closes the tables before the lock goes
  if (db_lock_ != nullptr) {
    env_->UnlockFile(std::move(db_lock_)).IgnoreError();  // nothing to do
  }
}

TableOptions Repairer::TableOptionsForOutput() const {
  TableOptions t = table_options_;
  // Repair output is either L0 files or the whole data on the last level.
  t.compression = CompressionForLevel(options_, output_level_,
                                      output_level_ == options_.num_levels - 1);
  t.creation_time = env_->NowWallSeconds();
  return t;
}

Status Repairer::Start() {
  Status s = ValidateOptions(options_);
  if (!s.ok()) return s;
  s = env_->FileExists(dbname_);
  if (s.IsNotFound()) {
    return Status::NotFound(dbname_, "cannot repair: no such directory");
  }
  if (!s.ok()) return s;
  // Look before taking the LOCK, so repairing a directory that is not a
  // database leaves it as it was.
  std::vector<std::string> children;
  s = env_->GetChildren(dbname_, &children);
  if (!s.ok()) return s;
  bool any = false;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (ParseFileName(child, &number, &type) &&
        (type == FileType::kManifestFile || type == FileType::kTableFile ||
         type == FileType::kWalFile)) {
      any = true;
    }
  }
  if (!any) {
    return Status::NotFound(
        dbname_, "cannot repair: no MANIFEST, SST or WAL files in it");
  }

  s = env_->LockFile(LockFileName(dbname_), &db_lock_);
  if (!s.ok()) return s;
  info_log_ = options_.info_log;
  if (info_log_ == nullptr) {
    env_->RenameFile(InfoLogFileName(dbname_), OldInfoLogFileName(dbname_))
        .IgnoreError();  // there may be no LOG yet
    std::shared_ptr<Logger> logger;
    if (env_->NewLogger(InfoLogFileName(dbname_), &logger).ok()) {
      info_log_ = logger;
    }
  }
  if (report_ != nullptr) {
    info_log_ = std::make_shared<TeeLogger>(info_log_, report_);
  }
  Log(info_log_.get(), "Repairing database %s", dbname_.c_str());
  return Status::OK();
}

Status Repairer::Run() {
  Status s = Start();
  if (!s.ok()) return s;
  s = FindFiles();
  if (!s.ok()) return s;
  ConvertLogFilesToTables();
  ExtractMetaData();
  output_level_ = 0;
  if (NeedsRewrite()) {
    s = RewriteTables();
    if (!s.ok()) {
      Log(InfoLogLevel::kError, info_log_.get(),
          "Repair failed rewriting the tables: %s", s.ToString().c_str());
      return s;
    }
  }
  s = WriteDescriptor();
  if (!s.ok()) {
    Log(InfoLogLevel::kError, info_log_.get(),
        "Repair failed writing the MANIFEST: %s", s.ToString().c_str());
    return s;
  }
  for (uint64_t number : replaced_tables_) {
    table_cache_->Evict(number);
    // The new run holds every entry: the old table is garbage now. A
    // failure leaves an orphan, which the next DB::Open deletes.
    env_->RemoveFile(TableFileName(dbname_, number)).IgnoreError();
  }
  uint64_t bytes = 0, entries = 0;
  for (const TableInfo& t : tables_) {
    bytes += t.meta.file_size;
    entries += t.entries;
  }
  Log(info_log_.get(),
      "Repair done: kept %zu tables at level %d (%" PRIu64 " entries, %" PRIu64
      " bytes), %d tables moved to lost/, %zu WALs converted, last sequence "
      "%" PRIu64,
      tables_.size(), output_level_, entries, bytes, lost_tables_, logs_.size(),
      max_sequence_);
  return Status::OK();
}

Status Repairer::FindFiles() {
  std::vector<std::string> children;
  Status s = env_->GetChildren(dbname_, &children);
  if (!s.ok()) return s;
  std::sort(children.begin(), children.end());
  uint64_t max_number = 0;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(child, &number, &type)) continue;
    max_number = std::max(max_number, number);
    switch (type) {
      case FileType::kManifestFile:
        manifests_.push_back(child);
        break;
      case FileType::kTableFile:
        table_numbers_.push_back(number);
        break;
      case FileType::kWalFile:
        logs_.push_back(number);
        break;
      default:
        break;
    }
  }
  std::sort(table_numbers_.begin(), table_numbers_.end());
  std::sort(logs_.begin(), logs_.end());
  next_file_number_ = max_number + 1;
  Log(info_log_.get(), "Found %zu MANIFESTs, %zu tables, %zu WALs",
      manifests_.size(), table_numbers_.size(), logs_.size());
  return Status::OK();
}

void Repairer::ConvertLogFilesToTables() {
  for (uint64_t log_number : logs_) {
    const std::string fname = WalFileName(dbname_, log_number);
    Status s = ConvertLogToTable(log_number);
    if (!s.ok()) {
      Log(InfoLogLevel::kWarn, info_log_.get(),
          "%s: conversion failed, its entries are lost: %s",
          BaseName(fname).c_str(), s.ToString().c_str());
    }
    // Its entries are in a table now (or cannot be read): keep the WAL in
    // lost/ so that the next open does not replay it again.
    ArchiveFile(fname, s.ok() ? "converted to a table" : "not converted");
  }
}

Status Repairer::ConvertLogToTable(uint64_t log_number) {
  const std::string fname = WalFileName(dbname_, log_number);
  std::unique_ptr<SequentialFile> file;
  Status s = env_->NewSequentialFile(fname, &file, EnvOptions());
  if (!s.ok()) return s;
  LogReporter reporter;
  reporter.info_log = info_log_.get();
  reporter.fname = BaseName(fname);
  // Reads on past damage: the reader resynchronizes at the next block.
  log::Reader reader(file.get(), &reporter, /*checksum=*/true, 0, log_number);

  MemTable* mem = new MemTable(
      icmp_, MemTable::ArenaBlockSizeFor(options_.write_buffer_size),
      /*bloom_bits=*/0, options_.memtable_rep);
  std::string scratch;
  Slice record;
  WriteBatch batch;
  uint64_t batches = 0;
  int bad_batches = 0;
  while (reader.ReadRecord(&record, &scratch)) {
    Status bs;
    if (record.size() < WriteBatchInternal::kHeaderSize) {
      bs = Status::Corruption("record too small to be a write batch");
    } else {
      bs = WriteBatchInternal::SetContents(&batch, record);
      // All or nothing: a damaged batch inserts none of its records.
      if (bs.ok()) bs = WriteBatchInternal::InsertInto(&batch, mem);
    }
    if (!bs.ok()) {
      ++bad_batches;
      Log(InfoLogLevel::kWarn, info_log_.get(),
          "%s: skipping the record at offset %" PRIu64 ": %s",
          reporter.fname.c_str(), reader.LastRecordOffset(),
          bs.ToString().c_str());
      continue;
    }
    ++batches;
    const uint32_t count = WriteBatchInternal::Count(&batch);
    if (count > 0) {
      max_sequence_ = std::max(
          max_sequence_, WriteBatchInternal::Sequence(&batch) + count - 1);
    }
  }

  FileMetaData meta;
  const uint64_t number = next_file_number_++;
  FlushJob job(dbname_, env_, EnvOptions(), /*rate_limiter=*/nullptr,
               TableOptionsForOutput(), icmp_.user_comparator(), mem,
               /*snapshots=*/{}, number);
  s = job.Run(&meta);
  const uint64_t entries = mem->NumEntries();
  mem->Unref();
  if (!s.ok()) return s;
  if (meta.file_size > 0) {
    table_numbers_.push_back(number);
    Log(info_log_.get(),
        "%s: %" PRIu64 " batches (%" PRIu64
        " entries) saved to %s; %d damaged records skipped, %" PRIu64
        " bytes dropped",
        reporter.fname.c_str(), batches, entries,
        TableFileBaseName(number).c_str(), bad_batches + reporter.problems,
        reporter.dropped_bytes);
  } else {
    Log(info_log_.get(),
        "%s: no entries to save; %d damaged records skipped, %" PRIu64
        " bytes dropped",
        reporter.fname.c_str(), bad_batches + reporter.problems,
        reporter.dropped_bytes);
  }
  return Status::OK();
}

void Repairer::ExtractMetaData() {
  for (uint64_t number : table_numbers_) {
    TableInfo info;
    Status s = ScanTable(number, &info);
    if (!s.ok()) {
      table_cache_->Evict(number);
      ++lost_tables_;
      ArchiveFile(TableFileName(dbname_, number), s.ToString());
      continue;
    }
    max_sequence_ = std::max(max_sequence_, info.meta.largest_seqno);
    Log(info_log_.get(),
        "%s: kept, %" PRIu64 " entries, %" PRIu64 " bytes, sequences [%" PRIu64
        ", %" PRIu64 "]",
        TableFileBaseName(number).c_str(), info.entries, info.meta.file_size,
        info.meta.smallest_seqno, info.meta.largest_seqno);
    tables_.push_back(std::move(info));
  }
}

Status Repairer::ScanTable(uint64_t number, TableInfo* info) {
  FileMetaData& meta = info->meta;
  meta.number = number;
  Status s = env_->GetFileSize(TableFileName(dbname_, number), &meta.file_size);
  if (!s.ok()) return s;
  ReadOptions read_options;
  read_options.verify_checksums = true;
  read_options.fill_cache = false;
  std::unique_ptr<Iterator> it(table_cache_->NewIterator(
      read_options, number, meta.file_size, nullptr, /*for_compaction=*/true));
  std::string last;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const Slice key = it->key();
    ParsedInternalKey ikey;
    s = ParseInternalKey(key, &ikey);
    if (!s.ok()) {
      return s.WithContext(TableFileBaseName(number) + ": entry " +
                           std::to_string(info->entries));
    }
    if (info->entries > 0 && icmp_.Compare(Slice(last), key) >= 0) {
      return Status::Corruption(
          TableFileBaseName(number),
          "keys out of order at entry " + std::to_string(info->entries));
    }
    if (info->entries == 0) meta.smallest.DecodeFrom(key);
    last.assign(key.data(), key.size());
    meta.smallest_seqno = std::min(meta.smallest_seqno, ikey.sequence);
    meta.largest_seqno = std::max(meta.largest_seqno, ikey.sequence);
    ++info->entries;
  }
  s = it->status();
  if (!s.ok()) return s;
  if (info->entries == 0) {
    return Status::Corruption(TableFileBaseName(number), "holds no entries");
  }
  meta.largest.DecodeFrom(last);
  return Status::OK();
}

bool Repairer::NeedsRewrite() const {
  const Comparator* ucmp = icmp_.user_comparator();
  for (size_t i = 0; i < tables_.size(); ++i) {
    const FileMetaData& a = tables_[i].meta;
    for (size_t j = i + 1; j < tables_.size(); ++j) {
      const FileMetaData& b = tables_[j].meta;
      const bool keys_overlap =
          ucmp->Compare(a.smallest.user_key(), b.largest.user_key()) <= 0 &&
          ucmp->Compare(b.smallest.user_key(), a.largest.user_key()) <= 0;
      const bool seqs_overlap = a.smallest_seqno <= b.largest_seqno &&
                                b.smallest_seqno <= a.largest_seqno;
      if (keys_overlap && seqs_overlap) {
        Log(info_log_.get(),
            "%s and %s overlap in keys and in sequence numbers: level 0 "
            "could return older versions, so every table is rewritten into "
            "one sorted run",
            TableFileBaseName(a.number).c_str(),
            TableFileBaseName(b.number).c_str());
        return true;
      }
    }
  }
  return false;
}

Status Repairer::RewriteTables() {
  output_level_ = options_.num_levels - 1;
  ReadOptions read_options;
  read_options.verify_checksums = true;
  read_options.fill_cache = false;
  std::vector<Iterator*> children;
  for (const TableInfo& t : tables_) {
    children.push_back(table_cache_->NewIterator(read_options, t.meta.number,
                                                 t.meta.file_size, nullptr,
                                                 /*for_compaction=*/true));
  }
  std::unique_ptr<Iterator> it(NewMergingIterator(
      &icmp_, children.data(), static_cast<int>(children.size())));
  // Every table takes part, so nothing older can hide under a deletion
  // that every reader sees: such deletions go too.
  ObsoleteEntryFilter filter(icmp_.user_comparator(), {});
  const TableOptions table_options = TableOptionsForOutput();
  std::vector<TableInfo> outputs;
  std::unique_ptr<TableFileWriter> writer;
  std::string last_user_key;
  uint64_t dropped = 0;
  Status s;
  auto finish = [&]() -> Status {
    TableInfo info;
    info.entries = writer->NumEntries();
    Status fs = writer->Finish(&info.meta);
    writer.reset();
    if (fs.ok()) outputs.push_back(std::move(info));
    return fs;
  };
  for (it->SeekToFirst(); it->Valid() && s.ok(); it->Next()) {
    ParsedInternalKey ikey;
    s = ParseInternalKey(it->key(), &ikey);
    if (!s.ok()) break;
    if (filter.ShouldDrop(ikey, [](const Slice&) { return true; })) {
      ++dropped;
      continue;
    }
    // Cut files only between user keys.
    if (writer != nullptr &&
        writer->FileSize() >= options_.target_file_size_base &&
        icmp_.user_comparator()->Compare(ikey.user_key, last_user_key) != 0) {
      s = finish();
      if (!s.ok()) break;
    }
    if (writer == nullptr) {
      writer = std::make_unique<TableFileWriter>(
          env_, EnvOptions(), nullptr, RateLimiter::IOPriority::kHigh);
      s = writer->Open(dbname_, next_file_number_++, table_options);
      if (!s.ok()) break;
    }
    writer->Add(it->key(), it->value());
    last_user_key.assign(ikey.user_key.data(), ikey.user_key.size());
  }
  if (s.ok()) s = it->status();
  if (s.ok() && writer != nullptr) s = finish();
  if (!s.ok()) {
    if (writer != nullptr) writer->Abandon();
    for (const TableInfo& t : outputs) {
      env_->RemoveFile(TableFileName(dbname_, t.meta.number)).IgnoreError();
    }
    output_level_ = 0;
    return s;
  }
  for (const TableInfo& t : tables_) replaced_tables_.push_back(t.meta.number);
  Log(info_log_.get(),
      "Rewrote %zu tables into %zu at level %d (%" PRIu64
      " hidden entries dropped)",
      tables_.size(), outputs.size(), output_level_, dropped);
  tables_ = std::move(outputs);
  return Status::OK();
}

Status Repairer::WriteDescriptor() {
  const uint64_t manifest_number = next_file_number_++;
  VersionEdit edit;
  edit.SetComparatorName(icmp_.user_comparator()->Name());
  edit.SetLogNumber(0);  // every WAL was converted and moved away
  edit.SetNextFile(next_file_number_);
  edit.SetLastSequence(max_sequence_);
  for (const TableInfo& t : tables_) edit.AddFile(output_level_, t.meta);

  const std::string manifest = ManifestFileName(dbname_, manifest_number);
  std::unique_ptr<WritableFile> file;
  Status s = env_->NewWritableFile(manifest, &file, EnvOptions());
  if (!s.ok()) return s;
  {
    log::Writer writer(file.get());
    std::string record;
    edit.EncodeTo(&record);
    s = writer.AddRecord(record);
    if (s.ok()) s = file->Sync();
    Status close = file->Close();
    if (s.ok()) s = close;
  }
  if (s.ok()) s = SetCurrentFile(env_, dbname_, manifest_number);
  if (!s.ok()) {
    env_->RemoveFile(manifest).IgnoreError();  // CURRENT does not name it
    return s;
  }
  Log(info_log_.get(),
      "Wrote %s: %zu tables, next file %" PRIu64 ", last sequence %" PRIu64,
      BaseName(manifest).c_str(), tables_.size(), next_file_number_,
      max_sequence_);
  // CURRENT names the new MANIFEST: the old ones are history.
  for (const std::string& old : manifests_) {
    ArchiveFile(dbname_ + "/" + old, "replaced by " + BaseName(manifest));
  }
  return Status::OK();
}

void Repairer::ArchiveFile(const std::string& fname, const std::string& why) {
  // lost/ sits next to the files; a file already there is replaced.
  const std::string lost_dir = dbname_ + "/lost";
  Status s = env_->CreateDirIfMissing(lost_dir);
  const std::string target = lost_dir + "/" + BaseName(fname);
  if (s.ok()) s = env_->RenameFile(fname, target);
  if (s.ok()) s = env_->SyncDir(dbname_);
  Log(s.ok() ? InfoLogLevel::kInfo : InfoLogLevel::kWarn, info_log_.get(),
      "%s: moved to lost/ (%s)%s%s", BaseName(fname).c_str(), why.c_str(),
      s.ok() ? "" : ": ", s.ok() ? "" : s.ToString().c_str());
}

// ---------------------------------------------------------------- RepairDB

Status RepairDB(const std::string& dbname, const Options& options) {
  Repairer repairer(dbname, options);
  return repairer.Run();
}

}  // namespace cascadedb

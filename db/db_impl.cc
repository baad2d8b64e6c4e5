// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/db_impl.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <exception>
#include <memory>
#include <utility>

#include "cascadedb/cache.h"
#include "cascadedb/comparator.h"
#include "cascadedb/perf_context.h"
#include "cascadedb/statistics.h"
#include "db/compaction.h"
#include "db/compaction_job.h"
#include "db/compaction_picker.h"
#include "db/db_iter.h"
#include "db/filename.h"
#include "db/flush_job.h"
#include "db/log_format.h"
#include "db/log_reader.h"
#include "db/memtable.h"
#include "db/table_cache.h"
#include "db/version_edit.h"
#include "db/version_set.h"
#include "db/write_batch_internal.h"
#include "table/merging_iterator.h"
#include "util/coding.h"
#include "util/perf_context_imp.h"
#include "util/thread_pool.h"

namespace cascadedb {

namespace {

// Group commit stops adding writers past this many bytes.
constexpr size_t kMaxBatchGroupBytes = 1 << 20;

}  // namespace

// One queued write. The leader of a group fills in status and done for
// every member.
struct DBImpl::Writer {
  explicit Writer(Mutex* mu) : cv(mu) {}

  WriteBatch* batch = nullptr;
  bool sync = false;
  bool disable_wal = false;
  bool no_slowdown = false;
  bool done = false;
  Status status;
  CondVar cv;
  // Parallel memtable insert (allow_concurrent_memtable_write): the leader
  // sets insert_into and wakes the member, which inserts its own batch,
  // stores the result in insert_status and decrements *pending_inserts.
  MemTable* insert_into = nullptr;
  Status insert_status;
  int* pending_inserts = nullptr;
  Writer* leader = nullptr;
};

class DBImpl::SnapshotImpl : public Snapshot {
 public:
  explicit SnapshotImpl(SequenceNumber seq) : sequence_(seq) {}
  uint64_t GetSequenceNumber() const override { return sequence_; }

 private:
  friend class DBImpl;
  ~SnapshotImpl() override = default;
  const SequenceNumber sequence_;
};

// Collects what the log reader drops while a WAL is replayed.
struct DBImpl::LogReporter : public log::Reader::Reporter {
  std::string fname;
  Status corruption;  // first damage followed by valid data
  Status torn_tail;   // damage at the end of the file
  uint64_t dropped_bytes = 0;

  void Corruption(size_t bytes, const Status& s) override {
    dropped_bytes += bytes;
    if (corruption.ok()) {
      corruption = s.IsCorruption() ? Status::Corruption("log " + fname,
                                                         s.message())
                                    : s;  // an I/O error stays one
    }
  }
  void TornTail(size_t bytes, const Status& s) override {
    dropped_bytes += bytes;
    torn_tail = Status::Corruption("log " + fname, s.message());
  }
};

// ---------------------------------------------------------------- DB

Status DB::Open(const Options& options, const std::string& name, DB** dbptr) {
  *dbptr = nullptr;
  std::unique_ptr<DB> db;
  Status s = Open(options, name, &db);
  if (s.ok()) *dbptr = db.release();
  return s;
}

Status DB::Open(const Options& options, const std::string& name,
                std::unique_ptr<DB>* dbptr) {
  dbptr->reset();
  Status s = ValidateOptions(options);
  if (!s.ok()) return s;
  auto impl = std::make_unique<DBImpl>(options, name, /*read_only=*/false);
  s = impl->Open();
  if (s.ok()) *dbptr = std::move(impl);
  return s;
}

Status DB::OpenForReadOnly(const Options& options, const std::string& name,
                           std::unique_ptr<DB>* dbptr) {
  dbptr->reset();
  Status s = ValidateOptions(options);
  if (!s.ok()) return s;
  auto impl = std::make_unique<DBImpl>(options, name, /*read_only=*/true);
  s = impl->Open();
  if (s.ok()) *dbptr = std::move(impl);
  return s;
}

// ---------------------------------------------------------------- DBImpl

DBImpl::DBImpl(const Options& options, const std::string& dbname,
               bool read_only)
    : options_(options),
      stats_(options.statistics.get()),
      dbname_(dbname),
      read_only_(read_only),
      env_(options.env),
      icmp_(options.comparator),
      bg_cv_(&mutex_),
      // A recycled WAL's last record may be followed by an older log's
      // bytes, which look like a torn write: absolute consistency could
      // not open it.
      recycle_log_file_num_(options.wal_recovery_mode ==
                                    WALRecoveryMode::kAbsoluteConsistency
                                ? 0
                                : options.recycle_log_file_num),
      write_controller_(options, options.env),
      internal_stats_(options.num_levels, options.env),
      stats_cv_(&stats_mu_) {
  if (!read_only_ && options_.recycle_table_bytes > 0) {
    table_recycler_ = std::make_unique<TableFileRecycler>(
        env_, dbname_, options_.recycle_table_bytes);
  }
  available_cpus_ = AvailableCpus();
  cpus_scarce_ = available_cpus_ < options_.max_background_compactions +
                                       options_.max_background_flushes + 1;
  if (options_.filter_policy == nullptr && options_.bloom_bits_per_key > 0) {
    owned_filter_policy_ = NewBloomFilterPolicy(options_.bloom_bits_per_key);
  }
  block_cache_ = options_.block_cache;
  if (block_cache_ == nullptr && options_.block_cache_size > 0) {
    block_cache_ = NewLRUCache(options_.block_cache_size);
  }
  // A flushed memtable's blocks wait here for the one filling, and the
  // writers' helper keeps kArenaBlocksAhead blocks prepared beyond them,
  // so the writer faults in no fresh block. The capacity holds a memtable
  // and twice the prepared blocks. With less, blocks prepared while a
  // flush runs are freed when its memtable's come back, and prepared
  // again in the next cycle: with room for one block more than a
  // memtable's and the prepared ones, a matched 2M-key fillrandom and
  // overwrite (4 MiB buffers, 512 KiB blocks) prepared 73 blocks; with
  // this, 20, all in the first two memtables.
  constexpr size_t kArenaBlocksAhead = 4;
  const size_t arena_block =
      MemTable::ArenaBlockSizeFor(options_.write_buffer_size);
  arena_pool_ = std::make_shared<ArenaBlockPool>(
      arena_block,
      options_.write_buffer_size + 2 * kArenaBlocksAhead * arena_block,
      kArenaBlocksAhead);
  wal_env_options_.writable_file_max_buffer_size =
      options_.writable_file_max_buffer_size;
  wal_env_options_.bytes_per_sync = options_.wal_bytes_per_sync;
  sst_env_options_ = wal_env_options_;
  sst_env_options_.bytes_per_sync = options_.bytes_per_sync;
  sst_env_options_.use_direct_reads = options_.use_direct_reads;
  sst_env_options_.use_mmap_reads = options_.allow_mmap_reads;
  wal_env_options_.use_mmap_writes = options_.allow_mmap_writes;
  // A WAL written again (recycled) through the mappings of its last use
  // takes no page fault (docs/design/20261127-parked-wal-mappings.md): a
  // WAL, at most about a memtable's worth, stays mapped whole, and the park
  // holds every closed WAL that may be written again, the immutable
  // memtables' and the recycled ones. With 64 MiB memtables, keeping 16 MiB
  // had the writers' helper fault the other ~44 MiB of each recycled WAL
  // in again (0.75 s of CPU in 1M 1 KiB writes), and the writer the pages
  // it reached first.
  wal_env_options_.mmap_kept_bytes =
      std::max(wal_env_options_.mmap_kept_bytes, options_.write_buffer_size);
  const size_t parked_wals =
      static_cast<size_t>(options_.max_write_buffer_number - 1) +
      recycle_log_file_num_;
  // A WAL's mapping: about a memtable, and the region written last.
  const size_t wal_mapped_bytes =
      options_.write_buffer_size + EnvOptions::kMaxMmapRegion;
  wal_env_options_.mmap_parked_bytes = std::max(
      wal_env_options_.mmap_parked_bytes, parked_wals * wal_mapped_bytes);
  sst_env_options_.use_direct_writes =
      options_.use_direct_io_for_flush_and_compaction;

  table_options_.comparator = &icmp_;
  table_options_.key_format = InternalKeyFormat::Get();
  table_options_.user_keys_bytewise =
      options_.comparator == BytewiseComparator();
  table_options_.filter_policy = options_.filter_policy != nullptr
                                     ? options_.filter_policy.get()
                                     : owned_filter_policy_.get();
  table_options_.block_size = options_.block_size;
  table_options_.block_restart_interval = options_.block_restart_interval;
  table_options_.compression = options_.compression;
  table_options_.compression_level = options_.compression_opts.level;
  table_options_.value_compression_min_size =
      options_.value_compression_min_size;
  table_options_.block_cache = block_cache_.get();
  table_options_.cache_index_and_filter_blocks =
      options_.cache_index_and_filter_blocks;
  if (block_cache_ != nullptr && options_.block_cache_admit_on_second_miss) {
    block_admission_ = std::make_unique<BlockAdmission>(
        block_cache_->GetCapacity(), options_.block_size);
    table_options_.block_admission = block_admission_.get();
  }
  table_options_.long_scan_blocks = options_.long_scan_blocks;
  table_options_.readahead_size = options_.compaction_readahead_size;
  table_options_.statistics = stats_;
  if (options_.stalled_writers_compress && !read_only_) {
    compression_queue_ = std::make_unique<CompressionQueue>();
    table_options_.compression_queue = compression_queue_.get();
  }

  const int table_cache_size = options_.max_open_files == -1
                                   ? TableCache::kAllTables
                                   : options_.max_open_files - 10;
  table_cache_ = std::make_unique<TableCache>(dbname_, env_, sst_env_options_,
                                              table_options_, table_cache_size);
  versions_ = std::make_unique<VersionSet>(dbname_, &options_, sst_env_options_,
                                           table_cache_.get(), &icmp_);
}

DBImpl::~DBImpl() {
  Close().IgnoreError();  // errors were already recorded as bg_error_
}

Status DBImpl::Close() {
  if (stats_thread_.joinable()) {
    {
      MutexLock l(&stats_mu_);
      stats_thread_stop_ = true;
      stats_cv_.SignalAll();
    }
    stats_thread_.join();
  }
  Status s = CloseLocked();
  DeliverEvents();
  return s;
}

Status DBImpl::CloseLocked() {
  MutexLock l(&mutex_);
  if (closed_) return bg_error_;
  closed_ = true;
  shutting_down_.store(true, std::memory_order_release);
  while (HasBackgroundWork() || manual_compactions_ > 0) bg_cv_.Wait();
  DropPreparedWal();
  // The files handed to the deleter go before the DB lock is released, and
  // so do the WALs kept for recycling (obsolete: the next Open would delete
  // them).
  std::deque<std::string> recycled;
  recycled.swap(recycled_logs_);
  mutex_.Unlock();
  WaitForDeletions();
  for (const std::string& name : recycled) DeleteObsoleteFile(name);
  if (table_recycler_ != nullptr) {
    for (const std::string& path : table_recycler_->Close()) {
      DeleteObsoleteFile(BaseName(path));
    }
  }
  mutex_.Lock();
  Status s = bg_error_;
  for (PendingLog& old : logs_to_sync_) {
    Status sync = old.file->Sync();
    if (sync.ok()) sync = old.file->Close();
    if (s.ok()) s = sync;
  }
  logs_to_sync_.clear();
  if (logfile_ != nullptr) {
    Status sync = logfile_->Sync();
    if (sync.ok() && log_dir_sync_needed_) sync = env_->SyncDir(dbname_);
    if (sync.ok()) sync = logfile_->Close();
    if (s.ok()) s = sync;
  }
  log_.reset();
  logfile_.reset();
  if (mem_ != nullptr) mem_->Unref();
  mem_ = nullptr;
  for (const ImmutableMemTable& m : imm_) m.mem->Unref();
  imm_.clear();
  versions_.reset();
  if (db_lock_ != nullptr) {
    Status unlock = env_->UnlockFile(std::move(db_lock_));
    if (s.ok()) s = unlock;
  }
  Log(info_log_.get(), "DB closed");
  return s;
}

bool DBImpl::HasBackgroundWork() const {
  return bg_flush_scheduled_ || bg_compactions_scheduled_ > 0;
}

// ---------------------------------------------------------------- open

Status DBImpl::Open() {
  open_micros_ = env_->NowMicros();
  if (!read_only_) {
    Status s = env_->CreateDirIfMissing(dbname_);
    if (!s.ok()) return s;
    s = env_->LockFile(LockFileName(dbname_), &db_lock_);
    if (!s.ok()) return s;
    info_log_ = options_.info_log;
    if (info_log_ == nullptr) {
      // Keep the previous run's LOG as LOG.old, like LevelDB.
      env_->RenameFile(InfoLogFileName(dbname_), OldInfoLogFileName(dbname_))
          .IgnoreError();  // absent on a new DB
      std::shared_ptr<Logger> logger;
      if (env_->NewLogger(InfoLogFileName(dbname_), &logger).ok()) {
        info_log_ = logger;
      }
    }
  } else {
    info_log_ = options_.info_log;  // never create files when read-only
  }

  if (!read_only_) {
    // The pools are shared by every DB on the Env: only ever grow them.
    if (env_->GetBackgroundThreads(Env::Priority::kHigh) <
        options_.max_background_flushes) {
      env_->SetBackgroundThreads(options_.max_background_flushes,
                                 Env::Priority::kHigh);
    }
    if (env_->GetBackgroundThreads(Env::Priority::kLow) <
        options_.max_background_compactions) {
      env_->SetBackgroundThreads(options_.max_background_compactions,
                                 Env::Priority::kLow);
    }
  }

  MutexLock l(&mutex_);
  VersionEdit edit;
  Status s = Recover(&edit);
  if (!s.ok()) return s;
  if (read_only_) return s;

  s = NewLogFile();
  if (s.ok()) s = SyncLogDir();
  if (!s.ok()) return s;
  edit.SetLogNumber(logfile_number_);
  s = versions_->LogAndApply(&edit, &mutex_);
  for (const auto& f : edit.new_files())
    pending_outputs_.erase(f.second.number);
  if (!s.ok()) return s;
  RemoveObsoleteFiles();
  // A new DB starts without the garbage of the last run (orphan tables,
  // old WALs): wait for it to go, as an inline delete did.
  mutex_.Unlock();
  WaitForDeletions();
  mutex_.Lock();
  UpdateWriteController();
  MaybeScheduleCompaction();
  PrepareNextWal();
  Log(info_log_.get(), "DB opened: %s", versions_->LevelSummary().c_str());
  if (options_.stats_dump_period_sec > 0) {
    stats_thread_ = std::thread([this] { StatsDumpLoop(); });
  }
  return Status::OK();
}

void DBImpl::StatsDumpLoop() {
  const uint64_t period =
      static_cast<uint64_t>(options_.stats_dump_period_sec) * 1000000;
  MutexLock l(&stats_mu_);
  while (!stats_thread_stop_) {
    stats_cv_.WaitFor(period);
    if (stats_thread_stop_) break;
    stats_mu_.Unlock();
    std::string stats;
    if (GetProperty("cascadedb.stats", &stats)) {
      Log(info_log_.get(), "------- DUMPING STATS -------\n%s", stats.c_str());
    }
    stats_mu_.Lock();
  }
}

MemTable* DBImpl::NewMemTable() const {
  // A read-only DB's memtable holds only what recovery replayed, and no
  // writes follow: it takes no blocks from the pool (which would prepare
  // more ahead of them) and its blocks are freed with it.
  return new MemTable(icmp_,
                      MemTable::ArenaBlockSizeFor(options_.write_buffer_size),
                      MemTable::BloomBitsFor(options_), options_.memtable_rep,
                      read_only_ ? nullptr : arena_pool_);
}

Status DBImpl::NewDB() {
  VersionEdit edit;
  edit.SetComparatorName(icmp_.user_comparator()->Name());
  edit.SetLogNumber(0);
  edit.SetNextFile(2);
  edit.SetLastSequence(0);
  const uint64_t manifest_number = 1;
  const std::string manifest = ManifestFileName(dbname_, manifest_number);
  std::unique_ptr<WritableFile> file;
  Status s = env_->NewWritableFile(manifest, &file, wal_env_options_);
  if (!s.ok()) return s;
  {
    log::Writer writer(file.get());
    std::string record;
    edit.EncodeTo(&record);
    s = writer.AddRecord(record);
    if (s.ok()) s = file->Sync();
    if (s.ok()) s = file->Close();
  }
  if (s.ok()) s = SetCurrentFile(env_, dbname_, manifest_number);
  if (!s.ok()) env_->RemoveFile(manifest).IgnoreError();  // best effort
  return s;
}

Status DBImpl::Recover(VersionEdit* edit) {
  mutex_.AssertHeld();
  Status s = env_->FileExists(CurrentFileName(dbname_));
  if (s.IsNotFound()) {
    if (read_only_ || !options_.create_if_missing) {
      return Status::InvalidArgument(
          dbname_,
          "does not exist (no CURRENT file; create_if_missing is "
          "false)");
    }
    s = NewDB();
    if (!s.ok()) return s;
    Log(info_log_.get(), "Created new database %s", dbname_.c_str());
  } else if (!s.ok()) {
    return s;
  } else if (options_.error_if_exists) {
    return Status::InvalidArgument(dbname_, "exists (error_if_exists is true)");
  }

  bool save_manifest = false;
  s = versions_->Recover(&save_manifest);
  if (!s.ok()) return s;

  std::vector<std::string> children;
  s = env_->GetChildren(dbname_, &children);
  if (!s.ok()) return s;
  s = CheckLiveFiles(children);
  if (!s.ok()) return s;

  // Replay the WALs at or after the MANIFEST's log number, oldest first.
  const uint64_t min_log = versions_->LogNumber();
  std::vector<uint64_t> logs;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (ParseFileName(child, &number, &type)) {
      versions_->MarkFileNumberUsed(number);
      if (type == FileType::kWalFile && number >= min_log) {
        logs.push_back(number);
      }
    }
  }
  std::sort(logs.begin(), logs.end());
  // The newest WAL with data is the only one a crash can have cut short.
  // WALs after it without a record (a crash right after a WAL switch or
  // during recovery: empty, or only the zeros an mmap WAL reserves) do not
  // count.
  size_t newest_with_data = 0;
  for (size_t i = 0; i < logs.size(); ++i) {
    if (WalMayHoldRecords(logs[i])) newest_with_data = i;
  }
  SequenceNumber max_sequence = versions_->LastSequence();
  bool stop_replay = false;
  for (size_t i = 0; i < logs.size() && s.ok() && !stop_replay; ++i) {
    s = RecoverLogFile(logs[i], i >= newest_with_data, edit, &max_sequence,
                       &stop_replay);
  }
  if (!s.ok()) return s;
  if (versions_->LastSequence() < max_sequence) {
    versions_->SetLastSequence(max_sequence);
  }
  if (mem_ == nullptr) {
    mem_ = NewMemTable();
  }
  return Status::OK();
}

Status DBImpl::CheckLiveFiles(const std::vector<std::string>& children) {
  std::set<uint64_t> on_disk_tables;
  std::set<uint64_t> on_disk_logs;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(child, &number, &type)) continue;
    if (type == FileType::kTableFile) on_disk_tables.insert(number);
    if (type == FileType::kWalFile) on_disk_logs.insert(number);
  }
  std::string missing;
  std::set<uint64_t> live;
  versions_->AddLiveFiles(&live);
  for (uint64_t number : live) {
    if (on_disk_tables.count(number) == 0) {
      if (!missing.empty()) missing.append(", ");
      missing.append(TableFileBaseName(number));
    }
  }
  const uint64_t log_number = versions_->LogNumber();
  if (log_number != 0 && on_disk_logs.count(log_number) == 0) {
    if (!missing.empty()) missing.append(", ");
    missing.append(WalFileName("", log_number).substr(1));
  }
  if (missing.empty()) return Status::OK();
  const std::string what =
      "files named by the MANIFEST are missing: " + missing +
      " (the MANIFEST may have lost its tail; RepairDB rebuilds it from the "
      "files on disk)";
  if (options_.paranoid_checks) return Status::Corruption(dbname_, what);
  Log(InfoLogLevel::kWarn, info_log_.get(), "%s", what.c_str());
  return Status::OK();
}

bool DBImpl::WalMayHoldRecords(uint64_t number) {
  // The writer starts at offset 0 and never leaves a gap, so a WAL whose
  // first record header is all zeros (or missing) holds no record, and
  // neither does one whose first record is another log's: a recycled file
  // taken for this log (a prepared next WAL, PrepareNextWal) and
  // never written.
  std::unique_ptr<SequentialFile> file;
  if (!env_->NewSequentialFile(WalFileName(dbname_, number), &file,
                               EnvOptions())
           .ok()) {
    return true;  // unreadable: let replay report it
  }
  char scratch[log::kRecyclableHeaderSize];
  Slice header;
  if (!file->Read(sizeof(scratch), &header, scratch).ok()) return true;
  bool zeros = true;
  for (size_t i = 0; i < std::min(header.size(), log::kHeaderSize); ++i) {
    if (header[i] != 0) zeros = false;
  }
  if (zeros) return false;
  // Shorter than a recyclable header: let replay read what there is.
  if (header.size() < log::kRecyclableHeaderSize) return true;
  const auto type = static_cast<unsigned char>(header[log::kHeaderSize - 1]);
  return !log::IsRecyclableType(type) ||
         DecodeFixed32(header.data() + log::kHeaderSize) ==
             static_cast<uint32_t>(number);
}

Status DBImpl::RecoverLogFile(uint64_t log_number, bool last_log,
                              VersionEdit* edit, SequenceNumber* max_sequence,
                              bool* stop_replay) {
  mutex_.AssertHeld();
  const std::string fname = WalFileName(dbname_, log_number);
  std::unique_ptr<SequentialFile> file;
  Status s = env_->NewSequentialFile(fname, &file, wal_env_options_);
  if (!s.ok()) return s;
  LogReporter reporter;
  reporter.fname = fname;
  log::Reader reader(file.get(), &reporter, /*checksum=*/true, 0, log_number);
  const WALRecoveryMode mode = options_.wal_recovery_mode;
  Log(info_log_.get(), "Recovering log %s (%s)", fname.c_str(),
      WALRecoveryModeName(mode));

  std::string scratch;
  Slice record;
  WriteBatch batch;
  uint64_t records = 0;
  while (reader.ReadRecord(&record, &scratch)) {
    if (!reporter.corruption.ok() &&
        mode != WALRecoveryMode::kSkipAnyCorruptedRecords) {
      break;  // damage before this record: the switch below decides
    }
    Status bs;
    if (record.size() < WriteBatchInternal::kHeaderSize) {
      bs = Status::Corruption(
          "log " + fname, "record too small to be a write batch at offset " +
                              std::to_string(reader.LastRecordOffset()));
    } else {
      bs = WriteBatchInternal::SetContents(&batch, record);
      if (bs.ok()) bs = WriteBatchInternal::Validate(&batch);
      if (!bs.ok()) {
        bs = Status::Corruption("log " + fname,
                                "bad write batch at offset " +
                                    std::to_string(reader.LastRecordOffset()) +
                                    ": " + bs.ToString());
      }
    }
    if (!bs.ok()) {
      if (mode == WALRecoveryMode::kSkipAnyCorruptedRecords) continue;
      reporter.corruption = bs;
      break;
    }
    if (mem_ == nullptr) {
      mem_ = NewMemTable();
    }
    s = WriteBatchInternal::InsertInto(&batch, mem_);
    if (!s.ok()) return s;
    ++records;
    const SequenceNumber last = WriteBatchInternal::Sequence(&batch) +
                                WriteBatchInternal::Count(&batch) - 1;
    if (WriteBatchInternal::Count(&batch) > 0 && last > *max_sequence) {
      *max_sequence = last;
    }
    if (!read_only_ &&
        mem_->ApproximateMemoryUsage() > options_.write_buffer_size) {
      FlushJobInfo info;
      s = WriteLevel0Table(mem_, edit, "recovery", &info);
      mem_->Unref();
      mem_ = nullptr;
      if (!s.ok()) return s;
    }
  }

  // Apply the recovery mode to what the reader dropped.
  if (!reporter.corruption.ok()) {
    switch (mode) {
      case WALRecoveryMode::kSkipAnyCorruptedRecords:
        Log(InfoLogLevel::kWarn, info_log_.get(), "skipped: %s",
            reporter.corruption.ToString().c_str());
        break;
      case WALRecoveryMode::kPointInTimeRecovery:
        Log(InfoLogLevel::kWarn, info_log_.get(),
            "point-in-time recovery stops at: %s",
            reporter.corruption.ToString().c_str());
        *stop_replay = true;
        break;
      default:
        return reporter.corruption;
    }
  }
  if (!reporter.torn_tail.ok()) {
    switch (mode) {
      case WALRecoveryMode::kAbsoluteConsistency:
        return reporter.torn_tail;
      case WALRecoveryMode::kTolerateCorruptedTailRecords:
        if (!last_log) {
          // Only the newest WAL can have been cut by a crash.
          return Status::Corruption(
              "log " + fname, "an older WAL is short or damaged at its end (" +
                                  reporter.torn_tail.message() + ")");
        }
        break;
      case WALRecoveryMode::kPointInTimeRecovery:
        *stop_replay = true;
        break;
      case WALRecoveryMode::kSkipAnyCorruptedRecords:
        break;
    }
    Log(InfoLogLevel::kWarn, info_log_.get(), "dropped torn tail: %s",
        reporter.torn_tail.ToString().c_str());
  }
  Log(info_log_.get(), "Recovered %" PRIu64 " batches from %s", records,
      fname.c_str());

  // Flush what was replayed, so the WAL can go.
  if (!read_only_ && mem_ != nullptr && mem_->NumEntries() > 0) {
    FlushJobInfo info;
    s = WriteLevel0Table(mem_, edit, "recovery", &info);
    mem_->Unref();
    mem_ = nullptr;
  }
  return s;
}

Status DBImpl::WriteLevel0Table(MemTable* mem, VersionEdit* edit,
                                const char* reason, FlushJobInfo* info) {
  mutex_.AssertHeld();
  const uint64_t number = versions_->NewFileNumber();
  pending_outputs_.insert(number);
  std::vector<SequenceNumber> snapshots = SnapshotSequences();
  info->db_name = dbname_;
  info->job_id = next_job_id_++;
  info->flush_reason = reason;
  info->file_path = TableFileName(dbname_, number);
  info->file_number = number;
  info->output_level = 0;
  info->memtable_bytes = mem->ApproximateMemoryUsage();
  info->num_entries = mem->NumEntries();
  info->num_deletes = mem->NumDeletes();
  info->triggered_writes_slowdown =
      write_controller_.state() == WriteState::kDelayed;
  info->triggered_writes_stop =
      write_controller_.state() == WriteState::kStopped;
  FileMetaData meta;
  FlushJobStats stats;
  Status s;
  {
    mutex_.Unlock();
    ForEachListener([&](EventListener* l) { l->OnFlushBegin(this, *info); });
    TableOptions flush_options = TableOptionsForLevel(0);
    // The SST is about as large as the memtable's data: reserve that.
    flush_options.preallocation_size = mem->DataSize();
    FlushJob job(dbname_, env_, sst_env_options_, options_.rate_limiter.get(),
                 flush_options, icmp_.user_comparator(), mem,
                 std::move(snapshots), number);
    job.SetProgress(&flush_progress_);
    job.SetRecycler(table_recycler_.get());
    if (writer_watch_.enabled()) {
      job.SetYieldWatches({&flush_watch_, &writer_watch_, nullptr});
    }
    s = job.Run(&meta);
    stats = job.stats();
    if (s.ok() && meta.file_size > 0) {
      // Read the new table back before trusting it.
      Cache::Handle* handle = nullptr;
      s = table_cache_->FindTable(meta.number, meta.file_size, &handle);
      if (s.ok()) table_cache_->Release(handle);
    }
    info->file_size = meta.file_size;
    info->smallest_seqno = meta.smallest_seqno;
    info->largest_seqno = meta.largest_seqno;
    info->duration_micros = stats.micros;
    info->cpu_micros = stats.cpu_micros;
    info->status = s;
    if (meta.file_size > 0 || !s.ok()) {
      TableFileCreationInfo created;
      created.db_name = dbname_;
      created.job_id = info->job_id;
      created.reason = std::string(reason) == "recovery" ? "recovery" : "flush";
      created.file_path = info->file_path;
      created.file_number = number;
      created.file_size = meta.file_size;
      created.level = 0;
      created.status = s;
      ForEachListener(
          [&](EventListener* l) { l->OnTableFileCreated(created); });
    }
    if (stats_ != nullptr && s.ok()) {
      RecordTick(kFlushWriteBytes, meta.file_size);
      RecordTick(kSstBytesWritten, meta.file_size);
      MeasureTime(kFlushMicros, stats.micros);
    }
    mutex_.Lock();
  }
  if (!s.ok()) {
    pending_outputs_.erase(number);
    return s;
  }
  // The number stays in pending_outputs_ until the caller has installed
  // the edit: until then no Version names the file.
  if (meta.file_size > 0) {
    edit->AddFile(0, meta);
    CompactionStats cstats;
    cstats.micros = stats.micros;
    cstats.cpu_micros = stats.cpu_micros;
    cstats.bytes_written = meta.file_size;
    cstats.num_output_files = 1;
    cstats.num_input_records = stats.input_entries;
    cstats.num_dropped_records = stats.dropped_entries;
    cstats.count = 1;
    internal_stats_.AddFlushStats(cstats);
  }
  Log(info_log_.get(),
      "Flushed memtable (%" PRIu64 " entries, %" PRIu64
      " dropped) to %s%s: %" PRIu64 " bytes in %" PRIu64 " us",
      stats.input_entries, stats.dropped_entries,
      TableFileBaseName(number).c_str(),
      stats.recycled_file ? " (over a recycled file)" : "", meta.file_size,
      stats.micros);
  return Status::OK();
}

Status DBImpl::SyncLogDir() {
  mutex_.AssertHeld();
  log_dir_sync_needed_ = false;
  mutex_.Unlock();
  Status s = env_->SyncDir(dbname_);
  mutex_.Lock();
  if (!s.ok()) log_dir_sync_needed_ = true;
  return s;
}

std::string DBImpl::TakeRecycledLog() {
  mutex_.AssertHeld();
  if (recycled_logs_.empty()) return std::string();
  std::string name = std::move(recycled_logs_.front());
  recycled_logs_.pop_front();
  // Neither kept again nor deleted by a RemoveObsoleteFiles until it is
  // renamed: its listing, taken without the mutex, may name it.
  deleting_.insert(name);
  return name;
}

void DBImpl::ReleaseRecycledLog(std::string name) {
  mutex_.AssertHeld();
  if (name.empty()) return;
  deleting_.erase(name);
  FileGone(std::move(name));
}

Status DBImpl::CreateWalFile(uint64_t number, const std::string& recycled,
                             std::unique_ptr<WritableFile>* file) {
  const std::string fname = WalFileName(dbname_, number);
  file->reset();
  Status s;
  if (!recycled.empty()) {
    const std::string old_name = dbname_ + "/" + recycled;
    s = env_->ReuseWritableFile(fname, old_name, file, wal_env_options_);
    Log(info_log_.get(), "Recycle %s as %s: %s", old_name.c_str(),
        fname.c_str(), s.ToString().c_str());
    // On failure a fresh file it is (the old one, if not renamed, is
    // obsolete and goes with the next RemoveObsoleteFiles).
    if (!s.ok()) file->reset();
  }
  if (*file == nullptr) {
    s = env_->NewWritableFile(fname, file, wal_env_options_);
  }
  return s;
}

Status DBImpl::NewLogFile() {
  mutex_.AssertHeld();
  assert(!wal_preparing_);
  uint64_t number;
  std::unique_ptr<WritableFile> file;
  if (next_wal_file_ != nullptr) {
    number = next_wal_number_;
    file = std::move(next_wal_file_);
  } else {
    number = versions_->NewFileNumber();
    std::string recycled = TakeRecycledLog();
    Status s = CreateWalFile(number, recycled, &file);
    ReleaseRecycledLog(std::move(recycled));
    if (!s.ok()) {
      versions_->ReuseFileNumber(number);
      return s;
    }
  }
  // The WAL's directory entry must be durable before the MANIFEST names
  // it or a synced write in it is acknowledged; both do SyncLogDir first.
  log_dir_sync_needed_ = true;
  logfile_ = std::move(file);
  if (recycle_log_file_num_ > 0) {
    log_ = log::Writer::Recyclable(logfile_.get(), number);
    if (first_recyclable_log_ == 0) first_recyclable_log_ = number;
  } else {
    log_ = std::make_unique<log::Writer>(logfile_.get());
  }
  logfile_number_ = number;
  mem_log_number_ = number;
  log_dirty_ = false;
  PlaceWalHelper(/*force=*/true);
  return Status::OK();
}

void DBImpl::PrepareNextWal() {
  mutex_.AssertHeld();
  if (read_only_ || wal_preparing_ || next_wal_file_ != nullptr ||
      shutting_down_.load(std::memory_order_acquire) || !bg_error_.ok()) {
    return;
  }
  wal_preparing_ = true;
  const uint64_t number = versions_->NewFileNumber();
  std::string recycled = TakeRecycledLog();
  std::unique_ptr<WritableFile> file;
  mutex_.Unlock();
  Status s = CreateWalFile(number, recycled, &file);
  mutex_.Lock();
  ReleaseRecycledLog(std::move(recycled));
  wal_preparing_ = false;
  if (s.ok()) {
    // Close deletes it if no switch takes it.
    next_wal_number_ = number;
    next_wal_file_ = std::move(file);
  } else {
    // The next switch makes its WAL itself and reports what fails then.
    Log(InfoLogLevel::kWarn, info_log_.get(),
        "Preparing WAL %" PRIu64 " failed: %s", number, s.ToString().c_str());
  }
  bg_cv_.SignalAll();
}

void DBImpl::DropPreparedWal() {
  mutex_.AssertHeld();
  while (wal_preparing_) bg_cv_.Wait();
  if (next_wal_file_ == nullptr) return;
  std::unique_ptr<WritableFile> file = std::move(next_wal_file_);
  const std::string fname = WalFileName(dbname_, next_wal_number_);
  mutex_.Unlock();
  // Unused: nothing was written to it and nothing names it.
  file->Close().IgnoreError();
  file.reset();
  Status s = env_->RemoveFile(fname);
  Log(info_log_.get(), "Delete unused WAL %s: %s", fname.c_str(),
      s.ToString().c_str());
  mutex_.Lock();
}

void DBImpl::PlaceWalHelper(bool force) {
  mutex_.AssertHeld();
  if (logfile_ == nullptr) return;
  const bool beside =
      !write_controller_.CompactionBoundRecently(env_->NowMicros());
  if (beside == wal_helper_beside_ && !force) return;
  wal_helper_beside_ = beside;
  logfile_->SetHelperBesideWriter(beside);
}

// ---------------------------------------------------------------- writes

Status DBImpl::Put(const WriteOptions& options, const Slice& key,
                   const Slice& value) {
  WriteBatch batch;
  Status s = batch.Put(key, value);
  if (!s.ok()) return s;
  return Write(options, &batch);
}

Status DBImpl::Delete(const WriteOptions& options, const Slice& key) {
  WriteBatch batch;
  Status s = batch.Delete(key);
  if (!s.ok()) return s;
  return Write(options, &batch);
}

Status DBImpl::SyncWAL() {
  WriteOptions options;
  options.sync = true;
  WriteBatch empty;
  return Write(options, &empty);
}

Status DBImpl::Write(const WriteOptions& options, WriteBatch* updates) {
  const bool timed = TimerEnabled(kDbWriteMicros);
  const uint64_t start = timed ? env_->NowMicros() : 0;
  Status s = WriteImpl(options, updates);
  if (timed) MeasureTime(kDbWriteMicros, env_->NowMicros() - start);
  if (has_pending_events_.load(std::memory_order_acquire)) DeliverEvents();
  return s;
}

Status DBImpl::WriteImpl(const WriteOptions& options, WriteBatch* updates) {
  if (read_only_) {
    return Status::NotSupported("write", "the DB is open read-only");
  }
  if (updates == nullptr) {
    return Status::InvalidArgument("write", "the batch is null");
  }
  Writer w(&mutex_);
  w.batch = updates;
  w.sync = options.sync;
  w.disable_wal = options.disableWAL;
  w.no_slowdown = options.no_slowdown;

  // PerfContext: the write's parts, each timed from the end of the last.
  perf_internal::PerfLaps perf(env_);
  if (perf.enabled()) ++perf_internal::perf_context.write_count;
  MutexLock l(&mutex_);
  if (closed_) return Status::Aborted("DB closed");
  if (w.no_slowdown && write_controller_.state() != WriteState::kNormal) {
    // Do not even queue: the writers ahead may be waiting out the stall.
    return Status::Incomplete("write stall");
  }
  writers_.push_back(&w);
  for (;;) {
    while (!w.done && w.insert_into == nullptr && &w != writers_.front()) {
      w.cv.Wait();
    }
    perf.Lap(&PerfContext::write_thread_wait_nanos);
    if (w.insert_into == nullptr) break;
    // The leader asks this member to insert its own batch in parallel.
    MemTable* mem = w.insert_into;
    w.insert_into = nullptr;
    mutex_.Unlock();
    Status s = WriteBatchInternal::InsertInto(w.batch, mem,
                                              /*concurrent=*/true);
    mutex_.Lock();
    w.insert_status = s;
    if (--*w.pending_inserts == 0) w.leader->cv.Signal();
    perf.Lap(&PerfContext::write_memtable_nanos);
  }
  if (w.done) return w.status;

  // This writer leads a group.
  writer_watch_.Working();
  const uint64_t stalled_before =
      perf.enabled() ? perf_internal::StallNanos() : 0;
  Status status = MakeRoomForWrite(&w, WriteBatchInternal::ByteSize(updates));
  if (perf.enabled()) {
    // Making room, less the stalls (timed as such): memtable switches.
    perf.Lap(&PerfContext::write_memtable_switch_nanos,
             perf_internal::StallNanos() - stalled_before);
  }
  SequenceNumber last_sequence = versions_->LastSequence();
  Writer* last_writer = &w;
  if (status.ok()) {
    WriteBatch* group = BuildBatchGroup(&last_writer);
    const uint32_t count = WriteBatchInternal::Count(group);
    WriteBatchInternal::SetSequence(group, last_sequence + 1);
    // With several members, each may insert its own batch in parallel:
    // give each batch its place in the group's sequence range.
    std::vector<Writer*> members;
    if (options_.allow_concurrent_memtable_write && group != w.batch) {
      SequenceNumber seq = last_sequence + 1;
      for (Writer* m : writers_) {
        members.push_back(m);
        WriteBatchInternal::SetSequence(m->batch, seq);
        seq += WriteBatchInternal::Count(m->batch);
        if (m == last_writer) break;
      }
    }
    last_sequence += count;
    const uint64_t user_bytes = group->DataSize();
    uint64_t group_size = 0;
    for (Writer* m : writers_) {
      ++group_size;
      if (m == last_writer) break;
    }
    bool wal_failed = false;
    // A synced write is acknowledged only once every earlier write is
    // durable: the WALs switched away from since the last sync, and the
    // new WAL's directory entry, go first.
    std::deque<PendingLog> old_logs;
    bool sync_dir = false;
    if (w.sync && !w.disable_wal) {
      old_logs.swap(logs_to_sync_);
      sync_dir = log_dir_sync_needed_;
      log_dir_sync_needed_ = false;
    }
    const bool syncing_old_logs = !old_logs.empty();
    if (syncing_old_logs) ++old_logs_unlocked_;
    {
      // The queue keeps other writers out; readers only need the
      // memtable's lock-free reads. Only a leader switches mem_.
      MemTable* const mem = mem_;
      mutex_.Unlock();
      perf.Restart();
      for (PendingLog& old : old_logs) {
        if (status.ok()) status = old.file->Sync();
        if (status.ok()) status = old.file->Close();
      }
      old_logs.clear();  // closed (or dropped) before the mutex is back
      if (status.ok() && sync_dir) status = env_->SyncDir(dbname_);
      uint64_t wal_bytes = 0;
      if (status.ok() && !w.disable_wal && count > 0) {
        // Counted as written to the file, record headers included.
        const uint64_t before = log_->length();
        status = log_->AddRecord(WriteBatchInternal::Contents(group));
        wal_bytes = log_->length() - before;
        log_dirty_ = true;
      }
      if (status.ok() && w.sync && !w.disable_wal && log_dirty_) {
        status = logfile_->Sync();
        if (status.ok()) log_dirty_ = false;
      }
      wal_failed = !status.ok();
      perf.Lap(&PerfContext::write_wal_nanos);
      if (status.ok() && count > 0 && members.empty()) {
        status = WriteBatchInternal::InsertInto(group, mem);
      } else if (status.ok() && count > 0) {
        int pending = static_cast<int>(members.size()) - 1;
        mutex_.Lock();
        for (Writer* m : members) {
          if (m == &w) continue;
          m->insert_into = mem_;
          m->pending_inserts = &pending;
          m->leader = &w;
          m->cv.Signal();
        }
        mutex_.Unlock();
        status = WriteBatchInternal::InsertInto(w.batch, mem,
                                                /*concurrent=*/true);
        mutex_.Lock();
        while (pending > 0) w.cv.Wait();
        for (Writer* m : members) {
          if (status.ok() && !m->insert_status.ok()) status = m->insert_status;
        }
        mutex_.Unlock();
      }
      perf.Lap(&PerfContext::write_memtable_nanos);
      if (status.ok() && stats_ != nullptr) {
        RecordTick(kBytesWritten, user_bytes);
        RecordTick(kNumberKeysWritten, count);
        if (wal_bytes > 0) {
          RecordTick(kWalFileBytes, wal_bytes);
          RecordTick(kWriteWithWal);
        }
        if (w.sync && !w.disable_wal) RecordTick(kWalFileSynced);
      }
      perf.Restart();
      mutex_.Lock();
      perf.Lap(&PerfContext::db_mutex_lock_nanos);
      if (syncing_old_logs) --old_logs_unlocked_;
      if (status.ok()) {
        internal_stats_.AddUserBytes(user_bytes, count, group_size);
        internal_stats_.AddWalBytes(wal_bytes, w.sync ? 1 : 0);
      }
    }
    if (!status.ok()) {
      // The WAL (or memtable) state is unknown: refuse further writes.
      RecordBackgroundError(status, wal_failed
                                        ? BackgroundErrorReason::kWriteCallback
                                        : BackgroundErrorReason::kMemTable);
    }
    if (group == &tmp_batch_) tmp_batch_.Clear();
    if (status.ok()) versions_->SetLastSequence(last_sequence);
  }

  for (;;) {
    Writer* ready = writers_.front();
    writers_.pop_front();
    if (ready != &w) {
      ready->status = status;
      ready->done = true;
      ready->cv.Signal();
    }
    if (ready == last_writer) break;
  }
  if (!writers_.empty()) writers_.front()->cv.Signal();
  writer_watch_.Working();  // done: a new mark
  return status;
}

WriteBatch* DBImpl::BuildBatchGroup(Writer** last_writer) {
  mutex_.AssertHeld();
  Writer* first = writers_.front();
  WriteBatch* result = first->batch;
  size_t size = WriteBatchInternal::ByteSize(first->batch);
  // A small write does not wait for a big group.
  size_t max_size = kMaxBatchGroupBytes;
  if (size <= (128 << 10)) max_size = size + (128 << 10);
  *last_writer = first;
  for (auto it = writers_.begin() + 1; it != writers_.end(); ++it) {
    Writer* w = *it;
    if (w->batch == nullptr) break;  // a Flush waiting for its turn
    // Never make a non-sync leader carry a sync write, never mix WAL and
    // no-WAL writes, and never make a no_slowdown writer wait.
    if (w->sync && !first->sync) break;
    if (w->disable_wal != first->disable_wal) break;
    if (w->no_slowdown != first->no_slowdown) break;
    size += WriteBatchInternal::ByteSize(w->batch);
    if (size > max_size) break;
    if (result == first->batch) {
      result = &tmp_batch_;
      tmp_batch_.Clear();
      Status s = WriteBatchInternal::Append(result, first->batch);
      assert(s.ok());
      s.IgnoreError();  // appending a valid batch cannot fail
    }
    Status s = WriteBatchInternal::Append(result, w->batch);
    assert(s.ok());
    s.IgnoreError();
    *last_writer = w;
  }
  return result;
}

bool DBImpl::ActiveMemTableFull() const {
  return mem_->ApproximateMemoryUsage() >= options_.write_buffer_size;
}

bool DBImpl::LastMemTableFlushing() const {
  if (imm_.empty() ||
      static_cast<int>(imm_.size()) + 1 < options_.max_write_buffer_number) {
    return false;
  }
  // Running, or about to: a flush job is scheduled (it takes the oldest
  // memtable first). Not while the flush waits for a compaction job to
  // take it: when that happens is not known (pacing to the last flush's
  // speed then slowed matched 1 KiB writes by 3-6%); a writer that would
  // stop starts the flush thread instead.
  return flushing_mem_ == imm_.front().mem || bg_flush_scheduled_;
}

FlushProgress DBImpl::FlushPaceProgress(uint64_t now_micros) const {
  FlushProgress p;
  if (imm_.empty()) return p;
  p.running = true;
  // In arena bytes, as paced writes are charged (PacedWriteBytes). Not
  // write_buffer_size less the usage, which counts a block (1/8 of a
  // small memtable) whole from its start: a pace to that room ran the
  // memtable full a few milliseconds before most flushes ended.
  p.room_bytes = mem_->RoomBelow(options_.write_buffer_size);
  p.tail_micros =
      *std::max_element(flush_tails_micros_, flush_tails_micros_ + kFlushTails);
  MemTable* const oldest = imm_.front().mem;
  if (flushing_mem_ != oldest) {
    // Not started yet: all of it to go, at the last flush's speed.
    p.expected_read_micros =
        static_cast<uint64_t>(last_flush_micros_per_entry_ *
                              static_cast<double>(oldest->NumEntries()));
    return p;
  }
  p.elapsed_micros =
      now_micros > flush_start_micros_ ? now_micros - flush_start_micros_ : 0;
  const uint64_t read =
      flush_progress_.entries_read.load(std::memory_order_relaxed);
  p.done_fraction =
      flushing_entries_ == 0
          ? 1.0
          : std::min(1.0, static_cast<double>(read) /
                              static_cast<double>(flushing_entries_));
  p.expected_read_micros = static_cast<uint64_t>(
      last_flush_micros_per_entry_ * static_cast<double>(flushing_entries_));
  const uint64_t read_end =
      flush_progress_.read_end_micros.load(std::memory_order_relaxed);
  if (read_end != 0) {
    p.read_done = true;
    p.since_read_micros = now_micros > read_end ? now_micros - read_end : 0;
  }
  return p;
}

uint64_t DBImpl::PacedWriteBytes(const WriteBatch& batch,
                                 uint64_t batch_bytes) const {
  if (!(switched_entry_bytes_ > 0)) return batch_bytes;
  return static_cast<uint64_t>(switched_entry_bytes_ *
                               WriteBatchInternal::Count(&batch));
}

void DBImpl::StartFlushPacing(MemTable* mem) {
  flushing_mem_ = mem;
  flush_start_micros_ = env_->NowMicros();
  flushing_entries_ = mem->NumEntries();
  flush_progress_.Reset();
  UpdateWriteController();
}

void DBImpl::EndFlushPacing(bool installed) {
  const uint64_t read_end =
      flush_progress_.read_end_micros.load(std::memory_order_relaxed);
  const uint64_t now = env_->NowMicros();
  if (installed && read_end != 0 && now >= read_end &&
      read_end >= flush_start_micros_ && flushing_entries_ > 0) {
    flush_tails_micros_[next_flush_tail_] = now - read_end;
    next_flush_tail_ = (next_flush_tail_ + 1) % kFlushTails;
    last_flush_micros_per_entry_ =
        static_cast<double>(read_end - flush_start_micros_) /
        static_cast<double>(flushing_entries_);
  }
  flushing_mem_ = nullptr;
}

void DBImpl::UpdateWriteController() {
  mutex_.AssertHeld();
  if (versions_ == nullptr || mem_ == nullptr) return;
  Version* current = versions_->current();
  StallInputs in;
  in.num_memtables =
      static_cast<int>(imm_.size()) + (ActiveMemTableFull() ? 1 : 0);
  in.l0_files = current->NumFiles(0);
  in.pending_compaction_bytes = current->EstimatedPendingCompactionBytes();
  in.last_memtable_flushing = LastMemTableFlushing();
  const WriteState before = write_controller_.state();
  const StallCause cause_before = write_controller_.cause();
  const bool changed = write_controller_.Update(in);
  if (compression_queue_ != nullptr) {
    // Stalled writers are the helpers: outside a stall, flushes and
    // compactions compress their blocks at once.
    compression_queue_->SetHelpersExpected(write_controller_.state() !=
                                           WriteState::kNormal);
  }
  PlaceWalHelper(/*force=*/false);
  if (changed) {
    Log(info_log_.get(), "Write stall state %s (%s) -> %s",
        WriteStateName(before), StallCauseName(cause_before),
        write_controller_.DescribeState().c_str());
    // Only stopped writers wait on bg_cv_ for the state itself; the other
    // waiters are woken when the work they wait for ends. (Waking them at
    // every change, e.g. a flush ending the delay paced to it before it
    // has closed the WALs it made obsolete, only lets them look early.)
    if (before == WriteState::kStopped) bg_cv_.SignalAll();
    if (!options_.listeners.empty()) {
      WriteStallInfo info;
      info.db_name = dbname_;
      info.cause = StallCauseName(write_controller_.cause());
      info.prev_state = WriteStateName(before);
      info.cur_state = WriteStateName(write_controller_.state());
      QueueEvent([this, info] {
        ForEachListener(
            [&](EventListener* l) { l->OnStallConditionsChanged(info); });
      });
    }
  }
}

bool DBImpl::CpuForStalledWriters() const {
  if (compression_queue_ == nullptr || !compression_queue_->HasWork()) {
    return false;
  }
  const int busy = running_compactions_ + (flushing_mem_ != nullptr ? 1 : 0);
  return busy < available_cpus_;
}

uint64_t DBImpl::WaitWhileStopped(StallCause cause, StopWait* wait) {
  if (wait->waited && wait->cause != cause) EndStopWait(wait);
  const uint64_t start = env_->NowMicros();
  if (CpuForStalledWriters()) {
    // The stop ends when a flush or compaction does: a block compressed
    // here is one less for it. One at a time, so the stop is checked
    // again between blocks; any block will do (HelpOne fails only on an
    // empty queue, and then the next call waits).
    mutex_.Unlock();
    if (compression_queue_->HelpOne(UINT64_MAX)) {
      RecordTick(kStallCompressedBlocks);
    }
    mutex_.Lock();
  } else if (compression_queue_ != nullptr) {
    // Blocks may be queued meanwhile, and no job signals that.
    bg_cv_.WaitFor(WriteController::kDelayCheckMicros);
  } else {
    bg_cv_.Wait();
  }
  const uint64_t waited = env_->NowMicros() - start;
  wait->cause = cause;
  wait->micros += waited;
  wait->waited = true;
  return waited;
}

void DBImpl::EndStopWait(StopWait* wait) {
  if (!wait->waited) return;
  RecordStall(wait->cause, /*stopped=*/true, wait->micros);
  *wait = StopWait();
}

void DBImpl::DelayFor(uint64_t micros, bool paced) {
  // Whatever the other CPUs do: a delay soon ends, and the writer would
  // otherwise spin through it on a CPU the jobs want, or sleep and wait
  // behind them for a CPU to wake on (CpuForStalledWriters is for stops).
  if (compression_queue_ != nullptr) {
    const uint64_t end = env_->NowMicros() + micros;
    for (;;) {
      const uint64_t now = env_->NowMicros();
      micros = now < end ? end - now : 0;
      if (micros == 0 || !compression_queue_->HelpOne(micros * 1000)) break;
      RecordTick(kStallCompressedBlocks);
      writer_watch_.Working();
    }
  }
  if (micros == 0) return;
  // A delay paced to the flush ends with the flush's progress, and the
  // flush is often ready on this CPU: the writer gives it the CPU through
  // the wait, and is not held up (for the jobs that yield to it) until the
  // wait ends (docs/stalls.md, "The bucket"). Any other wait short enough
  // to be spun through keeps the writer working on its CPU: preempted in
  // it, the writer is held up.
  if (paced || micros > static_cast<uint64_t>(Env::kSleepSpinMicros)) {
    writer_watch_.Sleeping(micros);
  }
  if (paced) {
    env_->YieldForMicroseconds(static_cast<int>(micros));
  } else {
    env_->SleepForMicroseconds(static_cast<int>(micros));
  }
  writer_watch_.Working();
}

void DBImpl::RecordStall(StallCause cause, bool stopped, uint64_t micros) {
  write_controller_.RecordStall(cause, stopped, micros);
  if (stats_ == nullptr) return;
  RecordTick(kStallMicros, micros);
  RecordTick(stopped ? kWritesStopped : kWritesDelayed);
  MeasureTime(kWriteStallMicros, micros);
  switch (cause) {
    case StallCause::kMemtableLimit:
      RecordTick(kStallMemtableLimitMicros, micros);
      break;
    case StallCause::kL0Slowdown:
      RecordTick(kStallL0SlowdownMicros, micros);
      break;
    case StallCause::kL0Stop:
      RecordTick(kStallL0StopMicros, micros);
      break;
    case StallCause::kPendingCompactionSlowdown:
      RecordTick(kStallPendingCompactionSlowdownMicros, micros);
      break;
    case StallCause::kPendingCompactionStop:
      RecordTick(kStallPendingCompactionStopMicros, micros);
      break;
    default:
      break;
  }
}

void DBImpl::ForEachListener(const std::function<void(EventListener*)>& fn) {
  for (const auto& listener : options_.listeners) {
    // A throwing listener must not unwind through the engine's state.
    try {
      fn(listener.get());
    } catch (const std::exception& e) {
      Log(InfoLogLevel::kError, info_log_.get(),
          "EventListener threw (ignored): %s", e.what());
    } catch (...) {
      Log(InfoLogLevel::kError, info_log_.get(),
          "EventListener threw (ignored)");
    }
  }
}

void DBImpl::QueueEvent(std::function<void()> event) {
  pending_events_.push_back(std::move(event));
  has_pending_events_.store(true, std::memory_order_release);
}

void DBImpl::DeliverEvents() {
  std::vector<std::function<void()>> events;
  {
    MutexLock l(&mutex_);
    events.swap(pending_events_);
    has_pending_events_.store(false, std::memory_order_release);
  }
  for (auto& e : events) e();
}

void DBImpl::NotifyTableFileDeleted(uint64_t number, const Status& s) {
  RecordTick(kFilesDeleted);
  if (options_.listeners.empty()) return;
  TableFileDeletionInfo info;
  info.db_name = dbname_;
  info.file_path = TableFileName(dbname_, number);
  info.file_number = number;
  info.status = s;
  ForEachListener([&](EventListener* l) { l->OnTableFileDeleted(info); });
}

Status DBImpl::NotifyBackgroundError(BackgroundErrorReason reason, Status s) {
  ForEachListener([&](EventListener* l) { l->OnBackgroundError(reason, &s); });
  return s;
}

Status DBImpl::ServiceFlushRequests(Writer* self, bool* serviced) {
  mutex_.AssertHeld();
  *serviced = false;
  Status s = bg_error_;
  if (s.ok() && mem_->NumEntries() > 0) {
    if (static_cast<int>(imm_.size()) + 1 >= options_.max_write_buffer_number) {
      return s;  // no room yet: a flush must finish first
    }
    s = SwitchMemtable();
  }
  *serviced = true;
  flush_requested_ = false;
  for (auto it = writers_.begin(); it != writers_.end();) {
    Writer* x = *it;
    if (x->batch == nullptr && x != self && it != writers_.begin()) {
      x->status = s;
      x->done = true;
      x->cv.Signal();
      it = writers_.erase(it);
    } else {
      ++it;
    }
  }
  return s;
}

Status DBImpl::MakeRoomForWrite(Writer* leader, uint64_t batch_bytes) {
  StopWait stop;
  Status s = MakeRoom(leader, batch_bytes, &stop);
  EndStopWait(&stop);
  return s;
}

Status DBImpl::MakeRoom(Writer* leader, uint64_t batch_bytes, StopWait* stop) {
  mutex_.AssertHeld();
  bool delayed = false;
  for (;;) {
    if (!bg_error_.ok()) return bg_error_;
    if (flush_requested_) {
      bool serviced;
      Status s = ServiceFlushRequests(leader, &serviced);
      if (!s.ok()) return s;
    }
    if (shutting_down_.load(std::memory_order_acquire)) {
      return Status::Aborted("DB closed");
    }
    const WriteState state = write_controller_.state();
    const StallCause cause = write_controller_.cause();
    if (state == WriteState::kStopped) {
      if (leader->no_slowdown) return Status::Incomplete("write stall");
      // A stopped writer does not wait for a compaction job to take the
      // flush.
      if (flush_waiting_.load(std::memory_order_relaxed)) MaybeScheduleFlush();
      writer_watch_.Waiting();
      perf_internal::AddNanos(&PerfContext::write_stop_nanos,
                              WaitWhileStopped(cause, stop) * 1000);
      writer_watch_.Working();
      UpdateWriteController();
      continue;
    }
    if (state == WriteState::kDelayed && !delayed) {
      delayed = true;  // pay once per write, then re-check
      // A paced delay only smooths writes towards the memtable limit (they
      // stop there): one that refuses to slow down goes ahead unpaced.
      const bool paced = write_controller_.paced();
      if (leader->no_slowdown && !paced) {
        return Status::Incomplete("write stall");
      }
      const uint64_t bytes =
          paced ? PacedWriteBytes(*leader->batch, batch_bytes) : batch_bytes;
      if (leader->no_slowdown || write_controller_.ConsumeCredit(bytes)) {
        continue;
      }
      const uint64_t start = env_->NowMicros();
      // Only a paced delay's rate comes from the flush.
      const uint64_t delay = write_controller_.GetDelay(
          start, bytes, paced ? FlushPaceProgress(start) : FlushProgress());
      if (delay > 0) {
        // In slices, so that a long delay ends once writes are no longer
        // delayed for the reason it was owed to
        // (WriteController::kDelayCheckMicros).
        uint64_t slept = 0;
        do {
          mutex_.Unlock();
          DelayFor(std::min(delay - slept, WriteController::kDelayCheckMicros),
                   paced);
          mutex_.Lock();
          slept = env_->NowMicros() - start;
        } while (slept < delay &&
                 write_controller_.state() == WriteState::kDelayed &&
                 write_controller_.cause() == cause &&
                 write_controller_.paced() == paced);
        // What the writer waited, not what it asked for: on a busy machine
        // a short sleep can end well after its time.
        RecordStall(cause, /*stopped=*/false, slept);
        perf_internal::AddNanos(&PerfContext::write_delay_nanos, slept * 1000);
        continue;
      }
    }
    if (!ActiveMemTableFull()) return Status::OK();
    if (static_cast<int>(imm_.size()) + 1 >= options_.max_write_buffer_number) {
      // No room for another immutable memtable: wait for a flush, which
      // must not wait for a compaction job to take it.
      MaybeScheduleFlush();
      UpdateWriteController();
      if (write_controller_.state() != WriteState::kStopped) {
        // The controller knows better (should not happen); wait anyway.
        if (leader->no_slowdown) return Status::Incomplete("write stall");
        writer_watch_.Waiting();
        perf_internal::AddNanos(
            &PerfContext::write_stop_nanos,
            WaitWhileStopped(StallCause::kMemtableLimit, stop) * 1000);
        writer_watch_.Working();
      }
      continue;
    }
    Status s = SwitchMemtable();
    if (!s.ok()) return s;
  }
}

Status DBImpl::SwitchMemtable() {
  mutex_.AssertHeld();
  // A WAL being prepared is the next one: WALs are replayed in the order
  // of their numbers, so none made after it may be written first. Making
  // it is short (a rename or create, an open and a mapping).
  while (wal_preparing_) bg_cv_.Wait();
  // The old WAL is synced before any later write is acknowledged as
  // synced (a sync on the new WAL must not outlive unsynced data in the
  // old one), but lazily: by the next sync=true write, SyncWAL or Close.
  // Syncing here would make the leader wait for up to a whole memtable's
  // worth of WAL to reach the disk. A flush that makes the old WAL
  // obsolete drops it unsynced.
  if (log_ != nullptr && log_->recyclable()) {
    // Zeros to the end of the block, so that if this WAL is not cut to
    // its length (a crash before it is closed), recovery finds no old
    // log's bytes right after its last record: nothing mistaken for a torn
    // write in a WAL that is not the newest.
    Status p = log_->PadBlock();
    if (!p.ok()) {
      RecordBackgroundError(p, BackgroundErrorReason::kWriteCallback);
      return p;
    }
  }
  std::unique_ptr<WritableFile> old_file = std::move(logfile_);
  std::unique_ptr<log::Writer> old_log = std::move(log_);
  const uint64_t old_mem_log = mem_log_number_;
  Status s = NewLogFile();
  if (!s.ok()) {
    logfile_ = std::move(old_file);
    log_ = std::move(old_log);
    mem_log_number_ = old_mem_log;
    RecordBackgroundError(s, BackgroundErrorReason::kWriteCallback);
    return s;
  }
  if (old_file != nullptr) {
    logs_to_sync_.push_back({old_mem_log, std::move(old_file)});
  }
  // A full memtable is the best measure of what the next entries will
  // cost (the new one has none to go by); no insert runs now.
  if (mem_->NumEntries() > 0) {
    switched_entry_bytes_ = mem_->ArenaBytesPerEntry();
  }
  imm_.push_back({mem_, old_mem_log});
  mem_ = NewMemTable();
  UpdateWriteController();
  HandOffOrScheduleFlush();  // decided on the state after the switch
  // Writes are paced to the flush once it is scheduled (not handed off).
  if (bg_flush_scheduled_) UpdateWriteController();
  return Status::OK();
}

void DBImpl::RecordBackgroundError(const Status& error,
                                   BackgroundErrorReason reason) {
  mutex_.AssertHeld();
  if (error.ok() || !bg_error_.ok()) return;
  Status s = error;
  if (!options_.listeners.empty()) {
    mutex_.Unlock();
    s = NotifyBackgroundError(reason, s);
    mutex_.Lock();
    if (s.ok()) {
      Log(InfoLogLevel::kWarn, info_log_.get(),
          "Background error cleared by a listener: %s",
          error.ToString().c_str());
      return;
    }
    if (!bg_error_.ok()) return;
  }
  bg_error_ = s;
  Log(InfoLogLevel::kError, info_log_.get(), "Background error: %s",
      s.ToString().c_str());
  bg_cv_.SignalAll();
}

// ---------------------------------------------------------------- reads

Status DBImpl::Get(const ReadOptions& options, const Slice& key,
                   std::string* value) {
  const bool timed = TimerEnabled(kDbGetMicros);
  const uint64_t start = timed ? env_->NowMicros() : 0;
  MemTable* mem;
  std::vector<MemTable*> imms;
  Version* current;
  SequenceNumber sequence;
  {
    MutexLock l(&mutex_);
    if (closed_) return Status::Aborted("DB closed");
    sequence = options.snapshot != nullptr
                   ? options.snapshot->GetSequenceNumber()
                   : versions_->LastSequence();
    mem = mem_;
    mem->Ref();
    for (auto it = imm_.rbegin(); it != imm_.rend(); ++it) {
      it->mem->Ref();
      imms.push_back(it->mem);  // newest first
    }
    current = versions_->current();
    current->Ref();
  }

  LookupKey lkey(key, sequence);
  Status s;
  uint64_t bloom_skips = 0;
  bool done = mem->Get(lkey, value, &s, &bloom_skips);
  for (size_t i = 0; !done && i < imms.size(); ++i) {
    done = imms[i]->Get(lkey, value, &s, &bloom_skips);
  }
  if (stats_ != nullptr) {
    RecordTick(done ? kMemtableHit : kMemtableMiss);
    if (bloom_skips > 0) RecordTick(kMemtableBloomUseful, bloom_skips);
  }
  Version::GetStats get_stats;
  if (!done) s = current->Get(options, lkey, value, nullptr, &get_stats);
  if (stats_ != nullptr) {
    RecordTick(kNumberKeysRead);
    if (s.ok()) {
      RecordTick(kNumberKeysFound);
      RecordTick(kBytesRead, value->size());
    }
    if (timed) MeasureTime(kDbGetMicros, env_->NowMicros() - start);
  }

  mem->Unref();
  for (MemTable* m : imms) m->Unref();
  MutexLock l(&mutex_);
  if (options_.seek_compaction && current->UpdateStats(get_stats)) {
    MaybeScheduleCompaction();
  }
  UnrefVersion(current);
  return s;
}

void DBImpl::RecordReadSample(const Slice& internal_key) {
  MutexLock l(&mutex_);
  if (versions_->current()->RecordReadSample(internal_key)) {
    MaybeScheduleCompaction();
  }
}

// What a DB iterator references.
struct DBImpl::IterState {
  DBImpl* db;
  Version* version;
  std::vector<MemTable*> mems;
};

void DBImpl::CleanupIterState(void* arg1, void* /*arg2*/) {
  IterState* state = static_cast<IterState*>(arg1);
  for (MemTable* m : state->mems) m->Unref();
  {
    MutexLock l(&state->db->mutex_);
    state->db->UnrefVersion(state->version);
  }
  delete state;
}

namespace {

// A seek target's user key against a memtable's bloom filter. The
// memtable is referenced by the iterator's IterState.
class MemTableSeekProbe : public SeekProbe {
 public:
  explicit MemTableSeekProbe(const MemTable* mem) : mem_(mem) {}
  bool MayContain(const Slice& target) const override {
    if (target.size() < kInternalKeyTrailerSize) return true;
    return mem_->MayContain(ExtractUserKey(target));
  }

 private:
  const MemTable* const mem_;
};

std::unique_ptr<SeekProbe> NewMemTableSeekProbe(const MemTable* mem) {
  if (!mem->has_bloom()) return nullptr;
  return std::make_unique<MemTableSeekProbe>(mem);
}

}  // namespace

Iterator* DBImpl::NewInternalIterator(const ReadOptions& options,
                                      SequenceNumber* sequence) {
  std::vector<Iterator*> children;
  // Seeks skip positioning children whose filters rule out the target's
  // user key while another child holds it (table/merging_iterator.h).
  MergingIteratorOptions merge_options;
  merge_options.statistics = stats_;
  const Comparator* const ucmp = icmp_.user_comparator();
  merge_options.same_group = [ucmp](const Slice& a, const Slice& b) {
    return a.size() >= kInternalKeyTrailerSize &&
           b.size() >= kInternalKeyTrailerSize &&
           ucmp->Compare(ExtractUserKey(a), ExtractUserKey(b)) == 0;
  };
  IterState* state = new IterState;
  state->db = this;
  {
    MutexLock l(&mutex_);
    if (closed_) {
      delete state;
      return NewErrorIterator(Status::Aborted("DB closed"));
    }
    *sequence = options.snapshot != nullptr
                    ? options.snapshot->GetSequenceNumber()
                    : versions_->LastSequence();
    children.push_back(mem_->NewIterator());
    merge_options.probes.push_back(NewMemTableSeekProbe(mem_));
    state->mems.push_back(mem_);
    mem_->Ref();
    for (auto it = imm_.rbegin(); it != imm_.rend(); ++it) {
      children.push_back(it->mem->NewIterator());
      merge_options.probes.push_back(NewMemTableSeekProbe(it->mem));
      it->mem->Ref();
      state->mems.push_back(it->mem);
    }
    state->version = versions_->current();
    state->version->Ref();
  }
  state->version->AddIterators(options, &children, &merge_options.probes);
  Iterator* merged = NewMergingIterator(&icmp_, children.data(),
                                        static_cast<int>(children.size()),
                                        std::move(merge_options));
  merged->RegisterCleanup(CleanupIterState, state, nullptr);
  return merged;
}

Iterator* DBImpl::NewIterator(const ReadOptions& options) {
  SequenceNumber sequence;
  Iterator* internal = NewInternalIterator(options, &sequence);
  RecordTick(kNumberIteratorsCreated);
  // Without seek compaction (or a DB that never compacts) there is nothing
  // to sample for.
  ReadSampler* sampler =
      options_.seek_compaction && !read_only_ ? this : nullptr;
  return NewDBIterator(icmp_.user_comparator(), internal, sequence, sampler,
                       iterator_seed_.fetch_add(1, std::memory_order_relaxed));
}

const Snapshot* DBImpl::GetSnapshot() {
  MutexLock l(&mutex_);
  SnapshotImpl* s = new SnapshotImpl(versions_->LastSequence());
  snapshots_.push_back(s);
  return s;
}

void DBImpl::ReleaseSnapshot(const Snapshot* snapshot) {
  if (snapshot == nullptr) return;
  MutexLock l(&mutex_);
  auto it = std::find(snapshots_.begin(), snapshots_.end(), snapshot);
  if (it == snapshots_.end()) return;  // not ours or released twice
  SnapshotImpl* s = *it;
  snapshots_.erase(it);
  delete s;
}

std::vector<SequenceNumber> DBImpl::SnapshotSequences() const {
  std::vector<SequenceNumber> result;
  for (const SnapshotImpl* s : snapshots_) result.push_back(s->sequence_);
  std::sort(result.begin(), result.end());
  return result;
}

uint64_t DBImpl::GetLatestSequenceNumber() const {
  MutexLock l(&mutex_);
  return versions_ != nullptr ? versions_->LastSequence() : 0;
}

// ---------------------------------------------------------------- background

TableOptions DBImpl::TableOptionsForLevel(int level) const {
  TableOptions t = table_options_;
  t.compression = CompressionForLevel(options_, level, /*bottommost=*/false);
  t.creation_time = env_->NowWallSeconds();
  return t;
}

void DBImpl::MaybeScheduleFlush() {
  mutex_.AssertHeld();
  if (bg_flush_scheduled_ || imm_.empty() || read_only_ ||
      shutting_down_.load(std::memory_order_acquire) || !bg_error_.ok()) {
    return;
  }
  flush_waiting_.store(false, std::memory_order_relaxed);
  bg_flush_scheduled_ = true;
  env_->Schedule(&DBImpl::BGWorkFlush, this, Env::Priority::kHigh);
}

// A flush woken while every CPU is busy (a writer and a compaction on two
// CPUs) preempts one of them, often the writer: writes then take
// milliseconds. Flushed by a running compaction job between two of its
// entries, it takes its time from the compaction instead (LevelDB's one
// background thread works this way). Options::flush_in_compaction.
bool DBImpl::ShouldHandOffFlush() const {
  mutex_.AssertHeld();
  if (jobs_taking_flushes_ == 0 || bg_flush_scheduled_) return false;
  switch (options_.flush_in_compaction) {
    case FlushInCompaction::kNever:
      return false;
    case FlushInCompaction::kAlways:
      return true;
    case FlushInCompaction::kAuto:
      break;
  }
  // A job waiting on the rate limiter would not see the flush for as long.
  // When compaction is (or just was) the bottleneck, it needs the CPU the
  // flush thread would use: throughput then depends on the background
  // work alone.
  return cpus_scarce_ && options_.rate_limiter == nullptr &&
         write_controller_.state() == WriteState::kNormal &&
         !write_controller_.CompactionBoundRecently(env_->NowMicros());
}

void DBImpl::HandOffOrScheduleFlush() {
  mutex_.AssertHeld();
  if (ShouldHandOffFlush()) {
    flush_waiting_.store(true, std::memory_order_relaxed);
    return;
  }
  MaybeScheduleFlush();
}

void DBImpl::FlushForCompactionJob() {
  {
    MutexLock l(&mutex_);
    if (!flush_waiting_.load(std::memory_order_relaxed) ||
        bg_flush_scheduled_) {
      return;
    }
    flush_waiting_.store(false, std::memory_order_relaxed);
    bg_flush_scheduled_ = true;
  }
  RecordTick(kFlushesInCompaction);
  BackgroundFlush();
  {
    MutexLock l(&mutex_);
    bg_flush_scheduled_ = false;
    MaybeScheduleFlush();
    bg_cv_.SignalAll();
  }
  DeliverEvents();
}

void DBImpl::MaybeScheduleCompaction() {
  mutex_.AssertHeld();
  if (read_only_ || options_.disable_auto_compactions ||
      shutting_down_.load(std::memory_order_acquire) || !bg_error_.ok()) {
    return;
  }
  // One job at a time is queued; a job that picks a compaction queues the
  // next one (BackgroundCompaction), so parallel jobs only start when
  // there is something for them to pick.
  if (bg_compactions_scheduled_ < options_.max_background_compactions &&
      bg_compactions_scheduled_ == running_compactions_ &&
      versions_->picker()->NeedsCompaction(versions_->current())) {
    ++bg_compactions_scheduled_;
    env_->Schedule(&DBImpl::BGWorkCompaction, this, Env::Priority::kLow);
  }
}

// The job stays counted (bg_flush_scheduled_, bg_compactions_scheduled_)
// until its events are delivered: Close waits for the count, so the DB
// outlives every use of it by the job.
void DBImpl::BGWorkFlush(void* arg) {
  DBImpl* db = static_cast<DBImpl*>(arg);
  db->BackgroundFlush();
  db->DeliverEvents();
  MutexLock l(&db->mutex_);
  db->bg_flush_scheduled_ = false;
  db->MaybeScheduleFlush();  // memtables made immutable meanwhile
  db->bg_cv_.SignalAll();
}

void DBImpl::BGWorkCompaction(void* arg) {
  DBImpl* db = static_cast<DBImpl*>(arg);
  const bool picked = db->BackgroundCompaction();
  db->DeliverEvents();
  MutexLock l(&db->mutex_);
  --db->bg_compactions_scheduled_;
  // A job that found nothing to pick does not queue another: the next
  // flush or finished compaction will.
  if (picked) db->MaybeScheduleCompaction();
  db->bg_cv_.SignalAll();
}

void DBImpl::BackgroundFlush() {
  MutexLock l(&mutex_);
  assert(bg_flush_scheduled_);
  while (!imm_.empty() && bg_error_.ok() &&
         !shutting_down_.load(std::memory_order_acquire)) {
    // The next switch's WAL, made here rather than on the writer's path,
    // and first: that switch may come as soon as this flush is done.
    PrepareNextWal();
    Status s = FlushOldestImmutable();
    if (!s.ok()) {
      RecordBackgroundError(s, BackgroundErrorReason::kFlush);
      break;
    }
  }
  MaybeScheduleCompaction();
  PrepareNextWal();  // if a switch during the flush took the last one
}

Status DBImpl::FlushOldestImmutable() {
  mutex_.AssertHeld();
  MemTable* mem = imm_.front().mem;
  VersionEdit edit;
  FlushJobInfo info;
  StartFlushPacing(mem);
  Status s = WriteLevel0Table(mem, &edit, "write_buffer_full", &info);
  if (s.ok()) {
    // The flushed memtable's WAL is no longer needed once this edit is
    // durable: recovery starts at the next memtable's WAL.
    const uint64_t next_log =
        imm_.size() > 1 ? imm_[1].log_number : mem_log_number_;
    edit.SetLogNumber(next_log);
    if (log_dir_sync_needed_) s = SyncLogDir();
    if (s.ok()) s = versions_->LogAndApply(&edit, &mutex_);
    pending_outputs_.erase(info.file_number);
  }
  EndFlushPacing(s.ok());
  if (!s.ok()) {
    UpdateWriteController();
    return s;
  }
  imm_.pop_front();
  UpdateWriteController();
  // WALs older than the new log number hold only flushed data: they need
  // no sync any more (and are deleted below). Closing one unmaps and cuts
  // it, up to milliseconds with a synchronous discard, so it is done
  // without the mutex, which every write takes. So is dropping the
  // flushed memtable's reference, usually its last: its arena's blocks go
  // back to the pool, but those the pool has no room for are unmapped,
  // which took 0.3-1.2 ms in one flush in six with the defaults.
  std::deque<PendingLog> obsolete_logs;
  while (!logs_to_sync_.empty() &&
         logs_to_sync_.front().number < versions_->LogNumber()) {
    obsolete_logs.push_back(std::move(logs_to_sync_.front()));
    logs_to_sync_.pop_front();
  }
  const bool closing_logs = !obsolete_logs.empty();
  if (closing_logs) ++old_logs_unlocked_;
  mutex_.Unlock();
  mem->Unref();
  for (PendingLog& old : obsolete_logs) {
    old.file->Close().IgnoreError();  // obsolete anyway
  }
  obsolete_logs.clear();
  mutex_.Lock();
  if (closing_logs) --old_logs_unlocked_;
  if (!options_.listeners.empty()) {
    QueueEvent([this, info] {
      ForEachListener(
          [&](EventListener* l) { l->OnFlushCompleted(this, info); });
    });
  }
  RemoveObsoleteFiles();
  bg_cv_.SignalAll();
  return Status::OK();
}

bool DBImpl::BackgroundCompaction() {
  MutexLock l(&mutex_);
  assert(bg_compactions_scheduled_ > 0);
  bool picked = false;
  if (bg_error_.ok() && !shutting_down_.load(std::memory_order_acquire)) {
    Compaction* c = versions_->picker()->PickCompaction(versions_->current());
    if (c != nullptr) {
      picked = true;
      ++running_compactions_;
      // Another may be pickable in parallel now that these inputs are
      // taken.
      MaybeScheduleCompaction();
      Status s = RunCompaction(c);
      if (!s.ok() && !shutting_down_.load(std::memory_order_acquire)) {
        RecordBackgroundError(s, BackgroundErrorReason::kCompaction);
      }
      --running_compactions_;
    }
  }
  return picked;
}

uint64_t DBImpl::NewOutputFileNumber() {
  MutexLock l(&mutex_);
  const uint64_t number = versions_->NewFileNumber();
  pending_outputs_.insert(number);
  return number;
}

Status DBImpl::RunCompaction(Compaction* c) {
  mutex_.AssertHeld();
  Status s;
  CompactionStats cstats;
  cstats.count = 1;
  const bool notify = !options_.listeners.empty();
  CompactionJobInfo info;
  if (notify) {
    info.db_name = dbname_;
    info.job_id = next_job_id_++;
    info.compaction_reason = CompactionReasonName(c->reason());
    info.base_input_level = c->level();
    info.output_level = c->output_level();
    info.is_trivial_move = c->IsTrivialMove();
    for (int which = 0; which < 2; ++which) {
      for (const FileMetaData* f : c->inputs(which)) {
        info.input_files.push_back(TableFileName(dbname_, f->number));
        info.input_bytes += f->file_size;
      }
    }
  }
  if (c->IsTrivialMove()) {
    if (notify) {
      QueueEvent([this, info] {
        ForEachListener(
            [&](EventListener* l) { l->OnCompactionBegin(this, info); });
      });
    }
    FileMetaData* f = c->input(0, 0);
    c->edit()->RemoveFile(c->level(), f->number);
    c->edit()->AddFile(c->output_level(), *f);
    s = versions_->LogAndApply(c->edit(), &mutex_);
    cstats.bytes_moved = f->file_size;
    cstats.num_input_files_in_non_output_levels = 1;
    Log(info_log_.get(), "Moved %s to level %d (%" PRIu64 " bytes): %s",
        TableFileBaseName(f->number).c_str(), c->output_level(), f->file_size,
        s.ToString().c_str());
  } else {
    std::vector<SequenceNumber> snapshots = SnapshotSequences();
    CompactionJob job(
        dbname_, env_, sst_env_options_, options_.rate_limiter.get(),
        TableOptionsForLevel(c->output_level()), icmp_.user_comparator(),
        versions_.get(), c, std::move(snapshots),
        [this] { return NewOutputFileNumber(); }, &shutting_down_);
    job.SetPausePoint(&flush_waiting_, [this] { FlushForCompactionJob(); });
    job.SetCopyBlocks(options_.compaction_copy_blocks);
    job.SetRecycler(table_recycler_.get());
    if (writer_watch_.enabled()) {
      job.SetYieldWatches({nullptr, &writer_watch_, &flush_watch_});
    }
    ++jobs_taking_flushes_;
    mutex_.Unlock();
    ForEachListener(
        [&](EventListener* l) { l->OnCompactionBegin(this, info); });
    s = job.Run();
    if (notify) {
      for (const FileMetaData& f : job.outputs()) {
        TableFileCreationInfo created;
        created.db_name = dbname_;
        created.job_id = info.job_id;
        created.reason = "compaction";
        created.file_path = TableFileName(dbname_, f.number);
        created.file_number = f.number;
        created.file_size = f.file_size;
        created.level = c->output_level();
        created.status = s;
        ForEachListener(
            [&](EventListener* l) { l->OnTableFileCreated(created); });
      }
    }
    mutex_.Lock();
    --jobs_taking_flushes_;
    if (flush_waiting_.load(std::memory_order_relaxed)) {
      HandOffOrScheduleFlush();
    }
    if (s.ok()) {
      job.AddToEdit(c->edit());
      s = versions_->LogAndApply(c->edit(), &mutex_);
    }
    for (const FileMetaData& f : job.outputs()) {
      pending_outputs_.erase(f.number);
    }
    const CompactionJobStats& js = job.stats();
    cstats.micros = js.micros;
    cstats.cpu_micros = js.cpu_micros;
    cstats.bytes_read_non_output_levels = js.bytes_read_input_level;
    cstats.bytes_read_output_level = js.bytes_read_output_level;
    cstats.bytes_written = js.bytes_written;
    cstats.num_input_files_in_non_output_levels = js.input_files_input_level;
    cstats.num_input_files_in_output_level = js.input_files_output_level;
    cstats.num_output_files = static_cast<int>(job.outputs().size());
    cstats.num_input_records = js.input_records;
    cstats.num_dropped_records = js.dropped_records;
    if (stats_ != nullptr && s.ok()) {
      RecordTick(kCompactReadBytes,
                 js.bytes_read_input_level + js.bytes_read_output_level);
      RecordTick(kCompactWriteBytes, js.bytes_written);
      RecordTick(kCompactCopiedBytes, js.copied_bytes);
      RecordTick(kSstBytesWritten, js.bytes_written);
      RecordTick(kCompactionKeyDropObsolete, js.dropped_records);
      MeasureTime(kCompactionMicros, js.micros);
    }
    if (notify) {
      for (const FileMetaData& f : job.outputs()) {
        info.output_files.push_back(TableFileName(dbname_, f.number));
      }
      info.input_records = js.input_records;
      info.output_bytes = js.bytes_written;
      info.output_records = js.output_records;
      info.records_dropped = js.dropped_records;
      info.duration_micros = js.micros;
      info.cpu_micros = js.cpu_micros;
    }
    Log(info_log_.get(),
        "Compacted L%d (%d files) + L%d (%d files) -> %zu files at L%d "
        "(%" PRIu64 " written over recycled files): read %" PRIu64
        " bytes, wrote %" PRIu64 " bytes, dropped %" PRIu64 " of %" PRIu64
        " entries (copied %" PRIu64 " blocks, %" PRIu64 " bytes) in %" PRIu64
        " us (CPU %" PRIu64 " us, %s): %s",
        c->level(), js.input_files_input_level, c->output_level(),
        js.input_files_output_level, job.outputs().size(), c->output_level(),
        js.recycled_outputs,
        js.bytes_read_input_level + js.bytes_read_output_level,
        js.bytes_written, js.dropped_records, js.input_records,
        js.copied_blocks, js.copied_bytes, js.micros, js.cpu_micros,
        CompactionReasonName(c->reason()), s.ToString().c_str());
  }
  if (s.ok()) internal_stats_.AddCompactionStats(c->output_level(), cstats);
  if (notify) {
    info.status = s;
    QueueEvent([this, info] {
      ForEachListener(
          [&](EventListener* l) { l->OnCompactionCompleted(this, info); });
    });
  }
  c->ReleaseInputs();
  delete c;
  UpdateWriteController();
  RemoveObsoleteFiles();
  return s;
}

void DBImpl::RemoveObsoleteFiles() {
  mutex_.AssertHeld();
  if (!bg_error_.ok() || read_only_ || versions_ == nullptr) return;
  // Listing a directory of a few hundred tables takes 50-100 us, which
  // every read and write waiting for the mutex would wait too. Without the
  // mutex the listing may be out of date by the time it is read, and that
  // is safe: a file created since is not in it (a new table's number is
  // in pending_outputs_ before the file exists, and the live set is taken
  // after the listing), and a name that has gone since in other ways (a
  // recycled table file written over, CURRENT's temporary file) is at
  // worst deleted in vain. But a file gone meanwhile through this function's
  // own work would be handled twice: a WAL written over under a new log's
  // name, or deleted, kept for recycling again under its old name; a table
  // deleted by the deleter handed over again, its listeners told of a
  // second, failed deletion. Such names are dropped from the listing (a
  // new file's name is a new number, so an old name never comes back).
  std::vector<std::string> children;
  const uint64_t files_gone = files_gone_;
  mutex_.Unlock();
  env_->GetChildren(dbname_, &children).IgnoreError();  // retried next time
  mutex_.Lock();
  if (!bg_error_.ok()) return;
  if (files_gone_ != files_gone) DropGoneFiles(files_gone, &children);
  std::set<uint64_t> live = pending_outputs_;
  versions_->AddLiveFiles(&live);
  const uint64_t log_number = versions_->LogNumber();
  const uint64_t manifest_number = versions_->ManifestFileNumber();
  std::vector<std::string> wals;          // deleted here
  std::vector<std::string> to_hand_over;  // to the deleter
  std::vector<uint64_t> to_evict;         // tables closed here first
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(child, &number, &type)) continue;
    bool keep = true;
    switch (type) {
      case FileType::kWalFile:
        keep = number >= log_number;
        break;
      case FileType::kManifestFile:
        keep = number >= manifest_number;
        break;
      case FileType::kTableFile:
        keep = live.count(number) > 0;
        break;
      case FileType::kRecycledTableFile:
        // A kept one is written over by a new table; others are left over
        // (from before Open, or a failed reuse).
        keep = table_recycler_ != nullptr && table_recycler_->IsKept(number);
        break;
      case FileType::kTempFile:
        // CURRENT is written through NNNNNN.dbtmp, NNNNNN the number of a
        // MANIFEST being started without the mutex: newer than the current
        // one until it is installed.
        keep = live.count(number) > 0 || number > manifest_number;
        break;
      default:
        break;
    }
    if (!keep) {
      if (type == FileType::kWalFile) {
        // One another call is deleting (unlocked, below) must not be kept
        // for recycling meanwhile.
        if (deleting_.count(child) == 0 && !KeepForRecycling(child, number)) {
          deleting_.insert(child);
          wals.push_back(child);
        }
      } else if (deleting_.insert(child).second) {  // not handed over yet
        to_hand_over.push_back(child);
        if (type == FileType::kTableFile) to_evict.push_back(number);
      }
    }
  }
  if (!to_evict.empty()) {
    // No Version names these tables, so nothing looks them up again; the
    // cached readers are closed (their mappings unmapped, a page-table
    // teardown) before the deleter unlinks the files.
    mutex_.Unlock();
    for (uint64_t number : to_evict) table_cache_->Evict(number);
    mutex_.Lock();
  }
  if (!to_hand_over.empty() && deleter_ == nullptr) {
    deleter_ = std::make_unique<ThreadPool>(1, "cascadedb:del");
  }
  for (std::string& name : to_hand_over) {
    deleter_->Schedule(&DBImpl::BGWorkDelete,
                       new DeletionJob{this, std::move(name)});
  }
  if (wals.empty()) return;
  // A WAL's unlink is mostly CPU work (freeing its page-cache pages: a
  // 64 MiB memtable's WAL is 16,384 of them), which a thread of its own
  // would only move beside the writer; the thread that made the WAL
  // obsolete does it, as before.
  mutex_.Unlock();
  for (const std::string& name : wals) DeleteObsoleteFile(name);
  mutex_.Lock();
  for (std::string& name : wals) {
    deleting_.erase(name);
    FileGone(std::move(name));
  }
}

void DBImpl::FileGone(std::string name) {
  mutex_.AssertHeld();
  ++files_gone_;
  gone_file_names_.push_back(std::move(name));
  if (gone_file_names_.size() > kGoneFileNamesKept) {
    gone_file_names_.pop_front();
  }
}

void DBImpl::DropGoneFiles(uint64_t files_gone_before,
                           std::vector<std::string>* children) {
  mutex_.AssertHeld();
  const uint64_t gone = files_gone_ - files_gone_before;
  if (gone > gone_file_names_.size()) {
    // More have gone than are remembered: the whole listing is left to
    // the next call.
    children->clear();
    return;
  }
  const std::set<std::string> names(
      gone_file_names_.end() - static_cast<std::ptrdiff_t>(gone),
      gone_file_names_.end());
  children->erase(std::remove_if(children->begin(), children->end(),
                                 [&](const std::string& child) {
                                   return names.count(child) > 0;
                                 }),
                  children->end());
}

bool DBImpl::KeepForRecycling(const std::string& name, uint64_t number) {
  mutex_.AssertHeld();
  if (std::find(recycled_logs_.begin(), recycled_logs_.end(), name) !=
      recycled_logs_.end()) {
    return true;  // kept already
  }
  if (recycled_logs_.size() >= recycle_log_file_num_ ||
      first_recyclable_log_ == 0 || number < first_recyclable_log_ ||
      old_logs_unlocked_ > 0 || closed_) {
    return false;
  }
  for (const PendingLog& p : logs_to_sync_) {
    if (p.number == number) return false;  // still open
  }
  recycled_logs_.push_back(name);
  return true;
}

void DBImpl::DeleteObsoleteFile(const std::string& name) {
  uint64_t number;
  FileType type;
  const bool table =
      ParseFileName(name, &number, &type) && type == FileType::kTableFile;
  Status s;
  if (table && table_recycler_ != nullptr) {
    // Closed already (RemoveObsoleteFiles evicted it before handing it
    // over), so it can be kept to be written over.
    if (table_recycler_->Keep(number, &s)) {
      Log(info_log_.get(), "Keep %s for recycling", name.c_str());
      NotifyTableFileDeleted(number, s);
      return;
    }
    if (!s.ok()) {
      Log(info_log_.get(), "Keep %s for recycling: %s", name.c_str(),
          s.ToString().c_str());
    }
  }
  s = env_->RemoveFile(dbname_ + "/" + name);
  Log(info_log_.get(), "Delete %s: %s", name.c_str(), s.ToString().c_str());
  if (table) NotifyTableFileDeleted(number, s);
}

void DBImpl::BGWorkDelete(void* arg) {
  std::unique_ptr<DeletionJob> job(static_cast<DeletionJob*>(arg));
  job->db->DeleteObsoleteFile(job->name);
  MutexLock l(&job->db->mutex_);
  job->db->deleting_.erase(job->name);
  job->db->FileGone(std::move(job->name));
}

void DBImpl::UnrefVersion(Version* v) {
  mutex_.AssertHeld();
  const bool stale = v != versions_->current();
  if (v->Unref() && stale) SchedulePurge();
}

void DBImpl::SchedulePurge() {
  mutex_.AssertHeld();
  // A flush or compaction scheduled now ends with RemoveObsoleteFiles
  // anyway: under a steady write load a purge per replaced Version would
  // only list the directory again, under the mutex every write takes.
  if (purge_scheduled_ || closed_ || HasBackgroundWork()) return;
  purge_scheduled_ = true;
  if (deleter_ == nullptr) {
    deleter_ = std::make_unique<ThreadPool>(1, "cascadedb:del");
  }
  deleter_->Schedule(&DBImpl::BGWorkPurge, this);
}

void DBImpl::BGWorkPurge(void* arg) {
  DBImpl* db = static_cast<DBImpl*>(arg);
  MutexLock l(&db->mutex_);
  db->purge_scheduled_ = false;
  // Close waits for the deleter's jobs; past its start there is nothing
  // to do (the next Open deletes what is left).
  if (!db->shutting_down_.load(std::memory_order_acquire)) {
    db->RemoveObsoleteFiles();
  }
}

void DBImpl::WaitForDeletions() {
  ThreadPool* deleter;
  {
    MutexLock l(&mutex_);
    deleter = deleter_.get();
  }
  // deleter_ is only ever created, and destroyed with the DBImpl.
  if (deleter != nullptr) deleter->WaitForJobs();
}

// ---------------------------------------------------------------- maintenance

Status DBImpl::Flush(const FlushOptions& options) {
  Status s = FlushImpl(options);
  DeliverEvents();
  return s;
}

Status DBImpl::FlushImpl(const FlushOptions& options) {
  if (read_only_) return Status::NotSupported("flush", "the DB is read-only");
  // The switch happens in the write queue so no write is in flight: either
  // this call reaches the front, or the current leader does it for us
  // (a leader waiting out a write stall does, so a Flush - and the
  // CompactRange that needs it to end the stall - never waits for it).
  Writer w(&mutex_);  // batch == nullptr: never joins a write group
  MutexLock l(&mutex_);
  if (closed_) return Status::Aborted("DB closed");
  writers_.push_back(&w);
  flush_requested_ = true;
  bg_cv_.SignalAll();
  while (!w.done && &w != writers_.front()) w.cv.Wait();
  Status s;
  if (w.done) {
    s = w.status;
  } else {
    StopWait stop;
    for (;;) {
      bool serviced = false;
      s = ServiceFlushRequests(&w, &serviced);
      if (!s.ok() || serviced) break;
      WaitWhileStopped(StallCause::kMemtableLimit, &stop);
    }
    EndStopWait(&stop);
    writers_.pop_front();
    if (!writers_.empty()) writers_.front()->cv.Signal();
  }
  if (s.ok() && options.wait) {
    MaybeScheduleFlush();  // not left waiting for a compaction job
    while (!imm_.empty() && bg_error_.ok()) bg_cv_.Wait();
    s = bg_error_;
  }
  return s;
}

Status DBImpl::WaitForCompact() {
  {
    MutexLock l(&mutex_);
    for (;;) {
      if (!bg_error_.ok()) return bg_error_;
      if (closed_) return Status::Aborted("DB closed");
      MaybeScheduleFlush();
      MaybeScheduleCompaction();
      // The next WAL's preparation too: its file is there once this returns.
      if (!HasBackgroundWork() && !wal_preparing_) break;
      bg_cv_.Wait();
    }
  }
  WaitForDeletions();  // and the files they made obsolete are gone
  return Status::OK();
}

Status DBImpl::CompactRange(const CompactRangeOptions& options,
                            const Slice* begin, const Slice* end) {
  Status s = CompactRangeImpl(options, begin, end);
  // The replaced files are gone when it returns, as callers measuring
  // space expect; also when a later job failed, after earlier ones had
  // made files obsolete.
  WaitForDeletions();
  DeliverEvents();
  return s;
}

Status DBImpl::CompactRangeImpl(const CompactRangeOptions& /*options*/,
                                const Slice* begin, const Slice* end) {
  if (read_only_) {
    return Status::NotSupported("compact range", "the DB is read-only");
  }
  Status s = FlushImpl(FlushOptions());
  if (!s.ok()) return s;
  InternalKey begin_key, end_key;
  if (begin != nullptr) {
    begin_key = InternalKey(*begin, kMaxSequenceNumber, kValueTypeForSeek);
  }
  if (end != nullptr) end_key = InternalKey(*end, 0, kTypeDeletion);
  const InternalKey* b = begin != nullptr ? &begin_key : nullptr;
  const InternalKey* e = end != nullptr ? &end_key : nullptr;

  MutexLock l(&mutex_);
  ++manual_compactions_;
  // Down to the deepest level holding data in the range, looked up again
  // at each level: an automatic compaction running meanwhile may have
  // moved the range's data deeper than it was at the start.
  for (int level = 0; s.ok() && level < DeepestLevelOverlapping(b, e);
       ++level) {
    for (;;) {
      if (!bg_error_.ok()) {
        s = bg_error_;
        break;
      }
      if (shutting_down_.load(std::memory_order_acquire)) {
        s = Status::Aborted("DB closed");
        break;
      }
      std::vector<FileMetaData*> files;
      versions_->current()->GetOverlappingInputs(level, b, e, &files);
      if (files.empty()) break;
      Compaction* c =
          versions_->picker()->CompactRange(versions_->current(), level, b, e);
      if (c == nullptr) {
        // Some inputs are being compacted: wait for that job, then retry.
        if (!HasBackgroundWork()) break;
        bg_cv_.Wait();
        continue;
      }
      s = RunCompaction(c);
      if (!s.ok()) break;
    }
  }
  --manual_compactions_;
  MaybeScheduleCompaction();
  bg_cv_.SignalAll();
  return s;
}

int DBImpl::DeepestLevelOverlapping(const InternalKey* b,
                                    const InternalKey* e) {
  mutex_.AssertHeld();
  Version* v = versions_->current();
  int deepest = 1;  // L0 always goes to L1 at least
  for (int level = 1; level < v->num_levels(); ++level) {
    std::vector<FileMetaData*> files;
    v->GetOverlappingInputs(level, b, e, &files);
    if (!files.empty()) deepest = level;
  }
  return deepest;
}

Status DBImpl::GetApproximateSizes(const Range* ranges, int n,
                                   uint64_t* sizes) {
  Version* v;
  {
    MutexLock l(&mutex_);
    if (closed_) return Status::Aborted("DB closed");
    v = versions_->current();
    v->Ref();
  }
  for (int i = 0; i < n; ++i) {
    InternalKey k1(ranges[i].start, kMaxSequenceNumber, kValueTypeForSeek);
    InternalKey k2(ranges[i].limit, kMaxSequenceNumber, kValueTypeForSeek);
    const uint64_t start = versions_->ApproximateOffsetOf(v, k1);
    const uint64_t limit = versions_->ApproximateOffsetOf(v, k2);
    sizes[i] = limit >= start ? limit - start : 0;
  }
  MutexLock l(&mutex_);
  v->Unref();
  return Status::OK();
}

void DBImpl::GetLiveFilesMetaData(std::vector<LiveFileMetaData>* files) {
  files->clear();
  MutexLock l(&mutex_);
  if (closed_) return;
  Version* v = versions_->current();
  for (int level = 0; level < v->num_levels(); ++level) {
    for (const FileMetaData* f : v->files(level)) {
      LiveFileMetaData m;
      m.name = TableFileBaseName(f->number);
      m.level = level;
      m.file_number = f->number;
      m.size = f->file_size;
      m.smallest_key = f->smallest.user_key().ToString();
      m.largest_key = f->largest.user_key().ToString();
      m.smallest_seqno = f->smallest_seqno;
      m.largest_seqno = f->largest_seqno;
      m.being_compacted = f->being_compacted;
      files->push_back(std::move(m));
    }
  }
}

// ---------------------------------------------------------------- destroy

Status DestroyDB(const std::string& dbname, const Options& options) {
  Env* env = options.env != nullptr ? options.env : Env::Default();
  std::vector<std::string> children;
  Status s = env->GetChildren(dbname, &children);
  if (!s.ok()) return Status::OK();  // no such directory: nothing to do
  std::unique_ptr<FileLock> lock;
  const std::string lockname = LockFileName(dbname);
  s = env->LockFile(lockname, &lock);
  if (!s.ok()) return s;
  Status result;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (ParseFileName(child, &number, &type) && type != FileType::kLockFile) {
      Status del = env->RemoveFile(dbname + "/" + child);
      if (result.ok() && !del.ok()) result = del;
    }
  }
  env->UnlockFile(std::move(lock)).IgnoreError();  // the file goes next
  env->RemoveFile(lockname).IgnoreError();         // may already be gone
  env->RemoveDir(dbname).IgnoreError();  // fails if the user left files
  return result;
}

}  // namespace cascadedb

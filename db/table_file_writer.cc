// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/table_file_writer.h"

#include <thread>

#include "db/dbformat.h"
#include "db/filename.h"
#include "db/table_file_recycler.h"
#include "db/value_compression.h"
#include "util/writable_file_wrapper.h"

namespace cascadedb {

// Passes appends through to the file after the rate limiter allows them,
// and yields the CPU before an append to a thread its watches show held
// up (YieldWatches).
class TableFileWriter::JobFile : public WritableFileWrapper {
 public:
  JobFile(std::unique_ptr<WritableFile> target, RateLimiter* limiter,
          RateLimiter::IOPriority priority, const YieldWatches& watches)
      : WritableFileWrapper(std::move(target)),
        limiter_(limiter),
        priority_(priority),
        own_(watches.own),
        writer_(watches.writer),
        flush_(watches.flush) {}

  Status Append(const Slice& data) override {
    if (limiter_ != nullptr) {
      // Large appends are charged in burst-sized pieces by the limiter.
      limiter_->Request(static_cast<int64_t>(data.size()), priority_);
    }
    if (own_ != nullptr) own_->Working();
    // Between two blocks: the next append can wait. Both observers look,
    // so that each sees every mark.
    const bool writer_held_up = writer_.HeldUp();
    const bool flush_held_up = flush_.HeldUp();
    if (writer_held_up || flush_held_up) {
      std::this_thread::yield();
      (writer_held_up ? writer_ : flush_).CountYield();
    }
    return WritableFileWrapper::Append(data);
  }

 private:
  RateLimiter* const limiter_;
  const RateLimiter::IOPriority priority_;
  YieldWatch* const own_;
  YieldWatch::Observer writer_;
  YieldWatch::Observer flush_;
};

TableFileWriter::TableFileWriter(Env* env, const EnvOptions& env_options,
                                 RateLimiter* rate_limiter,
                                 RateLimiter::IOPriority priority)
    : env_(env),
      env_options_(env_options),
      rate_limiter_(rate_limiter),
      priority_(priority) {}

TableFileWriter::~TableFileWriter() {
  if (builder_ != nullptr) Abandon();
}

Status TableFileWriter::Open(const std::string& dbname, uint64_t number,
                             const TableOptions& options) {
  assert(builder_ == nullptr);
  // The builder reads sequence numbers out of the keys for the metadata.
  assert(options.key_format == InternalKeyFormat::Get());
  dbname_ = dbname;
  file_name_ = TableFileName(dbname, number);
  std::unique_ptr<WritableFile> file;
  reused_file_ = false;
  Status s = recycler_ != nullptr
                 ? recycler_->NewTableFile(file_name_, env_options_, &file,
                                           &reused_file_)
                 : env_->NewWritableFile(file_name_, &file, env_options_);
  if (!s.ok()) return s;
  file_ = std::make_unique<JobFile>(std::move(file), rate_limiter_, priority_,
                                    yield_watches_);
  builder_ = std::make_unique<TableBuilder>(options, file_.get());
  value_compression_ = options.compression;
  value_compression_level_ = options.compression_level;
  value_compression_min_size_ = options.compression != kNoCompression
                                    ? options.value_compression_min_size
                                    : 0;
  meta_ = FileMetaData();
  meta_.number = number;
  return builder_->status();
}

void TableFileWriter::Add(const Slice& internal_key, const Slice& value) {
  assert(builder_ != nullptr);
  if (internal_key.size() >= kInternalKeyTrailerSize) {
    const auto type =
        static_cast<ValueType>(ExtractTrailer(internal_key) & 0xff);
    if (type == kTypeValueCompressed) {
      AddToBuilder(internal_key, value, /*value_compressed=*/true);
      return;
    }
    if (type == kTypeValue && value_compression_min_size_ > 0 &&
        value.size() >= value_compression_min_size_ &&
        CompressValue(value_compression_, value_compression_level_, value,
                      &value_scratch_)) {
      key_scratch_.assign(internal_key.data(), internal_key.size());
      SetInternalKeyType(&key_scratch_, kTypeValueCompressed);
      AddToBuilder(key_scratch_, value_scratch_, /*value_compressed=*/true);
      return;
    }
  }
  AddToBuilder(internal_key, value, /*value_compressed=*/false);
}

void TableFileWriter::AddToBuilder(const Slice& internal_key,
                                   const Slice& value, bool value_compressed) {
  if (builder_->NumEntries() == 0) meta_.smallest.DecodeFrom(internal_key);
  // The largest key and the sequence range are the builder's (its last key
  // and its properties), taken at Finish rather than tracked here again.
  builder_->Add(internal_key, value, value_compressed);
}

void TableFileWriter::AddStoredBlock(const Slice& stored, Iterator* entries) {
  assert(builder_ != nullptr);
  if (builder_->NumEntries() == 0) {
    entries->SeekToFirst();
    if (entries->Valid()) meta_.smallest.DecodeFrom(entries->key());
  }
  builder_->AddStoredBlock(stored, entries);
}

Status TableFileWriter::Finish(FileMetaData* meta) {
  const std::string name = file_name_;
  std::unique_ptr<WritableFile> file;
  Status s = FinishUnsynced(meta, &file);
  if (!s.ok()) return s;
  s = file->Sync();
  if (s.ok()) s = file->Close();
  // The file's directory entry must be durable before a MANIFEST edit
  // names it.
  if (s.ok()) s = env_->SyncDir(dbname_);
  if (!s.ok()) {
    file.reset();
    // Best effort: an orphan SST is deleted as garbage at the next Open.
    env_->RemoveFile(name).IgnoreError();
  }
  return s;
}

Status TableFileWriter::FinishUnsynced(FileMetaData* meta,
                                       std::unique_ptr<WritableFile>* file) {
  assert(builder_ != nullptr);
  if (builder_->NumEntries() > 0) {
    meta_.largest.DecodeFrom(builder_->LastKey());  // before Finish shortens it
    meta_.smallest_seqno = builder_->properties().smallest_seqno;
    meta_.largest_seqno = builder_->properties().largest_seqno;
  }
  Status s = builder_->Finish();
  if (s.ok()) s = file_->StartWriteback();
  if (!s.ok()) {
    builder_.reset();
    file_.reset();
    env_->RemoveFile(file_name_).IgnoreError();
    return s;
  }
  meta_.file_size = builder_->FileSize();
  *meta = meta_;
  *file = std::move(file_);
  Close();
  return s;
}

void TableFileWriter::Abandon() {
  if (builder_ == nullptr) return;
  builder_->Abandon();
  builder_.reset();
  file_.reset();
  // Best effort: an orphan SST is deleted as garbage at the next Open.
  env_->RemoveFile(file_name_).IgnoreError();
}

void TableFileWriter::Close() {
  last_properties_ = builder_->properties();
  builder_.reset();
  file_.reset();
}

uint64_t TableFileWriter::NumEntries() const {
  return builder_ != nullptr ? builder_->NumEntries()
                             : last_properties_.num_entries;
}

uint64_t TableFileWriter::FileSize() const {
  return builder_ != nullptr ? builder_->FileSize() : meta_.file_size;
}

const TableProperties& TableFileWriter::properties() const {
  return builder_ != nullptr ? builder_->properties() : last_properties_;
}

}  // namespace cascadedb

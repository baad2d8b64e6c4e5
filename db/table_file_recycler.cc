// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/table_file_recycler.h"

#include <algorithm>
#include <utility>

#include "db/filename.h"

namespace cascadedb {

TableFileRecycler::TableFileRecycler(Env* env, std::string dbname,
                                     uint64_t capacity_bytes)
    : env_(env), dbname_(std::move(dbname)), capacity_bytes_(capacity_bytes) {}

bool TableFileRecycler::Keep(uint64_t number, Status* s) {
  *s = Status::OK();
  {
    MutexLock l(&mu_);
    if (closed_) return false;
  }
  const std::string name = TableFileName(dbname_, number);
  // The file's own facts are looked up without the lock, which
  // NewTableFile (on a flush or compaction thread) also takes.
  uint64_t bytes = 0;
  *s = env_->GetFileSize(name, &bytes);
  if (!s->ok() || bytes > capacity_bytes_) return false;
  // Written over in place, a file linked elsewhere too (a checkpoint)
  // would change there as well; it is deleted instead, which leaves the
  // other link's bytes alone. An Env that cannot tell gets the same.
  uint64_t links = 0;
  if (!env_->NumFileLinks(name, &links).ok() || links != 1) return false;
  MutexLock l(&mu_);
  if (closed_ || bytes > capacity_bytes_ - kept_bytes_) return false;
  *s = env_->RenameFile(name, RecycledTableFileName(dbname_, number));
  if (!s->ok()) return false;
  kept_.push_back(Kept{number, bytes});
  kept_bytes_ += bytes;
  return true;
}

Status TableFileRecycler::NewTableFile(const std::string& fname,
                                       const EnvOptions& options,
                                       std::unique_ptr<WritableFile>* result,
                                       bool* reused) {
  *reused = false;
  {
    MutexLock l(&mu_);
    if (!closed_ && !kept_.empty()) {
      const Kept old = kept_.front();
      kept_.pop_front();
      kept_bytes_ -= old.bytes;
      EnvOptions reuse_options = options;
      reuse_options.truncate_on_sync = true;
      Status s = env_->ReuseWritableFile(
          fname, RecycledTableFileName(dbname_, old.number), result,
          reuse_options);
      if (s.ok()) {
        *reused = true;
        return s;
      }
      result->reset();
    }
  }
  return env_->NewWritableFile(fname, result, options);
}

bool TableFileRecycler::IsKept(uint64_t number) const {
  MutexLock l(&mu_);
  return std::any_of(kept_.begin(), kept_.end(),
                     [number](const Kept& k) { return k.number == number; });
}

std::vector<std::string> TableFileRecycler::Close() {
  MutexLock l(&mu_);
  closed_ = true;
  std::vector<std::string> paths;
  for (const Kept& k : kept_) {
    paths.push_back(RecycledTableFileName(dbname_, k.number));
  }
  kept_.clear();
  kept_bytes_ = 0;
  return paths;
}

size_t TableFileRecycler::NumKept() const {
  MutexLock l(&mu_);
  return kept_.size();
}

uint64_t TableFileRecycler::KeptBytes() const {
  MutexLock l(&mu_);
  return kept_bytes_;
}

}  // namespace cascadedb

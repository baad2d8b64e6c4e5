// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/table_file_recycler.h"

#include <algorithm>
#include <utility>

#include "db/filename.h"

namespace cascadedb {

TableFileRecycler::TableFileRecycler(Env* env, std::string dbname,
                                     size_t capacity)
    : env_(env), dbname_(std::move(dbname)), capacity_(capacity) {}

bool TableFileRecycler::Keep(uint64_t number, Status* s) {
  *s = Status::OK();
  MutexLock l(&mu_);
  if (closed_ || kept_.size() >= capacity_) return false;
  *s = env_->RenameFile(TableFileName(dbname_, number),
                        RecycledTableFileName(dbname_, number));
  if (!s->ok()) return false;
  kept_.push_back(number);
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
      const uint64_t old = kept_.front();
      kept_.pop_front();
      EnvOptions reuse_options = options;
      reuse_options.truncate_on_sync = true;
      Status s = env_->ReuseWritableFile(
          fname, RecycledTableFileName(dbname_, old), result, reuse_options);
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
  return std::find(kept_.begin(), kept_.end(), number) != kept_.end();
}

std::vector<std::string> TableFileRecycler::Close() {
  MutexLock l(&mu_);
  closed_ = true;
  std::vector<std::string> paths;
  for (uint64_t number : kept_) {
    paths.push_back(RecycledTableFileName(dbname_, number));
  }
  kept_.clear();
  return paths;
}

size_t TableFileRecycler::NumKept() const {
  MutexLock l(&mu_);
  return kept_.size();
}

}  // namespace cascadedb

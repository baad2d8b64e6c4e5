// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// WritableFileWrapper: the base of files that add to another file's
// behaviour (the table writer's rate limiting, test Envs).

#ifndef CASCADEDB_UTIL_WRITABLE_FILE_WRAPPER_H_
#define CASCADEDB_UTIL_WRITABLE_FILE_WRAPPER_H_

#include <cstdint>
#include <memory>
#include <utility>

#include "cascadedb/env.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"

namespace cascadedb {

// A WritableFile that passes every call to the file it wraps; a subclass
// overrides the calls it changes or watches. Not thread-safe (as
// WritableFile).
class WritableFileWrapper : public WritableFile {
 public:
  explicit WritableFileWrapper(std::unique_ptr<WritableFile> target)
      : target_(std::move(target)) {}

  Status Append(const Slice& data) override { return target_->Append(data); }
  Status Close() override { return target_->Close(); }
  Status Flush() override { return target_->Flush(); }
  Status Sync() override { return target_->Sync(); }
  Status Fsync() override { return target_->Fsync(); }
  Status StartWriteback() override { return target_->StartWriteback(); }
  uint64_t GetFileSize() const override { return target_->GetFileSize(); }
  Status Allocate(uint64_t offset, uint64_t len) override {
    return target_->Allocate(offset, len);
  }
  bool use_direct_io() const override { return target_->use_direct_io(); }
  void SetHelperBesideWriter(bool beside) override {
    target_->SetHelperBesideWriter(beside);
  }

 private:
  const std::unique_ptr<WritableFile> target_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_WRITABLE_FILE_WRAPPER_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// An Env for tests that watch the files a DB writes: new files and
// recycled WALs reach one hook (wrap them with util/writable_file_wrapper.h).

#ifndef CASCADEDB_TESTS_TESTUTIL_ENV_WRAPPERS_H_
#define CASCADEDB_TESTS_TESTUTIL_ENV_WRAPPERS_H_

#include <memory>
#include <string>

#include "cascadedb/env.h"
#include "cascadedb/status.h"

namespace cascadedb {
namespace test {

// An EnvWrapper in which NewWritableFile and ReuseWritableFile (a WAL
// written over a recycled one) both end in OnWritableFile, so a test Env
// that watches the files a DB writes cannot miss a recycled WAL.
class WritableFileHookEnv : public EnvWrapper {
 public:
  explicit WritableFileHookEnv(Env* target) : EnvWrapper(target) {}

  Status NewWritableFile(const std::string& fname,
                         std::unique_ptr<WritableFile>* result,
                         const EnvOptions& options) override {
    return OnWritableFile(fname, options,
                          target()->NewWritableFile(fname, result, options),
                          result);
  }
  Status ReuseWritableFile(const std::string& fname,
                           const std::string& old_fname,
                           std::unique_ptr<WritableFile>* result,
                           const EnvOptions& options) override {
    return OnWritableFile(
        fname, options,
        target()->ReuseWritableFile(fname, old_fname, result, options), result);
  }

 protected:
  // Called once fname is open (or failed to open, s says which), with the
  // options it was opened with; may wrap *result. Returns the status the
  // caller gets.
  virtual Status OnWritableFile(const std::string& fname,
                                const EnvOptions& options, const Status& s,
                                std::unique_ptr<WritableFile>* result) = 0;
};

}  // namespace test
}  // namespace cascadedb

#endif  // CASCADEDB_TESTS_TESTUTIL_ENV_WRAPPERS_H_

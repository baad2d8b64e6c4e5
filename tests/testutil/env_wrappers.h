// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Envs for tests that watch the files a DB writes and reads: new files and
// recycled WALs and tables reach one hook (wrap them with
// util/writable_file_wrapper.h), table creations can be held at a gate, a
// WAL append can run a test's hook, and table opens and closes are counted.
// CloseDBFirst closes a test's DB before such an Env goes.

#ifndef CASCADEDB_TESTS_TESTUTIL_ENV_WRAPPERS_H_
#define CASCADEDB_TESTS_TESTUTIL_ENV_WRAPPERS_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "cascadedb/status.h"
#include "tests/testutil/test_util.h"
#include "util/writable_file_wrapper.h"

namespace cascadedb {
namespace test {

// An EnvWrapper in which NewWritableFile and ReuseWritableFile (a WAL or
// table written over a recycled file) both end in OnWritableFile, so a
// test Env that watches the files a DB writes cannot miss a recycled one.
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

// Holds the creation of chosen table files (".sst", counted from 1 in
// creation order) until they are released: after two flushes the 3rd is
// the first compaction's output. A test's flushes and compactions then run
// only when it says. Tables not in held pass at once.
class TableGateEnv : public WritableFileHookEnv {
 public:
  TableGateEnv(Env* target, std::set<int> held)
      : WritableFileHookEnv(target), held_(std::move(held)) {}

  void Release(int n) {
    std::lock_guard<std::mutex> l(mu_);
    held_.erase(n);
    cv_.notify_all();
  }
  void ReleaseAll() {
    std::lock_guard<std::mutex> l(mu_);
    held_.clear();
    cv_.notify_all();
  }
  // True while table n's creation waits at the gate.
  bool Holding(int n) {
    std::lock_guard<std::mutex> l(mu_);
    return waiting_.count(n) > 0;
  }

 private:
  Status OnWritableFile(const std::string& fname, const EnvOptions& /*options*/,
                        const Status& s,
                        std::unique_ptr<WritableFile>* /*result*/) override {
    if (EndsWith(fname, ".sst")) {
      std::unique_lock<std::mutex> l(mu_);
      const int n = ++tables_;
      waiting_.insert(n);
      cv_.wait(l, [this, n] { return held_.count(n) == 0; });
      waiting_.erase(n);
    }
    return s;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::set<int> held_;
  std::set<int> waiting_;
  int tables_ = 0;
};

// Runs a hook, once armed, at the start of the next append to a WAL
// (".log"), on the appending thread: how a test makes one write slow, or
// keeps its CPU busy, at a known point.
class WalAppendHookEnv : public WritableFileHookEnv {
 public:
  WalAppendHookEnv() : WritableFileHookEnv(Env::Default()) {}

  // hook runs in the next WAL append, and only in that one.
  void Arm(std::function<void()> hook) {
    std::lock_guard<std::mutex> l(mu_);
    hook_ = std::move(hook);
    armed_.store(true);
  }

 private:
  class File : public WritableFileWrapper {
   public:
    File(std::unique_ptr<WritableFile> target, WalAppendHookEnv* env)
        : WritableFileWrapper(std::move(target)), env_(env) {}
    Status Append(const Slice& data) override {
      if (env_->armed_.exchange(false)) {
        std::function<void()> hook;
        {
          std::lock_guard<std::mutex> l(env_->mu_);
          hook.swap(env_->hook_);
        }
        if (hook) hook();
      }
      return WritableFileWrapper::Append(data);
    }

   private:
    WalAppendHookEnv* const env_;
  };

  Status OnWritableFile(const std::string& fname, const EnvOptions& /*options*/,
                        const Status& s,
                        std::unique_ptr<WritableFile>* result) override {
    if (s.ok() && EndsWith(fname, ".log")) {
      *result = std::make_unique<File>(std::move(*result), this);
    }
    return s;
  }

  std::mutex mu_;
  std::function<void()> hook_;
  std::atomic<bool> armed_{false};
};

// Runs before (if set), then closes *db, when it goes out of scope.
// Declared after a test's own Env, it closes the DB before that Env is
// destroyed, also when an assertion returns early; before can open a
// TableGateEnv's gates, which would otherwise keep Close waiting.
struct CloseDBFirst {
  std::unique_ptr<DB>* db;
  std::function<void()> before;
  ~CloseDBFirst() {
    if (before) before();
    db->reset();
  }
};

// Counts the tables (".sst" files) opened for reading through it, on
// Env::Default(): tells a table cache's hits from its misses; and how many
// of them are open now (closing a table closes its file).
class TableOpenCountingEnv : public EnvWrapper {
 public:
  TableOpenCountingEnv() : EnvWrapper(Env::Default()) {}
  Status NewRandomAccessFile(const std::string& f,
                             std::unique_ptr<RandomAccessFile>* r,
                             const EnvOptions& o) override {
    Status s = target()->NewRandomAccessFile(f, r, o);
    if (s.ok() && EndsWith(f, ".sst")) {
      opened_.fetch_add(1);
      *r = std::make_unique<CountedFile>(std::move(*r), &open_now_);
    }
    return s;
  }
  int opened() const { return opened_.load(); }
  int open_now() const { return open_now_.load(); }

 private:
  class CountedFile : public RandomAccessFile {
   public:
    CountedFile(std::unique_ptr<RandomAccessFile> file,
                std::atomic<int>* open_now)
        : file_(std::move(file)), open_now_(open_now) {
      open_now_->fetch_add(1);
    }
    ~CountedFile() override { open_now_->fetch_sub(1); }
    Status Read(uint64_t offset, size_t n, Slice* result,
                char* scratch) const override {
      return file_->Read(offset, n, result, scratch);
    }
    bool use_direct_io() const override { return file_->use_direct_io(); }
    bool ReturnsOwnMemory() const override { return file_->ReturnsOwnMemory(); }
    void Prefetch(uint64_t offset, size_t n) const override {
      file_->Prefetch(offset, n);
    }

   private:
    const std::unique_ptr<RandomAccessFile> file_;
    std::atomic<int>* const open_now_;
  };

  std::atomic<int> opened_{0};
  std::atomic<int> open_now_{0};
};

}  // namespace test
}  // namespace cascadedb

#endif  // CASCADEDB_TESTS_TESTUTIL_ENV_WRAPPERS_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// FaultInjectionEnv: an Env for tests that wraps another Env to (1) fail
// chosen operations and (2) simulate a power loss.
//
// Failing operations. Operations come in four kinds (FaultKind). Each
// attempt of a kind is counted, so a test can run a workload once, read
// OperationCount(kind), then rerun it failing the i-th operation for every
// i. SetFailNth(kind, n) fails exactly the n-th (0-based) attempt of that
// kind from the call on; SetFailAll(kind, true) fails every attempt until
// turned off; SetFilesystemActive(false) makes every mutating operation fail
// (a "crashed" filesystem). An injected failure is IOError("injected <kind>
// failure <path>") and the operation has no effect.
//
// Power loss. For every file created or opened for writing through this
// Env, it tracks how many bytes were appended and how many of those a Sync
// or Fsync made durable. It also tracks directory entries not yet durable:
// files created, and renames, since the last successful SyncDir of their
// directory. DropUnsyncedData() then makes the disk look as after a power
// loss:
//   - every tracked file is cut back to its last synced size;
//   - undurable renames are undone, newest first: the file moves back to its
//     old name and the file it replaced, if any, gets its old contents back
//     (its synced prefix, if that file was itself tracked);
//   - files whose creation was not durable are removed.
// Not simulated: removals (RemoveFile is durable at once), directory
// creation and removal, and partially-written or reordered sectors.
// Directories are matched by spelling: SyncDir("db") covers "db/000001.log"
// (a trailing '/' is ignored, "./db" is a different spelling).
//
// To make tracking exact, files are opened on the target Env without a
// write buffer and without direct I/O, so each Append reaches the OS at
// once. Handles opened before DropUnsyncedData() fail every later write or
// sync with IOError, as the process that held them is gone.
//
// Thread safety: thread-safe. Tracking assumes that one file is not
// written, renamed and removed concurrently.

#ifndef CASCADEDB_UTIL_FAULT_INJECTION_ENV_H_
#define CASCADEDB_UTIL_FAULT_INJECTION_ENV_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cascadedb/env.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace cascadedb {

// The kinds of operation a FaultInjectionEnv counts and can fail.
enum class FaultKind {
  kWrite = 0,   // WritableFile::Append
  kSync = 1,    // WritableFile::Sync and Fsync, Env::SyncDir
  kRename = 2,  // Env::RenameFile
  kCreate = 3,  // Env::NewWritableFile and NewAppendableFile
};
inline constexpr int kNumFaultKinds = 4;

// "write", "sync", "rename" or "create".
const char* FaultKindName(FaultKind kind);

class FaultInjectionEnv : public EnvWrapper {
 public:
  // Borrows target, which must outlive this Env.
  explicit FaultInjectionEnv(Env* target);
  ~FaultInjectionEnv() override;

  // ---- failing operations

  // Fails the n-th (0-based) attempt of kind counted from now, once.
  // Replaces any earlier SetFailNth for that kind.
  void SetFailNth(FaultKind kind, uint64_t n) EXCLUDES(mu_);
  void SetFailNthWrite(uint64_t n) { SetFailNth(FaultKind::kWrite, n); }
  void SetFailNthSync(uint64_t n) { SetFailNth(FaultKind::kSync, n); }
  void SetFailNthRename(uint64_t n) { SetFailNth(FaultKind::kRename, n); }
  void SetFailNthCreate(uint64_t n) { SetFailNth(FaultKind::kCreate, n); }

  // While fail is true, every attempt of kind fails.
  void SetFailAll(FaultKind kind, bool fail) EXCLUDES(mu_);

  // While inactive, every write, flush, sync, create, rename and removal
  // fails (counted as usual where it has a kind). Reads still work.
  void SetFilesystemActive(bool active) EXCLUDES(mu_);
  bool IsFilesystemActive() const EXCLUDES(mu_);

  // Disarms every SetFailNth and SetFailAll and makes the filesystem active.
  void ClearFaults() EXCLUDES(mu_);

  // Attempts of kind since construction or ResetCounters(), failed or not.
  uint64_t OperationCount(FaultKind kind) const EXCLUDES(mu_);
  // Failures injected since construction or ResetCounters().
  uint64_t InjectedFailureCount() const EXCLUDES(mu_);
  void ResetCounters() EXCLUDES(mu_);

  // ---- power loss

  // Simulates a power loss as described at the top of this file, then
  // forgets all tracking (what is left is durable). Returns the first error
  // of the target Env while rewriting files; NotFound for files already
  // gone is not an error.
  // REQUIRES: nothing is writing through this Env concurrently.
  Status DropUnsyncedData() EXCLUDES(mu_);

  // Forgets all tracking: every file and directory entry counts as durable.
  void ResetState() EXCLUDES(mu_);

  // ---- Env overrides (the rest forward to the target)

  Status NewWritableFile(const std::string& fname,
                         std::unique_ptr<WritableFile>* result,
                         const EnvOptions& options) override;
  // A rename and a NewWritableFile through this Env (Env's default), so
  // both are counted, can fail, and are tracked for DropUnsyncedData; the
  // old contents are not kept (the file starts empty).
  Status ReuseWritableFile(const std::string& fname,
                           const std::string& old_fname,
                           std::unique_ptr<WritableFile>* result,
                           const EnvOptions& options) override {
    return Env::ReuseWritableFile(fname, old_fname, result, options);
  }
  Status NewAppendableFile(const std::string& fname,
                           std::unique_ptr<WritableFile>* result,
                           const EnvOptions& options) override;
  Status RemoveFile(const std::string& fname) override;
  Status CreateDirIfMissing(const std::string& dir) override;
  Status RemoveDir(const std::string& dir) override;
  Status RenameFile(const std::string& src, const std::string& target) override;
  Status SyncDir(const std::string& dir) override;

 private:
  class TrackedFile;  // the WritableFile handed out, in the .cc

  // What is known about one file written through this Env.
  struct FileState {
    uint64_t size = 0;    // bytes in the file
    uint64_t synced = 0;  // leading bytes made durable by a sync
    bool dead = false;    // DropUnsyncedData ran: the handle is stale
  };

  // A directory change not yet made durable by SyncDir(dir).
  struct EntryChange {
    enum class Kind { kCreate, kRename };
    Kind kind;
    std::string dir;   // directory holding path
    std::string path;  // the created file, or the rename's target
    // kRename only.
    std::string src;
    bool replaced_file = false;  // path existed before the rename
    std::string replaced_contents;
  };

  // Counts an attempt of kind on path and returns the injected failure, or
  // OK if the operation should go ahead.
  Status MaybeFail(FaultKind kind, const std::string& path) EXCLUDES(mu_);

  // OK while the filesystem is active; else the failure for op on path.
  Status CheckActive(const char* op, const std::string& path) const
      EXCLUDES(mu_);

  // Opens through the target and starts tracking (shared by the two
  // NewWritable/AppendableFile overrides).
  Status OpenTracked(const std::string& fname, bool append,
                     const EnvOptions& options,
                     std::unique_ptr<WritableFile>* result) EXCLUDES(mu_);

  // Rewrites fname on the target to hold only its first size bytes.
  Status TruncateOnTarget(const std::string& fname, uint64_t size);

  mutable Mutex mu_;
  bool active_ GUARDED_BY(mu_) = true;
  uint64_t counts_[kNumFaultKinds] GUARDED_BY(mu_) = {};
  // Attempts of a kind still to pass before one fails; -1 = none armed.
  int64_t fail_countdown_[kNumFaultKinds] GUARDED_BY(mu_) = {-1, -1, -1, -1};
  bool fail_all_[kNumFaultKinds] GUARDED_BY(mu_) = {};
  uint64_t injected_failures_ GUARDED_BY(mu_) = 0;
  std::map<std::string, std::shared_ptr<FileState>> files_ GUARDED_BY(mu_);
  std::vector<EntryChange> unsynced_entries_ GUARDED_BY(mu_);
};

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_FAULT_INJECTION_ENV_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/fault_injection_env.h"

#include <algorithm>
#include <utility>

namespace cascadedb {

namespace {

// The directory part of a path, spelled as in the path ("." if none).
std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// dir without trailing slashes ("/" stays "/").
std::string NormalizeDir(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace

const char* FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kWrite:
      return "write";
    case FaultKind::kSync:
      return "sync";
    case FaultKind::kRename:
      return "rename";
    case FaultKind::kCreate:
      return "create";
  }
  return "unknown";
}

// The WritableFile handed out by FaultInjectionEnv: forwards to an
// unbuffered target file and records appended and synced bytes in a
// FileState shared with the Env (which may move it to a new name on rename).
class FaultInjectionEnv::TrackedFile final : public WritableFile {
 public:
  TrackedFile(FaultInjectionEnv* env, std::string fname,
              std::unique_ptr<WritableFile> target,
              std::shared_ptr<FileState> state)
      : env_(env),
        fname_(std::move(fname)),
        target_(std::move(target)),
        state_(std::move(state)) {}

  Status Append(const Slice& data) override {
    Status s = CheckAlive();
    if (s.ok()) s = env_->MaybeFail(FaultKind::kWrite, fname_);
    if (s.ok()) s = target_->Append(data);
    if (s.ok()) {
      MutexLock lock(&env_->mu_);
      state_->size += data.size();
    }
    return s;
  }

  Status Close() override {
    // Nothing is buffered in the target, so closing writes nothing and
    // works even on an inactive filesystem or a stale handle.
    return target_->Close();
  }

  Status Flush() override {
    Status s = CheckAlive();
    if (s.ok()) s = env_->CheckActive("flush", fname_);
    if (s.ok()) s = target_->Flush();
    return s;
  }

  Status Sync() override { return SyncImpl(/*metadata=*/false); }
  Status Fsync() override { return SyncImpl(/*metadata=*/true); }

  uint64_t GetFileSize() const override { return target_->GetFileSize(); }

  Status Allocate(uint64_t offset, uint64_t len) override {
    return target_->Allocate(offset, len);
  }

  void SetHelperBesideWriter(bool beside) override {
    target_->SetHelperBesideWriter(beside);
  }

 private:
  Status CheckAlive() const {
    MutexLock lock(&env_->mu_);
    if (state_->dead) {
      return Status::IOError(
          fname_, "file handle was opened before a simulated power loss");
    }
    return Status::OK();
  }

  Status SyncImpl(bool metadata) {
    Status s = CheckAlive();
    if (s.ok()) s = env_->MaybeFail(FaultKind::kSync, fname_);
    if (s.ok()) s = metadata ? target_->Fsync() : target_->Sync();
    if (s.ok()) {
      MutexLock lock(&env_->mu_);
      state_->synced = state_->size;
    }
    return s;
  }

  FaultInjectionEnv* const env_;
  const std::string fname_;
  const std::unique_ptr<WritableFile> target_;
  const std::shared_ptr<FileState> state_;  // fields guarded by env_->mu_
};

FaultInjectionEnv::FaultInjectionEnv(Env* target) : EnvWrapper(target) {}

FaultInjectionEnv::~FaultInjectionEnv() = default;

void FaultInjectionEnv::SetFailNth(FaultKind kind, uint64_t n) {
  MutexLock lock(&mu_);
  fail_countdown_[static_cast<int>(kind)] = static_cast<int64_t>(n);
}

void FaultInjectionEnv::SetFailAll(FaultKind kind, bool fail) {
  MutexLock lock(&mu_);
  fail_all_[static_cast<int>(kind)] = fail;
}

void FaultInjectionEnv::SetFilesystemActive(bool active) {
  MutexLock lock(&mu_);
  active_ = active;
}

bool FaultInjectionEnv::IsFilesystemActive() const {
  MutexLock lock(&mu_);
  return active_;
}

void FaultInjectionEnv::ClearFaults() {
  MutexLock lock(&mu_);
  active_ = true;
  std::fill(std::begin(fail_countdown_), std::end(fail_countdown_), -1);
  std::fill(std::begin(fail_all_), std::end(fail_all_), false);
}

uint64_t FaultInjectionEnv::OperationCount(FaultKind kind) const {
  MutexLock lock(&mu_);
  return counts_[static_cast<int>(kind)];
}

uint64_t FaultInjectionEnv::InjectedFailureCount() const {
  MutexLock lock(&mu_);
  return injected_failures_;
}

void FaultInjectionEnv::ResetCounters() {
  MutexLock lock(&mu_);
  std::fill(std::begin(counts_), std::end(counts_), 0);
  injected_failures_ = 0;
}

Status FaultInjectionEnv::MaybeFail(FaultKind kind, const std::string& path) {
  MutexLock lock(&mu_);
  const int k = static_cast<int>(kind);
  counts_[k]++;
  // The countdown advances on every attempt, so "the n-th from now" holds
  // whatever else fails in between.
  bool fail = false;
  if (fail_countdown_[k] == 0) {
    fail = true;
    fail_countdown_[k] = -1;
  } else if (fail_countdown_[k] > 0) {
    fail_countdown_[k]--;
  }
  const char* why = nullptr;
  if (!active_) {
    why = " (filesystem inactive)";
  } else if (fail_all_[k] || fail) {
    why = "";
  }
  if (why == nullptr) return Status::OK();
  injected_failures_++;
  return Status::IOError(std::string("injected ") + FaultKindName(kind) +
                         " failure " + path + why);
}

Status FaultInjectionEnv::CheckActive(const char* op,
                                      const std::string& path) const {
  MutexLock lock(&mu_);
  if (active_) return Status::OK();
  return Status::IOError(std::string("injected ") + op + " failure " + path +
                         " (filesystem inactive)");
}

Status FaultInjectionEnv::OpenTracked(const std::string& fname, bool append,
                                      const EnvOptions& options,
                                      std::unique_ptr<WritableFile>* result) {
  result->reset();
  Status s = MaybeFail(FaultKind::kCreate, fname);
  if (!s.ok()) return s;
  const bool existed = target()->FileExists(fname).ok();

  // Unbuffered and not direct, so that every acknowledged Append is in the
  // OS and DropUnsyncedData sees exactly what was written.
  EnvOptions target_options = options;
  target_options.writable_file_max_buffer_size = 0;
  target_options.use_direct_writes = false;
  target_options.use_mmap_writes = false;
  std::unique_ptr<WritableFile> file;
  s = append ? target()->NewAppendableFile(fname, &file, target_options)
             : target()->NewWritableFile(fname, &file, target_options);
  if (!s.ok()) return s;

  auto state = std::make_shared<FileState>();
  {
    MutexLock lock(&mu_);
    if (append) {
      state->size = file->GetFileSize();
      // Bytes already there are durable unless we know they were not.
      auto it = files_.find(fname);
      state->synced = it == files_.end()
                          ? state->size
                          : std::min(it->second->synced, state->size);
    }
    files_[fname] = state;
    if (!existed) {
      EntryChange change;
      change.kind = EntryChange::Kind::kCreate;
      change.dir = DirOf(fname);
      change.path = fname;
      unsynced_entries_.push_back(std::move(change));
    }
  }
  *result = std::make_unique<TrackedFile>(this, fname, std::move(file),
                                          std::move(state));
  return Status::OK();
}

Status FaultInjectionEnv::NewWritableFile(const std::string& fname,
                                          std::unique_ptr<WritableFile>* result,
                                          const EnvOptions& options) {
  return OpenTracked(fname, /*append=*/false, options, result);
}

Status FaultInjectionEnv::NewAppendableFile(
    const std::string& fname, std::unique_ptr<WritableFile>* result,
    const EnvOptions& options) {
  return OpenTracked(fname, /*append=*/true, options, result);
}

Status FaultInjectionEnv::RemoveFile(const std::string& fname) {
  Status s = CheckActive("remove", fname);
  if (s.ok()) s = target()->RemoveFile(fname);
  if (s.ok()) {
    MutexLock lock(&mu_);
    files_.erase(fname);
  }
  return s;
}

Status FaultInjectionEnv::CreateDirIfMissing(const std::string& dir) {
  Status s = CheckActive("create", dir);
  if (s.ok()) s = target()->CreateDirIfMissing(dir);
  return s;
}

Status FaultInjectionEnv::RemoveDir(const std::string& dir) {
  Status s = CheckActive("remove", dir);
  if (s.ok()) s = target()->RemoveDir(dir);
  return s;
}

Status FaultInjectionEnv::RenameFile(const std::string& src,
                                     const std::string& target_name) {
  Status s = MaybeFail(FaultKind::kRename, src);
  if (!s.ok()) return s;

  // Keep what the rename is about to replace, so that undoing it can bring
  // the old file back.
  EntryChange change;
  change.kind = EntryChange::Kind::kRename;
  change.dir = DirOf(target_name);
  change.path = target_name;
  change.src = src;
  change.replaced_file =
      ReadFileToString(target(), target_name, &change.replaced_contents).ok();

  s = target()->RenameFile(src, target_name);
  if (!s.ok()) return s;

  MutexLock lock(&mu_);
  auto replaced = files_.find(target_name);
  if (replaced != files_.end()) {
    // Only the synced prefix of the replaced file would survive a crash.
    if (change.replaced_file &&
        change.replaced_contents.size() > replaced->second->synced) {
      change.replaced_contents.resize(replaced->second->synced);
    }
    files_.erase(replaced);
  }
  auto moved = files_.find(src);
  if (moved != files_.end()) {
    files_[target_name] = moved->second;
    files_.erase(moved);
  }
  unsynced_entries_.push_back(std::move(change));
  return Status::OK();
}

Status FaultInjectionEnv::SyncDir(const std::string& dir) {
  Status s = MaybeFail(FaultKind::kSync, dir);
  if (s.ok()) s = target()->SyncDir(dir);
  if (s.ok()) {
    const std::string normalized = NormalizeDir(dir);
    MutexLock lock(&mu_);
    unsynced_entries_.erase(
        std::remove_if(unsynced_entries_.begin(), unsynced_entries_.end(),
                       [&normalized](const EntryChange& e) {
                         return e.dir == normalized;
                       }),
        unsynced_entries_.end());
  }
  return s;
}

void FaultInjectionEnv::ResetState() {
  MutexLock lock(&mu_);
  files_.clear();
  unsynced_entries_.clear();
}

Status FaultInjectionEnv::TruncateOnTarget(const std::string& fname,
                                           uint64_t size) {
  // Env has no truncate, so keep the prefix and rewrite the file; this
  // works on any target Env.
  std::string prefix;
  if (size > 0) {
    std::unique_ptr<SequentialFile> file;
    Status s = target()->NewSequentialFile(fname, &file, EnvOptions());
    if (!s.ok()) return s;
    prefix.resize(size);
    Slice got;
    s = file->Read(size, &got, &prefix[0]);
    if (!s.ok()) return s;
    if (got.data() != prefix.data()) {
      std::copy(got.data(), got.data() + got.size(), &prefix[0]);
    }
    prefix.resize(got.size());
  }
  return WriteStringToFile(target(), prefix, fname, /*sync=*/true);
}

Status FaultInjectionEnv::DropUnsyncedData() {
  std::vector<std::pair<std::string, uint64_t>> truncations;
  std::vector<EntryChange> changes;
  {
    MutexLock lock(&mu_);
    for (auto& entry : files_) {
      FileState* state = entry.second.get();
      state->dead = true;
      if (state->size > state->synced) {
        truncations.emplace_back(entry.first, state->synced);
      }
    }
    files_.clear();
    changes.swap(unsynced_entries_);
  }

  Status result;
  auto keep_first_error = [&result](const Status& s) {
    if (result.ok() && !s.ok() && !s.IsNotFound()) result = s;
  };
  for (const auto& t : truncations) {
    keep_first_error(TruncateOnTarget(t.first, t.second));
  }
  // Undo newest first, so a file renamed after its creation is first moved
  // back to its old name, where undoing the creation then finds it.
  for (auto it = changes.rbegin(); it != changes.rend(); ++it) {
    if (it->kind == EntryChange::Kind::kCreate) {
      keep_first_error(target()->RemoveFile(it->path));
      continue;
    }
    keep_first_error(target()->RenameFile(it->path, it->src));
    if (it->replaced_file) {
      keep_first_error(WriteStringToFile(target(), it->replaced_contents,
                                         it->path, /*sync=*/true));
    }
  }
  return result;
}

}  // namespace cascadedb

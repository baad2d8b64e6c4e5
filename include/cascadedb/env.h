// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Env: everything CascadeDB asks of the operating system — files, directories,
// locks, clocks, threads. The engine never calls the OS directly, so tests can
// substitute an Env that injects faults or keeps files in memory.
// Env::Default() is the POSIX implementation.
//
// Thread safety: Env implementations are thread-safe. File objects are not
// thread-safe, except RandomAccessFile, which is thread-safe.

#ifndef CASCADEDB_INCLUDE_CASCADEDB_ENV_H_
#define CASCADEDB_INCLUDE_CASCADEDB_ENV_H_

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cascadedb/slice.h"
#include "cascadedb/status.h"

namespace cascadedb {

class FileLock;
class Logger;
class RandomAccessFile;
class SequentialFile;
class WritableFile;

// How a file is opened. Defaults suit WAL and MANIFEST files.
struct EnvOptions {
  // Open with O_DIRECT for reads. Buffers and offsets are then aligned by the
  // file object itself. A filesystem that refuses O_DIRECT yields
  // NotSupported naming the file.
  bool use_direct_reads = false;

  // Map files opened by NewRandomAccessFile into memory, so reads return
  // pointers into the mapping instead of copying (ignored with
  // use_direct_reads). Only for files that no longer change.
  bool use_mmap_reads = false;

  // NewWritableFile copies appends into a shared memory mapping of the file
  // instead of calling write(2): appended bytes are in the page cache at
  // once (they survive a crash of the process) without a system call. The
  // file holds reserved zeros after the last append until Close. Ignored
  // with use_direct_writes; writable_file_max_buffer_size and
  // preallocation_block_size do not apply.
  bool use_mmap_writes = false;

  // With use_mmap_writes: up to this many bytes of the file's mapping stay
  // mapped while it is written (past it, the regions passed are unmapped),
  // and Close parks them, with the region written last (at most
  // kMaxMmapRegion), for the file's next use (ReuseWritableFile of it, as
  // a recycled WAL is written): a reuse writes its pages with no page
  // fault while they stay dirty. Mapped pages are page cache, yet count in
  // the process's RSS.
  size_t mmap_kept_bytes = 16 << 20;
  static constexpr size_t kMaxMmapRegion = 1 << 20;

  // With use_mmap_writes: when Close parks the file's mappings, the
  // process-wide park then unmaps the longest-parked files' mappings while
  // it holds more than this many bytes.
  size_t mmap_parked_bytes = 32 << 20;

  // Open with O_DIRECT for writes (flush and compaction output).
  bool use_direct_writes = false;

  // WritableFile buffers appends up to this many bytes and writes them in
  // one call. 0 = no buffering. With use_direct_writes this is the size of
  // each write storage sees. Buffered (page cache) files hand the OS at
  // most kMaxBufferedWriteChunk bytes per call: the kernel's writeback, not
  // the call size, decides the I/O sizes storage sees there, and a chunk
  // that stays in the CPU cache costs less to gather and copy (see
  // docs/design/20261125-buffered-write-chunks.md).
  size_t writable_file_max_buffer_size = 1024 * 1024;
  static constexpr size_t kMaxBufferedWriteChunk = 64 * 1024;

  // If > 0, ask the OS to write back every bytes_per_sync bytes in the
  // background (sync_file_range), smoothing out the final fsync.
  uint64_t bytes_per_sync = 0;

  // Preallocate (fallocate) the file in steps of this many bytes as it grows.
  // 0 = never. Ignored where the filesystem does not support it.
  uint64_t preallocation_block_size = 0;

  // Sync and Fsync of a file opened by ReuseWritableFile first cut it to
  // the bytes appended when its old contents reach further, so a file
  // synced and then lost with the process before Close still ends where
  // its appends end. Tables set it: they are read from their end. A
  // recycled WAL does not: its reader tells the old records from the new,
  // and cutting would free the blocks recycling keeps. Writes through
  // use_mmap_writes are not offered for such files: with this set, the
  // write(2) writer is used.
  bool truncate_on_sync = false;
};

class Env {
 public:
  // Background thread pools. Flushes go to kHigh, compactions to kLow, so a
  // flush never queues behind a compaction.
  enum class Priority { kLow = 0, kHigh = 1 };

  // How a pool's threads compete for the CPU, lowest first (see
  // LowerThreadPoolCPUPriority).
  enum class CpuPriority { kIdle = 0, kLow = 1, kNormal = 2 };

  Env() = default;
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;
  virtual ~Env() = default;

  // The process-wide POSIX Env. Never delete it.
  static Env* Default();

  // Opens fname for reading from the start. On success stores the file in
  // *result. Missing file: NotFound; other failures: IOError with errno text.
  virtual Status NewSequentialFile(const std::string& fname,
                                   std::unique_ptr<SequentialFile>* result,
                                   const EnvOptions& options) = 0;

  // Opens fname for positioned reads (pread).
  virtual Status NewRandomAccessFile(const std::string& fname,
                                     std::unique_ptr<RandomAccessFile>* result,
                                     const EnvOptions& options) = 0;

  // Creates fname, truncating any existing file, for appending.
  virtual Status NewWritableFile(const std::string& fname,
                                 std::unique_ptr<WritableFile>* result,
                                 const EnvOptions& options) = 0;

  // Renames old_fname to fname and opens it for writing from offset 0,
  // over its old contents: a file written again and again (an obsolete
  // WAL given a new log's name) keeps its blocks and page-cache pages
  // instead of allocating fresh ones. Bytes after the last append may be
  // the old contents until Close, which cuts the file to what was written
  // (or until a Sync, with EnvOptions::truncate_on_sync).
  // The rename is durable only after SyncDir. The default renames and then
  // calls NewWritableFile (which truncates).
  virtual Status ReuseWritableFile(const std::string& fname,
                                   const std::string& old_fname,
                                   std::unique_ptr<WritableFile>* result,
                                   const EnvOptions& options);

  // Opens fname for appending, creating it if missing.
  virtual Status NewAppendableFile(const std::string& fname,
                                   std::unique_ptr<WritableFile>* result,
                                   const EnvOptions& options) = 0;

  // OK if fname exists, NotFound if not, IOError if that cannot be told.
  virtual Status FileExists(const std::string& fname) = 0;

  // Stores the names (not paths) of dir's entries, without "." and "..".
  virtual Status GetChildren(const std::string& dir,
                             std::vector<std::string>* result) = 0;

  virtual Status RemoveFile(const std::string& fname) = 0;

  // Creates dir; OK if it already exists as a directory.
  virtual Status CreateDirIfMissing(const std::string& dir) = 0;

  virtual Status RemoveDir(const std::string& dir) = 0;

  virtual Status GetFileSize(const std::string& fname, uint64_t* size) = 0;

  // Stores how many directory entries name fname's file (its hard links).
  // Whoever writes over a file in place (table recycling) leaves it alone
  // unless this says 1: a hard link elsewhere (a checkpoint, a backup made
  // with `cp -l`) would see the new bytes. The default answers
  // NotSupported, which such callers take as "leave it alone".
  virtual Status NumFileLinks(const std::string& fname, uint64_t* count);

  // Atomically replaces target with src (rename(2)). Durable only after
  // SyncDir on the directory.
  virtual Status RenameFile(const std::string& src,
                            const std::string& target) = 0;

  // fsyncs a directory so that creations, renames and removals in it are
  // durable.
  virtual Status SyncDir(const std::string& dir) = 0;

  // Takes an exclusive advisory lock on fname (creating it), held until
  // UnlockFile. A lock held by this or another process fails with Busy
  // ("lock <fname>: already held by process <pid>" where known).
  virtual Status LockFile(const std::string& fname,
                          std::unique_ptr<FileLock>* lock) = 0;

  // Releases a lock from LockFile.
  virtual Status UnlockFile(std::unique_ptr<FileLock> lock) = 0;

  // Runs function(arg) once on a thread of the given pool. Returns at once.
  virtual void Schedule(void (*function)(void* arg), void* arg,
                        Priority pri = Priority::kLow) = 0;

  // Sets the number of threads in a pool (default 1 each). Growing starts
  // threads at once; shrinking lets surplus threads exit after their job.
  virtual void SetBackgroundThreads(int number, Priority pri) = 0;
  virtual int GetBackgroundThreads(Priority pri) = 0;

  // Jobs waiting (not yet running) in a pool.
  virtual unsigned int GetThreadPoolQueueLen(Priority pri) const = 0;

  // Blocks until every job scheduled so far in every pool has finished.
  virtual void WaitForBackgroundJobs() = 0;

  // Lowers the CPU priority of a pool's threads, present and future, so
  // that foreground threads (the application's readers and writers) get
  // the CPU first. kLow is nice 19; kIdle is Linux's SCHED_IDLE: the
  // threads run only where no other thread wants the CPU and yield it at
  // once when one does. Threads apply it before their next job. One-way:
  // an unprivileged process cannot raise a thread back, so a priority
  // above the pool's current one leaves it unchanged (OK). Where nothing
  // else runs, the pool still gets the whole CPU; on a saturated machine a
  // lowered pool is starved, and writes stall until its compactions finish
  // (docs/tuning.md). NotSupported where the platform has no such control
  // (the default here); InvalidArgument for values out of range.
  virtual Status LowerThreadPoolCPUPriority(Priority pool, CpuPriority pri);

  // Sets *on_cpu_micros and *waiting_micros to the time a pool's threads
  // have spent on a CPU and runnable but waiting for one (preempted, or
  // woken and not yet run) since the Env started them, threads that have
  // exited included. A pool is shared by every DB using this Env. On a
  // machine with fewer CPUs than busy threads the wait is where a flush or
  // compaction loses time that no stall counter shows. NotSupported where
  // the platform keeps no such figures (the default here; the POSIX Env on
  // Linux keeps them); InvalidArgument for an unknown pool.
  virtual Status GetThreadPoolCpuTime(Priority pool, uint64_t* on_cpu_micros,
                                      uint64_t* waiting_micros) const;

  // The same figures for the threads the Env runs for its own work rather
  // than for scheduled jobs: the POSIX Env's writers' helper
  // (cascadedb:map: mmap WAL regions, memtable arena blocks), one for the
  // whole process. Zeros until such a thread has started. NotSupported by
  // default and where the platform keeps no such figures.
  virtual Status GetHelperThreadsCpuTime(uint64_t* on_cpu_micros,
                                         uint64_t* waiting_micros) const;

  // Runs function(arg) on a new detached thread.
  virtual void StartThread(void (*function)(void* arg), void* arg) = 0;

  // Creates a logger writing to fname (the DB's info LOG).
  virtual Status NewLogger(const std::string& fname,
                           std::shared_ptr<Logger>* result) = 0;

  // A directory for temporary test files, created if missing.
  virtual Status GetTestDirectory(std::string* path) = 0;

  // Monotonic clocks, for measuring intervals.
  virtual uint64_t NowMicros() = 0;
  virtual uint64_t NowNanos() = 0;

  // CPU time the calling thread has used, in nanoseconds (for the CPU
  // column of the compaction stats). 0 where the platform cannot tell;
  // the POSIX Env reads CLOCK_THREAD_CPUTIME_ID.
  virtual uint64_t NowCPUNanos() { return 0; }

  // Wall-clock seconds since the epoch, for file timestamps.
  virtual uint64_t NowWallSeconds() = 0;

  // Sleeps up to this long are spun through by the POSIX Env (below).
  static constexpr int kSleepSpinMicros = 25;

  // Blocks the calling thread for at least micros (nothing for micros <= 0).
  // The POSIX Env spins on the clock through sleeps of up to 25 us (waking
  // a sleeping thread costs more than that on a busy machine), and on
  // Linux times sleeps under 1 ms with 1 us of timer slack (the kernel's
  // default lets them end up to 50 us late), leaving the thread's slack as
  // it found it.
  virtual void SleepForMicroseconds(int micros) = 0;

  // Waits at least micros, as SleepForMicroseconds does, for a thread whose
  // wait ends with work another thread does, which may be queued for a
  // CPU behind it: a delayed write paced to the flush. The POSIX Env
  // gives its CPU away (sched_yield) between looks at the clock through
  // waits of up to kSleepSpinMicros, where SleepForMicroseconds would
  // keep it spinning, and sleeps through longer ones. The default is
  // SleepForMicroseconds.
  virtual void YieldForMicroseconds(int micros) {
    SleepForMicroseconds(micros);
  }
};

// A file read from start to end. Not thread-safe.
class SequentialFile {
 public:
  SequentialFile() = default;
  SequentialFile(const SequentialFile&) = delete;
  SequentialFile& operator=(const SequentialFile&) = delete;
  virtual ~SequentialFile() = default;

  // Reads up to n bytes. *result points into scratch (which must hold n
  // bytes) or into other memory owned by the file. A short result means the
  // end of the file.
  virtual Status Read(size_t n, Slice* result, char* scratch) = 0;

  // Skips n bytes; skipping past the end stops at the end.
  virtual Status Skip(uint64_t n) = 0;
};

// A file read at positions. Thread-safe.
class RandomAccessFile {
 public:
  RandomAccessFile() = default;
  RandomAccessFile(const RandomAccessFile&) = delete;
  RandomAccessFile& operator=(const RandomAccessFile&) = delete;
  virtual ~RandomAccessFile() = default;

  // Reads up to n bytes at offset. *result points into scratch (n bytes) or
  // memory owned by the file. A short result means the end of the file.
  virtual Status Read(uint64_t offset, size_t n, Slice* result,
                      char* scratch) const = 0;

  // True if the file was opened with O_DIRECT.
  virtual bool use_direct_io() const { return false; }

  // True if Read never uses scratch: *result always points into memory the
  // file owns (e.g. a memory mapping) and stays valid while the file lives.
  // Callers may then pass a null scratch and skip their own buffering.
  virtual bool ReturnsOwnMemory() const { return false; }

  // A hint that [offset, offset + n) will be read soon: the OS may start
  // reading it into memory in the background. The default does nothing.
  virtual void Prefetch(uint64_t offset, size_t n) const {
    (void)offset;
    (void)n;
  }

  // For a reader that passes over the file once, front to back (a
  // compaction's input): a second reader of the same file that copies into
  // scratch, for a file whose Read returns its own memory. A first touch of
  // a mapped page costs more than copying it (docs/design/
  // 20261201-compaction-reads-copy.md). Null when there is none (the
  // default) or it cannot be opened; the caller then reads this file.
  virtual std::unique_ptr<RandomAccessFile> NewCopyingReader() const {
    return nullptr;
  }
};

// A file written by appending. Appends are buffered (see EnvOptions), so
// Flush hands them to the OS and Sync makes them durable. Not thread-safe.
class WritableFile {
 public:
  WritableFile() = default;
  WritableFile(const WritableFile&) = delete;
  WritableFile& operator=(const WritableFile&) = delete;
  // Closes the file if Close was not called; errors are then lost.
  virtual ~WritableFile() = default;

  virtual Status Append(const Slice& data) = 0;
  // Writes out buffered data, then closes.
  virtual Status Close() = 0;
  // Hands buffered data to the OS.
  virtual Status Flush() = 0;
  // Flushes, then makes the data durable (fdatasync).
  virtual Status Sync() = 0;
  // Flushes, then makes data and metadata durable (fsync).
  virtual Status Fsync() { return Sync(); }
  // Flushes, then asks the OS to start writing the data to the device
  // without waiting for it, and gives back buffer memory the file may not
  // need again. A hint: only Sync makes the data durable, and a Sync after
  // this has less left to wait for. Default: Flush.
  virtual Status StartWriteback() { return Flush(); }
  // Bytes appended so far (buffered or not).
  virtual uint64_t GetFileSize() const = 0;
  // Reserves space for [offset, offset + len) where supported; a hint.
  virtual Status Allocate(uint64_t offset, uint64_t len) {
    (void)offset;
    (void)len;
    return Status::OK();
  }
  // True if the file was opened with O_DIRECT.
  virtual bool use_direct_io() const { return false; }
  // A placement hint for work the file does for its writer on a helper
  // thread (the POSIX mmap file prepares its next region on one). true: run
  // that work beside the writing thread, off the CPU it is on, which pays
  // while the writer is the bottleneck; false (the default): let the
  // scheduler place it, which pays while the writer waits for background
  // work anyway and its CPU has time to spare. Files without a helper
  // ignore it. May be called from any thread.
  virtual void SetHelperBesideWriter(bool beside) { (void)beside; }
};

// A lock from Env::LockFile.
class FileLock {
 public:
  FileLock() = default;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  virtual ~FileLock() = default;
};

// Severity of an info LOG line.
enum class InfoLogLevel { kDebug = 0, kInfo, kWarn, kError, kFatal };

// Writes the info LOG. Thread-safe.
class Logger {
 public:
  explicit Logger(InfoLogLevel level = InfoLogLevel::kInfo) : level_(level) {}
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;
  virtual ~Logger() = default;

  // Writes one line, prefixed with a timestamp and the thread id.
  virtual void Logv(const char* format, va_list ap) = 0;

  InfoLogLevel level() const { return level_; }
  void set_level(InfoLogLevel level) { level_ = level; }

 private:
  InfoLogLevel level_;
};

// printf-style logging at the given level; no-op when logger is null or the
// level is below the logger's.
void Log(InfoLogLevel level, Logger* logger, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((__format__(__printf__, 3, 4)))
#endif
    ;

// Info-level shorthand.
void Log(Logger* logger, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((__format__(__printf__, 2, 3)))
#endif
    ;

// Writes data to fname (replacing it) and, if sync, syncs it.
Status WriteStringToFile(Env* env, const Slice& data, const std::string& fname,
                         bool sync = false);

// Reads the whole of fname into *data.
Status ReadFileToString(Env* env, const std::string& fname, std::string* data);

// Forwards every call to another Env; subclass it to override a few calls
// (fault injection, counting). Does not own the target.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}
  Env* target() const { return target_; }

  Status NewSequentialFile(const std::string& f,
                           std::unique_ptr<SequentialFile>* r,
                           const EnvOptions& o) override {
    return target_->NewSequentialFile(f, r, o);
  }
  Status NewRandomAccessFile(const std::string& f,
                             std::unique_ptr<RandomAccessFile>* r,
                             const EnvOptions& o) override {
    return target_->NewRandomAccessFile(f, r, o);
  }
  Status NewWritableFile(const std::string& f, std::unique_ptr<WritableFile>* r,
                         const EnvOptions& o) override {
    return target_->NewWritableFile(f, r, o);
  }
  Status ReuseWritableFile(const std::string& f, const std::string& old,
                           std::unique_ptr<WritableFile>* r,
                           const EnvOptions& o) override {
    return target_->ReuseWritableFile(f, old, r, o);
  }
  Status NewAppendableFile(const std::string& f,
                           std::unique_ptr<WritableFile>* r,
                           const EnvOptions& o) override {
    return target_->NewAppendableFile(f, r, o);
  }
  Status FileExists(const std::string& f) override {
    return target_->FileExists(f);
  }
  Status GetChildren(const std::string& dir,
                     std::vector<std::string>* r) override {
    return target_->GetChildren(dir, r);
  }
  Status RemoveFile(const std::string& f) override {
    return target_->RemoveFile(f);
  }
  Status CreateDirIfMissing(const std::string& d) override {
    return target_->CreateDirIfMissing(d);
  }
  Status RemoveDir(const std::string& d) override {
    return target_->RemoveDir(d);
  }
  Status GetFileSize(const std::string& f, uint64_t* s) override {
    return target_->GetFileSize(f, s);
  }
  Status NumFileLinks(const std::string& f, uint64_t* count) override {
    return target_->NumFileLinks(f, count);
  }
  Status RenameFile(const std::string& s, const std::string& t) override {
    return target_->RenameFile(s, t);
  }
  Status SyncDir(const std::string& d) override { return target_->SyncDir(d); }
  Status LockFile(const std::string& f, std::unique_ptr<FileLock>* l) override {
    return target_->LockFile(f, l);
  }
  Status UnlockFile(std::unique_ptr<FileLock> l) override {
    return target_->UnlockFile(std::move(l));
  }
  void Schedule(void (*f)(void*), void* a, Priority pri) override {
    target_->Schedule(f, a, pri);
  }
  void SetBackgroundThreads(int n, Priority pri) override {
    target_->SetBackgroundThreads(n, pri);
  }
  int GetBackgroundThreads(Priority pri) override {
    return target_->GetBackgroundThreads(pri);
  }
  unsigned int GetThreadPoolQueueLen(Priority pri) const override {
    return target_->GetThreadPoolQueueLen(pri);
  }
  void WaitForBackgroundJobs() override { target_->WaitForBackgroundJobs(); }
  Status LowerThreadPoolCPUPriority(Priority pool, CpuPriority pri) override {
    return target_->LowerThreadPoolCPUPriority(pool, pri);
  }
  Status GetThreadPoolCpuTime(Priority pool, uint64_t* on_cpu_micros,
                              uint64_t* waiting_micros) const override {
    return target_->GetThreadPoolCpuTime(pool, on_cpu_micros, waiting_micros);
  }
  Status GetHelperThreadsCpuTime(uint64_t* on_cpu_micros,
                                 uint64_t* waiting_micros) const override {
    return target_->GetHelperThreadsCpuTime(on_cpu_micros, waiting_micros);
  }
  void StartThread(void (*f)(void*), void* a) override {
    target_->StartThread(f, a);
  }
  Status NewLogger(const std::string& f, std::shared_ptr<Logger>* r) override {
    return target_->NewLogger(f, r);
  }
  Status GetTestDirectory(std::string* p) override {
    return target_->GetTestDirectory(p);
  }
  uint64_t NowMicros() override { return target_->NowMicros(); }
  uint64_t NowNanos() override { return target_->NowNanos(); }
  uint64_t NowCPUNanos() override { return target_->NowCPUNanos(); }
  uint64_t NowWallSeconds() override { return target_->NowWallSeconds(); }
  void SleepForMicroseconds(int micros) override {
    target_->SleepForMicroseconds(micros);
  }
  void YieldForMicroseconds(int micros) override {
    target_->YieldForMicroseconds(micros);
  }

 private:
  Env* const target_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_ENV_H_

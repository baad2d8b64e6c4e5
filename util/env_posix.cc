// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The POSIX (Linux) Env behind Env::Default(): files through open/pread/
// write, locks through fcntl, background work on two ThreadPools, the info
// LOG through PosixLogger. This file is the one place where errno becomes a
// Status (PosixError below).
//
// Direct I/O. With EnvOptions::use_direct_reads, files are opened O_DIRECT
// and every read is widened to whole kDirectIOAlignment blocks read into an
// aligned buffer, then copied to the caller's scratch, so callers may read
// any offset and length. With use_direct_writes, appends fill an aligned
// buffer that is written in whole blocks. Flush writes only the whole blocks
// (the partial last block stays buffered); Sync and Close also write the
// last block padded with zeros and then cut the file back to its true size
// with ftruncate. NewAppendableFile ignores use_direct_writes, because the
// existing tail would have to be read back to append to it in whole blocks.
//
// Memory-mapped reads. With EnvOptions::use_mmap_reads (and not direct
// reads), NewRandomAccessFile maps the whole file read-only and Read returns
// pointers into the mapping: no system call and no copy per block. At most
// kMaxMmapFiles files are mapped at once across the process; beyond that,
// and wherever mmap fails, the file falls back to pread.
//
// Memory-mapped writes. With EnvOptions::use_mmap_writes (and not direct
// writes), NewWritableFile returns a file whose appends are copied into a
// shared mapping of the file: no system call per append, yet the bytes are
// in the page cache at once, so they survive a crash of the process (not a
// power loss: Sync writes them back). The file grows in regions of 64 KiB
// doubling to 1 MiB, each reserved with fallocate first (so a full disk is
// an IOError, never a SIGBUS on a page fault), which leaves zeros after the
// last append until Close cuts the file to its true size. Where fallocate
// is not supported the file falls back to write(2). A helper thread maps
// the next region while the current one fills, so a region switch costs
// the append that makes it almost nothing. A closed file's regions stay
// mapped (MappingPark), so writing the same file again (a recycled WAL)
// takes no page faults.

#include <dirent.h>
#include <fcntl.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cascadedb/env.h"
#include "util/mutex.h"
#include "util/page_touch.h"
#include "util/posix_logger.h"
#include "util/thread_annotations.h"
#include "util/thread_cpu.h"
#include "util/thread_pool.h"

namespace cascadedb {

namespace {

// O_DIRECT buffers, offsets and lengths are multiples of this. 4 KiB covers
// the logical block size of every common device and filesystem.
constexpr size_t kDirectIOAlignment = 4096;

constexpr uint64_t RoundDown(uint64_t x, uint64_t unit) { return x - x % unit; }
constexpr uint64_t RoundUp(uint64_t x, uint64_t unit) {
  return RoundDown(x + unit - 1, unit);
}

// strerror_r comes in a GNU flavour (returns the text) and an XSI flavour
// (fills buf, returns an int); these overloads accept either.
[[maybe_unused]] const char* StrerrorText(const char* text, const char*) {
  return text;
}
[[maybe_unused]] const char* StrerrorText(int rc, const char* buf) {
  return rc == 0 ? buf : "unknown error";
}

std::string ErrnoText(int error_number) {
  char buf[256] = {0};
  return StrerrorText(strerror_r(error_number, buf, sizeof(buf)), buf);
}

// The one place where an OS error becomes a Status: NotFound for ENOENT,
// IOError otherwise, with the message "<context>: <errno text>". context
// names the file and, where it helps, the operation ("x.log: fdatasync").
Status PosixError(const std::string& context, int error_number) {
  if (error_number == ENOENT) {
    return Status::NotFound(context, ErrnoText(error_number));
  }
  return Status::IOError(context, ErrnoText(error_number));
}

// open(2) with O_CLOEXEC (and O_DIRECT if direct), retried on EINTR.
Status OpenFile(const std::string& fname, int flags, bool direct, int* fd) {
  flags |= O_CLOEXEC;
  if (direct) flags |= O_DIRECT;
  int result;
  do {
    result = ::open(fname.c_str(), flags, 0644);
  } while (result < 0 && errno == EINTR);
  if (result < 0) {
    if (direct && errno == EINVAL) {
      return Status::NotSupported(
          fname, "direct I/O not supported by this filesystem");
    }
    return PosixError(fname, errno);
  }
  *fd = result;
  return Status::OK();
}

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<char, FreeDeleter>;

// A buffer of size bytes aligned for O_DIRECT, or null if memory ran out.
AlignedBuffer AllocateAligned(size_t size) {
  void* p = nullptr;
  if (posix_memalign(&p, kDirectIOAlignment, size) != 0) return nullptr;
  return AlignedBuffer(static_cast<char*>(p));
}

Status OutOfMemory(const std::string& fname, size_t size) {
  return Status::IOError(fname, "cannot allocate a " + std::to_string(size) +
                                    "-byte aligned buffer for direct I/O");
}

// Reads up to n bytes at offset into buf, stopping early only at the end of
// the file; stores the count in *bytes_read. With direct I/O a read shorter
// than asked ends at the end of the file (the next offset would be
// unaligned anyway).
Status PreadFully(int fd, const std::string& fname, uint64_t offset, size_t n,
                  char* buf, bool direct, size_t* bytes_read) {
  size_t done = 0;
  while (done < n) {
    const ssize_t r =
        ::pread(fd, buf + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      *bytes_read = done;
      return PosixError(
          fname + ": read at offset " + std::to_string(offset + done), errno);
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
    if (direct && done % kDirectIOAlignment != 0) break;
  }
  *bytes_read = done;
  return Status::OK();
}

// Serves a read of n bytes at offset on an O_DIRECT fd: reads the enclosing
// aligned range into *buffer (grown as needed, capacity in *capacity) and
// copies the wanted part into scratch.
Status DirectRead(int fd, const std::string& fname, uint64_t offset, size_t n,
                  AlignedBuffer* buffer, size_t* capacity, Slice* result,
                  char* scratch) {
  *result = Slice(scratch, 0);
  if (n == 0) return Status::OK();
  const uint64_t aligned_offset = RoundDown(offset, kDirectIOAlignment);
  const size_t skip = static_cast<size_t>(offset - aligned_offset);
  const size_t aligned_len = static_cast<size_t>(
      RoundUp(offset + n, kDirectIOAlignment) - aligned_offset);
  if (*capacity < aligned_len) {
    *buffer = AllocateAligned(aligned_len);
    if (*buffer == nullptr) {
      *capacity = 0;
      return OutOfMemory(fname, aligned_len);
    }
    *capacity = aligned_len;
  }
  size_t got = 0;
  Status s = PreadFully(fd, fname, aligned_offset, aligned_len, buffer->get(),
                        /*direct=*/true, &got);
  if (!s.ok()) return s;
  if (got <= skip) return Status::OK();  // offset is at or past the end
  const size_t len = std::min(n, got - skip);
  std::memcpy(scratch, buffer->get() + skip, len);
  *result = Slice(scratch, len);
  return Status::OK();
}

// ---------------------------------------------------------------- files

class PosixSequentialFile final : public SequentialFile {
 public:
  PosixSequentialFile(std::string fname, int fd, bool direct)
      : fname_(std::move(fname)), fd_(fd), direct_(direct) {}
  ~PosixSequentialFile() override { ::close(fd_); }

  Status Read(size_t n, Slice* result, char* scratch) override {
    if (direct_) {
      Status s = DirectRead(fd_, fname_, offset_, n, &buffer_,
                            &buffer_capacity_, result, scratch);
      if (s.ok()) offset_ += result->size();
      return s;
    }
    // read(2) may return less than asked before the end (pipes, signals);
    // the contract promises that a short result means the end, so loop.
    size_t done = 0;
    while (done < n) {
      const ssize_t r = ::read(fd_, scratch + done, n - done);
      if (r < 0) {
        if (errno == EINTR) continue;
        *result = Slice(scratch, 0);
        return PosixError(fname_ + ": read", errno);
      }
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    *result = Slice(scratch, done);
    return Status::OK();
  }

  Status Skip(uint64_t n) override {
    if (direct_) {
      offset_ += n;  // reads past the end simply return nothing
      return Status::OK();
    }
    const uint64_t max_off =
        static_cast<uint64_t>(std::numeric_limits<off_t>::max());
    if (::lseek(fd_, static_cast<off_t>(std::min(n, max_off)), SEEK_CUR) ==
        static_cast<off_t>(-1)) {
      return PosixError(fname_ + ": skip", errno);
    }
    return Status::OK();
  }

 private:
  const std::string fname_;
  const int fd_;
  const bool direct_;
  // Direct I/O only: the read position and the aligned read buffer.
  uint64_t offset_ = 0;
  AlignedBuffer buffer_;
  size_t buffer_capacity_ = 0;
};

class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string fname, int fd, bool direct)
      : fname_(std::move(fname)), fd_(fd), direct_(direct) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }

  Status Read(uint64_t offset, size_t n, Slice* result,
              char* scratch) const override {
    if (direct_) {
      // A buffer per call keeps concurrent reads independent.
      AlignedBuffer buffer;
      size_t capacity = 0;
      return DirectRead(fd_, fname_, offset, n, &buffer, &capacity, result,
                        scratch);
    }
    size_t got = 0;
    Status s = PreadFully(fd_, fname_, offset, n, scratch, false, &got);
    *result = Slice(scratch, got);
    return s;
  }

  bool use_direct_io() const override { return direct_; }

  void Prefetch(uint64_t offset, size_t n) const override {
    // Direct reads bypass the page cache the hint would fill.
    if (direct_) return;
    // Starts readahead of the range; failure only loses the hint.
    (void)::posix_fadvise(fd_, static_cast<off_t>(offset),
                          static_cast<off_t>(n), POSIX_FADV_WILLNEED);
  }

 private:
  // All const: pread needs no shared position, so reads may overlap.
  const std::string fname_;
  const int fd_;
  const bool direct_;
};

// Starts write-back of [*range_synced, end) once that reaches
// *bytes_per_sync, so a file's final fdatasync has less to do. Where
// sync_file_range is unavailable it only switches itself off (*bytes_per_sync
// = 0): it was a hint.
Status StartWriteback(const std::string& fname, int fd, uint64_t end,
                      uint64_t* bytes_per_sync, uint64_t* range_synced) {
  if (*bytes_per_sync == 0 || end - *range_synced < *bytes_per_sync) {
    return Status::OK();
  }
  if (::sync_file_range(fd, static_cast<off_t>(*range_synced),
                        static_cast<off_t>(end - *range_synced),
                        SYNC_FILE_RANGE_WRITE) != 0) {
    if (errno == ENOSYS || errno == EINVAL || errno == ESPIPE ||
        errno == EOPNOTSUPP) {
      *bytes_per_sync = 0;
      return Status::OK();
    }
    return PosixError(fname + ": sync_file_range", errno);
  }
  *range_synced = end;
  return Status::OK();
}

// How many files may be mapped at once (process-wide). A mapping costs
// address space and a kernel VMA, not memory; the cap keeps the VMA count
// well under the kernel's default vm.max_map_count (65530).
constexpr int kMaxMmapFiles = 4096;
std::atomic<int> g_mmap_slots{kMaxMmapFiles};

bool AcquireMmapSlot() {
  int slots = g_mmap_slots.load(std::memory_order_relaxed);
  while (slots > 0) {
    if (g_mmap_slots.compare_exchange_weak(slots, slots - 1)) return true;
  }
  return false;
}

void ReleaseMmapSlot() { g_mmap_slots.fetch_add(1); }

// A file mapped whole. Read returns pointers into the mapping, which lives
// as long as the object. The file's length is fixed at open: CascadeDB maps
// only finished, immutable files (SSTs).
class PosixMmapReadableFile final : public RandomAccessFile {
 public:
  // dev and ino name the mapped file (NewCopyingReader checks them).
  PosixMmapReadableFile(std::string fname, const char* base, size_t length,
                        dev_t dev, ino_t ino)
      : fname_(std::move(fname)),
        base_(base),
        length_(length),
        dev_(dev),
        ino_(ino) {}
  ~PosixMmapReadableFile() override {
    ::munmap(const_cast<char*>(base_), length_);
    ReleaseMmapSlot();
  }

  Status Read(uint64_t offset, size_t n, Slice* result,
              char* /*scratch*/) const override {
    if (offset >= length_) {
      *result = Slice();
      return Status::OK();
    }
    const size_t available = length_ - static_cast<size_t>(offset);
    *result = Slice(base_ + offset, std::min(n, available));
    return Status::OK();
  }

  bool ReturnsOwnMemory() const override { return true; }

  void Prefetch(uint64_t offset, size_t n) const override {
    if (offset >= length_) return;
    const uint64_t start = offset - offset % kPageSize;
    const uint64_t end = std::min<uint64_t>(offset + n, length_);
    // Starts readahead of the range; failure only loses the hint.
    (void)::madvise(const_cast<char*>(base_) + start,
                    static_cast<size_t>(end - start), MADV_WILLNEED);
  }

  // pread on a descriptor of its own, opened by name: the mapping kept no
  // descriptor (TryMmap). Null if the name no longer opens the mapped file.
  std::unique_ptr<RandomAccessFile> NewCopyingReader() const override {
    int fd = -1;
    if (!OpenFile(fname_, O_RDONLY, /*direct=*/false, &fd).ok()) {
      return nullptr;
    }
    struct stat st;
    if (::fstat(fd, &st) != 0 || st.st_dev != dev_ || st.st_ino != ino_) {
      ::close(fd);
      return nullptr;
    }
    return std::make_unique<PosixRandomAccessFile>(fname_, fd,
                                                   /*direct=*/false);
  }

 private:
  // mmap offsets are multiples of the page size (4 KiB on Linux/x86-64;
  // a larger real page size only makes the hint cover less).
  static constexpr uint64_t kPageSize = 4096;

  const std::string fname_;
  const char* const base_;
  const size_t length_;
  const dev_t dev_;
  const ino_t ino_;
};

// Maps fd whole into *result if a slot is free and the file is non-empty;
// otherwise leaves *result empty (the caller then reads with pread). Closes
// fd on success: a mapping outlives its descriptor.
void TryMmap(const std::string& fname, int fd,
             std::unique_ptr<RandomAccessFile>* result) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || st.st_size <= 0 ||
      static_cast<uint64_t>(st.st_size) > std::numeric_limits<size_t>::max()) {
    return;
  }
  if (!AcquireMmapSlot()) return;
  const size_t length = static_cast<size_t>(st.st_size);
  void* base = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    ReleaseMmapSlot();
    return;
  }
  // No MADV_RANDOM: it also turns off the kernel's fault-around, which
  // maps up to 16 cached pages per fault; scans then fault on every page.
  ::close(fd);
  *result = std::make_unique<PosixMmapReadableFile>(
      fname, static_cast<const char*>(base), length, st.st_dev, st.st_ino);
}

// A mapped stretch of a file written through mmap: [offset, offset + size)
// of the file at base.
struct MappedRegion {
  uint64_t offset = 0;
  size_t size = 0;
  char* base = nullptr;
};

// Best effort: a parked or kept region is no one's once it is dropped.
template <typename Regions>
void UnmapRegions(const Regions& regions) {
  for (const MappedRegion& r : regions) ::munmap(r.base, r.size);
}

// The mappings of closed mmap-written files, kept for the files' reuse.
//
// A recycled WAL is written again from offset 0 through the same regions
// (their offsets and sizes follow one fixed sequence). A new mapping of a
// region costs a write fault per page (256 for 1 MiB) when it is touched
// in, and unmapping it makes the other CPUs flush their TLBs; a mapping
// kept from the file's last use still has its page-table entries, so its
// pages take no fault while they stay dirty (until writeback cleans them).
// PosixMmapWritableFile parks its regions here at Close, keyed by the
// file's device and inode (rename keeps both), and takes them back when
// the same file is opened for writing through mmap again.
//
// A parked mapping keeps its file's blocks allocated after an unlink, so
// RemoveFile and RenameFile (over an existing target) drop the file's
// mappings first, and the park is bounded (by EnvOptions::mmap_parked_bytes
// of the file parked last): beyond that, the longest-parked files'
// mappings are unmapped. Past the cut that Close makes, a parked region
// maps no file pages (no access until the next user reserves them again).
// Process-wide, never destroyed, like the helper.
class MappingPark {
 public:
  static MappingPark* Get() {
    static MappingPark* const park = new MappingPark;
    return park;
  }

  // Keeps a closed file's regions (in file order), unmapping those of the
  // longest-parked files while more than max_bytes are parked.
  void Park(dev_t dev, ino_t ino, std::vector<MappedRegion> regions,
            size_t max_bytes) {
    if (regions.empty()) return;
    File file{dev, ino, std::move(regions), 0};
    for (const MappedRegion& r : file.regions) file.bytes += r.size;
    std::vector<MappedRegion> evicted;
    {
      MutexLock l(&mu_);
      RemoveLocked(dev, ino, &evicted);  // an older parking of the file
      bytes_ += file.bytes;
      files_.push_back(std::move(file));
      while (bytes_ > max_bytes) {
        File& oldest = files_.front();
        bytes_ -= oldest.bytes;
        evicted.insert(evicted.end(), oldest.regions.begin(),
                       oldest.regions.end());
        files_.pop_front();
      }
      count_.store(files_.size(), std::memory_order_relaxed);
    }
    UnmapRegions(evicted);
  }

  // The file's parked regions, in file order (none if it has none); they
  // are the caller's from here on.
  std::vector<MappedRegion> Take(dev_t dev, ino_t ino) {
    std::vector<MappedRegion> regions;
    if (count_.load(std::memory_order_relaxed) == 0) return regions;
    MutexLock l(&mu_);
    RemoveLocked(dev, ino, &regions);
    count_.store(files_.size(), std::memory_order_relaxed);
    return regions;
  }

  // Unmaps the parked regions of the file at path, if any: called before
  // it is unlinked or replaced.
  void Drop(const std::string& path) {
    if (count_.load(std::memory_order_relaxed) == 0) return;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return;
    UnmapRegions(Take(st.st_dev, st.st_ino));
  }

 private:
  struct File {
    dev_t dev;
    ino_t ino;
    std::vector<MappedRegion> regions;
    size_t bytes;
  };

  // Moves the file's regions, if parked, to the end of *out.
  void RemoveLocked(dev_t dev, ino_t ino, std::vector<MappedRegion>* out)
      REQUIRES(mu_) {
    for (auto it = files_.begin(); it != files_.end(); ++it) {
      if (it->dev == dev && it->ino == ino) {
        out->insert(out->end(), it->regions.begin(), it->regions.end());
        bytes_ -= it->bytes;
        files_.erase(it);
        return;
      }
    }
  }

  Mutex mu_;
  std::deque<File> files_ GUARDED_BY(mu_);  // longest-parked first
  size_t bytes_ GUARDED_BY(mu_) = 0;
  std::atomic<size_t> count_{0};  // files_.size(), read without mu_
};

// A file written through a shared mapping (see the file comment).
//
// Region switches happen off the writer's path. While the writer fills
// region k, the writers' helper thread (util/thread_pool.h) reserves and maps
// region k+1 (or reserves the one parked from the file's last use: MappingPark)
// and reads it into the page cache (MADV_WILLNEED), so reaching the end of a
// region is a pointer swap. Done by the writer, the same work cost the append
// that crossed into a new region 0.3-0.5 ms, one append in ~1000 with 1 KiB
// records: the first write fault on a fresh mapping reads the whole region
// around it into the page cache, and the unmap makes the other CPUs flush their
// TLBs (docs/performance.md, "The mmap WAL's region switch"). Once it has
// handed region k+1 over, the preparer also write-faults its pages in
// (TouchPagesForWrite), so the writer takes no fault per page either; where the
// writer catches up, its stores and the preparer's touches meet harmlessly. The
// writer never waits for that step: only unmapping a region (the next job,
// Cancel) waits for its populating to end.
//
// Filled regions stay mapped, up to EnvOptions::mmap_kept_bytes of them
// (beyond, the preparer unmaps region k-1 as it maps k+1), and Close parks
// them with the last one for the file's reuse.
class PosixMmapWritableFile final : public WritableFile {
 public:
  static constexpr size_t kFirstRegion = 64 << 10;
  static constexpr size_t kMaxRegion = EnvOptions::kMaxMmapRegion;

  PosixMmapWritableFile(std::string fname, int fd, const EnvOptions& options)
      : fname_(std::move(fname)),
        fd_(fd),
        bytes_per_sync_(options.bytes_per_sync),
        max_kept_bytes_(options.mmap_kept_bytes),
        max_parked_bytes_(options.mmap_parked_bytes),
        prep_(std::make_shared<Preparation>(fname_, fd)) {}

  ~PosixMmapWritableFile() override {
    if (fd_ >= 0) Close().IgnoreError();  // errors are lost, as documented
  }

  // Reserves and maps the first region (taking back the file's parked
  // regions, if any), and starts preparing the next. NotSupported (no
  // fallocate here) tells the caller to fall back to write(2).
  Status Init() {
    struct stat st;
    if (::fstat(fd_, &st) == 0) {
      parkable_ = true;
      dev_ = st.st_dev;
      ino_ = st.st_ino;
      old_size_ = static_cast<uint64_t>(st.st_size);
      const std::vector<MappedRegion> parked =
          MappingPark::Get()->Take(dev_, ino_);
      parked_.assign(parked.begin(), parked.end());
    }
    Region first;
    first.offset = 0;
    first.size = kFirstRegion;
    char* const reuse = TakeParked(first.offset, first.size);
    first.prefetch = PrefetchBytes(first.offset, first.size);
    MapRegion(fd_, fname_, &first, reuse);
    if (!first.status.ok()) return first.status;
    region_ = first.base;
    region_size_ = first.size;
    SchedulePreparation(nullptr, 0);
    return Status::OK();
  }

  Status Append(const Slice& data) override {
    if (fd_ < 0) return ClosedError();
    const char* src = data.data();
    size_t left = data.size();
    while (left > 0) {
      if (pos_ == region_size_) {
        Status s = SwitchRegion();
        if (!s.ok()) return s;
      }
      const size_t n = std::min(left, region_size_ - pos_);
      std::memcpy(region_ + pos_, src, n);
      pos_ += n;
      src += n;
      left -= n;
    }
    return ::cascadedb::StartWriteback(fname_, fd_, GetFileSize(),
                                       &bytes_per_sync_, &range_synced_);
  }

  // The bytes are in the page cache already.
  Status Flush() override { return fd_ < 0 ? ClosedError() : Status::OK(); }

  Status Sync() override { return SyncImpl(/*metadata=*/false); }
  Status Fsync() override { return SyncImpl(/*metadata=*/true); }

  uint64_t GetFileSize() const override { return region_offset_ + pos_; }

  void SetHelperBesideWriter(bool beside) override {
    prep_->beside_writer.store(beside, std::memory_order_relaxed);
  }

  Status Close() override {
    if (fd_ < 0) return ClosedError();
    const uint64_t size = GetFileSize();
    // The preparer must be done with the file before it is cut and closed:
    // a reservation after the ftruncate would grow the file again.
    Status s = prep_->Cancel();
    // Drop the reserved zeros after the last append.
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0 && s.ok()) {
      s = PosixError(fname_ + ": ftruncate", errno);
    }
    if (::close(fd_) != 0 && s.ok()) s = PosixError(fname_ + ": close", errno);
    fd_ = -1;
    // The mappings outlive the descriptor: parked for the file's reuse.
    if (region_ != nullptr) {
      kept_.push_back({region_offset_, region_size_, region_});
      region_ = nullptr;
    }
    UnmapRegions(parked_);  // left unused
    parked_.clear();
    if (parkable_) {
      MappingPark::Get()->Park(dev_, ino_, std::move(kept_), max_parked_bytes_);
    } else {
      UnmapRegions(kept_);
    }
    kept_.clear();
    return s;
  }

 private:
  // A mapped, reserved stretch of the file, or why it could not be made.
  struct Region {
    uint64_t offset = 0;
    size_t size = 0;
    // Bytes from the start worth bringing in ahead of the writer (read
    // into the page cache, touched in): all of a new mapping; of a parked
    // one, what lay before the file's old end (see PrefetchBytes).
    size_t prefetch = 0;
    char* base = nullptr;  // nullptr unless status is OK
    Status status;
  };

  // The next region's preparation: shared by the file and its queued job,
  // so a job that outlives the file finds it cancelled, not freed.
  class Preparation {
   public:
    Preparation(std::string fname, int fd)
        : fname_(std::move(fname)), fd_(fd) {}

    // Queues the unmapping of `old` (may be nullptr) and the reservation
    // and mapping of [offset, offset + size): through `reuse`, a mapping
    // of exactly that stretch parked from the file's last use, if not
    // nullptr (it is then the preparation's to map or unmap).
    // REQUIRES: nothing pending (Take or Cancel since the last Start).
    static void Start(const std::shared_ptr<Preparation>& prep, char* old,
                      size_t old_size, uint64_t offset, size_t size,
                      char* reuse, size_t prefetch) {
      {
        MutexLock l(&prep->mu_);
        assert(prep->state_ == State::kIdle);
        prep->state_ = State::kQueued;
        prep->old_ = old;
        prep->old_size_ = old_size;
        prep->next_ = Region();
        prep->next_.offset = offset;
        prep->next_.size = size;
        prep->next_.prefetch = prefetch;
        prep->reuse_ = reuse;
        prep->mapped_ = false;
      }
      Schedule(prep);
    }

    // Hands over the region, reserved and mapped here if the job has not
    // started (the preparer is starved of CPU: doing its work here costs
    // less than waiting for it); a job under way is waited for.
    Region Take() {
      Claim(/*wait_for_populate=*/false);
      if (!mapped_) {
        // Map() unmaps old_, which may (rarely) still be being populated.
        WaitForPopulate(old_);
        Map();
      }
      Region next = next_;
      next_ = Region();
      return next;
    }

    // Drops the pending preparation and unmaps its regions; a job that had
    // not started never touches the file.
    Status Cancel() {
      Claim(/*wait_for_populate=*/true);
      Status s = PosixMmapWritableFile::Unmap(fname_, old_, old_size_);
      old_ = nullptr;
      // next_.base is nullptr unless Map() mapped it; reuse_ unless it
      // has not run.
      Status n = PosixMmapWritableFile::Unmap(fname_, next_.base, next_.size);
      if (n.ok()) n = PosixMmapWritableFile::Unmap(fname_, reuse_, next_.size);
      reuse_ = nullptr;
      next_ = Region();
      mapped_ = false;
      return s.ok() ? n : s;
    }

    // SetHelperBesideWriter's hint; read on the writer's thread when it
    // schedules a preparation.
    std::atomic<bool> beside_writer{false};

   private:
    enum class State { kIdle, kQueued, kRunning };

    static void Schedule(const std::shared_ptr<Preparation>& prep) {
      auto* holder = new std::shared_ptr<Preparation>(prep);
      if (prep->beside_writer.load(std::memory_order_relaxed)) {
        // Start() runs on the writer's thread: keep the preparer off its
        // CPU, where the wake-up would otherwise put it.
        WritersHelper()->ScheduleBesideCaller(&Preparation::Job, holder);
      } else {
        WritersHelper()->Schedule(&Preparation::Job, holder);
      }
    }

    static void Job(void* arg) {
      auto* holder = static_cast<std::shared_ptr<Preparation>*>(arg);
      Preparation* prep = holder->get();
      bool run = false;
      {
        MutexLock l(&prep->mu_);
        if (prep->state_ == State::kQueued) {
          prep->state_ = State::kRunning;
          run = true;
        }
      }
      if (run) {
        prep->Map();
        char* base = nullptr;
        size_t size = 0;
        {
          MutexLock l(&prep->mu_);
          if (prep->next_.base != nullptr) {
            base = prep->next_.base;
            size = prep->next_.prefetch;
            prep->populating_ = base;
          }
          prep->state_ = State::kIdle;
          prep->cv_.SignalAll();
        }
        // The region is the writer's from here on; faulting its pages in
        // now spares the writer a fault per page. By touching them, not
        // with MADV_POPULATE_WRITE: this thread, preempted inside that
        // call, held up the writer's mmap, munmap and mprotect (see
        // util/page_touch.h).
        if (base != nullptr) {
          TouchPagesForWrite(base, size);
          MutexLock l(&prep->mu_);
          prep->populating_ = nullptr;
          prep->cv_.SignalAll();
        }
      }
      delete holder;
    }

    // Waits out a running job (and, if asked, the populating of the last
    // region it mapped) and takes back a queued one (it will do nothing).
    void Claim(bool wait_for_populate) {
      MutexLock l(&mu_);
      while (state_ == State::kRunning ||
             (wait_for_populate && populating_ != nullptr)) {
        cv_.Wait();
      }
      state_ = State::kIdle;
    }

    // Waits while the job is populating the region at base.
    void WaitForPopulate(const char* base) {
      if (base == nullptr) return;
      MutexLock l(&mu_);
      while (populating_ == base) cv_.Wait();
    }

    // Unmaps old_, then reserves and maps next_ (an unmap error is
    // next_'s status, and next_ is left unmapped).
    void Map() {
      Status unmapped = PosixMmapWritableFile::Unmap(fname_, old_, old_size_);
      old_ = nullptr;
      if (unmapped.ok()) {
        MapRegion(fd_, fname_, &next_, reuse_);
      } else {
        PosixMmapWritableFile::Unmap(fname_, reuse_, next_.size).IgnoreError();
        next_.base = nullptr;
        next_.status = unmapped;
      }
      reuse_ = nullptr;  // consumed either way
      mapped_ = true;
    }

    const std::string fname_;
    const int fd_;
    Mutex mu_;
    CondVar cv_{&mu_};  // signalled when kRunning or populating_ ends
    State state_ GUARDED_BY(mu_) = State::kIdle;
    // The region whose pages the job is faulting in (maybe already the
    // writer's current one), or nullptr: nobody may unmap it meanwhile.
    const char* populating_ GUARDED_BY(mu_) = nullptr;  // its base
    // Owned by the job while state_ is kRunning, else by the file's writer.
    char* old_ = nullptr;  // a finished region to unmap
    size_t old_size_ = 0;
    Region next_;
    char* reuse_ = nullptr;  // next_'s parked mapping, until Map() runs
    bool mapped_ = false;    // Map() ran for next_ (maybe failing)
  };

  Status ClosedError() const {
    return Status::IOError(fname_, "file is already closed");
  }

  Status SyncImpl(bool metadata) {
    if (fd_ < 0) return ClosedError();
    // fdatasync writes back the mapping's dirty pages too (one page cache),
    // including those of a region still waiting to be unmapped; msync first
    // says so to the kernel explicitly for the current region.
    if (pos_ > 0 && ::msync(region_, pos_, MS_SYNC) != 0) {
      return PosixError(fname_ + ": msync", errno);
    }
    if ((metadata ? ::fsync(fd_) : ::fdatasync(fd_)) != 0) {
      return PosixError(fname_ + (metadata ? ": fsync" : ": fdatasync"), errno);
    }
    return Status::OK();
  }

  static Status Unmap(const std::string& fname, char* base, size_t size) {
    if (base == nullptr || ::munmap(base, size) == 0) return Status::OK();
    return PosixError(fname + ": munmap", errno);
  }

  // Reserves [region->offset, + region->size) on disk and maps it, through
  // `reuse` if not nullptr (a parked mapping of exactly that stretch, which
  // is unmapped if the reservation fails). NotSupported if the filesystem
  // cannot fallocate.
  static void MapRegion(int fd, const std::string& fname, Region* region,
                        char* reuse) {
    region->base = nullptr;
    if (::fallocate(fd, 0, static_cast<off_t>(region->offset),
                    static_cast<off_t>(region->size)) != 0) {
      const int err = errno;
      Unmap(fname, reuse, region->size).IgnoreError();
      region->status =
          (err == EOPNOTSUPP || err == ENOSYS)
              ? Status::NotSupported(fname + ": fallocate", ErrnoText(err))
              : PosixError(fname + ": fallocate", err);
      return;
    }
    void* base =
        reuse != nullptr
            ? reuse
            : ::mmap(nullptr, region->size, PROT_READ | PROT_WRITE, MAP_SHARED,
                     fd, static_cast<off_t>(region->offset));
    if (base == MAP_FAILED) {
      region->status = PosixError(fname + ": mmap", errno);
      return;
    }
    region->base = static_cast<char*>(base);
    region->status = Status::OK();
    // Bring the region (its prefetch part) into the page cache now (no
    // I/O: the extent is unwritten or cached), rather than on the first
    // write's fault. Best effort.
    ::madvise(base, region->prefetch, MADV_WILLNEED);
  }

  // Starts preparing the region after the current one; `old` is unmapped
  // first.
  void SchedulePreparation(char* old, size_t old_size) {
    const uint64_t offset = region_offset_ + region_size_;
    const size_t size = std::min(region_size_ * 2, kMaxRegion);
    char* const reuse = TakeParked(offset, size);
    Preparation::Start(prep_, old, old_size, offset, size, reuse,
                       PrefetchBytes(offset, size));
  }

  // Region::prefetch for [offset, offset + size): all of it in a new file.
  // A file written over (a recycled WAL) seldom outgrows its last use, so
  // only its part before the old end is brought in: those pages are cached
  // (and, through a parked mapping, mostly mapped already). Pages past the
  // old end would be allocated and zeroed here only to be cut again at
  // Close; the writer faults them in if it gets there.
  size_t PrefetchBytes(uint64_t offset, size_t size) const {
    if (old_size_ == 0) return size;
    if (offset >= old_size_) return 0;
    return static_cast<size_t>(std::min<uint64_t>(size, old_size_ - offset));
  }

  // The parked mapping of exactly [offset, offset + size), or nullptr.
  // Parked regions before offset, or of another size there, are unmapped.
  char* TakeParked(uint64_t offset, size_t size) {
    while (!parked_.empty() && parked_.front().offset <= offset) {
      const MappedRegion r = parked_.front();
      parked_.pop_front();
      if (r.offset == offset && r.size == size) return r.base;
      ::munmap(r.base, r.size);
    }
    return nullptr;
  }

  // Moves the write position to the start of the prepared next region and
  // starts preparing the one after it.
  Status SwitchRegion() {
    Region next = prep_->Take();
    if (!next.status.ok()) {
      // The full region stays current; a later Append tries again.
      SchedulePreparation(nullptr, 0);
      return next.status;
    }
    char* old = region_;
    const size_t old_size = region_size_;
    if (kept_bytes_ + old_size <= max_kept_bytes_) {
      kept_.push_back({region_offset_, old_size, old});
      kept_bytes_ += old_size;
      old = nullptr;  // stays mapped
    }
    region_ = next.base;
    region_offset_ = next.offset;
    region_size_ = next.size;
    pos_ = 0;
    SchedulePreparation(old, old_size);
    return Status::OK();
  }

  const std::string fname_;
  int fd_;                   // -1 once closed
  uint64_t bytes_per_sync_;  // set to 0 where unsupported
  const size_t max_kept_bytes_;
  const size_t max_parked_bytes_;
  char* region_ = nullptr;  // mapping of [region_offset_, + region_size_)
  uint64_t region_offset_ = 0;
  size_t region_size_ = 0;
  size_t pos_ = 0;             // bytes appended into the region
  uint64_t range_synced_ = 0;  // end of the range passed to sync_file_range
  const std::shared_ptr<Preparation> prep_;
  // Filled regions kept mapped (in file order), parked by Close.
  std::vector<MappedRegion> kept_;
  size_t kept_bytes_ = 0;
  // Regions parked from the file's last use, not yet taken (file order).
  std::deque<MappedRegion> parked_;
  bool parkable_ = false;  // dev_, ino_ and old_size_ are known
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  uint64_t old_size_ = 0;  // the file's size when opened
};

class PosixWritableFile final : public WritableFile {
 public:
  // initial_size: bytes already in the file that the writes follow
  // (NewAppendableFile). preallocated: the file's length, at least
  // initial_size; bytes past what was written are cut at Close, or at the
  // first Sync with options.truncate_on_sync.
  PosixWritableFile(std::string fname, int fd, uint64_t initial_size,
                    uint64_t preallocated, const EnvOptions& options,
                    bool direct, AlignedBuffer direct_buffer,
                    size_t direct_capacity)
      : fname_(std::move(fname)),
        fd_(fd),
        direct_(direct),
        // Buffered mode only; direct mode sizes direct_buffer_ instead.
        max_buffer_(std::min(options.writable_file_max_buffer_size,
                             EnvOptions::kMaxBufferedWriteChunk)),
        bytes_per_sync_(direct ? 0 : options.bytes_per_sync),
        preallocation_block_(options.preallocation_block_size),
        old_end_(options.truncate_on_sync ? preallocated : 0),
        file_size_(initial_size),
        written_(initial_size),
        range_synced_(initial_size),
        preallocated_(std::max(initial_size, preallocated)),
        direct_buffer_(std::move(direct_buffer)),
        direct_capacity_(direct_capacity) {}

  ~PosixWritableFile() override {
    if (fd_ >= 0) {
      // The contract: closing on destruction loses errors.
      Close().IgnoreError();
    }
  }

  Status Append(const Slice& data) override {
    if (fd_ < 0) return ClosedError();
    MaybePreallocate(file_size_ + data.size());
    Status s = direct_ ? AppendDirect(data) : AppendBuffered(data);
    if (s.ok()) file_size_ += data.size();
    return s;
  }

  Status Close() override {
    if (fd_ < 0) return ClosedError();
    Status s = direct_ ? WriteDirect(/*pad_tail=*/true) : FlushBuffered();
    // Direct writes leave zero padding after the last byte, and
    // preallocation leaves blocks reserved past it; truncating to the true
    // size removes both (ext4 and XFS free KEEP_SIZE blocks on truncate).
    if (s.ok() && (direct_ || preallocated_ > file_size_)) {
      s = Truncate();
    }
    if (::close(fd_) != 0 && s.ok()) s = PosixError(fname_ + ": close", errno);
    fd_ = -1;
    return s;
  }

  Status Flush() override {
    if (fd_ < 0) return ClosedError();
    return direct_ ? WriteDirect(/*pad_tail=*/false) : FlushBuffered();
  }

  Status Sync() override { return SyncImpl(/*metadata=*/false); }
  Status Fsync() override { return SyncImpl(/*metadata=*/true); }

  uint64_t GetFileSize() const override { return file_size_; }

  Status Allocate(uint64_t offset, uint64_t len) override {
    if (fd_ < 0) return ClosedError();
    if (::fallocate(fd_, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                    static_cast<off_t>(len)) != 0) {
      if (errno == EOPNOTSUPP || errno == ENOSYS) return Status::OK();  // hint
      return PosixError(fname_ + ": fallocate", errno);
    }
    preallocated_ = std::max(preallocated_, offset + len);
    return Status::OK();
  }

  bool use_direct_io() const override { return direct_; }

 private:
  Status ClosedError() const {
    return Status::IOError(fname_, "file is already closed");
  }

  Status AppendBuffered(const Slice& data) {
    if (buffer_.size() + data.size() <= max_buffer_) {
      // Reserved whole at once: growing by doubling copies and faults in
      // fresh memory at every step.
      if (buffer_.capacity() < max_buffer_) buffer_.reserve(max_buffer_);
      buffer_.append(data.data(), data.size());
      return Status::OK();
    }
    Status s = FlushBuffered();
    if (!s.ok()) return s;
    // An append as large as the whole buffer gains nothing from a copy.
    if (data.size() >= max_buffer_) return WriteToOS(data.data(), data.size());
    buffer_.append(data.data(), data.size());
    return Status::OK();
  }

  Status FlushBuffered() {
    if (buffer_.empty()) return Status::OK();
    Status s = WriteToOS(buffer_.data(), buffer_.size());
    // Even after an error the bytes are not retried: part of them may have
    // reached the file, and writing them again would duplicate that part.
    buffer_.clear();
    return s;
  }

  // write(2) at the file position (or the end, for appendable files).
  Status WriteToOS(const char* data, size_t n) {
    while (n > 0) {
      const ssize_t r = ::write(fd_, data, n);
      if (r < 0) {
        if (errno == EINTR) continue;
        return PosixError(fname_ + ": write", errno);
      }
      data += r;
      n -= static_cast<size_t>(r);
      written_ += static_cast<uint64_t>(r);
    }
    return MaybeRangeSync();
  }

  Status StartWriteback() override {
    if (fd_ < 0) return ClosedError();
    if (direct_) return Status::OK();  // written through already
    Status s = FlushBuffered();
    std::string().swap(buffer_);
    if (!s.ok()) return s;
    uint64_t any = 1;  // a threshold every unsynced byte count reaches
    return ::cascadedb::StartWriteback(fname_, fd_, written_, &any,
                                       &range_synced_);
  }

  // Starts write-back of everything written since the last range sync once
  // that reaches bytes_per_sync_, so the final fdatasync has less to do.
  Status MaybeRangeSync() {
    return ::cascadedb::StartWriteback(fname_, fd_, written_, &bytes_per_sync_,
                                       &range_synced_);
  }

  // Reserves space in preallocation_block_ steps ahead of the data. Only a
  // hint: on any failure preallocation is switched off for this file.
  void MaybePreallocate(uint64_t new_size) {
    if (preallocation_block_ == 0 || new_size <= preallocated_) return;
    const uint64_t new_end = RoundUp(new_size, preallocation_block_);
    if (::fallocate(fd_, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(preallocated_),
                    static_cast<off_t>(new_end - preallocated_)) != 0) {
      preallocation_block_ = 0;
      return;
    }
    preallocated_ = new_end;
  }

  Status AppendDirect(const Slice& data) {
    const char* p = data.data();
    size_t left = data.size();
    while (left > 0) {
      const size_t n = std::min(left, direct_capacity_ - direct_len_);
      std::memcpy(direct_buffer_.get() + direct_len_, p, n);
      direct_len_ += n;
      p += n;
      left -= n;
      if (direct_len_ == direct_capacity_) {
        Status s = WriteDirect(/*pad_tail=*/false);
        if (!s.ok()) return s;
      }
    }
    return Status::OK();
  }

  // Writes the whole blocks of the direct buffer and, if pad_tail, the
  // partial last block padded with zeros. The partial block stays at the
  // front of the buffer so the next write rewrites it whole.
  Status WriteDirect(bool pad_tail) {
    const size_t whole = RoundDown(direct_len_, kDirectIOAlignment);
    const size_t tail = direct_len_ - whole;
    const size_t write_len = (pad_tail && tail > 0)
                                 ? RoundUp(direct_len_, kDirectIOAlignment)
                                 : whole;
    if (write_len == 0) return Status::OK();
    char* buf = direct_buffer_.get();
    if (write_len > direct_len_) {
      std::memset(buf + direct_len_, 0, write_len - direct_len_);
    }
    size_t done = 0;
    while (done < write_len) {
      const ssize_t r = ::pwrite(fd_, buf + done, write_len - done,
                                 static_cast<off_t>(direct_offset_ + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return PosixError(fname_ + ": write at offset " +
                              std::to_string(direct_offset_ + done),
                          errno);
      }
      done += static_cast<size_t>(r);
    }
    if (tail > 0 && whole > 0) std::memmove(buf, buf + whole, tail);
    direct_offset_ += whole;
    direct_len_ = tail;
    return Status::OK();
  }

  Status Truncate() {
    if (::ftruncate(fd_, static_cast<off_t>(file_size_)) != 0) {
      return PosixError(fname_ + ": ftruncate", errno);
    }
    return Status::OK();
  }

  Status SyncImpl(bool metadata) {
    if (fd_ < 0) return ClosedError();
    Status s;
    if (direct_) {
      const bool padded = direct_len_ % kDirectIOAlignment != 0;
      s = WriteDirect(/*pad_tail=*/true);
      // Cut the padding so a crash right after the sync leaves the true
      // size; the size change is made durable by the sync below.
      if (s.ok() && padded) s = Truncate();
    } else {
      s = FlushBuffered();
    }
    // A reused file's old bytes past the appends would still be its end
    // after a crash (EnvOptions::truncate_on_sync): cut them first, so the
    // sync below makes the true size durable. Once, since later appends
    // only extend the file.
    if (s.ok() && old_end_ > file_size_) {
      s = Truncate();
      if (s.ok()) {
        old_end_ = 0;
        preallocated_ = file_size_;  // the cut freed any reservation too
      }
    }
    if (!s.ok()) return s;
    if (metadata) {
      if (::fsync(fd_) != 0) return PosixError(fname_ + ": fsync", errno);
    } else {
      if (::fdatasync(fd_) != 0) {
        return PosixError(fname_ + ": fdatasync", errno);
      }
    }
    return Status::OK();
  }

  const std::string fname_;
  int fd_;  // -1 once closed
  const bool direct_;
  const size_t max_buffer_;       // at most EnvOptions::kMaxBufferedWriteChunk
  uint64_t bytes_per_sync_;       // set to 0 where unsupported
  uint64_t preallocation_block_;  // set to 0 where unsupported
  // With truncate_on_sync, the old length of a reused file until the first
  // Sync cuts what is left of it; else 0.
  uint64_t old_end_;
  uint64_t file_size_;  // bytes appended, buffered or not

  // Buffered (non-direct) mode.
  std::string buffer_;     // appended bytes not yet handed to the OS
  uint64_t written_;       // bytes handed to the OS
  uint64_t range_synced_;  // end of the range passed to sync_file_range
  uint64_t preallocated_;  // end of the space reserved with fallocate

  // Direct mode: direct_buffer_[0, direct_len_) belongs at file offset
  // direct_offset_, which is always block-aligned.
  AlignedBuffer direct_buffer_;
  const size_t direct_capacity_;
  size_t direct_len_ = 0;
  uint64_t direct_offset_ = 0;
};

// ---------------------------------------------------------------- locks

class PosixFileLock final : public FileLock {
 public:
  PosixFileLock(int fd, std::string fname)
      : fd_(fd), fname_(std::move(fname)) {}
  int fd() const { return fd_; }
  const std::string& fname() const { return fname_; }

 private:
  const int fd_;
  const std::string fname_;
};

// The paths this process has locked. fcntl locks never conflict within one
// process, so without this table a second LockFile in the same process
// would succeed. Paths are compared as spelled: callers must use one
// spelling per file. Each entry records the pid that took it, so a child
// after fork() (which does not inherit fcntl locks) ignores its parent's.
class LockTable {
 public:
  // False if this process already holds fname.
  bool Insert(const std::string& fname) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    const pid_t pid = ::getpid();
    auto it = locked_.find(fname);
    if (it != locked_.end() && it->second == pid) return false;
    locked_[fname] = pid;
    return true;
  }

  void Remove(const std::string& fname) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    locked_.erase(fname);
  }

 private:
  Mutex mu_;
  std::map<std::string, pid_t> locked_ GUARDED_BY(mu_);
};

// ---------------------------------------------------------------- env

class PosixEnv final : public Env {
 public:
  PosixEnv() : low_pool_(1, "cascadedb:low"), high_pool_(1, "cascadedb:high") {}
  // Env::Default() is never destroyed, so neither is this.
  ~PosixEnv() override = default;

  Status NewSequentialFile(const std::string& fname,
                           std::unique_ptr<SequentialFile>* result,
                           const EnvOptions& options) override {
    result->reset();
    int fd = -1;
    Status s = OpenFile(fname, O_RDONLY, options.use_direct_reads, &fd);
    if (!s.ok()) return s;
    if (!options.use_direct_reads) {
      // Readahead helps a front-to-back reader; failure only loses a hint.
      (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    *result = std::make_unique<PosixSequentialFile>(fname, fd,
                                                    options.use_direct_reads);
    return Status::OK();
  }

  Status NewRandomAccessFile(const std::string& fname,
                             std::unique_ptr<RandomAccessFile>* result,
                             const EnvOptions& options) override {
    result->reset();
    int fd = -1;
    Status s = OpenFile(fname, O_RDONLY, options.use_direct_reads, &fd);
    if (!s.ok()) return s;
    if (options.use_mmap_reads && !options.use_direct_reads) {
      TryMmap(fname, fd, result);
      if (*result != nullptr) return Status::OK();
    }
    *result = std::make_unique<PosixRandomAccessFile>(fname, fd,
                                                      options.use_direct_reads);
    return Status::OK();
  }

  Status NewWritableFile(const std::string& fname,
                         std::unique_ptr<WritableFile>* result,
                         const EnvOptions& options) override {
    return OpenForWriting(fname, O_CREAT | O_TRUNC, options, result);
  }

  // The file keeps its blocks and cached pages: the mmap writer maps
  // them again (its reservations find blocks already there), the write(2)
  // writer takes them as preallocated. Either cuts the file to what was
  // written when it closes.
  Status ReuseWritableFile(const std::string& fname,
                           const std::string& old_fname,
                           std::unique_ptr<WritableFile>* result,
                           const EnvOptions& options) override {
    result->reset();
    Status s = RenameFile(old_fname, fname);
    if (!s.ok()) return s;
    return OpenForWriting(fname, 0, options, result);
  }

  Status NewAppendableFile(const std::string& fname,
                           std::unique_ptr<WritableFile>* result,
                           const EnvOptions& options) override {
    return OpenWritable(fname, O_WRONLY | O_CREAT | O_APPEND, options,
                        /*direct=*/false, result);
  }

  Status FileExists(const std::string& fname) override {
    if (::access(fname.c_str(), F_OK) == 0) return Status::OK();
    const int err = errno;
    if (err == ENOTDIR) return Status::NotFound(fname, ErrnoText(err));
    return PosixError(fname, err);
  }

  Status GetChildren(const std::string& dir,
                     std::vector<std::string>* result) override {
    result->clear();
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return PosixError(dir, errno);
    while (true) {
      errno = 0;
      struct dirent* entry = ::readdir(d);
      if (entry == nullptr) {
        const int err = errno;
        ::closedir(d);
        if (err != 0) return PosixError(dir + ": readdir", err);
        return Status::OK();
      }
      if (std::strcmp(entry->d_name, ".") == 0 ||
          std::strcmp(entry->d_name, "..") == 0) {
        continue;
      }
      result->emplace_back(entry->d_name);
    }
  }

  Status RemoveFile(const std::string& fname) override {
    MappingPark::Get()->Drop(fname);  // its blocks go with it
    if (::unlink(fname.c_str()) != 0) return PosixError(fname, errno);
    return Status::OK();
  }

  Status CreateDirIfMissing(const std::string& dir) override {
    if (::mkdir(dir.c_str(), 0755) == 0) return Status::OK();
    const int err = errno;
    if (err != EEXIST) return PosixError(dir, err);
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) return PosixError(dir, errno);
    if (!S_ISDIR(st.st_mode)) {
      return Status::IOError(dir, "exists but is not a directory");
    }
    return Status::OK();
  }

  Status RemoveDir(const std::string& dir) override {
    if (::rmdir(dir.c_str()) != 0) return PosixError(dir, errno);
    return Status::OK();
  }

  Status GetFileSize(const std::string& fname, uint64_t* size) override {
    struct stat st;
    if (::stat(fname.c_str(), &st) != 0) {
      *size = 0;
      return PosixError(fname, errno);
    }
    *size = static_cast<uint64_t>(st.st_size);
    return Status::OK();
  }

  Status NumFileLinks(const std::string& fname, uint64_t* count) override {
    struct stat st;
    if (::stat(fname.c_str(), &st) != 0) {
      *count = 0;
      return PosixError(fname, errno);
    }
    *count = static_cast<uint64_t>(st.st_nlink);
    return Status::OK();
  }

  Status RenameFile(const std::string& src,
                    const std::string& target) override {
    MappingPark::Get()->Drop(target);  // replaced, if it exists
    if (::rename(src.c_str(), target.c_str()) != 0) {
      return PosixError(src + ": rename to " + target, errno);
    }
    return Status::OK();
  }

  Status SyncDir(const std::string& dir) override {
    int fd = -1;
    Status s = OpenFile(dir, O_RDONLY | O_DIRECTORY, false, &fd);
    if (!s.ok()) return s;
    // Some filesystems cannot fsync a directory (EINVAL); their directory
    // updates are as durable as they will ever be.
    if (::fsync(fd) != 0 && errno != EINVAL)
      s = PosixError(dir + ": fsync", errno);
    ::close(fd);
    return s;
  }

  Status LockFile(const std::string& fname,
                  std::unique_ptr<FileLock>* lock) override {
    lock->reset();
    // Checked before opening: closing any fd of a file drops this process's
    // fcntl lock on it, so we must not even open a file we hold.
    if (!locks_.Insert(fname)) {
      return Status::Busy("lock " + fname, "already held by this process");
    }
    int fd = -1;
    Status s = OpenFile(fname, O_RDWR | O_CREAT, false, &fd);
    if (!s.ok()) {
      locks_.Remove(fname);
      return s;
    }
    struct flock f;
    std::memset(&f, 0, sizeof(f));
    f.l_type = F_WRLCK;
    f.l_whence = SEEK_SET;
    if (::fcntl(fd, F_SETLK, &f) == 0) {
      *lock = std::make_unique<PosixFileLock>(fd, fname);
      return Status::OK();
    }
    const int err = errno;
    if (err == EACCES || err == EAGAIN) {
      struct flock holder;
      std::memset(&holder, 0, sizeof(holder));
      holder.l_type = F_WRLCK;
      holder.l_whence = SEEK_SET;
      if (::fcntl(fd, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK &&
          holder.l_pid > 0) {
        s = Status::Busy("lock " + fname, "already held by process " +
                                              std::to_string(holder.l_pid));
      } else {
        s = Status::Busy("lock " + fname, "already held by another process");
      }
    } else {
      s = PosixError("lock " + fname, err);
    }
    ::close(fd);
    locks_.Remove(fname);
    return s;
  }

  Status UnlockFile(std::unique_ptr<FileLock> lock) override {
    if (lock == nullptr)
      return Status::InvalidArgument("unlock: no lock given");
    // Every FileLock handed out by this Env is a PosixFileLock.
    auto* posix_lock = static_cast<PosixFileLock*>(lock.get());
    Status s;
    struct flock f;
    std::memset(&f, 0, sizeof(f));
    f.l_type = F_UNLCK;
    f.l_whence = SEEK_SET;
    if (::fcntl(posix_lock->fd(), F_SETLK, &f) != 0) {
      s = PosixError("unlock " + posix_lock->fname(), errno);
    }
    if (::close(posix_lock->fd()) != 0 && s.ok()) {
      s = PosixError("unlock " + posix_lock->fname() + ": close", errno);
    }
    locks_.Remove(posix_lock->fname());
    return s;
  }

  void Schedule(void (*function)(void* arg), void* arg, Priority pri) override {
    Pool(pri)->Schedule(function, arg);
  }

  void SetBackgroundThreads(int number, Priority pri) override {
    Pool(pri)->SetBackgroundThreads(number);
  }

  int GetBackgroundThreads(Priority pri) override {
    return Pool(pri)->GetBackgroundThreads();
  }

  unsigned int GetThreadPoolQueueLen(Priority pri) const override {
    return Pool(pri)->QueueLen();
  }

  void WaitForBackgroundJobs() override {
    low_pool_.WaitForJobs();
    high_pool_.WaitForJobs();
  }

  Status LowerThreadPoolCPUPriority(Priority pool, CpuPriority pri) override {
    if (pool != Priority::kLow && pool != Priority::kHigh) {
      return Status::InvalidArgument("LowerThreadPoolCPUPriority",
                                     "unknown pool");
    }
    if (pri != CpuPriority::kIdle && pri != CpuPriority::kLow &&
        pri != CpuPriority::kNormal) {
      return Status::InvalidArgument("LowerThreadPoolCPUPriority",
                                     "unknown CPU priority");
    }
#if defined(__linux__)
    Pool(pool)->LowerCpuPriority(pri);
    return Status::OK();
#else
    return Status::NotSupported("LowerThreadPoolCPUPriority",
                                "thread priorities are set on Linux only");
#endif
  }

  Status GetThreadPoolCpuTime(Priority pool, uint64_t* on_cpu_micros,
                              uint64_t* waiting_micros) const override {
    *on_cpu_micros = 0;
    *waiting_micros = 0;
    if (pool != Priority::kLow && pool != Priority::kHigh) {
      return Status::InvalidArgument("GetThreadPoolCpuTime", "unknown pool");
    }
    if (!Pool(pool)->AddCpuTime(on_cpu_micros, waiting_micros)) {
      return Status::NotSupported("GetThreadPoolCpuTime",
                                  "the kernel keeps no per-thread CPU figures "
                                  "(/proc/self/task/*/schedstat)");
    }
    return Status::OK();
  }

  Status GetHelperThreadsCpuTime(uint64_t* on_cpu_micros,
                                 uint64_t* waiting_micros) const override {
    *on_cpu_micros = 0;
    *waiting_micros = 0;
    ThreadCpuTime probe;
    if (!ReadThreadCpuTime(0, &probe)) {
      return Status::NotSupported("GetHelperThreadsCpuTime",
                                  "the kernel keeps no per-thread CPU figures "
                                  "(/proc/self/task/*/schedstat)");
    }
    ThreadPool* helper = StartedWritersHelper();
    if (helper != nullptr) helper->AddCpuTime(on_cpu_micros, waiting_micros);
    return Status::OK();
  }

  void StartThread(void (*function)(void* arg), void* arg) override {
    std::thread(function, arg).detach();
  }

  Status NewLogger(const std::string& fname,
                   std::shared_ptr<Logger>* result) override {
    result->reset();
    int fd = -1;
    Status s = OpenFile(fname, O_WRONLY | O_CREAT | O_APPEND, false, &fd);
    if (!s.ok()) return s;
    std::FILE* fp = ::fdopen(fd, "a");
    if (fp == nullptr) {
      s = PosixError(fname + ": fdopen", errno);
      ::close(fd);
      return s;
    }
    *result = std::make_shared<PosixLogger>(fp);
    return Status::OK();
  }

  Status GetTestDirectory(std::string* path) override {
    const char* env = std::getenv("TEST_TMPDIR");
    if (env != nullptr && env[0] != '\0') {
      *path = env;
    } else {
      *path = "/tmp/cascadedbtest-" + std::to_string(::geteuid());
    }
    return CreateDirIfMissing(*path);
  }

  uint64_t NowMicros() override {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }

  uint64_t NowNanos() override {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }

  uint64_t NowCPUNanos() override {
    struct timespec ts;
    if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u +
           static_cast<uint64_t>(ts.tv_nsec);
  }

  uint64_t NowWallSeconds() override {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::seconds>(
            std::chrono::system_clock::now().time_since_epoch())
            .count());
  }

  void SleepForMicroseconds(int micros) override {
    if (micros <= 0) return;
    if (micros <= kSleepSpinMicros) {
      // Waking a sleeping thread takes 15-40 us on a busy machine, more than
      // the sleep: keep the CPU and watch the clock instead.
      WatchClock(micros, /*yield=*/false);
      return;
    }
#ifdef PR_SET_TIMERSLACK
    if (micros < kPreciseSleepMicros) {
      // Linux may end a sleep up to the thread's timer slack late (50 us by
      // default), five times a 10 us delayed-write sleep. Short sleeps run
      // with 1 us of slack; the caller's own slack is put back after.
      const int old_slack = ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
      if (old_slack > 0 &&
          ::prctl(PR_SET_TIMERSLACK, kShortSleepSlackNanos, 0, 0, 0) == 0) {
        std::this_thread::sleep_for(std::chrono::microseconds(micros));
        ::prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(old_slack), 0, 0,
                0);
        return;
      }
    }
#endif
    std::this_thread::sleep_for(std::chrono::microseconds(micros));
  }

  void YieldForMicroseconds(int micros) override {
    if (micros > kSleepSpinMicros) {
      SleepForMicroseconds(micros);
    } else {
      // With no other thread ready on this CPU, sched_yield returns at
      // once: this is then SleepForMicroseconds' spin.
      WatchClock(micros, /*yield=*/true);
    }
  }

 private:
  // Returns once micros have passed, by the clock, which it reads over and
  // over; between two reads it pauses the CPU (CpuRelax) or, with yield,
  // offers it to any other thread ready for it (sched_yield).
  static void WatchClock(int micros, bool yield) {
    const auto end =
        std::chrono::steady_clock::now() + std::chrono::microseconds(micros);
    while (std::chrono::steady_clock::now() < end) {
      if (yield) {
        std::this_thread::yield();
      } else {
        CpuRelax();
      }
    }
  }

  // Sleeps shorter than this are timed with kShortSleepSlackNanos of timer
  // slack; longer ones keep the thread's own (power-friendlier) slack.
  static constexpr int kPreciseSleepMicros = 1000;
  static constexpr unsigned long kShortSleepSlackNanos = 1000;

  ThreadPool* Pool(Priority pri) {
    return pri == Priority::kHigh ? &high_pool_ : &low_pool_;
  }
  const ThreadPool* Pool(Priority pri) const {
    return pri == Priority::kHigh ? &high_pool_ : &low_pool_;
  }

  // NewWritableFile (create_flags O_CREAT | O_TRUNC) and
  // ReuseWritableFile (0): through mmap where asked and possible, else
  // write(2), from offset 0.
  Status OpenForWriting(const std::string& fname, int create_flags,
                        const EnvOptions& options,
                        std::unique_ptr<WritableFile>* result) {
    result->reset();
    if (options.use_mmap_writes && !options.use_direct_writes &&
        !options.truncate_on_sync) {
      int fd = -1;
      Status s = OpenFile(fname, O_RDWR | create_flags, false, &fd);
      if (!s.ok()) return s;
      auto file = std::make_unique<PosixMmapWritableFile>(fname, fd, options);
      s = file->Init();
      if (s.ok()) {
        *result = std::move(file);
        return s;
      }
      file.reset();  // closes fd, cutting the file back to empty
      if (!s.IsNotSupported()) return s;
      // No fallocate here: write(2) below.
    }
    return OpenWritable(fname, O_WRONLY | create_flags, options,
                        options.use_direct_writes, result);
  }

  Status OpenWritable(const std::string& fname, int flags,
                      const EnvOptions& options, bool direct,
                      std::unique_ptr<WritableFile>* result) {
    result->reset();
    AlignedBuffer direct_buffer;
    size_t direct_capacity = 0;
    if (direct) {
      // The buffer holds at least one block, whatever the buffer option.
      direct_capacity = static_cast<size_t>(std::max<uint64_t>(
          kDirectIOAlignment,
          RoundUp(options.writable_file_max_buffer_size, kDirectIOAlignment)));
      direct_buffer = AllocateAligned(direct_capacity);
      if (direct_buffer == nullptr) return OutOfMemory(fname, direct_capacity);
    }
    int fd = -1;
    Status s = OpenFile(fname, flags, direct, &fd);
    if (!s.ok()) return s;
    uint64_t initial_size = 0;
    uint64_t old_size = 0;
    if ((flags & (O_APPEND | O_TRUNC)) != O_TRUNC) {
      // Appending: the writes go after the old bytes. Reusing (neither
      // flag): they go over them, which count as preallocated so Close
      // cuts what is left of them.
      struct stat st;
      if (::fstat(fd, &st) != 0) {
        s = PosixError(fname + ": fstat", errno);
        ::close(fd);
        return s;
      }
      old_size = static_cast<uint64_t>(st.st_size);
      if (flags & O_APPEND) initial_size = old_size;
    }
    *result = std::make_unique<PosixWritableFile>(
        fname, fd, initial_size, old_size, options, direct,
        std::move(direct_buffer), direct_capacity);
    return Status::OK();
  }

  LockTable locks_;
  ThreadPool low_pool_;
  ThreadPool high_pool_;
};

}  // namespace

Env* Env::Default() {
  // Deliberately leaked: background threads and detached threads may still
  // use it while static destructors run at exit.
  static Env* const default_env = new PosixEnv();
  return default_env;
}

}  // namespace cascadedb

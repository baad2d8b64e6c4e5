// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/resource.h>
#endif
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cascadedb/env.h"
#include "tests/testutil/one_cpu.h"
#include "tests/testutil/test_util.h"
#include "util/thread_pool.h"

namespace cascadedb {
namespace {

class EnvPosixTest : public ::testing::Test {
 protected:
  // Reads the file with plain iostreams, bypassing the Env under test.
  static std::string RawContents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  static uint64_t RawSize(const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return 0;
    return static_cast<uint64_t>(st.st_size);
  }

  std::unique_ptr<WritableFile> NewWritable(const std::string& path,
                                            const EnvOptions& options) {
    std::unique_ptr<WritableFile> file;
    Status s = env_->NewWritableFile(path, &file, options);
    EXPECT_OK(s);
    return file;
  }

  // Writes contents to path and opens it for mmap reads.
  std::unique_ptr<RandomAccessFile> NewMapped(const std::string& path,
                                              const std::string& contents) {
    EXPECT_OK(WriteStringToFile(env_, contents, path));
    EnvOptions options;
    options.use_mmap_reads = true;
    std::unique_ptr<RandomAccessFile> file;
    EXPECT_OK(env_->NewRandomAccessFile(path, &file, options));
    EXPECT_TRUE(file != nullptr && file->ReturnsOwnMemory());
    return file;
  }

  Env* const env_ = Env::Default();
  test::TempDir dir_;
};

// ---------------------------------------------------------------- reading

TEST_F(EnvPosixTest, WrittenDataReadsBackUnchanged) {
  uint32_t seed = test::RandomSeed();
  const std::string data = test::RandomBytes(&seed, 300 * 1000);
  const std::string path = dir_.File("round_trip");
  ASSERT_OK(WriteStringToFile(env_, data, path));
  std::string read;
  ASSERT_OK(ReadFileToString(env_, path, &read));
  EXPECT_EQ(data, read);
}

TEST_F(EnvPosixTest, SequentialReadIsShortAtEndOfFile) {
  const std::string path = dir_.File("seq");
  ASSERT_OK(WriteStringToFile(env_, "0123456789", path));
  std::unique_ptr<SequentialFile> file;
  ASSERT_OK(env_->NewSequentialFile(path, &file, EnvOptions()));
  char scratch[32];
  Slice result;
  ASSERT_OK(file->Read(4, &result, scratch));
  EXPECT_EQ("0123", result.ToString());
  ASSERT_OK(file->Read(20, &result, scratch));
  EXPECT_EQ("456789", result.ToString());
  ASSERT_OK(file->Read(20, &result, scratch));
  EXPECT_TRUE(result.empty());
}

TEST_F(EnvPosixTest, SequentialSkipMovesForward) {
  const std::string path = dir_.File("seq");
  ASSERT_OK(WriteStringToFile(env_, "0123456789", path));
  std::unique_ptr<SequentialFile> file;
  ASSERT_OK(env_->NewSequentialFile(path, &file, EnvOptions()));
  char scratch[32];
  Slice result;
  ASSERT_OK(file->Skip(3));
  ASSERT_OK(file->Read(2, &result, scratch));
  EXPECT_EQ("34", result.ToString());
  ASSERT_OK(file->Skip(100));  // past the end
  ASSERT_OK(file->Read(5, &result, scratch));
  EXPECT_TRUE(result.empty());
}

TEST_F(EnvPosixTest, RandomAccessReadsAtAnyOffset) {
  const std::string path = dir_.File("random");
  ASSERT_OK(WriteStringToFile(env_, "abcdefghij", path));
  std::unique_ptr<RandomAccessFile> file;
  ASSERT_OK(env_->NewRandomAccessFile(path, &file, EnvOptions()));
  EXPECT_FALSE(file->use_direct_io());
  char scratch[32];
  Slice result;
  ASSERT_OK(file->Read(7, 2, &result, scratch));
  EXPECT_EQ("hi", result.ToString());
  ASSERT_OK(file->Read(0, 3, &result, scratch));
  EXPECT_EQ("abc", result.ToString());
  ASSERT_OK(file->Read(8, 10, &result, scratch));  // spans the end
  EXPECT_EQ("ij", result.ToString());
  ASSERT_OK(file->Read(50, 10, &result, scratch));  // past the end
  EXPECT_TRUE(result.empty());
}

TEST_F(EnvPosixTest, RandomAccessFileServesConcurrentReaders) {
  uint32_t seed = test::RandomSeed();
  const std::string data = test::RandomBytes(&seed, 64 * 1024);
  const std::string path = dir_.File("shared");
  ASSERT_OK(WriteStringToFile(env_, data, path));
  std::unique_ptr<RandomAccessFile> file;
  ASSERT_OK(env_->NewRandomAccessFile(path, &file, EnvOptions()));

  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&, t] {
      char scratch[1000];
      for (size_t off = t * 7; off + 1000 <= data.size(); off += 977) {
        Slice result;
        if (!file->Read(off, 1000, &result, scratch).ok() ||
            result.ToString() != data.substr(off, 1000)) {
          mismatches++;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(0, mismatches.load());
}

TEST_F(EnvPosixTest, MmapReadsReturnTheFilesOwnMemory) {
  const std::string path = dir_.File("mapped");
  std::unique_ptr<RandomAccessFile> file = NewMapped(path, "abcdefghij");
  ASSERT_TRUE(file != nullptr && file->ReturnsOwnMemory());
  Slice result;
  ASSERT_OK(file->Read(7, 2, &result, nullptr));
  EXPECT_EQ("hi", result.ToString());
  const char* first = result.data();
  ASSERT_OK(file->Read(0, 3, &result, nullptr));
  EXPECT_EQ("abc", result.ToString());
  EXPECT_EQ(first - 7, result.data());             // one mapping, no copies
  ASSERT_OK(file->Read(8, 10, &result, nullptr));  // spans the end
  EXPECT_EQ("ij", result.ToString());
  ASSERT_OK(file->Read(10, 1, &result, nullptr));  // at the end
  EXPECT_TRUE(result.empty());
  ASSERT_OK(file->Read(50, 10, &result, nullptr));  // past the end
  EXPECT_TRUE(result.empty());
  // Prefetch is a hint, harmless anywhere (even past the end).
  file->Prefetch(0, 4);
  file->Prefetch(3, 1 << 20);
  file->Prefetch(50, 10);
  // Removing the name leaves the mapping readable.
  ASSERT_OK(env_->RemoveFile(path));
  ASSERT_OK(file->Read(2, 3, &result, nullptr));
  EXPECT_EQ("cde", result.ToString());
}

TEST_F(EnvPosixTest, MappedFilesCopyingReaderReadsTheSameFileIntoScratch) {
  const std::string path = dir_.File("mapped");
  std::unique_ptr<RandomAccessFile> file = NewMapped(path, "abcdefghij");
  ASSERT_TRUE(file != nullptr && file->ReturnsOwnMemory());
  std::unique_ptr<RandomAccessFile> copier = file->NewCopyingReader();
  ASSERT_NE(nullptr, copier);
  EXPECT_FALSE(copier->ReturnsOwnMemory());
  char scratch[16];
  Slice result;
  ASSERT_OK(copier->Read(2, 3, &result, scratch));
  EXPECT_EQ("cde", result.ToString());
  EXPECT_EQ(scratch, result.data());
  ASSERT_OK(copier->Read(8, 10, &result, scratch));  // spans the end
  EXPECT_EQ("ij", result.ToString());
  copier->Prefetch(0, 1 << 20);  // a hint, harmless past the end
  // The copier keeps reading after the name is gone, like the mapping.
  ASSERT_OK(env_->RemoveFile(path));
  ASSERT_OK(copier->Read(0, 4, &result, scratch));
  EXPECT_EQ("abcd", result.ToString());
  // A new file under the name is not the mapped one: no copier.
  EXPECT_EQ(nullptr, file->NewCopyingReader());
  ASSERT_OK(WriteStringToFile(env_, "0123456789", path));
  EXPECT_EQ(nullptr, file->NewCopyingReader());
  ASSERT_OK(file->Read(0, 4, &result, nullptr));
  EXPECT_EQ("abcd", result.ToString());
  // A file read with pread has no other reader to offer.
  std::unique_ptr<RandomAccessFile> plain;
  ASSERT_OK(env_->NewRandomAccessFile(path, &plain, EnvOptions()));
  ASSERT_FALSE(plain->ReturnsOwnMemory());
  EXPECT_EQ(nullptr, plain->NewCopyingReader());
  plain->Prefetch(0, 4);
}

TEST_F(EnvPosixTest, MmapIsNotUsedForEmptyFilesOrDirectReads) {
  const std::string path = dir_.File("empty");
  ASSERT_OK(WriteStringToFile(env_, "", path));
  EnvOptions options;
  options.use_mmap_reads = true;
  std::unique_ptr<RandomAccessFile> file;
  ASSERT_OK(env_->NewRandomAccessFile(path, &file, options));
  EXPECT_FALSE(file->ReturnsOwnMemory());  // nothing to map: pread
  char scratch[4];
  Slice result;
  ASSERT_OK(file->Read(0, 4, &result, scratch));
  EXPECT_TRUE(result.empty());

  ASSERT_OK(WriteStringToFile(env_, "abc", path));
  options.use_direct_reads = true;
  Status s = env_->NewRandomAccessFile(path, &file, options);
  if (s.IsNotSupported()) GTEST_SKIP() << "no O_DIRECT here: " << s.ToString();
  ASSERT_OK(s);
  EXPECT_FALSE(file->ReturnsOwnMemory());  // direct reads win
  EXPECT_TRUE(file->use_direct_io());
}

TEST_F(EnvPosixTest, ManyMappedFilesFallBackToPreadBeyondTheCap) {
  // More files than the process-wide cap (4096): the later ones read with
  // pread, and every one reads back its own contents.
  EnvOptions options;
  options.use_mmap_reads = true;
  std::vector<std::unique_ptr<RandomAccessFile>> files;
  const std::string path = dir_.File("many");
  ASSERT_OK(WriteStringToFile(env_, "xyz", path));
  int mapped = 0;
  for (int i = 0; i < 4200; i++) {
    std::unique_ptr<RandomAccessFile> file;
    ASSERT_OK(env_->NewRandomAccessFile(path, &file, options));
    if (file->ReturnsOwnMemory()) mapped++;
    files.push_back(std::move(file));
  }
  EXPECT_LE(mapped, 4096);
  EXPECT_GT(mapped, 0);
  char scratch[3];
  Slice result;
  ASSERT_OK(files.back()->Read(0, 3, &result, scratch));
  EXPECT_EQ("xyz", result.ToString());
  files.clear();  // slots come back
  std::unique_ptr<RandomAccessFile> again;
  ASSERT_OK(env_->NewRandomAccessFile(path, &again, options));
  EXPECT_TRUE(again->ReturnsOwnMemory());
}

// ---------------------------------------------------------------- writing

TEST_F(EnvPosixTest, MmapWritesReadBackAcrossRegions) {
  // 3 MiB in appends of random sizes crosses the 64 KiB first region and
  // several growing ones; the file is cut to its true size on Close.
  EnvOptions options;
  options.use_mmap_writes = true;
  const std::string path = dir_.File("mapped-log");
  std::unique_ptr<WritableFile> file = NewWritable(path, options);
  ASSERT_NE(nullptr, file);
  uint32_t seed = test::RandomSeed();
  const std::string data = test::RandomBytes(&seed, 3 << 20);
  size_t off = 0;
  uint32_t sizes = seed;
  while (off < data.size()) {
    sizes = sizes * 1103515245u + 12345u;
    const size_t n =
        std::min<size_t>(data.size() - off, 1 + (sizes >> 8) % 70000);
    ASSERT_OK(file->Append(Slice(data.data() + off, n)));
    off += n;
    ASSERT_EQ(off, file->GetFileSize());
  }
  // In the page cache already: another reader sees every byte before any
  // Flush or Close (what lets them survive a crash of the process).
  EXPECT_EQ(data, RawContents(path).substr(0, data.size()));
  EXPECT_GE(RawSize(path), data.size());
  ASSERT_OK(file->Flush());
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->Fsync());
  ASSERT_OK(file->Close());
  EXPECT_EQ(data.size(), RawSize(path));
  EXPECT_EQ(data, RawContents(path));
  EXPECT_TRUE(file->Append("x").IsIOError());  // closed
  EXPECT_TRUE(file->Sync().IsIOError());
}

TEST_F(EnvPosixTest, MmapWholeRegionAppendsReadBack) {
  // 48 MiB: the ramp (64 KiB doubling), then one append per 1 MiB region,
  // so the writer fills each region right after the helper hands it over,
  // maybe while the helper is still touching its pages in (a race this
  // test cannot force; util/page_touch_test.cc tests the touch itself).
  // Every 8 bytes hold their own offset, so a lost or stale page shows.
  EnvOptions options;
  options.use_mmap_writes = true;
  const std::string path = dir_.File("whole-regions");
  std::unique_ptr<WritableFile> file = NewWritable(path, options);
  ASSERT_NE(nullptr, file);
  const uint64_t salt = test::RandomSeed();
  const size_t total = 48 << 20;
  std::string data(total, '\0');
  for (size_t off = 0; off < total; off += 8) {
    const uint64_t word = off ^ (salt << 32);
    std::memcpy(&data[off], &word, 8);
  }
  size_t off = 0;
  for (size_t n = 64 << 10; off < total; n = std::min<size_t>(n * 2, 1 << 20)) {
    const size_t len = std::min(n, total - off);
    ASSERT_OK(file->Append(Slice(data.data() + off, len)));
    off += len;
  }
  EXPECT_TRUE(RawContents(path).substr(0, total) == data)
      << "bytes lost before Close";
  ASSERT_OK(file->Close());
  EXPECT_EQ(total, RawSize(path));
  EXPECT_TRUE(RawContents(path) == data) << "bytes lost after Close";
}

#if defined(__linux__)
// The kernel id of this process's thread named name, or -1.
int ThreadNamed(const std::string& name) {
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int found = -1;
  while (struct dirent* e = ::readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string line;
    if (std::getline(comm, line) && line == name) found = std::atoi(e->d_name);
  }
  ::closedir(dir);
  return found;
}

TEST_F(EnvPosixTest, MmapFileHelperStaysOffTheWritersCpuWhenAsked) {
  if (AvailableCpus() < 2) GTEST_SKIP() << "needs two CPUs";
  EnvOptions options;
  options.use_mmap_writes = true;
  const std::string chunk(64 << 10, 'x');
  {
    // Unpinned, so the helper exists and may use every CPU we may.
    std::unique_ptr<WritableFile> warm =
        NewWritable(dir_.File("warm"), options);
    for (int i = 0; i < 4; ++i) ASSERT_OK(warm->Append(chunk));
    ASSERT_OK(warm->Close());
  }
  const int helper = ThreadNamed("cascadedb:map");
  ASSERT_GT(helper, 0);
  cpu_set_t all;
  ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
  test::ScopedOneCpu one_cpu;
  ASSERT_TRUE(one_cpu.ok());
  const int cpu = sched_getcpu();
  std::unique_ptr<WritableFile> file = NewWritable(dir_.File("log"), options);
  file->SetHelperBesideWriter(true);
  // 512 KiB: every region switch schedules the next region's preparation.
  for (int i = 0; i < 8; ++i) ASSERT_OK(file->Append(chunk));
  cpu_set_t set;
  ASSERT_EQ(0, sched_getaffinity(helper, sizeof(set), &set));
  EXPECT_FALSE(CPU_ISSET(cpu, &set)) << "the helper may still use CPU " << cpu;
  EXPECT_EQ(CPU_COUNT(&all) - 1, CPU_COUNT(&set));
  // Withdrawn: the next preparation may run anywhere again.
  file->SetHelperBesideWriter(false);
  for (int i = 0; i < 32; ++i) ASSERT_OK(file->Append(chunk));
  ASSERT_EQ(0, sched_getaffinity(helper, sizeof(set), &set));
  EXPECT_TRUE(CPU_EQUAL(&all, &set));
  ASSERT_OK(file->Close());
  EXPECT_EQ(40u * chunk.size(), RawSize(dir_.File("log")));
}
#endif

TEST_F(EnvPosixTest, MmapWritableFileTruncatesAndClosesOnDestruction) {
  const std::string path = dir_.File("mapped-small");
  ASSERT_OK(WriteStringToFile(env_, std::string(100000, 'o'), path));
  EnvOptions options;
  options.use_mmap_writes = true;
  {
    std::unique_ptr<WritableFile> file = NewWritable(path, options);
    ASSERT_NE(nullptr, file);
    ASSERT_EQ(0u, file->GetFileSize());  // the old contents are gone
    ASSERT_OK(file->Append("hello"));
  }
  EXPECT_EQ("hello", RawContents(path));
  // An empty file closes empty.
  {
    std::unique_ptr<WritableFile> file = NewWritable(path, options);
    ASSERT_NE(nullptr, file);
  }
  EXPECT_EQ(0u, RawSize(path));
}

TEST_F(EnvPosixTest, MmapFilesCloseExactlyAtAndAroundRegionEnds) {
  // The next region is mapped by a helper thread while one fills; closing
  // (or destroying) a file at any point of that, with several files
  // sharing the helper, must leave exactly the bytes appended. The sizes
  // land on, just before and just after the ends of the first regions
  // (64 KiB, then 128 KiB, 256 KiB, ...).
  EnvOptions options;
  options.use_mmap_writes = true;
  const size_t k64 = 64 << 10;
  const std::vector<size_t> sizes = {
      k64 - 1,     k64,     k64 + 1,      3 * k64,
      3 * k64 + 7, 7 * k64, 15 * k64 + 3, (31 << 16) + 100};
  uint32_t seed = test::RandomSeed();
  const std::string data = test::RandomBytes(&seed, sizes.back());
  std::vector<std::unique_ptr<WritableFile>> files;
  for (size_t i = 0; i < sizes.size(); i++) {
    files.push_back(
        NewWritable(dir_.File("edge-" + std::to_string(i)), options));
    ASSERT_NE(nullptr, files.back());
  }
  // Interleave the files' appends in 4 KiB pieces.
  for (size_t off = 0; off < data.size(); off += 4096) {
    for (size_t i = 0; i < sizes.size(); i++) {
      if (off >= sizes[i]) continue;
      const size_t n = std::min<size_t>(4096, sizes[i] - off);
      ASSERT_OK(files[i]->Append(Slice(data.data() + off, n)));
    }
  }
  for (size_t i = 0; i < sizes.size(); i++) {
    if (i % 2 == 0) {
      ASSERT_OK(files[i]->Close());
    } else {
      files[i].reset();  // the destructor closes
    }
    const std::string path = dir_.File("edge-" + std::to_string(i));
    EXPECT_EQ(sizes[i], RawSize(path)) << i;
    EXPECT_EQ(data.substr(0, sizes[i]), RawContents(path)) << i;
  }
}

#if defined(__linux__)
// Bytes of this process's mappings of the file at path, from
// /proc/self/maps (a mapping of an unlinked file is listed with
// " (deleted)" after its path, and counts too).
uint64_t MappedBytesOf(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  uint64_t bytes = 0;
  while (std::getline(maps, line)) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string name = line.substr(slash);
    if (name != path && name != path + " (deleted)") continue;
    unsigned long long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx", &begin, &end) == 2) {
      bytes += end - begin;
    }
  }
  return bytes;
}

long MinorFaults() {
  struct rusage usage;
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// A file written through mmap keeps its mappings after Close, and a reuse
// of the same file (a recycled WAL) writes through them: its pages take no
// fault. Each round writes a different size (shorter and longer than the
// last) with its own bytes, and reads back exactly those.
TEST_F(EnvPosixTest, MmapReuseWritesThroughTheParkedMappings) {
  EnvOptions options;
  options.use_mmap_writes = true;
  const size_t kRecord = 1040;  // a 1 KiB value's WAL record, about
  const std::vector<size_t> records = {4100, 4100, 1500, 4100, 5200, 2300};
  std::string previous;
  size_t previous_size = 0;
  long first_faults = 0;
  for (size_t round = 0; round < records.size(); ++round) {
    SCOPED_TRACE(round);
    const std::string path = dir_.File("wal-" + std::to_string(round));
    std::string data(records[round] * kRecord, '\0');
    for (size_t off = 0; off < data.size(); off += 8) {
      const uint64_t word = off ^ (uint64_t{round} << 48);
      std::memcpy(&data[off], &word, 8);
    }
    const long faults_before = MinorFaults();
    std::unique_ptr<WritableFile> file;
    if (previous.empty()) {
      ASSERT_OK(env_->NewWritableFile(path, &file, options));
    } else {
      const uint64_t parked = MappedBytesOf(previous);
      // All of the last file (a few regions) stays mapped.
      ASSERT_GE(parked, previous_size) << "closed, yet not kept mapped";
      ASSERT_OK(env_->ReuseWritableFile(path, previous, &file, options));
      // The same mappings, now under the new name.
      EXPECT_EQ(parked, MappedBytesOf(path));
    }
    for (size_t off = 0; off < data.size(); off += kRecord) {
      ASSERT_OK(file->Append(Slice(data.data() + off, kRecord)));
    }
    ASSERT_OK(file->Close());
    const long faults = MinorFaults() - faults_before;
    if (round == 0) first_faults = faults;
    if (round == 1) {
      // The same size again: every page was mapped and dirty already
      // (4 MiB is over 1000 pages, which a new file faults in).
      EXPECT_GT(first_faults, 1000);
      EXPECT_LT(faults, 64) << "against " << first_faults << " when new";
    }
    EXPECT_EQ(data.size(), RawSize(path));
    EXPECT_TRUE(RawContents(path) == data) << "wrong bytes read back";
    previous = path;
    previous_size = data.size();
  }
  // A file opened afresh (truncated) over a parked one is written right too.
  std::unique_ptr<WritableFile> file = NewWritable(previous, options);
  ASSERT_NE(nullptr, file);
  ASSERT_OK(file->Append("fresh"));
  ASSERT_OK(file->Close());
  EXPECT_EQ("fresh", RawContents(previous));
  ASSERT_OK(env_->RemoveFile(previous));
  EXPECT_EQ(0u, MappedBytesOf(previous));
}

// A parked mapping would keep an unlinked file's blocks: removing the file,
// or renaming another over it, unmaps it first.
TEST_F(EnvPosixTest, ParkedMappingsGoWithTheirFile) {
  EnvOptions options;
  options.use_mmap_writes = true;
  const std::string chunk(256 << 10, 'p');
  const std::string a = dir_.File("parked-a");
  const std::string b = dir_.File("parked-b");
  for (const std::string& path : {a, b}) {
    std::unique_ptr<WritableFile> file = NewWritable(path, options);
    for (int i = 0; i < 8; ++i) ASSERT_OK(file->Append(chunk));
    ASSERT_OK(file->Close());
    EXPECT_GE(MappedBytesOf(path), 2u << 20) << path;
  }
  ASSERT_OK(env_->RemoveFile(a));
  EXPECT_EQ(0u, MappedBytesOf(a));
  ASSERT_OK(WriteStringToFile(env_, "replacement", a));
  ASSERT_OK(env_->RenameFile(a, b));  // b's old inode is unlinked
  EXPECT_EQ(0u, MappedBytesOf(b));
  EXPECT_EQ("replacement", RawContents(b));
}

// Closed files keep at most 16 MiB of their regions each and 32 MiB in
// all; the files closed last keep theirs.
TEST_F(EnvPosixTest, ParkedMappingsStayUnderTheirCaps) {
  EnvOptions options;
  options.use_mmap_writes = true;
  const std::string chunk(1 << 20, 'c');
  std::vector<std::string> paths;
  for (int f = 0; f < 4; ++f) {
    paths.push_back(dir_.File("capped-" + std::to_string(f)));
    std::unique_ptr<WritableFile> file = NewWritable(paths.back(), options);
    for (int i = 0; i < 20; ++i) ASSERT_OK(file->Append(chunk));
    // Past 16 MiB, passed regions are unmapped as the file grows.
    EXPECT_LE(MappedBytesOf(paths.back()), (16u + 2) << 20);
    ASSERT_OK(file->Close());
  }
  uint64_t total = 0;
  for (const std::string& path : paths) total += MappedBytesOf(path);
  EXPECT_LE(total, 32u << 20);
  EXPECT_GE(MappedBytesOf(paths.back()), 16u << 20);
  EXPECT_EQ(0u, MappedBytesOf(paths.front()));
  for (const std::string& path : paths) ASSERT_OK(env_->RemoveFile(path));
}

// The caps come from EnvOptions: a file may keep all of a larger size
// mapped, and the park hold more of such files; a reuse of one then takes
// no fault past 16 MiB either.
TEST_F(EnvPosixTest, ParkedMappingsFollowTheCapsAskedFor) {
  EnvOptions options;
  options.use_mmap_writes = true;
  options.mmap_kept_bytes = 24 << 20;
  options.mmap_parked_bytes =
      2 * (options.mmap_kept_bytes + EnvOptions::kMaxMmapRegion);
  const size_t kChunk = 1 << 20;
  const std::string chunk(kChunk, 'k');
  const size_t kChunks = 22;  // 22 MiB: past the default 16 MiB
  std::vector<std::string> paths;
  for (int f = 0; f < 3; ++f) {
    paths.push_back(dir_.File("kept-" + std::to_string(f)));
    std::unique_ptr<WritableFile> file = NewWritable(paths.back(), options);
    for (size_t i = 0; i < kChunks; ++i) ASSERT_OK(file->Append(chunk));
    ASSERT_OK(file->Close());
    EXPECT_GE(MappedBytesOf(paths.back()), kChunks * kChunk) << f;
  }
  // Two such files fit in the park: the first was unmapped.
  EXPECT_EQ(0u, MappedBytesOf(paths[0]));
  EXPECT_GE(MappedBytesOf(paths[1]), kChunks * kChunk);
  // Written again through its parked mappings: every page was mapped and
  // dirty already (a new 22 MiB file faults in over 5,000 pages).
  const std::string reused = dir_.File("kept-reused");
  std::unique_ptr<WritableFile> file;
  const long faults_before = MinorFaults();
  ASSERT_OK(env_->ReuseWritableFile(reused, paths[2], &file, options));
  for (size_t i = 0; i < kChunks; ++i) ASSERT_OK(file->Append(chunk));
  ASSERT_OK(file->Close());
  EXPECT_LT(MinorFaults() - faults_before, 64);
  EXPECT_EQ(kChunks * kChunk, RawSize(reused));
  paths[2] = reused;
  for (const std::string& path : paths) ASSERT_OK(env_->RemoveFile(path));
}
#endif

TEST_F(EnvPosixTest, AppendsStayBufferedUntilFlush) {
  const std::string path = dir_.File("buffered");
  auto file = NewWritable(path, EnvOptions());  // 1 MiB buffer
  ASSERT_OK(file->Append(std::string(100, 'x')));
  EXPECT_EQ(100u, file->GetFileSize());  // counts buffered bytes
  EXPECT_EQ(0u, RawSize(path));          // nothing handed to the OS yet
  ASSERT_OK(file->Flush());
  EXPECT_EQ(std::string(100, 'x'), RawContents(path));
  ASSERT_OK(file->Close());
}

TEST_F(EnvPosixTest, ZeroBufferWritesEachAppendAtOnce) {
  const std::string path = dir_.File("unbuffered");
  EnvOptions options;
  options.writable_file_max_buffer_size = 0;
  auto file = NewWritable(path, options);
  ASSERT_OK(file->Append("abc"));
  EXPECT_EQ("abc", RawContents(path));
  ASSERT_OK(file->Close());
}

TEST_F(EnvPosixTest, FullBufferIsWrittenAndLargeAppendsBypassIt) {
  const std::string path = dir_.File("spill");
  EnvOptions options;
  options.writable_file_max_buffer_size = 64;
  auto file = NewWritable(path, options);
  ASSERT_OK(file->Append(std::string(40, 'a')));
  EXPECT_EQ(0u, RawSize(path));
  ASSERT_OK(file->Append(std::string(40, 'b')));  // does not fit: spill 'a's
  EXPECT_EQ(40u, RawSize(path));
  ASSERT_OK(file->Append(std::string(100, 'c')));  // large: written directly
  EXPECT_EQ(180u, RawSize(path));
  EXPECT_EQ(180u, file->GetFileSize());
  ASSERT_OK(file->Close());
  EXPECT_EQ(std::string(40, 'a') + std::string(40, 'b') + std::string(100, 'c'),
            RawContents(path));
}

TEST_F(EnvPosixTest, SyncAndCloseWriteBufferedData) {
  const std::string path = dir_.File("sync");
  auto file = NewWritable(path, EnvOptions());
  ASSERT_OK(file->Append("hello"));
  ASSERT_OK(file->Sync());
  EXPECT_EQ("hello", RawContents(path));
  ASSERT_OK(file->Append(" world"));
  ASSERT_OK(file->Fsync());
  EXPECT_EQ("hello world", RawContents(path));
  ASSERT_OK(file->Append("!"));
  ASSERT_OK(file->Close());
  EXPECT_EQ("hello world!", RawContents(path));
  EXPECT_TRUE(file->Append("more").IsIOError());  // closed
}

TEST_F(EnvPosixTest, StartWritebackHandsBufferedDataToTheOS) {
  const std::string path = dir_.File("writeback");
  auto file = NewWritable(path, EnvOptions());
  ASSERT_OK(file->Append("hello"));
  EXPECT_EQ(0u, RawSize(path));  // still buffered
  ASSERT_OK(file->StartWriteback());
  EXPECT_EQ("hello", RawContents(path));
  ASSERT_OK(file->StartWriteback());  // nothing new: fine
  ASSERT_OK(file->Append(" world"));  // the file goes on after it
  ASSERT_OK(file->StartWriteback());
  EXPECT_EQ("hello world", RawContents(path));
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->Close());
  EXPECT_EQ("hello world", RawContents(path));
  EXPECT_TRUE(file->StartWriteback().IsIOError());  // closed
}

TEST_F(EnvPosixTest, DestructorWritesBufferedData) {
  const std::string path = dir_.File("dtor");
  NewWritable(path, EnvOptions())->Append("kept").IgnoreError();
  EXPECT_EQ("kept", RawContents(path));
}

TEST_F(EnvPosixTest, NewWritableFileTruncatesExistingFile) {
  const std::string path = dir_.File("truncate");
  ASSERT_OK(WriteStringToFile(env_, "old contents", path));
  auto file = NewWritable(path, EnvOptions());
  ASSERT_OK(file->Append("new"));
  ASSERT_OK(file->Close());
  EXPECT_EQ("new", RawContents(path));
}

TEST_F(EnvPosixTest, AppendableFileContinuesExistingFile) {
  const std::string path = dir_.File("append");
  ASSERT_OK(WriteStringToFile(env_, "abc", path));
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(env_->NewAppendableFile(path, &file, EnvOptions()));
  EXPECT_EQ(3u, file->GetFileSize());
  ASSERT_OK(file->Append("def"));
  EXPECT_EQ(6u, file->GetFileSize());
  ASSERT_OK(file->Close());
  EXPECT_EQ("abcdef", RawContents(path));
}

// A reused file keeps its inode (its blocks and cached pages) and is written
// from offset 0; the old bytes past the writes are there until Close cuts
// them, through mmap, buffered write(2) and direct I/O alike.
TEST_F(EnvPosixTest, ReusedFileIsWrittenOverAndCutAtClose) {
  struct Variant {
    const char* name;
    bool mmap;
    bool direct;
  };
  for (const Variant& v :
       {Variant{"mmap", true, false}, Variant{"write", false, false},
        Variant{"direct", false, true}}) {
    SCOPED_TRACE(v.name);
    const std::string old_path = dir_.File(std::string("old-") + v.name);
    const std::string path = dir_.File(std::string("new-") + v.name);
    const std::string old_contents(300000, 'o');
    ASSERT_OK(WriteStringToFile(env_, old_contents, old_path));
    struct stat before;
    ASSERT_EQ(0, ::stat(old_path.c_str(), &before));
    EnvOptions options;
    options.use_mmap_writes = v.mmap;
    options.use_direct_writes = v.direct;
    std::unique_ptr<WritableFile> file;
    Status s = env_->ReuseWritableFile(path, old_path, &file, options);
    if (v.direct && s.IsNotSupported()) continue;  // no O_DIRECT here
    ASSERT_OK(s);
    EXPECT_TRUE(env_->FileExists(old_path).IsNotFound());
    struct stat after;
    ASSERT_EQ(0, ::stat(path.c_str(), &after));
    EXPECT_EQ(before.st_ino, after.st_ino);
    const std::string fresh(100000, 'n');
    ASSERT_OK(file->Append(fresh));
    ASSERT_OK(file->Flush());
    EXPECT_EQ(100000u, file->GetFileSize());
    if (!v.direct) {
      // Before Close, the old bytes follow the new ones.
      const std::string open_contents = RawContents(path);
      ASSERT_GE(open_contents.size(), old_contents.size());
      EXPECT_EQ(fresh, open_contents.substr(0, fresh.size()));
      EXPECT_EQ(std::string(1000, 'o'),
                open_contents.substr(fresh.size(), 1000));
    }
    ASSERT_OK(file->Close());
    EXPECT_EQ(fresh, RawContents(path));
  }
}

// With truncate_on_sync (tables), a Sync first cuts the old bytes past the
// appends, so a file synced and then lost with the process before Close
// ends where the appends end. Once cut, more appends and syncs work as
// usual; a file longer than the old one needs no cut.
TEST_F(EnvPosixTest, ReusedFileWithTruncateOnSyncIsCutBySync) {
  struct Variant {
    const char* name;
    bool mmap;  // asked for, but not used with truncate_on_sync
    bool direct;
    size_t new_size;
  };
  for (const Variant& v : {Variant{"write", false, false, 100000},
                           Variant{"mmap", true, false, 100000},
                           Variant{"direct", false, true, 100000},
                           Variant{"longer", false, false, 400000}}) {
    SCOPED_TRACE(v.name);
    const std::string old_path = dir_.File(std::string("old-") + v.name);
    const std::string path = dir_.File(std::string("new-") + v.name);
    ASSERT_OK(WriteStringToFile(env_, std::string(300000, 'o'), old_path));
    EnvOptions options;
    options.use_mmap_writes = v.mmap;
    options.use_direct_writes = v.direct;
    options.truncate_on_sync = true;
    std::unique_ptr<WritableFile> file;
    Status s = env_->ReuseWritableFile(path, old_path, &file, options);
    if (v.direct && s.IsNotSupported()) continue;  // no O_DIRECT here
    ASSERT_OK(s);
    const std::string fresh(v.new_size, 'n');
    ASSERT_OK(file->Append(fresh));
    ASSERT_OK(file->Sync());
    // What a crash now would leave: the synced file, still open.
    EXPECT_EQ(fresh, RawContents(path));
    ASSERT_OK(file->Append("tail"));
    ASSERT_OK(file->Sync());
    EXPECT_EQ(fresh + "tail", RawContents(path));
    ASSERT_OK(file->Close());
    EXPECT_EQ(fresh + "tail", RawContents(path));
  }
}

// Without it (WALs), Sync leaves the old bytes for Close to cut.
TEST_F(EnvPosixTest, ReusedFileKeepsOldBytesThroughSyncByDefault) {
  const std::string old_path = dir_.File("old-wal");
  const std::string path = dir_.File("new-wal");
  ASSERT_OK(WriteStringToFile(env_, std::string(300000, 'o'), old_path));
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(env_->ReuseWritableFile(path, old_path, &file, EnvOptions()));
  ASSERT_OK(file->Append(std::string(100000, 'n')));
  ASSERT_OK(file->Sync());
  EXPECT_EQ(300000u, RawContents(path).size());
  ASSERT_OK(file->Close());
  EXPECT_EQ(100000u, RawContents(path).size());
}

TEST_F(EnvPosixTest, NumFileLinksCountsHardLinks) {
  const std::string path = dir_.File("linked");
  ASSERT_OK(WriteStringToFile(env_, "data", path));
  uint64_t links = 0;
  ASSERT_OK(env_->NumFileLinks(path, &links));
  EXPECT_EQ(1u, links);
  ASSERT_EQ(0, ::link(path.c_str(), dir_.File("other").c_str()));
  ASSERT_OK(env_->NumFileLinks(path, &links));
  EXPECT_EQ(2u, links);
  Status s = env_->NumFileLinks(dir_.File("missing"), &links);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string::npos, s.ToString().find("missing")) << s.ToString();
}

TEST_F(EnvPosixTest, ReuseOfAMissingFileIsNotFoundNamingIt) {
  std::unique_ptr<WritableFile> file;
  Status s = env_->ReuseWritableFile(dir_.File("new"), dir_.File("missing"),
                                     &file, EnvOptions());
  EXPECT_TRUE(s.IsNotFound() || s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("missing")) << s.ToString();
  EXPECT_EQ(nullptr, file);
}

TEST_F(EnvPosixTest, WritesWithBytesPerSyncKeepAllData) {
  const std::string path = dir_.File("range_sync");
  EnvOptions options;
  options.bytes_per_sync = 4096;
  options.writable_file_max_buffer_size = 1000;
  uint32_t seed = test::RandomSeed();
  const std::string data = test::RandomBytes(&seed, 50 * 1000);
  auto file = NewWritable(path, options);
  for (size_t i = 0; i < data.size(); i += 700) {
    ASSERT_OK(file->Append(
        Slice(data.data() + i, std::min<size_t>(700, data.size() - i))));
  }
  ASSERT_OK(file->Close());
  EXPECT_EQ(data, RawContents(path));
}

// Buffered appends reach the OS in chunks that fit a CPU cache, however
// large writable_file_max_buffer_size is: a 1 MiB buffer grown and freed
// for every SST made the allocator hand fresh pages back and forth.
TEST_F(EnvPosixTest, BufferedWritesGoToTheOSInSmallChunks) {
  const std::string path = dir_.File("chunks");
  EnvOptions options;
  options.writable_file_max_buffer_size = 1 << 20;
  auto file = NewWritable(path, options);
  const std::string piece(1000, 'p');
  for (int i = 0; i < 200; i++) ASSERT_OK(file->Append(piece));
  // 200,000 bytes appended: whole chunks already went out, the rest waits.
  const uint64_t on_disk = RawSize(path);
  EXPECT_GT(on_disk, 0u);
  EXPECT_LE(on_disk, 200000u);
  EXPECT_GE(on_disk, 200000u - EnvOptions::kMaxBufferedWriteChunk);
  ASSERT_OK(file->Close());
  EXPECT_EQ(200000u, RawSize(path));
}

// True if the filesystem holding dir reserves space for fallocate with
// FALLOC_FL_KEEP_SIZE (checked directly, without the Env).
bool KeepSizeFallocateWorks(const std::string& dir) {
  const std::string probe = dir + "/fallocate_probe";
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT, 0644);
  if (fd < 0) return false;
  const bool ok = ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1 << 20) == 0;
  ::close(fd);
  ::unlink(probe.c_str());
  return ok;
}

uint64_t AllocatedBytes(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return 0;
  return static_cast<uint64_t>(st.st_blocks) * 512;
}

TEST_F(EnvPosixTest, PreallocationReservesSpaceReleasedOnClose) {
  if (!KeepSizeFallocateWorks(dir_.path())) {
    GTEST_SKIP() << "fallocate(FALLOC_FL_KEEP_SIZE) unsupported here";
  }
  const std::string path = dir_.File("prealloc");
  EnvOptions options;
  options.preallocation_block_size = 1 << 20;
  auto file = NewWritable(path, options);
  ASSERT_OK(file->Append("x"));
  ASSERT_OK(file->Flush());
  EXPECT_GE(AllocatedBytes(path), 1u << 20);
  EXPECT_EQ(1u, RawSize(path));  // KEEP_SIZE: the visible size is unchanged
  ASSERT_OK(file->Close());
  EXPECT_LT(AllocatedBytes(path), 1u << 20);
  EXPECT_EQ("x", RawContents(path));
}

TEST_F(EnvPosixTest, AllocateKeepsFileSize) {
  const std::string path = dir_.File("allocate");
  auto file = NewWritable(path, EnvOptions());
  ASSERT_OK(file->Allocate(0, 1 << 16));
  ASSERT_OK(file->Append("abc"));
  ASSERT_OK(file->Close());
  EXPECT_EQ("abc", RawContents(path));
}

// ---------------------------------------------------------------- direct I/O

TEST_F(EnvPosixTest, DirectIORoundTripsUnalignedData) {
  const std::string path = dir_.File("direct");
  EnvOptions options;
  options.use_direct_writes = true;
  options.use_direct_reads = true;
  options.writable_file_max_buffer_size = 8192;
  std::unique_ptr<WritableFile> file;
  Status s = env_->NewWritableFile(path, &file, options);
  if (s.IsNotSupported()) GTEST_SKIP() << s.ToString();
  ASSERT_OK(s);
  EXPECT_TRUE(file->use_direct_io());

  uint32_t seed = test::RandomSeed();
  const std::string data = test::RandomBytes(&seed, 30001);
  for (size_t i = 0; i < data.size(); i += 777) {
    ASSERT_OK(file->Append(
        Slice(data.data() + i, std::min<size_t>(777, data.size() - i))));
    if (i == 777 * 7) {
      ASSERT_OK(file->Sync());  // pads the last block, then cuts it back
      EXPECT_EQ(777u * 8, RawSize(path));
    }
  }
  EXPECT_EQ(data.size(), file->GetFileSize());
  ASSERT_OK(file->Close());
  EXPECT_EQ(data.size(), RawSize(path));
  EXPECT_EQ(data, RawContents(path));

  std::unique_ptr<RandomAccessFile> random;
  ASSERT_OK(env_->NewRandomAccessFile(path, &random, options));
  EXPECT_TRUE(random->use_direct_io());
  std::string scratch(10000, '\0');
  Slice result;
  ASSERT_OK(random->Read(4095, 5000, &result, &scratch[0]));
  EXPECT_EQ(data.substr(4095, 5000), result.ToString());
  ASSERT_OK(random->Read(29990, 100, &result, &scratch[0]));  // spans the end
  EXPECT_EQ(data.substr(29990), result.ToString());
  ASSERT_OK(random->Read(40000, 10, &result, &scratch[0]));
  EXPECT_TRUE(result.empty());

  std::unique_ptr<SequentialFile> sequential;
  ASSERT_OK(env_->NewSequentialFile(path, &sequential, options));
  ASSERT_OK(sequential->Skip(13));
  std::string read;
  while (true) {
    ASSERT_OK(sequential->Read(1000, &result, &scratch[0]));
    read.append(result.data(), result.size());
    if (result.size() < 1000) break;
  }
  EXPECT_EQ(data.substr(13), read);
}

// ---------------------------------------------------------------- files

TEST_F(EnvPosixTest, GetChildrenListsEntriesWithoutDots) {
  ASSERT_OK(WriteStringToFile(env_, "1", dir_.File("a")));
  ASSERT_OK(WriteStringToFile(env_, "2", dir_.File("b")));
  ASSERT_OK(env_->CreateDirIfMissing(dir_.File("sub")));
  std::vector<std::string> children;
  ASSERT_OK(env_->GetChildren(dir_.path(), &children));
  std::sort(children.begin(), children.end());
  EXPECT_EQ((std::vector<std::string>{"a", "b", "sub"}), children);
}

TEST_F(EnvPosixTest, RenameReplacesTarget) {
  ASSERT_OK(WriteStringToFile(env_, "new", dir_.File("src")));
  ASSERT_OK(WriteStringToFile(env_, "old", dir_.File("dst")));
  ASSERT_OK(env_->RenameFile(dir_.File("src"), dir_.File("dst")));
  EXPECT_TRUE(env_->FileExists(dir_.File("src")).IsNotFound());
  EXPECT_EQ("new", RawContents(dir_.File("dst")));
  ASSERT_OK(env_->SyncDir(dir_.path()));
}

TEST_F(EnvPosixTest, FileSizeRemoveAndExists) {
  const std::string path = dir_.File("f");
  ASSERT_OK(WriteStringToFile(env_, "12345", path));
  uint64_t size = 0;
  ASSERT_OK(env_->GetFileSize(path, &size));
  EXPECT_EQ(5u, size);
  ASSERT_OK(env_->FileExists(path));
  ASSERT_OK(env_->RemoveFile(path));
  EXPECT_TRUE(env_->FileExists(path).IsNotFound());
}

TEST_F(EnvPosixTest, MissingFilesAreNotFoundNamingThePath) {
  const std::string path = dir_.File("missing");
  std::unique_ptr<SequentialFile> seq;
  std::unique_ptr<RandomAccessFile> random;
  uint64_t size;
  std::vector<std::string> children;
  std::string contents;
  const Status results[] = {
      env_->NewSequentialFile(path, &seq, EnvOptions()),
      env_->NewRandomAccessFile(path, &random, EnvOptions()),
      env_->GetFileSize(path, &size),
      env_->RemoveFile(path),
      env_->FileExists(path),
      env_->RenameFile(path, dir_.File("other")),
      env_->GetChildren(path, &children),
      env_->SyncDir(path),
      ReadFileToString(env_, path, &contents),
  };
  for (const Status& s : results) {
    EXPECT_TRUE(s.IsNotFound()) << s.ToString();
    EXPECT_NE(std::string::npos, s.message().find(path)) << s.ToString();
  }
}

TEST_F(EnvPosixTest, OtherOsErrorsAreIOErrors) {
  const std::string file = dir_.File("plain");
  ASSERT_OK(WriteStringToFile(env_, "x", file));
  std::unique_ptr<WritableFile> w;
  // A regular file cannot hold entries: ENOTDIR.
  Status s = env_->NewWritableFile(file + "/child", &w, EnvOptions());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find(file + "/child"));
  s = env_->CreateDirIfMissing(file);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("not a directory"));
}

TEST_F(EnvPosixTest, CreateDirIfMissingAcceptsExistingDir) {
  const std::string dir = dir_.File("d");
  ASSERT_OK(env_->CreateDirIfMissing(dir));
  ASSERT_OK(env_->CreateDirIfMissing(dir));
  ASSERT_OK(env_->RemoveDir(dir));
  EXPECT_TRUE(env_->FileExists(dir).IsNotFound());
}

// ---------------------------------------------------------------- locks

TEST_F(EnvPosixTest, SecondLockInSameProcessIsBusy) {
  const std::string path = dir_.File("LOCK");
  std::unique_ptr<FileLock> lock;
  ASSERT_OK(env_->LockFile(path, &lock));
  std::unique_ptr<FileLock> second;
  Status s = env_->LockFile(path, &second);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  EXPECT_EQ("lock " + path + ": already held by this process", s.message());
  EXPECT_EQ(nullptr, second);
  ASSERT_OK(env_->UnlockFile(std::move(lock)));
}

// Forks a child that tries to lock path; returns the child's exit code:
// 0 = OK, 1 = Busy naming expected_pid, 2 = Busy otherwise, 3 = other error.
int LockInChildProcess(const std::string& path, pid_t expected_pid) {
  const pid_t child = ::fork();
  if (child == 0) {
    std::unique_ptr<FileLock> lock;
    Status s = Env::Default()->LockFile(path, &lock);
    int code = 3;
    if (s.ok()) {
      code = 0;
    } else if (s.IsBusy()) {
      const std::string want =
          "already held by process " + std::to_string(expected_pid);
      code = s.message().find(want) != std::string::npos ? 1 : 2;
    }
    ::_exit(code);
  }
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(EnvPosixTest, LockHeldByAnotherProcessIsBusyNamingItsPid) {
  const std::string path = dir_.File("LOCK");
  std::unique_ptr<FileLock> lock;
  ASSERT_OK(env_->LockFile(path, &lock));
  EXPECT_EQ(1, LockInChildProcess(path, ::getpid()));
  ASSERT_OK(env_->UnlockFile(std::move(lock)));
  EXPECT_EQ(0, LockInChildProcess(path, ::getpid()));  // free again
}

TEST_F(EnvPosixTest, UnlockThenRelockSucceeds) {
  const std::string path = dir_.File("LOCK");
  std::unique_ptr<FileLock> lock;
  ASSERT_OK(env_->LockFile(path, &lock));
  ASSERT_OK(env_->UnlockFile(std::move(lock)));
  ASSERT_OK(env_->LockFile(path, &lock));
  ASSERT_OK(env_->UnlockFile(std::move(lock)));
}

// ---------------------------------------------------------------- logger

// Checks that line starts "YYYY/MM/DD-HH:MM:SS.uuuuuu <thread id> " and
// returns the rest in *message. (No std::regex: GCC 12 warns inside it in
// sanitizer builds.)
bool ParseLogLine(const std::string& line, std::string* message) {
  const std::string shape = "0000/00/00-00:00:00.000000 ";  // 0 = a digit
  if (line.size() < shape.size()) return false;
  for (size_t i = 0; i < shape.size(); i++) {
    const bool digit = std::isdigit(static_cast<unsigned char>(line[i]));
    if (shape[i] == '0' ? !digit : line[i] != shape[i]) return false;
  }
  size_t pos = shape.size();
  const size_t id_start = pos;
  while (pos < line.size() &&
         std::isdigit(static_cast<unsigned char>(line[pos]))) {
    pos++;
  }
  if (pos == id_start || pos >= line.size() || line[pos] != ' ') return false;
  *message = line.substr(pos + 1);
  return true;
}

TEST_F(EnvPosixTest, LoggerWritesTimestampedLines) {
  const std::string path = dir_.File("LOG");
  std::shared_ptr<Logger> logger;
  ASSERT_OK(env_->NewLogger(path, &logger));
  Log(logger.get(), "opened %s with %d files", "db", 3);
  Log(InfoLogLevel::kDebug, logger.get(), "hidden below the level");
  Log(InfoLogLevel::kWarn, logger.get(), "disk %d%% full", 90);
  // Each line is flushed at once: readable while the logger is open.
  const std::string contents = RawContents(path);
  std::vector<std::string> lines;
  std::istringstream in(contents);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(2u, lines.size()) << contents;
  std::string message;
  ASSERT_TRUE(ParseLogLine(lines[0], &message)) << lines[0];
  EXPECT_EQ("opened db with 3 files", message);
  ASSERT_TRUE(ParseLogLine(lines[1], &message)) << lines[1];
  EXPECT_EQ("[WARN] disk 90% full", message);
}

TEST_F(EnvPosixTest, LoggerLevelFiltersLines) {
  const std::string path = dir_.File("LOG");
  std::shared_ptr<Logger> logger;
  ASSERT_OK(env_->NewLogger(path, &logger));
  logger->set_level(InfoLogLevel::kError);
  Log(logger.get(), "info");
  Log(InfoLogLevel::kWarn, logger.get(), "warn");
  Log(InfoLogLevel::kError, logger.get(), "error");
  const std::string contents = RawContents(path);
  EXPECT_EQ(std::string::npos, contents.find("info"));
  EXPECT_EQ(std::string::npos, contents.find("warn"));
  EXPECT_NE(std::string::npos, contents.find("[ERROR] error\n"));
}

TEST_F(EnvPosixTest, LoggerAppendsToExistingLog) {
  const std::string path = dir_.File("LOG");
  ASSERT_OK(WriteStringToFile(env_, "earlier line\n", path));
  std::shared_ptr<Logger> logger;
  ASSERT_OK(env_->NewLogger(path, &logger));
  Log(logger.get(), "later line");
  const std::string contents = RawContents(path);
  EXPECT_EQ(0u, contents.find("earlier line\n"));
  EXPECT_NE(std::string::npos, contents.find("later line\n"));
}

TEST_F(EnvPosixTest, LoggerKeepsLongLinesWhole) {
  const std::string path = dir_.File("LOG");
  std::shared_ptr<Logger> logger;
  ASSERT_OK(env_->NewLogger(path, &logger));
  const std::string long_text(5000, 'z');
  Log(logger.get(), "%s", long_text.c_str());
  EXPECT_NE(std::string::npos, RawContents(path).find(long_text + "\n"));
}

TEST_F(EnvPosixTest, LoggerLinesFromManyThreadsDoNotInterleave) {
  const std::string path = dir_.File("LOG");
  std::shared_ptr<Logger> logger;
  ASSERT_OK(env_->NewLogger(path, &logger));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&logger, t] {
      for (int i = 0; i < 200; i++) {
        Log(logger.get(), "thread %d line %d end", t, i);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::istringstream in(RawContents(path));
  std::set<std::string> messages;
  for (std::string line; std::getline(in, line);) {
    std::string message;
    EXPECT_TRUE(ParseLogLine(line, &message)) << line;
    messages.insert(message);
  }
  EXPECT_EQ(800u, messages.size());
  for (int t = 0; t < 4; t++) {
    for (int i = 0; i < 200; i++) {
      const std::string want =
          "thread " + std::to_string(t) + " line " + std::to_string(i) + " end";
      EXPECT_EQ(1u, messages.count(want)) << want;
    }
  }
}

// ---------------------------------------------------------------- clocks etc.

TEST_F(EnvPosixTest, ClocksAreMonotonic) {
  uint64_t last_micros = env_->NowMicros();
  uint64_t last_nanos = env_->NowNanos();
  for (int i = 0; i < 1000; i++) {
    const uint64_t micros = env_->NowMicros();
    const uint64_t nanos = env_->NowNanos();
    EXPECT_GE(micros, last_micros);
    EXPECT_GE(nanos, last_nanos);
    last_micros = micros;
    last_nanos = nanos;
  }
  // Wall-clock seconds since the epoch are past 2020-01-01.
  EXPECT_GT(env_->NowWallSeconds(), 1577836800u);
}

TEST_F(EnvPosixTest, CPUClockCountsThisThreadsWorkNotSleep) {
  const uint64_t start = env_->NowCPUNanos();
  ASSERT_GT(start, 0u);
  // Busy until the thread's CPU clock has moved 5 ms (however often the
  // thread is preempted), giving up after 10 s of wall time.
  const uint64_t wall_start = env_->NowNanos();
  volatile uint64_t sink = 0;
  uint64_t used = 0;
  while (used < 5000000 && env_->NowNanos() - wall_start < 10000000000u) {
    for (int i = 0; i < 10000; i++) sink = sink + 1;
    used = env_->NowCPUNanos() - start;
  }
  ASSERT_GE(used, 5000000u) << "the CPU clock did not follow the work";
  // One thread's CPU time never exceeds the wall time it took.
  EXPECT_LE(used, env_->NowNanos() - wall_start + 1000000);
  // Asleep for 50 ms: it hardly moves (well under the time slept).
  const uint64_t before_sleep = env_->NowCPUNanos();
  env_->SleepForMicroseconds(50000);
  EXPECT_LT(env_->NowCPUNanos() - before_sleep, 25u * 1000 * 1000);
}

TEST_F(EnvPosixTest, SleepsAtLeastWhatItIsAsked) {
  for (int micros : {0, 10, 300, 2000}) {
    const uint64_t start = env_->NowMicros();
    env_->SleepForMicroseconds(micros);
    EXPECT_GE(env_->NowMicros() - start, static_cast<uint64_t>(micros));
  }
  env_->SleepForMicroseconds(-5);  // nothing, no error
}

#ifdef PR_SET_TIMERSLACK
TEST_F(EnvPosixTest, ShortSleepsIgnoreALargeTimerSlackAndKeepIt) {
  // With 20 ms of timer slack the kernel may end any sleep up to 20 ms
  // late; a short sleep (a delayed write's) must not pay that, and the
  // thread must get its own slack back.
  const int saved = ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  ASSERT_GT(saved, 0);
  const unsigned long kLarge = 20ul * 1000 * 1000;
  ASSERT_EQ(0, ::prctl(PR_SET_TIMERSLACK, kLarge, 0, 0, 0));
  std::vector<uint64_t> took;
  for (int i = 0; i < 51; ++i) {
    const uint64_t start = env_->NowMicros();
    env_->SleepForMicroseconds(100);  // a real sleep: longer than a spin
    took.push_back(env_->NowMicros() - start);
    ASSERT_EQ(static_cast<int>(kLarge), ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0))
        << "the caller's slack was not restored";
  }
  env_->SleepForMicroseconds(2000);  // a long sleep keeps the slack as is
  EXPECT_EQ(static_cast<int>(kLarge), ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
  ASSERT_EQ(0, ::prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(saved), 0,
                       0, 0));
  std::sort(took.begin(), took.end());
  // Half of the sleeps end within 5 ms even on a loaded machine; with the
  // 20 ms slack honoured they would end milliseconds late.
  EXPECT_LT(took[took.size() / 2], 5000u);
}
#endif

#ifdef RUSAGE_THREAD
// Voluntary context switches of the calling thread so far.
long VoluntarySwitches() {
  struct rusage ru;
  EXPECT_EQ(0, ::getrusage(RUSAGE_THREAD, &ru));
  return ru.ru_nvcsw;
}

TEST_F(EnvPosixTest, SleepsOfTensOfMicrosecondsSpinLongerOnesSleep) {
  // A wake-up costs more than a 20 us sleep: such sleeps keep the CPU (no
  // voluntary context switch) and still last what was asked.
  constexpr int kSleeps = 200;
  long before = VoluntarySwitches();
  for (int i = 0; i < kSleeps; ++i) {
    const uint64_t start = env_->NowMicros();
    env_->SleepForMicroseconds(20);
    ASSERT_GE(env_->NowMicros() - start, 20u);
  }
  // A few switches from elsewhere (a page fault's I/O, the test runner).
  EXPECT_LT(VoluntarySwitches() - before, kSleeps / 10);
  // A 200 us sleep gives the CPU up.
  before = VoluntarySwitches();
  for (int i = 0; i < 20; ++i) env_->SleepForMicroseconds(200);
  EXPECT_GE(VoluntarySwitches() - before, 20);
}
#endif

TEST_F(EnvPosixTest, YieldingWaitsLastWhatIsAskedAndLetAReadyThreadRun) {
  for (int micros : {0, 10, 300, 2000}) {
    const uint64_t start = env_->NowMicros();
    env_->YieldForMicroseconds(micros);
    EXPECT_GE(env_->NowMicros() - start, static_cast<uint64_t>(micros));
  }
  env_->YieldForMicroseconds(-5);  // nothing, no error

  // On one CPU with a thread always ready to run, a 20 us yielding wait
  // lets it run; a spin (SleepForMicroseconds) would keep the CPU but for
  // the rare timer tick that falls inside it.
  test::OneCpu one_cpu;
  if (!one_cpu.pinned()) GTEST_SKIP() << "cannot set CPU affinity";
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> spins{0};
  std::thread busy([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      spins.fetch_add(1, std::memory_order_relaxed);
    }
  });
  while (spins.load() == 0) env_->SleepForMicroseconds(1000);
  int ran_beside = 0;
  for (int i = 0; i < 100; ++i) {
    const uint64_t before = spins.load();
    env_->YieldForMicroseconds(20);
    if (spins.load() != before) ++ran_beside;
  }
  stop = true;
  busy.join();
  EXPECT_GE(ran_beside, 50);
}

TEST_F(EnvPosixTest, GetTestDirectoryExists) {
  std::string path;
  ASSERT_OK(env_->GetTestDirectory(&path));
  EXPECT_FALSE(path.empty());
  struct stat st;
  ASSERT_EQ(0, ::stat(path.c_str(), &st));
  EXPECT_TRUE(S_ISDIR(st.st_mode));
}

TEST_F(EnvPosixTest, StartThreadRunsFunction) {
  struct State {
    std::mutex mu;
    std::condition_variable cv;  // predicate: ran
    bool ran = false;
  } state;
  env_->StartThread(
      [](void* arg) {
        auto* st = static_cast<State*>(arg);
        std::lock_guard<std::mutex> lock(st->mu);
        st->ran = true;
        st->cv.notify_all();
      },
      &state);
  std::unique_lock<std::mutex> lock(state.mu);
  state.cv.wait(lock, [&state] { return state.ran; });
  EXPECT_TRUE(state.ran);
}

TEST_F(EnvPosixTest, ScheduledJobsRunBeforeWaitForBackgroundJobsReturns) {
  std::atomic<int> runs{0};
  auto job = [](void* arg) {
    static_cast<std::atomic<int>*>(arg)->fetch_add(1);
  };
  for (int i = 0; i < 10; i++) {
    env_->Schedule(job, &runs, Env::Priority::kLow);
    env_->Schedule(job, &runs, Env::Priority::kHigh);
  }
  env_->WaitForBackgroundJobs();
  EXPECT_EQ(20, runs.load());
  EXPECT_EQ(0u, env_->GetThreadPoolQueueLen(Env::Priority::kLow));
  EXPECT_EQ(1, env_->GetBackgroundThreads(Env::Priority::kHigh));
}

// The pools' CPU figures: both pools answer (where the kernel keeps the
// figures), a job's CPU time shows in its pool's, and an unknown pool is
// rejected; the WAL region helper's figures cover its work; an EnvWrapper
// forwards both calls.
TEST_F(EnvPosixTest, ThreadPoolCpuTimeCoversEachPoolsJobs) {
  uint64_t on_cpu = 1;
  uint64_t waiting = 1;
  Status s = env_->GetThreadPoolCpuTime(static_cast<Env::Priority>(7), &on_cpu,
                                        &waiting);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = env_->GetThreadPoolCpuTime(Env::Priority::kHigh, &on_cpu, &waiting);
  if (s.IsNotSupported()) GTEST_SKIP() << s.ToString();
  ASSERT_OK(s);
  const uint64_t before = on_cpu;
  auto busy = [](void*) {
    const auto end =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(30);
    volatile uint64_t sink = 0;
    while (std::chrono::steady_clock::now() < end) sink = sink + 1;
  };
  env_->Schedule(busy, nullptr, Env::Priority::kHigh);
  env_->WaitForBackgroundJobs();
  EnvWrapper wrapper(env_);
  ASSERT_OK(
      wrapper.GetThreadPoolCpuTime(Env::Priority::kHigh, &on_cpu, &waiting));
  EXPECT_GE(on_cpu, before + 10 * 1000);
  ASSERT_OK(env_->GetThreadPoolCpuTime(Env::Priority::kLow, &on_cpu, &waiting));
  // The WAL region helper, once an mmap-written file has used it.
  {
    EnvOptions options;
    options.use_mmap_writes = true;
    std::unique_ptr<WritableFile> file =
        NewWritable(dir_.File("helper-log"), options);
    ASSERT_NE(nullptr, file);
    const std::string chunk(256 << 10, 'h');
    for (int i = 0; i < 16; i++) ASSERT_OK(file->Append(chunk));  // 4 MiB
    ASSERT_OK(file->Close());
  }
  uint64_t helper_cpu = 0;
  ASSERT_OK(wrapper.GetHelperThreadsCpuTime(&helper_cpu, &waiting));
  EXPECT_GT(helper_cpu, 0u);
}

TEST_F(EnvPosixTest, LowerThreadPoolCPUPriorityRejectsUnknownValues) {
  // Only argument checks here: lowering Env::Default()'s pools would slow
  // every later test in this process (the ThreadPool tests cover the
  // lowering itself).
  Status s = env_->LowerThreadPoolCPUPriority(static_cast<Env::Priority>(7),
                                              Env::CpuPriority::kLow);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("pool")) << s.ToString();
  s = env_->LowerThreadPoolCPUPriority(Env::Priority::kLow,
                                       static_cast<Env::CpuPriority>(9));
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("CPU priority"))
      << s.ToString();
  // kNormal lowers nothing, so it is safe to ask of the shared pools, and
  // a wrapper passes the call on.
  EXPECT_OK(env_->LowerThreadPoolCPUPriority(Env::Priority::kHigh,
                                             Env::CpuPriority::kNormal));
  EnvWrapper wrapper(env_);
  s = wrapper.LowerThreadPoolCPUPriority(static_cast<Env::Priority>(7),
                                         Env::CpuPriority::kLow);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  // An Env that does not override it cannot lower anything.
  s = env_->Env::LowerThreadPoolCPUPriority(Env::Priority::kLow,
                                            Env::CpuPriority::kLow);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
}

}  // namespace
}  // namespace cascadedb

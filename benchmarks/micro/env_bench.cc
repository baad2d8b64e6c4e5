// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Micro-benchmarks of the POSIX Env's files: what the WritableFile buffer
// saves on small appends, and the cost of positioned reads with and without
// direct I/O. Files go to Env::GetTestDirectory (TEST_TMPDIR if set).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include "cascadedb/env.h"
#include "util/random.h"

namespace cascadedb {
namespace {

std::string BenchFile(const char* name) {
  std::string dir;
  if (!Env::Default()->GetTestDirectory(&dir).ok()) dir = "/tmp";
  return dir + "/" + name;
}

// Appends records of range(0) bytes to a fresh 16 MiB file with a write
// buffer of range(1) bytes, then closes it (no sync: this measures the
// system-call overhead the buffer removes, not the device).
void BM_WritableFileAppend(benchmark::State& state) {
  const size_t record_size = static_cast<size_t>(state.range(0));
  EnvOptions options;
  options.writable_file_max_buffer_size = static_cast<size_t>(state.range(1));
  constexpr size_t kFileBytes = 16 << 20;
  const std::string record(record_size, 'x');
  const std::string path = BenchFile("env_bench_append");
  Env* env = Env::Default();
  for (auto _ : state) {
    std::unique_ptr<WritableFile> file;
    if (!env->NewWritableFile(path, &file, options).ok()) {
      state.SkipWithError("cannot create the file");
      break;
    }
    for (size_t written = 0; written < kFileBytes; written += record_size) {
      if (!file->Append(record).ok()) {
        state.SkipWithError("append failed");
        break;
      }
    }
    if (!file->Close().ok()) state.SkipWithError("close failed");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(kFileBytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(kFileBytes / record_size));
  // Best effort: a leftover benchmark file is harmless.
  env->RemoveFile(path).IgnoreError();
}
BENCHMARK(BM_WritableFileAppend)
    ->ArgNames({"record", "buffer"})
    ->ArgsProduct({{100, 4096}, {0, 64 << 10, 1 << 20}});

// Reads range(0)-byte pieces at random (unaligned) offsets of a 64 MiB
// file; range(1) = 1 for direct I/O (device reads), 0 for the page cache.
void BM_RandomAccessFileRead(benchmark::State& state) {
  const size_t read_size = static_cast<size_t>(state.range(0));
  EnvOptions options;
  options.use_direct_reads = state.range(1) != 0;
  constexpr uint64_t kFileBytes = 64 << 20;
  const std::string path = BenchFile("env_bench_read");
  Env* env = Env::Default();
  {
    std::unique_ptr<WritableFile> file;
    std::string chunk(1 << 20, 'r');
    Status s = env->NewWritableFile(path, &file, EnvOptions());
    for (uint64_t n = 0; s.ok() && n < kFileBytes; n += chunk.size()) {
      s = file->Append(chunk);
    }
    if (s.ok()) s = file->Close();
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
  std::unique_ptr<RandomAccessFile> file;
  Status s = env->NewRandomAccessFile(path, &file, options);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  std::string scratch(read_size, '\0');
  Random64 rnd(301);
  for (auto _ : state) {
    const uint64_t offset = rnd.Uniform(kFileBytes - read_size);
    Slice result;
    if (!file->Read(offset, read_size, &result, &scratch[0]).ok()) {
      state.SkipWithError("read failed");
      break;
    }
    benchmark::DoNotOptimize(result.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(read_size));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  file.reset();
  env->RemoveFile(path).IgnoreError();  // best effort, as above
}
BENCHMARK(BM_RandomAccessFileRead)
    ->ArgNames({"size", "direct"})
    ->ArgsProduct({{4096}, {0, 1}});

}  // namespace
}  // namespace cascadedb

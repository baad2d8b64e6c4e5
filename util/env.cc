// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The parts of cascadedb/env.h that work on any Env: info-LOG helpers and
// whole-file reads and writes.

#include "cascadedb/env.h"

#include <cstdarg>
#include <string>

namespace cascadedb {

namespace {

// The tag put in front of a line at a level other than kInfo, so that
// warnings and errors stand out when reading the LOG. Contains no '%'.
const char* LevelTag(InfoLogLevel level) {
  switch (level) {
    case InfoLogLevel::kDebug:
      return "[DEBUG] ";
    case InfoLogLevel::kInfo:
      return "";
    case InfoLogLevel::kWarn:
      return "[WARN] ";
    case InfoLogLevel::kError:
      return "[ERROR] ";
    case InfoLogLevel::kFatal:
      return "[FATAL] ";
  }
  return "";
}

void LogAtLevel(InfoLogLevel level, Logger* logger, const char* format,
                va_list ap) {
  if (logger == nullptr || level < logger->level()) return;
  const char* tag = LevelTag(level);
  if (*tag == '\0') {
    logger->Logv(format, ap);
    return;
  }
  const std::string tagged_format = std::string(tag) + format;
  logger->Logv(tagged_format.c_str(), ap);
}

}  // namespace

Status Env::ReuseWritableFile(const std::string& fname,
                              const std::string& old_fname,
                              std::unique_ptr<WritableFile>* result,
                              const EnvOptions& options) {
  result->reset();
  Status s = RenameFile(old_fname, fname);
  if (!s.ok()) return s;
  return NewWritableFile(fname, result, options);
}

Status Env::NumFileLinks(const std::string& fname, uint64_t* count) {
  *count = 0;
  return Status::NotSupported(fname, "this Env cannot count a file's links");
}

Status Env::LowerThreadPoolCPUPriority(Priority /*pool*/, CpuPriority /*pri*/) {
  return Status::NotSupported("LowerThreadPoolCPUPriority",
                              "this Env cannot change thread priorities");
}

Status Env::GetThreadPoolCpuTime(Priority /*pool*/, uint64_t* on_cpu_micros,
                                 uint64_t* waiting_micros) const {
  *on_cpu_micros = 0;
  *waiting_micros = 0;
  return Status::NotSupported("GetThreadPoolCpuTime",
                              "this Env keeps no thread CPU figures");
}

Status Env::GetHelperThreadsCpuTime(uint64_t* on_cpu_micros,
                                    uint64_t* waiting_micros) const {
  *on_cpu_micros = 0;
  *waiting_micros = 0;
  return Status::NotSupported("GetHelperThreadsCpuTime",
                              "this Env keeps no thread CPU figures");
}

void Log(InfoLogLevel level, Logger* logger, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  LogAtLevel(level, logger, format, ap);
  va_end(ap);
}

void Log(Logger* logger, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  LogAtLevel(InfoLogLevel::kInfo, logger, format, ap);
  va_end(ap);
}

Status WriteStringToFile(Env* env, const Slice& data, const std::string& fname,
                         bool sync) {
  std::unique_ptr<WritableFile> file;
  Status s = env->NewWritableFile(fname, &file, EnvOptions());
  if (!s.ok()) return s;
  s = file->Append(data);
  if (s.ok() && sync) s = file->Sync();
  if (s.ok()) {
    s = file->Close();
  } else {
    // The first error is the one worth reporting; the file is removed below.
    file->Close().IgnoreError();
  }
  file.reset();
  if (!s.ok()) {
    // Leave no partial file behind; if removal fails too, the write error is
    // still the one the caller needs to see.
    env->RemoveFile(fname).IgnoreError();
  }
  return s;
}

Status ReadFileToString(Env* env, const std::string& fname, std::string* data) {
  data->clear();
  std::unique_ptr<SequentialFile> file;
  Status s = env->NewSequentialFile(fname, &file, EnvOptions());
  if (!s.ok()) return s;
  static constexpr size_t kChunkSize = 64 * 1024;
  std::string scratch(kChunkSize, '\0');
  while (true) {
    Slice fragment;
    s = file->Read(kChunkSize, &fragment, &scratch[0]);
    if (!s.ok()) break;
    data->append(fragment.data(), fragment.size());
    if (fragment.size() < kChunkSize) break;  // a short read is the end
  }
  return s;
}

}  // namespace cascadedb

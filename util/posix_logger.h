// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// PosixLogger: the Logger behind Env::NewLogger on POSIX, which writes the
// DB's info LOG. Each call writes one line
//   "YYYY/MM/DD-HH:MM:SS.uuuuuu <thread id> message\n"
// (local time, Linux thread id) with a single fwrite and flushes it at once,
// so a crash loses at most the line being written.
//
// Thread safety: thread-safe (stdio locks the FILE for each call, and a line
// is written by one call, so lines from different threads never interleave).

#ifndef CASCADEDB_UTIL_POSIX_LOGGER_H_
#define CASCADEDB_UTIL_POSIX_LOGGER_H_

#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <string>

#include "cascadedb/env.h"

namespace cascadedb {

class PosixLogger final : public Logger {
 public:
  // Takes ownership of fp, which must be open for writing (appending).
  explicit PosixLogger(std::FILE* fp) : fp_(fp) {}
  ~PosixLogger() override { std::fclose(fp_); }

  void Logv(const char* format, va_list ap) override {
    struct timeval now;
    gettimeofday(&now, nullptr);
    struct tm t;
    const time_t seconds = now.tv_sec;
    localtime_r(&seconds, &t);
    const long thread_id = static_cast<long>(syscall(SYS_gettid));

    char prefix[64];
    const int prefix_len = std::snprintf(
        prefix, sizeof(prefix), "%04d/%02d/%02d-%02d:%02d:%02d.%06ld %ld ",
        t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min,
        t.tm_sec, static_cast<long>(now.tv_usec), thread_id);

    // Most lines fit the stack buffer; a longer one is formatted again into
    // a string of exactly the right size.
    char stack_buffer[512];
    std::string heap_buffer;
    va_list ap_copy;
    va_copy(ap_copy, ap);
    const int message_len =
        std::vsnprintf(stack_buffer, sizeof(stack_buffer), format, ap_copy);
    va_end(ap_copy);
    if (message_len < 0) return;  // bad format: nothing sensible to write

    std::string line(prefix, prefix_len > 0 ? prefix_len : 0);
    if (static_cast<size_t>(message_len) < sizeof(stack_buffer)) {
      line.append(stack_buffer, message_len);
    } else {
      heap_buffer.resize(static_cast<size_t>(message_len) + 1);
      va_copy(ap_copy, ap);
      std::vsnprintf(&heap_buffer[0], heap_buffer.size(), format, ap_copy);
      va_end(ap_copy);
      line.append(heap_buffer.data(), message_len);
    }
    if (line.empty() || line.back() != '\n') line.push_back('\n');

    // A failing LOG write cannot be reported anywhere better than the LOG,
    // so errors are dropped.
    std::fwrite(line.data(), 1, line.size(), fp_);
    std::fflush(fp_);
  }

 private:
  std::FILE* const fp_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_POSIX_LOGGER_H_

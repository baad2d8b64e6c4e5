// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/thread_cpu.h"

#include <cstdio>
#include <string>

namespace cascadedb {

bool ParseSchedstat(const std::string& text, ThreadCpuTime* t) {
  unsigned long long cpu = 0;
  unsigned long long wait = 0;
  unsigned long long slices = 0;
  char rest = 0;
  if (std::sscanf(text.c_str(), "%llu %llu %llu %c", &cpu, &wait, &slices,
                  &rest) != 3) {
    return false;
  }
  t->on_cpu_nanos = cpu;
  t->waiting_nanos = wait;
  return true;
}

bool ReadThreadCpuTime(int tid, ThreadCpuTime* t) {
#if defined(__linux__)
  const std::string path =
      tid == 0 ? std::string("/proc/thread-self/schedstat")
               : "/proc/self/task/" + std::to_string(tid) + "/schedstat";
  std::FILE* f = std::fopen(path.c_str(), "re");
  if (f == nullptr) return false;
  char buf[128];
  const bool read = std::fgets(buf, sizeof(buf), f) != nullptr;
  std::fclose(f);
  return read && ParseSchedstat(buf, t);
#else
  (void)tid;
  (void)t;
  return false;
#endif
}

}  // namespace cascadedb

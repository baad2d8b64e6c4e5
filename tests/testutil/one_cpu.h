// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// OneCpu: pins the whole test process to one CPU for a scope, for tests of
// what the engine does when its threads outnumber the CPUs.

#ifndef CASCADEDB_TESTS_TESTUTIL_ONE_CPU_H_
#define CASCADEDB_TESTS_TESTUTIL_ONE_CPU_H_

#include <sched.h>
#include <sys/types.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "cascadedb/env.h"

namespace cascadedb {
namespace test {

// Pins every thread of the process to one CPU (threads started later
// inherit it) and puts each thread's own CPUs back when it goes.
class OneCpu {
 public:
  OneCpu() {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return;
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &mask)) first++;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    for (pid_t tid : Threads()) {
      cpu_set_t old;
      CPU_ZERO(&old);
      if (sched_getaffinity(tid, sizeof(old), &old) != 0) continue;
      if (sched_setaffinity(tid, sizeof(one), &one) == 0) {
        saved_.push_back({tid, old});
      }
    }
  }
  ~OneCpu() {
    if (saved_.empty()) return;
    std::vector<pid_t> restored;
    for (const Saved& s : saved_) {
      sched_setaffinity(s.tid, sizeof(s.mask), &s.mask);
      restored.push_back(s.tid);
    }
    // Threads started while pinned get the first thread's CPUs.
    const cpu_set_t& first = saved_[0].mask;
    for (pid_t tid : Threads()) {
      if (std::find(restored.begin(), restored.end(), tid) == restored.end()) {
        sched_setaffinity(tid, sizeof(first), &first);
      }
    }
  }
  OneCpu(const OneCpu&) = delete;
  OneCpu& operator=(const OneCpu&) = delete;

  bool pinned() const { return !saved_.empty(); }

 private:
  struct Saved {
    pid_t tid;
    cpu_set_t mask;
  };

  static std::vector<pid_t> Threads() {
    std::vector<pid_t> tids;
    std::vector<std::string> names;
    if (!Env::Default()->GetChildren("/proc/self/task", &names).ok()) {
      return tids;
    }
    for (const std::string& n : names) {
      if (n.empty() || n[0] < '0' || n[0] > '9') continue;
      tids.push_back(static_cast<pid_t>(std::strtol(n.c_str(), nullptr, 10)));
    }
    return tids;
  }

  std::vector<Saved> saved_;
};

}  // namespace test
}  // namespace cascadedb

#endif  // CASCADEDB_TESTS_TESTUTIL_ONE_CPU_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// A thread's time on a CPU and time runnable but waiting for one, as the
// Linux kernel keeps them (/proc/self/task/<tid>/schedstat, present with
// CONFIG_SCHED_INFO). The wait is time in a run queue: preempted, or woken
// and not yet run. On a machine with fewer CPUs than busy threads it is
// where latency goes that no lock or stall explains.
//
// Thread safety: thread-safe (plain functions).
#ifndef CASCADEDB_UTIL_THREAD_CPU_H_
#define CASCADEDB_UTIL_THREAD_CPU_H_

#include <cstdint>
#include <string>

namespace cascadedb {

struct ThreadCpuTime {
  uint64_t on_cpu_nanos = 0;
  uint64_t waiting_nanos = 0;

  ThreadCpuTime& operator+=(const ThreadCpuTime& other) {
    on_cpu_nanos += other.on_cpu_nanos;
    waiting_nanos += other.waiting_nanos;
    return *this;
  }

  // What accrued since earlier, a reading of the same thread id: the
  // difference, or these figures whole when either counter is below
  // earlier's (the counters only grow, so the id now names another
  // thread, which started since).
  ThreadCpuTime Since(const ThreadCpuTime& earlier) const {
    if (on_cpu_nanos < earlier.on_cpu_nanos ||
        waiting_nanos < earlier.waiting_nanos) {
      return *this;
    }
    ThreadCpuTime d;
    d.on_cpu_nanos = on_cpu_nanos - earlier.on_cpu_nanos;
    d.waiting_nanos = waiting_nanos - earlier.waiting_nanos;
    return d;
  }
};

// Parses a schedstat line, "<on-CPU ns> <run-queue ns> <timeslices>".
// Returns false (leaving *t unchanged) if text is not one.
bool ParseSchedstat(const std::string& text, ThreadCpuTime* t);

// Reads the figures of thread tid of this process (0: the calling thread).
// Returns false where the kernel keeps none, or the thread is gone.
bool ReadThreadCpuTime(int tid, ThreadCpuTime* t);

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_THREAD_CPU_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// What the operating system says about the db_bench process and its
// database directory: I/O counters (/proc/self/io), peak resident memory
// (VmHWM in /proc/self/status, reset through /proc/self/clear_refs), each
// thread's time on a CPU and waiting for one (/proc/self/task/*/schedstat),
// the machine's CPU time taken by the hypervisor (steal, /proc/stat), the
// free memory a virtual machine has handed back to its host, bytes of
// table and log files on disk, and a description of the machine.
//
// Thread safety: thread-safe (plain functions, no shared state).
#ifndef CASCADEDB_BENCHMARKS_DB_BENCH_SYSINFO_H_
#define CASCADEDB_BENCHMARKS_DB_BENCH_SYSINFO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/thread_cpu.h"

namespace cascadedb {
namespace db_bench {

struct ProcIo {
  uint64_t wchar = 0;        // bytes passed to write(2) and friends
  uint64_t write_bytes = 0;  // bytes sent (or dirtied) towards storage
  uint64_t cancelled_write_bytes = 0;  // dirty bytes dropped (deleted files)
  uint64_t read_bytes = 0;
};

// The process's counters; empty if /proc/self/io is unreadable.
std::optional<ProcIo> ReadProcIo();

// Peak resident set size in bytes (VmHWM); empty if unknown.
std::optional<uint64_t> PeakRssBytes();
// Current resident set size (VmRSS); empty if unknown.
std::optional<uint64_t> CurrentRssBytes();
// The current RSS split: anonymous memory (heap, stacks: what the engine
// allocated) and file-backed pages (mapped tables and WAL, shared with the
// page cache); empty if unknown.
std::optional<uint64_t> CurrentRssAnonBytes();
std::optional<uint64_t> CurrentRssFileBytes();
// Resets the peak to the current RSS (writes "5" to /proc/self/clear_refs).
// Returns false when the kernel does not allow it; the peak then covers
// the whole process lifetime.
bool ResetPeakRss();

// The calling thread's time on a CPU and waiting for one
// (util/thread_cpu.h); empty where the kernel keeps no figures.
std::optional<ThreadCpuTime> ReadThreadSched();

// A thread of this process: its id, its name (comm) and its figures.
struct ProcessThread {
  int tid = 0;
  std::string name;
  ThreadCpuTime sched;
};
// Every thread of this process, by thread id; empty where the kernel keeps
// no figures. A thread that exits while the list is read is left out.
std::optional<std::vector<ProcessThread>> ReadProcessThreads();

// The machine's virtual CPUs and two figures summed over them, from
// /proc/stat: the CPU time the hypervisor spent running something else
// while one of ours had work ("steal"), and the time the CPUs were busy
// (user, nice, system, irq, softirq), with this process's own CPU time
// (getrusage) beside it. A thread whose virtual CPU is taken away by the
// hypervisor counts as running in its own schedstat figures: its wall
// time grows, its CPU time does not, and no scheduler figure says why. A
// thread that waits for a CPU no thread of this process holds waits for
// the kernel's threads or another process: busy less own time says how
// much they took.
struct MachineCpu {
  uint64_t steal_nanos = 0;
  uint64_t busy_nanos = 0;
  uint64_t process_nanos = 0;
  int cpus = 0;  // online CPUs

  // Steal since earlier (0 if the counter went back).
  uint64_t StealSince(const MachineCpu& earlier) const {
    return Since(steal_nanos, earlier.steal_nanos);
  }
  // CPU time outside this process since earlier: the machine's busy time
  // less this process's (0 if that is negative: /proc/stat counts in
  // clock ticks, getrusage finer).
  uint64_t OutsideProcessSince(const MachineCpu& earlier) const {
    const uint64_t busy = Since(busy_nanos, earlier.busy_nanos);
    const uint64_t own = Since(process_nanos, earlier.process_nanos);
    return busy > own ? busy - own : 0;
  }

 private:
  static uint64_t Since(uint64_t now, uint64_t then) {
    return now >= then ? now - then : 0;
  }
};
// Empty where /proc/stat has no steal field (not Linux, or a kernel before
// 2.6.11).
std::optional<MachineCpu> ReadMachineCpu();
// The aggregate "cpu" line of a /proc/stat text, in clock ticks: the busy
// fields summed, and steal. Empty if there is none, or it has no steal
// field. For tests.
struct CpuTicks {
  uint64_t busy = 0;
  uint64_t steal = 0;
};
std::optional<CpuTicks> ParseCpuTicks(const std::string& proc_stat);

// The free memory this machine, a virtual one, has handed back to its host
// since boot, in bytes: virtio-balloon free page reporting's counter,
// /sys/module/page_reporting/parameters/reported_kib (the environment
// variable CASCADEDB_REPORTED_KIB_FILE names another file, for tests).
// The guest reports each free block of 2^page_reporting_order pages
// within seconds; a reporting pass stalls the running threads, and the
// host backs a reported page again only when it is next faulted in, at
// several milliseconds per huge page (docs/performance.md, "Memory the
// host has taken back"). Empty where the kernel reports no memory (no
// such file) or the file holds no number.
std::optional<uint64_t> ReadReportedToHostBytes();
// The number of KiB at the start of text, in bytes; empty if there is
// none. For tests.
std::optional<uint64_t> ParseReportedKib(const std::string& text);

struct DirBytes {
  uint64_t table_bytes = 0;  // *.sst and *.ldb
  uint64_t log_bytes = 0;    // *.log
  // *.recycle: obsolete tables CascadeDB keeps to write new ones over
  // (Options::recycle_table_bytes). Disk the engine holds, so counted
  // in the space amplification.
  uint64_t recycled_bytes = 0;
  uint64_t other_bytes = 0;  // MANIFEST, LOG, OPTIONS, ...
  int table_files = 0;

  // The bytes the space amplification counts: tables, WALs and kept
  // tables.
  uint64_t SpaceBytes() const {
    return table_bytes + log_bytes + recycled_bytes;
  }
};
// Sizes of the regular files directly in dir; empty if it is unreadable.
std::optional<DirBytes> DatabaseDirBytes(const std::string& dir);

// "2 * Intel(R) Xeon(R) ..." from /proc/cpuinfo, and the kernel release.
std::string CpuDescription();
std::string KernelRelease();

}  // namespace db_bench
}  // namespace cascadedb

#endif  // CASCADEDB_BENCHMARKS_DB_BENCH_SYSINFO_H_

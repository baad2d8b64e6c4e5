// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// /proc readers and directory accounting for db_bench (see sysinfo.h).

#include "benchmarks/db_bench/sysinfo.h"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace cascadedb {
namespace db_bench {

namespace {

// The value of "name: <number> kB" in /proc/self/status, in bytes.
std::optional<uint64_t> StatusFieldBytes(const char* name) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t name_len = std::strlen(name);
  while (std::getline(in, line)) {
    if (line.compare(0, name_len, name) == 0 && line.size() > name_len &&
        line[name_len] == ':') {
      unsigned long long kib = 0;
      if (std::sscanf(line.c_str() + name_len + 1, "%llu", &kib) == 1) {
        return static_cast<uint64_t>(kib) * 1024;
      }
    }
  }
  return std::nullopt;
}

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

std::optional<ThreadCpuTime> ReadThreadSched() {
  ThreadCpuTime t;
  if (!ReadThreadCpuTime(0, &t)) return std::nullopt;
  return t;
}

std::optional<std::vector<ProcessThread>> ReadProcessThreads() {
  std::error_code ec;
  std::filesystem::directory_iterator it("/proc/self/task", ec);
  if (ec) return std::nullopt;
  std::vector<ProcessThread> threads;
  for (const std::filesystem::directory_entry& e : it) {
    const std::string dir = e.path().string();
    ProcessThread t;
    t.tid = std::atoi(e.path().filename().c_str());
    std::ifstream comm(dir + "/comm");
    // A thread gone since the listing is skipped.
    if (!ReadThreadCpuTime(t.tid, &t.sched) || !comm ||
        !std::getline(comm, t.name)) {
      continue;
    }
    threads.push_back(std::move(t));
  }
  // The calling thread is always there: none at all means no figures.
  if (threads.empty()) return std::nullopt;
  std::sort(threads.begin(), threads.end(),
            [](const ProcessThread& a, const ProcessThread& b) {
              return a.tid < b.tid;
            });
  return threads;
}

std::optional<ProcIo> ReadProcIo() {
  std::ifstream in("/proc/self/io");
  if (!in) return std::nullopt;
  ProcIo io;
  std::string name;
  unsigned long long value = 0;
  bool any = false;
  while (in >> name >> value) {
    any = true;
    if (name == "wchar:") io.wchar = value;
    if (name == "write_bytes:") io.write_bytes = value;
    if (name == "cancelled_write_bytes:") io.cancelled_write_bytes = value;
    if (name == "read_bytes:") io.read_bytes = value;
  }
  if (!any) return std::nullopt;
  return io;
}

std::optional<uint64_t> PeakRssBytes() { return StatusFieldBytes("VmHWM"); }

std::optional<uint64_t> CurrentRssBytes() { return StatusFieldBytes("VmRSS"); }

std::optional<uint64_t> CurrentRssAnonBytes() {
  return StatusFieldBytes("RssAnon");
}

std::optional<uint64_t> CurrentRssFileBytes() {
  return StatusFieldBytes("RssFile");
}

bool ResetPeakRss() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return (std::fclose(f) == 0) && ok;
}

std::optional<CpuTicks> ParseCpuTicks(const std::string& proc_stat) {
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice",
  // the first line; the per-CPU lines ("cpu0 ...") follow it. Guest time
  // is counted in user already.
  std::istringstream in(proc_stat);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, 4, "cpu ") != 0) continue;
    std::istringstream fields(line.substr(4));
    unsigned long long value[8];
    for (unsigned long long& v : value) {
      if (!(fields >> v)) return std::nullopt;
    }
    CpuTicks t;
    t.busy = value[0] + value[1] + value[2] + value[5] + value[6];
    t.steal = value[7];
    return t;
  }
  return std::nullopt;
}

std::optional<MachineCpu> ReadMachineCpu() {
  std::ifstream in("/proc/stat");
  if (!in) return std::nullopt;
  std::string first;
  if (!std::getline(in, first)) return std::nullopt;
  const std::optional<CpuTicks> ticks = ParseCpuTicks(first);
  const long hz = ::sysconf(_SC_CLK_TCK);
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  struct rusage usage;
  if (!ticks || hz <= 0 || cpus <= 0 || ::getrusage(RUSAGE_SELF, &usage) != 0) {
    return std::nullopt;
  }
  const uint64_t tick_nanos = 1000000000ull / static_cast<uint64_t>(hz);
  auto nanos = [](const struct timeval& tv) {
    return static_cast<uint64_t>(tv.tv_sec) * 1000000000ull +
           static_cast<uint64_t>(tv.tv_usec) * 1000ull;
  };
  MachineCpu m;
  m.steal_nanos = ticks->steal * tick_nanos;
  m.busy_nanos = ticks->busy * tick_nanos;
  m.process_nanos = nanos(usage.ru_utime) + nanos(usage.ru_stime);
  m.cpus = static_cast<int>(cpus);
  return m;
}

std::optional<uint64_t> ParseReportedKib(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) i++;
  uint64_t kib = 0;
  size_t digits = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; i++, digits++) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (kib > (UINT64_MAX / 1024 - digit) / 10) return std::nullopt;
    kib = kib * 10 + digit;
  }
  if (digits == 0) return std::nullopt;
  // Only a line end may follow the number.
  if (i < text.size() && text[i] != '\n') return std::nullopt;
  return kib * 1024;
}

std::optional<uint64_t> ReadReportedToHostBytes() {
  const char* path = std::getenv("CASCADEDB_REPORTED_KIB_FILE");
  std::ifstream in(path != nullptr && *path != '\0'
                       ? path
                       : "/sys/module/page_reporting/parameters/reported_kib");
  if (!in) return std::nullopt;
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  return ParseReportedKib(line);
}

std::optional<DirBytes> DatabaseDirBytes(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return std::nullopt;
  DirBytes out;
  for (const fs::directory_entry& entry : it) {
    std::error_code fec;
    if (!entry.is_regular_file(fec)) continue;
    const uint64_t size = entry.file_size(fec);
    if (fec) continue;  // deleted by a compaction while we listed
    const std::string name = entry.path().filename().string();
    if (EndsWith(name, ".sst") || EndsWith(name, ".ldb")) {
      out.table_bytes += size;
      out.table_files++;
    } else if (EndsWith(name, ".log") && name != "LOG") {
      out.log_bytes += size;
    } else if (EndsWith(name, ".recycle")) {
      out.recycled_bytes += size;
    } else {
      out.other_bytes += size;
    }
  }
  return out;
}

std::string CpuDescription() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::string model;
  int count = 0;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      count++;
      const size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) {
        model = line.substr(colon + 2);
      }
    }
  }
  if (count == 0) return "unknown";
  return std::to_string(count) + " * " + model;
}

std::string KernelRelease() {
  struct utsname u;
  if (uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release;
}

}  // namespace db_bench
}  // namespace cascadedb

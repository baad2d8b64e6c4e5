// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// latency_floor: the op latencies this machine gives a busy thread that
// runs no engine at all, to read a db_bench tail against. For each op time
// given, one thread runs back-to-back ops that each spin on the clock for
// that long (MeasureLatencyFloor), and a line reports the ops, the share
// over 50 us and the percentiles:
//
//   latency_floor [--seconds=S] OP_MICROS...
//   latency_floor --seconds=4 2.5 3 7
//   op 7.0 us: 550293 ops (137573/s); over 50 us 0.217%; p99 7.0  p99.9 72.5
//       p99.99 114.0  max 2190.4 us
//
// A db_bench writer that is never idle (its waits for a delay or a stop
// are part of its writes) is such a thread, with the run's mean write time
// as its op time: whatever its engine does, its tail cannot be below this.
// Bad arguments get a one-line error and exit code 2.

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "benchmarks/db_bench/latency.h"

namespace {

constexpr int kExitUsage = 2;
constexpr uint64_t kOverNanos = 50 * 1000;

int Usage(const std::string& message) {
  std::fprintf(stderr, "latency_floor: %s\n", message.c_str());
  std::fprintf(stderr, "usage: latency_floor [--seconds=S] OP_MICROS...\n");
  return kExitUsage;
}

// Parses a positive decimal number no larger than max; false otherwise.
bool ParsePositive(const char* text, double max, double* out) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !std::isfinite(v) ||
      v <= 0 || v > max) {
    return false;
  }
  *out = v;
  return true;
}

// The share of the values at 50 us or more, to the histogram's precision
// (its buckets are 1/64 of a power of two wide: 512 ns at 50 us).
double ShareOver(const cascadedb::db_bench::LatencyHistogram& h) {
  using cascadedb::db_bench::LatencyHistogram;
  uint64_t over = 0;
  for (int b = LatencyHistogram::BucketFor(kOverNanos);
       b < LatencyHistogram::kNumBuckets; b++) {
    over += h.BucketCount(b);
  }
  return h.Count() == 0 ? 0
                        : 100.0 * static_cast<double>(over) /
                              static_cast<double>(h.Count());
}

}  // namespace

int main(int argc, char** argv) {
  using cascadedb::db_bench::LatencyHistogram;
  double seconds = 3;
  std::vector<double> op_micros;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::printf(
          "usage: latency_floor [--seconds=S] OP_MICROS...\n"
          "For each OP_MICROS, S seconds (default 3, at most 3600) of "
          "back-to-back ops that each\nspin on the clock for OP_MICROS "
          "(at most 1000000): the latencies the machine alone gives\na busy "
          "thread.\n");
      return 0;
    }
    if (arg.rfind("--seconds=", 0) == 0) {
      if (!ParsePositive(arg.c_str() + 10, 3600, &seconds)) {
        return Usage("--seconds: '" + arg.substr(10) +
                     "' is not a number in (0, 3600]");
      }
    } else if (arg.rfind("-", 0) == 0 && arg.size() > 1 &&
               !(arg[1] >= '0' && arg[1] <= '9')) {
      return Usage("unknown flag '" + arg + "'");
    } else {
      double v = 0;
      if (!ParsePositive(arg.c_str(), 1e6, &v)) {
        return Usage("op time '" + arg +
                     "' is not a number of microseconds in (0, 1000000]");
      }
      op_micros.push_back(v);
    }
  }
  if (op_micros.empty()) return Usage("no op time given");
  for (const double micros : op_micros) {
    const LatencyHistogram h = cascadedb::db_bench::MeasureLatencyFloor(
        static_cast<uint64_t>(micros * 1000),
        static_cast<uint64_t>(seconds * 1e9));
    std::printf(
        "op %.1f us: %" PRIu64
        " ops (%.0f/s); over 50 us %.3f%%; p99 %.1f  p99.9 %.1f  p99.99 "
        "%.1f  max %.1f us\n",
        micros, h.Count(), static_cast<double>(h.Count()) / seconds,
        ShareOver(h), h.PercentileNanos(99) / 1000,
        h.PercentileNanos(99.9) / 1000, h.PercentileNanos(99.99) / 1000,
        static_cast<double>(h.MaxNanos()) / 1000);
    std::fflush(stdout);
  }
  return 0;
}

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The engine's side of PerfContext (include/cascadedb/perf_context.h): the
// calling thread's level and context, and a scoped timer that adds to one
// of the context's fields when the level asks for times.

#ifndef CASCADEDB_UTIL_PERF_CONTEXT_IMP_H_
#define CASCADEDB_UTIL_PERF_CONTEXT_IMP_H_

#include <cstdint>

#include "cascadedb/env.h"
#include "cascadedb/perf_context.h"

namespace cascadedb {
namespace perf_internal {

extern thread_local PerfLevel perf_level;
extern thread_local PerfContext perf_context;

inline bool TimeEnabled() { return perf_level >= PerfLevel::kEnableTime; }

// Adds nanos to the calling thread's field, if times are measured.
inline void AddNanos(uint64_t PerfContext::*field, uint64_t nanos) {
  if (TimeEnabled()) perf_context.*field += nanos;
}

// The calling thread's stall time so far (delays and stops).
inline uint64_t StallNanos() {
  return perf_context.write_delay_nanos + perf_context.write_stop_nanos;
}

// Times the consecutive parts of one call on env's clock: each Lap adds the
// time since the last mark (the construction, a Lap or a Restart) to one of
// the calling thread's fields. Whether times are measured is read once, at
// construction; if not, nothing reads a clock.
class PerfLaps {
 public:
  explicit PerfLaps(Env* env)
      : env_(TimeEnabled() ? env : nullptr),
        mark_(env_ != nullptr ? env_->NowNanos() : 0) {}

  PerfLaps(const PerfLaps&) = delete;
  PerfLaps& operator=(const PerfLaps&) = delete;

  bool enabled() const { return env_ != nullptr; }

  // The next part starts here: the time since the last mark counts nowhere.
  void Restart() {
    if (env_ != nullptr) mark_ = env_->NowNanos();
  }

  // Adds the time since the last mark, less excluded (time already counted
  // in another field), to field, and marks now.
  void Lap(uint64_t PerfContext::*field, uint64_t excluded = 0) {
    if (env_ == nullptr) return;
    const uint64_t now = env_->NowNanos();
    if (now - mark_ > excluded) perf_context.*field += now - mark_ - excluded;
    mark_ = now;
  }

 private:
  Env* const env_;  // nullptr: not timing
  uint64_t mark_;
};

}  // namespace perf_internal
}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_PERF_CONTEXT_IMP_H_

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

// Adds the wall time of its scope, read from env's clock, to the calling
// thread's field; nothing (no clock read) unless times are measured.
class ScopedTimer {
 public:
  ScopedTimer(uint64_t PerfContext::*field, Env* env)
      : env_(TimeEnabled() ? env : nullptr),
        field_(field),
        start_(env_ != nullptr ? env_->NowNanos() : 0) {}

  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

  ~ScopedTimer() {
    if (env_ != nullptr) perf_context.*field_ += env_->NowNanos() - start_;
  }

 private:
  Env* const env_;  // nullptr: not timing
  uint64_t PerfContext::*const field_;
  const uint64_t start_;
};

}  // namespace perf_internal
}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_PERF_CONTEXT_IMP_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "cascadedb/perf_context.h"

#include <string>

#include "util/perf_context_imp.h"

namespace cascadedb {

namespace perf_internal {
thread_local PerfLevel perf_level = PerfLevel::kDisable;
thread_local PerfContext perf_context;
}  // namespace perf_internal

void SetPerfLevel(PerfLevel level) { perf_internal::perf_level = level; }

PerfLevel GetPerfLevel() { return perf_internal::perf_level; }

PerfContext* GetPerfContext() { return &perf_internal::perf_context; }

void PerfContext::Reset() { *this = PerfContext(); }

std::string PerfContext::ToString(bool exclude_zero_counters) const {
  struct Field {
    const char* name;
    uint64_t value;
  };
  const Field fields[] = {
      {"write_count", write_count},
      {"write_thread_wait_nanos", write_thread_wait_nanos},
      {"write_delay_nanos", write_delay_nanos},
      {"write_stop_nanos", write_stop_nanos},
      {"write_memtable_switch_nanos", write_memtable_switch_nanos},
      {"write_wal_nanos", write_wal_nanos},
      {"write_memtable_nanos", write_memtable_nanos},
      {"db_mutex_lock_nanos", db_mutex_lock_nanos},
  };
  std::string out;
  for (const Field& f : fields) {
    if (exclude_zero_counters && f.value == 0) continue;
    if (!out.empty()) out += ", ";
    out += f.name;
    out += " = ";
    out += std::to_string(f.value);
  }
  return out;
}

}  // namespace cascadedb

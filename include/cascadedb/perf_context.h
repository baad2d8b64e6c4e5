// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// PerfContext: where the calling thread's writes spent their time, in the
// shape RocksDB users know (rocksdb::PerfContext's write_* fields). The
// figures are per thread and off by default: turn them on for a thread with
// SetPerfLevel(PerfLevel::kEnableTime), Reset() the context before the calls
// of interest and read GetPerfContext() after them.
//
// Statistics (statistics.h) and the stall stats say how much a DB stalled
// over all writers; a PerfContext says where one write, or one thread's
// writes, went. db_bench's --perf_level uses it to split the time of its
// writes slower than 1 ms into queueing, stalls, WAL and memtable
// (docs/stalls.md, "Where a slow write went").
//
// The times are wall-clock nanoseconds, not CPU time: a thread that loses
// its CPU in the middle of a WAL append counts the wait as WAL time. How
// long a thread waited for a CPU in all is in the kernel's per-thread
// schedstat (db_bench's `cpu` line).
//
// Cost: nothing while disabled but a thread-local read per write. Enabled,
// about seven clock reads per write.
//
// Thread safety: each thread has its own PerfContext and level; a context
// must be read only by its own thread.

#ifndef CASCADEDB_INCLUDE_CASCADEDB_PERF_CONTEXT_H_
#define CASCADEDB_INCLUDE_CASCADEDB_PERF_CONTEXT_H_

#include <cstdint>
#include <string>

namespace cascadedb {

enum class PerfLevel : uint8_t {
  kDisable = 0,     // nothing is measured (the default)
  kEnableTime = 1,  // the write-path times below are measured
};

// Sets the calling thread's level. Takes effect from its next DB call.
void SetPerfLevel(PerfLevel level);
// The calling thread's level.
PerfLevel GetPerfLevel();

struct PerfContext {
  // Sets every figure to zero.
  void Reset();

  // "name = value" pairs, comma separated; with exclude_zero_counters,
  // only the non-zero ones.
  std::string ToString(bool exclude_zero_counters = false) const;

  // ----------------------------------------------------------- writes
  // Put, Delete and Write calls, summed since the last Reset.

  // Write calls timed (each Put, Delete or Write, whatever its outcome).
  uint64_t write_count = 0;
  // Waiting in the write queue: behind other writers' groups, or, for a
  // write that joined another writer's group, for that leader to write it.
  uint64_t write_thread_wait_nanos = 0;
  // Slowed down: sleeping in a delay (writes DELAYED by a write stall,
  // docs/stalls.md), any cause.
  uint64_t write_delay_nanos = 0;
  // Stopped: waiting for a stop (writes STOPPED) to clear, any cause.
  uint64_t write_stop_nanos = 0;
  // Making room for the write, stalls aside: switching to a new memtable
  // and WAL when the active one is full, and scheduling its flush (RocksDB:
  // write_scheduling_flushes_compactions_time).
  uint64_t write_memtable_switch_nanos = 0;
  // Appending the group's batch to the WAL, and syncing it (and WALs
  // switched away from) for a sync write.
  uint64_t write_wal_nanos = 0;
  // Inserting into the memtable: the group's batch, or (with concurrent
  // memtable writes) this writer's own.
  uint64_t write_memtable_nanos = 0;
  // Taking the DB mutex back after the WAL and the memtable, which flushes
  // and compactions hold while they install their results. (Taking it to
  // join the write queue counts as write_thread_wait_nanos.)
  uint64_t db_mutex_lock_nanos = 0;
};

// The calling thread's context. Never null; valid for the thread's life.
PerfContext* GetPerfContext();

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_PERF_CONTEXT_H_

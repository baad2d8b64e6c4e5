// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// PrefaultWritable: map the pages of a fresh writable range in one system
// call, before the bytes are written, instead of taking one page fault per
// 4 KiB page as the writes reach them.
//
// Why: the write path copies every record into fresh memory, the
// memtable's arena blocks (util/arena.h). Each first touch of a page is a
// fault: a trap into the kernel, and under some hypervisors an exit to the
// host as well. On one 2-vCPU VM of docs/performance.md such faults were a
// fifth of a 1 KiB-value writer's time; populating the same pages in
// batches (Linux's MADV_POPULATE_WRITE) does the same kernel work without
// the per-page traps.
//
// Best effort: where the kernel lacks MADV_POPULATE_WRITE (before Linux
// 5.14) or refuses, nothing happens and the pages fault in on first write
// as before. Only whole pages inside [p, p + n) are touched, so p and n
// need no alignment.
//
// Thread safety: thread-safe; the caller owns the range.

#ifndef CASCADEDB_UTIL_PREFAULT_H_
#define CASCADEDB_UTIL_PREFAULT_H_

#include <cstddef>

namespace cascadedb {

// Returns true if the pages were populated, false if the call was a no-op
// (nothing to do, unsupported, or refused).
bool PrefaultWritable(void* p, size_t n);

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_PREFAULT_H_

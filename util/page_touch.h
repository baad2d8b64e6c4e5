// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Faulting memory in for writing without changing it, while another thread
// may be writing the same memory.
//
// Thread safety: thread-safe (a plain function); see TouchPagesForWrite.
#ifndef CASCADEDB_UTIL_PAGE_TOUCH_H_
#define CASCADEDB_UTIL_PAGE_TOUCH_H_

#include <cstddef>
#include <cstdint>

namespace cascadedb {

// One byte is touched this far apart: the smallest page size (a larger page
// only gets touched more than once).
constexpr size_t kPageTouchStride = 4096;

// Write-faults every page of [base, base + size) in, leaving every byte as
// it was: one atomic OR of zero per page. Another thread may be storing
// into the same pages meanwhile: each OR rewrites its byte's current value
// in one indivisible step, so it never undoes a store, whichever comes
// first (the same trick JVMs use to pre-touch heap that threads may already
// be using).
//
// Why not madvise(MADV_POPULATE_WRITE): that call holds the process's
// address-space lock while it faults, and a thread preempted inside it
// makes every other thread's mmap, munmap and mprotect wait. A page fault
// on a recent Linux (per-VMA locks) takes only the faulting mapping's own
// lock; on an older one it takes the address-space lock for one page.
//
// REQUIRES: the range is mapped writable and its pages can be backed (for
// a file, reserved with fallocate): a page that cannot be is a SIGBUS here,
// as it would be for the thread that writes it.
inline void TouchPagesForWrite(char* base, size_t size) {
  if (size == 0) return;
  auto touch = [](char* p) {
    __atomic_fetch_or(reinterpret_cast<unsigned char*>(p), 0, __ATOMIC_RELAXED);
  };
  // The range's first byte, then the first byte of every later page in it
  // (a range need not start at a page boundary).
  touch(base);
  const size_t into_page = reinterpret_cast<uintptr_t>(base) % kPageTouchStride;
  for (size_t off = kPageTouchStride - into_page; off < size;
       off += kPageTouchStride) {
    touch(base + off);
  }
}

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_PAGE_TOUCH_H_

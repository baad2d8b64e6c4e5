// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/prefault.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace cascadedb {

bool PrefaultWritable(void* p, size_t n) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  static const uintptr_t page = [] {
    const long size = ::sysconf(_SC_PAGESIZE);
    return size > 0 ? static_cast<uintptr_t>(size) : uintptr_t{4096};
  }();
  const uintptr_t start = reinterpret_cast<uintptr_t>(p);
  if (n == 0 || start > UINTPTR_MAX - n) return false;
  const uintptr_t begin = (start + page - 1) & ~(page - 1);
  const uintptr_t end = (start + n) & ~(page - 1);
  if (end <= begin) return false;
  return ::madvise(reinterpret_cast<void*>(begin), end - begin,
                   MADV_POPULATE_WRITE) == 0;
#else
  (void)p;
  (void)n;
  return false;
#endif
}

}  // namespace cascadedb

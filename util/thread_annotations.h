// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Clang thread-safety annotations. They document which mutex guards what and
// are checked by the clang build with -Wthread-safety -Werror; under GCC they
// expand to nothing.
//
// Thread safety: not applicable (macros only).

#ifndef CASCADEDB_UTIL_THREAD_ANNOTATIONS_H_
#define CASCADEDB_UTIL_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define CASCADEDB_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define CASCADEDB_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) CASCADEDB_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY CASCADEDB_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) CASCADEDB_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) CASCADEDB_THREAD_ANNOTATION(pt_guarded_by(x))
#define ACQUIRED_BEFORE(...) \
  CASCADEDB_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) \
  CASCADEDB_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
#define REQUIRES(...) \
  CASCADEDB_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) \
  CASCADEDB_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define ACQUIRE(...) \
  CASCADEDB_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) \
  CASCADEDB_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) \
  CASCADEDB_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define EXCLUDES(...) CASCADEDB_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) CASCADEDB_THREAD_ANNOTATION(assert_capability(x))
#define RETURN_CAPABILITY(x) CASCADEDB_THREAD_ANNOTATION(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS \
  CASCADEDB_THREAD_ANNOTATION(no_thread_safety_analysis)

#endif  // CASCADEDB_UTIL_THREAD_ANNOTATIONS_H_

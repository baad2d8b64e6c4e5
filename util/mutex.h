// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Mutex, CondVar and MutexLock: thin wrappers over the standard library that
// carry the thread-safety annotations of util/thread_annotations.h, so the
// clang build can check which lock guards which field.
//
// Thread safety: thread-safe (they are the synchronization).

#ifndef CASCADEDB_UTIL_MUTEX_H_
#define CASCADEDB_UTIL_MUTEX_H_

#include <cassert>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "util/thread_annotations.h"

namespace cascadedb {

// The unit in which CPUs move memory between their caches. A field one
// thread writes often and another reads often starts a line of its own
// (alignas), so neither thread's other fields move with it.
constexpr size_t kCacheLineSize = 64;

// A hint to the CPU that this thread is spinning (eases its sibling
// hyperthread and the memory-order machinery); for busy-wait loops.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

class CondVar;

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }

  // Documents (and, under clang, tells the analysis) that the caller holds
  // the mutex. std::mutex cannot tell its owner, so nothing runs.
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// A condition variable bound to one Mutex. Each CondVar waits for one
// predicate; callers loop: while (!predicate) cv.Wait();
class CondVar {
 public:
  explicit CondVar(Mutex* mu) : mu_(mu) { assert(mu != nullptr); }
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Atomically releases the mutex and waits; holds it again on return.
  // REQUIRES: the mutex is held.
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }

  // Like Wait, but gives up after micros. Returns true on timeout.
  bool WaitFor(uint64_t micros) {
    std::unique_lock<std::mutex> lock(mu_->mu_, std::adopt_lock);
    const bool timed_out =
        cv_.wait_for(lock, std::chrono::microseconds(micros)) ==
        std::cv_status::timeout;
    lock.release();
    return timed_out;
  }

  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
  Mutex* const mu_;
};

// Holds a Mutex for the lifetime of the object.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_MUTEX_H_

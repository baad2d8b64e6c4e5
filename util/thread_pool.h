// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// ThreadPool: a fixed-but-resizable set of worker threads running queued
// jobs in FIFO order. The POSIX Env keeps one pool per Env::Priority (HIGH
// for flushes, LOW for compactions), so a flush never waits behind a
// compaction.
//
// Thread safety: thread-safe. Jobs may call Schedule, SetBackgroundThreads,
// GetBackgroundThreads and QueueLen on their own pool; they must not call
// WaitForJobs on it or destroy it (both would wait for themselves).

#ifndef CASCADEDB_UTIL_THREAD_POOL_H_
#define CASCADEDB_UTIL_THREAD_POOL_H_

#include <cstdint>
#include <deque>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cascadedb/env.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"
#include "util/thread_cpu.h"

namespace cascadedb {

class ThreadPool {
 public:
  // Starts num_threads workers at once (negative counts as 0). name (at most
  // 15 characters are kept) labels the threads for debuggers and top.
  explicit ThreadPool(int num_threads, std::string name = "cascadedb");

  // Runs every job still queued, then joins all workers. With zero threads
  // configured, one worker is started to drain the queue.
  // REQUIRES: not called from one of this pool's jobs.
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues function(arg) to run once on a worker. Returns at once. Jobs run
  // in the order they were scheduled (several may run at the same time).
  // Workers kept off a CPU by ScheduleBesideCaller may use it again.
  void Schedule(void (*function)(void* arg), void* arg) EXCLUDES(mu_);

  // Like Schedule, but first keeps the workers off the CPU the calling
  // thread is running on, when they may run on another one, so the job runs
  // beside the caller instead of on its CPU. For work a busy thread hands
  // over and does not wait for (the mmap WAL's next region): a worker woken
  // by the caller is otherwise placed on the caller's CPU and, with the
  // other CPUs busy, takes it from the caller for milliseconds. Costs one
  // sched_setaffinity per worker when the caller's CPU differs from the
  // last call's. Linux only; elsewhere the same as Schedule.
  void ScheduleBesideCaller(void (*function)(void* arg), void* arg)
      EXCLUDES(mu_);

  // Sets the number of workers (negative counts as 0). Growing starts the
  // new threads at once; shrinking lets surplus threads exit after their
  // current job. With 0 threads, queued jobs wait until the pool grows.
  void SetBackgroundThreads(int num_threads) EXCLUDES(mu_);

  // The configured number of workers (threads told to exit may still be
  // finishing their last job).
  int GetBackgroundThreads() const EXCLUDES(mu_);

  // Jobs queued and not yet started.
  unsigned int QueueLen() const EXCLUDES(mu_);

  // Lowers the CPU priority of every worker, present and future (see
  // Env::LowerThreadPoolCPUPriority): each applies it to itself before its
  // next job. A priority above the current one changes nothing. Linux
  // only; elsewhere the setting is kept but not applied.
  void LowerCpuPriority(Env::CpuPriority pri) EXCLUDES(mu_);
  Env::CpuPriority GetCpuPriority() const EXCLUDES(mu_);

  // Adds to *on_cpu_micros and *waiting_micros the time the pool's workers
  // have spent on a CPU and runnable waiting for one (util/thread_cpu.h)
  // since the pool started, workers that have exited included (a worker
  // exiting during the call may be missed once). Returns false, adding
  // nothing, where the kernel keeps no such figures.
  bool AddCpuTime(uint64_t* on_cpu_micros, uint64_t* waiting_micros) const
      EXCLUDES(mu_);

  // Blocks until the queue is empty and no job is running. Jobs scheduled
  // while waiting are waited for too.
  // REQUIRES: not called from one of this pool's jobs; the pool has at least
  // one thread if jobs are queued (otherwise it waits until one is added).
  void WaitForJobs() EXCLUDES(mu_);

 private:
  struct Job {
    void (*function)(void*);
    void* arg;
  };

  // The body of every worker; id is its key in threads_.
  void WorkerLoop(uint64_t id) EXCLUDES(mu_);

  // Queues the job after keeping the workers off cpu (-1: none; every CPU
  // of the pool), moving them only if that differs from the last call.
  void ScheduleAvoiding(void (*function)(void* arg), void* arg, int cpu)
      EXCLUDES(mu_);
  // Sets the CPUs thread tid (0: the calling thread) may run on to the pool's
  // CPUs minus avoided_cpu_ (all of them when avoided_cpu_ is -1). Best
  // effort: an error leaves the thread where it was.
  void PlaceLocked(int tid) REQUIRES(mu_);
  // Starts workers until live_threads_ reaches target_threads_.
  void StartThreadsLocked() REQUIRES(mu_);

  // Takes the std::thread objects of workers that have exited, so the caller
  // can join them after releasing mu_.
  std::vector<std::thread> TakeExitedThreadsLocked() REQUIRES(mu_);

  // ---- const after construction
  const std::string name_;
  // The CPUs the creating thread could run on (Linux; else empty): the
  // workers' CPUs, unless kept off one by ScheduleBesideCaller.
  const std::vector<int> cpus_;

  // ---- guarded by mu_
  mutable Mutex mu_;
  // Predicate: a job is queued, or this worker is surplus, or shutting down.
  CondVar work_cv_;
  // Predicate: queue_ is empty and running_jobs_ == 0.
  CondVar idle_cv_;
  std::deque<Job> queue_ GUARDED_BY(mu_);
  int target_threads_ GUARDED_BY(mu_);
  // Workers started and not yet exited (may exceed target_threads_ briefly
  // after a shrink, until surplus workers finish their jobs).
  int live_threads_ GUARDED_BY(mu_) = 0;
  int running_jobs_ GUARDED_BY(mu_) = 0;
  bool shutting_down_ GUARDED_BY(mu_) = false;
  Env::CpuPriority cpu_priority_ GUARDED_BY(mu_) = Env::CpuPriority::kNormal;
  uint64_t next_thread_id_ GUARDED_BY(mu_) = 0;
  std::unordered_map<uint64_t, std::thread> threads_ GUARDED_BY(mu_);
  // Ids of workers that have left WorkerLoop's loop and await joining.
  std::vector<uint64_t> exited_ids_ GUARDED_BY(mu_);
  // Kernel thread ids of the live workers, by worker id (Linux).
  std::unordered_map<uint64_t, int> worker_tids_ GUARDED_BY(mu_);
  // CPU figures of the workers that have exited.
  ThreadCpuTime exited_cpu_ GUARDED_BY(mu_);
  // The CPU the workers are kept off (ScheduleBesideCaller), or -1.
  int avoided_cpu_ GUARDED_BY(mu_) = -1;
};

// The CPUs the calling thread may run on (its affinity mask on Linux, else
// std::thread::hardware_concurrency()); at least 1.
int AvailableCpus();

// The process's writers' helper: one worker thread (cascadedb:map) for work
// a writing thread hands over ahead of needing it, and may later wait for:
// the mmap WAL's next region (util/env_posix.cc), the memtable arena's next
// blocks (util/arena.h). Its own thread, not a background pool's: a writer
// may wait for it, so it must never queue behind a compaction. Created on
// first use and never destroyed, so work handed over during static
// destruction still finds it.
ThreadPool* WritersHelper();

// The writers' helper if something has started it, else nullptr (for its
// CPU figures, which are zero until then).
ThreadPool* StartedWritersHelper();

}  // namespace cascadedb

#endif  // CASCADEDB_UTIL_THREAD_POOL_H_

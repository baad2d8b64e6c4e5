// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/thread_pool.h"

#include <pthread.h>
#if defined(__linux__)
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <utility>

namespace cascadedb {

namespace {

// Lowers the calling thread to pri. Best effort: lowering one's own
// priority needs no privilege on Linux, so it does not fail there.
void ApplyCpuPriority(Env::CpuPriority pri) {
#if defined(__linux__)
  switch (pri) {
    case Env::CpuPriority::kIdle: {
      sched_param param{};
      param.sched_priority = 0;
      pthread_setschedparam(pthread_self(), SCHED_IDLE, &param);
      break;
    }
    case Env::CpuPriority::kLow:
      // PRIO_PROCESS with a thread id: Linux keeps nice values per thread.
      setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19);
      break;
    case Env::CpuPriority::kNormal:
      break;
  }
#else
  (void)pri;
#endif
}

// The CPUs the calling thread may run on; empty where that is unknown.
std::vector<int> CallerCpus() {
  std::vector<int> cpus;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; c++) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
#endif
  return cpus;
}

}  // namespace

ThreadPool::ThreadPool(int num_threads, std::string name)
    : name_(std::move(name)),
      cpus_(CallerCpus()),
      work_cv_(&mu_),
      idle_cv_(&mu_),
      target_threads_(num_threads < 0 ? 0 : num_threads) {
  MutexLock lock(&mu_);
  StartThreadsLocked();
}

ThreadPool::~ThreadPool() {
  std::vector<std::thread> threads;
  {
    MutexLock lock(&mu_);
    shutting_down_ = true;
    if (live_threads_ == 0 && !queue_.empty()) {
      // Queued jobs must still run; shutting_down_ does not stop this start.
      target_threads_ = 1;
      const uint64_t id = next_thread_id_++;
      threads_.emplace(id, std::thread(&ThreadPool::WorkerLoop, this, id));
      live_threads_++;
    }
    work_cv_.SignalAll();
    for (auto& entry : threads_) threads.push_back(std::move(entry.second));
    threads_.clear();
  }
  // Workers drain the queue before leaving, so after the joins it is empty.
  for (std::thread& t : threads) t.join();
}

void ThreadPool::Schedule(void (*function)(void* arg), void* arg) {
  // Back to every CPU after ScheduleBesideCaller.
  ScheduleAvoiding(function, arg, -1);
}

void ThreadPool::ScheduleBesideCaller(void (*function)(void* arg), void* arg) {
  int cpu = -1;
#if defined(__linux__)
  cpu = sched_getcpu();
  // Only a CPU the workers may use, and never the last one they have;
  // otherwise they get every CPU (the caller is not on one of theirs).
  // cpus_ is const: no lock needed to read it.
  if (cpu < 0 || cpus_.size() < 2 ||
      std::find(cpus_.begin(), cpus_.end(), cpu) == cpus_.end()) {
    cpu = -1;
  }
#endif
  ScheduleAvoiding(function, arg, cpu);
}

void ThreadPool::ScheduleAvoiding(void (*function)(void* arg), void* arg,
                                  int cpu) {
  MutexLock lock(&mu_);
  if (cpu != avoided_cpu_) {
    avoided_cpu_ = cpu;
    for (const auto& entry : worker_tids_) PlaceLocked(entry.second);
  }
  queue_.push_back(Job{function, arg});
  work_cv_.Signal();
}

void ThreadPool::PlaceLocked(int tid) {
  mu_.AssertHeld();
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus_) {
    if (c != avoided_cpu_ && c < CPU_SETSIZE) CPU_SET(c, &set);
  }
  if (CPU_COUNT(&set) > 0) {
    sched_setaffinity(static_cast<pid_t>(tid), sizeof(set), &set);
  }
#else
  (void)tid;
#endif
}

void ThreadPool::SetBackgroundThreads(int num_threads) {
  std::vector<std::thread> exited;
  {
    MutexLock lock(&mu_);
    target_threads_ = num_threads < 0 ? 0 : num_threads;
    if (!shutting_down_) StartThreadsLocked();
    // Idle surplus workers must wake up to notice that they should exit.
    work_cv_.SignalAll();
    exited = TakeExitedThreadsLocked();
  }
  // An exited worker has released mu_ for the last time, so joining it
  // outside the lock cannot deadlock.
  for (std::thread& t : exited) t.join();
}

int ThreadPool::GetBackgroundThreads() const {
  MutexLock lock(&mu_);
  return target_threads_;
}

unsigned int ThreadPool::QueueLen() const {
  MutexLock lock(&mu_);
  return static_cast<unsigned int>(queue_.size());
}

void ThreadPool::LowerCpuPriority(Env::CpuPriority pri) {
  MutexLock lock(&mu_);
  if (pri < cpu_priority_) cpu_priority_ = pri;
}

Env::CpuPriority ThreadPool::GetCpuPriority() const {
  MutexLock lock(&mu_);
  return cpu_priority_;
}

void ThreadPool::WaitForJobs() {
  MutexLock lock(&mu_);
  while (!queue_.empty() || running_jobs_ > 0) idle_cv_.Wait();
}

void ThreadPool::StartThreadsLocked() {
  mu_.AssertHeld();
  while (live_threads_ < target_threads_) {
    const uint64_t id = next_thread_id_++;
    // The new worker blocks on mu_ until we release it, so it is in
    // threads_ before it can exit and report its id.
    threads_.emplace(id, std::thread(&ThreadPool::WorkerLoop, this, id));
    live_threads_++;
  }
}

std::vector<std::thread> ThreadPool::TakeExitedThreadsLocked() {
  mu_.AssertHeld();
  std::vector<std::thread> result;
  for (uint64_t id : exited_ids_) {
    auto it = threads_.find(id);
    if (it == threads_.end()) continue;  // taken by the destructor
    result.push_back(std::move(it->second));
    threads_.erase(it);
  }
  exited_ids_.clear();
  return result;
}

void ThreadPool::WorkerLoop(uint64_t id) {
  // Linux limits thread names to 15 characters plus the terminator.
  pthread_setname_np(pthread_self(), name_.substr(0, 15).c_str());

  Env::CpuPriority applied = Env::CpuPriority::kNormal;
  mu_.Lock();
#if defined(__linux__)
  worker_tids_[id] = static_cast<int>(syscall(SYS_gettid));
  if (avoided_cpu_ >= 0) PlaceLocked(0);
#endif
  while (true) {
    while (queue_.empty() && !shutting_down_ &&
           live_threads_ <= target_threads_) {
      work_cv_.Wait();
    }
    if (!shutting_down_ && live_threads_ > target_threads_) break;  // surplus
    if (queue_.empty()) break;  // shutting down, and nothing left to run
    const Job job = queue_.front();
    queue_.pop_front();
    running_jobs_++;
    const Env::CpuPriority wanted = cpu_priority_;
    mu_.Unlock();
    if (wanted < applied) {
      ApplyCpuPriority(wanted);
      applied = wanted;
    }
    job.function(job.arg);
    mu_.Lock();
    running_jobs_--;
    if (queue_.empty() && running_jobs_ == 0) idle_cv_.SignalAll();
  }
  live_threads_--;
  exited_ids_.push_back(id);
  worker_tids_.erase(id);
  // This worker's figures stay in the pool's total after it is gone.
  ThreadCpuTime mine;
  if (ReadThreadCpuTime(0, &mine)) exited_cpu_ += mine;
  // A Schedule may have signalled this worker just before it chose to exit;
  // pass the wake-up on so the job is not left waiting.
  if (!queue_.empty()) work_cv_.Signal();
  mu_.Unlock();
}

bool ThreadPool::AddCpuTime(uint64_t* on_cpu_micros,
                            uint64_t* waiting_micros) const {
  ThreadCpuTime probe;
  if (!ReadThreadCpuTime(0, &probe)) return false;  // no figures here
  std::vector<int> tids;
  ThreadCpuTime total;
  {
    MutexLock l(&mu_);
    for (const auto& [id, tid] : worker_tids_) tids.push_back(tid);
    total = exited_cpu_;
  }
  // Read outside the lock: each is a /proc read.
  for (int tid : tids) {
    ThreadCpuTime t;
    if (ReadThreadCpuTime(tid, &t)) total += t;
  }
  *on_cpu_micros += total.on_cpu_nanos / 1000;
  *waiting_micros += total.waiting_nanos / 1000;
  return true;
}

int AvailableCpus() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
#endif
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

namespace {
std::atomic<ThreadPool*> g_writers_helper{nullptr};  // once started
}  // namespace

ThreadPool* WritersHelper() {
  static ThreadPool* const pool = [] {
    ThreadPool* p = new ThreadPool(1, "cascadedb:map");
    g_writers_helper.store(p, std::memory_order_release);
    return p;
  }();
  return pool;
}

ThreadPool* StartedWritersHelper() {
  return g_writers_helper.load(std::memory_order_acquire);
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/thread_pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "cascadedb/env.h"
#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace {

// A generous bound on waits that should end almost at once, so a broken
// pool fails the test instead of hanging it. Never reached when correct.
constexpr auto kHangGuard = std::chrono::seconds(60);

// A latch a job can block on until the test opens it, and which tells the
// test how many jobs have reached it.
class Gate {
 public:
  // Called by a job: announces arrival and blocks until Open().
  void Pass() {
    std::unique_lock<std::mutex> lock(mu_);
    arrived_++;
    arrived_cv_.notify_all();
    open_cv_.wait(lock, [this] { return open_; });
  }

  // Waits until n jobs have arrived; false if that never happens.
  bool WaitForArrivals(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return arrived_cv_.wait_for(lock, kHangGuard,
                                [this, n] { return arrived_ >= n; });
  }

  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    open_cv_.notify_all();
  }

  int arrived() {
    std::lock_guard<std::mutex> lock(mu_);
    return arrived_;
  }

  static void PassJob(void* arg) { static_cast<Gate*>(arg)->Pass(); }

 private:
  std::mutex mu_;
  std::condition_variable arrived_cv_;  // predicate: arrived_ grew
  std::condition_variable open_cv_;     // predicate: open_
  int arrived_ = 0;
  bool open_ = false;
};

void CountJob(void* arg) { static_cast<std::atomic<int>*>(arg)->fetch_add(1); }

// Tracks how many jobs run at the same time.
struct ConcurrencyProbe {
  std::atomic<int> running{0};
  std::atomic<int> max_running{0};
  std::atomic<int> finished{0};

  static void Job(void* arg) {
    auto* p = static_cast<ConcurrencyProbe*>(arg);
    const int now = ++p->running;
    int seen = p->max_running.load();
    while (now > seen && !p->max_running.compare_exchange_weak(seen, now)) {
    }
    // Give other workers a chance to overlap if they (wrongly) could.
    for (int i = 0; i < 100; i++) std::this_thread::yield();
    --p->running;
    ++p->finished;
  }
};

TEST(ThreadPoolTest, RunsEveryScheduledJob) {
  ThreadPool pool(2);
  std::atomic<int> runs{0};
  for (int i = 0; i < 1000; i++) pool.Schedule(CountJob, &runs);
  pool.WaitForJobs();
  EXPECT_EQ(1000, runs.load());
  EXPECT_EQ(0u, pool.QueueLen());
}

TEST(ThreadPoolTest, QueueLenCountsJobsNotYetStarted) {
  ThreadPool pool(1);
  Gate gate;
  pool.Schedule(Gate::PassJob, &gate);
  ASSERT_TRUE(gate.WaitForArrivals(1));
  std::atomic<int> runs{0};
  for (int i = 0; i < 3; i++) pool.Schedule(CountJob, &runs);
  EXPECT_EQ(3u, pool.QueueLen());
  gate.Open();
  pool.WaitForJobs();
  EXPECT_EQ(3, runs.load());
  EXPECT_EQ(0u, pool.QueueLen());
}

TEST(ThreadPoolTest, WaitForJobsWaitsForTheRunningJob) {
  ThreadPool pool(1);
  struct State {
    Gate gate;
    std::atomic<bool> finished{false};
  } state;
  pool.Schedule(
      [](void* arg) {
        auto* st = static_cast<State*>(arg);
        st->gate.Pass();
        st->finished = true;
      },
      &state);
  ASSERT_TRUE(state.gate.WaitForArrivals(1));
  // The opener most likely runs after WaitForJobs has started waiting; if it
  // runs first, the test passes trivially rather than failing falsely.
  std::thread opener([&state] {
    for (int i = 0; i < 1000; i++) std::this_thread::yield();
    state.gate.Open();
  });
  pool.WaitForJobs();
  EXPECT_TRUE(state.finished.load());
  opener.join();
}

TEST(ThreadPoolTest, WaitForJobsCoversJobsScheduledByJobs) {
  ThreadPool pool(1);
  struct State {
    ThreadPool* pool;
    std::atomic<int> runs{0};
  } state;
  state.pool = &pool;
  pool.Schedule(
      [](void* arg) {
        auto* st = static_cast<State*>(arg);
        st->pool->Schedule(CountJob, &st->runs);
        st->runs++;
      },
      &state);
  pool.WaitForJobs();
  EXPECT_EQ(2, state.runs.load());
}

TEST(ThreadPoolTest, GrowingStartsThreadsAtOnce) {
  ThreadPool pool(1);
  pool.SetBackgroundThreads(3);
  EXPECT_EQ(3, pool.GetBackgroundThreads());
  // Three jobs can all be blocked at once only if three threads run them.
  Gate gate;
  for (int i = 0; i < 3; i++) pool.Schedule(Gate::PassJob, &gate);
  EXPECT_TRUE(gate.WaitForArrivals(3));
  gate.Open();
  pool.WaitForJobs();
}

TEST(ThreadPoolTest, ShrinkingLeavesOneJobAtATime) {
  ThreadPool pool(3);
  // Shrink while two jobs hold their threads: they finish, then exit.
  Gate gate;
  pool.Schedule(Gate::PassJob, &gate);
  pool.Schedule(Gate::PassJob, &gate);
  ASSERT_TRUE(gate.WaitForArrivals(2));
  pool.SetBackgroundThreads(1);
  EXPECT_EQ(1, pool.GetBackgroundThreads());
  gate.Open();

  ConcurrencyProbe probe;
  for (int i = 0; i < 200; i++) pool.Schedule(ConcurrencyProbe::Job, &probe);
  pool.WaitForJobs();
  EXPECT_EQ(200, probe.finished.load());
  EXPECT_EQ(1, probe.max_running.load());
}

TEST(ThreadPoolTest, ZeroThreadsHoldJobsUntilThePoolGrows) {
  ThreadPool pool(0);
  std::atomic<int> runs{0};
  pool.Schedule(CountJob, &runs);
  EXPECT_EQ(1u, pool.QueueLen());
  EXPECT_EQ(0, runs.load());
  pool.SetBackgroundThreads(1);
  pool.WaitForJobs();
  EXPECT_EQ(1, runs.load());
}

TEST(ThreadPoolTest, DestructorRunsQueuedJobs) {
  std::atomic<int> runs{0};
  Gate gate;
  {
    ThreadPool pool(1);
    pool.Schedule(Gate::PassJob, &gate);
    ASSERT_TRUE(gate.WaitForArrivals(1));
    for (int i = 0; i < 10; i++) pool.Schedule(CountJob, &runs);
    EXPECT_EQ(10u, pool.QueueLen());
    gate.Open();
  }
  EXPECT_EQ(10, runs.load());
}

TEST(ThreadPoolTest, DestructorRunsQueuedJobsWithZeroThreads) {
  std::atomic<int> runs{0};
  {
    ThreadPool pool(0);
    for (int i = 0; i < 5; i++) pool.Schedule(CountJob, &runs);
  }
  EXPECT_EQ(5, runs.load());
}

TEST(ThreadPoolTest, ResizingRepeatedlyKeepsRunningJobs) {
  ThreadPool pool(1);
  std::atomic<int> runs{0};
  for (int round = 0; round < 20; round++) {
    pool.SetBackgroundThreads(round % 4);
    for (int i = 0; i < 10; i++) pool.Schedule(CountJob, &runs);
  }
  pool.SetBackgroundThreads(2);
  pool.WaitForJobs();
  EXPECT_EQ(200, runs.load());
}

TEST(ThreadPoolTest, BlockedLowJobDoesNotDelayHighJob) {
  Env* env = Env::Default();
  Gate low_gate;
  env->Schedule(Gate::PassJob, &low_gate, Env::Priority::kLow);
  ASSERT_TRUE(low_gate.WaitForArrivals(1));  // the LOW thread is now busy

  Gate high_gate;
  high_gate.Open();  // the HIGH job only reports that it ran
  env->Schedule(Gate::PassJob, &high_gate, Env::Priority::kHigh);
  EXPECT_TRUE(high_gate.WaitForArrivals(1));
  EXPECT_EQ(0u, env->GetThreadPoolQueueLen(Env::Priority::kHigh));

  low_gate.Open();
  env->WaitForBackgroundJobs();
}

#if defined(__linux__)
// What a job sees of its own thread's CPU scheduling.
struct SchedSeen {
  int policy = -1;
  int nice = 100;
};

void ReadSched(void* arg) {
  auto* seen = static_cast<SchedSeen*>(arg);
  seen->policy = sched_getscheduler(0);
  seen->nice =
      getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
}

SchedSeen RunReadSched(ThreadPool* pool) {
  SchedSeen seen;
  pool->Schedule(ReadSched, &seen);
  pool->WaitForJobs();
  return seen;
}

TEST(ThreadPoolTest, LoweredCpuPriorityAppliesBeforeTheNextJob) {
  ThreadPool pool(1);
  EXPECT_EQ(SCHED_OTHER, RunReadSched(&pool).policy);
  EXPECT_EQ(Env::CpuPriority::kNormal, pool.GetCpuPriority());

  pool.LowerCpuPriority(Env::CpuPriority::kLow);
  SchedSeen low = RunReadSched(&pool);
  EXPECT_EQ(SCHED_OTHER, low.policy);
  EXPECT_EQ(19, low.nice);

  // One-way: asking for more than the pool has changes nothing.
  pool.LowerCpuPriority(Env::CpuPriority::kNormal);
  EXPECT_EQ(Env::CpuPriority::kLow, pool.GetCpuPriority());
  EXPECT_EQ(19, RunReadSched(&pool).nice);

  pool.LowerCpuPriority(Env::CpuPriority::kIdle);
  EXPECT_EQ(Env::CpuPriority::kIdle, pool.GetCpuPriority());
  EXPECT_EQ(SCHED_IDLE, RunReadSched(&pool).policy);
}

TEST(ThreadPoolTest, ThreadsStartedLaterTakeTheLoweredCpuPriority) {
  ThreadPool pool(0);
  pool.LowerCpuPriority(Env::CpuPriority::kIdle);
  pool.SetBackgroundThreads(1);
  EXPECT_EQ(SCHED_IDLE, RunReadSched(&pool).policy);
}

TEST(ThreadPoolTest, OtherPoolsKeepTheirCpuPriority) {
  ThreadPool lowered(1);
  ThreadPool other(1);
  lowered.LowerCpuPriority(Env::CpuPriority::kIdle);
  EXPECT_EQ(SCHED_IDLE, RunReadSched(&lowered).policy);
  EXPECT_EQ(SCHED_OTHER, RunReadSched(&other).policy);
}
// The CPUs the job's thread may run on, then a gate (so that two such
// jobs occupy two workers at once).
struct AffinitySeen {
  cpu_set_t set;
  Gate* gate = nullptr;
};

void ReadAffinity(void* arg) {
  auto* seen = static_cast<AffinitySeen*>(arg);
  CPU_ZERO(&seen->set);
  sched_getaffinity(0, sizeof(seen->set), &seen->set);
  if (seen->gate != nullptr) seen->gate->Pass();
}

cpu_set_t MyCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
  return set;
}

TEST(ThreadPoolTest, ScheduleBesideCallerKeepsEveryWorkerOffTheCallersCpu) {
  if (AvailableCpus() < 2) GTEST_SKIP() << "needs two CPUs";
  const cpu_set_t all = MyCpus();
  ThreadPool pool(2);  // created unpinned: its CPUs are all of ours
  {
    test::ScopedOneCpu one_cpu;
    ASSERT_TRUE(one_cpu.ok());
    const int cpu = sched_getcpu();
    ASSERT_GE(cpu, 0);
    Gate gate;
    AffinitySeen a, b;
    a.gate = b.gate = &gate;
    pool.ScheduleBesideCaller(ReadAffinity, &a);
    pool.ScheduleBesideCaller(ReadAffinity, &b);
    ASSERT_TRUE(gate.WaitForArrivals(2));  // one job on each worker
    gate.Open();
    pool.WaitForJobs();
    for (const AffinitySeen* seen : {&a, &b}) {
      EXPECT_FALSE(CPU_ISSET(cpu, &seen->set));
      EXPECT_EQ(CPU_COUNT(&all) - 1, CPU_COUNT(&seen->set));
    }
  }
  // A plain Schedule gives the workers every CPU back.
  AffinitySeen seen;
  pool.Schedule(ReadAffinity, &seen);
  pool.WaitForJobs();
  EXPECT_TRUE(CPU_EQUAL(&all, &seen.set));
}

TEST(ThreadPoolTest, WorkersStartedLaterStayOffTheCallersCpu) {
  if (AvailableCpus() < 2) GTEST_SKIP() << "needs two CPUs";
  ThreadPool pool(0);
  test::ScopedOneCpu one_cpu;
  ASSERT_TRUE(one_cpu.ok());
  const int cpu = sched_getcpu();
  AffinitySeen seen;
  pool.ScheduleBesideCaller(ReadAffinity, &seen);  // no worker yet
  pool.SetBackgroundThreads(1);
  pool.WaitForJobs();
  EXPECT_FALSE(CPU_ISSET(cpu, &seen.set));
  EXPECT_GE(CPU_COUNT(&seen.set), 1);
}

TEST(ThreadPoolTest, ScheduleBesideCallerNeverTakesAWorkersLastCpu) {
  test::ScopedOneCpu one_cpu;
  ASSERT_TRUE(one_cpu.ok());
  const cpu_set_t one = MyCpus();
  ThreadPool pool(1);  // created pinned: one CPU is all it has
  AffinitySeen seen;
  pool.ScheduleBesideCaller(ReadAffinity, &seen);
  pool.WaitForJobs();
  EXPECT_TRUE(CPU_EQUAL(&one, &seen.set));
}
#endif  // __linux__

void BusyJob(void* arg) {
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::milliseconds(*static_cast<int*>(arg));
  volatile uint64_t sink = 0;
  while (std::chrono::steady_clock::now() < end) sink = sink + 1;
}

// The pool's CPU time covers its workers' jobs, and stays counted after
// the workers exit.
TEST(ThreadPoolTest, CpuTimeCoversWorkersThatHaveExited) {
  ThreadPool pool(1);
  uint64_t on_cpu = 0;
  uint64_t waiting = 0;
  if (!pool.AddCpuTime(&on_cpu, &waiting)) {
    GTEST_SKIP() << "the kernel keeps no per-thread CPU figures";
  }
  int ms = 30;
  pool.Schedule(&BusyJob, &ms);
  pool.WaitForJobs();
  on_cpu = 0;
  waiting = 0;
  ASSERT_TRUE(pool.AddCpuTime(&on_cpu, &waiting));
  EXPECT_GE(on_cpu, 10u * 1000);
  const uint64_t after_job = on_cpu;

  pool.SetBackgroundThreads(0);  // the worker exits
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  uint64_t later = 0;
  ASSERT_TRUE(pool.AddCpuTime(&later, &waiting));
  EXPECT_GE(later, after_job);

  // Added to, not overwritten.
  uint64_t sum = 1000 * 1000 * 1000;
  ASSERT_TRUE(pool.AddCpuTime(&sum, &waiting));
  EXPECT_GE(sum, 1000u * 1000 * 1000 + after_job);
}

TEST(AvailableCpusTest, CountsTheCpusThisThreadMayUse) {
  const int n = AvailableCpus();
  EXPECT_GE(n, 1);
  const unsigned hw = std::thread::hardware_concurrency();
  if (hw > 0) {
    EXPECT_LE(n, static_cast<int>(hw));
  }
#if defined(__linux__)
  cpu_set_t set;
  ASSERT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
  EXPECT_EQ(CPU_COUNT(&set), n);
#endif
  {
    test::ScopedOneCpu one_cpu;
    if (one_cpu.ok()) {
      EXPECT_EQ(1, AvailableCpus());
    }
  }
  EXPECT_EQ(n, AvailableCpus());
}

}  // namespace
}  // namespace cascadedb

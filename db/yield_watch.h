// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// YieldWatch: lets a background job notice that a thread it should yield
// to (the writer, for flushes and compactions; the flush, for compactions)
// is held up waiting for a CPU, and give it its own.
//
// With as many busy threads as CPUs, a thread that takes the writer's CPU
// keeps it for the rest of its time slice, which the kernel ends at a
// timer tick (4 ms at 250 Hz): a flush woken as the writer releases the DB
// mutex, or one whose turn comes at a tick. The write that was a
// microsecond from done takes milliseconds. A delayed writer woken from
// its sleep waits the same way. So the watched thread marks when it works,
// when it blocks, and when it sleeps and for how long; a job looks at the
// marks between the blocks it appends (TableFileWriter), and yields its CPU
// (sched_yield) if the watched thread, last marked on this CPU, has been
// working without a new mark since its last look, or has not marked its
// return from a sleep that ended a while ago: it is queued here, behind
// this job (docs/stalls.md, "Background jobs yield to held-up writes").
//
// Thread safety: thread-safe. The marks are meant to come from one thread
// at a time (for the writer, the writers' leader, handed over under the DB
// mutex); marks from two at once (two flushes) may land as one, which at
// worst makes an observer yield once for nothing. Any number of Observers
// read them.

#ifndef CASCADEDB_DB_YIELD_WATCH_H_
#define CASCADEDB_DB_YIELD_WATCH_H_

#include <atomic>
#include <cstdint>

namespace cascadedb {

class YieldWatch {
 public:
  // A watch that is not enabled makes no marks, and its observers never
  // see its thread held up.
  explicit YieldWatch(bool enabled) : enabled_(enabled) {}
  YieldWatch(const YieldWatch&) = delete;
  YieldWatch& operator=(const YieldWatch&) = delete;

  bool enabled() const { return enabled_; }

  // The watched thread works (and needs a CPU): it starts or finishes a
  // piece of work, or goes back to work after a wait. Each call is a new
  // mark. A writer stays marked as working between writes: an application
  // thread usually goes on to its next one.
  void Working() {
    if (enabled_) Mark(kWorking);
  }

  // The watched thread is about to block (on a lock or a condition): not
  // held up for a CPU until its next mark.
  void Waiting() {
    if (enabled_) {
      wake_at_.store(0, std::memory_order_relaxed);
      Mark(0);
    }
  }

  // The watched thread is about to sleep (or yield its CPU) for micros:
  // not held up until the sleep is over. A sleeper still without a new
  // mark once its sleep should have ended is woken (or done yielding) and
  // waiting for a CPU. Waiting for it to mark its return any longer puts
  // the wait into its latency: a writer's paced wait of 10-25 us gives the
  // flush its CPU, and the flush looks again only one block later.
  void Sleeping(uint64_t micros) {
    if (enabled_) {
      wake_at_.store(now_() + micros, std::memory_order_relaxed);
      Mark(0);
    }
  }

  // Observers' yields to this thread, summed (Observer::CountYield).
  uint64_t yields() const { return yields_.load(std::memory_order_relaxed); }

  // An observer answers "held up" at most this many times per mark.
  static constexpr int kMaxAnswers = 32;

  // One job's view of a watch. Not thread-safe: one per job.
  class Observer {
   public:
    // watch is borrowed; null means never held up.
    explicit Observer(YieldWatch* watch = nullptr) : watch_(watch) {}

    // True if the watched thread was working, last marked on the caller's
    // CPU, at the last call and at this one, without a new mark in
    // between: held up behind the caller for at least the time between
    // the calls. (Working on another CPU looks the same, hence the CPU
    // test.) Also true if it went to sleep on the caller's CPU, marked
    // nothing since, and its sleep has ended, from the first look that
    // finds it so: woken, it waits for this CPU (a sleeper wakes on the
    // CPU it slept on unless another is idle, and then it marks its return
    // within microseconds: a yield to it meanwhile costs a system call).
    // At most kMaxAnswers times per mark: a thread still held up after
    // that many yields is not waiting for this CPU (it may be blocked on a
    // lock, or an application thread gone quiet after its last write).
    bool HeldUp();

    // Counts a yield made because HeldUp said so.
    void CountYield() {
      watch_->yields_.fetch_add(1, std::memory_order_relaxed);
    }

   private:
    YieldWatch* const watch_;
    uint64_t last_ = 0;
    int answers_ = 0;
  };

  // For tests: where the marks and the observers read the CPU number from
  // (-1: unknown, which matches any CPU), instead of sched_getcpu. Set
  // before any mark; cpu must be thread-safe.
  void TEST_SetCpu(int (*cpu)()) { cpu_ = cpu; }
  // For tests: the clock Sleeping and the observers read, in microseconds
  // (instead of the steady clock). Set before any mark; must be
  // thread-safe.
  void TEST_SetClock(uint64_t (*now)()) { now_ = now; }

 private:
  // word_ = epoch << kEpochShift | cpu << 1 | working. Every mark is a new
  // epoch, so two equal reads mean no mark in between.
  static constexpr uint64_t kWorking = 1;
  static constexpr int kEpochShift = 12;
  static constexpr uint64_t kNoCpu = (uint64_t{1} << (kEpochShift - 1)) - 1;

  static int RealCpu();
  static uint64_t RealNowMicros();
  uint64_t Cpu() const;
  void Mark(uint64_t working);

  const bool enabled_;
  int (*cpu_)() = &RealCpu;
  uint64_t (*now_)() = &RealNowMicros;
  std::atomic<uint64_t> word_{0};
  // When the sleep announced by the last mark ends (now_ micros); 0 when
  // the last mark was not a sleep. Stored before the mark it belongs to:
  // an observer that reads it with a later mark's word at worst yields
  // once for nothing, or once too few.
  std::atomic<uint64_t> wake_at_{0};
  std::atomic<uint64_t> yields_{0};
};

// The watches a job's table files use (all borrowed; null: none): they
// mark own as working at each append (the job's thread works), and before
// an append yield their CPU to the writer, or else the flush, if its watch
// shows it held up. A flush yields to the writer; a compaction to both.
struct YieldWatches {
  YieldWatch* own = nullptr;
  YieldWatch* writer = nullptr;
  YieldWatch* flush = nullptr;
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_YIELD_WATCH_H_

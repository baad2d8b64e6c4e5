// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/yield_watch.h"

#if defined(__linux__)
#include <sched.h>
#endif

#include "cascadedb/env.h"

namespace cascadedb {

int YieldWatch::RealCpu() {
#if defined(__linux__)
  return sched_getcpu();  // a read of the rseq area with a recent glibc
#else
  return -1;
#endif
}

uint64_t YieldWatch::RealNowMicros() { return Env::Default()->NowMicros(); }

uint64_t YieldWatch::Cpu() const {
  const int cpu = cpu_();
  if (cpu < 0 || static_cast<uint64_t>(cpu) >= kNoCpu) return kNoCpu;
  return static_cast<uint64_t>(cpu);
}

void YieldWatch::Mark(uint64_t working) {
  const uint64_t epoch =
      (word_.load(std::memory_order_relaxed) >> kEpochShift) + 1;
  word_.store(epoch << kEpochShift | Cpu() << 1 | working,
              std::memory_order_relaxed);
}

bool YieldWatch::Observer::HeldUp() {
  if (watch_ == nullptr) return false;
  const uint64_t word = watch_->word_.load(std::memory_order_relaxed);
  if (word != last_) {
    last_ = word;
    answers_ = 0;
    // A working thread is held up only once it has gone a whole interval
    // between two looks without a mark; a sleep's end is known, so a
    // sleeper already past it is held up at the first look. (A writer's
    // paced wait of 10-25 us, seen first by a flush one block after it
    // began, would otherwise last until the flush's next look.)
    if ((word & kWorking) != 0) return false;
  }
  if (answers_ >= kMaxAnswers) return false;
  if ((word & kWorking) == 0) {
    const uint64_t wake_at = watch_->wake_at_.load(std::memory_order_relaxed);
    if (wake_at == 0 || watch_->now_() < wake_at) {
      return false;
    }
  }
  const uint64_t cpu = (word >> 1) & kNoCpu;
  if (cpu != kNoCpu && cpu != watch_->Cpu()) return false;
  answers_++;
  return true;
}

}  // namespace cascadedb

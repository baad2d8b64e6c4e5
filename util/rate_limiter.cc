// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// GenericRateLimiter: the token-bucket RateLimiter behind
// NewGenericRateLimiter() (include/cascadedb/rate_limiter.h).
//
// Requests that cannot be granted at once wait in one FIFO queue per
// priority. One waiter at a time is the "leader": it sleeps (mutex released)
// until the next refill time, refills the bucket and grants queued requests
// in priority order, signalling each granted waiter on its own condition
// variable. When the leader itself is granted it hands the role to the first
// waiter still queued. So at most one thread sleeps on the clock and no
// waiter polls.
//
// Thread safety: thread-safe; all state is guarded by mu_.

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <deque>
#include <limits>

#include "cascadedb/env.h"
#include "cascadedb/rate_limiter.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace cascadedb {

namespace {

constexpr int kLowIdx = static_cast<int>(RateLimiter::IOPriority::kLow);
constexpr int kHighIdx = static_cast<int>(RateLimiter::IOPriority::kHigh);

// rate * period_us / 1e6 without overflowing for any positive int64 rate and
// any period below ~9e12 us; at least 1 so that every request progresses.
int64_t BurstBytes(int64_t rate, int64_t period_us) {
  constexpr int64_t kMicrosPerSecond = 1000 * 1000;
  const int64_t whole = rate / kMicrosPerSecond;
  const int64_t rest = rate % kMicrosPerSecond;
  int64_t burst;
  if (whole > 0 && period_us > std::numeric_limits<int64_t>::max() / whole) {
    burst = std::numeric_limits<int64_t>::max() / 2;
  } else {
    burst = whole * period_us + rest * period_us / kMicrosPerSecond;
  }
  return std::max<int64_t>(burst, 1);
}

class GenericRateLimiter final : public RateLimiter {
 public:
  GenericRateLimiter(int64_t rate, int64_t refill_period_us, int32_t fairness,
                     Env* env)
      : env_(env),
        refill_period_us_(refill_period_us),
        fairness_(fairness),
        rate_(rate),
        burst_bytes_(BurstBytes(rate, refill_period_us)),
        next_refill_us_(env->NowMicros()) {}

  ~GenericRateLimiter() override {
    MutexLock lock(&mu_);
    assert(queue_[kLowIdx].empty() && queue_[kHighIdx].empty());
    assert(!leader_active_);
  }

  void Request(int64_t bytes, IOPriority pri) override EXCLUDES(mu_);

  void SetBytesPerSecond(int64_t bytes_per_second) override EXCLUDES(mu_) {
    if (bytes_per_second <= 0) return;
    MutexLock lock(&mu_);
    rate_ = bytes_per_second;
    burst_bytes_ = BurstBytes(bytes_per_second, refill_period_us_);
  }

  int64_t GetBytesPerSecond() const override EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return rate_;
  }

  int64_t GetTotalBytesThrough(IOPriority pri) const override EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return total_bytes_through_[static_cast<int>(pri)];
  }

  int64_t GetTotalRequests(IOPriority pri) const override EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return total_requests_[static_cast<int>(pri)];
  }

  int64_t GetSingleBurstBytes() const override EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return burst_bytes_;
  }

 private:
  // One queued piece of a Request (at most one burst).
  struct Waiter {
    Waiter(int64_t b, int p, Mutex* mu) : bytes(b), pri(p), cv(mu) {}
    int64_t bytes;  // still to be granted
    const int pri;
    bool granted = false;
    CondVar cv;  // predicate: granted, or no leader while still queued
  };

  // Grants bytes (at most one burst) to the caller, waiting as needed.
  void RequestPiece(int64_t bytes, int pri) REQUIRES(mu_);

  // Adds one burst to the bucket and grants waiters in priority order.
  void RefillAndGrant(uint64_t now) REQUIRES(mu_);

  // Wakes the first queued waiter so it takes the leader role.
  void SignalNextLeader() REQUIRES(mu_);

  // ---- const after construction
  Env* const env_;
  const int64_t refill_period_us_;
  const int32_t fairness_;

  // ---- guarded by mu_
  mutable Mutex mu_;
  int64_t rate_ GUARDED_BY(mu_);
  int64_t burst_bytes_ GUARDED_BY(mu_);
  int64_t available_bytes_ GUARDED_BY(mu_) = 0;
  uint64_t next_refill_us_ GUARDED_BY(mu_);
  // True while one waiter sleeps until the next refill on behalf of all.
  bool leader_active_ GUARDED_BY(mu_) = false;
  // Refills that found both priorities waiting; every fairness_-th one
  // serves kLow first.
  uint64_t contested_refills_ GUARDED_BY(mu_) = 0;
  std::deque<Waiter*> queue_[kNumPriorities] GUARDED_BY(mu_);
  int64_t total_bytes_through_[kNumPriorities] GUARDED_BY(mu_) = {0, 0};
  int64_t total_requests_[kNumPriorities] GUARDED_BY(mu_) = {0, 0};
};

void GenericRateLimiter::Request(int64_t bytes, IOPriority pri) {
  const int p = static_cast<int>(pri);
  if (p < 0 || p >= kNumPriorities) return;
  mu_.Lock();
  ++total_requests_[p];
  while (bytes > 0) {
    // Re-read the burst for every piece: SetBytesPerSecond may change it.
    const int64_t piece = std::min(bytes, burst_bytes_);
    RequestPiece(piece, p);
    bytes -= piece;
  }
  mu_.Unlock();
}

void GenericRateLimiter::RequestPiece(int64_t bytes, int pri) {
  mu_.AssertHeld();
  // Fast path: nobody is queued, so there is no one to overtake.
  if (queue_[kLowIdx].empty() && queue_[kHighIdx].empty()) {
    const uint64_t now = env_->NowMicros();
    if (now >= next_refill_us_) RefillAndGrant(now);
    if (available_bytes_ >= bytes) {
      available_bytes_ -= bytes;
      total_bytes_through_[pri] += bytes;
      return;
    }
  }

  Waiter w(bytes, pri, &mu_);
  queue_[pri].push_back(&w);
  while (!w.granted) {
    if (leader_active_) {
      w.cv.Wait();
      continue;
    }
    // Lead: sleep until the refill without the mutex, so others can queue.
    leader_active_ = true;
    uint64_t now = env_->NowMicros();
    if (now < next_refill_us_) {
      const uint64_t wait = next_refill_us_ - now;
      const int sleep_us = static_cast<int>(
          std::min<uint64_t>(wait, std::numeric_limits<int>::max()));
      mu_.Unlock();
      env_->SleepForMicroseconds(sleep_us);
      mu_.Lock();
      now = env_->NowMicros();
    }
    leader_active_ = false;
    if (now >= next_refill_us_) RefillAndGrant(now);
    // If still not granted, loop and lead again. If granted, someone else
    // must take over sleeping for those still queued.
    if (w.granted) SignalNextLeader();
  }
}

void GenericRateLimiter::RefillAndGrant(uint64_t now) {
  mu_.AssertHeld();
  next_refill_us_ = now + static_cast<uint64_t>(refill_period_us_);
  // Unused bytes carry over, but never more than one extra burst: an idle
  // limiter must not allow an unbounded burst afterwards.
  if (available_bytes_ < burst_bytes_) available_bytes_ += burst_bytes_;

  bool low_first = false;
  if (!queue_[kLowIdx].empty() && !queue_[kHighIdx].empty()) {
    ++contested_refills_;
    low_first = (contested_refills_ % static_cast<uint64_t>(fairness_)) == 0;
  }
  const int order[2] = {low_first ? kLowIdx : kHighIdx,
                        low_first ? kHighIdx : kLowIdx};
  for (int q : order) {
    std::deque<Waiter*>& queue = queue_[q];
    while (!queue.empty() && available_bytes_ > 0) {
      Waiter* w = queue.front();
      if (available_bytes_ < w->bytes) {
        // Grant a part: after SetBytesPerSecond lowered the burst, a queued
        // piece may exceed a whole refill and would otherwise never fit.
        w->bytes -= available_bytes_;
        total_bytes_through_[q] += available_bytes_;
        available_bytes_ = 0;
        break;
      }
      available_bytes_ -= w->bytes;
      total_bytes_through_[q] += w->bytes;
      w->bytes = 0;
      w->granted = true;
      queue.pop_front();
      w->cv.Signal();
    }
  }
}

void GenericRateLimiter::SignalNextLeader() {
  mu_.AssertHeld();
  if (!queue_[kHighIdx].empty()) {
    queue_[kHighIdx].front()->cv.Signal();
  } else if (!queue_[kLowIdx].empty()) {
    queue_[kLowIdx].front()->cv.Signal();
  }
}

}  // namespace

RateLimiter* NewGenericRateLimiter(int64_t rate_bytes_per_sec,
                                   int64_t refill_period_us, int32_t fairness,
                                   Env* env) {
  if (rate_bytes_per_sec <= 0 || refill_period_us <= 0 || fairness <= 0) {
    return nullptr;
  }
  if (env == nullptr) env = Env::Default();
  return new GenericRateLimiter(rate_bytes_per_sec, refill_period_us, fairness,
                                env);
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// RateLimiter: caps the bytes per second that background work (flush and
// compaction output) writes to storage, so that foreground reads and writes
// keep a predictable share of the device. Set Options::rate_limiter to one
// made by NewGenericRateLimiter(); a single limiter may be shared by several
// DBs to cap their sum. Flushes and L0->L1 compactions ask with kHigh
// priority and are served first; deeper compactions ask with kLow.
//
// Thread safety: RateLimiter implementations are thread-safe.

#ifndef CASCADEDB_INCLUDE_CASCADEDB_RATE_LIMITER_H_
#define CASCADEDB_INCLUDE_CASCADEDB_RATE_LIMITER_H_

#include <cstdint>

namespace cascadedb {

class Env;

// A budget of bytes per second shared by the callers of Request(). Thread-safe.
class RateLimiter {
 public:
  // Who is asking. kHigh requests (flushes, L0 compactions: the work that
  // keeps writes from stalling) are granted before kLow ones (deeper
  // compactions) whenever both are waiting.
  enum class IOPriority { kLow = 0, kHigh = 1 };
  static constexpr int kNumPriorities = 2;

  RateLimiter() = default;
  RateLimiter(const RateLimiter&) = delete;
  RateLimiter& operator=(const RateLimiter&) = delete;
  // REQUIRES: no Request() is in progress.
  virtual ~RateLimiter() = default;

  // Blocks until bytes may be written, then returns. Requests larger than
  // GetSingleBurstBytes() are served in burst-sized pieces, so a huge request
  // neither waits forever nor grabs the whole budget at once. bytes <= 0
  // returns at once.
  virtual void Request(int64_t bytes, IOPriority pri) = 0;

  // Changes the rate; takes effect from the next refill period. Values
  // <= 0 are ignored.
  virtual void SetBytesPerSecond(int64_t bytes_per_second) = 0;
  virtual int64_t GetBytesPerSecond() const = 0;

  // Bytes granted so far to requests of priority pri (a request still
  // waiting counts only the pieces already granted).
  virtual int64_t GetTotalBytesThrough(IOPriority pri) const = 0;

  // Calls to Request() with priority pri so far, counted when they start.
  virtual int64_t GetTotalRequests(IOPriority pri) const = 0;

  // The most bytes granted in one refill period: rate * refill period.
  virtual int64_t GetSingleBurstBytes() const = 0;
};

// A token-bucket RateLimiter. Every refill_period_us the bucket receives
// rate_bytes_per_sec * refill_period_us / 1e6 bytes (the single burst; unused
// bytes carry over only up to one more burst). Waiting requests are granted
// in FIFO order within a priority, kHigh before kLow, except that when both
// priorities are waiting, every fairness-th refill serves kLow first so deep
// compactions are never starved. The caller owns the result (wrap it in a
// std::shared_ptr for Options::rate_limiter).
//
// env supplies the clock and the sleep between refills; nullptr means
// Env::Default(). It must outlive the limiter (tests pass a fake clock).
// Returns nullptr if rate_bytes_per_sec <= 0, refill_period_us <= 0 or
// fairness <= 0.
RateLimiter* NewGenericRateLimiter(int64_t rate_bytes_per_sec,
                                   int64_t refill_period_us = 100 * 1000,
                                   int32_t fairness = 10, Env* env = nullptr);

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_RATE_LIMITER_H_

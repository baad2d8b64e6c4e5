// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// CompressionQueue: data blocks waiting to be compressed, which any thread
// with time to spare may compress. A TableBuilder given a queue
// (TableOptions::compression_queue) puts each finished data block here,
// while helpers are expected, instead of compressing it at once, and
// writes it a few blocks later; a
// writer held back by a write delay or stop takes the oldest block and
// compresses it while it waits (Options::stalled_writers_compress), time it
// would otherwise spend spinning or asleep. Whatever nobody took, the
// builder compresses itself when it needs the block written. Who
// compresses a block does not change its bytes.
//
// Thread safety: thread-safe. A BlockJob belongs to the builder that
// submitted it; the queue and a helper only touch it between Submit and
// the Complete or Cancel that hands it back. A helper compresses a copy of
// the block, so taking a job back never waits for one.

#ifndef CASCADEDB_TABLE_COMPRESSION_QUEUE_H_
#define CASCADEDB_TABLE_COMPRESSION_QUEUE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>

#include "cascadedb/options.h"
#include "cascadedb/slice.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace cascadedb {

// One data block on its way to the file.
struct BlockJob {
  // Set by the builder before Submit.
  CompressionType type = kNoCompression;
  int level = 0;
  std::string raw;  // the block as BlockBuilder::Finish made it

  // Once done: the block as WriteBlock would write it, payload (compressed
  // or, where that does not save enough, raw) and trailer.
  std::string stored;

  // Changed under the queue's mutex while the job is queued or taken, by
  // its builder alone otherwise (a job it compresses itself, or a block
  // it adds done); a load that sees kDone (acquire) sees stored complete.
  enum class State { kIdle, kQueued, kTaken, kDone };
  std::atomic<State> state{State::kIdle};

  bool done() const {
    return state.load(std::memory_order_acquire) == State::kDone;
  }
};

class CompressionQueue {
 public:
  CompressionQueue();
  CompressionQueue(const CompressionQueue&) = delete;
  CompressionQueue& operator=(const CompressionQueue&) = delete;
  // REQUIRES: no job is queued and no HelpOne is running.
  ~CompressionQueue();

  // Makes job->stored from job->raw, here and now.
  static void Compress(BlockJob* job);

  // Queues job (its type, level and raw set) behind the jobs already
  // queued. REQUIRES: job is idle or done.
  void Submit(BlockJob* job) EXCLUDES(mu_);

  // Makes job done on the calling thread, never waiting: if nobody has
  // taken it, it is compressed here; if a helper has, it is taken back
  // and compressed here too, and the helper's result is dropped (so a
  // helper that lost its CPU holds up no builder). A done job is left as
  // it is. REQUIRES: job was submitted.
  void Complete(BlockJob* job) EXCLUDES(mu_);

  // Takes job back unfinished, never waiting: off the queue, or from the
  // helper compressing it. It is idle after, and the queue and helpers
  // hold no reference to it. REQUIRES: job was submitted.
  void Cancel(BlockJob* job) EXCLUDES(mu_);

  // Compresses the oldest queued job if it is expected to take at most
  // budget_nanos (from the rate of the compressions so far). Returns
  // whether it took one (its result is dropped if the job's builder took
  // it back meanwhile).
  bool HelpOne(uint64_t budget_nanos) EXCLUDES(mu_);

  // Whether any thread is likely to help: builders queue their blocks only
  // while it is set, and otherwise compress them at once (no copy, no
  // delay). The DB sets it while writes are delayed or stopped. Default:
  // false.
  void SetHelpersExpected(bool expected) {
    helpers_expected_.store(expected, std::memory_order_relaxed);
  }
  bool helpers_expected() const {
    return helpers_expected_.load(std::memory_order_relaxed);
  }

  // Whether a job is queued (a hint: another thread may take it first).
  bool HasWork() const { return queued_.load(std::memory_order_relaxed) != 0; }

  // Jobs HelpOne has compressed since the queue was made (a job taken
  // back by its builder meanwhile included: it was compressed twice).
  uint64_t helped_jobs() const {
    return helped_jobs_.load(std::memory_order_relaxed);
  }

  // The expected time to compress raw_bytes, in nanoseconds.
  uint64_t EstimateNanos(size_t raw_bytes) const;

  // Tests only: runs on a helper after it has taken a job and before it
  // compresses it (a helper that lost its CPU there). Set before any use.
  void TEST_SetTakenHook(std::function<void()> hook) {
    taken_hook_ = std::move(hook);
  }

 private:
  // A job a helper is compressing (a copy of it), on the helper's stack.
  struct Taken {
    BlockJob* job;  // null once its builder took it back
    Taken* next;
  };

  // Compresses job, timing it into the rate EstimateNanos uses.
  void CompressTimed(BlockJob* job);
  // Removes job from queue_. REQUIRES: job is queued.
  void EraseLocked(BlockJob* job) REQUIRES(mu_);
  // Tells the helper compressing job that its builder took it back.
  void ReclaimLocked(BlockJob* job) REQUIRES(mu_);
  // Takes job back from the queue or the helper compressing it, leaving
  // it idle; false (and job unchanged) if it is done.
  bool TakeBackLocked(BlockJob* job) REQUIRES(mu_);

  Mutex mu_;
  std::deque<BlockJob*> queue_ GUARDED_BY(mu_);
  Taken* taken_ GUARDED_BY(mu_) = nullptr;  // jobs helpers are compressing
  std::atomic<size_t> queued_{0};           // queue_.size(), for HasWork
  // Compression time per byte, in picoseconds: an average that follows
  // the recent jobs.
  std::atomic<uint64_t> picos_per_byte_;
  std::atomic<uint64_t> helped_jobs_{0};
  std::atomic<bool> helpers_expected_{false};
  std::function<void()> taken_hook_;
};

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_COMPRESSION_QUEUE_H_

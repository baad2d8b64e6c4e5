// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/compression_queue.h"

#include <algorithm>
#include <cassert>

#include "cascadedb/env.h"
#include "table/format.h"

namespace cascadedb {

namespace {

// The rate assumed before the first compression is timed: 2 ns a byte
// (500 MB/s, snappy on a slow core), so an unmeasured 4 KiB block is
// expected to take about 8 us.
constexpr uint64_t kInitialPicosPerByte = 2000;

}  // namespace

CompressionQueue::CompressionQueue() : picos_per_byte_(kInitialPicosPerByte) {}

CompressionQueue::~CompressionQueue() {
  MutexLock l(&mu_);
  assert(queue_.empty());
  assert(taken_ == nullptr);
}

void CompressionQueue::Compress(BlockJob* job) {
  // Compressed straight into stored; raw is copied there only when
  // compressing does not save enough.
  Slice payload;
  const CompressionType type_used = ChooseBlockPayload(
      job->raw, job->type, job->level, &job->stored, &payload);
  char trailer[kBlockTrailerSize];
  EncodeBlockTrailer(payload, type_used, trailer);
  if (type_used == kNoCompression) {
    job->stored.assign(job->raw.data(), job->raw.size());
  }
  job->stored.append(trailer, kBlockTrailerSize);
}

void CompressionQueue::CompressTimed(BlockJob* job) {
  const uint64_t start = Env::Default()->NowNanos();
  Compress(job);
  const uint64_t nanos = Env::Default()->NowNanos() - start;
  if (job->raw.empty()) return;
  const uint64_t sample = nanos * 1000 / job->raw.size();
  // An average over about the last eight jobs: a preempted one moves the
  // estimate, but not for long.
  const uint64_t old = picos_per_byte_.load(std::memory_order_relaxed);
  picos_per_byte_.store(old - old / 8 + sample / 8, std::memory_order_relaxed);
}

uint64_t CompressionQueue::EstimateNanos(size_t raw_bytes) const {
  return picos_per_byte_.load(std::memory_order_relaxed) * raw_bytes / 1000;
}

void CompressionQueue::Submit(BlockJob* job) {
  MutexLock l(&mu_);
  assert(job->state.load() == BlockJob::State::kIdle ||
         job->state.load() == BlockJob::State::kDone);
  job->state.store(BlockJob::State::kQueued, std::memory_order_relaxed);
  queue_.push_back(job);
  queued_.store(queue_.size(), std::memory_order_relaxed);
}

void CompressionQueue::EraseLocked(BlockJob* job) {
  assert(job->state.load() == BlockJob::State::kQueued);
  // A builder's jobs are near the front: helpers take from there.
  auto it = std::find(queue_.begin(), queue_.end(), job);
  assert(it != queue_.end());
  queue_.erase(it);
  queued_.store(queue_.size(), std::memory_order_relaxed);
}

void CompressionQueue::ReclaimLocked(BlockJob* job) {
  for (Taken* t = taken_; t != nullptr; t = t->next) {
    if (t->job == job) {
      t->job = nullptr;
      return;
    }
  }
  assert(false);  // a taken job is in taken_
}

bool CompressionQueue::TakeBackLocked(BlockJob* job) {
  switch (job->state.load(std::memory_order_relaxed)) {
    case BlockJob::State::kDone:
      return false;
    case BlockJob::State::kQueued:
      EraseLocked(job);
      break;
    case BlockJob::State::kTaken:
      ReclaimLocked(job);
      break;
    case BlockJob::State::kIdle:
      break;
  }
  job->state.store(BlockJob::State::kIdle, std::memory_order_relaxed);
  return true;
}

void CompressionQueue::Complete(BlockJob* job) {
  {
    MutexLock l(&mu_);
    if (!TakeBackLocked(job)) return;
  }
  // No helper refers to the job any more: it is this thread's alone.
  CompressTimed(job);
  job->state.store(BlockJob::State::kDone, std::memory_order_release);
}

void CompressionQueue::Cancel(BlockJob* job) {
  MutexLock l(&mu_);
  TakeBackLocked(job);
  job->state.store(BlockJob::State::kIdle, std::memory_order_relaxed);
}

bool CompressionQueue::HelpOne(uint64_t budget_nanos) {
  if (!HasWork()) return false;
  // The helper compresses its own copy, in buffers kept from one job to
  // the next; the job's builder may take the job back meanwhile.
  thread_local BlockJob copy;
  Taken taken;
  {
    MutexLock l(&mu_);
    if (queue_.empty()) return false;
    BlockJob* job = queue_.front();
    if (EstimateNanos(job->raw.size()) > budget_nanos) return false;
    queue_.pop_front();
    queued_.store(queue_.size(), std::memory_order_relaxed);
    job->state.store(BlockJob::State::kTaken, std::memory_order_relaxed);
    copy.type = job->type;
    copy.level = job->level;
    copy.raw.assign(job->raw.data(), job->raw.size());
    taken.job = job;
    taken.next = taken_;
    taken_ = &taken;
  }
  if (taken_hook_) taken_hook_();
  CompressTimed(&copy);
  MutexLock l(&mu_);
  Taken** link = &taken_;
  while (*link != &taken) link = &(*link)->next;
  *link = taken.next;
  if (taken.job != nullptr) {
    taken.job->stored.swap(copy.stored);
    taken.job->state.store(BlockJob::State::kDone, std::memory_order_release);
  }
  helped_jobs_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace cascadedb

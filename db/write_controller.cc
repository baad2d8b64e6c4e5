// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// WriteController: stall decisions, the adaptive delayed-write token bucket
// and the stall accounting (see write_controller.h and docs/stalls.md).
//
// Thread safety: thread-compatible; callers hold the DB mutex.

#include "db/write_controller.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "cascadedb/env.h"

namespace cascadedb {

namespace {

constexpr int kNumCauses = static_cast<int>(StallCause::kNumCauses);
constexpr double kMicrosPerSecond = 1e6;

uint64_t ElapsedMicros(uint64_t from, uint64_t to) {
  return to > from ? to - from : 0;
}

double Millis(uint64_t micros) { return static_cast<double>(micros) / 1e3; }

// Causes that end when compaction catches up (not when a flush does).
bool IsCompactionCause(StallCause c) {
  return c == StallCause::kL0Slowdown || c == StallCause::kL0Stop ||
         c == StallCause::kPendingCompactionSlowdown ||
         c == StallCause::kPendingCompactionStop;
}

}  // namespace

const char* StallCauseName(StallCause c) {
  switch (c) {
    case StallCause::kNone:
      return "none";
    case StallCause::kMemtableLimit:
      return "memtable_limit";
    case StallCause::kL0Slowdown:
      return "l0_slowdown";
    case StallCause::kL0Stop:
      return "l0_stop";
    case StallCause::kPendingCompactionSlowdown:
      return "pending_compaction_slowdown";
    case StallCause::kPendingCompactionStop:
      return "pending_compaction_stop";
    case StallCause::kNumCauses:
      break;
  }
  return "unknown";
}

const char* WriteStateName(WriteState s) {
  switch (s) {
    case WriteState::kNormal:
      return "normal";
    case WriteState::kDelayed:
      return "delayed";
    case WriteState::kStopped:
      return "stopped";
  }
  return "unknown";
}

WriteController::WriteController(const Options& options, Env* env)
    : env_(env),
      max_write_buffer_number_(options.max_write_buffer_number),
      l0_slowdown_trigger_(options.level0_slowdown_writes_trigger),
      l0_stop_trigger_(options.level0_stop_writes_trigger),
      soft_pending_limit_(options.soft_pending_compaction_bytes_limit),
      hard_pending_limit_(options.hard_pending_compaction_bytes_limit),
      max_rate_(std::max<uint64_t>(options.delayed_write_rate, 1)),
      min_rate_(std::min(kMinDelayedWriteRate, max_rate_)),
      delayed_rate_(max_rate_) {}

void WriteController::Evaluate(const StallInputs& in, WriteState* state,
                               StallCause* cause, bool* paced) const {
  // Non-positive triggers (rejected by ValidateOptions) disable their rule
  // rather than stopping writes forever.
  const int mwbn = max_write_buffer_number_;
  *paced = false;
  if (mwbn > 0 && in.num_memtables >= mwbn) {
    *state = WriteState::kStopped;
    *cause = StallCause::kMemtableLimit;
  } else if (l0_stop_trigger_ > 0 && in.l0_files >= l0_stop_trigger_) {
    *state = WriteState::kStopped;
    *cause = StallCause::kL0Stop;
  } else if (hard_pending_limit_ > 0 &&
             in.pending_compaction_bytes >= hard_pending_limit_) {
    *state = WriteState::kStopped;
    *cause = StallCause::kPendingCompactionStop;
  } else if (mwbn > 3 && in.num_memtables >= mwbn - 1) {
    // With three or fewer memtables, one below the limit is the normal
    // "one flushing, one filling" situation, not a sign of trouble.
    *state = WriteState::kDelayed;
    *cause = StallCause::kMemtableLimit;
  } else if (l0_slowdown_trigger_ > 0 && in.l0_files >= l0_slowdown_trigger_) {
    *state = WriteState::kDelayed;
    *cause = StallCause::kL0Slowdown;
  } else if (soft_pending_limit_ > 0 &&
             in.pending_compaction_bytes >= soft_pending_limit_) {
    *state = WriteState::kDelayed;
    *cause = StallCause::kPendingCompactionSlowdown;
  } else if (in.last_memtable_flushing) {
    // Last: a compaction-driven delay is the tighter limit, and its rate
    // must not be raised to the flush's.
    *state = WriteState::kDelayed;
    *cause = StallCause::kMemtableLimit;
    *paced = true;
  } else {
    *state = WriteState::kNormal;
    *cause = StallCause::kNone;
  }
}

uint64_t WriteController::Metric(StallCause cause, const StallInputs& in) {
  switch (cause) {
    case StallCause::kMemtableLimit:
      return static_cast<uint64_t>(std::max(in.num_memtables, 0));
    case StallCause::kL0Slowdown:
    case StallCause::kL0Stop:
      return static_cast<uint64_t>(std::max(in.l0_files, 0));
    case StallCause::kPendingCompactionSlowdown:
    case StallCause::kPendingCompactionStop:
      return in.pending_compaction_bytes;
    case StallCause::kNone:
    case StallCause::kNumCauses:
      break;
  }
  return 0;
}

void WriteController::SetRate(uint64_t rate) {
  rate = std::min(std::max(rate, min_rate_), max_rate_);
  delayed_rate_.store(rate, std::memory_order_relaxed);
}

bool WriteController::Update(const StallInputs& in) {
  const uint64_t now = env_->NowMicros();
  WriteState new_state;
  StallCause new_cause;
  bool new_paced;
  Evaluate(in, &new_state, &new_cause, &new_paced);
  const WriteState old_state = state();
  const StallCause old_cause = cause();
  const bool old_paced = paced_;
  const uint64_t rate = delayed_write_rate();
  // The adapted rate's rules see a paced delay as NORMAL: its pace comes
  // from the flush, and how it went says nothing about the adapted rate.
  const WriteState old_rated = old_paced ? WriteState::kNormal : old_state;
  const WriteState new_rated = new_paced ? WriteState::kNormal : new_state;

  if (old_rated == WriteState::kNormal && new_rated != WriteState::kNormal) {
    // A stall starts. Restart at the configured rate unless the previous
    // stall ended recently: then the adapted rate is the better guess.
    if (!stall_ended_ ||
        ElapsedMicros(last_stall_end_micros_, now) >= kRateMemoryMicros) {
      SetRate(max_rate_);
    }
  }
  if (old_rated == WriteState::kDelayed && new_rated == WriteState::kStopped) {
    stop_followed_delay_ = true;
  }
  if (new_rated == WriteState::kDelayed) {
    if (old_rated == WriteState::kStopped) {
      // If the stop came out of a delay, delayed writes outran the
      // background work all the way to a stop: their rate was too high. A
      // stop reached straight from NORMAL (a memtable filling while the
      // previous one still flushes) says nothing about the rate.
      if (stop_followed_delay_) {
        SetRate(static_cast<uint64_t>(
            static_cast<double>(delayed_write_rate()) * kSlowdownRatio));
      }
      stop_followed_delay_ = false;
    } else if (old_rated == WriteState::kDelayed) {
      // Compare the figure that drives the current cause with its value at
      // the previous Update: growing debt lowers the rate, shrinking debt
      // raises it.
      const uint64_t before = Metric(new_cause, last_inputs_);
      const uint64_t after = Metric(new_cause, in);
      if (after > before) {
        SetRate(
            static_cast<uint64_t>(static_cast<double>(rate) * kSlowdownRatio));
      } else if (after < before) {
        SetRate(
            static_cast<uint64_t>(static_cast<double>(rate) * kSpeedupRatio));
      }
    }
  }
  if (new_state == WriteState::kDelayed &&
      (old_state != WriteState::kDelayed || old_paced != new_paced)) {
    // A fresh bucket: no credit or debt carries over from an old delay, nor
    // between a paced delay and an adapted one.
    bucket_started_ = false;
    credit_bytes_ = 0;
  }

  if (new_cause != old_cause) {
    if (IsCompactionCause(old_cause) && !IsCompactionCause(new_cause)) {
      compaction_stall_ended_ = true;
      last_compaction_stall_end_micros_ = now;
    }
    if (old_cause != StallCause::kNone) {
      CauseStats& s = stats_[static_cast<int>(old_cause)];
      const uint64_t d = ElapsedMicros(episode_start_micros_, now);
      s.episode_micros += d;
      s.max_episode_micros = std::max(s.max_episode_micros, d);
    }
    if (new_cause != StallCause::kNone) {
      ++stats_[static_cast<int>(new_cause)].episodes;
      episode_start_micros_ = now;
    }
  }
  if (old_rated != WriteState::kNormal && new_rated == WriteState::kNormal) {
    stall_ended_ = true;
    last_stall_end_micros_ = now;
    stop_followed_delay_ = false;
    if (old_rated == WriteState::kDelayed) {
      // The delay let the background work clear the backlog, so its rate
      // was low enough; the next delay, if it comes soon, starts a step
      // higher. Without this step every episode could only lower the
      // remembered rate, and a run of short episodes would drive it to the
      // floor while the background work keeps up with far more.
      SetRate(static_cast<uint64_t>(static_cast<double>(rate) * kSpeedupRatio));
    }
  }

  last_inputs_ = in;
  paced_ = new_paced;
  state_.store(new_state, std::memory_order_relaxed);
  cause_.store(new_cause, std::memory_order_relaxed);
  return new_state != old_state || new_cause != old_cause;
}

bool WriteController::CompactionBoundRecently(uint64_t now_micros) const {
  if (IsCompactionCause(cause())) return true;
  return compaction_stall_ended_ &&
         ElapsedMicros(last_compaction_stall_end_micros_, now_micros) <
             kRateMemoryMicros;
}

uint64_t WriteController::FlushPaceRate(const FlushProgress& flush) {
  if (!flush.running) return 0;
  // Micros until the flush frees a memtable: what is left of its reading
  // (none once done), then its tail. With no earlier flush to go by (the
  // first since open), neither its speed nor its tail is known: the tail
  // is taken as a share of its reading.
  const bool first = flush.expected_read_micros == 0;
  auto tail = [&](double reading_micros) {
    return first ? kFirstFlushTailShare * reading_micros
                 : static_cast<double>(flush.tail_micros);
  };
  const double elapsed = static_cast<double>(flush.elapsed_micros);
  double remaining;
  if (flush.read_done) {
    const double since = static_cast<double>(flush.since_read_micros);
    remaining = tail(std::max(elapsed - since, 0.0)) - since;
  } else {
    const double done = flush.done_fraction;
    if (done >= kMinFlushPaceFraction || (first && done > 0)) {
      // For the first flush a little progress is still better than none:
      // unpaced, a writer filled a whole 64 MiB memtable while a
      // slow-starting first flush read 2%.
      const double reading = elapsed / std::min(done, 1.0);
      remaining = reading - elapsed + tail(reading);
    } else if (!first) {
      remaining =
          std::max(static_cast<double>(flush.expected_read_micros) - elapsed,
                   0.0) +
          static_cast<double>(flush.tail_micros);
    } else {
      return 0;
    }
  }
  remaining =
      std::max(remaining, static_cast<double>(kMinFlushRemainingMicros));
  const double rate = static_cast<double>(flush.room_bytes) * kMicrosPerSecond /
                      (remaining * kFlushPaceMargin);
  return static_cast<uint64_t>(std::min(std::max(rate, 1.0), 1e18));
}

bool WriteController::ConsumeCredit(uint64_t bytes) {
  if (state() != WriteState::kDelayed || !bucket_started_) return false;
  const double b = static_cast<double>(bytes);
  if (credit_bytes_ < b) return false;
  credit_bytes_ -= b;
  return true;
}

uint64_t WriteController::GetDelay(uint64_t now_micros, uint64_t bytes,
                                   const FlushProgress& flush) {
  if (state() != WriteState::kDelayed) return 0;
  double rate = static_cast<double>(delayed_write_rate());
  if (paced_) {
    const uint64_t pace = FlushPaceRate(flush);
    if (pace == 0) return 0;  // the bucket is left as it is
    rate = static_cast<double>(pace);
  }
  if (!bucket_started_) {
    bucket_started_ = true;
    credit_bytes_ = 0;
    last_refill_micros_ = now_micros;
  } else if (now_micros > last_refill_micros_) {
    // Credit is a double so that frequent small calls at a low rate still
    // accrue their fractions of a byte.
    const double accrued =
        static_cast<double>(now_micros - last_refill_micros_) * rate /
        kMicrosPerSecond;
    const double max_credit =
        rate * static_cast<double>(kMaxCreditMicros) / kMicrosPerSecond;
    credit_bytes_ = std::min(credit_bytes_ + accrued, max_credit);
    last_refill_micros_ = now_micros;
  }
  credit_bytes_ -= static_cast<double>(bytes);
  if (credit_bytes_ >= 0) return 0;
  // The debt is repaid by time passing: the next call accrues credit for
  // the time this writer slept. Writers arriving meanwhile see the debt
  // still outstanding and sleep past it, so all of them together write at
  // the rate.
  double delay = -credit_bytes_ * kMicrosPerSecond / rate;
  if (delay < static_cast<double>(kMinDelayMicros)) return 0;
  if (paced_) delay = std::min(delay, static_cast<double>(kMaxPaceDelayMicros));
  return static_cast<uint64_t>(delay + 0.5);
}

void WriteController::RecordStall(StallCause cause, bool stopped,
                                  uint64_t micros) {
  if (stopped) {
    ++writes_stopped_;
  } else {
    ++writes_delayed_;
  }
  total_stall_micros_ += micros;
  const int c = static_cast<int>(cause);
  if (c <= 0 || c >= kNumCauses) return;
  CauseStats& s = stats_[c];
  s.stall_micros += micros;
  s.max_stall_micros = std::max(s.max_stall_micros, micros);
}

WriteController::CauseStats WriteController::GetCauseStats(
    StallCause c, uint64_t now_micros) const {
  const int i = static_cast<int>(c);
  if (i <= 0 || i >= kNumCauses) return CauseStats();
  CauseStats s = stats_[i];
  if (cause() == c) {
    const uint64_t d = ElapsedMicros(episode_start_micros_, now_micros);
    s.episode_micros += d;
    s.max_episode_micros = std::max(s.max_episode_micros, d);
  }
  return s;
}

WriteController::CauseStats WriteController::GetCauseStats(StallCause c) const {
  return GetCauseStats(c, env_->NowMicros());
}

std::string WriteController::StallStatsTable(uint64_t now_micros) const {
  std::string out;
  char buf[256];
  const uint64_t rate = delayed_write_rate();
  std::snprintf(buf, sizeof(buf),
                "Write stalls: state=%s cause=%s delayed-write-rate=%" PRIu64
                " B/s (%.2f MiB/s)\n",
                WriteStateName(state()), StallCauseName(cause()), rate,
                static_cast<double>(rate) / (1024.0 * 1024.0));
  out += buf;
  std::snprintf(buf, sizeof(buf), "%-28s %9s %12s %11s %12s %11s\n", "cause",
                "episodes", "stalled-ms", "longest-ms", "episode-ms",
                "longest-ep");
  out += buf;
  CauseStats total;
  for (int i = 1; i < kNumCauses; ++i) {
    const CauseStats s = GetCauseStats(static_cast<StallCause>(i), now_micros);
    std::snprintf(buf, sizeof(buf),
                  "%-28s %9" PRIu64 " %12.1f %11.1f %12.1f %11.1f\n",
                  StallCauseName(static_cast<StallCause>(i)), s.episodes,
                  Millis(s.stall_micros), Millis(s.max_stall_micros),
                  Millis(s.episode_micros), Millis(s.max_episode_micros));
    out += buf;
    total.episodes += s.episodes;
    total.stall_micros += s.stall_micros;
    total.max_stall_micros =
        std::max(total.max_stall_micros, s.max_stall_micros);
    total.episode_micros += s.episode_micros;
    total.max_episode_micros =
        std::max(total.max_episode_micros, s.max_episode_micros);
  }
  std::snprintf(buf, sizeof(buf),
                "%-28s %9" PRIu64 " %12.1f %11.1f %12.1f %11.1f\n", "total",
                total.episodes, Millis(total_stall_micros_),
                Millis(total.max_stall_micros), Millis(total.episode_micros),
                Millis(total.max_episode_micros));
  out += buf;
  std::snprintf(buf, sizeof(buf),
                "writes delayed: %" PRIu64 ", writes stopped: %" PRIu64 "\n",
                writes_delayed_, writes_stopped_);
  out += buf;
  return out;
}

void WriteController::GetStallStatsMap(
    uint64_t now_micros, std::map<std::string, std::string>* m) const {
  uint64_t total_episodes = 0;
  for (int i = 1; i < kNumCauses; ++i) {
    const StallCause c = static_cast<StallCause>(i);
    const CauseStats s = GetCauseStats(c, now_micros);
    const std::string prefix = std::string(StallCauseName(c)) + ".";
    (*m)[prefix + "episodes"] = std::to_string(s.episodes);
    (*m)[prefix + "stall-micros"] = std::to_string(s.stall_micros);
    (*m)[prefix + "max-stall-micros"] = std::to_string(s.max_stall_micros);
    (*m)[prefix + "episode-micros"] = std::to_string(s.episode_micros);
    (*m)[prefix + "max-episode-micros"] = std::to_string(s.max_episode_micros);
    total_episodes += s.episodes;
  }
  (*m)["total.episodes"] = std::to_string(total_episodes);
  (*m)["total.stall-micros"] = std::to_string(total_stall_micros_);
  (*m)["writes-delayed"] = std::to_string(writes_delayed_);
  (*m)["writes-stopped"] = std::to_string(writes_stopped_);
  (*m)["state"] = WriteStateName(state());
  (*m)["cause"] = StallCauseName(cause());
  (*m)["delayed-write-rate"] = std::to_string(delayed_write_rate());
}

std::string WriteController::DescribeState() const {
  char buf[512];
  std::snprintf(
      buf, sizeof(buf),
      "state=%s cause=%s%s memtables=%d (max %d%s) l0_files=%d (slowdown "
      "%d, stop %d) pending_compaction_bytes=%" PRIu64 " (soft %" PRIu64
      ", hard %" PRIu64 ") delayed_write_rate=%" PRIu64,
      WriteStateName(state()), StallCauseName(cause()),
      paced_ ? " (paced to the flush)" : "", last_inputs_.num_memtables,
      max_write_buffer_number_,
      last_inputs_.last_memtable_flushing ? ", last one filling" : "",
      last_inputs_.l0_files, l0_slowdown_trigger_, l0_stop_trigger_,
      last_inputs_.pending_compaction_bytes, soft_pending_limit_,
      hard_pending_limit_, delayed_write_rate());
  return buf;
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// WriteController: the one place that decides whether user writes run
// normally, are delayed (paced by an adaptive token bucket) or are stopped,
// and why; it also keeps the stall accounting by cause that the
// "cascadedb.stall-stats" property, the statistics tickers and the
// EventListener report. See docs/stalls.md for the rules and how to tune
// them.
//
// The decision is a pure function of a few numbers (StallInputs) and the
// Options thresholds, so it is unit-tested without threads or files. DBImpl
// calls Update() after every flush, compaction, memtable switch and version
// change; a writer asks GetDelay() before writing while writes are delayed,
// waits on DBImpl's condition variable while they are stopped, and reports
// the time it actually waited through RecordStall().
//
// Thread safety: thread-compatible; DBImpl serializes every call with the DB
// mutex. The exceptions are state(), cause() and delayed_write_rate(), which
// read atomics and may be called without the mutex (they then give a recent,
// not necessarily current, value).

#ifndef CASCADEDB_DB_WRITE_CONTROLLER_H_
#define CASCADEDB_DB_WRITE_CONTROLLER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

#include "cascadedb/options.h"

namespace cascadedb {

class Env;

// Why writes are slowed or stopped. The names (StallCauseName) are stable:
// properties, statistics, the listener, the info LOG and db_bench use them.
// When several conditions hold, Update() reports the first of: STOP causes
// (memtable_limit, l0_stop, pending_compaction_stop), then DELAY causes
// (memtable_limit, l0_slowdown, pending_compaction_slowdown, then
// memtable_limit again for writes paced to a running flush).
enum class StallCause {
  kNone = 0,
  kMemtableLimit,
  kL0Slowdown,
  kL0Stop,
  kPendingCompactionSlowdown,
  kPendingCompactionStop,
  kNumCauses
};

// "none", "memtable_limit", "l0_slowdown", "l0_stop",
// "pending_compaction_slowdown", "pending_compaction_stop"; "unknown" for
// values out of range.
const char* StallCauseName(StallCause c);

enum class WriteState { kNormal = 0, kDelayed, kStopped };

// "normal", "delayed", "stopped"; "unknown" for values out of range.
const char* WriteStateName(WriteState s);

// What the controller decides on. DBImpl fills it under the DB mutex.
struct StallInputs {
  // Unflushed memtables that count against max_write_buffer_number: the
  // immutable ones plus the active one. For the LevelDB behaviour (writes
  // continue into a fresh memtable while the previous one flushes), count
  // the active memtable only once it is full and has to be switched out.
  int num_memtables = 0;
  // Files in level 0.
  int l0_files = 0;
  // Estimated bytes compaction must rewrite to bring every level back under
  // its target (the VersionSet's estimate).
  uint64_t pending_compaction_bytes = 0;
  // The active memtable is the last one max_write_buffer_number allows (once
  // it is full, writes stop) and the flush that frees a memtable is
  // running. Writes are then paced to that flush (see FlushProgress).
  bool last_memtable_flushing = false;
};

// How far the flush that frees the next memtable has come, for pacing
// writes to it. The defaults describe no flush running: no pace.
struct FlushProgress {
  bool running = false;
  // Bytes the active memtable takes before it is full, in the unit the
  // paced writes are charged in (DBImpl: arena bytes).
  uint64_t room_bytes = 0;
  // Share of the flushing memtable's entries read so far, 0..1.
  double done_fraction = 0;
  // Since the flush started.
  uint64_t elapsed_micros = 0;
  // How long reading its entries should take at the last flush's speed
  // (0: no earlier flush). Used until done_fraction says more.
  uint64_t expected_read_micros = 0;
  // What follows the last entry read (the table's end and sync, the
  // install) took this long in the last flush: the estimate for this one.
  uint64_t tail_micros = 0;
  // Every entry is read, since_read_micros ago: the flush is in its tail
  // (its reading took elapsed_micros - since_read_micros).
  bool read_done = false;
  uint64_t since_read_micros = 0;
};

// Decides NORMAL / DELAYED / STOPPED and keeps the stall accounting.
// Thread-compatible (externally synchronized by the DB mutex), except the
// atomic accessors noted above.
class WriteController {
 public:
  // The floor of the adapted delayed-write rate: however often conditions
  // worsen, writes keep trickling at this rate at least (or at
  // delayed_write_rate, if that is lower). 16 KiB/s, as in RocksDB.
  static constexpr uint64_t kMinDelayedWriteRate = 16 * 1024;
  // Factor applied to the rate when the condition worsens (also when
  // writes leave STOPPED for DELAYED after a stop that began while they
  // were delayed: that rate ran all the way into the stop).
  static constexpr double kSlowdownRatio = 0.8;
  // Factor applied to the rate when the condition improves, and when a
  // delay ends in NORMAL (that rate let the backlog clear).
  static constexpr double kSpeedupRatio = 1.25;
  // If writes become delayed again within this long after the last stall
  // ended, the adapted rate is kept instead of restarting at
  // delayed_write_rate: the background work has just shown it cannot keep up
  // with the full rate.
  static constexpr uint64_t kRateMemoryMicros = 10 * 1000 * 1000;
  // GetDelay never asks for a sleep shorter than this; smaller debts are
  // carried over until they add up to at least this much. A delay is felt
  // as many sleeps of tens of microseconds, so a delayed write costs about
  // what a sleep and a wakeup cost (every sleep of 1 ms or more would be a
  // write of 1 ms or more, and with 250 us sleeps the delayed writes alone
  // set the p99.9). Below ~10 us the system call is most of the sleep.
  // Env::SleepForMicroseconds spins through waits this short instead of
  // paying a wake-up, and keeps longer ones from ending 50 us late.
  static constexpr uint64_t kMinDelayMicros = 10;
  // A delay longer than this is slept in slices of it, and ends early once
  // writes are no longer delayed for the cause it was owed to (the state
  // left DELAYED, or the cause or pacing changed). A debt owed at a rate
  // adapted down to kMinDelayedWriteRate can be seconds long (a 512 KiB
  // batch owes 32 s), while the compaction that clears the slowdown may
  // end milliseconds later. RocksDB's delayed writes check every
  // millisecond, too.
  static constexpr uint64_t kDelayCheckMicros = 1000;
  // Unused credit is capped at this much time at the current rate, so a
  // pause does not let a large burst through at full speed afterwards.
  static constexpr uint64_t kMaxCreditMicros = 1000;
  // Pacing to a flush (StallInputs::last_memtable_flushing): the flush's
  // remaining time is estimated from its progress so far plus the last
  // flush's tail, and writes may fill the active memtable's room in
  // kFlushPaceMargin times that. 1: the tail is in the estimate already,
  // and a larger margin (1.2 measured) only left room unused when the
  // flush ended (docs/performance.md, "Writes paced to the flush").
  static constexpr double kFlushPaceMargin = 1.0;
  // In its tail, a flush that has run past the estimate is expected to end
  // within this long.
  static constexpr uint64_t kMinFlushRemainingMicros = 1000;
  // Below this share of its entries a flush's progress says too little
  // about its speed: the last flush's speed stands in for it (the first
  // flush since open, which has none, goes by its own progress).
  static constexpr double kMinFlushPaceFraction = 0.05;
  // The first flush since open has no earlier tail to go by: its tail is
  // expected to take this share of its reading. Expecting none, writers
  // paced to it filled the next memtable as its reading ended and stopped
  // for its whole tail (20-40 ms with the defaults' 64 MiB memtables,
  // whose first tails took 10-12% of their reading and later ones up to
  // 36%; docs/performance.md, "The first flush's tail").
  static constexpr double kFirstFlushTailShare = 0.25;
  // A paced write sleeps at most this long; debt beyond it is left to the
  // next writes. The pace is a smoothing, not a stop: near the end of the
  // room every write waits up to this long instead of one write waiting
  // out the flush (that is what the stop at the limit is for).
  static constexpr uint64_t kMaxPaceDelayMicros = 500;

  // Copies the thresholds from options. env (borrowed; must outlive the
  // controller) supplies NowMicros for episode timing.
  WriteController(const Options& options, Env* env);

  WriteController(const WriteController&) = delete;
  WriteController& operator=(const WriteController&) = delete;

  // Re-evaluates the state from in:
  //   STOPPED if num_memtables >= max_write_buffer_number (memtable_limit),
  //     else if l0_files >= level0_stop_writes_trigger (l0_stop),
  //     else if hard_pending_compaction_bytes_limit > 0 and pending >= it
  //     (pending_compaction_stop);
  //   else DELAYED if max_write_buffer_number > 3 and num_memtables >=
  //     max_write_buffer_number - 1 (memtable_limit),
  //     else if l0_files >= level0_slowdown_writes_trigger (l0_slowdown),
  //     else if soft_pending_compaction_bytes_limit > 0 and pending >= it
  //     (pending_compaction_slowdown),
  //     else if last_memtable_flushing (memtable_limit, paced: see
  //     GetDelay);
  //   else NORMAL.
  // Adapts the delayed-write rate (see docs/stalls.md) and opens/closes
  // stall episodes. A paced delay leaves the adapted rate alone: for the
  // rate's rules it counts as NORMAL. Returns true when the state or the cause
  // changed: the caller then notifies listeners, logs DescribeState() and wakes
  // stopped writers.
  bool Update(const StallInputs& in);

  // Lock-free reads (relaxed atomics): a recent value.
  WriteState state() const { return state_.load(std::memory_order_relaxed); }
  StallCause cause() const { return cause_.load(std::memory_order_relaxed); }
  // The current adapted delayed-write rate, bytes per second.
  uint64_t delayed_write_rate() const {
    return delayed_rate_.load(std::memory_order_relaxed);
  }

  // Token bucket for delayed writes. A writer about to write bytes while the
  // state is DELAYED calls this; it charges the bucket and returns how many
  // micros to sleep (with the DB mutex released) before writing. Credit
  // accrues at the current rate since the previous call; a write consumes
  // its bytes; a debt costs debt / rate. Debts worth less than
  // kMinDelayMicros are carried over instead of returned, so sleeps are at
  // least that long. Returns 0 in NORMAL and STOPPED (STOPPED writers wait on a
  // condition variable instead). now_micros is the caller's monotonic clock.
  // While the delay is paced (paced()), the rate is FlushPaceRate(flush)
  // instead of the adapted one, no sleep is longer than
  // kMaxPaceDelayMicros, and a flush whose pace is not known yet (nothing
  // read, no earlier flush) delays nothing.
  uint64_t GetDelay(uint64_t now_micros, uint64_t bytes,
                    const FlushProgress& flush = FlushProgress());

  // GetDelay's fast path, for a writer that has not read the clock yet:
  // true (and the bucket charged) when credit accrued by earlier GetDelay
  // calls covers bytes, so the write needs no delay. Credit is then only
  // spent, never accrued: at most kMaxCreditMicros of it at the rate of
  // the last GetDelay, so writes that outrun the rate soon meet GetDelay
  // again. False in NORMAL and STOPPED (no bucket is kept there).
  bool ConsumeCredit(uint64_t bytes);

  // The rate, in bytes per second, at which writes fill the room left in
  // the active memtable in kFlushPaceMargin times the flush's estimated
  // remaining time: while it reads entries, elapsed x (1 - done) / done
  // (before kMinFlushPaceFraction, expected_read_micros - elapsed if an
  // earlier flush gave one) plus tail_micros; then what is left of
  // tail_micros. With no earlier flush (expected_read_micros 0) the tail
  // is kFirstFlushTailShare of the reading (estimated, then as it was).
  // At least kMinFlushRemainingMicros either way. 0 when
  // there is nothing to pace to: no flush runs, or it has read nothing
  // and no earlier flush gives an estimate. At least 1 otherwise.
  static uint64_t FlushPaceRate(const FlushProgress& flush);

  // True while writes are DELAYED by the last rule of Update (paced to a
  // running flush). Guarded by the DB mutex, like Update.
  bool paced() const { return paced_; }

  // Records that one write waited micros because of cause: slept for a
  // delay (stopped == false) or waited out a stop (stopped == true). Pass
  // the cause the writer saw when it started waiting. A cause of kNone (or
  // out of range) counts in the totals but in no cause's row.
  void RecordStall(StallCause cause, bool stopped, uint64_t micros);

  struct CauseStats {
    uint64_t episodes = 0;            // times the cause became active
    uint64_t stall_micros = 0;        // time writers spent waiting
    uint64_t max_stall_micros = 0;    // longest single wait
    uint64_t episode_micros = 0;      // wall time the cause was active
    uint64_t max_episode_micros = 0;  // longest single episode
  };
  // Figures for cause c; an ongoing episode counts up to now_micros. kNone
  // and out-of-range causes give zeros.
  CauseStats GetCauseStats(StallCause c, uint64_t now_micros) const;
  // Same, with now taken from the Env.
  CauseStats GetCauseStats(StallCause c) const;

  // True while a compaction-driven cause (L0 files or pending compaction
  // bytes, not memtables) holds writes back, and for kRateMemoryMicros
  // after the last one ended: the background work has just been the
  // bottleneck. now_micros is the caller's monotonic clock.
  bool CompactionBoundRecently(uint64_t now_micros) const;

  uint64_t writes_delayed() const { return writes_delayed_; }
  uint64_t writes_stopped() const { return writes_stopped_; }
  uint64_t total_stall_micros() const { return total_stall_micros_; }

  // The "cascadedb.stall-stats" text: one row per cause (episodes, stalled
  // ms, longest wait ms, episode ms, longest episode ms), a total row, the
  // writes delayed/stopped, and the current state, cause and rate.
  std::string StallStatsTable(uint64_t now_micros) const;

  // The same figures for GetMapProperty("cascadedb.stall-stats"). Adds, for
  // each cause name except "none": "<cause>.episodes",
  // "<cause>.stall-micros", "<cause>.max-stall-micros",
  // "<cause>.episode-micros", "<cause>.max-episode-micros"; and
  // "total.episodes", "total.stall-micros", "writes-delayed",
  // "writes-stopped", "state", "cause", "delayed-write-rate". Numbers are
  // decimal integers; state and cause are their names.
  void GetStallStatsMap(uint64_t now_micros,
                        std::map<std::string, std::string>* m) const;

  // One line for the info LOG: state, cause, the inputs of the last Update
  // with their thresholds, and the current rate, e.g.
  // "state=delayed cause=l0_slowdown l0_files=20 (slowdown 20, stop 36) ...".
  std::string DescribeState() const;

 private:
  // The state and cause in computes for in, by the precedence rules above;
  // *paced is true when the paced rule decided.
  void Evaluate(const StallInputs& in, WriteState* state, StallCause* cause,
                bool* paced) const;
  // The figure that drives cause (memtables, L0 files or pending bytes).
  static uint64_t Metric(StallCause cause, const StallInputs& in);
  void SetRate(uint64_t rate);

  // ---- const after construction
  Env* const env_;
  const int max_write_buffer_number_;
  const int l0_slowdown_trigger_;
  const int l0_stop_trigger_;
  const uint64_t soft_pending_limit_;
  const uint64_t hard_pending_limit_;
  const uint64_t max_rate_;  // Options::delayed_write_rate
  const uint64_t min_rate_;  // min(kMinDelayedWriteRate, max_rate_)

  // ---- written under the DB mutex; atomics so accessors may skip it.
  // Relaxed order: they are advisory snapshots, no other data is published
  // through them.
  std::atomic<WriteState> state_{WriteState::kNormal};
  std::atomic<StallCause> cause_{StallCause::kNone};
  std::atomic<uint64_t> delayed_rate_;

  // ---- guarded by the DB mutex (externally synchronized)
  StallInputs last_inputs_;
  // When the current non-NORMAL cause's episode began.
  uint64_t episode_start_micros_ = 0;
  // When the last stall (DELAYED or STOPPED, a paced delay not counted)
  // ended, if one has.
  uint64_t last_stall_end_micros_ = 0;
  bool stall_ended_ = false;
  // When the last compaction-driven cause ended, if one has.
  uint64_t last_compaction_stall_end_micros_ = 0;
  bool compaction_stall_ended_ = false;
  // The current stop began while writes were delayed (DELAYED -> STOPPED).
  bool stop_followed_delay_ = false;
  // The current delay paces writes to a flush (see paced()).
  bool paced_ = false;
  // Token bucket: credit (negative = debt) in bytes as of
  // last_refill_micros_; valid once bucket_started_.
  double credit_bytes_ = 0;
  uint64_t last_refill_micros_ = 0;
  bool bucket_started_ = false;
  // Accounting, indexed by StallCause.
  CauseStats stats_[static_cast<int>(StallCause::kNumCauses)];
  uint64_t writes_delayed_ = 0;
  uint64_t writes_stopped_ = 0;
  uint64_t total_stall_micros_ = 0;
};

}  // namespace cascadedb

#endif  // CASCADEDB_DB_WRITE_CONTROLLER_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// db_bench benchmark loops (see workloads.h). Every op is timed on its own
// (two clock reads around the engine call), so key generation, pacing and
// bookkeeping never count as engine latency.

#include "benchmarks/db_bench/workloads.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "benchmarks/db_bench/flags.h"

namespace cascadedb {
namespace db_bench {

namespace {

constexpr size_t kLargeValueSize = 100 * 1000;  // fill100K

// The key buffer: large enough for any --key_size.
struct KeyBuffer {
  char data[4096];
};

// With --perf_level, keeps where a write slower than
// t->slow_writes.threshold_nanos spent its time. Call before the write
// (reset = true) and after it.
void TrackWriteTimes(const WorkloadContext& ctx, ThreadState* t, bool reset,
                     uint64_t latency_nanos = 0) {
  if (!t->write_times) return;
  if (reset) {
    ctx.engine->ResetWriteTimes();
  } else if (latency_nanos > t->slow_writes.threshold_nanos) {
    t->slow_writes.Add(latency_nanos, ctx.engine->ThreadWriteTimes());
  }
}

// One timed put of key index k; returns false (with t->error set) on
// failure.
bool TimedPut(const WorkloadContext& ctx, ThreadState* t, uint64_t k,
              bool sync) {
  KeyBuffer buf;
  const std::string_view key = ctx.keys->Format(k, buf.data);
  const std::string_view value = t->values.Next(ctx.value_size);
  if (ctx.live != nullptr) ctx.live->Prefetch(k);
  if (ctx.pacer != nullptr) ctx.pacer->Pace(key.size() + value.size());
  TrackWriteTimes(ctx, t, /*reset=*/true);
  const uint64_t start = NowNanos();
  Status s = ctx.engine->Put(key, value, sync);
  const uint64_t end = NowNanos();
  t->recorder.Record(start, end);
  TrackWriteTimes(ctx, t, /*reset=*/false, end - start);
  t->recorder.AddBytes(key.size() + value.size());
  t->writes++;
  t->user_bytes_written += key.size() + value.size();
  if (!s.ok()) {
    t->error = Status::IOError("put", s.ToString());
    return false;
  }
  if (ctx.live != nullptr) {
    ctx.live->Put(k, ctx.value_size >= kLargeValueSize);
  }
  return true;
}

// One timed get of key index k (or of its missing twin).
bool TimedGet(const WorkloadContext& ctx, ThreadState* t, uint64_t k,
              bool missing, std::string* value) {
  KeyBuffer buf;
  const std::string_view key = missing ? ctx.keys->FormatMissing(k, buf.data)
                                       : ctx.keys->Format(k, buf.data);
  const uint64_t start = NowNanos();
  Status s = ctx.engine->Get(key, value);
  const uint64_t end = NowNanos();
  t->recorder.Record(start, end);
  t->reads++;
  if (s.ok()) {
    t->found++;
    t->recorder.AddBytes(key.size() + value->size());
    return true;
  }
  if (!s.IsNotFound()) {
    t->error = Status::IOError("get", s.ToString());
    return false;
  }
  return true;
}

void WriteSeq(const WorkloadContext& ctx, ThreadState* t) {
  for (uint64_t i = 0; i < ctx.ops_per_thread; i++) {
    if (!TimedPut(ctx, t, i % ctx.num, ctx.sync)) return;
  }
}

void WriteRandom(const WorkloadContext& ctx, ThreadState* t) {
  for (uint64_t i = 0; i < ctx.ops_per_thread; i++) {
    if (!TimedPut(ctx, t, t->rand.Uniform(ctx.num), ctx.sync)) return;
  }
}

void DeleteRandom(const WorkloadContext& ctx, ThreadState* t) {
  KeyBuffer buf;
  for (uint64_t i = 0; i < ctx.ops_per_thread; i++) {
    const uint64_t k = t->rand.Uniform(ctx.num);
    const std::string_view key = ctx.keys->Format(k, buf.data);
    if (ctx.live != nullptr) ctx.live->Prefetch(k);
    if (ctx.pacer != nullptr) ctx.pacer->Pace(key.size());
    TrackWriteTimes(ctx, t, /*reset=*/true);
    const uint64_t start = NowNanos();
    Status s = ctx.engine->Delete(key, ctx.sync);
    const uint64_t end = NowNanos();
    t->recorder.Record(start, end);
    TrackWriteTimes(ctx, t, /*reset=*/false, end - start);
    t->recorder.AddBytes(key.size());
    t->writes++;
    t->user_bytes_written += key.size();
    if (!s.ok()) {
      t->error = Status::IOError("delete", s.ToString());
      return;
    }
    if (ctx.live != nullptr) ctx.live->Delete(k);
  }
}

void ReadRandom(const WorkloadContext& ctx, ThreadState* t) {
  std::string value;
  for (uint64_t i = 0; i < ctx.ops_per_thread; i++) {
    if (!TimedGet(ctx, t, t->rand.Uniform(ctx.num), false, &value)) return;
  }
}

void ReadMissing(const WorkloadContext& ctx, ThreadState* t) {
  std::string value;
  for (uint64_t i = 0; i < ctx.ops_per_thread; i++) {
    if (!TimedGet(ctx, t, t->rand.Uniform(ctx.num), true, &value)) return;
  }
}

// readseq/readreverse: one iterator, ops_per_thread steps or the end of the
// data, whichever comes first. Each step (the first seek, then each
// Next/Prev) is one timed op.
void Scan(const WorkloadContext& ctx, ThreadState* t, bool reverse) {
  std::unique_ptr<EngineIterator> it = ctx.engine->NewIterator();
  uint64_t start = NowNanos();
  if (reverse) {
    it->SeekToLast();
  } else {
    it->SeekToFirst();
  }
  uint64_t done = 0;
  while (it->Valid() && done < ctx.ops_per_thread) {
    const uint64_t bytes = it->key().size() + it->value().size();
    const uint64_t end = NowNanos();
    t->recorder.Record(start, end);
    t->recorder.AddBytes(bytes);
    t->reads++;
    t->found++;
    done++;
    // One clock read per step: a step is short (often ~100 ns), so the
    // next step starts where this one ended, bookkeeping included.
    start = end;
    if (reverse) {
      it->Prev();
    } else {
      it->Next();
    }
  }
  Status s = it->status();
  if (!s.ok()) t->error = Status::IOError("iterator", s.ToString());
}

void ReadSeq(const WorkloadContext& ctx, ThreadState* t) {
  Scan(ctx, t, false);
}

void ReadReverse(const WorkloadContext& ctx, ThreadState* t) {
  Scan(ctx, t, true);
}

// seekrandom: one iterator per thread (as RocksDB's db_bench), a seek to a
// random key per op; found when the iterator lands on that very key.
void SeekRandom(const WorkloadContext& ctx, ThreadState* t) {
  std::unique_ptr<EngineIterator> it = ctx.engine->NewIterator();
  KeyBuffer buf;
  for (uint64_t i = 0; i < ctx.ops_per_thread; i++) {
    const std::string_view key =
        ctx.keys->Format(t->rand.Uniform(ctx.num), buf.data);
    const uint64_t start = NowNanos();
    it->Seek(key);
    bool found = false;
    uint64_t bytes = 0;
    if (it->Valid()) {
      found = it->key() == key;
      bytes = it->key().size() + it->value().size();
    }
    const uint64_t end = NowNanos();
    t->recorder.Record(start, end);
    t->recorder.AddBytes(bytes);
    t->reads++;
    if (found) t->found++;
  }
  Status s = it->status();
  if (!s.ok()) t->error = Status::IOError("iterator", s.ToString());
}

void ReadRandomWriteRandom(const WorkloadContext& ctx, ThreadState* t) {
  std::string value;
  for (uint64_t i = 0; i < ctx.ops_per_thread; i++) {
    const uint64_t k = t->rand.Uniform(ctx.num);
    // Decide by a separate draw so the key stays uniform either way.
    const bool read =
        t->rand.Uniform(100) < static_cast<uint64_t>(ctx.readwritepercent);
    const bool ok = read ? TimedGet(ctx, t, k, false, &value)
                         : TimedPut(ctx, t, k, ctx.sync);
    if (!ok) return;
  }
}

// A single timed engine call.
template <Status (Engine::*kCall)()>
void OneCall(const WorkloadContext& ctx, ThreadState* t) {
  const uint64_t start = NowNanos();
  Status s = (ctx.engine->*kCall)();
  const uint64_t end = NowNanos();
  t->recorder.Record(start, end);
  if (!s.ok()) t->error = s;
}

}  // namespace

void BackgroundWriter(const WorkloadContext& ctx, ThreadState* t) {
  while (!ctx.measured_done->load(std::memory_order_acquire)) {
    if (!TimedPut(ctx, t, t->rand.Uniform(ctx.num), ctx.sync)) return;
  }
}

WritePacer::WritePacer(uint64_t bytes_per_second)
    : nanos_per_byte_(1e9 / static_cast<double>(bytes_per_second)) {}

void WritePacer::Pace(uint64_t bytes) {
  double wake_ns = 0;
  const double now = static_cast<double>(NowNanos());
  {
    MutexLock lock(&mu_);
    // Unused budget carries over for at most 10 ms, so an idle spell does
    // not turn into a burst.
    next_ns_ = std::max(next_ns_, now - 10e6);
    wake_ns = next_ns_;
    next_ns_ += static_cast<double>(bytes) * nanos_per_byte_;
  }
  if (wake_ns > now) {
    std::this_thread::sleep_for(
        std::chrono::nanoseconds(static_cast<int64_t>(wake_ns - now)));
  }
}

bool GetWorkloadSpec(const std::string& name, WorkloadSpec* spec) {
  const uint64_t num = static_cast<uint64_t>(FLAGS_num);
  const uint64_t reads = static_cast<uint64_t>(ReadsPerThread());
  const size_t value_size = static_cast<size_t>(FLAGS_value_size);
  WorkloadSpec s;
  s.name = name;
  s.value_size = value_size;
  s.ops_per_thread = num;
  if (name == "fillseq") {
    s.fn = WriteSeq;
    s.fresh_db = true;
    s.writes = true;
  } else if (name == "fillrandom") {
    s.fn = WriteRandom;
    s.fresh_db = true;
    s.writes = true;
  } else if (name == "overwrite") {
    s.fn = WriteRandom;
    s.writes = true;
  } else if (name == "fillsync") {
    s.fn = WriteRandom;
    s.fresh_db = true;
    s.writes = true;
    s.ops_per_thread = std::max<uint64_t>(1, num / 1000);
  } else if (name == "fill100K") {
    s.fn = WriteRandom;
    s.fresh_db = true;
    s.writes = true;
    s.ops_per_thread = std::max<uint64_t>(1, num / 1000);
    s.value_size = kLargeValueSize;
  } else if (name == "deleterandom") {
    s.fn = DeleteRandom;
    s.writes = true;
  } else if (name == "readrandom") {
    s.fn = ReadRandom;
    s.ops_per_thread = reads;
  } else if (name == "readmissing") {
    s.fn = ReadMissing;
    s.ops_per_thread = reads;
  } else if (name == "readseq") {
    s.fn = ReadSeq;
    s.ops_per_thread = reads;
  } else if (name == "readreverse") {
    s.fn = ReadReverse;
    s.ops_per_thread = reads;
  } else if (name == "seekrandom") {
    s.fn = SeekRandom;
    s.ops_per_thread = reads;
  } else if (name == "readwhilewriting") {
    s.fn = ReadRandom;
    s.ops_per_thread = reads;
    s.with_writer = true;
  } else if (name == "readrandomwriterandom") {
    s.fn = ReadRandomWriteRandom;
    s.ops_per_thread = reads;
    s.writes = FLAGS_readwritepercent < 100;
  } else if (name == "compact") {
    s.fn = OneCall<&Engine::CompactAll>;
    s.single_thread = true;
    s.ops_per_thread = 1;
  } else if (name == "flush") {
    s.fn = OneCall<&Engine::Flush>;
    s.single_thread = true;
    s.ops_per_thread = 1;
  } else if (name == "waitforcompaction") {
    s.fn = OneCall<&Engine::WaitForCompaction>;
    s.single_thread = true;
    s.ops_per_thread = 1;
  } else if (name == "stats" || name == "levelstats" || name == "sstables") {
    s.kind = BenchmarkKind::kProperty;
    s.ops_per_thread = 0;
  } else {
    return false;
  }
  *spec = s;
  return true;
}

}  // namespace db_bench
}  // namespace cascadedb

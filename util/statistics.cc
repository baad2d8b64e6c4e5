// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The Statistics base class's shared methods (names, ToString, ticker map,
// stats levels) and StatisticsImpl, the collector CreateDBStatistics()
// returns.
//
// StatisticsImpl keeps one copy of every ticker and histogram per shard, with
// a shard per CPU (rounded up to a power of two). A recording thread picks
// the shard of the CPU it runs on, so threads on different CPUs never write
// the same cache line; readers add up all shards. A thread may migrate
// between picking a shard and writing it, so shard updates stay atomic
// (tickers) or locked (histograms); migration only costs a little contention.
//
// Thread safety: thread-safe.

#include "cascadedb/statistics.h"

#if defined(__linux__)
#include <sched.h>
#endif

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <thread>

#include "util/histogram.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace cascadedb {

namespace {

constexpr const char* kUnknownName = "cascadedb.unknown";

struct TickerInfo {
  Tickers ticker;
  const char* name;
};

// One entry per ticker, in enum order (checked below).
constexpr TickerInfo kTickerInfo[] = {
    {kBytesWritten, "cascadedb.bytes.written"},
    {kBytesRead, "cascadedb.bytes.read"},
    {kNumberKeysWritten, "cascadedb.number.keys.written"},
    {kNumberKeysDeleted, "cascadedb.number.keys.deleted"},
    {kNumberKeysRead, "cascadedb.number.keys.read"},
    {kNumberKeysFound, "cascadedb.number.keys.found"},
    {kMemtableHit, "cascadedb.memtable.hit"},
    {kMemtableMiss, "cascadedb.memtable.miss"},
    {kMemtableBloomUseful, "cascadedb.memtable.bloom.useful"},
    {kNumberIteratorsCreated, "cascadedb.num.iterator.created"},
    {kNumberDbSeek, "cascadedb.number.db.seek"},
    {kNumberDbNext, "cascadedb.number.db.next"},
    {kNumberDbPrev, "cascadedb.number.db.prev"},
    {kSeekChildSeeks, "cascadedb.seek.child.seeks"},
    {kSeekChildSeeksSaved, "cascadedb.seek.child.seeks.saved"},
    {kWalFileBytes, "cascadedb.wal.bytes"},
    {kWalFileSynced, "cascadedb.wal.synced"},
    {kWriteWithWal, "cascadedb.write.wal"},
    {kStallMicros, "cascadedb.stall.micros"},
    {kStallMemtableLimitMicros, "cascadedb.stall.memtable_limit.micros"},
    {kStallL0SlowdownMicros, "cascadedb.stall.l0_slowdown.micros"},
    {kStallL0StopMicros, "cascadedb.stall.l0_stop.micros"},
    {kStallPendingCompactionSlowdownMicros,
     "cascadedb.stall.pending_compaction_slowdown.micros"},
    {kStallPendingCompactionStopMicros,
     "cascadedb.stall.pending_compaction_stop.micros"},
    {kWritesDelayed, "cascadedb.write.delayed"},
    {kWritesStopped, "cascadedb.write.stopped"},
    {kStallCompressedBlocks, "cascadedb.stall.compressed.blocks"},
    {kFlushWriteBytes, "cascadedb.flush.write.bytes"},
    {kFlushesInCompaction, "cascadedb.flush.in.compaction"},
    {kCompactReadBytes, "cascadedb.compact.read.bytes"},
    {kCompactWriteBytes, "cascadedb.compact.write.bytes"},
    {kCompactCopiedBytes, "cascadedb.compact.copied.bytes"},
    {kCompactionKeyDropNewerEntry, "cascadedb.compaction.key.drop.new"},
    {kCompactionKeyDropObsolete, "cascadedb.compaction.key.drop.obsolete"},
    {kSstBytesWritten, "cascadedb.sst.bytes.written"},
    {kSstBytesRead, "cascadedb.sst.bytes.read"},
    {kTableFilesOpened, "cascadedb.table.files.opened"},
    {kFilesDeleted, "cascadedb.files.deleted"},
    {kBlockCacheMiss, "cascadedb.block.cache.miss"},
    {kBlockCacheHit, "cascadedb.block.cache.hit"},
    {kBlockCacheAdd, "cascadedb.block.cache.add"},
    {kBlockCacheAddFailures, "cascadedb.block.cache.add.failures"},
    {kBlockCacheAddDeferred, "cascadedb.block.cache.add.deferred"},
    {kBlockCacheLookupSkipped, "cascadedb.block.cache.lookup.skipped"},
    {kBlockCacheIndexMiss, "cascadedb.block.cache.index.miss"},
    {kBlockCacheIndexHit, "cascadedb.block.cache.index.hit"},
    {kBlockCacheIndexAdd, "cascadedb.block.cache.index.add"},
    {kBlockCacheFilterMiss, "cascadedb.block.cache.filter.miss"},
    {kBlockCacheFilterHit, "cascadedb.block.cache.filter.hit"},
    {kBlockCacheFilterAdd, "cascadedb.block.cache.filter.add"},
    {kBlockCacheDataMiss, "cascadedb.block.cache.data.miss"},
    {kBlockCacheDataHit, "cascadedb.block.cache.data.hit"},
    {kBlockCacheDataAdd, "cascadedb.block.cache.data.add"},
    {kBlockCacheBytesRead, "cascadedb.block.cache.bytes.read"},
    {kBlockCacheBytesWrite, "cascadedb.block.cache.bytes.write"},
    {kBloomFilterUseful, "cascadedb.bloom.filter.useful"},
    {kBloomFilterFullPositive, "cascadedb.bloom.filter.full.positive"},
    {kBloomFilterFullTruePositive, "cascadedb.bloom.filter.full.true.positive"},
};

enum class HistogramKind { kSize, kTimer, kDetailedTimer };

struct HistogramInfo {
  Histograms histogram;
  const char* name;
  HistogramKind kind;
};

// One entry per histogram, in enum order (checked below).
constexpr HistogramInfo kHistogramInfo[] = {
    {kDbGetMicros, "cascadedb.db.get.micros", HistogramKind::kDetailedTimer},
    {kDbWriteMicros, "cascadedb.db.write.micros",
     HistogramKind::kDetailedTimer},
    {kDbSeekMicros, "cascadedb.db.seek.micros", HistogramKind::kDetailedTimer},
    {kSstReadMicros, "cascadedb.sst.read.micros",
     HistogramKind::kDetailedTimer},
    {kWalFileSyncMicros, "cascadedb.wal.file.sync.micros",
     HistogramKind::kTimer},
    {kFlushMicros, "cascadedb.flush.micros", HistogramKind::kTimer},
    {kCompactionMicros, "cascadedb.compaction.micros", HistogramKind::kTimer},
    {kWriteStallMicros, "cascadedb.write.stall.micros", HistogramKind::kTimer},
    {kBytesPerRead, "cascadedb.bytes.per.read", HistogramKind::kSize},
    {kBytesPerWrite, "cascadedb.bytes.per.write", HistogramKind::kSize},
    {kBytesPerSync, "cascadedb.bytes.per.sync", HistogramKind::kSize},
};

static_assert(sizeof(kTickerInfo) / sizeof(kTickerInfo[0]) == kTickerEnumMax,
              "every ticker needs a name in kTickerInfo");
static_assert(sizeof(kHistogramInfo) / sizeof(kHistogramInfo[0]) ==
                  kHistogramEnumMax,
              "every histogram needs a name in kHistogramInfo");

constexpr bool TickerTableInOrder() {
  for (uint32_t i = 0; i < kTickerEnumMax; i++) {
    if (kTickerInfo[i].ticker != i) return false;
  }
  return true;
}
constexpr bool HistogramTableInOrder() {
  for (uint32_t i = 0; i < kHistogramEnumMax; i++) {
    if (kHistogramInfo[i].histogram != i) return false;
  }
  return true;
}
static_assert(TickerTableInOrder(), "kTickerInfo must follow enum order");
static_assert(HistogramTableInOrder(), "kHistogramInfo must follow enum order");

// The number of shards: the CPU count rounded up to a power of two (so a CPU
// number maps to a shard with a mask), at most kMaxShards.
constexpr size_t kMaxShards = 256;
size_t ShardCount() {
  size_t cpus = std::thread::hardware_concurrency();
  if (cpus == 0) cpus = 1;
  cpus = std::min(cpus, kMaxShards);
  size_t shards = 1;
  while (shards < cpus) shards <<= 1;
  return shards;
}

// The shard for the calling thread: its current CPU where the OS tells it
// cheaply (glibc reads it from rseq or the vDSO), otherwise a number given
// to the thread on first use.
size_t CurrentShard(size_t mask) {
#if defined(__linux__)
  const int cpu = sched_getcpu();
  if (cpu >= 0) return static_cast<size_t>(cpu) & mask;
#endif
  // Relaxed: the counter only has to hand out distinct-ish numbers.
  static std::atomic<size_t> next_thread{0};
  thread_local const size_t thread_number =
      next_thread.fetch_add(1, std::memory_order_relaxed);
  return thread_number & mask;
}

class StatisticsImpl final : public Statistics {
 public:
  StatisticsImpl()
      : num_shards_(ShardCount()),
        tickers_(new TickerShard[num_shards_]),
        histograms_(new HistogramShard[num_shards_ * kHistogramEnumMax]) {
    for (size_t s = 0; s < num_shards_; s++) {
      for (auto& count : tickers_[s].counts) {
        count.store(0, std::memory_order_relaxed);
      }
    }
  }

  uint64_t getTickerCount(uint32_t ticker_type) const override {
    if (ticker_type >= kTickerEnumMax) return 0;
    uint64_t total = 0;
    for (size_t s = 0; s < num_shards_; s++) {
      total += tickers_[s].counts[ticker_type].load(std::memory_order_relaxed);
    }
    return total;
  }

  void recordTick(uint32_t ticker_type, uint64_t count) override {
    if (ticker_type >= kTickerEnumMax) return;
    // Relaxed: a ticker is a pure counter; nothing else is published through
    // it, and a reader that needs exact totals synchronizes with the writers
    // by other means (e.g. joining them).
    tickers_[CurrentShard(num_shards_ - 1)].counts[ticker_type].fetch_add(
        count, std::memory_order_relaxed);
  }

  void setTickerCount(uint32_t ticker_type, uint64_t count) override {
    if (ticker_type >= kTickerEnumMax) return;
    tickers_[0].counts[ticker_type].store(count, std::memory_order_relaxed);
    for (size_t s = 1; s < num_shards_; s++) {
      tickers_[s].counts[ticker_type].store(0, std::memory_order_relaxed);
    }
  }

  void measureTime(uint32_t histogram_type, uint64_t value) override {
    if (!HistEnabledForType(histogram_type)) return;
    HistogramShard& shard =
        histograms_[CurrentShard(num_shards_ - 1) * kHistogramEnumMax +
                    histogram_type];
    MutexLock lock(&shard.mu);
    shard.histogram.Add(static_cast<double>(value));
    shard.sum += value;
  }

  void histogramData(uint32_t histogram_type,
                     HistogramData* data) const override {
    Histogram merged;
    uint64_t sum = 0;
    Merge(histogram_type, &merged, &sum);
    *data = HistogramData();
    data->median = merged.Median();
    data->percentile95 = merged.Percentile(95);
    data->percentile99 = merged.Percentile(99);
    data->percentile999 = merged.Percentile(99.9);
    data->average = merged.Average();
    data->standard_deviation = merged.StandardDeviation();
    data->min = merged.Min();
    data->max = merged.Max();
    data->count = merged.Count();
    data->sum = sum;
  }

  std::string getHistogramString(uint32_t histogram_type) const override {
    Histogram merged;
    uint64_t sum = 0;
    Merge(histogram_type, &merged, &sum);
    return merged.ToString();
  }

  void Reset() override {
    for (size_t s = 0; s < num_shards_; s++) {
      for (auto& count : tickers_[s].counts) {
        count.store(0, std::memory_order_relaxed);
      }
    }
    for (size_t i = 0; i < num_shards_ * kHistogramEnumMax; i++) {
      HistogramShard& shard = histograms_[i];
      MutexLock lock(&shard.mu);
      shard.histogram.Clear();
      shard.sum = 0;
    }
  }

 private:
  struct alignas(kCacheLineSize) TickerShard {
    std::atomic<uint64_t> counts[kTickerEnumMax];
  };

  struct HistogramShard {
    mutable Mutex mu;
    Histogram histogram GUARDED_BY(mu);
    // Exact (Histogram keeps its sum as a double).
    uint64_t sum GUARDED_BY(mu) = 0;
  };

  // Adds up every shard of one histogram into *merged and *sum (left empty
  // for an unknown type).
  void Merge(uint32_t histogram_type, Histogram* merged, uint64_t* sum) const {
    if (histogram_type >= kHistogramEnumMax) return;
    for (size_t s = 0; s < num_shards_; s++) {
      const HistogramShard& shard =
          histograms_[s * kHistogramEnumMax + histogram_type];
      MutexLock lock(&shard.mu);
      merged->Merge(shard.histogram);
      *sum += shard.sum;
    }
  }

  // ---- const after construction (the arrays' elements are atomic or
  // guarded by their shard's mutex).
  const size_t num_shards_;
  const std::unique_ptr<TickerShard[]> tickers_;
  const std::unique_ptr<HistogramShard[]> histograms_;
};

}  // namespace

const char* TickerName(uint32_t ticker_type) {
  return ticker_type < kTickerEnumMax ? kTickerInfo[ticker_type].name
                                      : kUnknownName;
}

const char* HistogramName(uint32_t histogram_type) {
  return histogram_type < kHistogramEnumMax
             ? kHistogramInfo[histogram_type].name
             : kUnknownName;
}

bool Statistics::HistEnabledForType(uint32_t histogram_type) const {
  if (histogram_type >= kHistogramEnumMax) return false;
  switch (kHistogramInfo[histogram_type].kind) {
    case HistogramKind::kSize:
      return true;
    case HistogramKind::kTimer:
      return get_stats_level() != StatsLevel::kExceptTimers;
    case HistogramKind::kDetailedTimer:
      return get_stats_level() == StatsLevel::kAll;
  }
  return false;
}

std::string Statistics::getHistogramString(uint32_t histogram_type) const {
  HistogramData data;
  histogramData(histogram_type, &data);
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "Count: %" PRIu64
                "  Average: %.4f  StdDev: %.2f\n"
                "Min: %.4f  Median: %.4f  Max: %.4f\n"
                "Percentiles: P50: %.2f P95: %.2f P99: %.2f P99.9: %.2f\n",
                data.count, data.average, data.standard_deviation, data.min,
                data.median, data.max, data.median, data.percentile95,
                data.percentile99, data.percentile999);
  return buf;
}

std::string Statistics::ToString() const {
  std::string result;
  char line[512];
  for (uint32_t t = 0; t < kTickerEnumMax; t++) {
    std::snprintf(line, sizeof(line), "%s COUNT : %" PRIu64 "\n", TickerName(t),
                  getTickerCount(t));
    result.append(line);
  }
  for (uint32_t h = 0; h < kHistogramEnumMax; h++) {
    HistogramData data;
    histogramData(h, &data);
    std::snprintf(line, sizeof(line),
                  "%s P50 : %f P95 : %f P99 : %f P100 : %f COUNT : %" PRIu64
                  " SUM : %" PRIu64 "\n",
                  HistogramName(h), data.median, data.percentile95,
                  data.percentile99, data.max, data.count, data.sum);
    result.append(line);
  }
  return result;
}

bool Statistics::getTickerMap(std::map<std::string, uint64_t>* map) const {
  for (uint32_t t = 0; t < kTickerEnumMax; t++) {
    (*map)[TickerName(t)] = getTickerCount(t);
  }
  return true;
}

std::shared_ptr<Statistics> CreateDBStatistics() {
  return std::make_shared<StatisticsImpl>();
}

}  // namespace cascadedb

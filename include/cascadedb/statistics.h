// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Statistics: counters ("tickers") and distributions ("histograms") that the
// engine records about itself, in the shape RocksDB users know. Set
// Options::statistics to CreateDBStatistics() to collect them, then read
// single figures with getTickerCount()/histogramData() or everything at once
// with ToString().
//
// Every ticker and histogram has a stable name, "cascadedb.<name>", listed
// next to its enumerator below; TickerName()/HistogramName() return it.
// Enumerator values may change between releases; names do not.
//
// Cost: recording a ticker is one relaxed atomic add on a per-CPU shard, so
// tickers stay on even on the hottest paths. Timers cost two clock reads
// each; the stats level decides which of them run (see StatsLevel).
//
// Thread safety: Statistics is thread-safe; any method may be called from any
// thread at any time.

#ifndef CASCADEDB_INCLUDE_CASCADEDB_STATISTICS_H_
#define CASCADEDB_INCLUDE_CASCADEDB_STATISTICS_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace cascadedb {

// Counters. "User bytes" are the key and value bytes the application hands
// to Put, and the key bytes of Delete: the denominator of write
// amplification (docs/write-amplification.md).
enum Tickers : uint32_t {
  // ---------------------------------------------------- user operations
  // "cascadedb.bytes.written": user bytes of Put and Delete (key + value).
  kBytesWritten = 0,
  // "cascadedb.bytes.read": value bytes returned by Get.
  kBytesRead,
  // "cascadedb.number.keys.written": Put records written.
  kNumberKeysWritten,
  // "cascadedb.number.keys.deleted": Delete records written.
  kNumberKeysDeleted,
  // "cascadedb.number.keys.read": Get calls.
  kNumberKeysRead,
  // "cascadedb.number.keys.found": Get calls that found a value (returned OK).
  kNumberKeysFound,
  // "cascadedb.memtable.hit": Gets answered by a memtable (value or
  // deletion).
  kMemtableHit,
  // "cascadedb.memtable.miss": Gets that had to look past the memtables.
  kMemtableMiss,
  // "cascadedb.memtable.bloom.useful": memtable searches a Get skipped
  // because the memtable's bloom filter ruled the key out (one per
  // memtable, active or immutable).
  kMemtableBloomUseful,
  // "cascadedb.num.iterator.created": iterators handed out by NewIterator.
  kNumberIteratorsCreated,
  // "cascadedb.number.db.seek": Seek/SeekToFirst/SeekToLast calls on DB
  // iterators.
  kNumberDbSeek,
  // "cascadedb.number.db.next": Next calls on DB iterators.
  kNumberDbNext,
  // "cascadedb.number.db.prev": Prev calls on DB iterators.
  kNumberDbPrev,
  // "cascadedb.seek.child.seeks": memtables, L0 tables and levels that a
  // forward Seek on a DB iterator positioned, at the Seek or later, when
  // the iterator moved on (one per child positioned).
  kSeekChildSeeks,
  // "cascadedb.seek.child.seeks.saved": those a forward Seek never had to
  // position: a filter ruled out the target's key, or a newer child held
  // it, and the iterator was not moved before the next seek or its end.
  // saved / (saved + seeks) is the share of child seeks the deferral saved.
  kSeekChildSeeksSaved,

  // ---------------------------------------------------- WAL
  // "cascadedb.wal.bytes": bytes appended to WAL files (record headers
  // included).
  kWalFileBytes,
  // "cascadedb.wal.synced": WAL syncs (fsync/fdatasync).
  kWalFileSynced,
  // "cascadedb.write.wal": writes (Put/Delete/Write calls) logged in the
  // WAL (writes with WriteOptions::disableWAL are not counted).
  kWriteWithWal,

  // ---------------------------------------------------- write stalls
  // "cascadedb.stall.micros": microseconds writers spent delayed or stopped,
  // all causes together (the sum of the five per-cause tickers below).
  kStallMicros,
  // "cascadedb.stall.memtable_limit.micros": stopped because every memtable
  // was full (max_write_buffer_number reached).
  kStallMemtableLimitMicros,
  // "cascadedb.stall.l0_slowdown.micros": delayed because L0 reached
  // level0_slowdown_writes_trigger files.
  kStallL0SlowdownMicros,
  // "cascadedb.stall.l0_stop.micros": stopped because L0 reached
  // level0_stop_writes_trigger files.
  kStallL0StopMicros,
  // "cascadedb.stall.pending_compaction_slowdown.micros": delayed because
  // the estimated pending compaction bytes passed the soft limit.
  kStallPendingCompactionSlowdownMicros,
  // "cascadedb.stall.pending_compaction_stop.micros": stopped because the
  // estimated pending compaction bytes passed the hard limit.
  kStallPendingCompactionStopMicros,
  // "cascadedb.write.delayed": writes that were slowed down (DELAY).
  kWritesDelayed,
  // "cascadedb.write.stopped": writes that waited for a STOP to clear.
  kWritesStopped,
  // "cascadedb.stall.compressed.blocks": data blocks of flushes and
  // compactions compressed by writers while delayed or stopped
  // (Options::stalled_writers_compress).
  kStallCompressedBlocks,

  // ---------------------------------------------------- flush and compaction
  // "cascadedb.flush.write.bytes": bytes of SST files written by flushes.
  kFlushWriteBytes,
  // "cascadedb.flush.in.compaction": memtable flushes run by a compaction
  // job's thread between two of its entries (Options::flush_in_compaction)
  // instead of by the flush thread.
  kFlushesInCompaction,
  // "cascadedb.compact.read.bytes": bytes of SST files read by compactions.
  kCompactReadBytes,
  // "cascadedb.compact.write.bytes": bytes of SST files written by
  // compactions.
  kCompactWriteBytes,
  // "cascadedb.compact.copied.bytes": bytes of compaction output written
  // as whole blocks copied from an input (Options::compaction_copy_blocks);
  // part of kCompactWriteBytes.
  kCompactCopiedBytes,
  // "cascadedb.compaction.key.drop.new": entries dropped because a newer
  // entry for the same key hides them from every snapshot.
  kCompactionKeyDropNewerEntry,
  // "cascadedb.compaction.key.drop.obsolete": deletion markers dropped
  // because no older entry of the key can remain below them.
  kCompactionKeyDropObsolete,

  // ---------------------------------------------------- SST files
  // "cascadedb.sst.bytes.written": bytes written to SST files by any job
  // (flush, compaction, recovery).
  kSstBytesWritten,
  // "cascadedb.sst.bytes.read": bytes read from SST files by anyone (Get,
  // iterators, compaction; blocks, index, filter, footer).
  kSstBytesRead,
  // "cascadedb.table.files.opened": SST files opened by the table cache.
  kTableFilesOpened,
  // "cascadedb.files.deleted": obsolete files deleted (SSTs, WALs, old
  // MANIFESTs).
  kFilesDeleted,

  // ---------------------------------------------------- block cache
  // The first four count every block kind; the per-kind ones split them.
  // "cascadedb.block.cache.miss"
  kBlockCacheMiss,
  // "cascadedb.block.cache.hit"
  kBlockCacheHit,
  // "cascadedb.block.cache.add": blocks inserted.
  kBlockCacheAdd,
  // "cascadedb.block.cache.add.failures": inserts refused (cache full of
  // pinned entries).
  kBlockCacheAddFailures,
  // "cascadedb.block.cache.add.deferred": data blocks read on a miss but
  // not inserted, because it was their first recent miss
  // (Options::block_cache_admit_on_second_miss).
  kBlockCacheAddDeferred,
  // "cascadedb.block.cache.lookup.skipped": data blocks a long scan read
  // from a mapped file without looking in the cache, after a streak of
  // misses (Options::long_scan_blocks).
  kBlockCacheLookupSkipped,
  // "cascadedb.block.cache.index.miss"
  kBlockCacheIndexMiss,
  // "cascadedb.block.cache.index.hit"
  kBlockCacheIndexHit,
  // "cascadedb.block.cache.index.add"
  kBlockCacheIndexAdd,
  // "cascadedb.block.cache.filter.miss"
  kBlockCacheFilterMiss,
  // "cascadedb.block.cache.filter.hit"
  kBlockCacheFilterHit,
  // "cascadedb.block.cache.filter.add"
  kBlockCacheFilterAdd,
  // "cascadedb.block.cache.data.miss"
  kBlockCacheDataMiss,
  // "cascadedb.block.cache.data.hit"
  kBlockCacheDataHit,
  // "cascadedb.block.cache.data.add"
  kBlockCacheDataAdd,
  // "cascadedb.block.cache.bytes.read": bytes of blocks served from the
  // cache.
  kBlockCacheBytesRead,
  // "cascadedb.block.cache.bytes.write": bytes of blocks inserted.
  kBlockCacheBytesWrite,

  // ---------------------------------------------------- bloom filters
  // "cascadedb.bloom.filter.useful": lookups a filter answered "absent",
  // saving a block read.
  kBloomFilterUseful,
  // "cascadedb.bloom.filter.full.positive": lookups a filter answered "may
  // be present".
  kBloomFilterFullPositive,
  // "cascadedb.bloom.filter.full.true.positive": of those, lookups where the
  // key really was in the file. positive - true positive = false positives.
  kBloomFilterFullTruePositive,

  kTickerEnumMax  // not a ticker: the number of tickers
};

// Distributions. Each is one of three kinds, which the stats level switches:
//   size           always recorded;
//   timer          recorded unless the level is kExceptTimers;
//   detailed timer recorded only at kAll (per-operation timers on the
//                  user's hot path).
enum Histograms : uint32_t {
  // "cascadedb.db.get.micros" (detailed timer): duration of each Get.
  kDbGetMicros = 0,
  // "cascadedb.db.write.micros" (detailed timer): duration of each
  // Put/Delete/Write, stalls included.
  kDbWriteMicros,
  // "cascadedb.db.seek.micros" (detailed timer): duration of each iterator
  // Seek.
  kDbSeekMicros,
  // "cascadedb.sst.read.micros" (detailed timer): duration of each read
  // from an SST file.
  kSstReadMicros,
  // "cascadedb.wal.file.sync.micros" (timer): duration of each WAL sync.
  kWalFileSyncMicros,
  // "cascadedb.flush.micros" (timer): duration of each flush job.
  kFlushMicros,
  // "cascadedb.compaction.micros" (timer): duration of each compaction job.
  kCompactionMicros,
  // "cascadedb.write.stall.micros" (timer): time each stalled write waited.
  kWriteStallMicros,
  // "cascadedb.bytes.per.read" (size): bytes of each read request to an SST
  // file.
  kBytesPerRead,
  // "cascadedb.bytes.per.write" (size): bytes of each write request that
  // flush and compaction make to their output files.
  kBytesPerWrite,
  // "cascadedb.bytes.per.sync" (size): bytes made durable by each sync of a
  // WAL or SST file (bytes appended since its previous sync).
  kBytesPerSync,

  kHistogramEnumMax  // not a histogram: the number of histograms
};

// The stable name of a ticker or histogram ("cascadedb.bytes.written"), or
// "cascadedb.unknown" for a value out of range. The pointer is static.
const char* TickerName(uint32_t ticker_type);
const char* HistogramName(uint32_t histogram_type);

// Which timers run. Tickers and size histograms are always recorded.
enum class StatsLevel : uint8_t {
  // No timer runs: no clock is read on behalf of statistics.
  kExceptTimers = 0,
  // Timers of background jobs, WAL syncs and stalls run; per-operation
  // timers on the hot path (the "detailed timers": Get, Write, Seek, SST
  // reads) do not. The default.
  kExceptDetailedTimers = 1,
  // Every timer runs.
  kAll = 2,
};

// A summary of one histogram. Percentiles are interpolated within log-spaced
// buckets (relative error well under 20%); count, sum, min and max are exact.
struct HistogramData {
  double median = 0;
  double percentile95 = 0;
  double percentile99 = 0;
  double percentile999 = 0;
  double average = 0;
  double standard_deviation = 0;
  double min = 0;
  double max = 0;
  uint64_t count = 0;
  uint64_t sum = 0;
};

// The collector. Users normally take the one from CreateDBStatistics(); a
// subclass may implement the pure virtual methods itself (for example to
// forward figures to a monitoring system) and inherit the rest.
//
// Thread-safe.
class Statistics {
 public:
  Statistics() = default;
  Statistics(const Statistics&) = delete;
  Statistics& operator=(const Statistics&) = delete;
  virtual ~Statistics() = default;

  // The current value of a ticker; 0 for an unknown ticker_type.
  virtual uint64_t getTickerCount(uint32_t ticker_type) const = 0;

  // Adds count to a ticker. Unknown ticker_types are ignored.
  virtual void recordTick(uint32_t ticker_type, uint64_t count = 1) = 0;

  // Sets a ticker to count. Increments that race with this call may be
  // kept or lost.
  virtual void setTickerCount(uint32_t ticker_type, uint64_t count) = 0;

  // Records value (microseconds for timers, bytes for sizes) in a histogram.
  // Dropped when HistEnabledForType(histogram_type) is false, so a timer
  // taken at a disabled level never shows up. Unknown types are ignored.
  virtual void measureTime(uint32_t histogram_type, uint64_t value) = 0;
  // The same as measureTime (RocksDB spells it both ways).
  void reportTimeToHistogram(uint32_t histogram_type, uint64_t value) {
    measureTime(histogram_type, value);
  }

  // Stores a summary of a histogram in *data (all zero when empty or
  // unknown). data is borrowed for the call. REQUIRES: data != nullptr.
  virtual void histogramData(uint32_t histogram_type,
                             HistogramData* data) const = 0;

  // A multi-line report of one histogram: count, average, standard
  // deviation, min, median, max and percentiles (the implementation from
  // CreateDBStatistics() adds one line per non-empty bucket).
  virtual std::string getHistogramString(uint32_t histogram_type) const;

  // Every ticker, one line each, then every histogram, one line each,
  // RocksDB-style:
  //   cascadedb.bytes.written COUNT : 1234
  //   cascadedb.db.get.micros P50 : 1.2 P95 : ... P99 : ... P100 : ...
  //       COUNT : 10 SUM : 45        (one line)
  virtual std::string ToString() const;

  // Stores every ticker as name -> value in *map (entries for other keys are
  // kept). Returns true. REQUIRES: map != nullptr.
  virtual bool getTickerMap(std::map<std::string, uint64_t>* map) const;

  // Sets every ticker to zero and empties every histogram. Figures recorded
  // concurrently with Reset may be kept or lost.
  virtual void Reset() = 0;

  // True if values for this histogram are recorded at the current stats
  // level: callers test it before reading the clock for a timer, so that
  // disabled timers cost nothing. False for unknown types.
  virtual bool HistEnabledForType(uint32_t histogram_type) const;

  // The stats level; may be changed at any time. Default:
  // StatsLevel::kExceptDetailedTimers.
  StatsLevel get_stats_level() const {
    // Relaxed: the level only decides whether future figures are taken; no
    // other memory is published with it.
    return stats_level_.load(std::memory_order_relaxed);
  }
  void set_stats_level(StatsLevel level) {
    stats_level_.store(level, std::memory_order_relaxed);
  }

 private:
  std::atomic<StatsLevel> stats_level_{StatsLevel::kExceptDetailedTimers};
};

// The standard collector: per-CPU sharded tickers and histograms.
std::shared_ptr<Statistics> CreateDBStatistics();

// Null-safe shorthands for the engine's call sites: they do nothing when
// statistics is nullptr (statistics turned off).
inline void RecordTick(Statistics* statistics, uint32_t ticker_type,
                       uint64_t count = 1) {
  if (statistics != nullptr) statistics->recordTick(ticker_type, count);
}
inline void RecordInHistogram(Statistics* statistics, uint32_t histogram_type,
                              uint64_t value) {
  if (statistics != nullptr) statistics->measureTime(histogram_type, value);
}
// True if a timer for histogram_type should be started.
inline bool StatsTimerEnabled(const Statistics* statistics,
                              uint32_t histogram_type) {
  return statistics != nullptr &&
         statistics->HistEnabledForType(histogram_type);
}

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_STATISTICS_H_

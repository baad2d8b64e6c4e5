// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Tests for Statistics (include/cascadedb/statistics.h, util/statistics.cc):
// ticker arithmetic, exact totals under concurrent recording, histogram
// summaries, stats levels, names and the text report.

#include "cascadedb/statistics.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace cascadedb {
namespace {

TEST(StatisticsTest, NewStatisticsAreZero) {
  auto stats = CreateDBStatistics();
  for (uint32_t t = 0; t < kTickerEnumMax; t++) {
    EXPECT_EQ(0u, stats->getTickerCount(t)) << TickerName(t);
  }
  for (uint32_t h = 0; h < kHistogramEnumMax; h++) {
    HistogramData data;
    stats->histogramData(h, &data);
    EXPECT_EQ(0u, data.count) << HistogramName(h);
    EXPECT_EQ(0u, data.sum) << HistogramName(h);
    EXPECT_EQ(0.0, data.max) << HistogramName(h);
  }
}

TEST(StatisticsTest, RecordTickAddsToOneTickerOnly) {
  auto stats = CreateDBStatistics();
  stats->recordTick(kBytesWritten, 100);
  stats->recordTick(kBytesWritten, 23);
  stats->recordTick(kNumberKeysWritten);
  stats->recordTick(kNumberKeysWritten);
  EXPECT_EQ(123u, stats->getTickerCount(kBytesWritten));
  EXPECT_EQ(2u, stats->getTickerCount(kNumberKeysWritten));
  for (uint32_t t = 0; t < kTickerEnumMax; t++) {
    if (t == kBytesWritten || t == kNumberKeysWritten) continue;
    EXPECT_EQ(0u, stats->getTickerCount(t)) << TickerName(t);
  }
}

TEST(StatisticsTest, SetTickerCountReplacesTheValue) {
  auto stats = CreateDBStatistics();
  stats->recordTick(kWalFileBytes, 500);
  stats->setTickerCount(kWalFileBytes, 7);
  EXPECT_EQ(7u, stats->getTickerCount(kWalFileBytes));
  stats->recordTick(kWalFileBytes, 3);
  EXPECT_EQ(10u, stats->getTickerCount(kWalFileBytes));
}

TEST(StatisticsTest, UnknownTypesAreIgnored) {
  auto stats = CreateDBStatistics();
  stats->recordTick(kTickerEnumMax, 5);
  stats->recordTick(kTickerEnumMax + 1000, 5);
  stats->setTickerCount(kTickerEnumMax, 5);
  stats->measureTime(kHistogramEnumMax, 5);
  EXPECT_EQ(0u, stats->getTickerCount(kTickerEnumMax));
  HistogramData data;
  data.count = 99;
  stats->histogramData(kHistogramEnumMax, &data);
  EXPECT_EQ(0u, data.count);
  EXPECT_FALSE(stats->HistEnabledForType(kHistogramEnumMax));
  EXPECT_STREQ("cascadedb.unknown", TickerName(kTickerEnumMax));
  EXPECT_STREQ("cascadedb.unknown", HistogramName(kHistogramEnumMax));
}

TEST(StatisticsTest, ConcurrentRecordTickIsExactAfterJoin) {
  auto stats = CreateDBStatistics();
  stats->set_stats_level(StatsLevel::kAll);
  constexpr int kThreads = 4;
  constexpr uint64_t kPerThread = 50000;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; i++) {
    threads.emplace_back([&stats] {
      for (uint64_t n = 0; n < kPerThread; n++) {
        stats->recordTick(kNumberKeysRead);
        stats->recordTick(kBytesRead, 3);
        if (n % 100 == 0) stats->measureTime(kDbGetMicros, n);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(kThreads * kPerThread, stats->getTickerCount(kNumberKeysRead));
  EXPECT_EQ(3 * kThreads * kPerThread, stats->getTickerCount(kBytesRead));
  HistogramData data;
  stats->histogramData(kDbGetMicros, &data);
  EXPECT_EQ(kThreads * kPerThread / 100, data.count);
  uint64_t expected_sum = 0;
  for (uint64_t n = 0; n < kPerThread; n += 100) expected_sum += n;
  EXPECT_EQ(kThreads * expected_sum, data.sum);
}

TEST(StatisticsTest, HistogramSummarizesValues) {
  auto stats = CreateDBStatistics();
  for (uint64_t v = 1; v <= 1000; v++) stats->measureTime(kBytesPerRead, v);
  HistogramData data;
  stats->histogramData(kBytesPerRead, &data);
  EXPECT_EQ(1000u, data.count);
  EXPECT_EQ(500500u, data.sum);
  EXPECT_EQ(1.0, data.min);
  EXPECT_EQ(1000.0, data.max);
  EXPECT_DOUBLE_EQ(500.5, data.average);
  // Population standard deviation of 1..n is sqrt((n^2 - 1) / 12).
  EXPECT_NEAR(288.675, data.standard_deviation, 0.01);
  // Bucket interpolation: within 10% of the exact order statistics.
  EXPECT_NEAR(500.0, data.median, 50.0);
  EXPECT_NEAR(950.0, data.percentile95, 95.0);
  EXPECT_NEAR(990.0, data.percentile99, 99.0);
  EXPECT_NEAR(999.0, data.percentile999, 99.9);
  EXPECT_LE(data.median, data.percentile95);
  EXPECT_LE(data.percentile95, data.percentile99);
  EXPECT_LE(data.percentile99, data.percentile999);
  EXPECT_LE(data.percentile999, data.max);
}

TEST(StatisticsTest, HistogramStringReportsCount) {
  auto stats = CreateDBStatistics();
  stats->measureTime(kBytesPerSync, 4096);
  stats->measureTime(kBytesPerSync, 8192);
  const std::string s = stats->getHistogramString(kBytesPerSync);
  EXPECT_NE(std::string::npos, s.find("Count: 2 ")) << s;
  EXPECT_NE(std::string::npos, s.find("Max: 8192")) << s;
}

TEST(StatisticsTest, DefaultLevelSkipsOnlyDetailedTimers) {
  auto stats = CreateDBStatistics();
  EXPECT_EQ(StatsLevel::kExceptDetailedTimers, stats->get_stats_level());
  EXPECT_FALSE(stats->HistEnabledForType(kDbGetMicros));
  EXPECT_FALSE(stats->HistEnabledForType(kDbWriteMicros));
  EXPECT_FALSE(stats->HistEnabledForType(kDbSeekMicros));
  EXPECT_FALSE(stats->HistEnabledForType(kSstReadMicros));
  EXPECT_TRUE(stats->HistEnabledForType(kFlushMicros));
  EXPECT_TRUE(stats->HistEnabledForType(kCompactionMicros));
  EXPECT_TRUE(stats->HistEnabledForType(kWalFileSyncMicros));
  EXPECT_TRUE(stats->HistEnabledForType(kWriteStallMicros));
  EXPECT_TRUE(stats->HistEnabledForType(kBytesPerWrite));

  // A value for a disabled timer is dropped.
  stats->measureTime(kDbGetMicros, 10);
  stats->measureTime(kFlushMicros, 10);
  HistogramData get;
  HistogramData flush;
  stats->histogramData(kDbGetMicros, &get);
  stats->histogramData(kFlushMicros, &flush);
  EXPECT_EQ(0u, get.count);
  EXPECT_EQ(1u, flush.count);
}

TEST(StatisticsTest, ExceptTimersKeepsOnlySizes) {
  auto stats = CreateDBStatistics();
  stats->set_stats_level(StatsLevel::kExceptTimers);
  EXPECT_FALSE(stats->HistEnabledForType(kDbGetMicros));
  EXPECT_FALSE(stats->HistEnabledForType(kFlushMicros));
  EXPECT_FALSE(stats->HistEnabledForType(kWriteStallMicros));
  EXPECT_TRUE(stats->HistEnabledForType(kBytesPerRead));
  EXPECT_TRUE(stats->HistEnabledForType(kBytesPerSync));
  EXPECT_FALSE(StatsTimerEnabled(stats.get(), kFlushMicros));
  EXPECT_FALSE(StatsTimerEnabled(nullptr, kBytesPerRead));
}

TEST(StatisticsTest, LevelAllEnablesEveryHistogram) {
  auto stats = CreateDBStatistics();
  stats->set_stats_level(StatsLevel::kAll);
  for (uint32_t h = 0; h < kHistogramEnumMax; h++) {
    EXPECT_TRUE(stats->HistEnabledForType(h)) << HistogramName(h);
  }
}

TEST(StatisticsTest, NamesAreUniqueAndPrefixed) {
  std::set<std::string> names;
  for (uint32_t t = 0; t < kTickerEnumMax; t++) {
    const std::string name = TickerName(t);
    EXPECT_EQ(0u, name.rfind("cascadedb.", 0)) << name;
    EXPECT_EQ(std::string::npos, name.find(' ')) << name;
    EXPECT_TRUE(names.insert(name).second) << "duplicate " << name;
  }
  for (uint32_t h = 0; h < kHistogramEnumMax; h++) {
    const std::string name = HistogramName(h);
    EXPECT_EQ(0u, name.rfind("cascadedb.", 0)) << name;
    EXPECT_EQ(std::string::npos, name.find(' ')) << name;
    EXPECT_TRUE(names.insert(name).second) << "duplicate " << name;
  }
}

TEST(StatisticsTest, NamesAreStable) {
  // Spot checks: these names are public and must never change.
  EXPECT_STREQ("cascadedb.bytes.written", TickerName(kBytesWritten));
  EXPECT_STREQ("cascadedb.block.cache.data.miss",
               TickerName(kBlockCacheDataMiss));
  EXPECT_STREQ("cascadedb.stall.l0_slowdown.micros",
               TickerName(kStallL0SlowdownMicros));
  EXPECT_STREQ("cascadedb.bloom.filter.full.true.positive",
               TickerName(kBloomFilterFullTruePositive));
  EXPECT_STREQ("cascadedb.db.get.micros", HistogramName(kDbGetMicros));
  EXPECT_STREQ("cascadedb.bytes.per.sync", HistogramName(kBytesPerSync));
}

TEST(StatisticsTest, ToStringListsEveryTickerAndHistogram) {
  auto stats = CreateDBStatistics();
  stats->recordTick(kCompactWriteBytes, 4242);
  stats->measureTime(kBytesPerWrite, 10);
  stats->measureTime(kBytesPerWrite, 30);
  const std::string s = stats->ToString();
  for (uint32_t t = 0; t < kTickerEnumMax; t++) {
    EXPECT_NE(std::string::npos,
              s.find(std::string(TickerName(t)) + " COUNT : "))
        << TickerName(t);
  }
  for (uint32_t h = 0; h < kHistogramEnumMax; h++) {
    EXPECT_NE(std::string::npos,
              s.find(std::string(HistogramName(h)) + " P50 : "))
        << HistogramName(h);
  }
  EXPECT_NE(std::string::npos,
            s.find("cascadedb.compact.write.bytes COUNT : 4242\n"));
  EXPECT_NE(std::string::npos, s.find("P100 : 30.000000 COUNT : 2 SUM : 40\n"))
      << s;
  // One line per ticker and per histogram.
  size_t lines = 0;
  for (char c : s) lines += c == '\n';
  EXPECT_EQ(static_cast<size_t>(kTickerEnumMax + kHistogramEnumMax), lines);
}

TEST(StatisticsTest, TickerMapHasEveryTicker) {
  auto stats = CreateDBStatistics();
  stats->recordTick(kMemtableHit, 9);
  std::map<std::string, uint64_t> map;
  map["other"] = 1;
  ASSERT_TRUE(stats->getTickerMap(&map));
  EXPECT_EQ(static_cast<size_t>(kTickerEnumMax) + 1, map.size());
  EXPECT_EQ(9u, map["cascadedb.memtable.hit"]);
  EXPECT_EQ(0u, map["cascadedb.memtable.miss"]);
  EXPECT_EQ(1u, map["other"]);
}

TEST(StatisticsTest, ResetClearsTickersAndHistograms) {
  auto stats = CreateDBStatistics();
  stats->recordTick(kBlockCacheHit, 5);
  stats->measureTime(kCompactionMicros, 1000);
  stats->Reset();
  EXPECT_EQ(0u, stats->getTickerCount(kBlockCacheHit));
  HistogramData data;
  stats->histogramData(kCompactionMicros, &data);
  EXPECT_EQ(0u, data.count);
  EXPECT_EQ(0u, data.sum);
  // Recording goes on normally afterwards.
  stats->recordTick(kBlockCacheHit, 2);
  stats->measureTime(kCompactionMicros, 7);
  stats->histogramData(kCompactionMicros, &data);
  EXPECT_EQ(2u, stats->getTickerCount(kBlockCacheHit));
  EXPECT_EQ(1u, data.count);
  EXPECT_EQ(7.0, data.max);
}

TEST(StatisticsTest, NullSafeHelpers) {
  RecordTick(nullptr, kBytesWritten, 5);
  RecordInHistogram(nullptr, kBytesPerRead, 5);
  auto stats = CreateDBStatistics();
  RecordTick(stats.get(), kBytesWritten, 5);
  RecordTick(stats.get(), kBytesWritten);
  RecordInHistogram(stats.get(), kBytesPerRead, 5);
  EXPECT_EQ(6u, stats->getTickerCount(kBytesWritten));
  HistogramData data;
  stats->histogramData(kBytesPerRead, &data);
  EXPECT_EQ(1u, data.count);
}

// A user-defined collector that implements only the pure virtual methods
// inherits the report, map and level handling.
class CountingStatistics : public Statistics {
 public:
  uint64_t getTickerCount(uint32_t t) const override {
    return t < kTickerEnumMax ? tickers_[t] : 0;
  }
  void recordTick(uint32_t t, uint64_t n) override {
    if (t < kTickerEnumMax) tickers_[t] += n;
  }
  void setTickerCount(uint32_t t, uint64_t n) override {
    if (t < kTickerEnumMax) tickers_[t] = n;
  }
  void measureTime(uint32_t h, uint64_t v) override {
    if (h >= kHistogramEnumMax || !HistEnabledForType(h)) return;
    counts_[h]++;
    sums_[h] += v;
  }
  void histogramData(uint32_t h, HistogramData* data) const override {
    *data = HistogramData();
    if (h >= kHistogramEnumMax) return;
    data->count = counts_[h];
    data->sum = sums_[h];
  }
  void Reset() override {}

 private:
  uint64_t tickers_[kTickerEnumMax] = {};
  uint64_t counts_[kHistogramEnumMax] = {};
  uint64_t sums_[kHistogramEnumMax] = {};
};

TEST(StatisticsTest, SubclassInheritsReports) {
  CountingStatistics stats;
  stats.recordTick(kFilesDeleted, 3);
  stats.reportTimeToHistogram(kFlushMicros, 50);
  const std::string s = stats.ToString();
  EXPECT_NE(std::string::npos, s.find("cascadedb.files.deleted COUNT : 3\n"));
  EXPECT_NE(std::string::npos, s.find("cascadedb.flush.micros P50 : "));
  EXPECT_NE(std::string::npos, s.find("COUNT : 1 SUM : 50\n"));
  EXPECT_NE(std::string::npos,
            stats.getHistogramString(kFlushMicros).find("Count: 1 "));
}

}  // namespace
}  // namespace cascadedb

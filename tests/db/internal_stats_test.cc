// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Tests for InternalStats (db/internal_stats.*): the compaction stats table
// built from known figures (level rows, Sum, Int, W-Amp), interval versus
// cumulative views, and the write-amplification map and ratios.

#include "db/internal_stats.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cascadedb/env.h"

namespace cascadedb {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

// An Env whose clock the test sets.
class FakeClockEnv : public EnvWrapper {
 public:
  FakeClockEnv() : EnvWrapper(Env::Default()) {}
  uint64_t NowMicros() override { return now_micros_; }
  void AdvanceSeconds(uint64_t s) { now_micros_ += s * 1000000; }

 private:
  uint64_t now_micros_ = 1000000000;
};

// The whitespace-separated tokens of the table row named name ("L1", "Sum",
// "Int"), or nothing if there is no such row.
std::vector<std::string> Row(const std::string& dump, const std::string& name) {
  std::istringstream lines(dump);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::vector<std::string> tokens;
    std::string token;
    while (words >> token) tokens.push_back(token);
    if (!tokens.empty() && tokens[0] == name) return tokens;
  }
  return {};
}

// Column positions in a row (see InternalStats::DumpStats).
enum Column {
  kLevel = 0,
  kFiles,
  kSize,
  kScore,
  kRead,
  kRn,
  kRnp1,
  kWrite,
  kWnew,
  kMoved,
  kWAmp,
  kRdMBps,
  kWrMBps,
  kCompSec,
  kCpuSec,
  kCompCnt,
  kAvgSec,
  kKeyIn,
  kKeyDrop,
  kNumColumns
};

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

CompactionStats FlushOf(uint64_t bytes, uint64_t micros, uint64_t entries) {
  CompactionStats s;
  s.bytes_written = bytes;
  s.micros = micros;
  s.cpu_micros = micros / 2;
  s.num_output_files = 1;
  s.num_input_records = entries;
  s.count = 1;
  return s;
}

class InternalStatsTest : public ::testing::Test {
 protected:
  FakeClockEnv env_;
};

TEST_F(InternalStatsTest, HeaderNamesEveryColumn) {
  InternalStats stats(7, &env_);
  const std::string dump = stats.DumpStats({}, false);
  const std::vector<std::string> header = Row(dump, "Level");
  const std::vector<std::string> expected = {
      "Level",     "Files",    "Size",      "Score",     "Read(GB)",
      "Rn(GB)",    "Rnp1(GB)", "Write(GB)", "Wnew(GB)",  "Moved(GB)",
      "W-Amp",     "Rd(MB/s)", "Wr(MB/s)",  "Comp(sec)", "CompMergeCPU(sec)",
      "Comp(cnt)", "Avg(sec)", "KeyIn",     "KeyDrop"};
  EXPECT_EQ(expected, header);
  EXPECT_EQ(static_cast<size_t>(kNumColumns), header.size());
}

TEST_F(InternalStatsTest, LevelRowShowsRecordedCompaction) {
  InternalStats stats(7, &env_);
  stats.AddUserBytes(kGiB, 1000);
  CompactionStats c;
  c.bytes_read_non_output_levels = kGiB;
  c.bytes_read_output_level = 2 * kGiB;
  c.bytes_written = 5 * kGiB / 2;
  c.micros = 20000000;
  c.cpu_micros = 15000000;
  c.num_input_records = 3000;
  c.num_dropped_records = 100;
  c.count = 2;
  stats.AddCompactionStats(1, c);
  std::vector<LevelState> levels(2);
  levels[1] = {5, 1, 3 * kGiB, 1.2};

  const std::vector<std::string> row =
      Row(stats.DumpStats(levels, false), "L1");
  const std::vector<std::string> expected = {
      "L1",    "5/1",   "3.00GB", "1.20", "3.000", "1.000", "2.000",
      "2.500", "0.500", "0.000",  "2.50", "153.6", "128.0", "20.00",
      "15.00", "2",     "10.000", "3000", "100"};
  EXPECT_EQ(expected, row);
}

TEST_F(InternalStatsTest, FlushesFormTheL0Row) {
  InternalStats stats(7, &env_);
  stats.AddUserBytes(2 * kGiB, 10);
  stats.AddFlushStats(FlushOf(kGiB, 4000000, 5));
  stats.AddFlushStats(FlushOf(kGiB / 2, 2000000, 5));
  std::vector<LevelState> levels(1);
  levels[0] = {2, 0, 1536 * kMiB, 0.5};

  const std::vector<std::string> row =
      Row(stats.DumpStats(levels, false), "L0");
  ASSERT_EQ(static_cast<size_t>(kNumColumns), row.size());
  EXPECT_EQ("2/0", row[kFiles]);
  EXPECT_EQ("1.50GB", row[kSize]);
  EXPECT_EQ("0.000", row[kRead]);
  EXPECT_EQ("1.500", row[kWrite]);
  EXPECT_EQ("1.500", row[kWnew]);
  // L0: flushed bytes / user bytes.
  EXPECT_EQ("0.75", row[kWAmp]);
  EXPECT_EQ("256.0", row[kWrMBps]);  // 1536 MB in 6 s
  EXPECT_EQ("6.00", row[kCompSec]);
  EXPECT_EQ("3.00", row[kCpuSec]);
  EXPECT_EQ("2", row[kCompCnt]);
  EXPECT_EQ("3.000", row[kAvgSec]);
  EXPECT_EQ("10", row[kKeyIn]);
  EXPECT_EQ(uint64_t{3} * kGiB / 2, stats.flush_bytes());
  EXPECT_EQ(0u, stats.compaction_bytes());
}

TEST_F(InternalStatsTest, SumRowAddsLevelsAndShowsTotalAmplification) {
  InternalStats stats(7, &env_);
  stats.AddUserBytes(kGiB, 100);
  stats.AddFlushStats(FlushOf(kGiB, 1000000, 100));
  CompactionStats to_l1;
  to_l1.bytes_read_non_output_levels = kGiB;
  to_l1.bytes_read_output_level = kGiB;
  to_l1.bytes_written = 2 * kGiB;
  to_l1.count = 1;
  to_l1.micros = 1000000;
  to_l1.num_input_records = 200;
  stats.AddCompactionStats(1, to_l1);
  CompactionStats to_l2;
  to_l2.bytes_read_non_output_levels = kGiB / 2;
  to_l2.bytes_read_output_level = 4 * kGiB;
  to_l2.bytes_written = 9 * kGiB / 2;
  to_l2.count = 3;
  to_l2.micros = 2000000;
  to_l2.num_input_records = 900;
  to_l2.num_dropped_records = 7;
  stats.AddCompactionStats(2, to_l2);
  std::vector<LevelState> levels = {
      {3, 0, kGiB, 0.75}, {4, 0, 2 * kGiB, 1.0}, {10, 2, 20 * kGiB, 0.3}};

  const std::string dump = stats.DumpStats(levels, false);
  const std::vector<std::string> sum = Row(dump, "Sum");
  const std::vector<std::string> expected = {
      "Sum",   "17/2",  "23.00GB", "0.00", "6.500",  "1.500",  "5.000",
      "7.500", "2.500", "0.000",   "7.50", "1664.0", "1920.0", "4.00",
      "0.50",  "5",     "0.800",   "1200", "7"};
  EXPECT_EQ(expected, sum) << dump;
  // Per level W-Amp: Write / Rn.
  EXPECT_EQ("2.00", Row(dump, "L1")[kWAmp]);
  EXPECT_EQ("9.00", Row(dump, "L2")[kWAmp]);
  EXPECT_EQ("1.00", Row(dump, "L0")[kWAmp]);
  EXPECT_TRUE(Contains(
      dump, "Write amplification: total 7.50 (with WAL), 7.50 (without WAL)\n"))
      << dump;
}

TEST_F(InternalStatsTest, OnlyLevelsWithFilesOrJobsHaveRows) {
  InternalStats stats(7, &env_);
  CompactionStats move;
  move.bytes_moved = 128 * kMiB;
  move.count = 1;
  stats.AddCompactionStats(4, move);
  std::vector<LevelState> levels(7);
  levels[3] = {1, 0, 10 * kMiB, 0.1};

  const std::string dump = stats.DumpStats(levels, false);
  EXPECT_TRUE(Row(dump, "L0").empty());
  EXPECT_TRUE(Row(dump, "L1").empty());
  EXPECT_TRUE(Row(dump, "L2").empty());
  EXPECT_EQ("10.00MB", Row(dump, "L3")[kSize]);
  const std::vector<std::string> l4 = Row(dump, "L4");
  ASSERT_EQ(static_cast<size_t>(kNumColumns), l4.size());
  EXPECT_EQ("0/0", l4[kFiles]);
  EXPECT_EQ("0.125", l4[kMoved]);  // 128 MiB = 0.125 GiB
  EXPECT_EQ("0.000", l4[kWrite]);
  EXPECT_EQ("0.00", l4[kWAmp]);  // nothing read from L3
  EXPECT_TRUE(Row(dump, "L5").empty());
  EXPECT_FALSE(Row(dump, "Sum").empty());
  EXPECT_FALSE(Row(dump, "Int").empty());
  // A trivial move writes nothing: no amplification.
  EXPECT_EQ(0u, stats.compaction_bytes());
}

TEST_F(InternalStatsTest, IntervalCoversFiguresSinceTheBaseline) {
  InternalStats stats(7, &env_);
  stats.AddUserBytes(kGiB, 10, 5);
  stats.AddWalBytes(kGiB, 1);
  stats.AddFlushStats(FlushOf(kGiB, 1000000, 10));
  env_.AdvanceSeconds(20);
  const std::string first = stats.DumpStats({}, true);
  // The first interval is the whole run.
  EXPECT_EQ("1.000", Row(first, "Int")[kWrite]);
  EXPECT_TRUE(Contains(first, "Uptime(secs): 20.0 total, 20.0 interval\n"));

  stats.AddUserBytes(kGiB, 30, 7);
  stats.AddWalBytes(2 * kGiB, 0);
  stats.AddFlushStats(FlushOf(2 * kGiB, 2000000, 30));
  env_.AdvanceSeconds(10);
  const std::string second = stats.DumpStats({}, true);
  EXPECT_EQ("3.000", Row(second, "Sum")[kWrite]);
  EXPECT_EQ("2", Row(second, "Sum")[kCompCnt]);
  const std::vector<std::string> interval = Row(second, "Int");
  EXPECT_EQ("2.000", interval[kWrite]);
  EXPECT_EQ("1", interval[kCompCnt]);
  EXPECT_EQ("2.00", interval[kWAmp]);  // 2 GiB flushed for 1 GiB of user data
  EXPECT_EQ("30", interval[kKeyIn]);
  EXPECT_TRUE(Contains(second, "Uptime(secs): 30.0 total, 10.0 interval\n"))
      << second;
  EXPECT_TRUE(
      Contains(second,
               "Flush(GB): cumulative 3.000, interval 2.000; flushes: 2 "
               "cumulative, 1 interval\n"))
      << second;
  EXPECT_TRUE(Contains(second,
                       "Cumulative writes: 12 writes, 40 keys, ingest: 2.000 "
                       "GB, 68.27 MB/s\n"))
      << second;
  EXPECT_TRUE(Contains(second,
                       "Interval writes: 7 writes, 30 keys, ingest: 1.000 GB, "
                       "102.40 MB/s\n"))
      << second;
  EXPECT_TRUE(Contains(second,
                       "Cumulative WAL: 2 writes, 1 syncs, written: 3.000 GB, "
                       "102.40 MB/s\n"))
      << second;
  EXPECT_TRUE(Contains(second,
                       "Interval WAL: 1 writes, 0 syncs, written: 2.000 GB, "
                       "204.80 MB/s\n"))
      << second;
  // Cumulative: (3 WAL + 3 flush) / 2 user; interval: (2 + 2) / 1.
  EXPECT_TRUE(Contains(
      second,
      "Write amplification: total 3.00 (with WAL), 1.50 (without WAL)\n"))
      << second;
  EXPECT_TRUE(Contains(second,
                       "Interval write amplification: 4.00 (with WAL), 2.00 "
                       "(without WAL)\n"))
      << second;
}

TEST_F(InternalStatsTest, DumpWithoutBaselineUpdateKeepsTheInterval) {
  InternalStats stats(7, &env_);
  stats.AddUserBytes(kGiB, 1);
  stats.AddFlushStats(FlushOf(kGiB, 1000000, 1));
  const std::string first = stats.DumpStats({}, false);
  const std::string second = stats.DumpStats({}, false);
  EXPECT_EQ("1.000", Row(first, "Int")[kWrite]);
  EXPECT_EQ(Row(first, "Int"), Row(second, "Int"));
  const std::string third = stats.DumpStats({}, true);
  EXPECT_EQ("1.000", Row(third, "Int")[kWrite]);
  const std::string fourth = stats.DumpStats({}, false);
  EXPECT_EQ("0.000", Row(fourth, "Int")[kWrite]);
  EXPECT_EQ("0", Row(fourth, "Int")[kCompCnt]);
  EXPECT_EQ("1.000", Row(fourth, "Sum")[kWrite]);
}

TEST_F(InternalStatsTest, CompactionLinesExcludeFlushes) {
  InternalStats stats(7, &env_);
  stats.AddFlushStats(FlushOf(kGiB, 5000000, 1));
  CompactionStats c;
  c.bytes_read_non_output_levels = kGiB;
  c.bytes_read_output_level = kGiB;
  c.bytes_written = 2 * kGiB;
  c.micros = 3000000;
  c.count = 1;
  stats.AddCompactionStats(1, c);
  env_.AdvanceSeconds(10);
  const std::string dump = stats.DumpStats({}, false);
  EXPECT_TRUE(Contains(dump,
                       "Cumulative compaction: 2.000 GB write, 204.80 MB/s "
                       "write, 2.000 GB read, 204.80 MB/s read, 3.0 seconds\n"))
      << dump;
}

TEST_F(InternalStatsTest, WriteAmpMapValuesAreExact) {
  InternalStats stats(7, &env_);
  stats.AddUserBytes(1000, 10);
  stats.AddWalBytes(1100, 1);
  stats.AddFlushStats(FlushOf(900, 10, 10));
  CompactionStats c;
  c.bytes_read_non_output_levels = 900;
  c.bytes_read_output_level = 1800;
  c.bytes_written = 2700;
  c.count = 1;
  stats.AddCompactionStats(1, c);

  std::map<std::string, std::string> m;
  m["unrelated"] = "kept";
  stats.GetWriteAmpMap(&m);
  const std::map<std::string, std::string> expected = {
      {"unrelated", "kept"},        {"user-bytes", "1000"},
      {"wal-bytes", "1100"},        {"flush-bytes", "900"},
      {"compaction-bytes", "2700"}, {"waf", "4.700"},
      {"waf-no-wal", "3.600"},      {"L0.write-bytes", "900"},
      {"L0.read-bytes", "0"},       {"L0.waf", "0.900"},
      {"L1.write-bytes", "2700"},   {"L1.read-bytes", "2700"},
      {"L1.waf", "3.000"},
  };
  EXPECT_EQ(expected, m);
  EXPECT_DOUBLE_EQ(4.7, stats.WriteAmplification(true));
  EXPECT_DOUBLE_EQ(3.6, stats.WriteAmplification(false));
}

TEST_F(InternalStatsTest, WritesToLevelZeroAreFlushBytes) {
  InternalStats stats(7, &env_);
  stats.AddUserBytes(100, 1);
  stats.AddCompactionStats(0, FlushOf(80, 10, 1));
  stats.AddFlushStats(FlushOf(40, 10, 1));
  CompactionStats c;
  c.bytes_read_non_output_levels = 120;
  c.bytes_written = 110;
  c.count = 1;
  stats.AddCompactionStats(1, c);
  EXPECT_EQ(120u, stats.flush_bytes());
  EXPECT_EQ(110u, stats.compaction_bytes());
  std::map<std::string, std::string> m;
  stats.GetWriteAmpMap(&m);
  EXPECT_EQ("120", m["flush-bytes"]);
  EXPECT_EQ("110", m["compaction-bytes"]);
  EXPECT_EQ("2.300", m["waf-no-wal"]);
  EXPECT_EQ("1.200", m["L0.waf"]);
}

TEST_F(InternalStatsTest, ZeroUserBytesMeansZeroAmplification) {
  InternalStats stats(7, &env_);
  // A flush with no user writes (e.g. of WAL entries replayed at Open).
  stats.AddFlushStats(FlushOf(4096, 10, 3));
  stats.AddWalBytes(100, 0);
  EXPECT_EQ(0.0, stats.WriteAmplification(true));
  EXPECT_EQ(0.0, stats.WriteAmplification(false));
  std::map<std::string, std::string> m;
  stats.GetWriteAmpMap(&m);
  EXPECT_EQ("0", m["user-bytes"]);
  EXPECT_EQ("0.000", m["waf"]);
  EXPECT_EQ("0.000", m["waf-no-wal"]);
  EXPECT_EQ("0.000", m["L0.waf"]);
  const std::string dump = stats.DumpStats({}, true);
  EXPECT_EQ("0.00", Row(dump, "L0")[kWAmp]);
  EXPECT_EQ("0.00", Row(dump, "Sum")[kWAmp]);
  EXPECT_TRUE(Contains(
      dump,
      "Write amplification: total 0.00 (with WAL), 0.00 (without WAL)\n"));
}

TEST_F(InternalStatsTest, EmptyStatsDumpHasOnlySumAndInt) {
  InternalStats stats(3, &env_);
  const std::string dump = stats.DumpStats({}, true);
  EXPECT_TRUE(Row(dump, "L0").empty());
  const std::vector<std::string> sum = Row(dump, "Sum");
  ASSERT_EQ(static_cast<size_t>(kNumColumns), sum.size());
  EXPECT_EQ("0/0", sum[kFiles]);
  EXPECT_EQ("0B", sum[kSize]);
  EXPECT_EQ("0.000", sum[kWrite]);
  EXPECT_TRUE(Contains(dump, "Cumulative writes: 0 writes, 0 keys"));
  std::map<std::string, std::string> m;
  stats.GetWriteAmpMap(&m);
  EXPECT_EQ(6u, m.size());  // no level has writes
}

TEST_F(InternalStatsTest, GettersReturnCumulativeFigures) {
  InternalStats stats(4, &env_);
  stats.AddUserBytes(300, 3, 2);
  stats.AddWalBytes(350, 0);
  stats.AddWalBytes(0, 2);
  stats.AddFlushStats(FlushOf(200, 10, 3));
  CompactionStats c;
  c.bytes_read_non_output_levels = 200;
  c.bytes_written = 190;
  c.num_output_files = 1;
  c.count = 1;
  stats.AddCompactionStats(3, c);
  stats.AddCompactionStats(3, c);
  EXPECT_EQ(4, stats.num_levels());
  EXPECT_EQ(300u, stats.user_bytes());
  EXPECT_EQ(3u, stats.user_keys());
  EXPECT_EQ(2u, stats.user_writes());
  EXPECT_EQ(350u, stats.wal_bytes());
  EXPECT_EQ(1u, stats.wal_writes());
  EXPECT_EQ(2u, stats.wal_syncs());
  EXPECT_EQ(200u, stats.flush_bytes());
  EXPECT_EQ(380u, stats.compaction_bytes());
  const CompactionStats l3 = stats.GetLevelStats(3);
  EXPECT_EQ(400u, l3.bytes_read_non_output_levels);
  EXPECT_EQ(380u, l3.bytes_written);
  EXPECT_EQ(2, l3.num_output_files);
  EXPECT_EQ(2, l3.count);
  EXPECT_EQ(200u, stats.GetLevelStats(0).bytes_written);
  EXPECT_EQ(0, stats.GetLevelStats(4).count);   // out of range
  EXPECT_EQ(0, stats.GetLevelStats(-1).count);  // out of range
  EXPECT_EQ(1, stats.GetLevelStats(0).count);
  // (350 + 200 + 380) / 300
  EXPECT_DOUBLE_EQ(930.0 / 300.0, stats.WriteAmplification(true));
}

TEST(CompactionStatsTest, SubtractUndoesAdd) {
  CompactionStats a;
  a.micros = 10;
  a.cpu_micros = 9;
  a.bytes_read_non_output_levels = 8;
  a.bytes_read_output_level = 7;
  a.bytes_written = 6;
  a.bytes_moved = 5;
  a.num_input_files_in_non_output_levels = 4;
  a.num_input_files_in_output_level = 3;
  a.num_output_files = 2;
  a.num_input_records = 100;
  a.num_dropped_records = 1;
  a.count = 1;
  CompactionStats b = a;
  b.Add(a);
  EXPECT_EQ(20u, b.micros);
  EXPECT_EQ(30u, b.bytes_read());
  EXPECT_EQ(8, b.num_input_files_in_non_output_levels);
  EXPECT_EQ(200u, b.num_input_records);
  EXPECT_EQ(2, b.count);
  b.Subtract(a);
  EXPECT_EQ(a.micros, b.micros);
  EXPECT_EQ(a.cpu_micros, b.cpu_micros);
  EXPECT_EQ(a.bytes_read_non_output_levels, b.bytes_read_non_output_levels);
  EXPECT_EQ(a.bytes_read_output_level, b.bytes_read_output_level);
  EXPECT_EQ(a.bytes_written, b.bytes_written);
  EXPECT_EQ(a.bytes_moved, b.bytes_moved);
  EXPECT_EQ(a.num_input_files_in_non_output_levels,
            b.num_input_files_in_non_output_levels);
  EXPECT_EQ(a.num_input_files_in_output_level,
            b.num_input_files_in_output_level);
  EXPECT_EQ(a.num_output_files, b.num_output_files);
  EXPECT_EQ(a.num_input_records, b.num_input_records);
  EXPECT_EQ(a.num_dropped_records, b.num_dropped_records);
  EXPECT_EQ(a.count, b.count);
}

TEST_F(InternalStatsTest, ConcurrentRecordingIsExact) {
  InternalStats stats(7, &env_);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 10000;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; i++) {
    threads.emplace_back([&stats, i] {
      CompactionStats c;
      c.bytes_written = 3;
      c.bytes_read_non_output_levels = 1;
      c.count = 1;
      for (int n = 0; n < kPerThread; n++) {
        stats.AddUserBytes(10, 1);
        stats.AddWalBytes(11, n % 10 == 0 ? 1 : 0);
        if (n % 100 == 0) stats.AddCompactionStats(1 + i % 2, c);
        if (n % 1000 == 0) {
          std::map<std::string, std::string> m;
          stats.GetWriteAmpMap(&m);
          (void)stats.DumpStats({}, i == 0);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(uint64_t{10} * kThreads * kPerThread, stats.user_bytes());
  EXPECT_EQ(uint64_t{kThreads} * kPerThread, stats.user_keys());
  EXPECT_EQ(uint64_t{11} * kThreads * kPerThread, stats.wal_bytes());
  EXPECT_EQ(uint64_t{kThreads} * kPerThread / 10, stats.wal_syncs());
  EXPECT_EQ(uint64_t{3} * kThreads * kPerThread / 100,
            stats.compaction_bytes());
  EXPECT_EQ(kThreads * kPerThread / 100 / 2, stats.GetLevelStats(1).count);
  EXPECT_EQ(kThreads * kPerThread / 100 / 2, stats.GetLevelStats(2).count);
}

}  // namespace
}  // namespace cascadedb

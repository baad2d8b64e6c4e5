// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Tests of db_bench: its building blocks (latency histogram and recorder,
// common-gap search, key and value generators, live-key set, flag parsing
// and validation) directly, and the binary as users run it: every
// benchmark name on a tiny workload prints its report line, bad flag
// values exit 2 with one line on stderr, and --report_dir writes
// timeline.csv and summary.json with the documented columns and keys.
//
// Thread safety: tests run one at a time (gflags state is global).

#include <gflags/gflags.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "benchmarks/db_bench/engine.h"
#include "benchmarks/db_bench/flags.h"
#include "benchmarks/db_bench/generators.h"
#include "benchmarks/db_bench/latency.h"
#include "benchmarks/db_bench/report.h"
#include "benchmarks/db_bench/sysinfo.h"
#include "benchmarks/db_bench/timeline.h"
#include "cascadedb/options.h"
#include "tests/testutil/test_util.h"
#include "util/compression.h"
#include "util/random.h"
#include "util/thread_pool.h"

#ifndef CASCADEDB_DB_BENCH_PATH
#error "CASCADEDB_DB_BENCH_PATH must name the db_bench binary"
#endif
#ifndef CASCADEDB_LATENCY_FLOOR_PATH
#error "CASCADEDB_LATENCY_FLOOR_PATH must name the latency_floor binary"
#endif

namespace cascadedb {
namespace db_bench {
namespace {

// ---------------------------------------------------------------- histogram

TEST(LatencyHistogramTest, EveryValueFallsInABucketWithin2Percent) {
  const uint32_t seed = test::RandomSeed();
  Random64 rnd(seed);
  std::vector<uint64_t> values = {
      0, 1, 63, 64, 65, 127, 128, 1000, 999999, UINT64_MAX / 2, UINT64_MAX};
  for (int i = 0; i < 10000; i++) {
    values.push_back(rnd.Next() >> rnd.Uniform(64));
  }
  for (uint64_t v : values) {
    const int b = LatencyHistogram::BucketFor(v);
    ASSERT_GE(b, 0);
    ASSERT_LT(b, LatencyHistogram::kNumBuckets);
    const uint64_t low = LatencyHistogram::BucketLow(b);
    const uint64_t high = LatencyHistogram::BucketHigh(b);
    ASSERT_LE(low, v) << v;
    if (high != UINT64_MAX) {
      ASSERT_LT(v, high) << v;
    }
    if (low >= 64 && high != UINT64_MAX) {
      ASSERT_LE(static_cast<double>(high - low) / static_cast<double>(low),
                1.0 / 64 + 1e-12)
          << v;
    }
  }
}

TEST(LatencyHistogramTest, PercentilesOfAUniformSpread) {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 100000; v++) h.Add(v);
  EXPECT_EQ(100000u, h.Count());
  EXPECT_NEAR(50000, h.PercentileNanos(50), 50000 * 0.02);
  EXPECT_NEAR(99000, h.PercentileNanos(99), 99000 * 0.02);
  EXPECT_EQ(100000u, h.MaxNanos());
  EXPECT_EQ(1u, h.MinNanos());
  EXPECT_DOUBLE_EQ(100000, h.PercentileNanos(100));
  const auto cdf = h.Cdf();
  ASSERT_FALSE(cdf.empty());
  EXPECT_DOUBLE_EQ(1.0, cdf.back().second);
}

TEST(LatencyHistogramTest, MergeAddsCounts) {
  LatencyHistogram a;
  LatencyHistogram b;
  a.Add(10);
  b.Add(5000);
  b.Add(7000);
  a.Merge(b);
  EXPECT_EQ(3u, a.Count());
  EXPECT_EQ(10u, a.MinNanos());
  EXPECT_EQ(7000u, a.MaxNanos());
  EXPECT_EQ(12010u, a.SumNanos());
}

TEST(LatencyFloorTest, EveryOpTakesAtLeastItsTimeAndTheRunItsDuration) {
  const uint64_t start = NowNanos();
  const LatencyHistogram h = MeasureLatencyFloor(/*op_nanos=*/20 * 1000,
                                                 /*duration_nanos=*/30000000);
  const uint64_t took = NowNanos() - start;
  EXPECT_GE(took, 30000000u);
  // 30 ms of 20 us ops: at most 1500, and well over a few unless the
  // thread lost its CPU for most of the run.
  EXPECT_LE(h.Count(), 1500u);
  EXPECT_GE(h.Count(), 10u);
  EXPECT_GE(h.MinNanos(), 20u * 1000);
  EXPECT_LE(h.SumNanos(), took);
}

TEST(LatencyFloorTest, AnOpLongerThanTheDurationStillRunsOnce) {
  const LatencyHistogram h = MeasureLatencyFloor(/*op_nanos=*/2000000,
                                                 /*duration_nanos=*/1);
  EXPECT_EQ(1u, h.Count());
  EXPECT_GE(h.MinNanos(), 2000000u);
}

// ---------------------------------------------------------------- recorder

TEST(LatencyRecorderTest, ClassesSplitOpsAndTime) {
  LatencyRecorder r;
  r.Start(0);
  uint64_t t = 0;
  for (uint64_t ns : {5000ull, 500000ull, 5000000ull, 50000000ull}) {
    r.Record(t, t + ns);
    t += ns;
  }
  r.Finish(t);
  const ClassBreakdown& c = r.classes();
  for (int i = 0; i < kNumLatencyClasses; i++) EXPECT_EQ(1u, c.ops[i]);
  EXPECT_EQ(5000u, c.nanos[0]);
  EXPECT_EQ(50000000u, c.nanos[3]);
  EXPECT_EQ(4u, r.ops());
  const LatencyHistogram h = r.Histogram();
  EXPECT_EQ(4u, h.Count());
  EXPECT_EQ(50000000u, h.MaxNanos());
  EXPECT_EQ(5000u, h.MinNanos());
}

TEST(LatencyRecorderTest, IntervalMaxIsTakenOnce) {
  LatencyRecorder r;
  r.Start(0);
  r.Record(0, 700);
  r.Record(700, 900);
  EXPECT_EQ(700u, r.TakeIntervalMax());
  EXPECT_EQ(0u, r.TakeIntervalMax());
}

TEST(LongestCommonGapTest, OneThreadGivesItsLongestGap) {
  LatencyRecorder r;
  r.Start(0);
  r.Record(0, 100);
  r.Record(100, 5000000);  // a 5 ms gap after the first completion
  r.Record(5000000, 5000100);
  r.Finish(5000100);
  bool below = true;
  EXPECT_EQ(4999900u, LongestCommonGap({&r}, 0, 5000100, &below));
  EXPECT_FALSE(below);
}

TEST(LongestCommonGapTest, ThreadsCoverEachOthersGaps) {
  const uint64_t ms = 1000 * 1000;
  // Thread a completes ops at 1, 10 and 20 ms; thread b at 2, 4, 6, 12 and
  // 20 ms. Together they complete nothing between 12 and 20 ms: 8 ms, longer
  // than any other stretch, though each thread alone has a 10 ms gap.
  LatencyRecorder a;
  LatencyRecorder b;
  a.Start(0);
  b.Start(0);
  for (uint64_t t : {1 * ms, 10 * ms, 20 * ms}) a.Record(t - 1, t);
  for (uint64_t t : {2 * ms, 4 * ms, 6 * ms, 12 * ms, 20 * ms}) {
    b.Record(t - 1, t);
  }
  a.Finish(20 * ms);
  b.Finish(20 * ms);
  EXPECT_EQ(10 * ms, a.max_gap());
  bool below = true;
  EXPECT_EQ(8 * ms, LongestCommonGap({&a, &b}, 0, 20 * ms, &below));
  EXPECT_FALSE(below);
}

TEST(LongestCommonGapTest, ShortCommonGapsAreReportedAsBelowThreshold) {
  LatencyRecorder a;
  LatencyRecorder b;
  a.Start(0);
  b.Start(0);
  for (uint64_t t = 1000; t <= 100000; t += 1000) {
    a.Record(t - 10, t);
    b.Record(t - 10, t + 500);
  }
  a.Finish(100000);
  b.Finish(100500);
  bool below = false;
  EXPECT_EQ(0u, LongestCommonGap({&a, &b}, 0, 100500, &below));
  EXPECT_TRUE(below);
}

TEST(IntersectIntervalsTest, KeepsOnlyOverlaps) {
  const std::vector<Interval> a = {{0, 10}, {20, 30}, {40, 50}};
  const std::vector<Interval> b = {{5, 25}, {45, 60}};
  const std::vector<Interval> c = IntersectIntervals(a, b);
  ASSERT_EQ(3u, c.size());
  EXPECT_EQ(5u, c[0].begin);
  EXPECT_EQ(10u, c[0].end);
  EXPECT_EQ(20u, c[1].begin);
  EXPECT_EQ(25u, c[1].end);
  EXPECT_EQ(45u, c[2].begin);
  EXPECT_EQ(50u, c[2].end);
}

// ---------------------------------------------------------------- generators

TEST(KeyFormatterTest, ZeroPaddedDecimalAndMissingTwin) {
  KeyFormatter keys(16);
  char buf[16];
  EXPECT_EQ("0000000000001234", keys.Format(1234, buf));
  EXPECT_EQ("0000000000000000", keys.Format(0, buf));
  EXPECT_EQ("000000000000123.", keys.FormatMissing(1234, buf));
  KeyFormatter short_keys(4);
  EXPECT_EQ("0042", short_keys.Format(42, buf));
  EXPECT_EQ(1, DecimalDigits(0));
  EXPECT_EQ(4, DecimalDigits(1999));
  EXPECT_EQ(20, DecimalDigits(UINT64_MAX));
}

TEST(ValueGeneratorTest, ValuesCompressToTheRequestedRatio) {
  for (double ratio : {0.25, 0.5}) {
    ValueGenerator gen(301, ratio, 100);
    std::string block;
    while (block.size() < 64 * 1024) {
      std::string_view v = gen.Next(100);
      block.append(v.data(), v.size());
    }
    std::string compressed;
    ASSERT_TRUE(CompressBlock(kSnappyCompression, kDefaultCompressionLevel,
                              block, &compressed));
    const double got = static_cast<double>(compressed.size()) /
                       static_cast<double>(block.size());
    EXPECT_GT(got, ratio * 0.8) << ratio;
    EXPECT_LT(got, ratio * 1.4) << ratio;
  }
  ValueGenerator incompressible(301, 1.0, 100);
  std::string block;
  while (block.size() < 64 * 1024) {
    std::string_view v = incompressible.Next(100);
    block.append(v.data(), v.size());
  }
  std::string compressed;
  if (CompressBlock(kSnappyCompression, kDefaultCompressionLevel, block,
                    &compressed)) {
    EXPECT_GT(compressed.size(), block.size() * 8 / 10);
  }
}

TEST(LiveKeySetTest, CountsPutsDeletesAndLargeValues) {
  LiveKeySet live(1000);
  live.Put(1, false);
  live.Put(1, false);
  live.Put(2, true);
  live.Put(999, false);
  live.Put(5000, false);  // outside the key space: ignored
  live.Delete(999);
  uint64_t n = 0;
  uint64_t large = 0;
  live.Count(&n, &large);
  EXPECT_EQ(2u, n);
  EXPECT_EQ(1u, large);
  live.Put(2, false);
  live.Count(&n, &large);
  EXPECT_EQ(0u, large);
  live.Clear();
  live.Count(&n, &large);
  EXPECT_EQ(0u, n);
}

TEST(LiveKeySetTest, KeysAcrossWordsKeepTheirOwnBits) {
  // 64 keys share a word: keys on either side of the boundaries, and the
  // last key of a partial word, each keep their own live and large bits.
  LiveKeySet live(130);
  live.Prefetch(129);
  live.Prefetch(130);  // outside the key space: harmless
  live.Put(63, true);
  live.Put(64, false);
  live.Put(127, false);
  live.Put(128, true);
  live.Put(129, true);
  uint64_t n = 0;
  uint64_t large = 0;
  live.Count(&n, &large);
  EXPECT_EQ(5u, n);
  EXPECT_EQ(3u, large);
  live.Put(63, false);  // rewritten small
  live.Delete(128);     // a deleted large key is not live data
  live.Count(&n, &large);
  EXPECT_EQ(4u, n);
  EXPECT_EQ(1u, large);
  live.Delete(64);
  live.Delete(0);  // never written: nothing changes
  live.Count(&n, &large);
  EXPECT_EQ(3u, n);
  EXPECT_EQ(1u, large);
}

// ---------------------------------------------------------------- flags

ParseResult Parse(std::vector<std::string> args, std::string* error) {
  args.insert(args.begin(), "db_bench");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ParseFlags(static_cast<int>(argv.size()), argv.data(), error);
}

// A thread's CPU time grows while it computes, and the process's thread
// list names it.
TEST(SchedstatTest, ThreadFiguresFollowTheThread) {
  const std::optional<ThreadCpuTime> before = ReadThreadSched();
  if (!before) GTEST_SKIP() << "the kernel keeps no schedstat figures";
  volatile uint64_t sink = 0;
  const uint64_t start = NowNanos();
  while (NowNanos() - start < 20 * 1000 * 1000) sink = sink + 1;  // ~20 ms
  const std::optional<ThreadCpuTime> after = ReadThreadSched();
  ASSERT_TRUE(after.has_value());
  EXPECT_GE(after->on_cpu_nanos - before->on_cpu_nanos, 5u * 1000 * 1000);

  std::thread named([] {
    pthread_setname_np(pthread_self(), "schedstat:test");
    const std::optional<std::vector<ProcessThread>> threads =
        ReadProcessThreads();
    ASSERT_TRUE(threads.has_value());
    const long tid = syscall(SYS_gettid);
    bool found = false;
    for (const ProcessThread& t : *threads) {
      if (t.tid == tid) {
        found = true;
        EXPECT_EQ("schedstat:test", t.name);
      }
    }
    EXPECT_TRUE(found);
  });
  named.join();
}

// The steal field is the eighth number of /proc/stat's aggregate line, and
// busy time the sum of user, nice, system, irq and softirq (not idle,
// iowait, steal, nor guest, which user counts already).
TEST(MachineCpuTest, ParsesTheAggregateLinesFields) {
  const std::optional<CpuTicks> t = ParseCpuTicks(
      "cpu  7770121 17293 807430 2639366 128996 5 26390 "
      "12864 700 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(12864u, t->steal);
  EXPECT_EQ(7770121u + 17293u + 807430u + 5u + 26390u, t->busy);
  // A per-CPU line is not the machine's.
  EXPECT_EQ(std::nullopt, ParseCpuTicks("cpu0 1 2 3 4 5 6 7 8 9 10\n"));
  // A kernel before steal accounting has seven fields.
  EXPECT_EQ(std::nullopt, ParseCpuTicks("cpu  1 2 3 4 5 6 7\n"));
  EXPECT_EQ(std::nullopt, ParseCpuTicks("cpu  1 2 x 4 5 6 7 8\n"));
  EXPECT_EQ(std::nullopt, ParseCpuTicks(""));
  // On Linux the machine's figures are there, with at least one CPU.
  const std::optional<MachineCpu> m = ReadMachineCpu();
  if (!m) GTEST_SKIP() << "/proc/stat has no steal field here";
  EXPECT_GE(m->cpus, 1);
}

// The time outside this process is the machine's busy time less the
// process's own, never below zero.
TEST(MachineCpuTest, OutsideProcessIsBusyLessOwnTime) {
  MachineCpu before;
  before.busy_nanos = 1000;
  before.process_nanos = 400;
  MachineCpu after = before;
  after.busy_nanos = 5000;     // 4000 busy in between
  after.process_nanos = 3400;  // 3000 of it this process's
  EXPECT_EQ(1000u, after.OutsideProcessSince(before));
  after.process_nanos = 4900;  // more than the ticks counted
  EXPECT_EQ(0u, after.OutsideProcessSince(before));
  EXPECT_EQ(0u, before.OutsideProcessSince(after));  // counters went back
}

// The page reporting counter is a number of KiB on a line of its own.
TEST(ReportedToHostTest, ParsesTheCountersKib) {
  EXPECT_EQ(uint64_t{1234} * 1024, ParseReportedKib("1234\n"));
  EXPECT_EQ(uint64_t{0}, ParseReportedKib("0"));
  EXPECT_EQ(uint64_t{5} * 1024, ParseReportedKib(" 5\n"));
  EXPECT_EQ(std::nullopt, ParseReportedKib(""));
  EXPECT_EQ(std::nullopt, ParseReportedKib("\n"));
  EXPECT_EQ(std::nullopt, ParseReportedKib("-3\n"));
  EXPECT_EQ(std::nullopt, ParseReportedKib("12 kB\n"));
  // More KiB than 64 bits of bytes hold.
  EXPECT_EQ(std::nullopt, ParseReportedKib("18014398509481984\n"));
  EXPECT_EQ(uint64_t{18014398509481983} * 1024,
            ParseReportedKib("18014398509481983"));
}

TEST(BenchmarkThreadNameTest, NamesFitTheKernelsLimitAndAreRecognized) {
  for (const std::string& name :
       {BenchmarkThreadName(0, false), BenchmarkThreadName(12, false),
        BenchmarkThreadName(1, true)}) {
    EXPECT_LE(name.size(), 15u) << name;  // comm holds 15 bytes
    EXPECT_TRUE(IsBenchmarkThreadName(name)) << name;
  }
  EXPECT_EQ("db_bench:writer", BenchmarkThreadName(3, true));
  for (const char* other : {"db_bench", "db_bench:", "db_bench:sample",
                            "db_bench:1x", "cascadedb:low", "rocksdb:low"}) {
    EXPECT_FALSE(IsBenchmarkThreadName(other)) << other;
  }
}

TEST(ThreadCpuDeltaTest, GroupsByNameAndCountsOnlyWhatHappenedBetween) {
  auto thread = [](int tid, const char* name, uint64_t cpu_ms,
                   uint64_t wait_ms) {
    ProcessThread t;
    t.tid = tid;
    t.name = name;
    t.sched.on_cpu_nanos = cpu_ms * 1000 * 1000;
    t.sched.waiting_nanos = wait_ms * 1000 * 1000;
    return t;
  };
  const std::vector<ProcessThread> begin = {
      thread(10, "main", 500, 10), thread(11, "pool:low", 100, 5),
      thread(12, "pool:low", 200, 0), thread(13, "gone", 50, 1)};
  const std::vector<ProcessThread> end = {
      thread(10, "main", 510, 10), thread(11, "pool:low", 400, 25),
      thread(12, "pool:low", 300, 10),  // 13 exited: left out
      thread(14, "pool:high", 70, 3)};  // started in between: whole
  const std::vector<ThreadGroupCpu> groups = ThreadCpuDelta(begin, end);
  ASSERT_EQ(3u, groups.size());
  EXPECT_EQ("pool:low", groups[0].name);  // largest first
  EXPECT_EQ(2, groups[0].threads);
  EXPECT_NEAR(0.400, groups[0].cpu_seconds, 1e-9);
  EXPECT_NEAR(0.030, groups[0].wait_seconds, 1e-9);
  EXPECT_EQ("pool:high", groups[1].name);
  EXPECT_NEAR(0.070, groups[1].cpu_seconds, 1e-9);
  EXPECT_NEAR(0.003, groups[1].wait_seconds, 1e-9);
  EXPECT_EQ("main", groups[2].name);
  EXPECT_NEAR(0.010, groups[2].cpu_seconds, 1e-9);
  EXPECT_NEAR(0.0, groups[2].wait_seconds, 1e-9);
}

// Memory allocated and freed again while a benchmark runs, gone by its
// end, still counts in its peak of allocated memory: the sampler looks at
// each tick.
TEST(SamplerTest, PeakAllocatedMemoryIsSampledAtEachTick) {
  const std::optional<uint64_t> before = CurrentRssAnonBytes();
  if (!before) GTEST_SKIP() << "no RssAnon in /proc/self/status";
  Sampler sampler(/*engine=*/nullptr, /*sink=*/nullptr,
                  /*progress_interval_s=*/0, /*stats_per_interval=*/false,
                  NowNanos());
  sampler.Start("peak", {}, 0);
  const size_t kBytes = 64 << 20;
  {
    std::unique_ptr<char[]> block(new char[kBytes]);
    std::memset(block.get(), 1, kBytes);  // resident
    // Past the first tick (one a second).
    std::this_thread::sleep_for(std::chrono::milliseconds(1300));
  }
  sampler.Stop();
  ASSERT_TRUE(sampler.peak_rss_anon().has_value());
  EXPECT_GE(*sampler.peak_rss_anon(), *before + kBytes - (4 << 20));
  EXPECT_LT(*CurrentRssAnonBytes(), *sampler.peak_rss_anon() - (32 << 20));
}

TEST(FlagsTest, ParsesEveryForm) {
  gflags::FlagSaver saver;
  std::string error;
  ASSERT_EQ(ParseResult::kOk,
            Parse({"--num=123", "-reads=7", "--threads", "3", "--sync",
                   "--nouse_existing_db", "--compression_ratio=0.25"},
                  &error))
      << error;
  EXPECT_EQ(123, FLAGS_num);
  EXPECT_EQ(7, FLAGS_reads);
  EXPECT_EQ(3, FLAGS_threads);
  EXPECT_TRUE(FLAGS_sync);
  EXPECT_FALSE(FLAGS_use_existing_db);
  EXPECT_DOUBLE_EQ(0.25, FLAGS_compression_ratio);
  EXPECT_TRUE(FlagIsSet("num"));
  EXPECT_FALSE(FlagIsSet("write_buffer_size"));
}

TEST(FlagsTest, RejectsUnknownFlagsAndBadValues) {
  gflags::FlagSaver saver;
  std::string error;
  EXPECT_EQ(ParseResult::kError, Parse({"--no_such_flag=1"}, &error));
  EXPECT_NE(std::string::npos, error.find("no_such_flag")) << error;
  EXPECT_EQ(ParseResult::kError, Parse({"--num=abc"}, &error));
  EXPECT_NE(std::string::npos, error.find("'abc'")) << error;
  EXPECT_EQ(ParseResult::kError, Parse({"stray"}, &error));
  EXPECT_EQ(ParseResult::kError, Parse({"--threads"}, &error));
  EXPECT_EQ(ParseResult::kHelp, Parse({"--help"}, &error));
}

TEST(FlagsTest, ValidationNamesEveryBadFlagOnOneLine) {
  gflags::FlagSaver saver;
  FLAGS_num = 100000;
  FLAGS_key_size = 3;
  FLAGS_compression_type = "brotli";
  FLAGS_benchmarks = "fillrandom,nosuch";
  FLAGS_readwritepercent = 101;
  const std::string error = ValidateFlags();
  EXPECT_NE(std::string::npos, error.find("--key_size=3")) << error;
  EXPECT_NE(std::string::npos, error.find("brotli")) << error;
  EXPECT_NE(std::string::npos, error.find("'nosuch'")) << error;
  EXPECT_NE(std::string::npos, error.find("--readwritepercent=101")) << error;
  EXPECT_EQ(std::string::npos, error.find('\n')) << error;
}

TEST(FlagsTest, DefaultsShownAreCascadeDBsAndUnsetFlagsStayUnset) {
  gflags::FlagSaver saver;
  const Options o;
  EXPECT_EQ(static_cast<int64_t>(o.write_buffer_size), FLAGS_write_buffer_size);
  EXPECT_EQ(o.max_write_buffer_number, FLAGS_max_write_buffer_number);
  EXPECT_EQ(o.num_levels, FLAGS_num_levels);
  EXPECT_EQ(o.level0_file_num_compaction_trigger,
            FLAGS_level0_file_num_compaction_trigger);
  EXPECT_EQ(o.level0_slowdown_writes_trigger,
            FLAGS_level0_slowdown_writes_trigger);
  EXPECT_EQ(o.level0_stop_writes_trigger, FLAGS_level0_stop_writes_trigger);
  EXPECT_EQ(o.max_bytes_for_level_base, FLAGS_max_bytes_for_level_base);
  EXPECT_EQ(o.max_bytes_for_level_multiplier,
            FLAGS_max_bytes_for_level_multiplier);
  EXPECT_EQ(o.target_file_size_base, FLAGS_target_file_size_base);
  EXPECT_EQ(o.target_file_size_multiplier, FLAGS_target_file_size_multiplier);
  EXPECT_EQ(o.max_background_compactions, FLAGS_max_background_compactions);
  EXPECT_EQ(o.max_background_flushes, FLAGS_max_background_flushes);
  EXPECT_EQ(o.bloom_bits_per_key, FLAGS_bloom_bits);
  EXPECT_EQ(o.memtable_prefix_bloom_size_ratio,
            FLAGS_memtable_bloom_size_ratio);
  EXPECT_EQ(o.memtable_whole_key_filtering, FLAGS_memtable_whole_key_filtering);
  EXPECT_EQ(MemTableRepName(o.memtable_rep), FLAGS_memtablerep == "skip_list"
                                                 ? std::string("skiplist")
                                                 : FLAGS_memtablerep);
  EXPECT_EQ(static_cast<int64_t>(o.block_cache_size), FLAGS_cache_size);
  EXPECT_EQ(static_cast<int64_t>(o.block_size), FLAGS_block_size);
  EXPECT_EQ(o.delayed_write_rate, FLAGS_delayed_write_rate);
  EXPECT_EQ(o.soft_pending_compaction_bytes_limit,
            FLAGS_soft_pending_compaction_bytes_limit);
  EXPECT_EQ(o.hard_pending_compaction_bytes_limit,
            FLAGS_hard_pending_compaction_bytes_limit);
  EXPECT_EQ(std::string("snappy"), FLAGS_compression_type);
  EXPECT_EQ(o.bytes_per_sync, FLAGS_bytes_per_sync);
  EXPECT_EQ(o.wal_bytes_per_sync, FLAGS_wal_bytes_per_sync);
  EXPECT_EQ(o.recycle_log_file_num, FLAGS_recycle_log_file_num);
  EXPECT_EQ(o.recycle_table_bytes, FLAGS_recycle_table_bytes);
  EXPECT_EQ(o.long_scan_blocks, FLAGS_long_scan_blocks);
  EXPECT_EQ(o.compaction_copy_blocks, FLAGS_compaction_copy_blocks);
  EXPECT_EQ(o.align_compaction_outputs, FLAGS_align_compaction_outputs);
  EXPECT_EQ(o.stalled_writers_compress, FLAGS_stalled_writers_compress);
  EXPECT_EQ(o.background_yields_to_writers, FLAGS_background_yields_to_writers);
  EXPECT_EQ(ReadOptions().verify_checksums, FLAGS_verify_checksum);
  EXPECT_EQ(o.block_cache_admit_on_second_miss,
            FLAGS_cache_admit_on_second_miss);

  const EngineConfig unset = BuildEngineConfig();
  EXPECT_FALSE(unset.write_buffer_size.has_value());
  EXPECT_FALSE(unset.compression_type.has_value());
  EXPECT_FALSE(unset.bytes_per_sync.has_value());
  EXPECT_FALSE(unset.wal_bytes_per_sync.has_value());
  EXPECT_FALSE(unset.recycle_log_file_num.has_value());
  EXPECT_FALSE(unset.recycle_table_bytes.has_value());
  EXPECT_FALSE(unset.long_scan_blocks.has_value());
  EXPECT_FALSE(unset.cache_admit_on_second_miss.has_value());
  EXPECT_FALSE(unset.compaction_cpu_priority.has_value());
  EXPECT_FALSE(unset.compaction_pri.has_value());
  EXPECT_FALSE(unset.compaction_copy_blocks.has_value());
  EXPECT_FALSE(unset.align_compaction_outputs.has_value());
  EXPECT_FALSE(unset.stalled_writers_compress.has_value());
  EXPECT_FALSE(unset.background_yields_to_writers.has_value());
  EXPECT_FALSE(unset.verify_checksums.has_value());
  EXPECT_FALSE(unset.flush_in_compaction.has_value());
  std::string error;
  ASSERT_EQ(
      ParseResult::kOk,
      Parse({"--write_buffer_size=4194304", "--bloom_bits=0",
             "--bytes_per_sync=65536", "--long_scan_blocks=0",
             "--wal_bytes_per_sync=4096", "--recycle_log_file_num=0",
             "--recycle_table_bytes=0", "--cache_admit_on_second_miss=false",
             "--compaction_cpu_priority=idle", "--compaction_pri=4",
             "--flush_in_compaction=never", "--compaction_copy_blocks=false",
             "--align_compaction_outputs=false", "--verify_checksum=false",
             "--stalled_writers_compress=false",
             "--background_yields_to_writers=false"},
            &error));
  const EngineConfig set = BuildEngineConfig();
  EXPECT_EQ(4194304u, set.write_buffer_size.value_or(0));
  EXPECT_EQ(0.0, set.bloom_bits.value_or(-1));
  EXPECT_EQ(65536u, set.bytes_per_sync.value_or(0));
  EXPECT_EQ(4096u, set.wal_bytes_per_sync.value_or(0));
  EXPECT_EQ(0u, set.recycle_log_file_num.value_or(9));
  EXPECT_EQ(0u, set.recycle_table_bytes.value_or(9));
  EXPECT_EQ(0u, set.long_scan_blocks.value_or(99));
  EXPECT_FALSE(set.cache_admit_on_second_miss.value_or(true));
  EXPECT_EQ("idle", set.compaction_cpu_priority.value_or(""));
  EXPECT_EQ(4, set.compaction_pri.value_or(0));
  EXPECT_EQ("never", set.flush_in_compaction.value_or(""));
  EXPECT_FALSE(set.compaction_copy_blocks.value_or(true));
  EXPECT_FALSE(set.align_compaction_outputs.value_or(true));
  EXPECT_FALSE(set.stalled_writers_compress.value_or(true));
  EXPECT_FALSE(set.background_yields_to_writers.value_or(true));
  EXPECT_FALSE(set.verify_checksums.value_or(true));
}

// ---------------------------------------------------------------- the binary

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Replaces path's contents; false if it could not.
bool WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::trunc);
  out << contents;
  return static_cast<bool>(out);
}

bool FileExists(const std::string& path) { return std::ifstream(path).good(); }

// Runs the shell command cmd (no redirections of its own) with its output
// captured in dir.
RunResult RunCommand(const test::TempDir& dir, const std::string& cmd) {
  const std::string out = dir.File("stdout.txt");
  const std::string err = dir.File("stderr.txt");
  const std::string full = cmd + " >" + out + " 2>" + err;
  const int status = std::system(full.c_str());
  RunResult r;
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  return r;
}

// Runs db_bench with args (no shell metacharacters) in dir.
RunResult RunDbBench(const test::TempDir& dir, const std::string& args) {
  return RunCommand(dir, std::string(CASCADEDB_DB_BENCH_PATH) + " " + args);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// The report line of benchmark name: "<name padded to 12> : ...".
std::string ReportLine(const std::string& out, const std::string& name) {
  for (const std::string& line : Lines(out)) {
    if (line.rfind(name, 0) != 0) continue;
    const size_t colon = line.find(" : ");
    if (colon == std::string::npos) continue;
    bool padding = true;
    for (size_t i = name.size(); i < colon; i++) padding &= line[i] == ' ';
    if (padding) return line;
  }
  return std::string();
}

class DbBenchEngineTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DbBenchEngineTest, EveryBenchmarkPrintsItsReportLine) {
  test::TempDir dir;
  // Every benchmark once, ordered so that the reads follow fillseq (which
  // writes every key) and deleterandom comes after them.
  const std::vector<std::string> names = {"fillsync",
                                          "fill100K",
                                          "fillrandom",
                                          "fillseq",
                                          "overwrite",
                                          "readrandom",
                                          "readmissing",
                                          "readseq",
                                          "readreverse",
                                          "seekrandom",
                                          "readwhilewriting",
                                          "readrandomwriterandom",
                                          "deleterandom",
                                          "compact",
                                          "flush",
                                          "waitforcompaction",
                                          "stats",
                                          "levelstats",
                                          "sstables"};
  ASSERT_EQ(KnownBenchmarks().size(), names.size());
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ",") + n;
  const RunResult r =
      RunDbBench(dir, "--engine=" + GetParam() + " --db=" + dir.File("db") +
                          " --num=2000 --threads=2 --stats_interval_seconds=0"
                          " --benchmarks=" +
                          list);
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;
  for (const std::string& n : names) {
    const std::string line = ReportLine(r.out, n);
    ASSERT_FALSE(line.empty()) << "no report line for " << n << "\n" << r.out;
    const bool is_property =
        n == "stats" || n == "levelstats" || n == "sstables";
    if (!is_property && line.find("skipped") == std::string::npos) {
      EXPECT_NE(std::string::npos, line.find("micros/op")) << line;
      EXPECT_NE(std::string::npos, line.find("ops/sec")) << line;
    }
  }
  // fillseq wrote every key: reads find them all, readmissing none (two
  // threads of 2000 reads each).
  EXPECT_NE(std::string::npos,
            ReportLine(r.out, "readrandom").find("(4000 of 4000 found)"))
      << ReportLine(r.out, "readrandom");
  EXPECT_NE(std::string::npos,
            ReportLine(r.out, "seekrandom").find("(4000 of 4000 found)"))
      << ReportLine(r.out, "seekrandom");
  EXPECT_NE(std::string::npos,
            ReportLine(r.out, "readmissing").find("(0 of 4000 found)"))
      << ReportLine(r.out, "readmissing");
  EXPECT_NE(std::string::npos, ReportLine(r.out, "fillsync").find("(4 ops)"))
      << ReportLine(r.out, "fillsync");
  EXPECT_NE(std::string::npos, r.out.find("latency (us)   : p50 "));
  EXPECT_NE(std::string::npos, r.out.find("time by latency:  <=10us "));
  EXPECT_NE(std::string::npos, r.out.find("write amp      : "));
  EXPECT_NE(std::string::npos, r.out.find("space amp      : "));
}

INSTANTIATE_TEST_SUITE_P(AllBuiltEngines, DbBenchEngineTest,
                         ::testing::ValuesIn(AvailableEngines()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(DbBenchTest, BadFlagValuesExitWith2AndOneLine) {
  test::TempDir dir;
  const std::string db = " --db=" + dir.File("db");
  const std::vector<std::string> bad = {
      "--num=abc",
      "--num=0",
      "--no_such_flag=1",
      "--benchmarks=fillrandom,nosuch",
      "--compression_type=brotli",
      "--key_size=2 --num=2000",
      "--threads=0",
      "--compression_ratio=1.5",
      "--memtable_bloom_size_ratio=0.5",
      "--memtablerep=vector",
      "--compaction_cpu_priority=lowest",
      "--compaction_pri=1",
      "--flush_in_compaction=sometimes",
      "--perf_level=9",
      "--slow_write_micros=0",
      "--engine=nosuch",
      "--level0_slowdown_writes_trigger=10 --level0_stop_writes_trigger=5",
      "stray_argument",
  };
  for (const std::string& args : bad) {
    const RunResult r = RunDbBench(dir, args + db);
    EXPECT_EQ(2, r.exit_code) << args << "\n" << r.err;
    const std::vector<std::string> lines = Lines(r.err);
    ASSERT_EQ(1u, lines.size()) << args << "\n" << r.err;
    EXPECT_EQ(0u, lines[0].rfind("db_bench: ", 0)) << lines[0];
    EXPECT_TRUE(r.out.empty()) << args << "\n" << r.out;
  }
}

// benchmarks/compare.sh on a tiny workload: --rounds runs the set that
// many times and reports medians; a bad --rounds is a one-line error.
TEST(CompareScriptTest, RoundsReportMediansAndBadRoundsExitTwo) {
  test::TempDir dir;
  const std::string script =
      std::string("bash ") + CASCADEDB_SOURCE_DIR + "/benchmarks/compare.sh";
  const RunResult r =
      RunCommand(dir, script + " --db_bench " + CASCADEDB_DB_BENCH_PATH +
                          " --engines cascadedb --num 2000 --rounds 2" +
                          " --floor_seconds 0.05 --settle_seconds 0" +
                          " --out " + dir.File("cmp"));
  ASSERT_EQ(0, r.exit_code) << r.err;
  // No wait for the guest's free page reporting, and no word of one.
  EXPECT_FALSE(FileExists(dir.File("cmp") + "/settle.txt"));
  EXPECT_EQ(std::string::npos, r.out.find("Settled:")) << r.out;
  EXPECT_NE(std::string::npos, r.out.find("median of 2 rounds")) << r.out;
  // latency_floor, beside db_bench, ran under each write workload.
  EXPECT_NE(std::string::npos, r.out.find("Machine floor")) << r.out;
  for (const char* row :
       {"  fillrandom ", "  overwrite ", "  fillrandom-1KiB "}) {
    bool found = false;
    for (const std::string& line : Lines(r.out)) {
      found |= line.rfind(row, 0) == 0 &&
               line.find("; floor op ") != std::string::npos &&
               line.find("p99.9 ") != std::string::npos;
    }
    EXPECT_TRUE(found) << row << " in " << r.out;
  }
  EXPECT_NE(std::string::npos, r.out.find("cpuw %")) << r.out;
  bool fillseq_row = false;
  for (const std::string& line : Lines(r.out)) {
    // Every figure is there (the CPU wait too, where the kernel keeps it).
    fillseq_row |=
        line.rfind("fillseq ", 0) == 0 &&
        (line.find("n/a") == std::string::npos || !ReadThreadSched());
  }
  EXPECT_TRUE(fillseq_row) << r.out;
  for (const char* round : {"round1", "round2"}) {
    for (const char* report : {"fillseq", "100B"}) {
      EXPECT_FALSE(ReadFile(dir.File("cmp") + "/" + round + "/cascadedb-" +
                            report + "/summary.json")
                       .empty())
          << round << " " << report;
    }
  }
  // The ops/s of the readseq passes in a db_bench output file.
  auto readseq_passes = [&](const std::string& file) {
    std::vector<double> passes;
    for (const std::string& line : Lines(ReadFile(dir.File("cmp") + file))) {
      if (line.rfind("readseq ", 0) != 0) continue;
      const size_t at = line.find(" micros/op ");
      EXPECT_NE(std::string::npos, at) << line;
      if (at != std::string::npos) {
        passes.push_back(std::stod(line.substr(at + 11)));
      }
    }
    return passes;
  };
  auto median_of_three = [](std::vector<double> v) {
    EXPECT_EQ(3u, v.size());
    std::sort(v.begin(), v.end());
    return v.size() == 3 ? v[1] : 0.0;
  };
  // readseq runs three times in each round's first run; readseq-alternated
  // is the second pass of each of three runs taken in turns. Each row has
  // the median of the rounds' median passes (of two rounds, their mean).
  std::map<std::string, std::vector<double>> round_medians;
  for (const std::string round : {"/round1", "/round2"}) {
    round_medians["readseq "].push_back(
        median_of_three(readseq_passes(round + "/cascadedb-100B.txt")));
    std::vector<double> turns;
    for (int k = 1; k <= 3; k++) {
      const std::vector<double> passes = readseq_passes(
          round + "/cascadedb-readseq" + std::to_string(k) + ".txt");
      ASSERT_EQ(2u, passes.size()) << round << " turn " << k;
      turns.push_back(passes[1]);
    }
    round_medians["readseq-alternated "].push_back(median_of_three(turns));
  }
  for (const auto& [row, medians] : round_medians) {
    bool found = false;
    for (const std::string& line : Lines(r.out)) {
      if (line.rfind(row, 0) != 0) continue;
      found = true;
      const double shown = std::stod(line.substr(row.size()));
      // The text's ops/s and summary.json's differ in rounding.
      EXPECT_NEAR((medians[0] + medians[1]) / 2, shown, shown * 1e-5) << line;
    }
    EXPECT_TRUE(found) << row << " in " << r.out;
  }
  // seekrandom and readwhilewriting ran on the reopened DB, every figure
  // there (the CPU wait too, where the kernel keeps it).
  for (const char* row : {"seekrandom ", "readwhilewriting "}) {
    bool found = false;
    for (const std::string& line : Lines(r.out)) {
      found |= line.rfind(row, 0) == 0 &&
               (line.find("n/a") == std::string::npos || !ReadThreadSched());
    }
    EXPECT_TRUE(found) << row << " in " << r.out;
  }

  // A bad value gets one error line naming its flag, and exit code 2.
  for (const auto& [args, flag] :
       {std::pair<const char*, const char*>{" --rounds 0", "--rounds"},
        {" --floor_seconds x", "--floor_seconds"},
        {" --readseq_turns -1", "--readseq_turns"},
        {" --settle_seconds 1.5", "--settle_seconds"}}) {
    const RunResult bad = RunCommand(dir, script + args);
    EXPECT_EQ(2, bad.exit_code) << args;
    const std::vector<std::string> lines = Lines(bad.err);
    ASSERT_EQ(1u, lines.size()) << args << ": " << bad.err;
    EXPECT_NE(std::string::npos, lines[0].find(flag)) << lines[0];
  }
}

// Before each db_bench process compare.sh waits until the guest's free page
// reporting (the file of reported KiB, here a stand-in) has not moved for
// 3 s, at most --settle_seconds.
TEST(CompareScriptTest, EachRunWaitsForTheGuestToReportNoMemory) {
  test::TempDir dir;
  const std::string reported = dir.File("reported_kib");
  ASSERT_TRUE(WriteFile(reported, "1000\n"));
  const std::string script = "CASCADEDB_REPORTED_KIB_FILE=" + reported +
                             " bash " + CASCADEDB_SOURCE_DIR +
                             "/benchmarks/compare.sh --db_bench " +
                             CASCADEDB_DB_BENCH_PATH +
                             " --engines cascadedb --num 500 --floor_seconds 0"
                             " --readseq_turns 0";
  // Each line of settle.txt (the wait in ms, how it ended, the run): one
  // per run, each ended as `verdict` after [min_ms, max_ms).
  auto check_waits = [&](const std::string& out, const std::string& verdict,
                         int min_ms, int max_ms) {
    std::vector<std::string> runs;
    for (const std::string& line : Lines(ReadFile(out + "/settle.txt"))) {
      std::istringstream in(line);
      int ms = -1;
      std::string ended, run;
      in >> ms >> ended >> run;
      EXPECT_EQ(verdict, ended) << line;
      EXPECT_GE(ms, min_ms) << line;
      EXPECT_LT(ms, max_ms) << line;
      runs.push_back(run.substr(run.rfind('/') + 1));
    }
    EXPECT_EQ((std::vector<std::string>{"cascadedb-fillseq", "cascadedb-100B",
                                        "cascadedb-100B-2", "cascadedb-1KiB"}),
              runs);
  };

  // Nothing reported meanwhile: each run waits the 3 s, and no longer.
  RunResult r = RunCommand(
      dir, script + " --settle_seconds 30 --out " + dir.File("quiet"));
  ASSERT_EQ(0, r.exit_code) << r.err;
  check_waits(dir.File("quiet"), "quiet", 3000, 20000);
  EXPECT_NE(std::string::npos, r.out.find("Settled: before each of its 4 runs"))
      << r.out;
  // And no run is named for memory handed back during it.
  EXPECT_EQ(std::string::npos, r.out.find("Free memory handed back")) << r.out;

  // Memory reported all along: each wait is cut at --settle_seconds.
  std::atomic<bool> stop{false};
  std::thread reporter([&] {
    for (int kib = 2000; !stop.load(); kib += 1000) {
      WriteFile(reported, std::to_string(kib) + "\n");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  r = RunCommand(dir, script + " --settle_seconds 1 --out " + dir.File("busy"));
  stop = true;
  reporter.join();
  ASSERT_EQ(0, r.exit_code) << r.err;
  check_waits(dir.File("busy"), "capped", 1000, 3000);
  EXPECT_NE(std::string::npos, r.out.find("4 waits cut at --settle_seconds"))
      << r.out;
}

TEST(LatencyFloorToolTest, ReportsALinePerOpTime) {
  test::TempDir dir;
  const RunResult r = RunCommand(
      dir, std::string(CASCADEDB_LATENCY_FLOOR_PATH) + " --seconds=0.05 3 20");
  ASSERT_EQ(0, r.exit_code) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(2u, lines.size()) << r.out;
  EXPECT_EQ(0u, lines[0].find("op 3.0 us: ")) << lines[0];
  EXPECT_EQ(0u, lines[1].find("op 20.0 us: ")) << lines[1];
  for (const std::string& line : lines) {
    EXPECT_NE(std::string::npos, line.find("over 50 us ")) << line;
    EXPECT_NE(std::string::npos, line.find("p99.9 ")) << line;
  }
}

TEST(LatencyFloorToolTest, BadArgumentsGetOneLineAndExitTwo) {
  test::TempDir dir;
  const std::string tool(CASCADEDB_LATENCY_FLOOR_PATH);
  for (const char* args :
       {"", "abc", "-3", "0", "--seconds=0 5", "--seconds=x 5", "--nosuch 5"}) {
    const RunResult r = RunCommand(dir, tool + " " + args);
    EXPECT_EQ(2, r.exit_code) << args;
    const std::vector<std::string> lines = Lines(r.err);
    ASSERT_EQ(2u, lines.size()) << args << ": " << r.err;  // error, usage
    EXPECT_EQ(0u, lines[0].find("latency_floor: ")) << lines[0];
    EXPECT_TRUE(r.out.empty()) << args << ": " << r.out;
  }
}

TEST(DbBenchTest, HelpListsOwnFlagsAndExitsZero) {
  test::TempDir dir;
  const RunResult r = RunDbBench(dir, "--help");
  EXPECT_EQ(0, r.exit_code);
  const std::string all = r.out + r.err;
  EXPECT_NE(std::string::npos, all.find("-benchmarks")) << all;
  EXPECT_NE(std::string::npos, all.find("-report_dir"));
  // Flags that system libraries define are not ours to list.
  EXPECT_EQ(std::string::npos, all.find("-block_cache_trace_path"));
}

TEST(DbBenchTest, ReportDirHoldsTimelineAndSummary) {
  test::TempDir dir;
  const std::string report = dir.File("report");
  const RunResult r = RunDbBench(
      dir, "--db=" + dir.File("db") + " --num=3000 --write_buffer_size=65536" +
               " --benchmarks=fillrandom,readrandom,stats" +
               " --stats_interval_seconds=0 --report_dir=" + report);
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;

  const std::vector<std::string> timeline =
      Lines(ReadFile(report + "/timeline.csv"));
  ASSERT_GE(timeline.size(), 3u);
  EXPECT_EQ(
      "benchmark,time_s,interval_s,ops,ops_per_sec,mb_per_sec,p50_us,p99_us,"
      "max_us,stall_state,stall_cause,stall_ms,l0_files,imm_memtables,"
      "pending_compaction_bytes,compaction_read_mb_s,compaction_write_mb_s,"
      "stall_ms_memtable_limit,stall_ms_l0_slowdown,stall_ms_l0_stop,"
      "stall_ms_pending_compaction_slowdown,stall_ms_pending_compaction_stop,"
      "threads_cpu_ms,threads_cpu_wait_ms,other_cpu_ms,steal_ms,"
      "reported_to_host_mb",
      timeline[0]);
  const bool sched = ReadThreadSched().has_value();
  const bool steal = ReadMachineCpu().has_value();
  const bool reporting = ReadReportedToHostBytes().has_value();
  uint64_t fill_ops = 0;
  bool saw_read = false;
  for (size_t i = 1; i < timeline.size(); i++) {
    const std::string& row = timeline[i];
    EXPECT_EQ(26, std::count(row.begin(), row.end(), ',')) << row;
    if (row.rfind("fillrandom,", 0) == 0) {
      std::vector<std::string> cells;
      std::stringstream s(row);
      std::string cell;
      while (std::getline(s, cell, ',')) cells.push_back(cell);
      cells.resize(27);  // getline drops a trailing empty cell
      fill_ops += std::stoull(cells[3]);
      // The benchmark thread's CPU time is there even in the last interval,
      // which ends after the thread has exited.
      if (sched) {
        EXPECT_FALSE(cells[22].empty()) << row;
        EXPECT_FALSE(cells[23].empty()) << row;
        EXPECT_FALSE(cells[24].empty()) << row;
        EXPECT_GT(std::stod(cells[22]), 0.0) << row;
      }
      if (steal) {
        ASSERT_FALSE(cells[25].empty()) << row;
        EXPECT_GE(std::stod(cells[25]), 0.0) << row;
      }
      // The memory handed back to the host, where the guest reports any.
      EXPECT_EQ(reporting, !cells[26].empty()) << row;
    }
    saw_read |= row.rfind("readrandom,", 0) == 0;
  }
  EXPECT_EQ(3000u, fill_ops);  // every op lands in exactly one row
  EXPECT_TRUE(saw_read);

  const std::string summary = ReadFile(report + "/summary.json");
  for (const char* key : {"\"engine\":\"cascadedb\"",
                          "\"benchmarks\":[",
                          "\"name\":\"fillrandom\"",
                          "\"ops_per_sec\":",
                          "\"latency_us\":{",
                          "\"p99.9\":",
                          "\"p99.99\":",
                          "\"latency_classes\":[",
                          "\"time_share\":",
                          "\"longest_gap_ms\":",
                          "\"write_amp\":{",
                          "\"device_waf\":",
                          "\"stalls\":{",
                          "\"memory\":{",
                          "\"peak_rss_bytes\":",
                          "\"peak_rss_anon_bytes\":",
                          "\"end_rss_anon_bytes\":",
                          "\"end_rss_file_bytes\":",
                          "\"budget_bytes\":",
                          "\"space_amp\":",
                          "\"latency_cdf\":[[",
                          "\"since_open\":{"}) {
    EXPECT_NE(std::string::npos, summary.find(key)) << key;
  }
  // Where the kernel splits the RSS, the memory line also gives the peak
  // of allocated memory, without mapped files.
  if (CurrentRssAnonBytes()) {
    EXPECT_NE(std::string::npos, r.out.find("; allocated at most ")) << r.out;
  }
  // Where the kernel keeps scheduler figures (Linux with schedstat), each
  // benchmark says how long its threads ran and waited for a CPU, and
  // which other threads ran meanwhile.
  if (ReadThreadSched()) {
    for (const char* key : {"\"cpu\":{\"on_cpu_s\":", "\"waiting_for_cpu_s\":",
                            "\"other_threads\":[{\"name\":"}) {
      EXPECT_NE(std::string::npos, summary.find(key)) << key;
    }
    EXPECT_NE(std::string::npos,
              r.out.find("  cpu            : benchmark threads "))
        << r.out;
  }
  // Where /proc/stat has a steal field, each benchmark says how much of
  // the machine's CPU time the hypervisor took.
  if (steal) {
    EXPECT_NE(std::string::npos, summary.find("\"machine\":{\"cpus\":"))
        << summary;
    EXPECT_NE(std::string::npos, summary.find("\"steal_s\":")) << summary;
    EXPECT_NE(std::string::npos, r.out.find("; hypervisor steal ")) << r.out;
    // And how much of it the kernel's threads and other programs took.
    EXPECT_NE(std::string::npos, summary.find("\"outside_process_s\":"))
        << summary;
    EXPECT_NE(std::string::npos,
              r.out.find("; outside this process (kernel threads, other "
                         "programs) "))
        << r.out;
  }
  int depth = 0;
  for (char c : summary) {
    if (c == '{' || c == '[') depth++;
    if (c == '}' || c == ']') depth--;
    ASSERT_GE(depth, 0);
  }
  EXPECT_EQ(0, depth);
}

// Where the guest hands free memory back to its host (here a stand-in for
// the kernel's counter, moving 1 MiB every 20 ms), each benchmark says how
// much, in its cpu line, its summary and each second of its timeline.
TEST(DbBenchTest, ReportsTheFreeMemoryHandedBackToTheHost) {
  test::TempDir dir;
  const std::string reported = dir.File("reported_kib");
  ASSERT_TRUE(WriteFile(reported, "1000\n"));
  // The stand-in is what the reader reads; a missing file reports none.
  ASSERT_EQ(0, ::setenv("CASCADEDB_REPORTED_KIB_FILE", reported.c_str(), 1));
  EXPECT_EQ(uint64_t{1000} * 1024, ReadReportedToHostBytes());
  ::setenv("CASCADEDB_REPORTED_KIB_FILE", dir.File("none").c_str(), 1);
  EXPECT_EQ(std::nullopt, ReadReportedToHostBytes());
  ::unsetenv("CASCADEDB_REPORTED_KIB_FILE");

  std::atomic<bool> stop{false};
  std::thread reporter([&] {
    for (int kib = 2024; !stop.load(); kib += 1024) {
      WriteFile(reported + ".new", std::to_string(kib) + "\n");
      // Renamed into place, so a reader never sees a half-written file.
      std::rename((reported + ".new").c_str(), reported.c_str());
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  const std::string report = dir.File("report");
  const RunResult r = RunCommand(
      dir, "CASCADEDB_REPORTED_KIB_FILE=" + reported + " " +
               CASCADEDB_DB_BENCH_PATH + " --db=" + dir.File("db") +
               " --num=20000 --benchmark_write_rate_limit=4000000" +
               " --benchmarks=fillrandom --stats_interval_seconds=0" +
               " --report_dir=" + report);
  stop = true;
  reporter.join();
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;

  // A half-second run saw some 25 moves of 1 MiB.
  const size_t at = r.out.find("; free memory handed back to the host ");
  ASSERT_NE(std::string::npos, at) << r.out;
  const double line_mib = std::atof(r.out.c_str() + at + 38);
  EXPECT_GE(line_mib, 5.0) << r.out;
  EXPECT_LE(line_mib, 100.0) << r.out;

  if (ReadMachineCpu()) {  // the machine's figures need a steal field
    const std::string summary = ReadFile(report + "/summary.json");
    const std::string key = "\"reported_to_host_bytes\":";
    const size_t k = summary.find(key);
    ASSERT_NE(std::string::npos, k) << summary;
    const uint64_t bytes =
        std::strtoull(summary.c_str() + k + key.size(), nullptr, 10);
    EXPECT_EQ(0u, bytes % (1024 * 1024)) << summary;
    EXPECT_NEAR(line_mib, static_cast<double>(bytes) / 1048576.0, 0.05);
  }

  double timeline_mib = 0;
  int rows = 0;
  for (const std::string& row : Lines(ReadFile(report + "/timeline.csv"))) {
    if (row.rfind("fillrandom,", 0) != 0) continue;
    const std::string last = row.substr(row.rfind(',') + 1);
    ASSERT_FALSE(last.empty()) << row;
    timeline_mib += std::stod(last);
    rows++;
  }
  // The seconds' figures cover the benchmark as its own does, give or take
  // the moves between the two readings at either end.
  EXPECT_GE(rows, 1);
  EXPECT_NEAR(line_mib, timeline_mib, 4.0);
}

// plot_report.py on a small hand-made report: every plot it can draw
// from the data is written as a PNG, and a missing report is exit 2.
TEST(PlotReportTest, WritesEveryPlotOfAReport) {
  test::TempDir dir;
  if (RunCommand(dir, "python3 -c 'import matplotlib'").exit_code != 0 &&
      RunCommand(dir, "/usr/bin/python3 -c 'import matplotlib'").exit_code !=
          0) {
    GTEST_SKIP() << "matplotlib is not installed";
  }
  const std::string report = dir.File("report");
  ASSERT_EQ(0, RunCommand(dir, "mkdir -p " + report).exit_code);
  {
    std::ofstream t(report + "/timeline.csv");
    t << "benchmark,time_s,interval_s,ops,ops_per_sec,mb_per_sec,p50_us,"
         "p99_us,max_us,stall_state,stall_cause,stall_ms,l0_files,"
         "imm_memtables,pending_compaction_bytes,compaction_read_mb_s,"
         "compaction_write_mb_s,stall_ms_memtable_limit,stall_ms_l0_slowdown,"
         "stall_ms_l0_stop,stall_ms_pending_compaction_slowdown,"
         "stall_ms_pending_compaction_stop,threads_cpu_ms,"
         "threads_cpu_wait_ms,other_cpu_ms,steal_ms,reported_to_host_mb\n";
    t << "fillrandom,1.0,1.0,1000,1000,0.1,1,5,9,normal,,0,1,0,0,0,0,0,0,0,0,"
         "0,900,50,400,0,0\n";
    // A second with memory handed back to the host (shaded in cpu.png).
    t << "fillrandom,2.0,1.0,800,800,0.1,1,5,90,delayed,l0_slowdown,300,8,0,"
         "0,5,5,0,300,0,0,0,700,200,1100,30,8\n";
    t << "fillrandom,2.5,0.5,300,600,0.1,1,5,9,normal,,0,2,0,0,5,5,0,0,0,0,"
         "0,400,20,600,,\n";
  }
  {
    std::ofstream j(report + "/summary.json");
    j << R"({"engine":"cascadedb","benchmarks":[{"name":"fillrandom",)"
      << R"("ops":2100,"latency_cdf":[[1,0.5],[5,0.99],[90,1.0]],)"
      << R"("stalls":{"reported":true},"write_amp":{"user_bytes":1000,)"
      << R"("wal_bytes":1000,"levels":{"L0":{"write_bytes":500}},)"
      << R"("waf":1.5}}]})";
  }
  const std::string script = std::string("python3 ") + CASCADEDB_SOURCE_DIR +
                             "/benchmarks/plot_report.py ";
  const RunResult r = RunCommand(dir, script + report);
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;
  for (const char* png :
       {"throughput.png", "latency_cdf.png", "waf_levels.png", "cpu.png"}) {
    const std::string bytes = ReadFile(report + "/" + png);
    ASSERT_GE(bytes.size(), 8u) << png;
    EXPECT_EQ("\x89PNG", bytes.substr(0, 4)) << png;
    EXPECT_NE(std::string::npos, r.out.find(png)) << r.out;
  }
  EXPECT_EQ(2, RunCommand(dir, script + dir.File("nothing")).exit_code);
}

// --compaction_cpu_priority=idle runs (compactions still finish: the DB
// is compacted and read back) and is named in the effective options.
TEST(DbBenchTest, CompactionCpuPriorityIsAppliedAndReported) {
  test::TempDir dir;
  const std::string report = dir.File("report");
  const RunResult r =
      RunDbBench(dir, "--db=" + dir.File("db") +
                          " --num=20000 --write_buffer_size=65536"
                          " --compaction_cpu_priority=idle"
                          " --benchmarks=fillrandom,compact,readrandom"
                          " --stats_interval_seconds=0 --report_dir=" +
                          report);
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;
  const std::string summary = ReadFile(report + "/summary.json");
  EXPECT_NE(std::string::npos, summary.find("\"compaction_cpu_priority=idle\""))
      << summary;
  EXPECT_NE(std::string::npos, r.out.find("compaction_cpu_priority=idle"))
      << r.out;
}

// Writers delayed beside a compaction compress its blocks, and the stalls
// line and summary.json say how many; --stalled_writers_compress=false
// turns that off.
TEST(DbBenchTest, StalledWritersCompressAndSaySo) {
  if (AvailableCpus() < 2) GTEST_SKIP() << "no CPU beside the compaction";
  for (const bool on : {true, false}) {
    test::TempDir dir;
    const std::string report = dir.File("report");
    const RunResult r = RunDbBench(
        dir, "--db=" + dir.File("db") +
                 " --num=3000 --value_size=1000 --write_buffer_size=65536"
                 " --value_compression_min_size=0"  // compressed in blocks
                 " --level0_file_num_compaction_trigger=2"
                 " --level0_slowdown_writes_trigger=2"
                 " --level0_stop_writes_trigger=8"
                 " --delayed_write_rate=2097152 --benchmarks=fillrandom"
                 " --stats_interval_seconds=0 --report_dir=" +
                 report +
                 " --stalled_writers_compress=" + (on ? "true" : "false"));
    ASSERT_EQ(0, r.exit_code) << r.out << r.err;
    std::string stalls;
    for (const std::string& line : Lines(r.out)) {
      if (line.rfind("  stalls         : ", 0) == 0) {
        stalls = line;
        break;
      }
    }
    ASSERT_FALSE(stalls.empty()) << r.out;
    EXPECT_NE(std::string::npos, stalls.find("writes-delayed ")) << stalls;
    const std::string summary = ReadFile(report + "/summary.json");
    EXPECT_NE(std::string::npos, r.out.find("stalled_writers_compress=" +
                                            std::string(on ? "1" : "0")))
        << r.out;
    EXPECT_EQ(
        on, stalls.find("; blocks-compressed-by-writers ") != std::string::npos)
        << stalls;
    EXPECT_EQ(on, summary.find("\"blocks-compressed-by-writers\":0") ==
                      std::string::npos)
        << summary;
  }
}

// --background_yields_to_writers reaches the engine (the options line says
// which), and summary.json carries the yields' counts: none when off.
TEST(DbBenchTest, BackgroundYieldsToWritersIsPassedAndCounted) {
  for (const bool on : {true, false}) {
    test::TempDir dir;
    const std::string report = dir.File("report");
    const RunResult r = RunDbBench(
        dir, "--db=" + dir.File("db") +
                 " --num=2000 --value_size=1000 --write_buffer_size=65536"
                 " --benchmarks=fillrandom --stats_interval_seconds=0"
                 " --report_dir=" +
                 report +
                 " --background_yields_to_writers=" + (on ? "true" : "false"));
    ASSERT_EQ(0, r.exit_code) << r.out << r.err;
    EXPECT_NE(std::string::npos, r.out.find("background_yields_to_writers=" +
                                            std::string(on ? "1" : "0")))
        << r.out;
    const std::string summary = ReadFile(report + "/summary.json");
    EXPECT_NE(std::string::npos, summary.find("\"yields-to-writers\":"))
        << summary;
    EXPECT_NE(std::string::npos, summary.find("\"yields-to-flushes\":"))
        << summary;
    if (!on) {
      EXPECT_NE(std::string::npos, summary.find("\"yields-to-writers\":0"))
          << summary;
    }
  }
}

// --perf_level=3 splits the writes slower than 1 ms by the engine's write
// times, in the report and summary.json; only for benchmarks that write,
// and not by default.
TEST(DbBenchTest, PerfLevelSplitsSlowWrites) {
  for (const bool on : {true, false}) {
    test::TempDir dir;
    const std::string report = dir.File("report");
    const RunResult r = RunDbBench(
        dir, "--db=" + dir.File("db") +
                 " --num=8000 --value_size=1000 --write_buffer_size=65536"
                 " --level0_file_num_compaction_trigger=2"
                 " --level0_slowdown_writes_trigger=2"
                 " --level0_stop_writes_trigger=4"
                 " --benchmarks=fillrandom,readrandom"
                 " --stats_interval_seconds=0 --report_dir=" +
                 report + (on ? " --perf_level=3" : ""));
    ASSERT_EQ(0, r.exit_code) << r.out << r.err;
    const std::vector<std::string> lines = Lines(r.out);
    int slow_lines = 0;
    for (const std::string& line : lines) {
      if (line.rfind("  slow writes    : ", 0) != 0) continue;
      slow_lines++;
      EXPECT_NE(std::string::npos, line.find(" over 1 ms, ")) << line;
      EXPECT_NE(std::string::npos, line.find("delayed ")) << line;
      EXPECT_NE(std::string::npos, line.find("WAL ")) << line;
      EXPECT_NE(std::string::npos, line.find("other ")) << line;
    }
    // fillrandom's line only: readrandom writes nothing.
    EXPECT_EQ(on ? 1 : 0, slow_lines) << r.out;
    const std::string summary = ReadFile(report + "/summary.json");
    EXPECT_EQ(on, summary.find("\"slow_writes\":{") != std::string::npos)
        << summary.substr(0, 2000);
    EXPECT_NE(std::string::npos, summary.find("\"slow_writes\":null"));
  }
}

// --slow_write_micros moves the slow writes' line: in the report (in
// microseconds below a whole millisecond) and in summary.json.
TEST(DbBenchTest, SlowWriteMicrosMovesTheLine) {
  struct Case {
    const char* flag;
    const char* text;
    const char* json;
  };
  const Case cases[] = {
      {"", " over 1 ms, ", "\"threshold_ms\":1,"},
      {" --slow_write_micros=2000", " over 2 ms, ", "\"threshold_ms\":2,"},
      {" --slow_write_micros=1", " over 1 us, ", "\"threshold_ms\":0.001,"},
  };
  uint64_t counts[3] = {};  // slow writes counted, by case
  for (size_t i = 0; i < 3; ++i) {
    const Case& c = cases[i];
    test::TempDir dir;
    const std::string report = dir.File("report");
    const RunResult r = RunDbBench(
        dir, "--db=" + dir.File("db") +
                 " --num=3000 --value_size=1000 --write_buffer_size=65536"
                 " --benchmarks=fillrandom --stats_interval_seconds=0"
                 " --perf_level=3 --report_dir=" +
                 report + c.flag);
    ASSERT_EQ(0, r.exit_code) << r.out << r.err;
    std::string line;
    for (const std::string& l : Lines(r.out)) {
      if (l.rfind("  slow writes    : ", 0) == 0) line = l;
    }
    ASSERT_NE(std::string::npos, line.find(c.text)) << c.flag << "\n" << r.out;
    counts[i] = std::stoull(line.substr(line.find(": ") + 2));
    const std::string summary = ReadFile(report + "/summary.json");
    EXPECT_NE(std::string::npos, summary.find(c.json))
        << c.flag << "\n"
        << summary.substr(0, 2000);
  }
  // A 1 KB write (WAL and memtable) takes about 2 us here: most count at
  // 1 us, few at 1 ms.
  EXPECT_GT(counts[2], 1500u);      // over 1 us
  EXPECT_GT(counts[2], counts[0]);  // over 1 ms
}

// --compaction_pri reaches the engine's options (RocksDB's numbers).
TEST(DbBenchTest, CompactionPriChoosesThePicker) {
  for (const char* pri : {"3", "4"}) {
    test::TempDir dir;
    const RunResult r = RunDbBench(
        dir, "--db=" + dir.File("db") + " --num=1000 --compaction_pri=" + pri +
                 " --benchmarks=fillrandom --stats_interval_seconds=0");
    ASSERT_EQ(0, r.exit_code) << r.out << r.err;
    const std::string expected =
        std::string("compaction_pri=") +
        (std::string(pri) == "3" ? "min_overlapping_ratio" : "round_robin");
    EXPECT_NE(std::string::npos, r.out.find(expected)) << pri << r.out;
  }
}

// --flush_in_compaction reaches the engine's options.
TEST(DbBenchTest, FlushInCompactionIsApplied) {
  for (const char* f : {"auto", "never", "always"}) {
    test::TempDir dir;
    const RunResult r =
        RunDbBench(dir, "--db=" + dir.File("db") +
                            " --num=20000 --write_buffer_size=65536"
                            " --flush_in_compaction=" +
                            f +
                            " --benchmarks=fillrandom,readrandom"
                            " --stats_interval_seconds=0");
    ASSERT_EQ(0, r.exit_code) << r.out << r.err;
    EXPECT_NE(std::string::npos,
              r.out.find(std::string("flush_in_compaction=") + f))
        << f << r.out;
  }
}

// --memtablerep reaches the engine: the summary's effective options name
// the structure the database was opened with.
TEST(DbBenchTest, MemtablerepChoosesTheMemtableStructure) {
  for (const char* rep : {"skip_list", "btree"}) {
    test::TempDir dir;
    const std::string report = dir.File("report");
    const RunResult r = RunDbBench(
        dir, "--db=" + dir.File("db") + " --num=1000 --memtablerep=" + rep +
                 " --benchmarks=fillrandom,readseq --stats_interval_seconds=0" +
                 " --report_dir=" + report);
    ASSERT_EQ(0, r.exit_code) << r.out << r.err;
    const std::string summary = ReadFile(report + "/summary.json");
    const std::string expected =
        std::string("\"memtable_rep=") +
        (std::string(rep) == "btree" ? "btree" : "skiplist") + "\"";
    EXPECT_NE(std::string::npos, summary.find(expected)) << rep;
  }
}

}  // namespace
}  // namespace db_bench
}  // namespace cascadedb

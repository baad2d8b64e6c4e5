// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "db/log_format.h"
#include "db/log_reader.h"
#include "db/log_writer.h"
#include "tests/testutil/mem_files.h"
#include "tests/testutil/test_util.h"
#include "util/coding.h"
#include "util/crc32c.h"
#include "util/random.h"

namespace cascadedb {
namespace log {
namespace {

// A record of n bytes whose contents identify it: the tag repeated.
std::string Record(const std::string& tag, size_t n) {
  std::string r;
  while (r.size() < n) r.append(tag);
  r.resize(n);
  return r;
}

// Records shown compactly in failure messages: size, prefix and CRC.
std::vector<std::string> Summarize(const std::vector<std::string>& records) {
  std::vector<std::string> out;
  for (const std::string& r : records) {
    out.push_back(std::to_string(r.size()) + ":" + r.substr(0, 12) + ":" +
                  std::to_string(crc32c::Value(r.data(), r.size())));
  }
  return out;
}

// What a reader reported.
struct Report {
  bool tail;  // TornTail rather than Corruption.
  size_t bytes;
  Status status;
};

class CollectingReporter : public Reader::Reporter {
 public:
  void Corruption(size_t bytes, const Status& status) override {
    reports.push_back({false, bytes, status});
  }
  void TornTail(size_t bytes, const Status& status) override {
    reports.push_back({true, bytes, status});
  }
  std::vector<Report> reports;
};

// Everything one pass of a reader produced.
struct ReadResult {
  std::vector<std::string> records;
  std::vector<uint64_t> offsets;  // LastRecordOffset() after each record.
  std::vector<uint64_t> ends;     // LastRecordEnd() after each record.
  std::vector<Report> reports;

  int CorruptionCount() const {
    return static_cast<int>(
        std::count_if(reports.begin(), reports.end(),
                      [](const Report& r) { return !r.tail; }));
  }
  int TailCount() const {
    return static_cast<int>(reports.size()) - CorruptionCount();
  }
};

ReadResult ReadAll(const std::string& contents, uint64_t initial_offset = 0,
                   bool checksum = true, test::StringSource* source = nullptr,
                   uint64_t log_number = 0) {
  std::unique_ptr<test::StringSource> owned;
  if (source == nullptr) {
    owned.reset(new test::StringSource(contents));
    source = owned.get();
  }
  CollectingReporter reporter;
  Reader reader(source, &reporter, checksum, initial_offset, log_number);
  ReadResult result;
  Slice record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    result.records.push_back(record.ToString());
    result.offsets.push_back(reader.LastRecordOffset());
    result.ends.push_back(reader.LastRecordEnd());
  }
  // Reading on after the end keeps returning false, silently.
  EXPECT_FALSE(reader.ReadRecord(&record, &scratch));
  result.reports = reporter.reports;
  return result;
}

// Writes records and remembers where each starts.
class LogBuilder {
 public:
  LogBuilder() : writer_(new Writer(&sink_)) {}
  // A recyclable log with this number.
  explicit LogBuilder(uint64_t log_number)
      : writer_(Writer::Recyclable(&sink_, log_number)),
        header_size_(kRecyclableHeaderSize) {}

  // Adds n records of size bytes, the i-th made of tag + i.
  void AddNumbered(const std::string& tag, int n, size_t size) {
    for (int i = 0; i < n; i++) Add(Record(tag + std::to_string(i), size));
  }

  void Add(const std::string& record) {
    uint64_t start = writer_->length();
    const size_t left = kBlockSize - start % kBlockSize;
    if (left < header_size_) start += left;  // Padding comes first.
    starts_.push_back(start);
    records_.push_back(record);
    ASSERT_OK(writer_->AddRecord(record));
    ASSERT_EQ(sink_.contents().size(), writer_->length());
  }

  const std::string& contents() const { return sink_.contents(); }
  std::string* mutable_contents() { return sink_.mutable_contents(); }
  const std::vector<std::string>& records() const { return records_; }
  const std::vector<uint64_t>& starts() const { return starts_; }

 private:
  test::StringSink sink_;
  std::unique_ptr<Writer> writer_;
  size_t header_size_ = kHeaderSize;
  std::vector<std::string> records_;
  std::vector<uint64_t> starts_;
};

// Sets a fragment's type byte and fixes its checksum.
void RewriteType(std::string* contents, uint64_t header_offset, char type) {
  char* header = &(*contents)[header_offset];
  header[6] = type;
  const size_t length = static_cast<unsigned char>(header[4]) |
                        (static_cast<unsigned char>(header[5]) << 8);
  EncodeFixed32(header, crc32c::Mask(crc32c::Value(header + 6, 1 + length)));
}

std::vector<size_t> InterestingSizes() {
  return {0,
          1,
          100,
          kBlockSize - kHeaderSize - 1,
          kBlockSize - kHeaderSize,  // Exactly fills a block.
          kBlockSize - kHeaderSize + 1,
          kBlockSize,
          2 * kBlockSize - 2 * kHeaderSize,
          3 * kBlockSize + 5,
          10000};
}

// ---------------------------------------------------------------- writing

TEST(LogTest, EmptyLogHasNoRecords) {
  const ReadResult r = ReadAll("");
  EXPECT_TRUE(r.records.empty());
  EXPECT_TRUE(r.reports.empty());
}

TEST(LogTest, RecordsOfManySizesRoundTrip) {
  LogBuilder log;
  for (size_t n : InterestingSizes()) log.Add(Record(std::to_string(n), n));
  const ReadResult r = ReadAll(log.contents());
  EXPECT_TRUE(r.reports.empty());
  ASSERT_EQ(log.records().size(), r.records.size());
  for (size_t i = 0; i < r.records.size(); i++) {
    EXPECT_EQ(log.records()[i], r.records[i]) << i;
    EXPECT_EQ(log.starts()[i], r.offsets[i]) << i;
    const uint64_t next_start = i + 1 < log.starts().size()
                                    ? log.starts()[i + 1]
                                    : log.contents().size();
    EXPECT_LE(r.ends[i], next_start) << i;
    EXPECT_GT(r.ends[i], r.offsets[i]) << i;
  }
}

TEST(LogTest, RandomRecordSizesRoundTrip) {
  const uint32_t seed = test::RandomSeed();
  Random rnd(seed);
  LogBuilder log;
  for (int i = 0; i < 500; i++) {
    log.Add(Record(std::to_string(i) + ".", rnd.Skewed(17)));
  }
  const ReadResult r = ReadAll(log.contents());
  EXPECT_TRUE(r.reports.empty());
  EXPECT_EQ(Summarize(log.records()), Summarize(r.records));
  EXPECT_EQ(log.starts(), r.offsets);
}

TEST(LogTest, BlockTailTooShortForHeaderIsZeroFilled) {
  LogBuilder log;
  // Leaves 6 bytes in the first block: too few for a header.
  log.Add(Record("a", kBlockSize - kHeaderSize - 6));
  log.Add("next");
  ASSERT_EQ(kBlockSize, log.starts()[1]);
  EXPECT_EQ(std::string(6, '\0'), log.contents().substr(kBlockSize - 6, 6));
  const ReadResult r = ReadAll(log.contents());
  EXPECT_TRUE(r.reports.empty());
  EXPECT_EQ(Summarize(log.records()), Summarize(r.records));
}

TEST(LogTest, EmptyRecordFitsExactlyInBlockTail) {
  LogBuilder log;
  // Leaves exactly 7 bytes: room for a header with an empty payload.
  log.Add(Record("a", kBlockSize - 2 * kHeaderSize));
  log.Add("");
  log.Add("after");
  EXPECT_EQ(kBlockSize - kHeaderSize, log.starts()[1]);
  EXPECT_EQ(kBlockSize, log.starts()[2]);
  const ReadResult r = ReadAll(log.contents());
  EXPECT_TRUE(r.reports.empty());
  EXPECT_EQ(Summarize(log.records()), Summarize(r.records));
}

TEST(LogTest, FragmentsCarryFirstMiddleLastTypes) {
  LogBuilder log;
  log.Add(Record("x", 2 * kBlockSize + 100));
  const std::string& c = log.contents();
  EXPECT_EQ(kFirstType, c[6]);
  EXPECT_EQ(kMiddleType, c[kBlockSize + 6]);
  EXPECT_EQ(kLastType, c[2 * kBlockSize + 6]);
}

TEST(LogWriterTest, FlushesAfterEachRecord) {
  test::StringSink sink;
  Writer writer(&sink);
  ASSERT_OK(writer.AddRecord("a"));
  ASSERT_OK(writer.AddRecord(Record("b", 3 * kBlockSize)));
  EXPECT_EQ(2, sink.flushes());
  EXPECT_EQ(&sink, writer.file());
}

TEST(LogWriterTest, AppendErrorIsSticky) {
  test::StringSink sink;
  Writer writer(&sink);
  ASSERT_OK(writer.AddRecord("ok"));
  sink.FailAppendsFrom(sink.appends());
  const Status s = writer.AddRecord("fails");
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  const int appends = sink.appends();
  sink.FailAppendsFrom(-1);  // The file would work again; the writer won't.
  EXPECT_TRUE(writer.AddRecord("refused").IsIOError());
  EXPECT_EQ(appends, sink.appends());
}

TEST(LogWriterTest, ResumesBlockGridOfExistingLog) {
  LogBuilder first;
  first.Add(Record("a", 1000));
  first.Add(Record("b", kBlockSize - 500));
  test::StringSink sink;
  *sink.mutable_contents() = first.contents();
  Writer writer(&sink, first.contents().size());
  ASSERT_OK(writer.AddRecord(Record("c", kBlockSize)));
  ASSERT_OK(writer.AddRecord("d"));
  const ReadResult r = ReadAll(sink.contents());
  EXPECT_TRUE(r.reports.empty());
  EXPECT_EQ(Summarize(std::vector<std::string>({Record("a", 1000),
                                                Record("b", kBlockSize - 500),
                                                Record("c", kBlockSize), "d"})),
            Summarize(r.records));
}

// ---------------------------------------------------------------- torn tail

// Checks that cutting contents at len leaves every record before the last
// intact and reports the cut-off last record as a torn tail (or nothing,
// when the cut falls before its header).
void CheckTruncation(const LogBuilder& log, size_t len) {
  const size_t last = log.records().size() - 1;
  const uint64_t last_start = log.starts()[last];
  const ReadResult r = ReadAll(log.contents().substr(0, len));
  const std::vector<std::string> expected(log.records().begin(),
                                          log.records().begin() + last);
  ASSERT_EQ(Summarize(expected), Summarize(r.records)) << "cut at " << len;
  ASSERT_EQ(0, r.CorruptionCount()) << "cut at " << len;
  if (len <= last_start) {
    // Only padding (or nothing) of the last record was written.
    EXPECT_EQ(0, r.TailCount()) << "cut at " << len;
    return;
  }
  ASSERT_EQ(1, r.TailCount()) << "cut at " << len;
  const Report& report = r.reports[0];
  EXPECT_TRUE(report.status.IsCorruption());
  EXPECT_EQ(len - last_start, report.bytes) << "cut at " << len;
  EXPECT_NE(std::string::npos, report.status.message().find("at offset "))
      << report.status.ToString();
}

TEST(LogReaderTest, TornTailIsToleratedAtEveryCutOfTwoBlockRecord) {
  LogBuilder log;
  log.Add(Record("a", 100));
  log.Add(Record("b", kBlockSize - 400));
  log.Add(Record("c", 500));  // FIRST in block 0, LAST in block 1.
  ASSERT_EQ(log.starts()[2] / kBlockSize + 1,
            (log.contents().size() - 1) / kBlockSize);
  // From the end of record "b" (no padding after it here) to the end.
  for (size_t len = log.starts()[2]; len < log.contents().size(); len++) {
    CheckTruncation(log, len);
    if (HasFatalFailure()) return;
  }
}

TEST(LogReaderTest, TornTailIsToleratedAroundEveryFragmentOfLongRecord) {
  LogBuilder log;
  log.Add(Record("a", 5000));
  log.Add(Record("z", 3 * kBlockSize + 1234));  // FIRST, MIDDLE x2, LAST.
  std::set<size_t> cuts;
  const size_t size = log.contents().size();
  for (size_t block = 0; block <= size / kBlockSize; block++) {
    // Around each block boundary (and so each fragment header).
    for (int d = -10; d <= 2 * static_cast<int>(kHeaderSize); d++) {
      const int64_t cut = static_cast<int64_t>(block * kBlockSize) + d;
      if (cut > 0 && static_cast<size_t>(cut) < size) cuts.insert(cut);
    }
  }
  for (size_t cut = log.starts()[1] - 3; cut < log.starts()[1] + 20; cut++) {
    cuts.insert(cut);
  }
  for (size_t cut = 1; cut < size; cut += 997) cuts.insert(cut);
  for (size_t len : cuts) {
    if (len < log.starts()[1]) continue;  // Would cut record "a".
    CheckTruncation(log, len);
    if (HasFatalFailure()) return;
  }
}

TEST(LogReaderTest, TruncatedHeaderMessageNamesOffset) {
  LogBuilder log;
  log.Add("first");
  log.Add("second");
  const ReadResult r = ReadAll(log.contents().substr(0, log.starts()[1] + 3));
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_TRUE(r.reports[0].tail);
  EXPECT_EQ(
      "truncated record header at offset " + std::to_string(log.starts()[1]),
      r.reports[0].status.message());
}

TEST(LogReaderTest, ChecksumMismatchInLastRecordIsTornTail) {
  LogBuilder log;
  log.Add("first");
  log.Add(Record("last", 300));
  std::string contents = log.contents();
  contents[log.starts()[1] + kHeaderSize + 10] ^= 0x1;
  const ReadResult r = ReadAll(contents);
  EXPECT_EQ(Summarize(std::vector<std::string>({"first"})),
            Summarize(r.records));
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_TRUE(r.reports[0].tail);
  EXPECT_EQ("checksum mismatch at offset " + std::to_string(log.starts()[1]),
            r.reports[0].status.message());
}

TEST(LogReaderTest, DamageFollowedByDataInLastBlockIsCorruptionNotTail) {
  LogBuilder log;
  log.AddNumbered("r", 10, 100);
  std::string contents = log.contents();
  contents[log.starts()[7] + kHeaderSize + 1] ^= 0x10;
  // Records 8 and 9 were written after record 7: not a torn write.
  const ReadResult r = ReadAll(contents);
  EXPECT_EQ(Summarize(std::vector<std::string>(log.records().begin(),
                                               log.records().begin() + 7)),
            Summarize(r.records));
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
  EXPECT_EQ("checksum mismatch at offset " + std::to_string(log.starts()[7]),
            r.reports[0].status.message());
  EXPECT_EQ(contents.size() - log.starts()[7], r.reports[0].bytes);
}

TEST(LogReaderTest, BadLengthAtEndIsCorruptionNotTail) {
  LogBuilder log;
  log.Add("first");
  log.Add("last");
  std::string contents = log.contents();
  contents[log.starts()[1] + 4] = '\xff';  // Length runs past the block.
  contents[log.starts()[1] + 5] = '\xff';
  const ReadResult r = ReadAll(contents);
  EXPECT_EQ(Summarize(std::vector<std::string>({"first"})),
            Summarize(r.records));
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
}

TEST(LogReaderTest, ChecksumMismatchFollowedByZerosIsTornTail) {
  LogBuilder log;
  log.Add("first");
  log.Add(Record("last", 3000));
  // A torn write into preallocated space: the end of the last record's
  // payload never reached the disk.
  std::string contents = log.contents() + std::string(kBlockSize, '\0');
  std::fill(contents.begin() + log.starts()[1] + 2000,
            contents.begin() + log.contents().size(), '\0');
  const ReadResult r = ReadAll(contents);
  EXPECT_EQ(Summarize(std::vector<std::string>({"first"})),
            Summarize(r.records));
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_TRUE(r.reports[0].tail);
  EXPECT_EQ("checksum mismatch at offset " + std::to_string(log.starts()[1]),
            r.reports[0].status.message());
}

TEST(LogReaderTest, ZeroFilledTailIsCleanEnd) {
  LogBuilder log;
  log.Add(Record("a", 1000));
  log.Add(Record("b", kBlockSize));
  std::string contents = log.contents() + std::string(3 * kBlockSize, '\0');
  const ReadResult r = ReadAll(contents);
  EXPECT_TRUE(r.reports.empty());
  EXPECT_EQ(Summarize(log.records()), Summarize(r.records));
  // A few zero bytes (less than a header) are clean too.
  const ReadResult short_zeros = ReadAll(log.contents() + std::string(3, '\0'));
  EXPECT_TRUE(short_zeros.reports.empty());
  EXPECT_EQ(Summarize(log.records()), Summarize(short_zeros.records));
}

TEST(LogReaderTest, RecordCutShortByZerosAtTailIsTornTail) {
  LogBuilder log;
  log.Add("first");
  log.Add(Record("z", 2 * kBlockSize));  // FIRST, MIDDLE, LAST.
  std::string contents = log.contents();
  // The crash persisted the first block only; the rest reads as zeros.
  std::fill(contents.begin() + kBlockSize, contents.end(), '\0');
  const ReadResult r = ReadAll(contents);
  EXPECT_EQ(Summarize(std::vector<std::string>({"first"})),
            Summarize(r.records));
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_TRUE(r.reports[0].tail);
  EXPECT_EQ("incomplete record at offset " + std::to_string(log.starts()[1]),
            r.reports[0].status.message());
}

// ---------------------------------------------------------------- corruption

TEST(LogReaderTest, FlippedByteInMiddleIsReportedWithOffsetAndReaderResyncs) {
  LogBuilder log;
  log.AddNumbered("r", 100, 1000);
  // Damage record 10's payload (block 0).
  const size_t damaged = 10;
  ASSERT_LT(log.starts()[damaged], kBlockSize);
  std::string contents = log.contents();
  contents[log.starts()[damaged] + kHeaderSize + 500] ^= 0x40;

  const ReadResult r = ReadAll(contents);
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
  EXPECT_EQ(
      "checksum mismatch at offset " + std::to_string(log.starts()[damaged]),
      r.reports[0].status.message());
  EXPECT_GE(r.reports[0].bytes, kBlockSize - log.starts()[damaged]);

  // Intact: records before the damage, and records starting at or after
  // the next block (the reader resynchronized there).
  std::vector<std::string> expected;
  for (size_t i = 0; i < log.records().size(); i++) {
    if (i < damaged || log.starts()[i] >= kBlockSize) {
      expected.push_back(log.records()[i]);
    }
  }
  EXPECT_EQ(Summarize(expected), Summarize(r.records));
}

TEST(LogReaderTest, CorruptionIsReportedBeforeTheRecordAfterIt) {
  LogBuilder log;
  log.Add("before");
  log.Add(Record("x", kBlockSize));  // Spans into block 1.
  log.Add("after");
  std::string contents = log.contents();
  contents[log.starts()[1] + kHeaderSize] ^= 0x1;  // FIRST fragment.

  test::StringSource source(contents);
  CollectingReporter reporter;
  Reader reader(&source, &reporter, true, 0);
  Slice record;
  std::string scratch;
  ASSERT_TRUE(reader.ReadRecord(&record, &scratch));
  EXPECT_EQ("before", record.ToString());
  EXPECT_TRUE(reporter.reports.empty());
  ASSERT_TRUE(reader.ReadRecord(&record, &scratch));
  EXPECT_EQ("after", record.ToString());
  ASSERT_EQ(1u, reporter.reports.size());  // Reported before "after".
  EXPECT_FALSE(reporter.reports[0].tail);
  // The LAST fragment of the damaged record was skipped with it.
  EXPECT_EQ(log.starts()[2] - log.starts()[1], reporter.reports[0].bytes);
  EXPECT_FALSE(reader.ReadRecord(&record, &scratch));
  EXPECT_EQ(1u, reporter.reports.size());
}

TEST(LogReaderTest, BadLengthIsCorruption) {
  LogBuilder log;
  log.Add("one");
  log.Add("two");
  log.Add(Record("next-block", kBlockSize));
  log.Add("three");
  std::string contents = log.contents();
  contents[log.starts()[1] + 4] = '\xff';  // Length 0x??ff > block.
  contents[log.starts()[1] + 5] = '\x7f';
  const ReadResult r = ReadAll(contents);
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
  EXPECT_EQ("bad record length at offset " + std::to_string(log.starts()[1]),
            r.reports[0].status.message());
  EXPECT_EQ(Summarize(std::vector<std::string>({"one", "three"})),
            Summarize(r.records));
}

TEST(LogReaderTest, UnknownTypeDropsOnlyThatFragment) {
  LogBuilder log;
  log.Add("one");
  log.Add("two");
  log.Add("three");
  std::string contents = log.contents();
  RewriteType(&contents, log.starts()[1], 9);
  const ReadResult r = ReadAll(contents);
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
  EXPECT_EQ(
      "unknown record type 9 at offset " + std::to_string(log.starts()[1]),
      r.reports[0].status.message());
  EXPECT_EQ(kHeaderSize + 3, r.reports[0].bytes);
  EXPECT_EQ(Summarize(std::vector<std::string>({"one", "three"})),
            Summarize(r.records));
}

TEST(LogReaderTest, MissingStartOfRecordIsCorruption) {
  LogBuilder log;
  log.Add(Record("x", kBlockSize + 100));  // FIRST in block 0, LAST in 1.
  log.Add("after");
  // A log that begins in the middle of a record.
  const ReadResult r = ReadAll(log.contents().substr(kBlockSize));
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
  EXPECT_EQ("missing start of fragmented record at offset 0",
            r.reports[0].status.message());
  EXPECT_EQ(Summarize(std::vector<std::string>({"after"})),
            Summarize(r.records));
}

TEST(LogReaderTest, OrphanFragmentAtEndIsCorruptionNotTail) {
  LogBuilder log;
  log.Add(Record("x", kBlockSize + 100));
  const ReadResult r = ReadAll(log.contents().substr(kBlockSize));
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
  EXPECT_TRUE(r.records.empty());
}

TEST(LogReaderTest, RecordWithoutEndIsCorruption) {
  LogBuilder log;
  log.Add("a");
  log.Add(Record("long", 2 * kBlockSize));
  // Keep the FIRST fragment only, then append new records after it, as if
  // the log had been reopened at a block boundary.
  test::StringSink sink;
  *sink.mutable_contents() = log.contents().substr(0, kBlockSize);
  Writer writer(&sink, kBlockSize);
  ASSERT_OK(writer.AddRecord("b"));
  const ReadResult r = ReadAll(sink.contents());
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
  EXPECT_EQ("record without end at offset " + std::to_string(log.starts()[1]),
            r.reports[0].status.message());
  EXPECT_EQ(kBlockSize - log.starts()[1], r.reports[0].bytes);
  EXPECT_EQ(Summarize(std::vector<std::string>({"a", "b"})),
            Summarize(r.records));
}

TEST(LogReaderTest, ZerosBetweenRecordsAreCorruption) {
  LogBuilder log;
  log.AddNumbered("r", 80, 1000);
  // Zero from a record header in block 1 to the end of block 1.
  size_t first_in_block1 = 0;
  while (log.starts()[first_in_block1] < kBlockSize) first_in_block1++;
  const size_t zeroed = first_in_block1 + 3;
  std::string contents = log.contents();
  std::fill(contents.begin() + log.starts()[zeroed],
            contents.begin() + 2 * kBlockSize, '\0');
  const ReadResult r = ReadAll(contents);
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
  EXPECT_EQ(
      "zero-filled bytes at offset " + std::to_string(log.starts()[zeroed]),
      r.reports[0].status.message());
  std::vector<std::string> expected;
  for (size_t i = 0; i < log.records().size(); i++) {
    if (i < zeroed || log.starts()[i] >= 2 * kBlockSize) {
      expected.push_back(log.records()[i]);
    }
  }
  EXPECT_EQ(Summarize(expected), Summarize(r.records));
}

TEST(LogReaderTest, DisabledChecksumReturnsDamagedRecord) {
  LogBuilder log;
  log.Add("hello");
  std::string contents = log.contents();
  contents[kHeaderSize] = 'j';
  const ReadResult r = ReadAll(contents, 0, /*checksum=*/false);
  EXPECT_TRUE(r.reports.empty());
  EXPECT_EQ(Summarize(std::vector<std::string>({"jello"})),
            Summarize(r.records));
}

TEST(LogReaderTest, ReadErrorIsReportedAndStopsReading) {
  LogBuilder log;
  log.AddNumbered("r", 40, 1000);
  test::StringSource source(log.contents());
  source.FailReadsAt(kBlockSize);  // The second block cannot be read.
  const ReadResult r = ReadAll(log.contents(), 0, true, &source);
  ASSERT_FALSE(r.reports.empty());
  EXPECT_TRUE(r.reports.back().status.IsIOError())
      << r.reports.back().status.ToString();
  EXPECT_FALSE(r.reports.back().tail);
  for (size_t i = 0; i < r.records.size(); i++) {
    EXPECT_EQ(log.records()[i], r.records[i]);
  }
  EXPECT_LT(r.records.size(), log.records().size());
}

// ---------------------------------------------------------------- initial
// offset

TEST(LogReaderTest, InitialOffsetStartsAtFirstRecordAtOrAfterIt) {
  LogBuilder log;
  for (size_t n : InterestingSizes()) log.Add(Record(std::to_string(n), n));
  const std::vector<uint64_t>& starts = log.starts();
  for (size_t i = 0; i < starts.size(); i++) {
    for (int64_t delta : {-1, 0, 1}) {
      const int64_t offset = static_cast<int64_t>(starts[i]) + delta;
      if (offset < 0) continue;
      // The first record starting at or after offset.
      size_t first = 0;
      while (first < starts.size() &&
             starts[first] < static_cast<uint64_t>(offset)) {
        first++;
      }
      const ReadResult r = ReadAll(log.contents(), offset);
      EXPECT_TRUE(r.reports.empty()) << "offset " << offset;
      const std::vector<std::string> expected(log.records().begin() + first,
                                              log.records().end());
      EXPECT_EQ(Summarize(expected), Summarize(r.records))
          << "offset " << offset;
      if (!r.offsets.empty()) {
        EXPECT_EQ(starts[first], r.offsets[0]) << "offset " << offset;
      }
    }
  }
}

TEST(LogReaderTest, InitialOffsetInBlockTailStartsAtNextBlock) {
  LogBuilder log;
  log.Add(Record("a", kBlockSize - kHeaderSize - 3));  // 3-byte padding.
  log.Add("b");
  const ReadResult r = ReadAll(log.contents(), kBlockSize - 2);
  EXPECT_TRUE(r.reports.empty());
  EXPECT_EQ(Summarize(std::vector<std::string>({"b"})), Summarize(r.records));
}

TEST(LogReaderTest, InitialOffsetPastEndReadsNothing) {
  LogBuilder log;
  log.Add("a");
  const ReadResult r = ReadAll(log.contents(), 10 * kBlockSize);
  EXPECT_TRUE(r.records.empty());
  EXPECT_TRUE(r.reports.empty());
}

TEST(LogReaderTest, DamageWhollyBeforeInitialOffsetIsNotReported) {
  LogBuilder log;
  log.AddNumbered("r", 80, 1000);
  size_t first_in_block2 = 0;
  while (log.starts()[first_in_block2] < 2 * kBlockSize) first_in_block2++;
  std::string contents = log.contents();
  contents[log.starts()[2] + kHeaderSize] ^= 0x1;  // Damage record 2.
  const ReadResult r = ReadAll(contents, log.starts()[first_in_block2]);
  EXPECT_TRUE(r.reports.empty());
  EXPECT_EQ(Summarize(std::vector<std::string>(
                log.records().begin() + first_in_block2, log.records().end())),
            Summarize(r.records));
}

TEST(LogReaderTest, DamageBeforeInitialOffsetThatDropsLaterRecordsIsReported) {
  LogBuilder log;
  log.AddNumbered("r", 10, 100);
  std::string contents = log.contents();
  contents[log.starts()[2] + kHeaderSize] ^= 0x1;  // Damage record 2.
  // Records 5.. share the damaged block, so they are lost: say so.
  const ReadResult r = ReadAll(contents, log.starts()[5]);
  EXPECT_TRUE(r.records.empty());
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
  EXPECT_EQ("checksum mismatch at offset " + std::to_string(log.starts()[2]),
            r.reports[0].status.message());
}

// ---------------------------------------------------------------- recyclable

// The bytes of `fresh` written over the start of `old`: a recycled file
// after a crash (nothing cut it to the new log's length).
std::string Overlay(const std::string& old, const std::string& fresh) {
  std::string file = old;
  if (file.size() < fresh.size()) file.resize(fresh.size());
  file.replace(0, fresh.size(), fresh);
  return file;
}

TEST(RecyclableLogTest, HeadersCarryTheLogNumber) {
  LogBuilder log(0x1234567890ull);
  log.Add("hello");
  const std::string& c = log.contents();
  ASSERT_EQ(kRecyclableHeaderSize + 5, c.size());
  EXPECT_EQ(kRecyclableFullType, static_cast<unsigned char>(c[6]));
  EXPECT_EQ(0x34567890u, DecodeFixed32(c.data() + kHeaderSize));  // low bits
  EXPECT_EQ("hello", c.substr(kRecyclableHeaderSize));
  // The CRC covers the type, the log number and the payload.
  EXPECT_EQ(crc32c::Value(c.data() + 6, 1 + 4 + 5),
            crc32c::Unmask(DecodeFixed32(c.data())));
}

TEST(RecyclableLogTest, RecordsOfManySizesRoundTrip) {
  LogBuilder log(7);
  std::vector<size_t> sizes = InterestingSizes();
  sizes.push_back(kBlockSize - kRecyclableHeaderSize);  // fills a block
  sizes.push_back(kBlockSize - kRecyclableHeaderSize - 1);
  for (size_t n : sizes) log.Add(Record(std::to_string(n), n));
  for (uint64_t number : {uint64_t{7}, uint64_t{0}}) {
    const ReadResult r = ReadAll(log.contents(), 0, true, nullptr, number);
    EXPECT_TRUE(r.reports.empty()) << number;
    EXPECT_EQ(Summarize(log.records()), Summarize(r.records)) << number;
    EXPECT_EQ(log.starts(), r.offsets) << number;
  }
}

TEST(RecyclableLogTest, BlockTailTooShortForItsHeaderIsPadding) {
  // 7 to 10 bytes hold a short header but not a recyclable one.
  for (size_t tail = 1; tail < kRecyclableHeaderSize; tail++) {
    LogBuilder log(3);
    log.Add(Record("a", kBlockSize - kRecyclableHeaderSize - tail));
    log.Add("next");
    ASSERT_EQ(kBlockSize, log.starts()[1]) << tail;
    EXPECT_EQ(std::string(tail, '\0'),
              log.contents().substr(kBlockSize - tail, tail));
    const ReadResult r = ReadAll(log.contents(), 0, true, nullptr, 3);
    EXPECT_TRUE(r.reports.empty()) << tail;
    EXPECT_EQ(Summarize(log.records()), Summarize(r.records)) << tail;
    // The file may also end inside such a tail.
    const ReadResult cut = ReadAll(
        log.contents().substr(0, kBlockSize - tail / 2), 0, true, nullptr, 3);
    EXPECT_TRUE(cut.reports.empty()) << tail;
    EXPECT_EQ(1u, cut.records.size()) << tail;
  }
}

TEST(RecyclableLogTest, OlderLogsRecordsEndTheLog) {
  LogBuilder old_log(5);
  old_log.AddNumbered("old", 200, 700);
  // Same sizes: the new log ends on one of the old log's fragment
  // boundaries, so what follows is whole stale fragments: a clean end.
  LogBuilder aligned(9);
  aligned.AddNumbered("new", 50, 700);
  ReadResult r = ReadAll(Overlay(old_log.contents(), aligned.contents()), 0,
                         true, nullptr, 9);
  EXPECT_TRUE(r.reports.empty());
  EXPECT_EQ(Summarize(aligned.records()), Summarize(r.records));

  // Other sizes: the new log ends inside an old fragment. Those bytes
  // cannot be told from a torn write: a torn tail, never corruption.
  LogBuilder misaligned(9);
  for (int i = 0; i < 37; i++) {
    misaligned.Add(Record("new" + std::to_string(i), 1000 + i));
  }
  r = ReadAll(Overlay(old_log.contents(), misaligned.contents()), 0, true,
              nullptr, 9);
  EXPECT_EQ(0, r.CorruptionCount());
  EXPECT_LE(r.TailCount(), 1);
  EXPECT_EQ(Summarize(misaligned.records()), Summarize(r.records));
}

TEST(RecyclableLogTest, RecycledFileWithNothingNewIsEmpty) {
  LogBuilder old_log(5);
  old_log.AddNumbered("old", 100, 900);
  const ReadResult r = ReadAll(old_log.contents(), 0, true, nullptr, 6);
  EXPECT_TRUE(r.records.empty());
  EXPECT_TRUE(r.reports.empty());
}

// Found by log_reader_fuzzer: the new log's only record torn inside the old
// log's only block, so no valid fragment says which kind the log is; the
// torn header's type does.
TEST(RecyclableLogTest, TornOnlyRecordOverOldBytesIsTornTail) {
  LogBuilder old_log(5);
  old_log.AddNumbered("old", 5, 100);
  LogBuilder fresh(7);
  fresh.Add(Record("new", 38));
  const ReadResult r =
      ReadAll(Overlay(old_log.contents(), fresh.contents().substr(0, 27)), 0,
              true, nullptr, 7);
  EXPECT_TRUE(r.records.empty());
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_TRUE(r.reports[0].tail);
}

TEST(RecyclableLogTest, NumbersCompareInTheirLow32Bits) {
  LogBuilder log((uint64_t{1} << 32) + 5);
  log.Add("x");
  EXPECT_EQ(1u, ReadAll(log.contents(), 0, true, nullptr, 5).records.size());
  EXPECT_EQ(0u, ReadAll(log.contents(), 0, true, nullptr, 6).records.size());
}

TEST(RecyclableLogTest, TornLastRecordBeforeOldBytesIsTornTail) {
  LogBuilder old_log(5);
  old_log.AddNumbered("old", 100, 900);
  LogBuilder fresh(9);
  fresh.AddNumbered("new", 10, 3000);
  // Record 9's payload half written: the rest is still the old log's.
  std::string file = Overlay(
      old_log.contents(), fresh.contents().substr(0, fresh.starts()[9] + 1500));
  ReadResult r = ReadAll(file, 0, true, nullptr, 9);
  EXPECT_EQ(9u, r.records.size());
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_TRUE(r.reports[0].tail);
  EXPECT_EQ("checksum mismatch at offset " + std::to_string(fresh.starts()[9]),
            r.reports[0].status.message());
  // The same damage in a log without log numbers, with the old bytes after
  // it, is corruption: there the bytes after a torn write are zeros.
  LogBuilder old_plain, fresh_plain;
  old_plain.AddNumbered("old", 100, 900);
  fresh_plain.AddNumbered("new", 10, 3000);
  r = ReadAll(Overlay(
      old_plain.contents(),
      fresh_plain.contents().substr(0, fresh_plain.starts()[9] + 1500)));
  EXPECT_EQ(1, r.CorruptionCount());
}

TEST(RecyclableLogTest, ThisLogsRecordAfterOldBytesIsCorruption) {
  // A block of the old log between two of this log's (a write lost on
  // power loss while later ones reached the disk): the records after it
  // prove the gap is damage.
  LogBuilder old_log(5);
  old_log.AddNumbered("old", 100, 900);
  LogBuilder fresh(9);
  fresh.AddNumbered("new", 3, kBlockSize - kRecyclableHeaderSize);
  ASSERT_EQ(kBlockSize, fresh.starts()[1]);
  std::string file = Overlay(old_log.contents(), fresh.contents());
  file.replace(kBlockSize, kBlockSize, old_log.contents(), kBlockSize,
               kBlockSize);
  const ReadResult r = ReadAll(file, 0, true, nullptr, 9);
  EXPECT_EQ(Summarize({fresh.records()[0], fresh.records()[2]}),
            Summarize(r.records));
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
  EXPECT_EQ(0u, r.reports[0].status.message().find(
                    "record of an older log at offset 32768"))
      << r.reports[0].status.ToString();
}

TEST(RecyclableLogTest, DamageBeforeThisLogsRecordIsCorruption) {
  LogBuilder log(9);
  log.AddNumbered("r", 400, 100);
  size_t first_in_block1 = 0;
  while (log.starts()[first_in_block1] < kBlockSize) first_in_block1++;
  std::string contents = log.contents();
  contents[log.starts()[2] + kRecyclableHeaderSize] ^= 0x1;
  ReadResult r = ReadAll(contents, 0, true, nullptr, 9);
  // The rest of the damaged block is dropped; the next block's records
  // prove it was damage.
  EXPECT_EQ(2 + log.records().size() - first_in_block1, r.records.size());
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
  // The records after it in its own block, dropped with the rest of the
  // block, prove it too: this log's number and checksum are found there.
  r = ReadAll(contents.substr(0, kBlockSize), 0, true, nullptr, 9);
  EXPECT_EQ(2u, r.records.size());
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
  // A damaged length, too.
  contents = log.contents().substr(0, kBlockSize);
  contents[log.starts()[2] + 5] = static_cast<char>(0x7f);
  r = ReadAll(contents, 0, true, nullptr, 9);
  EXPECT_EQ(2u, r.records.size());
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_FALSE(r.reports[0].tail);
  EXPECT_EQ("bad record length at offset " + std::to_string(log.starts()[2]),
            r.reports[0].status.message());
  // Only the last record damaged, old bytes after it: a torn tail.
  contents = log.contents().substr(0, log.starts()[5]);
  contents[log.starts()[4] + kRecyclableHeaderSize] ^= 0x1;
  r = ReadAll(contents + std::string(300, 'x'), 0, true, nullptr, 9);
  EXPECT_EQ(4u, r.records.size());
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_TRUE(r.reports[0].tail);
  // A damaged log number is a checksum mismatch, not an older log.
  contents = log.contents();
  contents[log.starts()[2] + kHeaderSize] ^= 0x1;
  r = ReadAll(contents, 0, true, nullptr, 9);
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_EQ("checksum mismatch at offset " + std::to_string(log.starts()[2]),
            r.reports[0].status.message());
}

TEST(RecyclableLogTest, HeaderKindsAreNotMixed) {
  // A fragment without a log number in a recyclable log is damage, and
  // the other way round.
  LogBuilder recyclable(9);
  recyclable.Add("a");
  LogBuilder plain;
  plain.Add("b");
  LogBuilder more(9);
  more.Add("c");
  ReadResult r =
      ReadAll(recyclable.contents() + plain.contents() + more.contents(), 0,
              true, nullptr, 9);
  EXPECT_EQ(std::vector<std::string>({"a", "c"}), r.records);
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_EQ("record without a log number at offset " +
                std::to_string(recyclable.contents().size()),
            r.reports[0].status.message());
  r = ReadAll(plain.contents() + recyclable.contents() + plain.contents());
  EXPECT_EQ(std::vector<std::string>({"b", "b"}), r.records);
  ASSERT_EQ(1u, r.reports.size());
  EXPECT_EQ(0u, r.reports[0].status.message().find("record with a log number"));
}

TEST(RecyclableLogTest, EveryCutOfTheLastRecordOverOldBytesIsAtWorstTornTail) {
  LogBuilder old_log(5);
  old_log.AddNumbered("old", 60, 1500);
  LogBuilder fresh(9);
  fresh.AddNumbered("new", 4, 20000);
  const uint64_t last = fresh.starts()[3];
  for (uint64_t cut = last; cut <= fresh.contents().size(); cut += 97) {
    const ReadResult r =
        ReadAll(Overlay(old_log.contents(), fresh.contents().substr(0, cut)), 0,
                true, nullptr, 9);
    EXPECT_EQ(0, r.CorruptionCount()) << cut;
    EXPECT_EQ(Summarize(std::vector<std::string>(
                  fresh.records().begin(),
                  fresh.records().begin() +
                      (cut == fresh.contents().size() ? 4 : 3))),
              Summarize(r.records))
        << cut;
  }
}

}  // namespace
}  // namespace log
}  // namespace cascadedb

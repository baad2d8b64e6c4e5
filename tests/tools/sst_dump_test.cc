// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Runs the sst_dump binary (its path comes from SST_DUMP_PATH, set by
// tests/CMakeLists.txt) on SSTs built here with TableBuilder, as a user
// would, and checks its output, its stderr line and its exit code.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/filter_policy.h"
#include "db/dbformat.h"
#include "db/value_compression.h"
#include "table/format.h"
#include "table/table_builder.h"
#include "table/table_options.h"
#include "tests/table/table_test_util.h"
#include "tests/testutil/test_util.h"
#include "tests/testutil/tool_test_util.h"
#include "util/compression.h"

#ifndef SST_DUMP_PATH
#error "SST_DUMP_PATH must name the sst_dump binary"
#endif

namespace cascadedb {
namespace {

struct Entry {
  std::string user_key;
  SequenceNumber seq;
  ValueType type;
  std::string value;
};

using test::Contains;
using test::Lines;
using test::ReadFile;
using test::RunResult;
using test::ShellQuote;
using test::WriteFile;

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// "<codec> <level>" of each result row of the recompress command.
std::vector<std::string> RecompressRows(const std::string& out) {
  std::vector<std::string> rows;
  for (const std::string& line : Lines(out)) {
    std::istringstream in(line);
    std::string codec, level;
    in >> codec >> level;
    if (codec == "NoCompression" || codec == "Snappy" || codec == "LZ4" ||
        codec == "ZSTD") {
      rows.push_back(codec + " " + level);
    }
  }
  return rows;
}

class SstDumpTest : public ::testing::Test {
 protected:
  SstDumpTest()
      : icmp_(BytewiseComparator()),
        bloom_(NewBloomFilterPolicy(10)),
        db_dir_(tmp_.File("db")) {
    std::filesystem::create_directories(db_dir_);
  }

  // Builds an SST of entries (sorted here by internal key) at path; small
  // blocks so that a few hundred entries span several data blocks.
  TableProperties Build(const std::string& path, std::vector<Entry> entries,
                        CompressionType compression = kSnappyCompression) {
    std::vector<std::pair<std::string, std::string>> kvs;
    for (const Entry& e : entries) {
      std::string ikey;
      AppendInternalKey(&ikey, ParsedInternalKey(e.user_key, e.seq, e.type));
      kvs.emplace_back(ikey, e.value);
    }
    std::sort(kvs.begin(), kvs.end(), [this](const auto& a, const auto& b) {
      return icmp_.Compare(a.first, b.first) < 0;
    });
    TableOptions options;
    options.comparator = &icmp_;
    options.key_format = InternalKeyFormat::Get();
    options.filter_policy = bloom_.get();
    options.block_size = 256;
    options.compression = compression;
    test::StringSink sink;
    TableBuilder builder(options, &sink);
    for (const auto& kv : kvs) builder.Add(kv.first, kv.second);
    EXPECT_OK(builder.Finish());
    WriteFile(path, sink.contents());
    return builder.properties();
  }

  // 100 puts "key000".."key099" (seq i+1) plus a deletion of "key050" at
  // seq 200.
  static std::vector<Entry> StandardEntries() {
    std::vector<Entry> entries;
    char key[16];
    for (int i = 0; i < 100; i++) {
      std::snprintf(key, sizeof(key), "key%03d", i);
      entries.push_back({key, static_cast<SequenceNumber>(i + 1), kTypeValue,
                         "value" + std::to_string(i)});
    }
    entries.push_back({"key050", 200, kTypeDeletion, ""});
    return entries;
  }

  RunResult Run(const std::string& args) {
    const std::string err_path = tmp_.File("stderr.txt");
    const std::string command =
        ShellQuote(SST_DUMP_PATH) + " " + args + " 2>" + ShellQuote(err_path);
    RunResult result;
    FILE* pipe = popen(command.c_str(), "r");
    EXPECT_NE(pipe, nullptr) << command;
    if (pipe == nullptr) return result;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0)
      result.out.append(buf, n);
    const int status = pclose(pipe);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    result.err = ReadFile(err_path);
    return result;
  }

  std::string SstPath(const std::string& name) const {
    return db_dir_ + "/" + name;
  }

  // An error run: the given exit code and exactly one line on stderr.
  static void ExpectOneLineError(const RunResult& r, int exit_code) {
    EXPECT_EQ(r.exit_code, exit_code) << r.err;
    EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("sst_dump: ", 0), 0u) << r.err;
  }

  // The offset of data block `number` as printed by the raw command.
  uint64_t DataBlockOffset(const std::string& path, int number) {
    RunResult r = Run("--command=raw --file=" + ShellQuote(path));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string marker =
        "Data block " + std::to_string(number) + " (offset ";
    const size_t pos = r.out.find(marker);
    EXPECT_NE(pos, std::string::npos) << r.out;
    if (pos == std::string::npos) return 0;
    return std::stoull(r.out.substr(pos + marker.size()));
  }

  InternalKeyComparator icmp_;
  std::unique_ptr<const FilterPolicy> bloom_;
  test::TempDir tmp_;
  const std::string db_dir_;
};

TEST_F(SstDumpTest, ScanPrintsEveryEntryInOrder) {
  const std::string path = SstPath("000001.sst");
  Build(path, StandardEntries());
  RunResult r = Run("--command=scan --file=" + ShellQuote(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");

  std::vector<std::string> expected;
  char line[64];
  for (int i = 0; i < 100; i++) {
    if (i == 50) {  // the deletion (seq 200) sorts before the put (seq 51)
      expected.push_back("'key050' seq:200, type:0 => ");
    }
    std::snprintf(line, sizeof(line), "'key%03d' seq:%d, type:1 => value%d", i,
                  i + 1, i);
    expected.push_back(line);
  }
  EXPECT_EQ(Lines(r.out), expected);
}

// A value stored compressed on its own prints as the DB returns it, with
// its type (4); one that does not uncompress fails the scan naming it.
TEST_F(SstDumpTest, ScanPrintsCompressedValuesUncompressed) {
  const std::string value(600, 'q');
  std::string stored;
  ASSERT_TRUE(CompressValue(kSnappyCompression, kDefaultCompressionLevel, value,
                            &stored));
  const std::string path = SstPath("000001.sst");
  Build(path, {{"a", 1, kTypeValue, "plain"},
               {"b", 2, kTypeValueCompressed, stored}});
  RunResult r = Run("--command=scan --file=" + ShellQuote(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out),
            (std::vector<std::string>{"'a' seq:1, type:1 => plain",
                                      "'b' seq:2, type:4 => " + value}));

  const std::string bad = SstPath("000002.sst");
  Build(bad, {{"b", 2, kTypeValueCompressed, stored.substr(0, 5)}});
  r = Run("--command=scan --file=" + ShellQuote(bad));
  ExpectOneLineError(r, 1);
  EXPECT_TRUE(Contains(r.err, "compressed value")) << r.err;
  EXPECT_TRUE(Contains(r.err, "entry 0")) << r.err;
}

TEST_F(SstDumpTest, ScanHonoursFromToAndReadNum) {
  const std::string path = SstPath("000001.sst");
  Build(path, StandardEntries());
  const std::string file = " --file=" + ShellQuote(path);

  RunResult r = Run("--command=scan --from=key010 --to=key013" + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out),
            (std::vector<std::string>{"'key010' seq:11, type:1 => value10",
                                      "'key011' seq:12, type:1 => value11",
                                      "'key012' seq:13, type:1 => value12"}));

  // --from includes every version of its key; --read_num caps the count.
  r = Run("--command=scan --from=key050 --read_num=2" + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out),
            (std::vector<std::string>{"'key050' seq:200, type:0 => ",
                                      "'key050' seq:51, type:1 => value50"}));

  // The same range given in hex ("key098" = 6B6579303938).
  r = Run("--command=scan --input_key_hex --from=0x6B6579303938" + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out),
            (std::vector<std::string>{"'key098' seq:99, type:1 => value98",
                                      "'key099' seq:100, type:1 => value99"}));

  // An empty range prints nothing.
  r = Run("--command=scan --from=zzz" + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(SstDumpTest, ScanShowsBinaryKeysInHexAndEscapesText) {
  const std::string path = SstPath("000002.sst");
  Build(path, {{std::string("\x00\x01\xff", 3), 7, kTypeValue, "v1"},
               {"a\\b", 8, kTypeValue, "line1\nline2"},
               {"b", 9, kTypeValue, std::string("\x00\x00\x00", 3)}});
  const std::string file = " --file=" + ShellQuote(path);

  RunResult r = Run("--command=scan" + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out), (std::vector<std::string>{
                              "'0x0001FF' seq:7, type:1 => v1",
                              "'a\\\\b' seq:8, type:1 => line1\\x0aline2",
                              "'b' seq:9, type:1 => 0x000000"}));

  r = Run("--command=scan --output_hex" + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out)[0], "'0x0001FF' seq:7, type:1 => 0x7631");
  EXPECT_EQ(Lines(r.out)[2], "'0x62' seq:9, type:1 => 0x000000");

  // A binary --from given in hex.
  r = Run("--command=scan --input_key_hex --from=0001ff --to=61" + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out),
            (std::vector<std::string>{"'0x0001FF' seq:7, type:1 => v1"}));
}

TEST_F(SstDumpTest, ShowPropertiesPrintsTheTablesNumbers) {
  const std::string path = SstPath("000003.sst");
  const TableProperties props = Build(path, StandardEntries());
  ASSERT_GT(props.num_data_blocks, 1u);
  RunResult r = Run("--show_properties --file=" + ShellQuote(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& out = r.out;
  EXPECT_TRUE(Contains(out, "OK, 101 entries")) << out;  // the default: check
  EXPECT_TRUE(Contains(
      out, "# data blocks: " + std::to_string(props.num_data_blocks) + "\n"))
      << out;
  EXPECT_TRUE(Contains(out, "# entries: 101\n")) << out;
  EXPECT_TRUE(Contains(out, "# deletions: 1\n")) << out;
  EXPECT_TRUE(Contains(
      out, "raw key size: " + std::to_string(props.raw_key_size) + "\n"))
      << out;
  EXPECT_TRUE(Contains(
      out, "data block size: " + std::to_string(props.data_size) + "\n"))
      << out;
  EXPECT_TRUE(Contains(out, "smallest seqno: 1\n")) << out;
  EXPECT_TRUE(Contains(out, "largest seqno: 200\n")) << out;
  EXPECT_TRUE(Contains(out, "compression name: Snappy\n")) << out;
  EXPECT_TRUE(Contains(out, "filter policy name: cascadedb.CacheLocalBloom"))
      << out;
}

TEST_F(SstDumpTest, ShowPropertiesWorksWhenDataBlocksAreCorrupt) {
  const std::string path = SstPath("000003.sst");
  Build(path, StandardEntries());
  std::string contents = ReadFile(path);
  contents[3] ^= 0x40;  // inside data block 0
  WriteFile(path, contents);
  RunResult r =
      Run("--command=verify --show_properties --file=" + ShellQuote(path));
  ExpectOneLineError(r, 1);
  EXPECT_TRUE(Contains(r.err, "checksum mismatch at offset 0")) << r.err;
  EXPECT_TRUE(Contains(r.out, "# entries: 101\n")) << r.out;
}

TEST_F(SstDumpTest, CheckCountsEntries) {
  const std::string path = SstPath("000004.sst");
  Build(path, StandardEntries());
  RunResult r = Run("--command=check --file=" + ShellQuote(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, path + ": OK, 101 entries\n");

  r = Run("--command=check --from=key010 --to=key020 " + ShellQuote(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, path + ": OK, 10 entries in the range\n");
}

TEST_F(SstDumpTest, EmptyTableIsValid) {
  const std::string path = SstPath("000004.sst");
  Build(path, {});
  const std::string file = " --file=" + ShellQuote(path);
  RunResult r = Run("--command=check" + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, path + ": OK, 0 entries\n");
  r = Run("--command=verify" + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "(0 data blocks), 0 entries")) << r.out;
  r = Run("--command=scan" + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  for (const char* command : {"raw", "recompress", "identify"}) {
    r = Run(std::string("--command=") + command + file);
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
  }
}

TEST_F(SstDumpTest, VerifyAcceptsAGoodFileAndNamesTheFlippedBlock) {
  const std::string path = SstPath("000005.sst");
  const TableProperties props = Build(path, StandardEntries());
  RunResult r = Run("--command=verify --file=" + ShellQuote(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, path + ": OK, ")) << r.out;
  EXPECT_TRUE(Contains(r.out, std::to_string(props.num_data_blocks) +
                                  " data blocks), 101 entries"))
      << r.out;

  const uint64_t offset = DataBlockOffset(path, 2);
  ASSERT_GT(offset, 0u);
  std::string contents = ReadFile(path);
  contents[offset + 5] ^= 0x01;
  WriteFile(path, contents);
  r = Run("--command=verify --file=" + ShellQuote(path));
  ExpectOneLineError(r, 1);
  EXPECT_TRUE(Contains(r.err, path)) << r.err;
  EXPECT_TRUE(Contains(r.err, "data block: block checksum mismatch at offset " +
                                  std::to_string(offset)))
      << r.err;

  // check (through the table reader) catches it too.
  r = Run("--command=check --file=" + ShellQuote(path));
  ExpectOneLineError(r, 1);
  EXPECT_TRUE(
      Contains(r.err, "checksum mismatch at offset " + std::to_string(offset)))
      << r.err;
}

// Damage that the block checksums cannot see (the checksum recomputed
// after the edit) is still caught: keys must increase.
TEST_F(SstDumpTest, VerifyCatchesKeysOutOfOrderBehindValidChecksums) {
  const std::string path = SstPath("000005.sst");
  Build(path, StandardEntries(), kNoCompression);
  std::string contents = ReadFile(path);
  const RunResult raw = Run("--command=raw --file=" + ShellQuote(path));
  const std::string marker = "Data block 0 (offset 0, size ";
  const size_t pos = raw.out.find(marker);
  ASSERT_NE(pos, std::string::npos) << raw.out;
  const size_t block_size = std::stoul(raw.out.substr(pos + marker.size()));

  // Entry 0 of block 0 holds "key000" in full: make it "key009", which
  // sorts after entry 1 (stored as "key00" shared + "1").
  const size_t key_pos = contents.find("key000");
  ASSERT_LT(key_pos, block_size);
  contents[key_pos + 5] = '9';
  EncodeBlockTrailer(Slice(contents.data(), block_size), kNoCompression,
                     &contents[block_size]);
  WriteFile(path, contents);

  RunResult r = Run("--command=verify --file=" + ShellQuote(path));
  ExpectOneLineError(r, 1);
  EXPECT_TRUE(Contains(r.err,
                       "data block at offset 0: entry 1: keys out of "
                       "order: 'key001' seq:2, type:1 after 'key009'"))
      << r.err;
  r = Run("--command=check --file=" + ShellQuote(path));
  ExpectOneLineError(r, 1);
  EXPECT_TRUE(Contains(r.err, "keys out of order")) << r.err;
}

TEST_F(SstDumpTest, TruncatedFileIsReported) {
  const std::string path = SstPath("000006.sst");
  Build(path, StandardEntries());
  const std::string contents = ReadFile(path);
  WriteFile(path, contents.substr(0, contents.size() - 10));
  for (const char* command : {"verify", "scan", "check", "raw", "identify"}) {
    RunResult r = Run(std::string("--command=") + command +
                      " --file=" + ShellQuote(path));
    ExpectOneLineError(r, 1);
    EXPECT_TRUE(Contains(r.err, path)) << command << ": " << r.err;
    EXPECT_TRUE(Contains(r.err, "not a CascadeDB SST file"))
        << command << ": " << r.err;
  }
  WriteFile(path, contents.substr(0, 20));
  RunResult r = Run("--command=verify --file=" + ShellQuote(path));
  ExpectOneLineError(r, 1);
  EXPECT_TRUE(Contains(r.err, "file is too short to be a table (20 bytes)"))
      << r.err;
}

TEST_F(SstDumpTest, NotAnSstIsReported) {
  const std::string path = SstPath("notes.sst");
  WriteFile(path, std::string(200, 'x'));
  RunResult r = Run("--command=identify --file=" + ShellQuote(path));
  ExpectOneLineError(r, 1);
  EXPECT_TRUE(Contains(r.err, path + ": bad table magic number")) << r.err;

  r = Run("--command=scan --file=" + ShellQuote(tmp_.File("missing.sst")));
  ExpectOneLineError(r, 1);
  EXPECT_TRUE(Contains(r.err, "missing.sst")) << r.err;
}

TEST_F(SstDumpTest, CommandLineErrorsAreUsageErrors) {
  const std::string path = SstPath("000007.sst");
  Build(path, StandardEntries());
  const std::string file = " --file=" + ShellQuote(path);
  struct Case {
    std::string args;
    std::string message;
  };
  const Case cases[] = {
      {"--command=bogus" + file, "unknown command 'bogus'"},
      {"--bogus=1" + file, "unknown flag '--bogus'"},
      {"--command=scan", "missing --file=PATH"},
      {"--command=scan --input_key_hex --from=0xZZ" + file,
       "--from: bad hex '0xZZ': 'Z' at position 2 is not a hex digit"},
      {"--command=scan --input_key_hex --to=abc" + file,
       "bad hex 'abc': odd number of digits"},
      {"--command=scan --read_num=-3" + file,
       "bad value for --read_num: '-3' is not a non-negative integer"},
      {"--command" + file, "flag --command needs a value"},
      {"--output_hex=yes" + file, "flag --output_hex takes no value"},
      {"--command=scan --command=raw" + file, "flag --command given twice"},
      {"--command=recompress --compression_types=gzip" + file,
       "unknown compression type 'gzip'"},
  };
  for (const Case& c : cases) {
    RunResult r = Run(c.args);
    ExpectOneLineError(r, 2);
    EXPECT_TRUE(Contains(r.err, c.message)) << c.args << ": " << r.err;
    EXPECT_EQ(r.out, "") << c.args;
  }
}

TEST_F(SstDumpTest, HelpListsEveryCommand) {
  RunResult r = Run("--help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* command :
       {"check", "scan", "raw", "verify", "recompress", "identify"}) {
    EXPECT_TRUE(Contains(r.out, std::string("\n  ") + command + " "))
        << command << "\n"
        << r.out;
  }
  EXPECT_TRUE(Contains(r.out, "--show_properties")) << r.out;
}

TEST_F(SstDumpTest, RecompressReportsEveryCodecAndWritesNothing) {
  const std::string path = SstPath("000008.sst");
  Build(path, StandardEntries(), kNoCompression);
  const std::string before = ReadFile(path);
  const std::vector<std::string> files_before = ListDir(db_dir_);

  RunResult r = Run("--command=recompress --file=" + ShellQuote(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(RecompressRows(r.out),
            (std::vector<std::string>{"NoCompression -", "Snappy -",
                                      "LZ4 default", "LZ4 9", "ZSTD 1",
                                      "ZSTD 3", "ZSTD 9", "ZSTD 19"}))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "101 entries")) << r.out;
  EXPECT_EQ(ReadFile(path), before);
  EXPECT_EQ(ListDir(db_dir_), files_before);

  r =
      Run("--command=recompress --compression_types=kZSTD,kNoCompression "
          "--compression_level_from=1 --compression_level_to=2 --file=" +
          ShellQuote(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(RecompressRows(r.out),
            (std::vector<std::string>{"NoCompression -", "ZSTD 1", "ZSTD 2"}))
      << r.out;
}

// Values stored compressed on their own are tried as written: the trial
// tables are the ones the same values stored plain give.
TEST_F(SstDumpTest, RecompressTriesCompressedValuesAsWritten) {
  std::vector<Entry> plain;
  std::vector<Entry> compressed;
  for (int i = 0; i < 50; i++) {
    const std::string key = "key" + std::to_string(100 + i);
    const std::string value(1000, static_cast<char>('a' + i % 26));
    std::string stored;
    ASSERT_TRUE(CompressValue(kSnappyCompression, kDefaultCompressionLevel,
                              value, &stored));
    plain.push_back(
        {key, static_cast<SequenceNumber>(i + 1), kTypeValue, value});
    compressed.push_back({key, static_cast<SequenceNumber>(i + 1),
                          kTypeValueCompressed, stored});
  }
  // The "file bytes" and "data bytes" of each result row.
  auto sizes = [this](const std::string& path) {
    RunResult r =
        Run("--command=recompress --compression_types=none,snappy "
            "--file=" +
            ShellQuote(path));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> rows;
    for (const std::string& line : Lines(r.out)) {
      std::istringstream in(line);
      std::string codec, level, file_bytes, data_bytes;
      in >> codec >> level >> file_bytes >> data_bytes;
      if (codec == "NoCompression" || codec == "Snappy") {
        rows.push_back(codec + " " + file_bytes + " " + data_bytes);
      }
    }
    return rows;
  };
  Build(SstPath("000010.sst"), plain);
  Build(SstPath("000011.sst"), compressed);
  const std::vector<std::string> expected = sizes(SstPath("000010.sst"));
  ASSERT_EQ(2u, expected.size());
  EXPECT_EQ(expected, sizes(SstPath("000011.sst")));
}

TEST_F(SstDumpTest, RawDumpsBlocksWithHandlesAndRestartPoints) {
  const std::string path = SstPath("000009.sst");
  const TableProperties props = Build(path, StandardEntries());
  RunResult r = Run("--command=raw --file=" + ShellQuote(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& out = r.out;
  for (const char* part :
       {"Footer:\n  metaindex handle: offset ", "Metaindex block (offset",
        "Properties block 'cascadedb.properties'",
        "Filter block 'filter.cascadedb.CacheLocalBloom'",
        "Index block (offset", "Data block 0 (offset 0, size ",
        "restart points (", "    offset 0: 'key000' seq:1, type:1",
        "cascadedb.num.entries => 101", "cascadedb.compression => Snappy",
        "[0] 'key000' seq:1, type:1 => value0"}) {
    EXPECT_TRUE(Contains(out, part)) << part << "\n" << out;
  }
  EXPECT_TRUE(Contains(
      out, "Data block " + std::to_string(props.num_data_blocks - 1) + " ("))
      << out;
  EXPECT_FALSE(Contains(
      out, "Data block " + std::to_string(props.num_data_blocks) + " ("))
      << out;
}

TEST_F(SstDumpTest, DirectoryIsProcessedFileByFile) {
  Build(SstPath("000010.sst"), StandardEntries());
  Build(SstPath("000011.sst"), {{"only", 5, kTypeValue, "one"}});
  WriteFile(SstPath("LOG"), "not a table, not an .sst name");

  RunResult r = Run("--command=identify --file=" + ShellQuote(db_dir_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(
      lines[0].rfind(
          SstPath("000010.sst") + ": valid CascadeDB SST (101 entries, ", 0),
      0u)
      << r.out;
  EXPECT_EQ(lines[1],
            SstPath("000011.sst") +
                ": valid CascadeDB SST (1 entries, 1 data blocks, " +
                std::to_string(ReadFile(SstPath("000011.sst")).size()) +
                " bytes)");

  r = Run("--command=scan --file=" + ShellQuote(db_dir_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "Process " + SstPath("000011.sst") +
                                  "\n'only' seq:5, type:1 => one\n"))
      << r.out;

  // A bad *.sst is named on stderr; the good ones are still listed.
  WriteFile(SstPath("000012.sst"), std::string(100, '\0'));
  r = Run("--command=identify --file=" + ShellQuote(db_dir_));
  ExpectOneLineError(r, 1);
  EXPECT_TRUE(Contains(r.err, SstPath("000012.sst"))) << r.err;
  EXPECT_EQ(Lines(r.out).size(), 2u) << r.out;

  const std::string empty_dir = tmp_.File("empty");
  std::filesystem::create_directories(empty_dir);
  r = Run("--command=identify --file=" + ShellQuote(empty_dir));
  ExpectOneLineError(r, 1);
  EXPECT_TRUE(Contains(r.err, "no *.sst files in directory")) << r.err;
}

// Corrupted variants of a table never crash the tool: every run exits 0 or
// 1, with one stderr line on failure. A byte flipped anywhere before the
// footer is always caught by verify (every block and trailer is
// checksummed).
TEST_F(SstDumpTest, CorruptVariantsNeverCrash) {
  const std::string path = SstPath("000013.sst");
  Build(path, StandardEntries());
  const std::string good = ReadFile(path);
  const size_t footer_start = good.size() - 52;

  std::vector<std::pair<std::string, std::string>> variants;  // name, bytes
  const size_t stride = std::max<size_t>(1, good.size() / 16);
  for (size_t pos = 1; pos < good.size(); pos += stride) {
    std::string bad = good;
    bad[pos] ^= 0x5a;
    variants.emplace_back("flip@" + std::to_string(pos), bad);
  }
  for (size_t footer_pos : {footer_start, footer_start + 3, good.size() - 10}) {
    std::string bad = good;
    bad[footer_pos] ^= 0xff;
    variants.emplace_back("flip@" + std::to_string(footer_pos), bad);
  }
  variants.emplace_back("zeros", std::string(good.size(), '\0'));
  variants.emplace_back("empty", "");
  variants.emplace_back("cut-half", good.substr(0, good.size() / 2));
  // The good footer after garbage: handles point into noise.
  variants.emplace_back("garbage+footer", std::string(footer_start, '\x7f') +
                                              good.substr(footer_start));

  for (const auto& [name, bytes] : variants) {
    WriteFile(path, bytes);
    for (const char* command : {"verify", "scan", "raw"}) {
      RunResult r = Run(std::string("--command=") + command +
                        " --show_properties --file=" + ShellQuote(path));
      SCOPED_TRACE(name + " " + command);
      ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1)
          << "exit " << r.exit_code << "\n"
          << r.err;
      if (r.exit_code == 1) {
        EXPECT_GE(Lines(r.err).size(), 1u);
        EXPECT_LE(Lines(r.err).size(), 2u) << r.err;  // command + properties
      }
    }
    const bool before_footer = name.rfind("flip@", 0) == 0 &&
                               std::stoull(name.substr(5)) < footer_start;
    if (before_footer || name == "zeros" || name == "empty" ||
        name == "cut-half" || name == "garbage+footer") {
      RunResult r = Run("--command=verify --file=" + ShellQuote(path));
      EXPECT_EQ(r.exit_code, 1) << name << "\n" << r.out;
    }
  }
}

}  // namespace
}  // namespace cascadedb

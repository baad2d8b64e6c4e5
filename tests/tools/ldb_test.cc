// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Runs the ldb binary (its path comes from LDB_PATH, set by
// tests/CMakeLists.txt) on a database built here through the C++ API, with
// flushed SSTs and entries left in the WAL, and checks its output, its
// stderr line and its exit code. Read-only commands must leave every byte
// of the directory as it was.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "cascadedb/options.h"
#include "cascadedb/write_batch.h"
#include "tests/testutil/test_util.h"
#include "tests/testutil/tool_test_util.h"

#ifndef LDB_PATH
#error "LDB_PATH must name the ldb binary"
#endif

namespace cascadedb {
namespace {

using test::Contains;
using test::Lines;
using test::ReadFile;
using test::RunResult;
using test::ShellQuote;
using test::WriteFile;

// The lines of text that start with prefix.
std::vector<std::string> LinesStartingWith(const std::string& text,
                                           const std::string& prefix) {
  std::vector<std::string> result;
  for (const std::string& line : Lines(text)) {
    if (line.compare(0, prefix.size(), prefix) == 0) result.push_back(line);
  }
  return result;
}

// Every file and directory under dir, with the bytes of the files.
std::map<std::string, std::string> Snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string rel = std::filesystem::relative(e.path(), dir).string();
    files[rel] = e.is_directory() ? "<dir>" : ReadFile(e.path().string());
  }
  return files;
}

class LdbTest : public ::testing::Test {
 protected:
  LdbTest() : db_path_(tmp_.File("db")) {
    options_.create_if_missing = true;
    options_.stats_dump_period_sec = 0;
    options_.compression = kNoCompression;
  }

  // key000..key149 in two flushed SSTs (with key010 deleted in the second),
  // then wal1, a deletion of key020, a binary key and a two-record batch
  // only in the WAL. Sequences: key<i> = i + 1; the deletion of key010 =
  // 151; wal1 = 152; key020's deletion = 153; the binary key = 154; the
  // batch = 155 and 156.
  void BuildDb() {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, db_path_, &db));
    char key[16];
    for (int i = 0; i < 150; ++i) {
      std::snprintf(key, sizeof(key), "key%03d", i);
      ASSERT_OK(db->Put(WriteOptions(), key, "value" + std::to_string(i)));
      if (i == 99) {
        ASSERT_OK(db->Flush(FlushOptions()));
      }
    }
    ASSERT_OK(db->Delete(WriteOptions(), "key010"));
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->Put(WriteOptions(), "wal1", "in the wal"));
    ASSERT_OK(db->Delete(WriteOptions(), "key020"));
    ASSERT_OK(db->Put(WriteOptions(), std::string("\x00\x01\xff", 3), "bin"));
    WriteBatch batch;
    ASSERT_OK(batch.Put("batch_a", "1"));
    ASSERT_OK(batch.Put("batch_b", "2"));
    ASSERT_OK(db->Write(WriteOptions(), &batch));
    ASSERT_OK(db->Close());
  }

  RunResult Run(const std::string& args) {
    const std::string err_path = tmp_.File("stderr.txt");
    const std::string command =
        ShellQuote(LDB_PATH) + " " + args + " 2>" + ShellQuote(err_path);
    RunResult result;
    FILE* pipe = popen(command.c_str(), "r");
    EXPECT_NE(pipe, nullptr) << command;
    if (pipe == nullptr) return result;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) {
      result.out.append(buf, n);
    }
    const int status = pclose(pipe);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    result.err = ReadFile(err_path);
    return result;
  }

  // ldb --db=<the test DB> args
  RunResult Ldb(const std::string& args) {
    return Run("--db=" + ShellQuote(db_path_) + " " + args);
  }

  // Runs args, expecting success; returns stdout.
  std::string Ok(const std::string& args) {
    RunResult r = Ldb(args);
    EXPECT_EQ(0, r.exit_code) << args << "\n" << r.err;
    EXPECT_EQ("", r.err) << args;
    return r.out;
  }

  // An error run: the given exit code and exactly one "ldb: " line on
  // stderr containing want.
  static void ExpectError(const RunResult& r, int exit_code,
                          const std::string& want) {
    EXPECT_EQ(exit_code, r.exit_code) << r.err;
    EXPECT_EQ(1u, Lines(r.err).size()) << r.err;
    EXPECT_EQ(0u, r.err.rfind("ldb: ", 0)) << r.err;
    EXPECT_TRUE(Contains(r.err, want)) << "want '" << want << "' in " << r.err;
  }

  std::vector<std::string> DbFiles(const std::string& suffix) {
    return test::FilesWithSuffix(db_path_, suffix);
  }

  std::string DbFile(const std::string& name) const {
    return db_path_ + "/" + name;
  }

  std::string CurrentManifest() {
    std::string current = ReadFile(DbFile("CURRENT"));
    if (!current.empty()) current.pop_back();
    return current;
  }

  void FlipByte(const std::string& name, size_t offset) {
    std::string data = ReadFile(DbFile(name));
    ASSERT_LT(offset, data.size()) << name;
    data[offset] ^= 0x20;
    WriteFile(DbFile(name), data);
  }

  test::TempDir tmp_;
  const std::string db_path_;
  Options options_;
};

TEST_F(LdbTest, GetPutDeleteBatchputRoundTrips) {
  BuildDb();
  EXPECT_EQ("value5\n", Ok("get key005"));
  EXPECT_EQ("in the wal\n", Ok("get wal1"));  // replayed from the WAL
  EXPECT_EQ("bin\n", Ok("--key_hex get 0x0001FF"));
  ExpectError(Ldb("get key010"), 1, "key 'key010' not found");

  EXPECT_EQ("OK\n", Ok("put newkey 'new value'"));
  EXPECT_EQ("new value\n", Ok("get newkey"));
  EXPECT_EQ("OK\n", Ok("delete newkey"));
  ExpectError(Ldb("get newkey"), 1, "not found");

  // Hex in and out: "hi" = 6869, "there" = 7468657265.
  EXPECT_EQ("OK\n", Ok("--hex put 0x6869 7468657265"));
  EXPECT_EQ("there\n", Ok("get hi"));
  EXPECT_EQ("0x7468657265\n", Ok("--hex get 0x6869"));
  EXPECT_EQ("there\n", Ok("--key_hex get 6869"));
  EXPECT_EQ("0x7468657265\n", Ok("--value_hex get hi"));

  EXPECT_EQ("OK\n", Ok("batchput b1 v1 b2 'v 2' b3 v3"));
  EXPECT_EQ("b1 : v1\nb2 : v 2\n", Ok("scan --from=b1 --to=b3"));

  // The writes are really in the database.
  std::unique_ptr<DB> db;
  options_.create_if_missing = false;
  ASSERT_OK(DB::Open(options_, db_path_, &db));
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), "b3", &value));
  EXPECT_EQ("v3", value);
  EXPECT_TRUE(db->Get(ReadOptions(), "newkey", &value).IsNotFound());
}

TEST_F(LdbTest, CreateIfMissing) {
  ExpectError(Ldb("put a b"), 1, "no such directory");
  EXPECT_FALSE(std::filesystem::exists(db_path_));
  EXPECT_EQ("OK\n", Ok("--create_if_missing put a b"));
  EXPECT_EQ("b\n", Ok("get a"));
}

TEST_F(LdbTest, ScanAndDump) {
  BuildDb();
  EXPECT_EQ("key000 : value0\nkey001 : value1\nkey002 : value2\n",
            Ok("scan --from=key000 --to=key003"));
  // Deleted keys are skipped; the binary key is shown in hex.
  EXPECT_EQ("key009 : value9\nkey011 : value11\n",
            Ok("scan --from=key009 --max_keys=2"));
  EXPECT_EQ("0x0001FF : bin\nbatch_a : 1\n", Ok("scan --max_keys=2"));
  EXPECT_EQ("0x0001FF : 0x62696E\n", Ok("--hex scan --max_keys=1"));
  // --key_hex: keys in hex, in and out ("key019" = 6B6579303139).
  EXPECT_EQ("0x6B6579303139 : value19\n0x6B6579303231 : value21\n",
            Ok("--key_hex scan --from=0x6B6579303139 --to=6B6579303232"));

  // 150 keys - 2 deleted + wal1 + the binary key + 2 batch keys.
  const std::vector<std::string> dump = Lines(Ok("dump"));
  ASSERT_EQ(152u, dump.size());
  EXPECT_EQ("0x0001FF ==> bin", dump[0]);
  EXPECT_EQ("key000 ==> value0", dump[3]);
  EXPECT_EQ("wal1 ==> in the wal", dump.back());
  EXPECT_EQ("Keys in range: 152\n", Ok("dump --count_only"));
  EXPECT_EQ("Keys in range: 10\n",
            Ok("dump --count_only --from=key100 --to=key110"));
  const std::string with_stats = Ok("dump --stats --count_only");
  EXPECT_TRUE(Contains(with_stats, "Compaction Stats")) << with_stats;
  EXPECT_TRUE(Contains(with_stats, "Keys in range: 152")) << with_stats;
}

TEST_F(LdbTest, IdumpShowsSequenceNumbersAndDeletions) {
  BuildDb();
  EXPECT_EQ("'key010' @ 151 : 0 => \n'key010' @ 11 : 1 => value10\n",
            Ok("idump --from=key010 --to=key011"));
  EXPECT_EQ("'key020' @ 153 : 0 => \n'key020' @ 21 : 1 => value20\n",
            Ok("idump --from=key020 --to=key021"));
  EXPECT_EQ("'wal1' @ 152 : 1 => in the wal\n", Ok("idump --from=wal1"));
  EXPECT_EQ("'0x0001FF' @ 154 : 1 => bin\n", Ok("idump --max_keys=1"));
  // Every entry: 150 puts, 2 deletions, wal1, the binary key, the batch.
  EXPECT_EQ("Internal keys in range: 156\n", Ok("idump --count_only"));
}

// A value the flush stored compressed on its own shows with its type (4)
// and as written, in idump as in get and scan.
TEST_F(LdbTest, CompressedValuesShowAsWritten) {
  const std::string big(700, 'w');
  options_.compression = kSnappyCompression;
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, db_path_, &db));
    ASSERT_OK(db->Put(WriteOptions(), "big", big));
    ASSERT_OK(db->Put(WriteOptions(), "small", "s"));
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->Close());
  }
  EXPECT_EQ("'big' @ 1 : 4 => " + big + "\n'small' @ 2 : 1 => s\n",
            Ok("idump"));
  EXPECT_EQ(big + "\n", Ok("get big"));
  EXPECT_EQ("big : " + big + "\nsmall : s\n", Ok("scan"));
}

TEST_F(LdbTest, ManifestDumpListsTheLiveFiles) {
  BuildDb();
  const std::string live = Ok("dump_live_files");
  const std::vector<std::string> live_files = LinesStartingWith(live, "  L");
  ASSERT_EQ(2u, live_files.size()) << live;
  // Each SST on disk is listed, and only those.
  for (const std::string& sst : DbFiles(".sst")) {
    EXPECT_EQ(1, std::count_if(live_files.begin(), live_files.end(),
                               [&](const std::string& l) {
                                 return Contains(l, " " + sst + " ");
                               }))
        << sst << " in\n"
        << live;
  }
  EXPECT_TRUE(Contains(live, "Live WAL files: 1")) << live;
  EXPECT_TRUE(Contains(live, DbFiles(".log").back())) << live;
  EXPECT_TRUE(Contains(live, "MANIFEST: " + CurrentManifest())) << live;

  const std::string dump = Ok("manifest_dump");
  const size_t final_state = dump.find("--- final state");
  ASSERT_NE(std::string::npos, final_state) << dump;
  EXPECT_EQ(live_files, LinesStartingWith(dump.substr(final_state), "  L"));
  EXPECT_TRUE(Contains(dump, "--- edit 0 at offset 0")) << dump;
  EXPECT_TRUE(Contains(dump, "AddFile: L0")) << dump;
  EXPECT_TRUE(Contains(dump, "last sequence: 151")) << dump;

  // The same file by --path (no --db needed), and --verbose adds the
  // records in hex.
  RunResult r = Run("manifest_dump --verbose --path=" +
                    ShellQuote(DbFile(CurrentManifest())));
  ASSERT_EQ(0, r.exit_code) << r.err;
  EXPECT_EQ(
      live_files,
      LinesStartingWith(r.out.substr(r.out.find("--- final state")), "  L"));
  EXPECT_FALSE(LinesStartingWith(r.out, "  0x").empty()) << r.out;
}

TEST_F(LdbTest, DumpWalShowsTheBatches) {
  BuildDb();
  const std::string wal = DbFile(DbFiles(".log").back());
  RunResult r =
      Run("dump_wal --header --print_value --walfile=" + ShellQuote(wal));
  ASSERT_EQ(0, r.exit_code) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(5u, lines.size()) << r.out;
  EXPECT_EQ("Sequence,Count,ByteSize,Physical Offset,Records", lines[0]);
  EXPECT_EQ(0u, lines[1].rfind("152,1,")) << lines[1];
  EXPECT_TRUE(Contains(lines[1], ",PUT : 'wal1' => 'in the wal'")) << lines[1];
  EXPECT_EQ(0u, lines[2].rfind("153,1,")) << lines[2];
  EXPECT_TRUE(Contains(lines[2], ",DELETE : 'key020'")) << lines[2];
  EXPECT_TRUE(Contains(lines[3], "PUT : '0x0001FF' => 'bin'")) << lines[3];
  EXPECT_EQ(0u, lines[4].rfind("155,2,")) << lines[4];
  EXPECT_TRUE(Contains(lines[4],
                       "PUT : 'batch_a' => '1' PUT : 'batch_b' => "
                       "'2'"))
      << lines[4];

  // Without --print_value and --header: keys only.
  r = Ldb("dump_wal --walfile=" + ShellQuote(wal));
  ASSERT_EQ(0, r.exit_code) << r.err;
  ASSERT_EQ(4u, Lines(r.out).size());
  EXPECT_TRUE(Contains(Lines(r.out)[0], ",PUT : 'wal1'"));
  EXPECT_FALSE(Contains(r.out, "=>")) << r.out;
}

TEST_F(LdbTest, ApproxSizeAndCompact) {
  BuildDb();
  const std::string all = Ok("approxsize");
  EXPECT_GT(std::stoull(all), 0u) << all;
  const std::string range = Ok("approxsize --from=key000 --to=key149");
  EXPECT_GT(std::stoull(range), 0u) << range;
  EXPECT_LE(std::stoull(range), std::stoull(all));
  EXPECT_EQ("0\n", Ok("approxsize --from=x --to=y"));

  EXPECT_EQ(2u, LinesStartingWith(Ok("dump_live_files"), "  L0 ").size());
  EXPECT_EQ("OK\n", Ok("compact"));
  const std::string live = Ok("dump_live_files");
  EXPECT_EQ(0u, LinesStartingWith(live, "  L0 ").size()) << live;
  EXPECT_FALSE(LinesStartingWith(live, "  L1 ").empty()) << live;
  EXPECT_EQ("value5\n", Ok("get key005"));
  EXPECT_EQ("in the wal\n", Ok("get wal1"));
  ExpectError(Ldb("get key020"), 1, "not found");
  EXPECT_EQ("Keys in range: 152\n", Ok("dump --count_only"));
  EXPECT_EQ("OK\n", Ok("compact --from=key000 --to=key050"));
}

TEST_F(LdbTest, CheckConsistency) {
  BuildDb();
  EXPECT_EQ(0u, Ok("checkconsistency").rfind("OK", 0));

  // An orphan SST.
  WriteFile(DbFile("000999.sst"), "left behind");
  RunResult r = Ldb("checkconsistency");
  ExpectError(r, 1, "000999.sst is not in the MANIFEST");
  EXPECT_TRUE(Contains(r.out, "FAIL: 000999.sst is not in the MANIFEST"))
      << r.out;
  std::filesystem::remove(DbFile("000999.sst"));
  EXPECT_EQ(0, Ldb("checkconsistency").exit_code);

  // A live SST with the wrong size, and one deleted.
  const std::vector<std::string> ssts = DbFiles(".sst");
  ASSERT_EQ(2u, ssts.size());
  std::string data = ReadFile(DbFile(ssts[1]));
  WriteFile(DbFile(ssts[1]), data + "x");
  r = Ldb("checkconsistency");
  ExpectError(r, 1, ssts[1] + " has " + std::to_string(data.size() + 1));
  std::filesystem::remove(DbFile(ssts[0]));
  r = Ldb("checkconsistency");
  ExpectError(r, 1, ssts[0] + " is missing");
  EXPECT_TRUE(Contains(r.err, "and 1 more")) << r.err;
  EXPECT_EQ(2u, LinesStartingWith(r.out, "FAIL: ").size()) << r.out;
}

TEST_F(LdbTest, StatsAndProperty) {
  BuildDb();
  EXPECT_TRUE(Contains(Ok("stats"), "Compaction Stats"));
  EXPECT_EQ("cascadedb.num-files-at-level0: 2\n",
            Ok("property cascadedb.num-files-at-level0"));
  EXPECT_EQ("cascadedb.latest-sequence-number: 156\n",
            Ok("property cascadedb.latest-sequence-number"));
  EXPECT_TRUE(Contains(Ok("property cascadedb.levelstats"), "Level Files"));
  const std::string waf = Ok("property cascadedb.write-amplification");
  EXPECT_FALSE(LinesStartingWith(waf, "cascadedb.write-amplification.").empty())
      << waf;
  ExpectError(Ldb("property cascadedb.no-such-thing"), 1,
              "unknown property 'cascadedb.no-such-thing'");
}

TEST_F(LdbTest, ReadOnlyCommandsLeaveTheDirectoryUnchanged) {
  BuildDb();
  const std::string wal = ShellQuote(DbFile(DbFiles(".log").back()));
  const std::map<std::string, std::string> before = Snapshot(db_path_);
  const std::vector<std::string> commands = {
      "get key005",
      "get wal1",
      "scan",
      "scan --from=key100 --max_keys=3",
      "dump",
      "dump --count_only --stats",
      "idump",
      "manifest_dump --verbose",
      "dump_wal --header --print_value --walfile=" + wal,
      "dump_live_files",
      "approxsize",
      "checkconsistency",
      "stats",
      "property cascadedb.stats",
      "property cascadedb.write-amplification",
  };
  for (const std::string& command : commands) {
    RunResult r = Ldb(command);
    EXPECT_EQ(0, r.exit_code) << command << ": " << r.err;
    EXPECT_TRUE(before == Snapshot(db_path_)) << command << " changed files";
  }
}

TEST_F(LdbTest, ReadOnlyCommandsWorkWhileLockedWritesDoNot) {
  BuildDb();
  std::unique_ptr<DB> db;
  options_.create_if_missing = false;
  ASSERT_OK(DB::Open(options_, db_path_, &db));  // holds the LOCK
  ASSERT_OK(db->Put(WriteOptions(), "live", "1"));
  EXPECT_EQ("value5\n", Ok("get key005"));
  EXPECT_EQ("1\n", Ok("get live"));  // from the open DB's WAL
  ExpectError(Ldb("put a b"), 1, "LOCK");
  ExpectError(Ldb("compact"), 1, "already held");
  ExpectError(Ldb("repair"), 1, "Busy");
  std::string value;
  EXPECT_TRUE(db->Get(ReadOptions(), "a", &value).IsNotFound());
}

TEST_F(LdbTest, MissingOrNotADatabase) {
  ExpectError(Ldb("get a"), 1, db_path_ + ": no such directory");
  ExpectError(Ldb("scan"), 1, "no such directory");
  std::filesystem::create_directories(db_path_);
  ExpectError(Ldb("get a"), 1, "not a CascadeDB database (no CURRENT file)");
  ExpectError(Ldb("manifest_dump"), 1, "no CURRENT file");
  ExpectError(Ldb("checkconsistency"), 1, "no CURRENT file");
  ExpectError(Ldb("repair"), 1, "no MANIFEST, SST or WAL");
  EXPECT_TRUE(std::filesystem::is_empty(db_path_));
}

TEST_F(LdbTest, CorruptManifestWalAndTable) {
  BuildDb();
  // A damaged MANIFEST (its first record; more records follow).
  const std::string manifest = CurrentManifest();
  const std::string manifest_bytes = ReadFile(DbFile(manifest));
  FlipByte(manifest, 12);
  ExpectError(Ldb("get key005"), 1, manifest);
  ExpectError(Ldb("manifest_dump"), 1, "checksum mismatch");
  ExpectError(Ldb("checkconsistency"), 1, manifest);
  WriteFile(DbFile(manifest), manifest_bytes);

  // A damaged WAL record (the first; three more follow).
  const std::string wal = DbFiles(".log").back();
  const std::string wal_bytes = ReadFile(DbFile(wal));
  FlipByte(wal, 20);
  RunResult r = Run("dump_wal --walfile=" + ShellQuote(DbFile(wal)));
  ExpectError(r, 1, "checksum mismatch at offset 0");
  ExpectError(Ldb("get key005"), 1, wal);
  WriteFile(DbFile(wal), wal_bytes);

  // A damaged data block: reads through it fail, naming the file.
  const std::string sst = DbFiles(".sst")[0];
  FlipByte(sst, 20);
  ExpectError(Ldb("scan"), 1, sst);
  ExpectError(Ldb("get key000"), 1, "checksum");
  EXPECT_EQ("value120\n", Ok("get key120"));  // in the other table
}

TEST_F(LdbTest, RepairRebuildsALostManifest) {
  BuildDb();
  std::filesystem::remove(DbFile("CURRENT"));
  for (const std::string& f : DbFiles("")) {
    if (f.rfind("MANIFEST-", 0) == 0) std::filesystem::remove(DbFile(f));
  }
  ExpectError(Ldb("get key005"), 1, "'ldb repair' can rebuild");
  const std::string out = Ok("repair");
  EXPECT_TRUE(Contains(out, "Repair done")) << out;
  EXPECT_EQ("OK", Lines(out).back());
  EXPECT_EQ("value5\n", Ok("get key005"));
  EXPECT_EQ("in the wal\n", Ok("get wal1"));
  EXPECT_EQ("Keys in range: 152\n", Ok("dump --count_only"));
  EXPECT_EQ(0u, Ok("checkconsistency").rfind("OK", 0));
}

TEST_F(LdbTest, CommandLineErrorsAreUsageErrors) {
  BuildDb();
  ExpectError(Ldb("--hex get zz"), 2, "bad hex 'zz'");
  ExpectError(Ldb("--key_hex scan --from=0x1"), 2, "--from: bad hex");
  ExpectError(Ldb("--value_hex put 00 xyz"), 2, "value: bad hex");
  ExpectError(Ldb("frobnicate"), 2, "unknown command 'frobnicate'");
  ExpectError(Ldb("--bogus get a"), 2, "unknown flag '--bogus'");
  ExpectError(Ldb("get --count_only a"), 2,
              "flag --count_only does not apply to get");
  ExpectError(Ldb("get"), 2, "get needs KEY (got 0)");
  ExpectError(Ldb("scan extra"), 2, "scan takes no arguments");
  ExpectError(Ldb("batchput a b c"), 2, "odd number");
  ExpectError(Ldb("scan --max_keys=lots"), 2, "--max_keys");
  ExpectError(Ldb(""), 2, "missing command");
  ExpectError(Run("get a"), 2, "missing --db");
  ExpectError(Run("dump_wal"), 2, "--walfile");
  // The engine has no range deletions, so neither has ldb.
  ExpectError(Ldb("deleterange a b"), 2, "unknown command 'deleterange'");

  // --help lists every command (as "  name ARGS", its description on the
  // next line), in this order.
  RunResult r = Run("--help");
  EXPECT_EQ(0, r.exit_code);
  std::vector<std::string> listed;
  for (const std::string& line : LinesStartingWith(r.out, "  ")) {
    if (line.size() > 2 && line[2] != ' ' && line[2] != '-') {
      listed.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  EXPECT_EQ((std::vector<std::string>{
                "get", "put", "delete", "batchput", "scan", "dump", "idump",
                "manifest_dump", "dump_wal", "dump_live_files", "approxsize",
                "compact", "checkconsistency", "repair", "stats", "property"}),
            listed)
      << r.out;
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Helpers for the tests that run the command-line tools (ldb, sst_dump,
// db_bench) as processes and read their output: shell quoting, whole-file
// reads and writes, splitting output into lines.
//
// Thread safety: the functions are thread-safe.

#ifndef CASCADEDB_TESTS_TESTUTIL_TOOL_TEST_UTIL_H_
#define CASCADEDB_TESTS_TESTUTIL_TOOL_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cascadedb {
namespace test {

// What a tool run left behind.
struct RunResult {
  int exit_code = -1;  // -1: did not exit normally (e.g. crashed)
  std::string out;
  std::string err;
};

// s quoted for /bin/sh, whatever bytes it holds.
inline std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

// The whole file ("" if it cannot be read).
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Replaces path's contents; a failed write fails the test.
inline void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  ASSERT_TRUE(out.good()) << path;
}

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

inline bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace test
}  // namespace cascadedb

#endif  // CASCADEDB_TESTS_TESTUTIL_TOOL_TEST_UTIL_H_

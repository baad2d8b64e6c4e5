// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Command-line helpers shared by the inspection tools (sst_dump, ldb):
// "--name=value" flag parsing against a declared flag list, number and hex
// parsing that reports bad input as InvalidArgument naming the text, and
// the one way the tools show a key or value (printable bytes as escaped
// text, binary data as 0x-prefixed hex). The tools follow RocksDB's flag
// names where the concept is the same, so users' habits carry over.
//
// Exit codes are shared too: kExitOk, kExitError (a file or its data is
// bad), kExitUsage (the command line is bad).
//
// Thread safety: the free functions are thread-safe; FlagParser is
// thread-compatible.

#ifndef CASCADEDB_TOOLS_TOOL_UTIL_H_
#define CASCADEDB_TOOLS_TOOL_UTIL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cascadedb/slice.h"
#include "cascadedb/status.h"

namespace cascadedb {

// Process exit codes of the tools.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;  // missing or corrupt file, failed operation
constexpr int kExitUsage = 2;  // unknown flag or command, bad flag value

// One flag a tool accepts.
struct FlagSpec {
  std::string name;        // without the leading "--", e.g. "read_num"
  bool takes_value;        // "--name=VALUE" if true, a bare "--name" if not
  std::string value_name;  // shown in help: "--read_num=N"; "" if no value
  std::string help;        // one line
};

// Parses a command line against a list of FlagSpecs. Arguments are
// "--name=value" (flags that take a value), "--name" (switches, which also
// accept "--name=true|false|1|0"), and positional arguments (anything not
// starting with "--"). A lone "--" makes every later argument positional.
class FlagParser {
 public:
  explicit FlagParser(std::vector<FlagSpec> specs);

  // Parses argv[first, argc). Returns InvalidArgument naming the argument:
  //   "unknown flag --foo", "flag --from needs a value (--from=K)",
  //   "flag --output_hex takes no value, got 'x'", "flag --from given twice",
  //   "bad argument '-x' (flags start with --)".
  // REQUIRES: Parse has not been called on this object before.
  Status Parse(int argc, const char* const* argv, int first = 1);

  // True if the flag appeared on the command line.
  bool IsSet(const std::string& name) const;

  // The flag's value, or default_value if it was not given.
  std::string GetString(const std::string& name,
                        const std::string& default_value = "") const;

  // A switch's value: false if absent, true for a bare "--name".
  bool GetBool(const std::string& name) const;

  // The flag's value as a number, or default_value if it was not given.
  // InvalidArgument ("bad value 'x' for --read_num: ...") if malformed.
  Status GetUint64(const std::string& name, uint64_t default_value,
                   uint64_t* value) const;
  Status GetInt(const std::string& name, int default_value, int* value) const;

  const std::vector<std::string>& positional() const { return positional_; }

  // One line per flag, "  --name=VALUE  help", aligned.
  std::string Help() const;

 private:
  const FlagSpec* Find(const std::string& name) const;

  const std::vector<FlagSpec> specs_;
  std::map<std::string, std::string> values_;  // name -> value ("true" for a
                                               // bare switch)
  std::vector<std::string> positional_;
};

// Parses a decimal unsigned integer (no sign, no spaces) that fits in 64
// bits. InvalidArgument ("'12x' is not a non-negative integer", "'9...'
// is out of range") otherwise.
Status ParseUint64(const std::string& text, uint64_t* value);

// Parses a decimal int, optionally negative. InvalidArgument otherwise.
Status ParseInt(const std::string& text, int* value);

// Every byte of s as two upper-case hex digits, no prefix ("6B6579").
std::string ToHex(const Slice& s);

// Parses hex digits (either case), with an optional "0x"/"0X" prefix, into
// *out. "0x" alone is the empty string. InvalidArgument otherwise:
//   "bad hex '0xabc': odd number of digits",
//   "bad hex 'zz': 'z' at position 0 is not a hex digit".
Status ParseHex(const std::string& text, std::string* out);

// How the tools show a key or value. With force_hex, "0x" + ToHex(s).
// Otherwise, if at most a quarter of the bytes are outside printable ASCII,
// the text itself with '\' shown as "\\" and other bytes as "\xNN" (and a
// leading "0x" as "\x30x", so text never reads as hex); else "0x" + hex.
// The result never contains a control character.
std::string FormatBytes(const Slice& s, bool force_hex = false);

// A key given on the command line: the text itself, or with hex its bytes
// as parsed by ParseHex. flag names the flag for the error message
// ("bad hex for --from: ...").
Status ParseKeyArgument(const std::string& flag, const std::string& text,
                        bool hex, std::string* key);

// Prints "<tool>: <message>" as one line on stderr.
void PrintError(const char* tool, const std::string& message);

}  // namespace cascadedb

#endif  // CASCADEDB_TOOLS_TOOL_UTIL_H_

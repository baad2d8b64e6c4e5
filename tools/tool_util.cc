// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "tools/tool_util.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <utility>

namespace cascadedb {

namespace {

bool IsPrintable(unsigned char c) { return c >= 0x20 && c <= 0x7e; }

int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Quotes text for a message: printable bytes as is, others as \xNN, so a
// message stays on one line whatever the user typed.
std::string Quote(const std::string& text) {
  std::string out = "'";
  char buf[8];
  for (unsigned char c : text) {
    if (IsPrintable(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out.append(buf);
    }
  }
  out.push_back('\'');
  return out;
}

}  // namespace

FlagParser::FlagParser(std::vector<FlagSpec> specs)
    : specs_(std::move(specs)) {}

const FlagSpec* FlagParser::Find(const std::string& name) const {
  for (const FlagSpec& spec : specs_) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

Status FlagParser::Parse(int argc, const char* const* argv, int first) {
  bool flags_done = false;
  for (int i = first; i < argc; i++) {
    const std::string arg = argv[i];
    if (flags_done || arg.empty() || arg[0] != '-') {
      positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    if (arg.size() < 3 || arg[1] != '-') {
      return Status::InvalidArgument("bad argument " + Quote(arg) +
                                     " (flags start with --)");
    }
    const size_t eq = arg.find('=');
    const std::string name =
        arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const FlagSpec* spec = Find(name);
    if (spec == nullptr) {
      return Status::InvalidArgument("unknown flag " + Quote("--" + name));
    }
    if (values_.count(name) != 0) {
      return Status::InvalidArgument("flag --" + name + " given twice");
    }
    std::string value;
    if (spec->takes_value) {
      if (eq == std::string::npos) {
        return Status::InvalidArgument("flag --" + name + " needs a value (--" +
                                       name + "=" + spec->value_name + ")");
      }
      value = arg.substr(eq + 1);
    } else if (eq == std::string::npos) {
      value = "true";
    } else {
      value = arg.substr(eq + 1);
      if (value == "1" || value == "true") {
        value = "true";
      } else if (value == "0" || value == "false") {
        value = "false";
      } else {
        return Status::InvalidArgument("flag --" + name +
                                       " takes no value, got " + Quote(value));
      }
    }
    values_[name] = value;
  }
  return Status::OK();
}

bool FlagParser::IsSet(const std::string& name) const {
  return values_.count(name) != 0;
}

std::string FlagParser::GetString(const std::string& name,
                                  const std::string& default_value) const {
  auto it = values_.find(name);
  return it == values_.end() ? default_value : it->second;
}

bool FlagParser::GetBool(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->second == "true";
}

Status FlagParser::GetUint64(const std::string& name, uint64_t default_value,
                             uint64_t* value) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    *value = default_value;
    return Status::OK();
  }
  Status s = ParseUint64(it->second, value);
  if (!s.ok()) {
    return Status::InvalidArgument("bad value for --" + name, s.message());
  }
  return s;
}

Status FlagParser::GetInt(const std::string& name, int default_value,
                          int* value) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    *value = default_value;
    return Status::OK();
  }
  Status s = ParseInt(it->second, value);
  if (!s.ok()) {
    return Status::InvalidArgument("bad value for --" + name, s.message());
  }
  return s;
}

std::string FlagParser::Help() const {
  std::vector<std::string> lefts;
  size_t width = 0;
  for (const FlagSpec& spec : specs_) {
    std::string left = "--" + spec.name;
    if (spec.takes_value) left += "=" + spec.value_name;
    width = std::max(width, left.size());
    lefts.push_back(std::move(left));
  }
  std::string out;
  for (size_t i = 0; i < specs_.size(); i++) {
    out += "  " + lefts[i] + std::string(width - lefts[i].size() + 2, ' ') +
           specs_[i].help + "\n";
  }
  return out;
}

Status ParseUint64(const std::string& text, uint64_t* value) {
  if (text.empty()) {
    return Status::InvalidArgument("'' is not a non-negative integer");
  }
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      return Status::InvalidArgument(Quote(text) +
                                     " is not a non-negative integer");
    }
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) {
      return Status::InvalidArgument(Quote(text) + " is out of range");
    }
    v = v * 10 + digit;
  }
  *value = v;
  return Status::OK();
}

Status ParseInt(const std::string& text, int* value) {
  const bool negative = !text.empty() && text[0] == '-';
  uint64_t magnitude = 0;
  Status s = ParseUint64(negative ? text.substr(1) : text, &magnitude);
  if (!s.ok()) {
    return Status::InvalidArgument(Quote(text) + " is not an integer");
  }
  const uint64_t limit = negative ? uint64_t{1} + INT_MAX : uint64_t{INT_MAX};
  if (magnitude > limit) {
    return Status::InvalidArgument(Quote(text) + " is out of range");
  }
  *value = negative ? static_cast<int>(-static_cast<int64_t>(magnitude))
                    : static_cast<int>(magnitude);
  return Status::OK();
}

std::string ToHex(const Slice& s) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() * 2);
  for (size_t i = 0; i < s.size(); i++) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xf]);
  }
  return out;
}

Status ParseHex(const std::string& text, std::string* out) {
  size_t start = 0;
  if (text.size() >= 2 && text[0] == '0' &&
      (text[1] == 'x' || text[1] == 'X')) {
    start = 2;
  }
  if ((text.size() - start) % 2 != 0) {
    return Status::InvalidArgument("bad hex " + Quote(text) +
                                   ": odd number of digits");
  }
  std::string result;
  result.reserve((text.size() - start) / 2);
  for (size_t i = start; i < text.size(); i += 2) {
    const int hi = HexDigitValue(text[i]);
    const int lo = HexDigitValue(text[i + 1]);
    if (hi < 0 || lo < 0) {
      const size_t bad = hi < 0 ? i : i + 1;
      return Status::InvalidArgument(
          "bad hex " + Quote(text) + ": " + Quote(text.substr(bad, 1)) +
          " at position " + std::to_string(bad) + " is not a hex digit");
    }
    result.push_back(static_cast<char>((hi << 4) | lo));
  }
  *out = std::move(result);
  return Status::OK();
}

std::string FormatBytes(const Slice& s, bool force_hex) {
  size_t unprintable = 0;
  for (size_t i = 0; i < s.size(); i++) {
    if (!IsPrintable(static_cast<unsigned char>(s[i]))) unprintable++;
  }
  if (force_hex || unprintable * 4 > s.size()) return "0x" + ToHex(s);
  std::string out;
  out.reserve(s.size());
  char buf[8];
  for (size_t i = 0; i < s.size(); i++) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const bool hex_lookalike =
        i == 0 && s.size() >= 2 && c == '0' && (s[1] == 'x' || s[1] == 'X');
    if (c == '\\') {
      out.append("\\\\");
    } else if (IsPrintable(c) && !hex_lookalike) {
      out.push_back(static_cast<char>(c));
    } else {
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out.append(buf);
    }
  }
  return out;
}

Status ParseKeyArgument(const std::string& flag, const std::string& text,
                        bool hex, std::string* key) {
  if (!hex) {
    *key = text;
    return Status::OK();
  }
  Status s = ParseHex(text, key);
  if (!s.ok()) {
    return Status::InvalidArgument("--" + flag + ": " + s.message());
  }
  return s;
}

void PrintError(const char* tool, const std::string& message) {
  // One line, whatever the message holds.
  std::string line;
  line.reserve(message.size());
  for (char c : message) line.push_back(c == '\n' || c == '\r' ? ' ' : c);
  std::fprintf(stderr, "%s: %s\n", tool, line.c_str());
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "tools/tool_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/testutil/test_util.h"

namespace cascadedb {
namespace {

std::vector<FlagSpec> TestFlags() {
  return {{"file", true, "PATH", "a file"},
          {"read_num", true, "N", "a count"},
          {"level", true, "L", "a level"},
          {"hex", false, "", "a switch"}};
}

Status ParseArgs(FlagParser* parser, std::vector<const char*> args) {
  args.insert(args.begin(), "tool");
  return parser->Parse(static_cast<int>(args.size()), args.data());
}

TEST(FlagParserTest, ParsesValuesSwitchesAndPositionals) {
  FlagParser parser(TestFlags());
  ASSERT_OK(ParseArgs(&parser, {"--file=a=b", "pos1", "--hex", "--read_num=7",
                                "--", "--not-a-flag"}));
  EXPECT_EQ(parser.GetString("file"), "a=b");
  EXPECT_TRUE(parser.GetBool("hex"));
  uint64_t n = 0;
  ASSERT_OK(parser.GetUint64("read_num", 0, &n));
  EXPECT_EQ(n, 7u);
  int level = 0;
  ASSERT_OK(parser.GetInt("level", -4, &level));
  EXPECT_EQ(level, -4);  // absent: the default
  EXPECT_FALSE(parser.IsSet("level"));
  EXPECT_EQ(parser.positional(),
            (std::vector<std::string>{"pos1", "--not-a-flag"}));
}

TEST(FlagParserTest, SwitchAcceptsExplicitBooleans) {
  FlagParser parser(TestFlags());
  ASSERT_OK(ParseArgs(&parser, {"--hex=false"}));
  EXPECT_TRUE(parser.IsSet("hex"));
  EXPECT_FALSE(parser.GetBool("hex"));
}

TEST(FlagParserTest, RejectsBadArgumentsNamingThem) {
  struct Case {
    std::vector<const char*> args;
    std::string message;
  };
  const Case cases[] = {
      {{"--nope=1"}, "unknown flag '--nope'"},
      {{"--file"}, "flag --file needs a value (--file=PATH)"},
      {{"--hex=maybe"}, "flag --hex takes no value, got 'maybe'"},
      {{"--file=a", "--file=b"}, "flag --file given twice"},
      {{"-x"}, "bad argument '-x' (flags start with --)"},
  };
  for (const Case& c : cases) {
    FlagParser parser(TestFlags());
    Status s = ParseArgs(&parser, c.args);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_EQ(s.message(), c.message);
  }
}

TEST(FlagParserTest, BadNumberNamesTheFlag) {
  FlagParser parser(TestFlags());
  ASSERT_OK(ParseArgs(&parser, {"--read_num=12x"}));
  uint64_t n = 0;
  Status s = parser.GetUint64("read_num", 0, &n);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(),
            "bad value for --read_num: '12x' is not a non-negative integer");
}

TEST(FlagParserTest, HelpListsEveryFlagAligned) {
  FlagParser parser(TestFlags());
  EXPECT_EQ(parser.Help(),
            "  --file=PATH   a file\n"
            "  --read_num=N  a count\n"
            "  --level=L     a level\n"
            "  --hex         a switch\n");
}

TEST(ToolUtilTest, ParsesNumbersWithinRange) {
  uint64_t u = 0;
  ASSERT_OK(ParseUint64("18446744073709551615", &u));
  EXPECT_EQ(u, UINT64_MAX);
  EXPECT_TRUE(ParseUint64("18446744073709551616", &u).IsInvalidArgument());
  EXPECT_TRUE(ParseUint64("", &u).IsInvalidArgument());
  EXPECT_TRUE(ParseUint64("+1", &u).IsInvalidArgument());
  int i = 0;
  ASSERT_OK(ParseInt("-2147483648", &i));
  EXPECT_EQ(i, INT32_MIN);
  ASSERT_OK(ParseInt("19", &i));
  EXPECT_EQ(i, 19);
  EXPECT_TRUE(ParseInt("2147483648", &i).IsInvalidArgument());
  EXPECT_TRUE(ParseInt("-", &i).IsInvalidArgument());
}

TEST(ToolUtilTest, HexRoundTripsAndRejectsBadDigits) {
  const std::string bytes("\x00\x7f\x80\xff", 4);
  EXPECT_EQ(ToHex(bytes), "007F80FF");
  std::string out;
  ASSERT_OK(ParseHex("0x007f80FF", &out));
  EXPECT_EQ(out, bytes);
  ASSERT_OK(ParseHex("007F80ff", &out));
  EXPECT_EQ(out, bytes);
  ASSERT_OK(ParseHex("0x", &out));
  EXPECT_EQ(out, "");

  Status s = ParseHex("0xabc", &out);
  EXPECT_EQ(s.message(), "bad hex '0xabc': odd number of digits");
  s = ParseHex("a g", &out);
  EXPECT_TRUE(s.IsInvalidArgument());
  s = ParseHex("1g", &out);
  EXPECT_EQ(s.message(), "bad hex '1g': 'g' at position 1 is not a hex digit");
  s = ParseKeyArgument("from", "zz", /*hex=*/true, &out);
  EXPECT_EQ(s.message(),
            "--from: bad hex 'zz': 'z' at position 0 is not a hex digit");
  ASSERT_OK(ParseKeyArgument("from", "zz", /*hex=*/false, &out));
  EXPECT_EQ(out, "zz");
}

TEST(ToolUtilTest, FormatBytesShowsTextEscapedAndBinaryAsHex) {
  EXPECT_EQ(FormatBytes("key1"), "key1");
  EXPECT_EQ(FormatBytes(""), "");
  EXPECT_EQ(FormatBytes("a\\b"), "a\\\\b");
  // One byte in four or fewer unprintable: escaped text.
  EXPECT_EQ(FormatBytes(std::string("abc\0", 4)), "abc\\x00");
  // More: hex.
  EXPECT_EQ(FormatBytes(std::string("ab\0\0", 4)), "0x61620000");
  EXPECT_EQ(FormatBytes("key1", /*force_hex=*/true), "0x6B657931");
  // Text that looks like hex is escaped so it cannot be misread.
  EXPECT_EQ(FormatBytes("0x12"), "\\x30x12");
  // Never a control character in the output.
  const std::string shown = FormatBytes("line1\nline2\t!");
  EXPECT_EQ(shown, "line1\\x0aline2\\x09!");
}

}  // namespace
}  // namespace cascadedb

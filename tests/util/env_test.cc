// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Tests of the Env-independent helpers in util/env.cc.

#include <cstdarg>
#include <string>
#include <vector>

#include "cascadedb/env.h"
#include "tests/testutil/test_util.h"
#include "util/fault_injection_env.h"

namespace cascadedb {
namespace {

// Remembers the formatted lines instead of writing them.
class RecordingLogger : public Logger {
 public:
  void Logv(const char* format, va_list ap) override {
    char buf[256];
    std::vsnprintf(buf, sizeof(buf), format, ap);
    lines.emplace_back(buf);
  }
  std::vector<std::string> lines;
};

TEST(EnvTest, LogFormatsAtInfoLevel) {
  RecordingLogger logger;
  Log(&logger, "%d files in %s", 7, "db");
  EXPECT_EQ((std::vector<std::string>{"7 files in db"}), logger.lines);
}

TEST(EnvTest, LogSkipsLevelsBelowTheLoggers) {
  RecordingLogger logger;
  logger.set_level(InfoLogLevel::kWarn);
  Log(InfoLogLevel::kInfo, &logger, "info");
  Log(InfoLogLevel::kWarn, &logger, "warn %d", 1);
  Log(InfoLogLevel::kFatal, &logger, "fatal");
  EXPECT_EQ((std::vector<std::string>{"[WARN] warn 1", "[FATAL] fatal"}),
            logger.lines);
}

TEST(EnvTest, LogToNullLoggerDoesNothing) {
  Log(nullptr, "nothing %d", 1);
  Log(InfoLogLevel::kError, nullptr, "nothing");
}

TEST(EnvTest, WriteStringToFileReplacesContents) {
  test::TempDir dir;
  Env* env = Env::Default();
  ASSERT_OK(WriteStringToFile(env, "first version", dir.File("f")));
  ASSERT_OK(WriteStringToFile(env, "second", dir.File("f"), /*sync=*/true));
  std::string data;
  ASSERT_OK(ReadFileToString(env, dir.File("f"), &data));
  EXPECT_EQ("second", data);
}

TEST(EnvTest, ReadFileToStringReadsEmptyAndLargeFiles) {
  test::TempDir dir;
  Env* env = Env::Default();
  uint32_t seed = test::RandomSeed();
  const std::string large = test::RandomBytes(&seed, 200 * 1024 + 3);
  ASSERT_OK(WriteStringToFile(env, "", dir.File("empty")));
  ASSERT_OK(WriteStringToFile(env, large, dir.File("large")));
  std::string data = "stale";
  ASSERT_OK(ReadFileToString(env, dir.File("empty"), &data));
  EXPECT_EQ("", data);
  ASSERT_OK(ReadFileToString(env, dir.File("large"), &data));
  EXPECT_EQ(large, data);
}

TEST(EnvTest, FailedWriteStringToFileLeavesNoFile) {
  test::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  env.SetFailNthSync(0);
  Status s = WriteStringToFile(&env, "data", dir.File("f"), /*sync=*/true);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(env.FileExists(dir.File("f")).IsNotFound());
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "cascadedb/status.h"

#include <gtest/gtest.h>

#include <utility>

namespace cascadedb {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(Status::Code::kOk, s.code());
  EXPECT_EQ("OK", s.ToString());
  EXPECT_EQ("", s.message());
}

TEST(StatusTest, EachFactorySetsItsCodeAndMessage) {
  struct Case {
    Status status;
    Status::Code code;
    const char* text;
  };
  const Case cases[] = {
      {Status::NotFound("a"), Status::Code::kNotFound, "NotFound: a"},
      {Status::Corruption("a"), Status::Code::kCorruption, "Corruption: a"},
      {Status::NotSupported("a"), Status::Code::kNotSupported,
       "Not implemented: a"},
      {Status::InvalidArgument("a"), Status::Code::kInvalidArgument,
       "Invalid argument: a"},
      {Status::IOError("a"), Status::Code::kIOError, "IO error: a"},
      {Status::Busy("a"), Status::Code::kBusy, "Busy: a"},
      {Status::Incomplete("a"), Status::Code::kIncomplete, "Incomplete: a"},
      {Status::TimedOut("a"), Status::Code::kTimedOut, "Timed out: a"},
      {Status::Aborted("a"), Status::Code::kAborted, "Aborted: a"},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(c.status.ok());
    EXPECT_EQ(c.code, c.status.code());
    EXPECT_EQ(c.text, c.status.ToString());
    EXPECT_EQ("a", c.status.message());
  }
  EXPECT_TRUE(Status::NotFound("x").IsNotFound());
  EXPECT_TRUE(Status::Corruption("x").IsCorruption());
  EXPECT_TRUE(Status::NotSupported("x").IsNotSupported());
  EXPECT_TRUE(Status::InvalidArgument("x").IsInvalidArgument());
  EXPECT_TRUE(Status::IOError("x").IsIOError());
  EXPECT_TRUE(Status::Busy("x").IsBusy());
  EXPECT_TRUE(Status::Incomplete("x").IsIncomplete());
  EXPECT_TRUE(Status::TimedOut("x").IsTimedOut());
  EXPECT_TRUE(Status::Aborted("x").IsAborted());
  EXPECT_FALSE(Status::Aborted("x").IsNotFound());
}

TEST(StatusTest, SecondMessageIsJoinedWithColon) {
  Status s = Status::IOError("000012.log", "No space left on device");
  EXPECT_EQ("000012.log: No space left on device", s.message());
}

TEST(StatusTest, CopyAndMoveKeepTheError) {
  Status a = Status::Corruption("bad block");
  Status b = a;
  EXPECT_EQ(a.ToString(), b.ToString());
  Status c = std::move(b);
  EXPECT_TRUE(c.IsCorruption());
  EXPECT_EQ("bad block", c.message());
  c = Status::OK();
  EXPECT_TRUE(c.ok());
  EXPECT_TRUE(a.IsCorruption());
}

TEST(StatusTest, WithContextPrefixesErrorsOnly) {
  EXPECT_TRUE(Status::OK().WithContext("000001.sst").ok());
  Status s = Status::Corruption("bad checksum").WithContext("000001.sst");
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ("000001.sst: bad checksum", s.message());
}

}  // namespace cascadedb

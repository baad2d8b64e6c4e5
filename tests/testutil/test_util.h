// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Helpers shared by the tests: Status assertions that print the message,
// a per-test temporary directory, file listings by suffix, and seeded
// random data whose seed is printed and can be set with CASCADEDB_TEST_SEED.
//
// Thread safety: not thread-safe unless a function says otherwise.

#ifndef CASCADEDB_TESTS_TESTUTIL_TEST_UTIL_H_
#define CASCADEDB_TESTS_TESTUTIL_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/status.h"

namespace cascadedb {
namespace test {

// gtest predicate-format helper: succeeds for OK, prints ToString() if not.
::testing::AssertionResult IsOk(const char* expr, const Status& s);

#define ASSERT_OK(expr) ASSERT_PRED_FORMAT1(::cascadedb::test::IsOk, (expr))
#define EXPECT_OK(expr) EXPECT_PRED_FORMAT1(::cascadedb::test::IsOk, (expr))

// A fresh, empty directory for the running test, removed (with its
// contents) on destruction unless CASCADEDB_KEEP_TEST_DIRS is set.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string File(const std::string& name) const;

 private:
  std::string path_;
};

// True if s ends with suffix.
bool EndsWith(const std::string& s, const std::string& suffix);

// Calls done every poll_micros until it returns true or timeout_millis
// have passed; returns its last answer. For tests that wait on background
// work: a timeout long enough for a loaded sanitizer build, so that only
// a real hang fails.
bool WaitUntil(const std::function<bool()>& done, int timeout_millis,
               int poll_micros = 1000);

// The calling thread's name ("cascadedb:low", ...; at most 15
// characters), for Envs that act only on the engine's own threads.
std::string CurrentThreadName();

// The names (not paths) of the entries of dir that end with suffix, sorted;
// none if dir cannot be listed (a missing directory has no files).
std::vector<std::string> FilesWithSuffix(const std::string& dir,
                                         const std::string& suffix);

// The seed for randomized tests: CASCADEDB_TEST_SEED if set, else a value
// from the clock. It is printed so a failure can be replayed.
uint32_t RandomSeed();

// The reverse of the bytewise order, named "test.ReverseComparator": a user
// comparator that is not bytewise, and a name no database made with the
// default comparator has. Thread-safe; lives forever.
const Comparator* ReverseBytewiseComparator();

// A string of len random bytes (or random printable bytes).
std::string RandomBytes(uint32_t* state, size_t len, bool printable = false);

// While alive, the calling thread (and threads it starts) may run on one
// CPU only, the first of its affinity mask; the old mask is restored on
// destruction. ok() is false where affinity cannot be set (not Linux, or
// the call failed): the thread's mask is then unchanged.
class ScopedOneCpu {
 public:
  ScopedOneCpu();
  ~ScopedOneCpu();
  ScopedOneCpu(const ScopedOneCpu&) = delete;
  ScopedOneCpu& operator=(const ScopedOneCpu&) = delete;

  bool ok() const { return ok_; }

 private:
  bool ok_ = false;
  uint64_t old_mask_[16];  // a cpu_set_t (128 bytes)
};

}  // namespace test
}  // namespace cascadedb

#endif  // CASCADEDB_TESTS_TESTUTIL_TEST_UTIL_H_

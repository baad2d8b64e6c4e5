// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "tests/testutil/test_util.h"

#include "cascadedb/env.h"

#include <pthread.h>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace cascadedb {
namespace test {

::testing::AssertionResult IsOk(const char* expr, const Status& s) {
  if (s.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << expr << " returned " << s.ToString();
}

namespace {

std::string SanitizedTestName() {
  const ::testing::TestInfo* info =
      ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info == nullptr ? std::string("notest")
                                     : std::string(info->test_suite_name()) +
                                           "." + info->name();
  for (char& c : name) {
    if (!isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_') {
      c = '_';
    }
  }
  return name;
}

}  // namespace

TempDir::TempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::filesystem::path root = base != nullptr
                                   ? std::filesystem::path(base)
                                   : std::filesystem::temp_directory_path();
  static int counter = 0;
  path_ = (root / ("cascadedb-" + std::to_string(getpid()) + "-" +
                   std::to_string(counter++) + "-" + SanitizedTestName()))
              .string();
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  if (std::getenv("CASCADEDB_KEEP_TEST_DIRS") != nullptr) return;
  std::error_code ec;  // Best effort: a leftover temp dir is harmless.
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::File(const std::string& name) const {
  return path_ + "/" + name;
}

std::string CurrentThreadName() {
  char name[16] = "";
  pthread_getname_np(pthread_self(), name, sizeof(name));
  return name;
}

bool WaitUntil(const std::function<bool()>& done, int timeout_millis,
               int poll_micros) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(timeout_millis);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return done();
    Env::Default()->SleepForMicroseconds(poll_micros);
  }
  return true;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> FilesWithSuffix(const std::string& dir,
                                         const std::string& suffix) {
  std::vector<std::string> children, result;
  Env::Default()->GetChildren(dir, &children).IgnoreError();
  for (const std::string& c : children) {
    if (EndsWith(c, suffix)) result.push_back(c);
  }
  std::sort(result.begin(), result.end());
  return result;
}

uint32_t RandomSeed() {
  uint32_t seed;
  const char* env = std::getenv("CASCADEDB_TEST_SEED");
  if (env != nullptr) {
    seed = static_cast<uint32_t>(std::strtoul(env, nullptr, 10));
  } else {
    seed = static_cast<uint32_t>(
        std::chrono::steady_clock::now().time_since_epoch().count());
  }
  std::fprintf(stderr, "random seed: %u (set CASCADEDB_TEST_SEED to replay)\n",
               seed);
  return seed;
}

std::string RandomBytes(uint32_t* state, size_t len, bool printable) {
  std::string result(len, '\0');
  for (size_t i = 0; i < len; i++) {
    // xorshift32: fast and good enough for test data.
    uint32_t x = *state == 0 ? 0x9E3779B9u : *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    result[i] = printable ? static_cast<char>(' ' + x % 95)
                          : static_cast<char>(x & 0xff);
  }
  return result;
}

const Comparator* ReverseBytewiseComparator() {
  class Reverse : public Comparator {
   public:
    const char* Name() const override { return "test.ReverseComparator"; }
    int Compare(const Slice& a, const Slice& b) const override {
      return b.compare(a);
    }
    void FindShortestSeparator(std::string*, const Slice&) const override {}
    void FindShortSuccessor(std::string*) const override {}
  };
  static const Reverse* reverse = new Reverse;
  return reverse;
}

ScopedOneCpu::ScopedOneCpu() {
#if defined(__linux__)
  static_assert(sizeof(cpu_set_t) <= sizeof(old_mask_), "mask too small");
  cpu_set_t* old_set = reinterpret_cast<cpu_set_t*>(old_mask_);
  if (sched_getaffinity(0, sizeof(cpu_set_t), old_set) != 0) return;
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, old_set)) ++first;
  if (first == CPU_SETSIZE) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ok_ = sched_setaffinity(0, sizeof(one), &one) == 0;
#endif
}

ScopedOneCpu::~ScopedOneCpu() {
#if defined(__linux__)
  if (ok_) {
    sched_setaffinity(0, sizeof(cpu_set_t),
                      reinterpret_cast<cpu_set_t*>(old_mask_));
  }
#endif
}

}  // namespace test
}  // namespace cascadedb

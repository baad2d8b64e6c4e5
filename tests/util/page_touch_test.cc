// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/page_touch.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace cascadedb {
namespace {

constexpr size_t kPages = 256;

// A fresh private anonymous mapping of kPages pages, unmapped at the end.
class Mapping {
 public:
  Mapping() : size_(kPages * PageSize()) {
    void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    base_ = p == MAP_FAILED ? nullptr : static_cast<char*>(p);
  }
  ~Mapping() {
    if (base_ != nullptr) ::munmap(base_, size_);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;

  static size_t PageSize() {
    return static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  }
  char* base() const { return base_; }
  size_t size() const { return size_; }

  // How many of its pages are in memory (mincore).
  size_t ResidentPages() const {
    std::vector<unsigned char> v(size_ / PageSize());
    if (::mincore(base_, size_, v.data()) != 0) return 0;
    size_t n = 0;
    for (unsigned char c : v) n += c & 1;
    return n;
  }

 private:
  const size_t size_;
  char* base_ = nullptr;
};

TEST(PageTouchTest, FaultsEveryPageInAndChangesNoByte) {
  Mapping m;
  ASSERT_NE(nullptr, m.base());
  EXPECT_EQ(0u, m.ResidentPages());  // untouched anonymous memory
  TouchPagesForWrite(m.base(), m.size());
  EXPECT_EQ(kPages, m.ResidentPages());
#ifdef RUSAGE_THREAD
  // Faulted in for writing, not read: writing the pages now faults on none
  // of them (a read fault would have mapped the shared zero page, and each
  // first write would fault again).
  struct rusage before, after;
  ASSERT_EQ(0, ::getrusage(RUSAGE_THREAD, &before));
  for (size_t p = 0; p < kPages; ++p) {
    reinterpret_cast<volatile char*>(m.base())[p * Mapping::PageSize() + 1] = 0;
  }
  ASSERT_EQ(0, ::getrusage(RUSAGE_THREAD, &after));
  EXPECT_LE(after.ru_minflt - before.ru_minflt, static_cast<long>(kPages / 16));
#endif
  for (size_t i = 0; i < m.size(); ++i) {
    ASSERT_EQ(0, m.base()[i]) << "byte " << i;
  }
  // Written memory keeps its bytes, whatever they are.
  for (size_t i = 0; i < m.size(); ++i) {
    m.base()[i] = static_cast<char>(i * 131 + 7);
  }
  TouchPagesForWrite(m.base() + 1, m.size() - 2);
  for (size_t i = 0; i < m.size(); ++i) {
    ASSERT_EQ(static_cast<char>(i * 131 + 7), m.base()[i]) << "byte " << i;
  }
}

TEST(PageTouchTest, ARangeOffAPageBoundaryTouchesEveryPageItSpans) {
  // Two pages' worth starting 100 bytes into a page spans three pages.
  Mapping m;
  ASSERT_NE(nullptr, m.base());
  const size_t page = Mapping::PageSize();
  TouchPagesForWrite(m.base() + page + 100, 2 * page);
  EXPECT_EQ(3u, m.ResidentPages());
  // Nothing: no page.
  Mapping empty;
  ASSERT_NE(nullptr, empty.base());
  TouchPagesForWrite(empty.base() + 100, 0);
  EXPECT_EQ(0u, empty.ResidentPages());
}

TEST(PageTouchTest, AWriterOnTheSamePagesKeepsItsBytes) {
  // A writer stores round numbers into the first byte of every page (the
  // byte the touch rewrites) while this thread touches the same pages,
  // and the touches go on after its last round. Whatever the interleaving,
  // every page must end with the writer's last round.
  Mapping m;
  ASSERT_NE(nullptr, m.base());
  const size_t page = Mapping::PageSize();
  constexpr int kRounds = 2000;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int round = 1; round <= kRounds; ++round) {
      for (size_t p = 0; p < kPages; ++p) {
        __atomic_store_n(reinterpret_cast<unsigned char*>(m.base() + p * page),
                         static_cast<unsigned char>(round), __ATOMIC_RELAXED);
      }
    }
    done.store(true, std::memory_order_release);
  });
  while (!done.load(std::memory_order_acquire)) {
    TouchPagesForWrite(m.base(), m.size());
  }
  writer.join();
  TouchPagesForWrite(m.base(), m.size());
  for (size_t p = 0; p < kPages; ++p) {
    ASSERT_EQ(static_cast<unsigned char>(kRounds),
              static_cast<unsigned char>(m.base()[p * page]))
        << "page " << p;
  }
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/prefault.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace cascadedb {
namespace {

// A private anonymous mapping whose pages start out unmapped.
class FreshPages {
 public:
  explicit FreshPages(size_t pages)
      : page_(static_cast<size_t>(::sysconf(_SC_PAGESIZE))),
        size_(pages * page_) {
    void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    base_ = p == MAP_FAILED ? nullptr : static_cast<char*>(p);
  }
  ~FreshPages() {
    if (base_ != nullptr) ::munmap(base_, size_);
  }
  FreshPages(const FreshPages&) = delete;
  FreshPages& operator=(const FreshPages&) = delete;

  char* base() const { return base_; }
  size_t page() const { return page_; }

  // One bool per page: is it mapped in (mincore)?
  std::vector<bool> Resident() const {
    std::vector<unsigned char> v(size_ / page_);
    std::vector<bool> out(v.size(), false);
    if (::mincore(base_, size_, v.data()) != 0) return out;
    for (size_t i = 0; i < v.size(); i++) out[i] = (v[i] & 1) != 0;
    return out;
  }

 private:
  const size_t page_;
  const size_t size_;
  char* base_ = nullptr;
};

TEST(PrefaultTest, MapsExactlyTheWholePagesInsideTheRange) {
  FreshPages pages(16);
  ASSERT_NE(nullptr, pages.base());
  for (bool r : pages.Resident()) ASSERT_FALSE(r);
  const size_t pg = pages.page();
  // From the middle of page 2 to the middle of page 12: pages 3..11 are
  // whole inside the range, 2 and 12 only partly.
  if (!PrefaultWritable(pages.base() + 2 * pg + 100, 10 * pg)) {
    GTEST_SKIP() << "the kernel has no MADV_POPULATE_WRITE";
  }
  const std::vector<bool> resident = pages.Resident();
  for (size_t i = 0; i < resident.size(); i++) {
    EXPECT_EQ(i >= 3 && i <= 11, resident[i]) << "page " << i;
  }
  // The pages are ordinary zeroed memory.
  EXPECT_EQ(0, pages.base()[5 * pg]);
  pages.base()[5 * pg] = 7;
  EXPECT_EQ(7, pages.base()[5 * pg]);
}

TEST(PrefaultTest, RangesWithoutAWholePageDoNothing) {
  FreshPages pages(4);
  ASSERT_NE(nullptr, pages.base());
  const size_t pg = pages.page();
  EXPECT_FALSE(PrefaultWritable(pages.base(), 0));
  EXPECT_FALSE(PrefaultWritable(pages.base() + 1, pg - 1));
  EXPECT_FALSE(PrefaultWritable(pages.base() + pg / 2, pg));  // straddles
  for (bool r : pages.Resident()) EXPECT_FALSE(r);
}

}  // namespace
}  // namespace cascadedb

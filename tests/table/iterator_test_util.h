// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Test helpers for the table iterators: an Iterator over a sorted vector
// (optionally failing with a given status), and a checker that drives an
// iterator and a sorted model through the same random operations.
//
// Thread safety: not thread-safe.

#ifndef CASCADEDB_TESTS_TABLE_ITERATOR_TEST_UTIL_H_
#define CASCADEDB_TESTS_TABLE_ITERATOR_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cassert>
#include <string>
#include <utility>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"
#include "util/random.h"

namespace cascadedb {
namespace test {

using Entry = std::pair<std::string, std::string>;

// Iterates a vector of entries sorted by comparator. If error is not OK the
// iterator is always invalid and reports it.
class VectorIterator : public Iterator {
 public:
  VectorIterator(const Comparator* comparator, std::vector<Entry> entries,
                 Status error = Status::OK())
      : comparator_(comparator),
        entries_(std::move(entries)),
        error_(std::move(error)),
        pos_(entries_.size()) {}

  bool Valid() const override { return error_.ok() && pos_ < entries_.size(); }
  void SeekToFirst() override { pos_ = 0; }
  void SeekToLast() override {
    pos_ = entries_.empty() ? entries_.size() : entries_.size() - 1;
  }
  void Seek(const Slice& target) override { pos_ = LowerBound(target); }
  void SeekForPrev(const Slice& target) override {
    size_t upper = LowerBound(target);
    if (upper < entries_.size() &&
        comparator_->Compare(entries_[upper].first, target) == 0) {
      pos_ = upper;
    } else {
      pos_ = upper == 0 ? entries_.size() : upper - 1;
    }
  }
  void Next() override {
    assert(Valid());
    ++pos_;
  }
  void Prev() override {
    assert(Valid());
    pos_ = pos_ == 0 ? entries_.size() : pos_ - 1;
  }
  Slice key() const override {
    assert(Valid());
    return entries_[pos_].first;
  }
  Slice value() const override {
    assert(Valid());
    return entries_[pos_].second;
  }
  Status status() const override { return error_; }

 private:
  size_t LowerBound(const Slice& target) const {
    size_t lo = 0, hi = entries_.size();
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (comparator_->Compare(entries_[mid].first, target) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  const Comparator* const comparator_;
  const std::vector<Entry> entries_;
  const Status error_;
  size_t pos_;  // entries_.size() = invalid
};

// A cursor over a sorted model (duplicates allowed) that mirrors Iterator.
class ModelCursor {
 public:
  ModelCursor(const Comparator* comparator, const std::vector<Entry>* model)
      : comparator_(comparator), model_(model), pos_(model->size()) {}

  bool Valid() const { return pos_ < model_->size(); }
  const Entry& entry() const { return (*model_)[pos_]; }
  void SeekToFirst() { pos_ = 0; }
  void SeekToLast() { pos_ = model_->empty() ? 0 : model_->size() - 1; }
  void Seek(const std::string& target) {
    pos_ = 0;
    while (pos_ < model_->size() &&
           comparator_->Compare((*model_)[pos_].first, target) < 0) {
      ++pos_;
    }
  }
  void SeekForPrev(const std::string& target) {
    pos_ = model_->size();
    for (size_t i = 0; i < model_->size(); ++i) {
      if (comparator_->Compare((*model_)[i].first, target) <= 0) pos_ = i;
    }
  }
  void Next() { ++pos_; }
  void Prev() { pos_ = pos_ == 0 ? model_->size() : pos_ - 1; }

 private:
  const Comparator* const comparator_;
  const std::vector<Entry>* const model_;
  size_t pos_;
};

// Runs `steps` random operations (seeks to random targets drawn by
// make_target, Next and Prev in random order) on iter and on the sorted
// model, checking that they agree after each one.
template <typename TargetFn>
void CheckAgainstModel(Iterator* iter, const Comparator* comparator,
                       const std::vector<Entry>& model, Random* rnd, int steps,
                       TargetFn make_target) {
  ModelCursor cursor(comparator, &model);
  for (int step = 0; step < steps; ++step) {
    std::string op;
    const uint32_t choice = rnd->Uniform(10);
    if (!cursor.Valid() || choice < 2) {
      const uint32_t seek = rnd->Uniform(4);
      if (seek == 0) {
        op = "SeekToFirst";
        iter->SeekToFirst();
        cursor.SeekToFirst();
      } else if (seek == 1) {
        op = "SeekToLast";
        iter->SeekToLast();
        cursor.SeekToLast();
      } else {
        std::string target = make_target(rnd);
        op = (seek == 2 ? "Seek(" : "SeekForPrev(") + target + ")";
        if (seek == 2) {
          iter->Seek(target);
          cursor.Seek(target);
        } else {
          iter->SeekForPrev(target);
          cursor.SeekForPrev(target);
        }
      }
    } else if (choice < 6) {
      op = "Next";
      iter->Next();
      cursor.Next();
    } else {
      op = "Prev";
      iter->Prev();
      cursor.Prev();
    }
    ASSERT_TRUE(iter->status().ok()) << iter->status().ToString();
    ASSERT_EQ(cursor.Valid(), iter->Valid()) << "step " << step << " " << op;
    if (cursor.Valid()) {
      ASSERT_EQ(cursor.entry().first, iter->key().ToString())
          << "step " << step << " " << op;
      ASSERT_EQ(cursor.entry().second, iter->value().ToString())
          << "step " << step << " " << op;
    }
  }
}

}  // namespace test
}  // namespace cascadedb

#endif  // CASCADEDB_TESTS_TABLE_ITERATOR_TEST_UTIL_H_

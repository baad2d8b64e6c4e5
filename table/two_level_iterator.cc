// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/two_level_iterator.h"

#include <cassert>
#include <string>

#include "table/iterator_wrapper.h"

namespace cascadedb {

namespace {

class TwoLevelIterator : public Iterator {
 public:
  TwoLevelIterator(Iterator* index_iter, BlockFunction block_function,
                   void* arg, const ReadOptions& options,
                   const std::string& error_context)
      : block_function_(block_function),
        arg_(arg),
        options_(options),
        error_context_(error_context),
        index_iter_(index_iter) {}

  bool Valid() const override { return data_iter_.Valid(); }

  void SeekToFirst() override {
    index_iter_.SeekToFirst();
    InitDataBlock();
    if (data_iter_.iter() != nullptr) data_iter_.SeekToFirst();
    SkipEmptyDataBlocksForward();
  }

  void SeekToLast() override {
    index_iter_.SeekToLast();
    InitDataBlock();
    if (data_iter_.iter() != nullptr) data_iter_.SeekToLast();
    SkipEmptyDataBlocksBackward();
  }

  void Seek(const Slice& target) override {
    index_iter_.Seek(target);
    InitDataBlock();
    if (data_iter_.iter() != nullptr) data_iter_.Seek(target);
    SkipEmptyDataBlocksForward();
  }

  void SeekForPrev(const Slice& target) override {
    // The first block whose separator is >= target holds the last key <=
    // target, unless all its keys are > target, in which case that key is
    // the last of an earlier block (found by skipping backward). Past the
    // last separator, every key is < target.
    index_iter_.Seek(target);
    if (!index_iter_.Valid() && index_iter_.status().ok()) {
      index_iter_.SeekToLast();
    }
    InitDataBlock();
    if (data_iter_.iter() != nullptr) data_iter_.SeekForPrev(target);
    SkipEmptyDataBlocksBackward();
  }

  void Next() override {
    assert(Valid());
    data_iter_.Next();
    SkipEmptyDataBlocksForward();
  }

  void Prev() override {
    assert(Valid());
    data_iter_.Prev();
    SkipEmptyDataBlocksBackward();
  }

  Slice key() const override {
    assert(Valid());
    return data_iter_.key();
  }

  Slice value() const override {
    assert(Valid());
    return data_iter_.value();
  }

  Status status() const override {
    Status s = index_iter_.status();
    if (s.ok() && data_iter_.iter() != nullptr) s = data_iter_.status();
    if (!s.ok() && !error_context_.empty())
      return s.WithContext(error_context_);
    return s;
  }

 private:
  // True if the current block iterator hit an error: the walk must stop
  // there rather than move on to the next block.
  bool DataIterFailed() const {
    return data_iter_.iter() != nullptr && !data_iter_.status().ok();
  }

  void SkipEmptyDataBlocksForward() {
    while (data_iter_.iter() == nullptr || !data_iter_.Valid()) {
      if (DataIterFailed() || !index_iter_.Valid()) {
        if (!DataIterFailed()) SetDataIterator(nullptr);
        return;
      }
      index_iter_.Next();
      InitDataBlock();
      if (data_iter_.iter() != nullptr) data_iter_.SeekToFirst();
    }
  }

  void SkipEmptyDataBlocksBackward() {
    while (data_iter_.iter() == nullptr || !data_iter_.Valid()) {
      if (DataIterFailed() || !index_iter_.Valid()) {
        if (!DataIterFailed()) SetDataIterator(nullptr);
        return;
      }
      index_iter_.Prev();
      InitDataBlock();
      if (data_iter_.iter() != nullptr) data_iter_.SeekToLast();
    }
  }

  void SetDataIterator(Iterator* iter) {
    data_iter_.Set(iter);
    if (iter == nullptr) data_block_handle_.clear();
  }

  // Points data_iter_ at the block named by the current index entry (or at
  // nothing when the index is exhausted), keeping the open block when it is
  // the same one and healthy.
  void InitDataBlock() {
    if (!index_iter_.Valid()) {
      SetDataIterator(nullptr);
      return;
    }
    const Slice handle = index_iter_.value();
    if (data_iter_.iter() != nullptr && handle == Slice(data_block_handle_) &&
        data_iter_.status().ok()) {
      return;
    }
    Iterator* iter = (*block_function_)(arg_, options_, handle);
    assert(iter != nullptr);
    data_block_handle_.assign(handle.data(), handle.size());
    SetDataIterator(iter);
  }

  const BlockFunction block_function_;
  void* const arg_;
  const ReadOptions options_;
  const std::string error_context_;
  IteratorWrapper index_iter_;
  IteratorWrapper data_iter_;  // may be null (no current block)
  // The index value data_iter_ was opened from, to reuse it on a re-seek.
  std::string data_block_handle_;
};

}  // namespace

Iterator* NewTwoLevelIterator(Iterator* index_iter,
                              BlockFunction block_function, void* arg,
                              const ReadOptions& options,
                              const std::string& error_context) {
  return new TwoLevelIterator(index_iter, block_function, arg, options,
                              error_context);
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/table_builder.h"

#include <algorithm>
#include <cassert>
#include <string>

#include "cascadedb/filter_policy.h"
#include "table/filter_block.h"
#include "table/table_key_format.h"

namespace cascadedb {

namespace {

// Index blocks use a restart point at every entry: they are searched far
// more often than they are stored, and their keys share little.
constexpr int kIndexBlockRestartInterval = 1;

// Meta blocks (filter, properties, metaindex) are small or incompressible.
constexpr CompressionType kMetaBlockCompression = kNoCompression;

// With a compression queue, data blocks waiting for their compression
// beyond this many are compressed by the builder itself: time for helpers
// to take them, without holding much memory (64 KiB of 4 KiB blocks).
constexpr size_t kMaxPendingBlocks = 16;

}  // namespace

TableBuilder::TableBuilder(const TableOptions& options, WritableFile* file)
    : options_(options),
      file_(file),
      data_block_(std::max(1, options.block_restart_interval)),
      index_block_(kIndexBlockRestartInterval),
      queue_(options.compression != kNoCompression ? options.compression_queue
                                                   : nullptr) {
  assert(options_.comparator != nullptr);
  if (options_.block_restart_interval < 1) {
    status_ = Status::InvalidArgument(
        "table block_restart_interval=" +
        std::to_string(options_.block_restart_interval) + " must be >= 1");
  } else if (!CompressionTypeSupported(options_.compression)) {
    status_ = Status::InvalidArgument(
        "table compression=" +
        std::to_string(static_cast<int>(options_.compression)) +
        " is not a supported compression type");
  }
  if (options_.filter_policy != nullptr) {
    filter_block_ =
        std::make_unique<FilterBlockBuilder>(options_.filter_policy);
  }
  if (status_.ok() && options_.preallocation_size > 0) {
    // Only a layout hint: a filesystem without fallocate still works, and
    // a real lack of space shows up as an Append error.
    file_->Allocate(0, options_.preallocation_size).IgnoreError();
  }
  properties_.compression_name = CompressionTypeName(options_.compression);
  properties_.comparator_name = options_.comparator->Name();
  if (options_.filter_policy != nullptr) {
    properties_.filter_policy_name = options_.filter_policy->Name();
  }
  properties_.creation_time = options_.creation_time;
}

TableBuilder::~TableBuilder() {
  assert(closed_);  // Forgetting Finish()/Abandon() leaves a partial table.
  // The queue must not hold a block of a builder that is gone.
  CancelPendingBlocks();
}

void TableBuilder::Add(const Slice& key, const Slice& value,
                       bool value_compressed) {
  assert(!closed_);
  if (!status_.ok()) return;
  if (properties_.num_entries > 0 &&
      options_.comparator->Compare(key, LastKey()) <= 0) {
    // A table with unordered keys would be silently unreadable; one
    // comparison per entry is cheap insurance.
    status_ = Status::InvalidArgument("table keys added out of order (entry " +
                                      std::to_string(properties_.num_entries) +
                                      " is not after the last)");
    return;
  }

  if (pending_index_entry_) {
    // The separator only has to be >= every key of the written block and
    // < key, so the comparator may shorten it.
    assert(data_block_.empty());
    options_.comparator->FindShortestSeparator(&last_key_, key);
    AddIndexEntry();
  }

  CountEntry(key, value);

  // The data block keeps the last key (for prefix sharing); last_key_ only
  // takes it when the block is flushed, so a key is copied once per entry.
  data_block_.Add(key, value);
  if (value_compressed) data_block_compressed_bytes_ += value.size();
  if (data_block_.CurrentSizeEstimate() >= options_.block_size) {
    FlushDataBlock();
  }
}

void TableBuilder::CountEntry(const Slice& key, const Slice& value) {
  const TableKeyFormat* format = options_.key_format;
  if (filter_block_ != nullptr) {
    filter_block_->AddKey(format != nullptr ? format->UserKey(key) : key);
  }
  const uint64_t seq = format != nullptr ? format->Sequence(key) : 0;
  if (properties_.num_entries == 0) {
    properties_.smallest_seqno = seq;
    properties_.largest_seqno = seq;
  } else {
    properties_.smallest_seqno = std::min(properties_.smallest_seqno, seq);
    properties_.largest_seqno = std::max(properties_.largest_seqno, seq);
  }
  if (format != nullptr && format->IsDeletion(key)) {
    ++properties_.num_deletions;
  }
  ++properties_.num_entries;
  properties_.raw_key_size += key.size();
  properties_.raw_value_size += value.size();
}

void TableBuilder::AddStoredBlock(const Slice& stored, Iterator* entries) {
  assert(!closed_);
  if (!status_.ok()) return;
  entries->SeekToFirst();
  if (!entries->Valid()) {
    status_ = entries->status().ok()
                  ? Status::InvalidArgument("table: stored block is empty")
                  : entries->status();
    return;
  }
  if (properties_.num_entries > 0 &&
      options_.comparator->Compare(entries->key(), LastKey()) <= 0) {
    status_ = Status::InvalidArgument(
        "table keys added out of order (stored block at entry " +
        std::to_string(properties_.num_entries) + " is not after the last)");
    return;
  }
  FlushDataBlock();
  if (!status_.ok()) return;
  if (pending_index_entry_) {
    options_.comparator->FindShortestSeparator(&last_key_, entries->key());
    AddIndexEntry();
  }
  for (; entries->Valid(); entries->Next()) {
    CountEntry(entries->key(), entries->value());
    const Slice key = entries->key();  // valid until the iterator moves on
    last_key_.assign(key.data(), key.size());
  }
  if (!entries->status().ok()) {
    status_ = entries->status();
    return;
  }
  if (!pending_blocks_.empty()) {
    // Behind the blocks still on their way: written in turn.
    std::unique_ptr<PendingBlock> block = NewPendingBlock();
    block->job.raw.clear();
    block->job.stored.assign(stored.data(), stored.size());
    block->job.state.store(BlockJob::State::kDone, std::memory_order_relaxed);
    pending_stored_bytes_ += stored.size();
    pending_blocks_.push_back(std::move(block));
    pending_index_entry_ = true;
    WritePendingBlocks(/*all=*/false);
    return;
  }
  status_ = file_->Append(stored);
  if (!status_.ok()) return;
  pending_handle_.set_offset(offset_);
  pending_handle_.set_size(stored.size() - kBlockTrailerSize);
  offset_ += stored.size();
  DataBlockWritten();
}

void TableBuilder::AddIndexEntry() {
  assert(pending_index_entry_);
  if (!pending_blocks_.empty()) {
    // The block is the newest pending one: indexed when written.
    PendingBlock* block = pending_blocks_.back().get();
    block->index_key = last_key_;
    block->index_key_set = true;
    pending_index_entry_ = false;
    return;
  }
  std::string handle_encoding;
  pending_handle_.EncodeTo(&handle_encoding);
  index_block_.Add(last_key_, handle_encoding);
  pending_index_entry_ = false;
}

void TableBuilder::FlushDataBlock() {
  if (!status_.ok() || data_block_.empty()) return;
  assert(!pending_index_entry_);
  const Slice last = data_block_.last_key();
  last_key_.assign(last.data(), last.size());
  // Compressing a block again whose values are at least half compressed
  // already costs a codec pass and could not save 12.5%.
  const CompressionType type =
      2 * data_block_compressed_bytes_ >= data_block_.CurrentSizeEstimate()
          ? kNoCompression
          : options_.compression;
  data_block_compressed_bytes_ = 0;
  if (type == kNoCompression && !pending_blocks_.empty()) {
    // Behind the blocks still on their way: done here, written in turn.
    std::unique_ptr<PendingBlock> block = NewPendingBlock();
    block->job.type = kNoCompression;
    data_block_.FinishInto(&block->job.raw);
    CompressionQueue::Compress(&block->job);
    pending_raw_bytes_ += block->job.raw.size();
    block->job.state.store(BlockJob::State::kDone, std::memory_order_relaxed);
    pending_blocks_.push_back(std::move(block));
    pending_index_entry_ = true;
    WritePendingBlocks(/*all=*/false);
    return;
  }
  if (type != kNoCompression && queue_ != nullptr &&
      queue_->helpers_expected()) {
    std::unique_ptr<PendingBlock> block = NewPendingBlock();
    block->job.type = options_.compression;
    block->job.level = options_.compression_level;
    data_block_.FinishInto(&block->job.raw);
    pending_raw_bytes_ += block->job.raw.size();
    queue_->Submit(&block->job);
    pending_blocks_.push_back(std::move(block));
    pending_index_entry_ = true;
    WritePendingBlocks(/*all=*/false);
    return;
  }
  // Nobody to help: the blocks still queued go first, then this one is
  // compressed and written at once.
  if (!pending_blocks_.empty()) WritePendingBlocks(/*all=*/true);
  if (!status_.ok()) return;
  WriteBlock(data_block_.Finish(), type, &pending_handle_);
  data_block_.Reset();
  if (!status_.ok()) return;
  DataBlockWritten();
}

std::unique_ptr<TableBuilder::PendingBlock> TableBuilder::NewPendingBlock() {
  if (spare_blocks_.empty()) return std::make_unique<PendingBlock>();
  std::unique_ptr<PendingBlock> block = std::move(spare_blocks_.back());
  spare_blocks_.pop_back();
  block->index_key_set = false;
  return block;
}

void TableBuilder::WritePendingBlocks(bool all) {
  while (status_.ok() && !pending_blocks_.empty()) {
    PendingBlock* oldest = pending_blocks_.front().get();
    if (!oldest->job.done()) {
      if (!all && pending_blocks_.size() <= kMaxPendingBlocks) return;
      // Rather than wait for a helper busy with the oldest, compress a
      // later block nobody has taken; the oldest only once none is left.
      BlockJob* job = &oldest->job;
      for (const auto& block : pending_blocks_) {
        if (block->job.state.load(std::memory_order_relaxed) ==
            BlockJob::State::kQueued) {
          job = &block->job;
          break;
        }
      }
      queue_->Complete(job);
      continue;
    }
    WritePendingBlock(oldest);
    spare_blocks_.push_back(std::move(pending_blocks_.front()));
    pending_blocks_.pop_front();
  }
}

void TableBuilder::WritePendingBlock(PendingBlock* block) {
  const std::string& stored = block->job.stored;
  status_ = file_->Append(stored);
  if (!status_.ok()) return;
  if (block->job.raw.empty()) {
    pending_stored_bytes_ -= stored.size();  // a stored block, added whole
  } else {
    pending_raw_bytes_ -= block->job.raw.size();
    written_raw_bytes_ += block->job.raw.size();
    written_stored_bytes_ += stored.size();
    written_ratio_q16_ = (written_stored_bytes_ << 16) / written_raw_bytes_;
  }
  pending_handle_.set_offset(offset_);
  pending_handle_.set_size(stored.size() - kBlockTrailerSize);
  offset_ += stored.size();
  properties_.data_size += stored.size();
  ++properties_.num_data_blocks;
  if (block->index_key_set) {
    std::string handle_encoding;
    pending_handle_.EncodeTo(&handle_encoding);
    index_block_.Add(block->index_key, handle_encoding);
  }
  // Else it is the newest block: AddIndexEntry indexes it at pending_handle_.
}

void TableBuilder::CancelPendingBlocks() {
  for (const auto& block : pending_blocks_) queue_->Cancel(&block->job);
  pending_blocks_.clear();
  pending_raw_bytes_ = 0;
  pending_stored_bytes_ = 0;
}

void TableBuilder::DataBlockWritten() {
  pending_index_entry_ = true;
  properties_.data_size += pending_handle_.size() + kBlockTrailerSize;
  ++properties_.num_data_blocks;
}

void TableBuilder::WriteBlock(const Slice& raw, CompressionType type,
                              BlockHandle* handle) {
  CompressionType type_used;
  status_ = cascadedb::WriteBlock(file_, &offset_, raw, type,
                                  options_.compression_level,
                                  &compressed_scratch_, handle, &type_used);
}

Status TableBuilder::Finish() {
  assert(!closed_);
  FlushDataBlock();
  if (queue_ != nullptr) WritePendingBlocks(/*all=*/true);
  closed_ = true;
  if (!status_.ok()) {
    CancelPendingBlocks();
    return status_;
  }

  BlockHandle filter_handle;  // unset when there is no filter
  if (filter_block_ != nullptr) {
    WriteBlock(filter_block_->Finish(), kMetaBlockCompression, &filter_handle);
    if (!status_.ok()) return status_;
    properties_.filter_size = filter_handle.size() + kBlockTrailerSize;
  }

  if (pending_index_entry_) {
    // The last block's separator only has to be >= its keys.
    options_.comparator->FindShortSuccessor(&last_key_);
    AddIndexEntry();
  }
  BlockHandle index_handle;
  WriteBlock(index_block_.Finish(), options_.compression, &index_handle);
  if (!status_.ok()) return status_;
  properties_.index_size = index_handle.size() + kBlockTrailerSize;

  WriteMetaBlocksAndFooter(filter_handle, index_handle);
  return status_;
}

void TableBuilder::WriteMetaBlocksAndFooter(const BlockHandle& filter_handle,
                                            const BlockHandle& index_handle) {
  std::string properties_block;
  EncodeTableProperties(properties_, &properties_block);
  BlockHandle properties_handle;
  WriteBlock(properties_block, kMetaBlockCompression, &properties_handle);
  if (!status_.ok()) return;

  // Metaindex keys are sorted bytewise: "cascadedb.properties" sorts before
  // "filter.<name>".
  BlockBuilder metaindex(1);
  std::string handle_encoding;
  properties_handle.EncodeTo(&handle_encoding);
  metaindex.Add(kPropertiesBlockName, handle_encoding);
  if (filter_block_ != nullptr) {
    handle_encoding.clear();
    filter_handle.EncodeTo(&handle_encoding);
    metaindex.Add(
        std::string(kFilterBlockPrefix) + options_.filter_policy->Name(),
        handle_encoding);
  }
  BlockHandle metaindex_handle;
  WriteBlock(metaindex.Finish(), kMetaBlockCompression, &metaindex_handle);
  if (!status_.ok()) return;

  Footer footer;
  footer.set_metaindex_handle(metaindex_handle);
  footer.set_index_handle(index_handle);
  std::string footer_encoding;
  footer.EncodeTo(&footer_encoding);
  status_ = file_->Append(footer_encoding);
  if (status_.ok()) offset_ += footer_encoding.size();
}

void TableBuilder::Abandon() {
  assert(!closed_);
  closed_ = true;
  CancelPendingBlocks();
}

}  // namespace cascadedb

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

}  // namespace

TableBuilder::TableBuilder(const TableOptions& options, WritableFile* file)
    : options_(options),
      file_(file),
      data_block_(std::max(1, options.block_restart_interval)),
      index_block_(kIndexBlockRestartInterval) {
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
}

void TableBuilder::Add(const Slice& key, const Slice& value) {
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
  status_ = file_->Append(stored);
  if (!status_.ok()) return;
  pending_handle_.set_offset(offset_);
  pending_handle_.set_size(stored.size() - kBlockTrailerSize);
  offset_ += stored.size();
  DataBlockWritten();
}

void TableBuilder::AddIndexEntry() {
  assert(pending_index_entry_);
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
  WriteBlock(data_block_.Finish(), options_.compression, &pending_handle_);
  data_block_.Reset();
  if (!status_.ok()) return;
  DataBlockWritten();
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
  closed_ = true;
  if (!status_.ok()) return status_;

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
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// TableOptions: the table layer's view of the options, filled in by the db
// layer (from Options) or by tests. Shared by TableBuilder and Table; both
// copy it, but its pointers are borrowed.
//
// Thread safety: thread-compatible (a plain struct).

#ifndef CASCADEDB_TABLE_TABLE_OPTIONS_H_
#define CASCADEDB_TABLE_TABLE_OPTIONS_H_

#include <cstddef>
#include <cstdint>

#include "cascadedb/comparator.h"
#include "cascadedb/options.h"
#include "util/compression.h"

namespace cascadedb {

class BlockAdmission;
class Cache;
class CompressionQueue;
class FilterPolicy;
class Statistics;
class TableKeyFormat;

struct TableOptions {
  // The order of the keys stored in the table (the db layer passes its
  // internal-key comparator). Borrowed: must outlive builders and tables.
  // A table must be read with the comparator it was written with.
  const Comparator* comparator = BytewiseComparator();

  // How to read a stored key's user key, sequence number and deletion flag;
  // nullptr = plain user keys, sequence 0, no deletions. Borrowed.
  const TableKeyFormat* key_format = nullptr;

  // True if comparator orders keys by their user keys (key_format), compared
  // bytewise, first: then a table searches its index block by 8-byte key
  // heads (Block::BuildSearchHeads) rather than key by key. The db layer
  // sets it when the user comparator is BytewiseComparator(). Default:
  // false.
  bool user_keys_bytewise = false;

  // Builds (writer) and checks (reader) the table's filter over user keys;
  // nullptr = no filter. A reader only uses a filter written by a policy of
  // the same Name(). Borrowed.
  const FilterPolicy* filter_policy = nullptr;

  // Target uncompressed size of a data block, in bytes. Default 4 KiB.
  size_t block_size = 4096;

  // Keys between restart points in a data block. Default 16. Range: >= 1.
  int block_restart_interval = 16;

  // Compression of data and index blocks (a block stays uncompressed unless
  // compressing saves >= 12.5%). Default: snappy.
  CompressionType compression = kSnappyCompression;

  // Codec level (see util/compression.h). Default: the codec's default.
  int compression_level = kDefaultCompressionLevel;

  // The db layer's TableFileWriter compresses values of at least this many
  // bytes on their own, with compression (db/value_compression.h); 0 = no
  // value is. The table layer itself only sees the result: entries added
  // as holding a compressed value (TableBuilder::Add). Default: 0.
  size_t value_compression_min_size = 0;

  // Cache for uncompressed blocks, keyed by (per-table id, block offset);
  // nullptr = no caching (every read goes to the file). Borrowed: must
  // outlive every Table opened with it.
  Cache* block_cache = nullptr;

  // Keep the index and filter blocks in block_cache (charged to its
  // capacity, evictable, re-read on a miss) instead of holding them in the
  // Table for its lifetime. Ignored when block_cache is nullptr.
  // Default: false.
  bool cache_index_and_filter_blocks = false;

  // Decides which data blocks read on a cache miss go into block_cache
  // (table/block_admission.h); nullptr = all of them. Borrowed.
  BlockAdmission* block_admission = nullptr;

  // After this many data blocks read in file order (forward or backward) by
  // one table iterator, the iterator's further blocks are not added to
  // block_cache (Options::long_scan_blocks). 0 = always fill. Default: 16.
  size_t long_scan_blocks = 16;

  // Readahead, in bytes, of iterators created for compaction
  // (Table::NewIterator(options, /*for_compaction=*/true)) and of
  // BlockWalker: they read the file through a readahead view
  // (table/readahead_file.h), which hints each window of this size to the
  // OS and copies the file in pieces of up to 64 KiB, through the file's
  // copying reader when it is mapped. 0 = off: block by block, in place.
  // The db layer uses 2 MiB.
  size_t readahead_size = 0;

  // TableBuilder asks the file to reserve this many bytes up front
  // (WritableFile::Allocate), e.g. the expected file size, so the filesystem
  // can lay it out contiguously. 0 = no preallocation. A hint: failures are
  // ignored.
  uint64_t preallocation_size = 0;

  // TableBuilder puts its compressed data blocks here to be compressed by
  // whichever thread gets to them first (table/compression_queue.h), and
  // writes each a few blocks later; nullptr (or no compression) = each
  // block compressed and written at once. The table's bytes are the same
  // either way. Borrowed: must outlive every builder given it.
  CompressionQueue* compression_queue = nullptr;

  // Receives block cache, bloom filter and SST read tickers
  // (include/cascadedb/statistics.h); nullptr = none. Borrowed.
  Statistics* statistics = nullptr;

  // Stored in the properties block as creation_time (seconds since the
  // epoch); the db layer sets it from Env::NowWallSeconds(). Default 0.
  uint64_t creation_time = 0;
};

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_TABLE_OPTIONS_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Table: the reader of one SST written by TableBuilder. Open() reads and
// checks the footer, metaindex, properties, index and filter blocks; after
// that, point lookups (InternalGet) consult the filter (over user keys)
// before touching a data block, and iterators walk index -> data blocks
// with a two-level iterator. Data blocks are read through the block cache
// when one is configured, keyed by a per-table id from Cache::NewId() and
// the block offset. The index and filter blocks are either held by the Table
// or, with TableOptions::cache_index_and_filter_blocks, kept in the block
// cache like data blocks.
//
// Every error names the file: "000123.sst: block checksum mismatch at
// offset 4096". Corrupt bytes yield Corruption (with
// ReadOptions::verify_checksums, every block is checked), never a crash.
//
// Thread safety: thread-safe. After Open, any number of threads may read
// concurrently; each iterator is used by one thread at a time.

#ifndef CASCADEDB_TABLE_TABLE_H_
#define CASCADEDB_TABLE_TABLE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "cascadedb/cache.h"
#include "cascadedb/env.h"
#include "cascadedb/iterator.h"
#include "cascadedb/options.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "table/format.h"
#include "table/properties.h"
#include "table/table_options.h"

namespace cascadedb {

class Block;
class FilterBlockReader;

class Table {
 public:
  // Opens the table stored in file (taking ownership), which holds
  // file_size bytes; file_name is only used in messages. options is copied;
  // its pointers must outlive the table. Reads and checks the footer, the
  // metaindex, properties, index and filter blocks (always checksummed,
  // whatever ReadOptions say later). On success stores the table in *table.
  // Errors, each prefixed with file_name:
  //   Corruption: "file is too short to be a table", "bad table magic
  //     number", "block checksum mismatch at offset N", "block handle out
  //     of range ...", "missing properties block", "index block handle ...
  //     does not match the properties block", "bad index block ...";
  //   NotSupported: an unknown format version or compression type;
  //   IOError: from the file.
  static Status Open(const TableOptions& options,
                     std::unique_ptr<RandomAccessFile> file, uint64_t file_size,
                     const std::string& file_name,
                     std::unique_ptr<Table>* table);

  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;
  ~Table();

  // Returns a new iterator over the table's entries (owned by the caller;
  // it must not outlive the table). With for_compaction and a non-zero
  // TableOptions::readahead_size the iterator reads the file through its
  // own readahead view, which copies a mapped file rather than touching
  // each page through the mapping (a compaction's one pass over the
  // table; table/readahead_file.h). Errors are reported
  // by the iterator's status(), prefixed with the file name.
  Iterator* NewIterator(const ReadOptions& options,
                        bool for_compaction = false) const;

  // Point lookup. If the table has a filter and it rules out the user key of
  // key, returns OK without reading a data block. Otherwise seeks key in the
  // data block the index selects and, if an entry >= key is there, calls
  // handle_result(arg, found_key, found_value) once for the first one (the
  // slices are valid only during the call). When key falls after the last
  // entry of that block, no entry equal to key exists and nothing is
  // called. Returns OK, or the read error prefixed with the file name.
  Status InternalGet(const ReadOptions& options, const Slice& key, void* arg,
                     void (*handle_result)(void* arg, const Slice& k,
                                           const Slice& v)) const;

  // False only if the table's filter rules out user_key, without reading a
  // data block. True when the table has no filter or its filter cannot be
  // read: the positioning that follows then reads the table and reports
  // the error. Used by deferred seeks (MergingIteratorOptions).
  bool KeyMayMatch(const ReadOptions& options, const Slice& user_key) const;
  // Starts loading into the CPU caches what KeyMayMatch(user_key) will read
  // of the filter, if the table holds it (not with
  // cache_index_and_filter_blocks, whose filter is found by a lookup).
  void PrefetchFilter(const Slice& user_key) const;

  // The approximate file offset where key's data is or would be: the offset
  // of the data block that would hold it, or the end of the data blocks for
  // a key past the last one. Monotonic in key. 0 on a read error.
  uint64_t ApproximateOffsetOf(const Slice& key) const;

  // Walks the table's data blocks in file order, each as its bytes as
  // stored (payload and trailer, the checksum always checked) and as
  // entries, for a compaction that copies blocks whole
  // (TableBuilder::AddStoredBlock). Reads through the same readahead as a
  // compaction's iterator and bypasses the block cache. Must not outlive
  // the table. Errors (status()) are prefixed with the file name.
  // Thread safety: one thread at a time.
  class BlockWalker {
   public:
    explicit BlockWalker(const Table* table);
    ~BlockWalker();
    BlockWalker(const BlockWalker&) = delete;
    BlockWalker& operator=(const BlockWalker&) = delete;

    void SeekToFirst();
    // False past the last block or after an error.
    bool Valid() const { return entries_ != nullptr; }
    void Next();
    Status status() const { return status_; }

    // The current block (all valid until Next): its bytes as stored, its
    // index key (>= each of its keys, < each key of the next block), and
    // an iterator over its entries, owned by the walker.
    // REQUIRES: Valid().
    Slice stored() const { return stored_; }
    Slice index_key() const { return index_->key(); }
    Iterator* entries() const { return entries_.get(); }

   private:
    // Reads the block the index is at, or ends the walk.
    void Load();

    const Table* const table_;
    std::unique_ptr<RandomAccessFile> readahead_;  // null: table's file
    RandomAccessFile* file_;
    std::unique_ptr<Iterator> index_;
    std::unique_ptr<char[]> buf_;  // the stored bytes, unless mapped
    Slice stored_;
    std::unique_ptr<Block> block_;
    std::unique_ptr<Iterator> entries_;  // over block_; null when !Valid()
    Status status_;
  };

  const TableProperties& properties() const { return properties_; }
  const std::string& file_name() const { return file_name_; }
  uint64_t file_size() const { return file_size_; }

  // True if the table has a filter readable with options.filter_policy.
  bool has_filter() const { return has_filter_; }

  // Counters since Open (relaxed atomics: exact once readers have stopped,
  // approximate while they run). A Statistics object replaces them later.
  // Filter probes by InternalGet that ruled the key out.
  uint64_t filter_useful() const { return Load(filter_useful_); }
  // Filter probes by InternalGet that said "may match".
  uint64_t filter_positive() const { return Load(filter_positive_); }
  // Block cache lookups (data, index and filter blocks) that hit / missed.
  uint64_t block_cache_hits() const { return Load(block_cache_hits_); }
  uint64_t block_cache_misses() const { return Load(block_cache_misses_); }

 private:
  struct FilterHolder;
  struct IteratorState;

  Table(const TableOptions& options, std::unique_ptr<RandomAccessFile> file,
        uint64_t file_size, const std::string& file_name);

  static uint64_t Load(const std::atomic<uint64_t>& counter) {
    return counter.load(std::memory_order_relaxed);
  }
  static void Bump(std::atomic<uint64_t>* counter) {
    counter->fetch_add(1, std::memory_order_relaxed);
  }

  Status ReadMetaBlocks(const Footer& footer);
  // Checks the block handles against the properties, then reads the index
  // and filter.
  Status CheckLayout();
  Status ReadIndexAndFilter();

  // Reads the block at handle through the block cache. On success *block is
  // the block and *cache_handle pins it, or is null when the caller owns
  // *block (no cache, fill_cache off, or memory the cache cannot keep).
  // is_index selects the tickers (index or data block). lookup false reads
  // the file without looking in the cache (a long scan that keeps missing).
  // prefetch_on_miss: the block's mapped bytes (MappedBlockBytes), loaded
  // whole before a miss reads them; empty for none (an unmapped file, or a
  // block prefetched already).
  Status ReadBlockCached(RandomAccessFile* file, const ReadOptions& options,
                         const BlockHandle& handle, bool is_index, bool lookup,
                         const Slice& prefetch_on_miss, Block** block,
                         Cache::Handle** cache_handle) const;
  // Records ticker in options_.statistics, if any.
  void Tick(uint32_t ticker, uint64_t count = 1) const;
  // Checks handle, then reads the block at handle (no cache). On success
  // the caller owns *contents' memory when contents->heap_allocated.
  Status ReadContents(RandomAccessFile* file, bool verify_checksums,
                      const BlockHandle& handle, BlockContents* contents) const;
  // Corruption unless handle lies within the blocks area of the file.
  Status CheckHandle(const BlockHandle& handle) const;
  std::string CacheKey(const BlockHandle& handle, bool filter) const;

  // An iterator over a block that releases (or deletes) it when destroyed.
  Iterator* NewBlockIterator(Block* block, Cache::Handle* cache_handle) const;
  // Opens the data block named by an index entry's value (never null).
  // scan is the table iterator's state when a scan opens the block (null
  // for a point lookup): a block adjacent to the one it opened before
  // continues a sequential run; going forward the next block's bytes are
  // prefetched, and a run longer than long_scan_blocks stops filling the
  // block cache and, on a mapped file where the cache keeps missing, mostly
  // stops looking in it (see LookUpInLongScan).
  Iterator* NewDataBlockIterator(RandomAccessFile* file,
                                 const ReadOptions& options,
                                 const Slice& index_value,
                                 IteratorState* scan = nullptr) const;
  // Whether a long scan's next block read should look in the block cache:
  // after kLongScanMissesBeforeSkipping misses in a row, only every
  // kLongScanProbeEvery-th read does, until one hits.
  bool LookUpInLongScan(IteratorState* scan) const;
  static constexpr uint32_t kLongScanMissesBeforeSkipping = 32;
  static constexpr uint32_t kLongScanProbeEvery = 16;
  // Up to n bytes of the blocks area from offset on, in place, if the file
  // is mapped; empty otherwise (or past the blocks, or on a read error).
  Slice MappedBlockBytes(uint64_t offset, uint64_t n) const;
  // Starts loading into the CPU caches every line of bytes, or its first
  // and last line only (a block's payload and trailer).
  static void PrefetchLines(const Slice& bytes);
  static void PrefetchEnds(const Slice& bytes);
  // PrefetchLines of up to n bytes of the blocks area from offset on, if
  // the file is mapped.
  void PrefetchBlocks(uint64_t offset, uint64_t n) const;
  static Iterator* DataBlockFunction(void* arg, const ReadOptions& options,
                                     const Slice& index_value);
  Iterator* NewIndexIterator(const ReadOptions& options) const;
  // Asks the filter about user_key; *may_match is true if there is no
  // filter.
  Status FilterMayMatch(const ReadOptions& options, const Slice& user_key,
                        bool* may_match) const;

  const TableOptions options_;
  const std::unique_ptr<RandomAccessFile> file_;
  const uint64_t file_size_;
  const std::string file_name_;

  // Set by Open, then immutable.
  uint64_t cache_id_ = 0;    // prefix of this table's block cache keys
  bool cache_meta_ = false;  // index and filter live in the block cache
  BlockHandle index_handle_;
  BlockHandle filter_handle_;  // valid only if has_filter_
  bool has_filter_ = false;
  uint64_t data_end_ = 0;  // end offset of the data blocks
  TableProperties properties_;
  std::unique_ptr<Block> index_block_;    // null if cache_meta_
  std::unique_ptr<FilterHolder> filter_;  // null if cache_meta_

  // Counters; relaxed atomics, since they order nothing.
  mutable std::atomic<uint64_t> filter_useful_{0};
  mutable std::atomic<uint64_t> filter_positive_{0};
  mutable std::atomic<uint64_t> block_cache_hits_{0};
  mutable std::atomic<uint64_t> block_cache_misses_{0};
};

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_TABLE_H_

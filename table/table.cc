// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/table.h"

#include <algorithm>
#include <cassert>
#include <memory>
#include <string>
#include <utility>

#include "cascadedb/comparator.h"
#include "cascadedb/filter_policy.h"
#include "cascadedb/statistics.h"
#include "table/block.h"
#include "table/block_admission.h"
#include "table/filter_block.h"
#include "table/readahead_file.h"
#include "table/table_key_format.h"
#include "table/two_level_iterator.h"
#include "util/coding.h"

namespace cascadedb {

namespace {

void DeleteCachedBlock(const Slice& /*key*/, void* value) {
  delete static_cast<Block*>(value);
}

void DeleteBlock(void* block, void* /*unused*/) {
  delete static_cast<Block*>(block);
}

void ReleaseCacheHandle(void* cache, void* handle) {
  static_cast<Cache*>(cache)->Release(static_cast<Cache::Handle*>(handle));
}

// Frees the heap memory of contents, if it owns any.
void FreeContents(const BlockContents& contents) {
  if (contents.heap_allocated) delete[] contents.data.data();
}

std::string AtOffset(uint64_t offset) {
  return " at offset " + std::to_string(offset);
}

}  // namespace

// A filter block's bytes and the reader over them, held by the Table or by
// the block cache.
struct Table::FilterHolder {
  FilterHolder(const FilterPolicy* policy, const BlockContents& block)
      : contents(block), reader(policy, block.data) {}
  FilterHolder(const FilterHolder&) = delete;
  FilterHolder& operator=(const FilterHolder&) = delete;
  ~FilterHolder() { FreeContents(contents); }

  static void CacheDeleter(const Slice& /*key*/, void* value) {
    delete static_cast<FilterHolder*>(value);
  }

  const BlockContents contents;
  const FilterBlockReader reader;
};

// What a table iterator's block function needs; owned by the iterator.
struct Table::IteratorState {
  const Table* table;
  RandomAccessFile* file;  // file_ or readahead
  std::unique_ptr<RandomAccessFile> readahead;
  // The file range [start, end) of the data block this iterator opened
  // last, trailer included, and how many blocks in a row, ending with it,
  // were adjacent in the file: a sequential run in either direction.
  uint64_t last_block_start = UINT64_MAX;
  uint64_t last_block_end = UINT64_MAX;
  uint64_t run_blocks = 0;
  // Within a long run: cache lookups that missed in a row, and reads that
  // did not look (LookUpInLongScan).
  uint32_t lookups_missed = 0;
  uint32_t lookups_skipped = 0;

  static void Delete(void* state, void* /*unused*/) {
    delete static_cast<IteratorState*>(state);
  }
};

Table::Table(const TableOptions& options,
             std::unique_ptr<RandomAccessFile> file, uint64_t file_size,
             const std::string& file_name)
    : options_(options),
      file_(std::move(file)),
      file_size_(file_size),
      file_name_(file_name) {}

Table::~Table() {
  if (cache_meta_) {
    // The index and filter are useless once the table is closed; free
    // their cache space now instead of waiting for LRU eviction.
    options_.block_cache->Erase(CacheKey(index_handle_, /*filter=*/false));
    if (has_filter_) {
      options_.block_cache->Erase(CacheKey(filter_handle_, /*filter=*/true));
    }
  }
}

Status Table::Open(const TableOptions& options,
                   std::unique_ptr<RandomAccessFile> file, uint64_t file_size,
                   const std::string& file_name,
                   std::unique_ptr<Table>* table) {
  table->reset();
  if (file_size < Footer::kEncodedLength) {
    return Status::Corruption(file_name, "file is too short to be a table (" +
                                             std::to_string(file_size) +
                                             " bytes)");
  }
  char footer_space[Footer::kEncodedLength];
  Slice footer_input;
  Status s = file->Read(file_size - Footer::kEncodedLength,
                        Footer::kEncodedLength, &footer_input, footer_space);
  if (s.ok() && footer_input.size() != Footer::kEncodedLength) {
    s = Status::Corruption("truncated footer read" +
                           AtOffset(file_size - Footer::kEncodedLength));
  }
  Footer footer;
  if (s.ok()) s = footer.DecodeFrom(&footer_input);
  if (!s.ok()) return s.WithContext(file_name);

  std::unique_ptr<Table> t(
      new Table(options, std::move(file), file_size, file_name));
  s = t->ReadMetaBlocks(footer);
  if (!s.ok()) return s.WithContext(file_name);
  *table = std::move(t);
  return Status::OK();
}

Status Table::ReadMetaBlocks(const Footer& footer) {
  index_handle_ = footer.index_handle();
  Status s = CheckHandle(index_handle_);
  if (!s.ok()) return s;

  BlockContents contents;
  s = ReadContents(file_.get(), /*verify_checksums=*/true,
                   footer.metaindex_handle(), &contents);
  if (!s.ok()) return s;
  Block metaindex(contents);  // owns contents from here on
  std::string filter_key;
  if (options_.filter_policy != nullptr) {
    filter_key =
        std::string(kFilterBlockPrefix) + options_.filter_policy->Name();
  }
  BlockHandle properties_handle;
  bool has_properties = false;
  std::unique_ptr<Iterator> it(metaindex.NewIterator(BytewiseComparator()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    BlockHandle* target = nullptr;
    if (it->key() == Slice(kPropertiesBlockName)) {
      target = &properties_handle;
      has_properties = true;
    } else if (!filter_key.empty() && it->key() == Slice(filter_key)) {
      target = &filter_handle_;
      has_filter_ = true;
    } else {
      continue;  // a meta block this reader does not use
    }
    Slice value = it->value();
    s = target->DecodeFrom(&value);
    if (s.ok()) s = CheckHandle(*target);
    if (!s.ok()) return Status::Corruption("bad metaindex entry", s.message());
  }
  if (!it->status().ok()) {
    return Status::Corruption("bad metaindex block", it->status().message());
  }

  // Every table we write has a properties block. Requiring it also
  // catches a corrupt footer whose metaindex handle names another valid
  // block (the footer has no checksum of its own).
  if (!has_properties) return Status::Corruption("missing properties block");
  s = ReadContents(file_.get(), /*verify_checksums=*/true, properties_handle,
                   &contents);
  if (!s.ok()) return s;
  s = DecodeTableProperties(contents.data, &properties_);
  FreeContents(contents);
  if (!s.ok()) return s;
  return CheckLayout();
}

Status Table::CheckLayout() {
  // Data blocks start at offset 0 and are contiguous (table_builder.cc).
  data_end_ = properties_.data_size;
  if (data_end_ > file_size_ - Footer::kEncodedLength) {
    return Status::Corruption(
        "properties data_size=" + std::to_string(data_end_) +
        " is past the end of the file");
  }
  // Cross-check the footer's index handle and the metaindex's filter handle
  // against the properties, so that a corrupt handle naming some other
  // block with a valid checksum is caught.
  if (index_handle_.offset() < data_end_ ||
      index_handle_.size() + kBlockTrailerSize != properties_.index_size) {
    return Status::Corruption("index block handle (offset " +
                              std::to_string(index_handle_.offset()) +
                              ", size " + std::to_string(index_handle_.size()) +
                              ") does not match the properties block");
  }
  if (has_filter_ &&
      (filter_handle_.offset() < data_end_ ||
       filter_handle_.size() + kBlockTrailerSize != properties_.filter_size)) {
    return Status::Corruption("filter block handle (offset " +
                              std::to_string(filter_handle_.offset()) +
                              ", size " +
                              std::to_string(filter_handle_.size()) +
                              ") does not match the properties block");
  }
  if (options_.block_cache != nullptr) {
    cache_id_ = options_.block_cache->NewId();
  }
  return ReadIndexAndFilter();
}

Status Table::ReadIndexAndFilter() {
  Cache* const cache = options_.block_cache;
  const bool use_cache =
      cache != nullptr && options_.cache_index_and_filter_blocks;

  BlockContents contents;
  Status s = ReadContents(file_.get(), /*verify_checksums=*/true, index_handle_,
                          &contents);
  if (!s.ok()) return s;
  auto index = std::make_unique<Block>(contents);
  if (index->NumRestarts() == 0) {
    return Status::Corruption("bad index block" +
                              AtOffset(index_handle_.offset()));
  }
  if (options_.user_keys_bytewise) index->BuildSearchHeads(options_.key_format);
  if (use_cache && contents.cachable) {
    const size_t charge = index->MemoryUsage();
    cache->Insert(CacheKey(index_handle_, /*filter=*/false), index.release(),
                  charge, &DeleteCachedBlock, nullptr);
    cache_meta_ = true;
  } else {
    index_block_ = std::move(index);
  }

  if (has_filter_) {
    s = ReadContents(file_.get(), /*verify_checksums=*/true, filter_handle_,
                     &contents);
    if (!s.ok()) return s;
    auto filter =
        std::make_unique<FilterHolder>(options_.filter_policy, contents);
    if (use_cache && contents.cachable) {
      const size_t charge = contents.data.size();
      cache->Insert(CacheKey(filter_handle_, /*filter=*/true), filter.release(),
                    charge, &FilterHolder::CacheDeleter, nullptr);
      cache_meta_ = true;
    } else {
      filter_ = std::move(filter);
    }
  }
  return Status::OK();
}

Status Table::CheckHandle(const BlockHandle& handle) const {
  // Every block and its trailer lie before the footer.
  const uint64_t limit = file_size_ - Footer::kEncodedLength;
  if (handle.offset() > limit || handle.size() > limit - handle.offset() ||
      kBlockTrailerSize > limit - handle.offset() - handle.size()) {
    return Status::Corruption("block handle out of range (offset " +
                              std::to_string(handle.offset()) + ", size " +
                              std::to_string(handle.size()) + ", file size " +
                              std::to_string(file_size_) + ")");
  }
  return Status::OK();
}

Status Table::ReadContents(RandomAccessFile* file, bool verify_checksums,
                           const BlockHandle& handle,
                           BlockContents* contents) const {
  Status s = CheckHandle(handle);
  if (s.ok()) s = ReadBlock(file, verify_checksums, handle, contents);
  if (s.ok()) Tick(kSstBytesRead, handle.size() + kBlockTrailerSize);
  return s;
}

std::string Table::CacheKey(const BlockHandle& handle, bool filter) const {
  // varint64(cache id) varint64(offset) ['f' for a filter]: varints are
  // prefix-free, so no two (id, offset, kind) share a key, and a corrupt
  // data handle pointing at the filter's offset cannot alias its entry.
  char buf[2 * kMaxVarint64Length + 1];
  char* p = EncodeVarint64(buf, cache_id_);
  p = EncodeVarint64(p, handle.offset());
  if (filter) *p++ = 'f';
  return std::string(buf, static_cast<size_t>(p - buf));
}

void Table::Tick(uint32_t ticker, uint64_t count) const {
  if (options_.statistics != nullptr) {
    options_.statistics->recordTick(ticker, count);
  }
}

Status Table::ReadBlockCached(RandomAccessFile* file,
                              const ReadOptions& options,
                              const BlockHandle& handle, bool is_index,
                              bool lookup, const Slice& prefetch_on_miss,
                              Block** block,
                              Cache::Handle** cache_handle) const {
  *block = nullptr;
  *cache_handle = nullptr;
  Cache* const cache = options_.block_cache;
  std::string key;
  if (cache != nullptr && !lookup) {
    Tick(kBlockCacheLookupSkipped);
  } else if (cache != nullptr) {
    key = CacheKey(handle, /*filter=*/false);
    Cache::Handle* h = cache->Lookup(key);
    if (h != nullptr) {
      Bump(&block_cache_hits_);
      Tick(kBlockCacheHit);
      Tick(is_index ? kBlockCacheIndexHit : kBlockCacheDataHit);
      if (!is_index && options_.block_admission != nullptr) {
        options_.block_admission->OnHit();
      }
      *block = static_cast<Block*>(cache->Value(h));
      *cache_handle = h;
      return Status::OK();
    }
    Bump(&block_cache_misses_);
    Tick(kBlockCacheMiss);
    Tick(is_index ? kBlockCacheIndexMiss : kBlockCacheDataMiss);
  }
  // Only the block's ends were prefetched before the lookup (a hit needs
  // none of its stored bytes); a miss reads all of them, and loading its
  // lines together beats waiting for each in turn as the uncompressing
  // walks them: 5.6% on readrandom and seekrandom (docs/performance.md).
  PrefetchLines(prefetch_on_miss);
  BlockContents contents;
  Status s = ReadContents(file, options.verify_checksums, handle, &contents);
  if (!s.ok()) return s;
  Block* b = new Block(contents);
  if (is_index && options_.user_keys_bytewise) {
    b->BuildSearchHeads(options_.key_format);
  }
  bool fill = cache != nullptr && contents.cachable && options.fill_cache;
  if (fill && !is_index && options_.block_admission != nullptr &&
      !options_.block_admission->AdmitOnMiss(cache_id_, handle.offset())) {
    fill = false;
    Tick(kBlockCacheAddDeferred);
  }
  if (fill) {
    if (key.empty()) key = CacheKey(handle, /*filter=*/false);  // not looked
    const size_t charge = b->MemoryUsage();
    cache->Insert(key, b, charge, &DeleteCachedBlock, cache_handle);
    Tick(kBlockCacheAdd);
    Tick(is_index ? kBlockCacheIndexAdd : kBlockCacheDataAdd);
    Tick(kBlockCacheBytesWrite, charge);
  }
  *block = b;
  return Status::OK();
}

Iterator* Table::NewBlockIterator(Block* block,
                                  Cache::Handle* cache_handle) const {
  Iterator* iter = block->NewIterator(options_.comparator);
  if (cache_handle != nullptr) {
    iter->RegisterCleanup(&ReleaseCacheHandle, options_.block_cache,
                          cache_handle);
  } else {
    iter->RegisterCleanup(&DeleteBlock, block, nullptr);
  }
  return iter;
}

Iterator* Table::NewDataBlockIterator(RandomAccessFile* file,
                                      const ReadOptions& options,
                                      const Slice& index_value,
                                      IteratorState* scan) const {
  BlockHandle handle;
  Slice input = index_value;
  Status s = handle.DecodeFrom(&input);
  if (s.ok() &&
      (handle.offset() > data_end_ ||
       handle.size() + kBlockTrailerSize > data_end_ - handle.offset())) {
    s = Status::Corruption("data block handle out of range" +
                           AtOffset(handle.offset()));
  }
  const ReadOptions* read_options = &options;
  ReadOptions no_fill;
  bool lookup = true;
  bool long_scan = false;
  bool prefetched = false;  // by the read of the block before, in a run
  // Only a read of the mapping itself gains from prefetching mapped bytes
  // (a compaction's readahead view copies the file instead). A read of
  // file_ (a Get, a user's scan) asks nothing more: MappedBlockBytes finds
  // no bytes in an unmapped file_.
  const bool mapped = file == file_.get() || file->ReturnsOwnMemory();
  if (s.ok() && scan != nullptr) {
    const uint64_t end = handle.offset() + handle.size() + kBlockTrailerSize;
    const bool forward = handle.offset() == scan->last_block_end;
    if (forward || end == scan->last_block_start) {
      scan->run_blocks++;
    } else {
      scan->run_blocks = 1;
      scan->lookups_missed = 0;
      scan->lookups_skipped = 0;
    }
    prefetched = forward;
    scan->last_block_start = handle.offset();
    scan->last_block_end = end;
    // A forward scan will want the next block a few microseconds from now;
    // its mapped bytes are cold (a hardware prefetcher stops at the page
    // boundary), so start loading as many as this block took.
    if (forward && mapped) PrefetchBlocks(end, end - handle.offset());
    if (options_.long_scan_blocks > 0 &&
        scan->run_blocks > options_.long_scan_blocks) {
      long_scan = true;
      lookup = LookUpInLongScan(scan);
      if (options.fill_cache) {
        no_fill = options;
        no_fill.fill_cache = false;
        read_options = &no_fill;
      }
    }
  }
  // A block read at random has cold mapped bytes, and likely a cold page
  // translation: start loading both of its ends (the trailer is read
  // first) while the cache lookup runs; a miss then loads the rest.
  // 2.5-3% on readrandom and seekrandom (docs/performance.md).
  Slice stored;  // the block's mapped bytes, if it is to be prefetched
  if (s.ok() && !prefetched && mapped) {
    stored =
        MappedBlockBytes(handle.offset(), handle.size() + kBlockTrailerSize);
    PrefetchEnds(stored);
  }
  Block* block = nullptr;
  Cache::Handle* cache_handle = nullptr;
  if (s.ok()) {
    s = ReadBlockCached(file, *read_options, handle, /*is_index=*/false, lookup,
                        /*prefetch_on_miss=*/stored, &block, &cache_handle);
  }
  if (!s.ok()) return NewErrorIterator(s);
  if (long_scan && lookup) {
    // Without filling, a pinned block came from the cache: a hit.
    scan->lookups_missed =
        cache_handle != nullptr ? 0 : scan->lookups_missed + 1;
  }
  return NewBlockIterator(block, cache_handle);
}

bool Table::LookUpInLongScan(IteratorState* scan) const {
  // A long scan of a table larger than the cache misses on almost every
  // block, and a miss costs two CPU-cache misses in the hash table (about
  // 4% of a readseq; docs/performance.md). Reading a mapped file, or the
  // buffer of a readahead view, instead costs nothing extra, so after a
  // streak of misses the scan only probes now and then; a hit (a cached
  // stretch of the table) resumes every lookup. Files read block by block
  // with pread or direct I/O are always looked up.
  if (options_.block_cache == nullptr ||
      (scan->readahead == nullptr && !scan->file->ReturnsOwnMemory()) ||
      scan->lookups_missed < kLongScanMissesBeforeSkipping) {
    return true;
  }
  return ++scan->lookups_skipped % kLongScanProbeEvery == 0;
}

Iterator* Table::DataBlockFunction(void* arg, const ReadOptions& options,
                                   const Slice& index_value) {
  IteratorState* state = static_cast<IteratorState*>(arg);
  return state->table->NewDataBlockIterator(state->file, options, index_value,
                                            state);
}

Slice Table::MappedBlockBytes(uint64_t offset, uint64_t n) const {
  if (!file_->ReturnsOwnMemory() || offset >= data_end_) return Slice();
  n = std::min(n, data_end_ - offset);
  Slice bytes;
  if (!file_->Read(offset, static_cast<size_t>(n), &bytes, nullptr).ok()) {
    return Slice();
  }
  return bytes;
}

void Table::PrefetchLines(const Slice& bytes) {
  for (size_t off = 0; off < bytes.size(); off += 64) {
    __builtin_prefetch(bytes.data() + off);
  }
}

void Table::PrefetchEnds(const Slice& bytes) {
  if (bytes.empty()) return;
  __builtin_prefetch(bytes.data());
  __builtin_prefetch(bytes.data() + bytes.size() - 1);
}

void Table::PrefetchBlocks(uint64_t offset, uint64_t n) const {
  PrefetchLines(MappedBlockBytes(offset, n));
}

Iterator* Table::NewIndexIterator(const ReadOptions& options) const {
  if (index_block_ != nullptr) {
    return index_block_->NewIterator(options_.comparator);
  }
  Block* block = nullptr;
  Cache::Handle* cache_handle = nullptr;
  Status s =
      ReadBlockCached(file_.get(), options, index_handle_,
                      /*is_index=*/true, /*lookup=*/true,
                      /*prefetch_on_miss=*/Slice(), &block, &cache_handle);
  if (!s.ok()) return NewErrorIterator(s);
  return NewBlockIterator(block, cache_handle);
}

Iterator* Table::NewIterator(const ReadOptions& options,
                             bool for_compaction) const {
  auto* state = new IteratorState{this, file_.get(), nullptr};
  // The readahead view reads a mapped file through a copying reader: a
  // compaction passes over each page once, and a page's first touch through
  // the mapping costs more than copying it.
  if (for_compaction && options_.readahead_size > 0) {
    state->readahead =
        NewReadaheadRandomAccessFile(file_.get(), options_.readahead_size);
    state->file = state->readahead.get();
  }
  Iterator* iter =
      NewTwoLevelIterator(NewIndexIterator(options), &DataBlockFunction, state,
                          options, file_name_);
  iter->RegisterCleanup(&IteratorState::Delete, state, nullptr);
  return iter;
}

// ---------------------------------------------------------------- walker

Table::BlockWalker::BlockWalker(const Table* table)
    : table_(table), file_(table->file_.get()) {
  if (table_->options_.readahead_size > 0) {
    readahead_ = NewReadaheadRandomAccessFile(table_->file_.get(),
                                              table_->options_.readahead_size);
    file_ = readahead_.get();
  }
  ReadOptions options;
  options.fill_cache = false;
  index_.reset(table_->NewIndexIterator(options));
}

Table::BlockWalker::~BlockWalker() = default;

void Table::BlockWalker::SeekToFirst() {
  index_->SeekToFirst();
  Load();
}

void Table::BlockWalker::Next() {
  assert(Valid());
  index_->Next();
  Load();
}

void Table::BlockWalker::Load() {
  entries_.reset();
  block_.reset();
  stored_ = Slice();
  if (!status_.ok()) return;
  if (!index_->Valid()) {
    status_ = index_->status().WithContext(table_->file_name_);
    return;
  }
  BlockHandle handle;
  Slice input = index_->value();
  Status s = handle.DecodeFrom(&input);
  if (s.ok() && (handle.offset() > table_->data_end_ ||
                 handle.size() + kBlockTrailerSize >
                     table_->data_end_ - handle.offset())) {
    s = Status::Corruption("data block handle out of range" +
                           AtOffset(handle.offset()));
  }
  if (s.ok()) {
    s = ReadStoredBlock(file_, handle, &buf_, &stored_);
  }
  BlockContents contents;
  if (s.ok()) {
    table_->Tick(kSstBytesRead, handle.size() + kBlockTrailerSize);
    s = UncompressStoredBlock(stored_, handle.offset(),
                              /*verify_checksum=*/true, &buf_, &contents);
  }
  if (!s.ok()) {
    status_ = s.WithContext(table_->file_name_);
    stored_ = Slice();
    return;
  }
  block_ = std::make_unique<Block>(contents);
  entries_.reset(block_->NewIterator(table_->options_.comparator));
}

bool Table::KeyMayMatch(const ReadOptions& options,
                        const Slice& user_key) const {
  bool may_match = true;
  const Status s = FilterMayMatch(options, user_key, &may_match);
  return !s.ok() || may_match;
}

void Table::PrefetchFilter(const Slice& user_key) const {
  if (filter_ != nullptr) filter_->reader.Prefetch(user_key);
}

Status Table::FilterMayMatch(const ReadOptions& options, const Slice& user_key,
                             bool* may_match) const {
  *may_match = true;
  if (!has_filter_) return Status::OK();
  if (filter_ != nullptr) {
    *may_match = filter_->reader.KeyMayMatch(user_key);
    return Status::OK();
  }
  // The filter lives in the block cache (cache_index_and_filter_blocks).
  Cache* const cache = options_.block_cache;
  const std::string key = CacheKey(filter_handle_, /*filter=*/true);
  Cache::Handle* h = cache->Lookup(key);
  if (h != nullptr) {
    Bump(&block_cache_hits_);
    Tick(kBlockCacheHit);
    Tick(kBlockCacheFilterHit);
    *may_match = static_cast<const FilterHolder*>(cache->Value(h))
                     ->reader.KeyMayMatch(user_key);
    cache->Release(h);
    return Status::OK();
  }
  Bump(&block_cache_misses_);
  Tick(kBlockCacheMiss);
  Tick(kBlockCacheFilterMiss);
  BlockContents contents;
  Status s = ReadContents(file_.get(), options.verify_checksums, filter_handle_,
                          &contents);
  if (!s.ok()) return s;
  auto filter =
      std::make_unique<FilterHolder>(options_.filter_policy, contents);
  *may_match = filter->reader.KeyMayMatch(user_key);
  if (options.fill_cache && contents.cachable) {
    cache->Insert(key, filter.release(), contents.data.size(),
                  &FilterHolder::CacheDeleter, nullptr);
    Tick(kBlockCacheAdd);
    Tick(kBlockCacheFilterAdd);
  }
  return Status::OK();
}

Status Table::InternalGet(const ReadOptions& options, const Slice& key,
                          void* arg,
                          void (*handle_result)(void* arg, const Slice& k,
                                                const Slice& v)) const {
  if (has_filter_) {
    const Slice user_key = options_.key_format != nullptr
                               ? options_.key_format->UserKey(key)
                               : key;
    bool may_match = true;
    Status s = FilterMayMatch(options, user_key, &may_match);
    if (!s.ok()) return s.WithContext(file_name_);
    if (!may_match) {
      Bump(&filter_useful_);
      Tick(kBloomFilterUseful);
      return Status::OK();
    }
    Bump(&filter_positive_);
    Tick(kBloomFilterFullPositive);
  }

  std::unique_ptr<Iterator> index(NewIndexIterator(options));
  index->Seek(key);
  Status s;
  if (index->Valid()) {
    std::unique_ptr<Iterator> block(
        NewDataBlockIterator(file_.get(), options, index->value()));
    block->Seek(key);
    if (block->Valid()) {
      if (has_filter_ && options_.statistics != nullptr) {
        // The filter said "may match": was the key really there?
        const Slice user_key = options_.key_format != nullptr
                                   ? options_.key_format->UserKey(key)
                                   : key;
        const Slice found = options_.key_format != nullptr
                                ? options_.key_format->UserKey(block->key())
                                : block->key();
        if (user_key == found) Tick(kBloomFilterFullTruePositive);
      }
      (*handle_result)(arg, block->key(), block->value());
    }
    s = block->status();
  }
  if (s.ok()) s = index->status();
  if (!s.ok()) return s.WithContext(file_name_);
  return Status::OK();
}

uint64_t Table::ApproximateOffsetOf(const Slice& key) const {
  std::unique_ptr<Iterator> index(NewIndexIterator(ReadOptions()));
  index->Seek(key);
  if (index->Valid()) {
    BlockHandle handle;
    Slice value = index->value();
    if (handle.DecodeFrom(&value).ok()) return handle.offset();
    return 0;
  }
  return index->status().ok() ? data_end_ : 0;
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/version_set.h"

#include <algorithm>
#include <cassert>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>

#include "db/compaction.h"
#include "db/compaction_picker.h"
#include "db/filename.h"
#include "db/log_reader.h"
#include "db/log_writer.h"
#include "db/table_cache.h"
#include "db/value_compression.h"
#include "table/merging_iterator.h"
#include "table/two_level_iterator.h"

namespace cascadedb {

namespace {

// The deepest level a flushed memtable may be placed at (LevelDB's
// kMaxMemCompactLevel): deep enough to skip cheap compactions of
// non-overlapping data, shallow enough that overwrites of it are cheap.
constexpr int kMaxMemCompactLevel = 2;

// Size of the value of LevelFileNumIterator: the address of a FileMetaData.
constexpr size_t kFileEntrySize = sizeof(const FileMetaData*);

std::string FileName(uint64_t number) { return TableFileBaseName(number); }

std::string LevelName(int level) { return "level " + std::to_string(level); }

// True if *user_key (nullptr = before every key) is after all of f.
bool AfterFile(const Comparator* ucmp, const Slice* user_key,
               const FileMetaData* f) {
  return user_key != nullptr &&
         ucmp->Compare(*user_key, f->largest.user_key()) > 0;
}

// True if *user_key (nullptr = after every key) is before all of f.
bool BeforeFile(const Comparator* ucmp, const Slice* user_key,
                const FileMetaData* f) {
  return user_key != nullptr &&
         ucmp->Compare(*user_key, f->smallest.user_key()) < 0;
}

bool SomeFileOverlapsRange(const InternalKeyComparator& icmp,
                           bool disjoint_sorted_files,
                           const std::vector<FileMetaData*>& files,
                           const Slice* smallest_user_key,
                           const Slice* largest_user_key) {
  const Comparator* ucmp = icmp.user_comparator();
  if (!disjoint_sorted_files) {
    for (const FileMetaData* f : files) {
      if (!AfterFile(ucmp, smallest_user_key, f) &&
          !BeforeFile(ucmp, largest_user_key, f)) {
        return true;
      }
    }
    return false;
  }
  // Binary search: the first file that could hold smallest_user_key.
  size_t index = 0;
  if (smallest_user_key != nullptr) {
    // The earliest internal key of smallest_user_key.
    const InternalKey small_key(*smallest_user_key, kMaxSequenceNumber,
                                kValueTypeForSeek);
    index = FindFile(icmp, files, small_key.Encode());
  }
  if (index >= files.size()) return false;
  return !BeforeFile(ucmp, largest_user_key, files[index]);
}

// L0 order: newest first. Flushes of later memtables hold larger sequence
// numbers; the file number breaks ties (files without entries).
bool NewestFirst(const FileMetaData* a, const FileMetaData* b) {
  if (a->largest_seqno != b->largest_seqno) {
    return a->largest_seqno > b->largest_seqno;
  }
  return a->number > b->number;
}

// A printable, truncated copy of bytes read from disk, for messages.
std::string Printable(const Slice& s) {
  constexpr size_t kMax = 64;
  std::string r;
  for (size_t i = 0; i < s.size() && i < kMax; i++) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    r.push_back(c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?');
  }
  if (s.size() > kMax) r.append("...");
  return r;
}

// The index of a level >= 1 used by the two-level iterator: key = a file's
// largest key (a separator: >= every key of the file, < every key of the
// next), value = the address of its FileMetaData. Reads the file list of a
// Version or a Compaction, which must outlive it and the iterators opened
// from its values (a table pinned in its FileMetaData lives as long as it).
class LevelFileNumIterator : public Iterator {
 public:
  LevelFileNumIterator(const InternalKeyComparator& icmp,
                       const std::vector<FileMetaData*>* files)
      : icmp_(icmp), files_(files), index_(files->size()) {}

  bool Valid() const override { return index_ < files_->size(); }
  void SeekToFirst() override { index_ = 0; }
  void SeekToLast() override {
    index_ = files_->empty() ? 0 : files_->size() - 1;
  }
  void Seek(const Slice& target) override {
    index_ = FindFile(icmp_, *files_, target);
  }
  void SeekForPrev(const Slice& target) override {
    // The last file whose largest key is <= target.
    index_ = FindFile(icmp_, *files_, target);
    if (index_ < files_->size() &&
        icmp_.Compare((*files_)[index_]->largest.Encode(), target) == 0) {
      return;
    }
    index_ = index_ == 0 ? files_->size() : index_ - 1;
  }
  void Next() override {
    assert(Valid());
    index_++;
  }
  void Prev() override {
    assert(Valid());
    index_ = index_ == 0 ? files_->size() : index_ - 1;
  }
  Slice key() const override {
    assert(Valid());
    return (*files_)[index_]->largest.Encode();
  }
  Slice value() const override {
    assert(Valid());
    const FileMetaData* f = (*files_)[index_];
    std::memcpy(value_buf_, &f, sizeof(f));
    return Slice(value_buf_, sizeof(value_buf_));
  }
  Status status() const override { return Status::OK(); }

 private:
  const InternalKeyComparator icmp_;  // a copy: one pointer
  const std::vector<FileMetaData*>* const files_;
  size_t index_;
  mutable char value_buf_[kFileEntrySize];
};

Iterator* OpenFileEntry(TableCache* cache, const ReadOptions& options,
                        const Slice& entry, bool for_compaction) {
  if (entry.size() != kFileEntrySize) {
    return NewErrorIterator(
        Status::Corruption("level file iterator: bad file entry"));
  }
  const FileMetaData* f = nullptr;
  std::memcpy(&f, entry.data(), sizeof(f));
  return cache->NewIterator(options, *f, nullptr, for_compaction);
}

Iterator* GetFileIterator(void* arg, const ReadOptions& options,
                          const Slice& entry) {
  return OpenFileEntry(static_cast<TableCache*>(arg), options, entry, false);
}

Iterator* GetFileIteratorForCompaction(void* arg, const ReadOptions& options,
                                       const Slice& entry) {
  return OpenFileEntry(static_cast<TableCache*>(arg), options, entry, true);
}

// What Version::Get found in one table.
enum class SaverState { kNotFound, kFound, kDeleted, kCorrupt };

struct Saver {
  SaverState state = SaverState::kNotFound;
  const Comparator* ucmp = nullptr;
  Slice user_key;
  std::string* value = nullptr;
  Status status;  // for kCorrupt
};

// Table::InternalGet's callback: the first entry >= the lookup key.
void SaveValue(void* arg, const Slice& ikey, const Slice& v) {
  Saver* s = static_cast<Saver*>(arg);
  ParsedInternalKey parsed;
  Status st = ParseInternalKey(ikey, &parsed);
  if (!st.ok()) {
    s->state = SaverState::kCorrupt;
    s->status = st;
    return;
  }
  if (s->ucmp->Compare(parsed.user_key, s->user_key) != 0) return;
  if (parsed.type == kTypeValue) {
    s->state = SaverState::kFound;
    s->value->assign(v.data(), v.size());
  } else if (parsed.type == kTypeValueCompressed) {
    Status u = UncompressValue(v, s->value);
    if (u.ok()) {
      s->state = SaverState::kFound;
    } else {
      s->state = SaverState::kCorrupt;
      s->status = u.WithContext("value of " + parsed.DebugString());
    }
  } else {
    s->state = SaverState::kDeleted;
  }
}

// Collects what the log reader drops from a MANIFEST: any corruption is
// fatal; a torn final record (a crash mid-append) is tolerated.
struct ManifestReporter : public log::Reader::Reporter {
  Status status;  // the first Corruption or read error
  bool torn_tail = false;
  void Corruption(size_t /*bytes*/, const Status& s) override {
    if (status.ok()) status = s;
  }
  void TornTail(size_t /*bytes*/, const Status& /*s*/) override {
    torn_tail = true;
  }
};

}  // namespace

uint64_t TotalFileSize(const std::vector<FileMetaData*>& files) {
  uint64_t sum = 0;
  for (const FileMetaData* f : files) sum += f->file_size;
  return sum;
}

size_t FindFile(const InternalKeyComparator& icmp,
                const std::vector<FileMetaData*>& files, const Slice& key) {
  size_t left = 0;
  size_t right = files.size();
  while (left < right) {
    const size_t mid = left + (right - left) / 2;
    if (icmp.Compare(files[mid]->largest.Encode(), key) < 0) {
      left = mid + 1;  // every file up to mid ends before key
    } else {
      right = mid;
    }
  }
  return right;
}

namespace {

// The one file of a level >= 1 that can hold an entry >= ikey with ikey's
// user key, or nullptr. Searching by internal key also finds the right
// file when one user key's versions span two adjacent files.
FileMetaData* FileForKey(const InternalKeyComparator& icmp,
                         const std::vector<FileMetaData*>& files,
                         const Slice& ikey) {
  const size_t index = FindFile(icmp, files, ikey);
  if (index >= files.size()) return nullptr;  // every file ends before ikey
  FileMetaData* f = files[index];
  if (icmp.user_comparator()->Compare(ExtractUserKey(ikey),
                                      f->smallest.user_key()) < 0) {
    return nullptr;  // ikey falls between two files
  }
  return f;
}

}  // namespace

// ---------------------------------------------------------------- Version

Version::Version(VersionSet* vset)
    : vset_(vset),
      next_(this),
      prev_(this),
      files_(vset->num_levels()),
      compaction_score_(vset->num_levels(), 0.0) {}

Version::~Version() {
  assert(refs_ == 0);
  prev_->next_ = next_;
  next_->prev_ = prev_;
  for (auto& level_files : files_) {
    for (FileMetaData* f : level_files) {
      assert(f->refs > 0);
      if (--f->refs == 0) delete f;
    }
  }
}

void Version::Ref() { ++refs_; }

bool Version::Unref() {
  assert(refs_ >= 1);
  if (--refs_ != 0) return false;
  delete this;
  return true;
}

Status Version::Get(const ReadOptions& options, const LookupKey& key,
                    std::string* value, bool* found, GetStats* stats) {
  if (found != nullptr) *found = false;
  // The first file consulted and its level; charged once a second file
  // has to be consulted.
  FileMetaData* first_file = nullptr;
  int first_level = -1;
  auto note = [&](FileMetaData* f, int level) {
    if (stats == nullptr) return;
    if (first_file == nullptr) {
      first_file = f;
      first_level = level;
    } else if (stats->seek_file == nullptr) {
      stats->seek_file = first_file;
      stats->seek_file_level = first_level;
    }
  };
  const InternalKeyComparator& icmp = *vset_->icmp();
  const Comparator* ucmp = icmp.user_comparator();
  const Slice ikey = key.internal_key();
  const Slice user_key = key.user_key();

  // Looks in f. Returns true when the search is over, with *result set.
  auto search = [&](const FileMetaData* f, Status* result) {
    Saver saver;
    saver.ucmp = ucmp;
    saver.user_key = user_key;
    saver.value = value;
    Status s = vset_->table_cache()->Get(options, *f, ikey, &saver, &SaveValue);
    if (!s.ok()) {
      *result = s;  // names the file already
      return true;
    }
    switch (saver.state) {
      case SaverState::kNotFound:
        return false;
      case SaverState::kFound:
        if (found != nullptr) *found = true;
        *result = Status::OK();
        return true;
      case SaverState::kDeleted:
        if (found != nullptr) *found = true;
        *result = Status::NotFound(Slice());
        return true;
      case SaverState::kCorrupt:
        *result = saver.status.WithContext(FileName(f->number));
        return true;
    }
    return false;
  };

  Status result;
  // L0 files may overlap each other: try every one holding the user key,
  // newest first, so the first entry found is the newest.
  auto holds = [&](const FileMetaData* f) {
    return ucmp->Compare(user_key, f->smallest.user_key()) >= 0 &&
           ucmp->Compare(user_key, f->largest.user_key()) <= 0;
  };
  // Each of those files' filter probes is a cache miss, and taken in turn
  // they add up: start loading them all first (13 L0 files: Gets 18%
  // faster; docs/performance.md).
  if (files_[0].size() > 1) {
    for (FileMetaData* f : files_[0]) {
      if (holds(f)) vset_->table_cache()->PrefetchFilter(*f, user_key);
    }
  }
  for (FileMetaData* f : files_[0]) {
    if (holds(f)) {
      note(f, 0);
      if (search(f, &result)) return result;
    }
  }
  // Deeper levels: at most one file can hold an entry >= the lookup key
  // with this user key.
  for (int level = 1; level < num_levels(); level++) {
    FileMetaData* f = FileForKey(icmp, files_[level], ikey);
    if (f == nullptr) continue;
    note(f, level);
    if (search(f, &result)) return result;
  }
  return Status::NotFound(Slice());
}

bool Version::UpdateStats(const GetStats& stats) {
  FileMetaData* f = stats.seek_file;
  if (f == nullptr) return false;
  f->allowed_seeks--;
  // The last level has nowhere to go.
  if (f->allowed_seeks <= 0 && file_to_compact_ == nullptr &&
      stats.seek_file_level < num_levels() - 1) {
    file_to_compact_ = f;
    file_to_compact_level_ = stats.seek_file_level;
    return true;
  }
  return false;
}

bool Version::RecordReadSample(const Slice& internal_key) {
  ParsedInternalKey ikey;
  if (!ParseInternalKey(internal_key, &ikey).ok()) return false;
  const InternalKeyComparator& icmp = *vset_->icmp();
  const Comparator* ucmp = icmp.user_comparator();
  GetStats stats;
  int matches = 0;
  for (int level = 0; level < num_levels() && matches < 2; level++) {
    for (FileMetaData* f : files_[level]) {
      if (ucmp->Compare(ikey.user_key, f->smallest.user_key()) < 0 ||
          ucmp->Compare(ikey.user_key, f->largest.user_key()) > 0) {
        continue;
      }
      if (++matches == 1) {
        stats.seek_file = f;
        stats.seek_file_level = level;
      } else {
        break;
      }
    }
  }
  // One file holding the key costs nothing extra: no charge.
  return matches >= 2 && UpdateStats(stats);
}

Iterator* Version::NewConcatenatingIterator(const ReadOptions& options,
                                            int level) const {
  return NewTwoLevelIterator(
      new LevelFileNumIterator(*vset_->icmp(), &files_[level]),
      &GetFileIterator, vset_->table_cache(), options);
}

namespace {

// A seek target's user key against one L0 table's filter. The table is
// pinned by the iterator over it, which lives as long as the probe.
class TableSeekProbe : public SeekProbe {
 public:
  TableSeekProbe(const Table* table, const ReadOptions& options)
      : table_(table), options_(options) {}
  bool MayContain(const Slice& target) const override {
    if (target.size() < kInternalKeyTrailerSize) return true;
    return table_->KeyMayMatch(options_, ExtractUserKey(target));
  }
  void Prefetch(const Slice& target) const override {
    if (target.size() >= kInternalKeyTrailerSize) {
      table_->PrefetchFilter(ExtractUserKey(target));
    }
  }

 private:
  const Table* const table_;
  const ReadOptions options_;
};

// A seek target's user key against a level >= 1: the one file that could
// hold it, then that file's filter. The Version (referenced by the
// iterator's owner) keeps the file list alive.
class LevelSeekProbe : public SeekProbe {
 public:
  LevelSeekProbe(const InternalKeyComparator* icmp, TableCache* table_cache,
                 const std::vector<FileMetaData*>* files,
                 const ReadOptions& options)
      : icmp_(icmp),
        table_cache_(table_cache),
        files_(files),
        options_(options) {}
  bool MayContain(const Slice& target) const override {
    if (target.size() < kInternalKeyTrailerSize) return true;
    const FileMetaData* f = FileForKey(*icmp_, *files_, target);
    return f != nullptr &&
           table_cache_->KeyMayMatch(options_, *f, ExtractUserKey(target));
  }

 private:
  const InternalKeyComparator* const icmp_;
  TableCache* const table_cache_;
  const std::vector<FileMetaData*>* const files_;
  const ReadOptions options_;
};

}  // namespace

void Version::AddIterators(const ReadOptions& options,
                           std::vector<Iterator*>* iters,
                           std::vector<std::unique_ptr<SeekProbe>>* probes) {
  TableCache* const table_cache = vset_->table_cache();
  for (const FileMetaData* f : files_[0]) {
    Table* table = nullptr;
    iters->push_back(table_cache->NewIterator(options, *f, &table));
    if (probes != nullptr) {
      // A table that failed to open has an error iterator: no probe, so
      // every seek reports the error.
      probes->push_back(table != nullptr
                            ? std::make_unique<TableSeekProbe>(table, options)
                            : nullptr);
    }
  }
  for (int level = 1; level < num_levels(); level++) {
    if (!files_[level].empty()) {
      iters->push_back(NewConcatenatingIterator(options, level));
      if (probes != nullptr) {
        probes->push_back(std::make_unique<LevelSeekProbe>(
            vset_->icmp(), table_cache, &files_[level], options));
      }
    }
  }
}

void Version::GetOverlappingInputs(int level, const InternalKey* begin,
                                   const InternalKey* end,
                                   std::vector<FileMetaData*>* inputs) const {
  assert(level >= 0 && level < num_levels());
  inputs->clear();
  Slice user_begin;
  Slice user_end;
  if (begin != nullptr) user_begin = begin->user_key();
  if (end != nullptr) user_end = end->user_key();
  const InternalKeyComparator& icmp = *vset_->icmp();
  const Comparator* ucmp = icmp.user_comparator();
  const std::vector<FileMetaData*>& files = files_[level];
  if (level > 0) {
    // Sorted and disjoint: binary search for the first file ending at or
    // after begin, then take files until one starts after end.
    size_t i = 0;
    if (begin != nullptr) {
      const InternalKey first(user_begin, kMaxSequenceNumber,
                              kValueTypeForSeek);
      i = FindFile(icmp, files, first.Encode());
    }
    for (; i < files.size(); i++) {
      if (end != nullptr &&
          ucmp->Compare(files[i]->smallest.user_key(), user_end) > 0) {
        break;
      }
      inputs->push_back(files[i]);
    }
    return;
  }
  for (size_t i = 0; i < files.size();) {
    FileMetaData* f = files[i++];
    const Slice file_start = f->smallest.user_key();
    const Slice file_limit = f->largest.user_key();
    if (begin != nullptr && ucmp->Compare(file_limit, user_begin) < 0) {
      continue;  // entirely before the range
    }
    if (end != nullptr && ucmp->Compare(file_start, user_end) > 0) {
      continue;  // entirely after the range
    }
    inputs->push_back(f);
    // L0 files overlap each other: if f widens the range, start over with
    // the wider range so files overlapping f are taken too.
    if (begin != nullptr && ucmp->Compare(file_start, user_begin) < 0) {
      user_begin = file_start;
      inputs->clear();
      i = 0;
    } else if (end != nullptr && ucmp->Compare(file_limit, user_end) > 0) {
      user_end = file_limit;
      inputs->clear();
      i = 0;
    }
  }
}

bool Version::OverlapInLevel(int level, const Slice* smallest_user_key,
                             const Slice* largest_user_key) const {
  return SomeFileOverlapsRange(*vset_->icmp(), level > 0, files_[level],
                               smallest_user_key, largest_user_key);
}

int Version::PickLevelForMemTableOutput(const Slice& smallest_user_key,
                                        const Slice& largest_user_key) {
  int level = 0;
  if (OverlapInLevel(0, &smallest_user_key, &largest_user_key)) return 0;
  // A file still being logged is not in this Version; it may be older data
  // for these keys, which must never end up below the new file.
  if (vset_->PendingEditsOverlap(-1, smallest_user_key, largest_user_key)) {
    return 0;
  }
  CompactionPicker* picker = vset_->picker();
  const InternalKey start(smallest_user_key, kMaxSequenceNumber,
                          kValueTypeForSeek);
  const InternalKey limit(largest_user_key, 0, kTypeDeletion);
  const int max_level = std::min(kMaxMemCompactLevel, num_levels() - 1);
  std::vector<FileMetaData*> overlaps;
  while (level < max_level) {
    const int next = level + 1;
    if (OverlapInLevel(next, &smallest_user_key, &largest_user_key)) break;
    if (picker->RangeOverlapsRunningOutput(next, smallest_user_key,
                                           largest_user_key)) {
      break;
    }
    if (next + 1 < num_levels()) {
      // Too much overlap with the level below would make the file's own
      // compaction expensive later.
      GetOverlappingInputs(next + 1, &start, &limit, &overlaps);
      if (TotalFileSize(overlaps) > 10 * picker->MaxFileSizeForLevel(next)) {
        break;
      }
    }
    level = next;
  }
  return level;
}

void Version::ComputeCompactionScore() {
  const Options& o = *vset_->options();
  const CompactionPicker* picker = vset_->picker();
  const int n = num_levels();
  compaction_score_.assign(n, 0.0);

  int l0_files = 0;
  for (const FileMetaData* f : files_[0]) {
    if (!f->being_compacted) l0_files++;
  }
  compaction_score_[0] =
      static_cast<double>(l0_files) /
      static_cast<double>(std::max(o.level0_file_num_compaction_trigger, 1));
  // The last level has nowhere to go, so it is never scored.
  for (int level = 1; level < n - 1; level++) {
    uint64_t bytes = 0;
    for (const FileMetaData* f : files_[level]) {
      if (!f->being_compacted) bytes += f->file_size;
    }
    compaction_score_[level] =
        static_cast<double>(bytes) /
        static_cast<double>(picker->MaxBytesForLevel(level));
  }

  // RocksDB's VersionStorageInfo::EstimateCompactionBytesNeeded, for a
  // static level layout (base level 1). Counts every file, compacting or
  // not: the work is pending until it is done.
  uint64_t estimate = 0;
  uint64_t bytes_compact_to_next_level = 0;
  const uint64_t l0_bytes = NumLevelBytes(0);
  bool l0_triggered = false;
  if (NumFiles(0) >= o.level0_file_num_compaction_trigger ||
      l0_bytes >= o.max_bytes_for_level_base) {
    l0_triggered = true;
    estimate = l0_bytes;
    bytes_compact_to_next_level = l0_bytes;
  }
  uint64_t bytes_next_level = 0;
  for (int level = 1; level <= n - 2; level++) {
    uint64_t level_size;
    if (bytes_next_level > 0) {
      level_size = bytes_next_level;
      bytes_next_level = 0;
    } else {
      level_size = NumLevelBytes(level);
    }
    if (level == 1 && l0_triggered) estimate += level_size;
    level_size += bytes_compact_to_next_level;
    bytes_compact_to_next_level = 0;
    const uint64_t target = picker->MaxBytesForLevel(level);
    if (level_size > target) {
      bytes_compact_to_next_level = level_size - target;
      bytes_next_level = NumLevelBytes(level + 1);
      if (bytes_next_level > 0) {
        // The fan-out: each excess byte is merged with this many bytes of
        // the next level.
        estimate += static_cast<uint64_t>(
            static_cast<double>(bytes_compact_to_next_level) *
            (static_cast<double>(bytes_next_level) /
                 static_cast<double>(level_size) +
             1));
      }
    }
  }
  estimated_pending_compaction_bytes_ = estimate;
}

std::string Version::DebugString() const {
  std::string r;
  char buf[160];
  for (int level = 0; level < num_levels(); level++) {
    std::snprintf(buf, sizeof(buf),
                  "--- level %d --- %d files, %" PRIu64 " bytes, score %.2f\n",
                  level, NumFiles(level), NumLevelBytes(level),
                  compaction_score_[level]);
    r.append(buf);
    for (const FileMetaData* f : files_[level]) {
      std::snprintf(buf, sizeof(buf),
                    " %s %" PRIu64 " bytes seq [%" PRIu64 ", %" PRIu64 "] [",
                    FileName(f->number).c_str(), f->file_size,
                    f->smallest_seqno, f->largest_seqno);
      r.append(buf);
      r.append(f->smallest.DebugString()).append(" .. ");
      r.append(f->largest.DebugString()).append("]");
      if (f->being_compacted) r.append(" (compacting)");
      r.append("\n");
    }
  }
  return r;
}

// ---------------------------------------------------------------- Builder

// Accumulates edits on top of a base Version, then writes the result into
// a new Version, checking that the result is a valid file set. context
// prefixes every error ("version edit", or the MANIFEST's name).
class VersionSet::Builder {
 public:
  Builder(VersionSet* vset, Version* base, std::string context)
      : vset_(vset),
        base_(base),
        context_(std::move(context)),
        levels_(vset->num_levels()) {
    base_->Ref();
  }

  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  ~Builder() {
    for (LevelState& ls : levels_) {
      for (auto& entry : ls.added) Unref(entry.second);
    }
    base_->Unref();
  }

  Status Apply(const VersionEdit& edit) {
    const InternalKeyComparator& icmp = *vset_->icmp();
    for (const auto& [level, number] : edit.deleted_files()) {
      if (level >= vset_->num_levels()) return BadLevel(level, number);
      LevelState& ls = levels_[level];
      auto it = ls.added.find(number);
      if (it != ls.added.end()) {
        Unref(it->second);
        ls.added.erase(it);
      } else if (InBase(level, number)) {
        ls.deleted.insert(number);
      } else {
        return Status::Corruption(context_, "deletes " + FileName(number) +
                                                " from " + LevelName(level) +
                                                ", which does not hold it");
      }
    }
    for (const auto& [level, f] : edit.new_files()) {
      if (level >= vset_->num_levels()) return BadLevel(level, f.number);
      if (f.smallest.empty() || f.largest.empty() ||
          icmp.Compare(f.smallest.Encode(), f.largest.Encode()) > 0) {
        return Status::Corruption(context_,
                                  FileName(f.number) + " has a bad key range");
      }
      LevelState& ls = levels_[level];
      if (ls.added.count(f.number) != 0 || InBase(level, f.number)) {
        return Status::Corruption(context_, "adds " + FileName(f.number) +
                                                " to " + LevelName(level) +
                                                " twice");
      }
      FileMetaData* copy = new FileMetaData(f);
      copy->refs = 1;  // the builder's; the Version adds its own
      copy->being_compacted = false;
      // LevelDB's estimate: one lookup costs about what compacting 16 KiB
      // does, so a file may cost file_size / 16 KiB lookups (at least 100)
      // before compacting it down is cheaper than the lookups it causes.
      copy->allowed_seeks =
          static_cast<int>(std::max<uint64_t>(100, f.file_size / 16384));
      ls.added.emplace(f.number, copy);
    }
    return Status::OK();
  }

  // Fills the empty Version v. On error v is left empty.
  //
  // The base Version is valid (every Version is made here), so only what
  // the edits added is checked, and each added file is put in its place in
  // its level rather than the level sorted again: a flush or compaction
  // adds a few files to levels of hundreds, and this runs under the DB
  // mutex, which every read and write takes.
  Status SaveTo(Version* v) {
    const InternalKeyComparator& icmp = *vset_->icmp();
    const auto by_smallest = [&icmp](const FileMetaData* a,
                                     const FileMetaData* b) {
      const int r = icmp.Compare(a->smallest.Encode(), b->smallest.Encode());
      return r != 0 ? r < 0 : a->number < b->number;
    };
    const int n = vset_->num_levels();
    // No file may be in two levels: the base has none, so only an added
    // file can be (added to two levels, or where the base still holds it).
    std::unordered_map<uint64_t, int> added_at;
    for (int level = 0; level < n; level++) {
      for (const auto& entry : levels_[level].added) {
        const uint64_t number = entry.first;
        auto [it, inserted] = added_at.emplace(number, level);
        int other = inserted ? BaseLevelOf(number) : it->second;
        if (other == level ||
            (inserted && other >= 0 && levels_[other].deleted.count(number))) {
          other = -1;  // moved here from a level that let it go
        }
        if (other >= 0) {
          return Status::Corruption(
              context_, FileName(number) + " is in both " +
                            LevelName(std::min(other, level)) + " and " +
                            LevelName(std::max(other, level)));
        }
      }
    }
    std::vector<std::vector<FileMetaData*>> result(n);
    for (int level = 0; level < n; level++) {
      const std::vector<FileMetaData*>& base_files = base_->files_[level];
      LevelState& ls = levels_[level];
      std::vector<FileMetaData*>& out = result[level];
      if (ls.deleted.empty() && ls.added.empty()) {
        out = base_files;  // untouched: still sorted and valid
        continue;
      }
      std::vector<FileMetaData*> kept;
      kept.reserve(base_files.size());
      for (FileMetaData* f : base_files) {
        if (ls.deleted.count(f->number) == 0) kept.push_back(f);
      }
      std::vector<FileMetaData*> added;
      added.reserve(ls.added.size());
      for (auto& entry : ls.added) added.push_back(entry.second);
      if (level == 0) {
        out = std::move(kept);
        out.insert(out.end(), added.begin(), added.end());
        std::sort(out.begin(), out.end(), &NewestFirst);
        continue;
      }
      std::sort(added.begin(), added.end(), by_smallest);
      out.reserve(kept.size() + added.size());
      std::vector<size_t> placed;  // where the added files went in out
      placed.reserve(added.size());
      auto from = kept.begin();
      for (FileMetaData* f : added) {
        const auto to = std::upper_bound(from, kept.end(), f, by_smallest);
        out.insert(out.end(), from, to);
        placed.push_back(out.size());
        out.push_back(f);
        from = to;
      }
      out.insert(out.end(), from, kept.end());
      // Removing files leaves the rest apart; an added file must keep
      // apart from its neighbours.
      for (const size_t i : placed) {
        for (size_t j = std::max<size_t>(i, 1); j <= i + 1 && j < out.size();
             j++) {
          if (icmp.Compare(out[j - 1]->largest.Encode(),
                           out[j]->smallest.Encode()) >= 0) {
            return Status::Corruption(
                context_, "files " + FileName(out[j - 1]->number) + " and " +
                              FileName(out[j]->number) + " overlap in " +
                              LevelName(level));
          }
        }
      }
    }
    for (int level = 0; level < n; level++) {
      for (FileMetaData* f : result[level]) f->refs++;
      v->files_[level] = std::move(result[level]);
    }
    return Status::OK();
  }

 private:
  struct LevelState {
    std::set<uint64_t> deleted;               // base files removed
    std::map<uint64_t, FileMetaData*> added;  // files added, by number
  };

  static void Unref(FileMetaData* f) {
    if (--f->refs == 0) delete f;
  }

  // The level of the base Version that holds number, or -1.
  int BaseLevelOf(uint64_t number) {
    if (!base_indexed_) {
      // Built on first use, once: sorting numbers costs less than hashing
      // them one by one.
      for (int level = 0; level < vset_->num_levels(); level++) {
        for (const FileMetaData* f : base_->files_[level]) {
          base_index_.emplace_back(f->number, level);
        }
      }
      std::sort(base_index_.begin(), base_index_.end());
      base_indexed_ = true;
    }
    const auto it = std::lower_bound(base_index_.begin(), base_index_.end(),
                                     std::make_pair(number, -1));
    return it != base_index_.end() && it->first == number ? it->second : -1;
  }

  // Whether level of the base holds number and no edit applied so far
  // deleted it.
  bool InBase(int level, uint64_t number) {
    return BaseLevelOf(number) == level &&
           levels_[level].deleted.count(number) == 0;
  }

  Status BadLevel(int level, uint64_t number) const {
    // The database was made with more levels than options.num_levels
    // allows: the caller's options, not the data, are wrong.
    return Status::InvalidArgument(
        context_, FileName(number) + " is at " + LevelName(level) +
                      " but options.num_levels is " +
                      std::to_string(vset_->num_levels()));
  }

  VersionSet* const vset_;
  Version* const base_;
  const std::string context_;
  std::vector<LevelState> levels_;
  // Every file of base_, as (number, level), by number (BaseLevelOf).
  std::vector<std::pair<uint64_t, int>> base_index_;
  bool base_indexed_ = false;
};

// ---------------------------------------------------------------- VersionSet

// A LogAndApply call waiting for (or at) the front of the queue.
struct VersionSet::QueuedEdit {
  QueuedEdit(VersionEdit* e, Mutex* mu) : edit(e), cv(mu) {}
  VersionEdit* const edit;
  CondVar cv;  // signalled when this call reaches the front of queue_
};

VersionSet::VersionSet(const std::string& dbname, const Options* options,
                       const EnvOptions& env_options, TableCache* table_cache,
                       const InternalKeyComparator* icmp)
    : env_(options->env),
      dbname_(dbname),
      options_(options),
      env_options_(env_options),
      table_cache_(table_cache),
      icmp_(icmp),
      num_levels_(options->num_levels),
      picker_(new CompactionPicker(this)),
      compact_cursors_(options->num_levels),
      dummy_versions_(new Version(this)) {
  Version* v = new Version(this);
  v->ComputeCompactionScore();
  AppendVersion(v);
}

VersionSet::~VersionSet() {
  current_->Unref();
  assert(dummy_versions_->next_ == dummy_versions_);  // no live Version left
  delete dummy_versions_;
  if (manifest_file_ != nullptr) {
    manifest_log_.reset();
    // Everything logged was synced before it was installed; a failing
    // close loses nothing.
    manifest_file_->Close().IgnoreError();
  }
}

void VersionSet::AppendVersion(Version* v) {
  assert(v->refs_ == 0);
  assert(v != current_);
  if (current_ != nullptr) current_->Unref();
  current_ = v;
  v->Ref();
  v->prev_ = dummy_versions_->prev_;
  v->next_ = dummy_versions_;
  v->prev_->next_ = v;
  v->next_->prev_ = v;
}

void VersionSet::ReuseFileNumber(uint64_t n) {
  uint64_t expected = n + 1;
  next_file_number_.compare_exchange_strong(expected, n,
                                            std::memory_order_relaxed);
}

void VersionSet::MarkFileNumberUsed(uint64_t n) {
  uint64_t current = next_file_number_.load(std::memory_order_relaxed);
  while (current <= n && !next_file_number_.compare_exchange_weak(
                             current, n + 1, std::memory_order_relaxed)) {
  }
}

void VersionSet::SetLastSequence(SequenceNumber s) {
  assert(s >= LastSequence());
  last_sequence_.store(s, std::memory_order_release);
}

Status VersionSet::LogAndApply(VersionEdit* edit, Mutex* mu) {
  mu->AssertHeld();
  QueuedEdit w(edit, mu);
  queue_.push_back(&w);
  // One call at a time writes the MANIFEST, in call order.
  while (queue_.front() != &w) w.cv.Wait();
  Status s = ApplyAndLog(edit, mu);
  queue_.pop_front();
  if (!queue_.empty()) queue_.front()->cv.Signal();
  return s;
}

Status VersionSet::ApplyAndLog(VersionEdit* edit, Mutex* mu) {
  mu->AssertHeld();
  if (edit->has_log_number()) {
    assert(edit->log_number() >= log_number_);
    assert(edit->log_number() < NextFileNumber());
  } else {
    edit->SetLogNumber(log_number_);
  }
  const bool new_manifest =
      manifest_log_ == nullptr ||
      manifest_file_size_ >= options_->max_manifest_file_size;
  const uint64_t manifest_number =
      new_manifest ? NewFileNumber() : manifest_file_number_;
  edit->SetNextFile(NextFileNumber());
  edit->SetLastSequence(LastSequence());

  Version* v = new Version(this);
  Status s;
  {
    Builder builder(this, current_, "version edit");
    s = builder.Apply(*edit);
    if (s.ok()) s = builder.SaveTo(v);
  }
  if (!s.ok()) {
    delete v;
    if (new_manifest) ReuseFileNumber(manifest_number);
    return s;
  }
  v->ComputeCompactionScore();

  // Encoded under the mutex: the snapshot reads compact cursors, which the
  // picker moves.
  std::string snapshot;
  if (new_manifest) EncodeSnapshot(&snapshot);
  std::string record;
  edit->EncodeTo(&record);
  const std::string manifest_name = ManifestFileName(dbname_, manifest_number);

  // Only the front of the queue touches the MANIFEST, so it is written
  // without the mutex; current_ cannot change meanwhile.
  mu->Unlock();
  bool current_attempted = false;
  uint64_t manifest_size = 0;
  if (new_manifest) {
    if (manifest_file_ != nullptr) {
      manifest_log_.reset();
      // The old MANIFEST is complete and synced.
      manifest_file_->Close().IgnoreError();
      manifest_file_.reset();
    }
    s = env_->NewWritableFile(manifest_name, &manifest_file_, env_options_);
    if (s.ok()) {
      manifest_log_ = std::make_unique<log::Writer>(manifest_file_.get());
      s = manifest_log_->AddRecord(snapshot);
    }
  }
  if (s.ok()) s = manifest_log_->AddRecord(record);
  if (s.ok()) s = manifest_file_->Sync();
  if (s.ok() && new_manifest) {
    current_attempted = true;
    s = SetCurrentFile(env_, dbname_, manifest_number);
  }
  if (s.ok()) {
    manifest_size = manifest_log_->length();
  } else {
    // The MANIFEST may now end in a partial record: never append to it
    // again; the next call starts a new one.
    manifest_log_.reset();
    if (manifest_file_ != nullptr) {
      // Already failed; a close error adds nothing.
      manifest_file_->Close().IgnoreError();
      manifest_file_.reset();
    }
    if (new_manifest && !current_attempted) {
      // Never named by CURRENT: garbage. (Once the rename may have
      // happened, the file must stay: CURRENT might name it.)
      env_->RemoveFile(manifest_name).IgnoreError();
    }
  }
  mu->Lock();

  if (!s.ok()) {
    delete v;
    return s;
  }
  AppendVersion(v);
  log_number_ = edit->log_number();
  manifest_file_number_ = manifest_number;
  manifest_file_size_ = manifest_size;
  return Status::OK();
}

void VersionSet::EncodeSnapshot(std::string* record) const {
  VersionEdit snapshot;
  snapshot.SetComparatorName(icmp_->user_comparator()->Name());
  snapshot.SetLogNumber(log_number_);
  snapshot.SetNextFile(NextFileNumber());
  snapshot.SetLastSequence(LastSequence());
  for (int level = 0; level < num_levels_; level++) {
    InternalKey cursor;
    if (cursor.DecodeFrom(compact_cursors_[level])) {
      snapshot.SetCompactCursor(level, cursor);
    }
  }
  for (int level = 0; level < num_levels_; level++) {
    for (const FileMetaData* f : current_->files_[level]) {
      snapshot.AddFile(level, *f);
    }
  }
  snapshot.EncodeTo(record);
}

Status VersionSet::ReadCurrentFile(std::string* manifest_name,
                                   uint64_t* number) {
  const std::string current_name = CurrentFileName(dbname_);
  std::string contents;
  Status s = ReadFileToString(env_, current_name, &contents);
  if (!s.ok()) return s;
  if (contents.empty()) return Status::Corruption(current_name, "is empty");
  if (contents.back() != '\n') {
    return Status::Corruption(current_name, "does not end with a newline");
  }
  contents.pop_back();
  FileType type;
  if (!ParseFileName(contents, number, &type) ||
      type != FileType::kManifestFile) {
    return Status::Corruption(current_name, "does not name a MANIFEST: '" +
                                                Printable(contents) + "'");
  }
  *manifest_name = contents;
  return Status::OK();
}

Status VersionSet::Recover(bool* save_manifest) {
  *save_manifest = false;
  std::string manifest_name;
  uint64_t manifest_number = 0;
  Status s = ReadCurrentFile(&manifest_name, &manifest_number);
  if (!s.ok()) return s;

  std::unique_ptr<SequentialFile> file;
  s = env_->NewSequentialFile(dbname_ + "/" + manifest_name, &file,
                              env_options_);
  if (s.IsNotFound()) {
    return Status::Corruption(CurrentFileName(dbname_),
                              "names " + manifest_name + ", which is missing");
  }
  if (!s.ok()) return s;

  bool have_log_number = false;
  bool have_next_file = false;
  bool have_last_sequence = false;
  uint64_t log_number = 0;
  uint64_t next_file = 0;
  SequenceNumber last_sequence = 0;
  const char* const our_comparator = icmp_->user_comparator()->Name();

  Builder builder(this, current_, manifest_name);
  ManifestReporter reporter;
  log::Reader reader(file.get(), &reporter, /*checksum=*/true,
                     /*initial_offset=*/0);
  Slice record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    // Damage before this record was reported before it was returned: stop
    // with the edits before the damage applied.
    if (!reporter.status.ok()) break;
    VersionEdit edit;
    s = edit.DecodeFrom(record);
    if (!s.ok()) {
      s = Status::Corruption(manifest_name,
                             s.message() + " at offset " +
                                 std::to_string(reader.LastRecordOffset()));
      break;
    }
    if (edit.has_comparator() && edit.comparator() != our_comparator) {
      s = Status::InvalidArgument(
          "comparator mismatch: the database was created with '" +
          Printable(edit.comparator()) + "' but options.comparator is '" +
          our_comparator + "'");
      break;
    }
    s = builder.Apply(edit);
    if (!s.ok()) break;
    for (const auto& [level, key] : edit.compact_cursors()) {
      if (level < num_levels_)
        compact_cursors_[level] = key.Encode().ToString();
    }
    if (edit.has_log_number()) {
      log_number = edit.log_number();
      have_log_number = true;
    }
    if (edit.has_next_file_number()) {
      next_file = edit.next_file_number();
      have_next_file = true;
    }
    if (edit.has_last_sequence()) {
      last_sequence = edit.last_sequence();
      have_last_sequence = true;
    }
  }
  if (s.ok() && !reporter.status.ok()) {
    s = reporter.status.WithContext(manifest_name);
  }
  if (s.ok()) {
    if (!have_next_file) {
      s = Status::Corruption(manifest_name, "no next file number entry");
    } else if (!have_log_number) {
      s = Status::Corruption(manifest_name, "no log number entry");
    } else if (!have_last_sequence) {
      s = Status::Corruption(manifest_name, "no last sequence entry");
    }
  }
  if (!s.ok()) return s;

  Version* v = new Version(this);
  s = builder.SaveTo(v);
  if (!s.ok()) {
    delete v;
    return s;
  }
  v->ComputeCompactionScore();
  AppendVersion(v);
  if (reporter.torn_tail) {
    Log(InfoLogLevel::kWarn, options_->info_log.get(),
        "%s: dropped a torn final record", manifest_name.c_str());
  }
  manifest_file_number_ = manifest_number;
  next_file_number_.store(next_file, std::memory_order_relaxed);
  MarkFileNumberUsed(manifest_number);
  MarkFileNumberUsed(log_number);
  for (int level = 0; level < num_levels_; level++) {
    for (const FileMetaData* f : v->files_[level]) {
      MarkFileNumberUsed(f->number);
    }
  }
  last_sequence_.store(last_sequence, std::memory_order_release);
  log_number_ = log_number;
  // The old MANIFEST is never appended to: the first LogAndApply writes a
  // fresh, compact one.
  *save_manifest = true;
  return Status::OK();
}

int VersionSet::NumLevelFiles(int level) const {
  return current_->NumFiles(level);
}

uint64_t VersionSet::NumLevelBytes(int level) const {
  return current_->NumLevelBytes(level);
}

void VersionSet::AddLiveFiles(std::set<uint64_t>* live) const {
  for (Version* v = dummy_versions_->next_; v != dummy_versions_;
       v = v->next_) {
    for (const auto& level_files : v->files_) {
      for (const FileMetaData* f : level_files) live->insert(f->number);
    }
  }
}

uint64_t VersionSet::ApproximateOffsetOf(Version* v, const InternalKey& key) {
  uint64_t result = 0;
  for (int level = 0; level < v->num_levels(); level++) {
    for (const FileMetaData* f : v->files_[level]) {
      if (icmp_->Compare(f->largest.Encode(), key.Encode()) <= 0) {
        result += f->file_size;  // entirely before key
      } else if (icmp_->Compare(f->smallest.Encode(), key.Encode()) > 0) {
        // Entirely after key. Levels >= 1 are sorted: so are the rest.
        if (level > 0) break;
      } else {
        Cache::Handle* handle = nullptr;
        if (table_cache_->FindTable(f->number, f->file_size, &handle).ok()) {
          result +=
              table_cache_->GetTable(handle)->ApproximateOffsetOf(key.Encode());
          table_cache_->Release(handle);
        }
      }
    }
  }
  return result;
}

std::string VersionSet::LevelSummary() const {
  std::string r = "files[";
  for (int level = 0; level < num_levels_; level++) {
    r.append(" ").append(std::to_string(current_->NumFiles(level)));
  }
  r.append(" ]");
  return r;
}

Iterator* VersionSet::MakeInputIterator(Compaction* c,
                                        bool include_output_level) {
  ReadOptions options;
  options.verify_checksums = true;
  options.fill_cache = false;
  std::vector<Iterator*> list;
  for (int which = 0; which < (include_output_level ? 2 : 1); which++) {
    const std::vector<FileMetaData*>& files = c->inputs(which);
    if (files.empty()) continue;
    const int level = which == 0 ? c->level() : c->output_level();
    if (level == 0) {
      for (const FileMetaData* f : files) {
        list.push_back(table_cache_->NewIterator(options, *f, nullptr,
                                                 /*for_compaction=*/true));
      }
    } else {
      list.push_back(NewTwoLevelIterator(
          new LevelFileNumIterator(*icmp_, &files),
          &GetFileIteratorForCompaction, table_cache_, options));
    }
  }
  return NewMergingIterator(icmp_, list.data(), static_cast<int>(list.size()));
}

bool VersionSet::PendingEditsOverlap(int level, const Slice& smallest_user_key,
                                     const Slice& largest_user_key) const {
  const Comparator* ucmp = icmp_->user_comparator();
  for (const QueuedEdit* w : queue_) {
    for (const auto& [file_level, f] : w->edit->new_files()) {
      if (level >= 0 && file_level != level) continue;
      if (f.smallest.empty() || f.largest.empty()) continue;  // rejected later
      if (ucmp->Compare(f.largest.user_key(), smallest_user_key) >= 0 &&
          ucmp->Compare(f.smallest.user_key(), largest_user_key) <= 0) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace cascadedb

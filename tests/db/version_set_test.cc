// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/version_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/env.h"
#include "db/compaction.h"
#include "db/compaction_picker.h"
#include "db/filename.h"
#include "db/log_writer.h"
#include "db/table_cache.h"
#include "table/merging_iterator.h"
#include "table/table_builder.h"
#include "tests/testutil/test_util.h"
#include "util/fault_injection_env.h"
#include "util/mutex.h"
#include "util/random.h"
#include "util/writable_file_wrapper.h"

namespace cascadedb {
namespace {

struct Entry {
  std::string key;
  SequenceNumber seq;
  ValueType type;
  std::string value;
};

// An Env whose MANIFEST syncs can be held, to look at the state while a
// LogAndApply is in the middle of writing.
class BlockingEnv : public EnvWrapper {
 public:
  BlockingEnv() : EnvWrapper(Env::Default()) {}

  Status NewWritableFile(const std::string& f, std::unique_ptr<WritableFile>* r,
                         const EnvOptions& o) override {
    Status s = EnvWrapper::NewWritableFile(f, r, o);
    if (s.ok() && f.find("MANIFEST-") != std::string::npos) {
      *r = std::make_unique<File>(this, std::move(*r));
    }
    return s;
  }

  void Block() {
    std::lock_guard<std::mutex> l(mu_);
    blocked_ = true;
  }
  void WaitUntilSyncIsHeld() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [this] { return waiting_; });
  }
  void Unblock() {
    std::lock_guard<std::mutex> l(mu_);
    blocked_ = false;
    cv_.notify_all();
  }

 private:
  class File : public WritableFileWrapper {
   public:
    File(BlockingEnv* env, std::unique_ptr<WritableFile> target)
        : WritableFileWrapper(std::move(target)), env_(env) {}
    Status Sync() override {
      env_->HoldIfBlocked();
      return WritableFileWrapper::Sync();
    }
    Status Fsync() override {
      env_->HoldIfBlocked();
      return WritableFileWrapper::Fsync();
    }

   private:
    BlockingEnv* const env_;
  };

  void HoldIfBlocked() {
    std::unique_lock<std::mutex> l(mu_);
    waiting_ = true;
    cv_.notify_all();
    cv_.wait(l, [this] { return !blocked_; });
    waiting_ = false;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool blocked_ = false;
  bool waiting_ = false;
};

class VersionSetTest : public ::testing::Test {
 protected:
  VersionSetTest() : icmp_(BytewiseComparator()) {
    options_.env = &env_;
    options_.num_levels = 7;
    options_.target_file_size_base = 1000;
    table_options_.comparator = &icmp_;
    table_options_.key_format = InternalKeyFormat::Get();
    table_options_.compression = kNoCompression;
    table_cache_ = std::make_unique<TableCache>(
        dir_.path(), &env_, EnvOptions(), table_options_, 1000);
    NewVersionSet();
  }

  ~VersionSetTest() override {
    MutexLock l(&mu_);
    vset_.reset();
  }

  void NewVersionSet() {
    MutexLock l(&mu_);
    vset_ = std::make_unique<VersionSet>(dir_.path(), &options_, EnvOptions(),
                                         table_cache_.get(), &icmp_);
    vset_->MarkFileNumberUsed(1000);  // test files use smaller numbers
  }

  Status Apply(VersionEdit* edit) {
    MutexLock l(&mu_);
    return vset_->LogAndApply(edit, &mu_);
  }

  // A fresh VersionSet recovered from the directory.
  Status Reopen() {
    NewVersionSet();
    bool save_manifest = false;
    Status s = vset_->Recover(&save_manifest);
    if (s.ok()) {
      EXPECT_TRUE(save_manifest);
    }
    return s;
  }

  // Metadata for a file that does not exist (enough for everything but
  // reads).
  static FileMetaData FakeFile(uint64_t number, const std::string& smallest,
                               const std::string& largest,
                               SequenceNumber seq = 1, uint64_t size = 100) {
    FileMetaData f;
    f.number = number;
    f.file_size = size;
    f.smallest = InternalKey(smallest, seq, kTypeValue);
    f.largest = InternalKey(largest, seq, kTypeValue);
    f.smallest_seqno = seq;
    f.largest_seqno = seq;
    return f;
  }

  // Writes a real table holding entries and returns its metadata.
  FileMetaData BuildTable(uint64_t number, std::vector<Entry> entries) {
    std::sort(
        entries.begin(), entries.end(), [this](const Entry& a, const Entry& b) {
          return icmp_.Compare(InternalKey(a.key, a.seq, a.type).Encode(),
                               InternalKey(b.key, b.seq, b.type).Encode()) < 0;
        });
    std::unique_ptr<WritableFile> file;
    EXPECT_OK(env_.NewWritableFile(TableFileName(dir_.path(), number), &file,
                                   EnvOptions()));
    TableBuilder builder(table_options_, file.get());
    FileMetaData f;
    f.number = number;
    for (const Entry& e : entries) {
      const InternalKey key(e.key, e.seq, e.type);
      builder.Add(key.Encode(), e.value);
      if (f.smallest.empty()) f.smallest = key;
      f.largest = key;
      f.smallest_seqno = std::min(f.smallest_seqno, e.seq);
      f.largest_seqno = std::max(f.largest_seqno, e.seq);
    }
    EXPECT_OK(builder.Finish());
    EXPECT_OK(file->Sync());
    EXPECT_OK(file->Close());
    f.file_size = builder.FileSize();
    return f;
  }

  // The file numbers of level in the current Version: "11,12".
  std::string Files(int level) {
    MutexLock l(&mu_);
    std::string r;
    for (const FileMetaData* f : vset_->current()->files(level)) {
      if (!r.empty()) r += ",";
      r += std::to_string(f->number);
    }
    return r;
  }

  // The value of key as of seq, "NOT_FOUND", or the error.
  std::string Get(const std::string& key, SequenceNumber seq,
                  bool* found = nullptr) {
    Version* v;
    {
      MutexLock l(&mu_);
      v = vset_->current();
      v->Ref();
    }
    std::string value;
    const LookupKey lkey(key, seq);
    Status s = v->Get(ReadOptions(), lkey, &value, found);
    {
      MutexLock l(&mu_);
      v->Unref();
    }
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return s.ToString();
    return value;
  }

  std::string ManifestPath() {
    return ManifestFileName(dir_.path(), vset_->ManifestFileNumber());
  }

  test::TempDir dir_;
  FaultInjectionEnv env_{Env::Default()};
  Options options_;
  InternalKeyComparator icmp_;
  TableOptions table_options_;
  std::unique_ptr<TableCache> table_cache_;
  Mutex mu_;
  std::unique_ptr<VersionSet> vset_;
};

// ---------------------------------------------------------------- MANIFEST

TEST_F(VersionSetTest, LogAndApplyThenRecoverRestoresTheFileSet) {
  VersionEdit e1;
  e1.SetLogNumber(5);
  e1.AddFile(0, FakeFile(11, "a", "m", 40));
  e1.AddFile(1, FakeFile(12, "a", "f", 20));
  e1.AddFile(1, FakeFile(13, "g", "p", 21));
  e1.AddFile(3, FakeFile(14, "b", "z", 2, 5000));
  vset_->SetLastSequence(500);
  ASSERT_OK(Apply(&e1));
  VersionEdit e2;
  e2.SetLogNumber(9);
  e2.RemoveFile(1, 12);
  e2.AddFile(2, FakeFile(15, "a", "f", 20));
  ASSERT_OK(Apply(&e2));
  EXPECT_EQ(vset_->NextFileNumber(), e2.next_file_number());  // filled in
  EXPECT_EQ(500u, e2.last_sequence());
  const uint64_t next_file = vset_->NextFileNumber();

  ASSERT_OK(Reopen());
  EXPECT_EQ("11", Files(0));
  EXPECT_EQ("13", Files(1));
  EXPECT_EQ("15", Files(2));
  EXPECT_EQ("14", Files(3));
  EXPECT_EQ(9u, vset_->LogNumber());
  EXPECT_EQ(500u, vset_->LastSequence());
  EXPECT_GE(vset_->NextFileNumber(), next_file);
  EXPECT_GT(vset_->NextFileNumber(), vset_->ManifestFileNumber());
  MutexLock l(&mu_);
  const FileMetaData* f = vset_->current()->files(3)[0];
  EXPECT_EQ(5000u, f->file_size);
  EXPECT_EQ("b", f->smallest.user_key().ToString());
  EXPECT_EQ("z", f->largest.user_key().ToString());
  EXPECT_EQ(2u, f->smallest_seqno);
  EXPECT_EQ(2u, f->largest_seqno);
  EXPECT_EQ("files[ 1 1 1 1 0 0 0 ]", vset_->LevelSummary());
}

TEST_F(VersionSetTest, L0IsOrderedNewestFirst) {
  VersionEdit edit;
  edit.AddFile(0, FakeFile(11, "a", "z", 5));
  edit.AddFile(0, FakeFile(12, "a", "z", 9));
  edit.AddFile(0, FakeFile(13, "a", "z", 7));
  ASSERT_OK(Apply(&edit));
  EXPECT_EQ("12,13,11", Files(0));
  ASSERT_OK(Reopen());
  EXPECT_EQ("12,13,11", Files(0));
}

TEST_F(VersionSetTest, ManifestRollsOverWhenTooLarge) {
  options_.max_manifest_file_size = 1024;
  std::set<uint64_t> manifests;
  const std::string pad(150, 'p');
  for (int i = 0; i < 30; i++) {
    VersionEdit edit;
    char key[16];
    std::snprintf(key, sizeof(key), "%03d", i);
    edit.AddFile(1, FakeFile(100 + i, key + pad + "a", key + pad + "b"));
    ASSERT_OK(Apply(&edit));
    manifests.insert(vset_->ManifestFileNumber());
    MutexLock l(&mu_);
    // A new MANIFEST starts with a snapshot, so it can pass the limit
    // once; it is replaced at the next edit.
    EXPECT_LT(vset_->ManifestFileSize(), 2 * 1024u + 30 * 400u);
  }
  EXPECT_GE(manifests.size(), 3u);
  std::string current;
  ASSERT_OK(ReadFileToString(&env_, CurrentFileName(dir_.path()), &current));
  EXPECT_EQ(ManifestPath().substr(dir_.path().size() + 1) + "\n", current);
  ASSERT_OK(Reopen());
  MutexLock l(&mu_);
  EXPECT_EQ(30, vset_->NumLevelFiles(1));
}

TEST_F(VersionSetTest, TornManifestTailIsTolerated) {
  VersionEdit e1;
  e1.AddFile(1, FakeFile(11, "a", "b"));
  ASSERT_OK(Apply(&e1));
  VersionEdit e2;
  e2.AddFile(1, FakeFile(12, "c", "d"));
  ASSERT_OK(Apply(&e2));
  // A crash in the middle of appending e2 leaves part of its record.
  const std::string path = ManifestPath();
  std::string contents;
  ASSERT_OK(ReadFileToString(&env_, path, &contents));
  contents.resize(contents.size() - 5);
  ASSERT_OK(WriteStringToFile(&env_, contents, path));

  ASSERT_OK(Reopen());
  EXPECT_EQ("11", Files(1));
}

TEST_F(VersionSetTest, DamagedManifestRecordIsCorruption) {
  VersionEdit e1;
  e1.AddFile(1, FakeFile(11, "a", "b"));
  ASSERT_OK(Apply(&e1));
  uint64_t e2_start;
  {
    MutexLock l(&mu_);
    e2_start = vset_->ManifestFileSize();
  }
  VersionEdit e2;
  e2.AddFile(1, FakeFile(12, "c", "d"));
  ASSERT_OK(Apply(&e2));
  VersionEdit e3;
  e3.AddFile(1, FakeFile(13, "e", "f"));
  ASSERT_OK(Apply(&e3));
  const std::string path = ManifestPath();
  const std::string name = path.substr(dir_.path().size() + 1);
  std::string contents;
  ASSERT_OK(ReadFileToString(&env_, path, &contents));
  contents[e2_start + 10] ^= 0x40;  // inside e2's payload
  ASSERT_OK(WriteStringToFile(&env_, contents, path));

  Status s = Reopen();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(name)) << s.ToString();
  EXPECT_NE(std::string::npos,
            s.ToString().find("offset " + std::to_string(e2_start)))
      << s.ToString();
}

TEST_F(VersionSetTest, BadCurrentFileIsCorruptionNamingIt) {
  VersionEdit edit;
  edit.AddFile(1, FakeFile(11, "a", "b"));
  ASSERT_OK(Apply(&edit));
  const std::string current = CurrentFileName(dir_.path());
  const std::string manifest = ManifestPath().substr(dir_.path().size() + 1);
  for (const std::string& contents :
       {std::string(), manifest, std::string("MANIFEST-009999\n"),
        std::string("garbage\n"), std::string("000011.sst\n")}) {
    SCOPED_TRACE("CURRENT holds '" + contents + "'");
    ASSERT_OK(WriteStringToFile(&env_, contents, current));
    Status s = Reopen();
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find(current)) << s.ToString();
  }
  ASSERT_OK(WriteStringToFile(&env_, manifest + "\n", current));
  ASSERT_OK(Reopen());
  EXPECT_EQ("11", Files(1));
}

TEST_F(VersionSetTest, MissingCurrentIsNotFound) {
  Status s = Reopen();
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
}

TEST_F(VersionSetTest, ComparatorMismatchIsInvalidArgument) {
  VersionEdit edit;
  edit.AddFile(1, FakeFile(11, "a", "b"));
  ASSERT_OK(Apply(&edit));
  const InternalKeyComparator reverse_icmp(test::ReverseBytewiseComparator());
  MutexLock l(&mu_);
  VersionSet other(dir_.path(), &options_, EnvOptions(), table_cache_.get(),
                   &reverse_icmp);
  bool save_manifest;
  Status s = other.Recover(&save_manifest);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(BytewiseComparator()->Name()))
      << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("test.ReverseComparator"))
      << s.ToString();
}

TEST_F(VersionSetTest, ManifestWithoutRequiredFieldsIsCorruption) {
  // A MANIFEST written by hand, with no next file number or last sequence.
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(env_.NewWritableFile(ManifestFileName(dir_.path(), 5), &file,
                                 EnvOptions()));
  log::Writer writer(file.get());
  VersionEdit edit;
  edit.SetComparatorName(BytewiseComparator()->Name());
  edit.SetLogNumber(3);
  std::string record;
  edit.EncodeTo(&record);
  ASSERT_OK(writer.AddRecord(record));
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->Close());
  ASSERT_OK(SetCurrentFile(&env_, dir_.path(), 5));

  Status s = Reopen();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("MANIFEST-000005"))
      << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("next file number"))
      << s.ToString();
}

TEST_F(VersionSetTest, FileBeyondNumLevelsIsInvalidArgument) {
  VersionEdit edit;
  edit.AddFile(5, FakeFile(11, "a", "b"));
  ASSERT_OK(Apply(&edit));
  options_.num_levels = 4;
  Status s = Reopen();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("num_levels")) << s.ToString();
}

TEST_F(VersionSetTest, ConcurrentLogAndApplyKeepsEveryEdit) {
  constexpr int kThreads = 3;
  constexpr int kEditsPerThread = 20;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < kEditsPerThread; i++) {
        VersionEdit edit;
        const uint64_t number = 100 + t * 100 + i;
        // Disjoint key ranges per edit, at level 1 so they must not
        // overlap anything applied before or after.
        const std::string key = std::to_string(number);
        edit.AddFile(1, FakeFile(number, key + "a", key + "b"));
        if (i > 0) edit.RemoveFile(1, number - 1);
        edit.AddFile(2, FakeFile(number + 50, key + "a", key + "b"));
        MutexLock l(&mu_);
        Status s = vset_->LogAndApply(&edit, &mu_);
        EXPECT_OK(s);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ("119,219,319", Files(1));
  {
    MutexLock l(&mu_);
    EXPECT_EQ(kThreads * kEditsPerThread, vset_->NumLevelFiles(2));
  }
  ASSERT_OK(Reopen());
  EXPECT_EQ("119,219,319", Files(1));
  MutexLock l(&mu_);
  EXPECT_EQ(kThreads * kEditsPerThread, vset_->NumLevelFiles(2));
}

TEST_F(VersionSetTest,
       FailedManifestSyncInstallsNothingAndNextCallStartsFresh) {
  VersionEdit e1;
  e1.AddFile(1, FakeFile(11, "a", "b"));
  ASSERT_OK(Apply(&e1));
  const uint64_t first_manifest = vset_->ManifestFileNumber();

  env_.SetFailAll(FaultKind::kSync, true);
  VersionEdit e2;
  e2.AddFile(1, FakeFile(12, "c", "d"));
  Status s = Apply(&e2);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ("11", Files(1));
  EXPECT_EQ(first_manifest, vset_->ManifestFileNumber());

  env_.SetFailAll(FaultKind::kSync, false);
  VersionEdit e3;
  e3.AddFile(1, FakeFile(13, "e", "f"));
  ASSERT_OK(Apply(&e3));
  EXPECT_NE(first_manifest, vset_->ManifestFileNumber());
  EXPECT_EQ("11,13", Files(1));
  // The failed edit may sit in the old MANIFEST, but CURRENT names the
  // new one, which does not hold it.
  ASSERT_OK(Reopen());
  EXPECT_EQ("11,13", Files(1));
}

TEST_F(VersionSetTest, FailedCurrentRenameInstallsNothing) {
  env_.SetFailNthRename(0);
  VersionEdit e1;
  e1.AddFile(1, FakeFile(11, "a", "b"));
  Status s = Apply(&e1);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ("", Files(1));
  VersionEdit e2;
  e2.AddFile(1, FakeFile(12, "c", "d"));
  ASSERT_OK(Apply(&e2));
  ASSERT_OK(Reopen());
  EXPECT_EQ("12", Files(1));
}

TEST_F(VersionSetTest, EditDeletingAMissingFileIsRejected) {
  VersionEdit e1;
  e1.AddFile(1, FakeFile(11, "a", "b"));
  ASSERT_OK(Apply(&e1));
  VersionEdit e2;
  e2.RemoveFile(1, 77);
  e2.AddFile(1, FakeFile(12, "c", "d"));
  Status s = Apply(&e2);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("000077.sst")) << s.ToString();
  EXPECT_EQ("11", Files(1));
  VersionEdit e3;
  e3.RemoveFile(1, 11);
  ASSERT_OK(Apply(&e3));
  EXPECT_EQ("", Files(1));
}

TEST_F(VersionSetTest, OverlappingFilesInALevelAreRejected) {
  VersionEdit e1;
  e1.AddFile(1, FakeFile(11, "a", "m"));
  ASSERT_OK(Apply(&e1));
  VersionEdit e2;
  e2.AddFile(1, FakeFile(12, "k", "z"));
  Status s = Apply(&e2);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("000011.sst"));
  EXPECT_NE(std::string::npos, s.ToString().find("000012.sst"));
  EXPECT_EQ("11", Files(1));
  // L0 files may overlap.
  VersionEdit e3;
  e3.AddFile(0, FakeFile(13, "a", "z", 5));
  e3.AddFile(0, FakeFile(14, "b", "y", 6));
  ASSERT_OK(Apply(&e3));
}

TEST_F(VersionSetTest, UserKeySplitAcrossAdjacentFilesIsAllowed) {
  VersionEdit edit;
  FileMetaData f1 = FakeFile(11, "a", "k", 9);
  FileMetaData f2 = FakeFile(12, "k", "m", 5);
  edit.AddFile(1, f1);
  edit.AddFile(1, f2);
  ASSERT_OK(Apply(&edit));
  EXPECT_EQ("11,12", Files(1));
}

TEST_F(VersionSetTest, FileInTwoLevelsIsRejected) {
  VersionEdit edit;
  edit.AddFile(1, FakeFile(11, "a", "b"));
  edit.AddFile(2, FakeFile(11, "a", "b"));
  Status s = Apply(&edit);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  // A trivial move: delete at one level, add at the next.
  VersionEdit add;
  add.AddFile(1, FakeFile(11, "a", "b"));
  ASSERT_OK(Apply(&add));
  VersionEdit move;
  move.RemoveFile(1, 11);
  move.AddFile(2, FakeFile(11, "a", "b"));
  ASSERT_OK(Apply(&move));
  EXPECT_EQ("", Files(1));
  EXPECT_EQ("11", Files(2));
}

TEST_F(VersionSetTest, FileStillInAnotherLevelIsRejected) {
  VersionEdit add;
  add.AddFile(1, FakeFile(11, "a", "b"));
  ASSERT_OK(Apply(&add));
  VersionEdit again;  // added at L2, not deleted from L1
  again.AddFile(2, FakeFile(11, "a", "b"));
  Status s = Apply(&again);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos,
            s.ToString().find("000011.sst is in both level 1 and level 2"))
      << s.ToString();
  VersionEdit up;  // the same, towards a lower level
  up.AddFile(0, FakeFile(11, "a", "b"));
  s = Apply(&up);
  EXPECT_NE(std::string::npos,
            s.ToString().find("000011.sst is in both level 0 and level 1"))
      << s.ToString();
  EXPECT_EQ("11", Files(1));
  EXPECT_EQ("", Files(2));
}

// Files added to a level of many go to their places by smallest key, in
// edits of a few files each, and one that overlaps a neighbour on either
// side (or another added file) is rejected with the level left as it was.
TEST_F(VersionSetTest, AddedFilesTakeTheirPlacesInALargeLevel) {
  Random rnd(301);
  // 200 disjoint ranges [k2i, k2i+1], in a random order.
  std::vector<int> order(200);
  for (int i = 0; i < 200; ++i) order[i] = i;
  for (int i = 199; i > 0; --i) std::swap(order[i], order[rnd.Uniform(i + 1)]);
  auto key = [](int k) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "k%06d", k);
    return std::string(buf);
  };
  uint64_t number = 100;
  std::map<std::string, uint64_t> expected;  // smallest key -> number
  for (size_t next = 0; next < order.size();) {
    VersionEdit edit;
    const size_t batch = 1 + rnd.Uniform(5);
    for (size_t b = 0; b < batch && next < order.size(); ++b, ++next) {
      const int i = order[next];
      edit.AddFile(2, FakeFile(number, key(2 * i * 10), key(2 * i * 10 + 10)));
      expected[key(2 * i * 10)] = number++;
    }
    ASSERT_OK(Apply(&edit));
    std::string want;
    for (const auto& e : expected) {
      if (!want.empty()) want += ",";
      want += std::to_string(e.second);
    }
    ASSERT_EQ(want, Files(2));
  }
  const std::string full = Files(2);
  // Overlapping the file before it (its range ends at k000{20i+10}), the
  // file after it, and a file added with it; each anywhere in the level.
  for (int i : {0, 57, 199}) {
    VersionEdit prev;
    prev.AddFile(2, FakeFile(number++, key(20 * i + 10), key(20 * i + 15)));
    Status s = Apply(&prev);
    EXPECT_TRUE(s.IsCorruption()) << i << ": " << s.ToString();
    VersionEdit next;
    next.AddFile(2, FakeFile(number++, key(20 * i - 5), key(20 * i)));
    s = Apply(&next);
    EXPECT_TRUE(s.IsCorruption()) << i << ": " << s.ToString();
    VersionEdit pair;
    pair.AddFile(2, FakeFile(number++, key(20 * i + 11), key(20 * i + 15)));
    pair.AddFile(2, FakeFile(number++, key(20 * i + 14), key(20 * i + 18)));
    s = Apply(&pair);
    EXPECT_TRUE(s.IsCorruption()) << i << ": " << s.ToString();
    EXPECT_EQ(full, Files(2));
  }
  // Into the gaps, two at a time: both land, in order.
  VersionEdit gaps;
  gaps.AddFile(2, FakeFile(number++, key(20 * 199 + 12), key(20 * 199 + 14)));
  gaps.AddFile(2, FakeFile(number++, key(20 * 57 + 12), key(20 * 57 + 14)));
  ASSERT_OK(Apply(&gaps));
  const std::vector<FileMetaData*>* files = nullptr;
  MutexLock l(&mu_);
  files = &vset_->current()->files(2);
  ASSERT_EQ(202u, files->size());
  for (size_t i = 1; i < files->size(); ++i) {
    EXPECT_LT((*files)[i - 1]->largest.user_key().ToString(),
              (*files)[i]->smallest.user_key().ToString())
        << i;
  }
}

TEST_F(VersionSetTest, AddLiveFilesSeesFilesOfOlderReferencedVersions) {
  VersionEdit e1;
  e1.AddFile(1, FakeFile(11, "a", "b"));
  ASSERT_OK(Apply(&e1));
  Version* old;
  {
    MutexLock l(&mu_);
    old = vset_->current();
    old->Ref();
  }
  VersionEdit e2;
  e2.RemoveFile(1, 11);
  e2.AddFile(2, FakeFile(12, "a", "b"));
  ASSERT_OK(Apply(&e2));
  MutexLock l(&mu_);
  std::set<uint64_t> live;
  vset_->AddLiveFiles(&live);
  EXPECT_EQ((std::set<uint64_t>{11, 12}), live);
  EXPECT_EQ("11", std::to_string(old->files(1)[0]->number));
  old->Unref();
  live.clear();
  vset_->AddLiveFiles(&live);
  EXPECT_EQ((std::set<uint64_t>{12}), live);
}

TEST_F(VersionSetTest, PendingEditsAreVisibleWhileTheManifestIsWritten) {
  BlockingEnv blocking;
  options_.env = &blocking;
  NewVersionSet();
  VersionEdit e1;
  e1.AddFile(1, FakeFile(11, "a", "b"));
  ASSERT_OK(Apply(&e1));

  blocking.Block();
  VersionEdit e2;
  e2.AddFile(2, FakeFile(12, "m", "n"));
  std::thread writer([&] { EXPECT_OK(Apply(&e2)); });
  blocking.WaitUntilSyncIsHeld();
  {
    MutexLock l(&mu_);
    EXPECT_TRUE(vset_->PendingEditsOverlap(2, "k", "m"));
    EXPECT_TRUE(vset_->PendingEditsOverlap(-1, "n", "z"));
    EXPECT_FALSE(vset_->PendingEditsOverlap(1, "k", "m"));
    EXPECT_FALSE(vset_->PendingEditsOverlap(2, "o", "z"));
    // A memtable with these keys must not go below the file being logged.
    EXPECT_EQ(0, vset_->current()->PickLevelForMemTableOutput("m", "m"));
    EXPECT_EQ(2, vset_->current()->PickLevelForMemTableOutput("x", "y"));
  }
  blocking.Unblock();
  writer.join();
  MutexLock l(&mu_);
  EXPECT_FALSE(vset_->PendingEditsOverlap(-1, "a", "z"));
  vset_.reset();  // before blocking goes away
}

// ---------------------------------------------------------------- reads

class VersionGetTest : public VersionSetTest {
 protected:
  VersionGetTest() {
    VersionEdit edit;
    // L0, newest first: 25 (seq 40), 26 (35), 21 (30-31), 24 (25).
    edit.AddFile(0, BuildTable(21, {{"a", 30, kTypeDeletion, ""},
                                    {"b", 31, kTypeValue, "b-new"}}));
    edit.AddFile(0, BuildTable(24, {{"c", 25, kTypeValue, "c-l0"}}));
    edit.AddFile(0, BuildTable(26, {{"e", 35, kTypeValue, "e-old"}}));
    edit.AddFile(0, BuildTable(25, {{"e", 40, kTypeValue, "e-new"}}));
    edit.AddFile(1, BuildTable(22, {{"a", 20, kTypeValue, "a1"},
                                    {"c", 21, kTypeValue, "c1"}}));
    // One user key split across two adjacent L1 files.
    edit.AddFile(1, BuildTable(41, {{"k", 9, kTypeValue, "k9"}}));
    edit.AddFile(1, BuildTable(42, {{"k", 5, kTypeValue, "k5"},
                                    {"m", 4, kTypeValue, "m4"}}));
    edit.AddFile(2, BuildTable(23, {{"a", 10, kTypeValue, "a0"},
                                    {"b", 12, kTypeValue, "b-old"},
                                    {"d", 11, kTypeValue, "d0"}}));
    EXPECT_OK(Apply(&edit));
  }
};

TEST_F(VersionGetTest, NewestVisibleEntryWins) {
  bool found = false;
  EXPECT_EQ("NOT_FOUND", Get("a", 100, &found));  // deleted in L0
  EXPECT_TRUE(found);
  EXPECT_EQ("a1", Get("a", 29));  // snapshot before the deletion
  EXPECT_EQ("a0", Get("a", 15));
  EXPECT_EQ("NOT_FOUND", Get("a", 5, &found));  // before any version
  EXPECT_FALSE(found);
  EXPECT_EQ("b-new", Get("b", 100, &found));
  EXPECT_TRUE(found);
  EXPECT_EQ("b-old", Get("b", 30));
  EXPECT_EQ("c-l0", Get("c", 100));
  EXPECT_EQ("c1", Get("c", 24));
  EXPECT_EQ("d0", Get("d", 100));
  EXPECT_EQ("NOT_FOUND", Get("z", 100, &found));
  EXPECT_FALSE(found);
}

TEST_F(VersionGetTest, L0FilesAreSearchedNewestFirst) {
  EXPECT_EQ("e-new", Get("e", 100));
  EXPECT_EQ("e-old", Get("e", 39));
  EXPECT_EQ("NOT_FOUND", Get("e", 34));
}

TEST_F(VersionGetTest, UserKeySpanningTwoFilesIsFoundInEither) {
  EXPECT_EQ("k9", Get("k", 100));
  EXPECT_EQ("k5", Get("k", 8));
  EXPECT_EQ("NOT_FOUND", Get("k", 4));
  EXPECT_EQ("m4", Get("m", 4));
}

TEST_F(VersionGetTest, MissingFileIsAnErrorNotAMissingKey) {
  VersionEdit edit;
  edit.AddFile(3, FakeFile(30, "x", "y"));
  ASSERT_OK(Apply(&edit));
  const std::string r = Get("x", 100);
  EXPECT_NE(std::string::npos, r.find("Corruption")) << r;
  EXPECT_NE(std::string::npos, r.find("000030.sst")) << r;
  EXPECT_EQ("a1", Get("a", 29));
}

TEST_F(VersionGetTest, AddIteratorsCoversEveryFile) {
  Version* v;
  {
    MutexLock l(&mu_);
    v = vset_->current();
    v->Ref();
  }
  std::vector<Iterator*> iters;
  v->AddIterators(ReadOptions(), &iters);
  EXPECT_EQ(4u + 2u, iters.size());  // 4 L0 files, levels 1 and 2
  std::unique_ptr<Iterator> merged(
      NewMergingIterator(&icmp_, iters.data(), static_cast<int>(iters.size())));
  std::string keys;
  for (merged->SeekToFirst(); merged->Valid(); merged->Next()) {
    ParsedInternalKey p;
    ASSERT_OK(ParseInternalKey(merged->key(), &p));
    keys += p.user_key.ToString() + std::to_string(p.sequence) + " ";
  }
  ASSERT_OK(merged->status());
  EXPECT_EQ("a30 a20 a10 b31 b12 c25 c21 d11 e40 e35 k9 k5 m4 ", keys);
  // Backward over the concatenated levels too.
  std::string backward;
  for (merged->SeekToLast(); merged->Valid(); merged->Prev()) {
    backward += ExtractUserKey(merged->key()).ToString();
  }
  EXPECT_EQ("mkkeedccbbaaa", backward);
  merged.reset();
  MutexLock l(&mu_);
  v->Unref();
}

TEST_F(VersionGetTest, ConcatenatingIteratorSeeks) {
  Version* v;
  {
    MutexLock l(&mu_);
    v = vset_->current();
    v->Ref();
  }
  std::unique_ptr<Iterator> it(v->NewConcatenatingIterator(ReadOptions(), 1));
  it->Seek(InternalKey("d", kMaxSequenceNumber, kValueTypeForSeek).Encode());
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("k", ExtractUserKey(it->key()).ToString());
  it->SeekForPrev(InternalKey("j", 0, kTypeDeletion).Encode());
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("c", ExtractUserKey(it->key()).ToString());
  it->Seek(InternalKey("k", 7, kValueTypeForSeek).Encode());
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(InternalKey("k", 5, kTypeValue).Encode(), it->key());
  it->Seek(InternalKey("n", kMaxSequenceNumber, kValueTypeForSeek).Encode());
  EXPECT_FALSE(it->Valid());
  ASSERT_OK(it->status());
  it.reset();
  MutexLock l(&mu_);
  v->Unref();
}

TEST_F(VersionSetTest, ApproximateOffsetOfGrowsWithTheKey) {
  std::vector<Entry> entries;
  for (int i = 0; i < 300; i++) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%03d", i);
    entries.push_back({key, 1, kTypeValue, std::string(100, 'v')});
  }
  const FileMetaData f = BuildTable(51, entries);
  VersionEdit edit;
  edit.AddFile(1, f);
  edit.AddFile(2, FakeFile(52, "x", "y", 1, 7777));  // after every key
  ASSERT_OK(Apply(&edit));
  Version* v;
  {
    MutexLock l(&mu_);
    v = vset_->current();
  }
  auto offset = [&](const std::string& key) {
    return vset_->ApproximateOffsetOf(
        v, InternalKey(key, kMaxSequenceNumber, kValueTypeForSeek));
  };
  EXPECT_EQ(0u, offset("a"));
  const uint64_t mid = offset("k150");
  EXPECT_GT(mid, 10000u);
  EXPECT_LT(mid, 25000u);
  EXPECT_LE(offset("k100"), mid);
  EXPECT_LE(mid, offset("k200"));
  EXPECT_EQ(f.file_size, offset("w"));
  EXPECT_EQ(f.file_size + 7777, offset("z"));
}

TEST_F(VersionSetTest, MakeInputIteratorMergesAllInputs) {
  VersionEdit edit;
  edit.AddFile(1, BuildTable(61, {{"a", 5, kTypeValue, "1"},
                                  {"c", 5, kTypeValue, "1"}}));
  edit.AddFile(2, BuildTable(62, {{"b", 1, kTypeValue, "2"},
                                  {"c", 1, kTypeValue, "2"},
                                  {"d", 1, kTypeValue, "2"}}));
  ASSERT_OK(Apply(&edit));
  Compaction* c;
  {
    MutexLock l(&mu_);
    c = vset_->picker()->CompactRange(vset_->current(), 1, nullptr, nullptr);
  }
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(1, c->num_input_files(0));
  EXPECT_EQ(1, c->num_input_files(1));
  std::unique_ptr<Iterator> it(vset_->MakeInputIterator(c));
  std::string keys;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    keys += ExtractUserKey(it->key()).ToString() + it->value().ToString();
  }
  ASSERT_OK(it->status());
  EXPECT_EQ("a1b2c1c2d2", keys);
  it.reset();
  MutexLock l(&mu_);
  delete c;
}

// ---------------------------------------------------------------- file sets

TEST_F(VersionSetTest, GetOverlappingInputsExpandsL0Transitively) {
  VersionEdit edit;
  edit.AddFile(0, FakeFile(1, "a", "c", 4));
  edit.AddFile(0, FakeFile(2, "b", "f", 3));
  edit.AddFile(0, FakeFile(3, "e", "h", 2));
  edit.AddFile(0, FakeFile(4, "x", "z", 1));
  edit.AddFile(1, FakeFile(11, "a", "b"));
  edit.AddFile(1, FakeFile(12, "c", "d"));
  edit.AddFile(1, FakeFile(13, "e", "f"));
  edit.AddFile(1, FakeFile(14, "g", "h"));
  ASSERT_OK(Apply(&edit));
  MutexLock l(&mu_);
  const Version* v = vset_->current();
  auto numbers = [](const std::vector<FileMetaData*>& files) {
    std::vector<uint64_t> r;
    for (const FileMetaData* f : files) r.push_back(f->number);
    std::sort(r.begin(), r.end());
    return r;
  };
  std::vector<FileMetaData*> inputs;
  const InternalKey a("a", kMaxSequenceNumber, kValueTypeForSeek);
  const InternalKey y("y", kMaxSequenceNumber, kValueTypeForSeek);
  const InternalKey c("c", kMaxSequenceNumber, kValueTypeForSeek);
  const InternalKey e("e", 0, kTypeDeletion);
  v->GetOverlappingInputs(0, &a, &a, &inputs);
  EXPECT_EQ((std::vector<uint64_t>{1, 2, 3}), numbers(inputs));
  v->GetOverlappingInputs(0, &y, &y, &inputs);
  EXPECT_EQ((std::vector<uint64_t>{4}), numbers(inputs));
  v->GetOverlappingInputs(1, &c, &e, &inputs);
  EXPECT_EQ((std::vector<uint64_t>{12, 13}), numbers(inputs));
  v->GetOverlappingInputs(1, nullptr, &c, &inputs);
  EXPECT_EQ((std::vector<uint64_t>{11, 12}), numbers(inputs));
  v->GetOverlappingInputs(1, &e, nullptr, &inputs);
  EXPECT_EQ((std::vector<uint64_t>{13, 14}), numbers(inputs));
  v->GetOverlappingInputs(1, nullptr, nullptr, &inputs);
  EXPECT_EQ(4u, inputs.size());
  v->GetOverlappingInputs(1, &y, nullptr, &inputs);
  EXPECT_TRUE(inputs.empty());
}

TEST_F(VersionSetTest, OverlapInLevel) {
  VersionEdit edit;
  edit.AddFile(0, FakeFile(1, "m", "p"));
  edit.AddFile(1, FakeFile(11, "c", "d"));
  edit.AddFile(1, FakeFile(12, "h", "k"));
  ASSERT_OK(Apply(&edit));
  MutexLock l(&mu_);
  const Version* v = vset_->current();
  auto overlap = [v](int level, const char* lo, const char* hi) {
    const Slice s = lo != nullptr ? Slice(lo) : Slice();
    const Slice b = hi != nullptr ? Slice(hi) : Slice();
    return v->OverlapInLevel(level, lo != nullptr ? &s : nullptr,
                             hi != nullptr ? &b : nullptr);
  };
  EXPECT_TRUE(overlap(1, "a", "c"));
  EXPECT_TRUE(overlap(1, "d", "e"));
  EXPECT_FALSE(overlap(1, "e", "g"));
  EXPECT_FALSE(overlap(1, "l", "z"));
  EXPECT_TRUE(overlap(1, nullptr, "c"));
  EXPECT_FALSE(overlap(1, nullptr, "b"));
  EXPECT_TRUE(overlap(1, "k", nullptr));
  EXPECT_TRUE(overlap(0, "a", "m"));
  EXPECT_FALSE(overlap(0, "q", "z"));
  EXPECT_FALSE(overlap(2, nullptr, nullptr));
}

TEST_F(VersionSetTest, PickLevelForMemTableOutput) {
  auto pick = [this](const char* lo, const char* hi) {
    MutexLock l(&mu_);
    return vset_->current()->PickLevelForMemTableOutput(lo, hi);
  };
  EXPECT_EQ(2, pick("a", "z"));  // empty tree
  VersionEdit edit;
  edit.AddFile(0, FakeFile(1, "a", "c"));
  edit.AddFile(1, FakeFile(11, "m", "n"));
  edit.AddFile(2, FakeFile(21, "q", "r"));
  // 11 target files' worth of bytes below level 1.
  edit.AddFile(2, FakeFile(22, "u", "v", 1, 11 * 1000 + 1));
  edit.AddFile(3, FakeFile(31, "g", "h", 1, 11 * 1000 + 1));
  ASSERT_OK(Apply(&edit));
  EXPECT_EQ(0, pick("b", "b"));  // overlaps L0
  EXPECT_EQ(0, pick("n", "o"));  // overlaps L1
  EXPECT_EQ(1, pick("r", "s"));  // overlaps L2
  EXPECT_EQ(0, pick("v", "w"));  // too much overlap with L2 from L1
  EXPECT_EQ(1, pick("g", "g"));  // too much overlap with L3 from L2
  EXPECT_EQ(2, pick("d", "e"));
}

TEST_F(VersionSetTest, PickLevelForMemTableOutputAvoidsRunningOutputs) {
  VersionEdit edit;
  edit.AddFile(0, FakeFile(1, "a", "c", 2));
  edit.AddFile(0, FakeFile(2, "x", "z", 1));
  ASSERT_OK(Apply(&edit));
  MutexLock l(&mu_);
  Version* v = vset_->current();
  Compaction* c = vset_->picker()->CompactRange(v, 0, nullptr, nullptr);
  ASSERT_NE(nullptr, c);
  // "m" overlaps no file, but the compaction writes [a, z] into L1.
  EXPECT_EQ(0, v->PickLevelForMemTableOutput("m", "m"));
  c->ReleaseInputs();
  delete c;
  EXPECT_EQ(2, v->PickLevelForMemTableOutput("m", "m"));
}

TEST_F(VersionSetTest, PickLevelForMemTableOutputStopsAboveTheLastLevel) {
  options_.num_levels = 2;
  NewVersionSet();
  MutexLock l(&mu_);
  EXPECT_EQ(1, vset_->current()->PickLevelForMemTableOutput("a", "b"));
}

TEST_F(VersionSetTest, DebugStringListsFiles) {
  VersionEdit edit;
  edit.AddFile(2, FakeFile(17, "apple", "pear", 3, 4242));
  ASSERT_OK(Apply(&edit));
  MutexLock l(&mu_);
  const std::string s = vset_->current()->DebugString();
  EXPECT_NE(std::string::npos, s.find("--- level 2 ---")) << s;
  EXPECT_NE(std::string::npos, s.find("000017.sst 4242 bytes")) << s;
  EXPECT_NE(std::string::npos, s.find("apple")) << s;
  EXPECT_NE(std::string::npos, s.find("pear")) << s;
}

}  // namespace
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "cascadedb/write_batch.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <string>

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"
#include "db/dbformat.h"
#include "db/memtable.h"
#include "db/write_batch_internal.h"
#include "tests/testutil/test_util.h"
#include "util/coding.h"

// Counts this thread's allocations through operator new (std::string's
// included), for the test that a record grows its batch once.
namespace {
thread_local size_t allocations = 0;
}  // namespace

// (GCC takes the free in a replaced operator delete for a mismatch.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(size_t n) {
  ++allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace cascadedb {
namespace {

// Records the batch's records as text: "Put(k, v)Delete(k)".
class Recorder : public WriteBatch::Handler {
 public:
  void Put(const Slice& key, const Slice& value) override {
    log_ += "Put(" + key.ToString() + ", " + value.ToString() + ")";
  }
  void Delete(const Slice& key) override {
    log_ += "Delete(" + key.ToString() + ")";
  }
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

std::string Records(const WriteBatch& batch) {
  Recorder recorder;
  Status s = batch.Iterate(&recorder);
  if (!s.ok()) return "error: " + s.ToString();
  return recorder.log();
}

// The memtable's contents after inserting batch: "Put(k, v)@seq ...".
std::string AppliedContents(const WriteBatch& batch) {
  InternalKeyComparator cmp(BytewiseComparator());
  MemTable* mem = new MemTable(cmp);
  std::string result;
  Status s = WriteBatchInternal::InsertInto(&batch, mem);
  if (!s.ok()) result = "error: " + s.ToString();
  std::unique_ptr<Iterator> iter(mem->NewIterator());
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    ParsedInternalKey ikey;
    EXPECT_OK(ParseInternalKey(iter->key(), &ikey));
    if (ikey.type == kTypeValue) {
      result += "Put(" + ikey.user_key.ToString() + ", " +
                iter->value().ToString() + ")";
    } else {
      result += "Delete(" + ikey.user_key.ToString() + ")";
    }
    result += "@" + std::to_string(ikey.sequence);
  }
  iter.reset();
  mem->Unref();
  return result;
}

TEST(WriteBatchTest, EmptyBatchHasHeaderOnly) {
  WriteBatch batch;
  EXPECT_EQ(0u, batch.Count());
  EXPECT_EQ(WriteBatchInternal::kHeaderSize, batch.ApproximateSize());
  EXPECT_EQ("", Records(batch));
  EXPECT_EQ("", AppliedContents(batch));
}

TEST(WriteBatchTest, ARecordGrowsTheBatchOnce) {
  // Appended piece by piece, DB::Put's batch (a 16-byte key, a 100-byte
  // value) reallocated three times; each record now makes room for itself
  // in one step, and the room still grows geometrically.
  const std::string key(16, 'k');
  const std::string long_key(40, 'd');
  const std::string value(100, 'v');
  WriteBatch batch;
  size_t before = allocations;
  ASSERT_OK(batch.Put(key, value));
  EXPECT_EQ(1u, allocations - before);
  before = allocations;
  ASSERT_OK(batch.Delete(long_key));
  EXPECT_EQ(1u, allocations - before);
  before = allocations;
  ASSERT_OK(batch.Put(key, value));
  EXPECT_EQ(1u, allocations - before);
  before = allocations;
  for (int i = 0; i < 100; i++) ASSERT_OK(batch.Put(key, value));
  EXPECT_LE(allocations - before, 6u);  // doubling: 100 records, few moves
  EXPECT_EQ(103u, batch.Count());
  EXPECT_EQ("Put(" + key + ", " + value + ")Delete(" + long_key + ")Put(" +
                key + ", " + value + ")",
            Records(batch).substr(0, 2 * (7 + 16 + 100) + 8 + 40));
}

TEST(WriteBatchTest, RecordsRoundTripThroughIterateInOrder) {
  WriteBatch batch;
  ASSERT_OK(batch.Put("foo", "bar"));
  ASSERT_OK(batch.Delete("box"));
  ASSERT_OK(batch.Put("baz", ""));
  ASSERT_OK(batch.Put("", "empty key"));
  EXPECT_EQ(4u, batch.Count());
  EXPECT_EQ("Put(foo, bar)Delete(box)Put(baz, )Put(, empty key)",
            Records(batch));
}

TEST(WriteBatchTest, EncodingMatchesFormatSpec) {
  WriteBatch batch;
  ASSERT_OK(batch.Put("k", "vv"));
  ASSERT_OK(batch.Delete("d"));
  WriteBatchInternal::SetSequence(&batch, 0x0102030405);
  const std::string expected =
      std::string("\x05\x04\x03\x02\x01\x00\x00\x00", 8) +  // sequence
      std::string("\x02\x00\x00\x00", 4) +                  // count
      std::string("\x01\x01k\x02vv", 6) +                   // Put
      std::string(
          "\x00\x01"
          "d",
          3);  // Delete
  EXPECT_EQ(expected, batch.Data());
  EXPECT_EQ(expected.size(), batch.ApproximateSize());
}

TEST(WriteBatchTest, InsertIntoAssignsConsecutiveSequences) {
  WriteBatch batch;
  ASSERT_OK(batch.Put("foo", "bar"));
  ASSERT_OK(batch.Delete("box"));
  ASSERT_OK(batch.Put("baz", "boo"));
  WriteBatchInternal::SetSequence(&batch, 100);
  EXPECT_EQ(100u, WriteBatchInternal::Sequence(&batch));
  EXPECT_EQ("Put(baz, boo)@102Delete(box)@101Put(foo, bar)@100",
            AppliedContents(batch));
}

TEST(WriteBatchTest, LaterRecordOfSameKeyWins) {
  WriteBatch batch;
  ASSERT_OK(batch.Delete("k"));
  ASSERT_OK(batch.Put("k", "v"));
  WriteBatchInternal::SetSequence(&batch, 7);
  InternalKeyComparator cmp(BytewiseComparator());
  MemTable* mem = new MemTable(cmp);
  ASSERT_OK(WriteBatchInternal::InsertInto(&batch, mem));
  std::string value;
  Status s;
  ASSERT_TRUE(mem->Get(LookupKey("k", kMaxSequenceNumber), &value, &s));
  EXPECT_OK(s);
  EXPECT_EQ("v", value);
  mem->Unref();
}

TEST(WriteBatchTest, InsertIntoConcurrentModeMatchesSingleWriter) {
  WriteBatch batch;
  ASSERT_OK(batch.Put("a", "1"));
  ASSERT_OK(batch.Delete("b"));
  WriteBatchInternal::SetSequence(&batch, 5);
  InternalKeyComparator cmp(BytewiseComparator());
  MemTable* mem = new MemTable(cmp);
  ASSERT_OK(
      WriteBatchInternal::InsertInto(&batch, mem,
                                     /*concurrent_memtable_writes=*/true));
  EXPECT_EQ(2u, mem->NumEntries());
  EXPECT_EQ(1u, mem->NumDeletes());
  EXPECT_EQ(3u, mem->DataSize());
  mem->Unref();
}

TEST(WriteBatchTest, AppendConcatenatesRecordsAndCounts) {
  WriteBatch b1;
  WriteBatch b2;
  WriteBatchInternal::SetSequence(&b1, 200);
  WriteBatchInternal::SetSequence(&b2, 300);
  ASSERT_OK(b1.Append(b2));
  EXPECT_EQ("", Records(b1));
  EXPECT_EQ(0u, b1.Count());
  ASSERT_OK(b2.Put("a", "va"));
  ASSERT_OK(b1.Append(b2));
  EXPECT_EQ("Put(a, va)", Records(b1));
  EXPECT_EQ(1u, b1.Count());
  b2.Clear();
  ASSERT_OK(b2.Put("b", "vb"));
  ASSERT_OK(b2.Delete("foo"));
  ASSERT_OK(WriteBatchInternal::Append(&b1, &b2));
  EXPECT_EQ("Put(a, va)Put(b, vb)Delete(foo)", Records(b1));
  EXPECT_EQ(3u, b1.Count());
  // The destination keeps its own sequence.
  EXPECT_EQ(200u, WriteBatchInternal::Sequence(&b1));
}

TEST(WriteBatchTest, AppendToItselfDoublesRecords) {
  WriteBatch batch;
  ASSERT_OK(batch.Put("x", "1"));
  ASSERT_OK(batch.Delete("y"));
  ASSERT_OK(batch.Append(batch));
  EXPECT_EQ(4u, batch.Count());
  EXPECT_EQ("Put(x, 1)Delete(y)Put(x, 1)Delete(y)", Records(batch));
}

TEST(WriteBatchTest, AppendRejectsCountOverflow) {
  WriteBatch big;
  WriteBatchInternal::SetCount(&big, UINT32_MAX);  // Count only; see below.
  WriteBatch one;
  ASSERT_OK(one.Put("k", "v"));
  const std::string before = one.Data();
  EXPECT_TRUE(one.Append(big).IsInvalidArgument());
  EXPECT_EQ(before, one.Data());
}

TEST(WriteBatchTest, PutRejectsFullBatch) {
  WriteBatch batch;
  WriteBatchInternal::SetCount(&batch, UINT32_MAX);
  EXPECT_TRUE(batch.Put("k", "v").IsInvalidArgument());
  EXPECT_TRUE(batch.Delete("k").IsInvalidArgument());
  EXPECT_EQ(WriteBatchInternal::kHeaderSize, batch.ApproximateSize());
}

TEST(WriteBatchTest, ClearRemovesEveryRecord) {
  WriteBatch batch;
  ASSERT_OK(batch.Put("k", "v"));
  batch.Clear();
  EXPECT_EQ(0u, batch.Count());
  EXPECT_EQ("", Records(batch));
  EXPECT_EQ(WriteBatchInternal::kHeaderSize, batch.ApproximateSize());
}

TEST(WriteBatchTest, CopyIsIndependent) {
  WriteBatch a;
  ASSERT_OK(a.Put("k", "v"));
  WriteBatch b = a;
  ASSERT_OK(b.Delete("k"));
  EXPECT_EQ("Put(k, v)", Records(a));
  EXPECT_EQ("Put(k, v)Delete(k)", Records(b));
}

TEST(WriteBatchTest, SetContentsRejectsShortInput) {
  WriteBatch batch;
  ASSERT_OK(batch.Put("k", "v"));
  const Status s = WriteBatchInternal::SetContents(&batch, Slice("short"));
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("too small")) << s.ToString();
  EXPECT_EQ(0u, batch.Count());
}

TEST(WriteBatchTest, ContentsRoundTripThroughSetContents) {
  WriteBatch a;
  ASSERT_OK(a.Put("k", "v"));
  ASSERT_OK(a.Delete("d"));
  WriteBatchInternal::SetSequence(&a, 42);
  WriteBatch b;
  ASSERT_OK(
      WriteBatchInternal::SetContents(&b, WriteBatchInternal::Contents(&a)));
  EXPECT_EQ(a.Data(), b.Data());
  EXPECT_EQ(42u, WriteBatchInternal::Sequence(&b));
  EXPECT_EQ(WriteBatchInternal::ByteSize(&a), WriteBatchInternal::ByteSize(&b));
  EXPECT_EQ("Put(k, v)Delete(d)", Records(b));
}

// Builds a batch from raw bytes (as WAL replay does).
WriteBatch FromContents(const std::string& contents) {
  WriteBatch batch;
  EXPECT_OK(WriteBatchInternal::SetContents(&batch, contents));
  return batch;
}

std::string Header(uint32_t count) {
  std::string h(8, '\0');
  PutFixed32(&h, count);
  return h;
}

TEST(WriteBatchTest, TruncatedPutIsCorruption) {
  WriteBatch good;
  ASSERT_OK(good.Put("key", "value"));
  // Cut the batch at every point inside the record.
  for (size_t len = WriteBatchInternal::kHeaderSize + 1;
       len < good.Data().size(); len++) {
    const WriteBatch bad = FromContents(good.Data().substr(0, len));
    Recorder recorder;
    const Status s = bad.Iterate(&recorder);
    ASSERT_TRUE(s.IsCorruption()) << len << ": " << s.ToString();
    EXPECT_NE(std::string::npos,
              s.message().find("bad put record at offset 12"))
        << s.ToString();
    EXPECT_EQ("", recorder.log());
  }
}

TEST(WriteBatchTest, UnknownTagIsCorruptionAfterEarlierRecords) {
  WriteBatch good;
  ASSERT_OK(good.Put("a", "1"));
  const std::string contents = good.Data() + "\x07" + "junk";
  const WriteBatch bad = FromContents(contents);
  Recorder recorder;
  const Status s = bad.Iterate(&recorder);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos,
            s.message().find("unknown record tag 0x07 at offset 17"))
      << s.ToString();
  EXPECT_EQ("Put(a, 1)", recorder.log());  // Records before the damage.
}

TEST(WriteBatchTest, ReservedTagIsNotSupported) {
  std::string contents = Header(1);
  contents.push_back(static_cast<char>(WriteBatchInternal::kTagMerge));
  PutLengthPrefixedSlice(&contents, "k");
  PutLengthPrefixedSlice(&contents, "operand");
  Recorder recorder;
  const Status status = FromContents(contents).Iterate(&recorder);
  ASSERT_TRUE(status.IsNotSupported()) << status.ToString();
  EXPECT_NE(std::string::npos, status.message().find("merge"))
      << status.ToString();
}

TEST(WriteBatchTest, WrongCountIsCorruption) {
  WriteBatch good;
  ASSERT_OK(good.Put("a", "1"));
  std::string contents = good.Data();
  EncodeFixed32(&contents[8], 2);
  Recorder recorder;
  const Status s = FromContents(contents).Iterate(&recorder);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.message().find("header says 2 records"))
      << s.ToString();
}

TEST(WriteBatchTest, MalformedBatchInsertsNothing) {
  WriteBatch good;
  ASSERT_OK(good.Put("a", "1"));
  ASSERT_OK(good.Put("b", "2"));
  std::string contents = good.Data();
  contents.resize(contents.size() - 1);  // Cut the last value.
  const WriteBatch bad = FromContents(contents);
  InternalKeyComparator cmp(BytewiseComparator());
  MemTable* mem = new MemTable(cmp);
  EXPECT_TRUE(WriteBatchInternal::InsertInto(&bad, mem).IsCorruption());
  EXPECT_EQ(0u, mem->NumEntries());
  mem->Unref();
}

TEST(WriteBatchTest, ValidateAcceptsWellFormedBatch) {
  WriteBatch batch;
  ASSERT_OK(batch.Put("a", "1"));
  ASSERT_OK(batch.Delete("b"));
  EXPECT_OK(WriteBatchInternal::Validate(&batch));
}

}  // namespace
}  // namespace cascadedb

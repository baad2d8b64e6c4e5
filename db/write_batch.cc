// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// WriteBatch encoding (docs/format/write_batch.md):
//   fixed64 sequence | fixed32 count | record*
//   record := kTagValue    varint32-prefixed key, varint32-prefixed value
//           | kTagDeletion varint32-prefixed key

#include "cascadedb/write_batch.h"

#include <algorithm>
#include <cstdio>

#include "db/memtable.h"
#include "db/write_batch_internal.h"
#include "util/coding.h"

namespace cascadedb {

namespace {

constexpr size_t kHeader = WriteBatchInternal::kHeaderSize;

Status TooLarge(const char* what, size_t size) {
  char buf[96];
  std::snprintf(buf, sizeof(buf),
                "write batch: %s of %zu bytes is too large (limit %u)", what,
                size, UINT32_MAX);
  return Status::InvalidArgument(buf);
}

Status BadRecord(const char* what, size_t offset) {
  char buf[80];
  std::snprintf(buf, sizeof(buf), "write batch: bad %s record at offset %zu",
                what, offset);
  return Status::Corruption(buf);
}

// Makes room in rep for a record of record_bytes more at once, growing it
// geometrically. Appended in pieces (tag, key, value), a record would
// reallocate for each piece that crosses the capacity: DB::Put's batch of
// one 16-byte key and 100-byte value made three allocations (and freed
// two), ~5% of a writer's CPU in fillrandom.
void ReserveRecord(std::string* rep, size_t record_bytes) {
  const size_t need = rep->size() + record_bytes;
  if (need > rep->capacity()) {
    rep->reserve(std::max(need, 2 * rep->capacity()));
  }
}

// Parses rep, calling handler (if not null) for each record. The engine of
// both Iterate and Validate.
Status ParseBatch(const std::string& rep, WriteBatch::Handler* handler) {
  if (rep.size() < kHeader) {
    char buf[64];
    std::snprintf(buf, sizeof(buf),
                  "write batch: too small (%zu bytes, "
                  "header is %zu)",
                  rep.size(), kHeader);
    return Status::Corruption(buf);
  }
  Slice input(rep);
  input.remove_prefix(kHeader);
  uint32_t found = 0;
  Slice key;
  Slice value;
  while (!input.empty()) {
    const size_t offset = rep.size() - input.size();
    const unsigned char tag = static_cast<unsigned char>(input[0]);
    input.remove_prefix(1);
    switch (tag) {
      case WriteBatchInternal::kTagValue:
        if (!GetLengthPrefixedSlice(&input, &key) ||
            !GetLengthPrefixedSlice(&input, &value)) {
          return BadRecord("put", offset);
        }
        if (handler != nullptr) handler->Put(key, value);
        break;
      case WriteBatchInternal::kTagDeletion:
        if (!GetLengthPrefixedSlice(&input, &key)) {
          return BadRecord("delete", offset);
        }
        if (handler != nullptr) handler->Delete(key);
        break;
      case WriteBatchInternal::kTagMerge:
      case WriteBatchInternal::kTagRangeDeletion: {
        char buf[112];
        std::snprintf(
            buf, sizeof(buf),
            "write batch: record type %u (%s) at offset %zu is not "
            "supported by this version",
            tag,
            tag == WriteBatchInternal::kTagMerge ? "merge" : "range deletion",
            offset);
        return Status::NotSupported(buf);
      }
      default: {
        char buf[80];
        std::snprintf(buf, sizeof(buf),
                      "write batch: unknown record tag 0x%02x at offset %zu",
                      tag, offset);
        return Status::Corruption(buf);
      }
    }
    found++;
  }
  const uint32_t count = DecodeFixed32(rep.data() + 8);
  if (found != count) {
    char buf[96];
    std::snprintf(buf, sizeof(buf),
                  "write batch: header says %u records but it holds %u", count,
                  found);
    return Status::Corruption(buf);
  }
  return Status::OK();
}

// Applies records to a memtable at consecutive sequence numbers, keeping
// the first error (Handler calls cannot fail, so it is reported after).
class MemTableInserter : public WriteBatch::Handler {
 public:
  MemTableInserter(MemTable* mem, SequenceNumber seq, bool concurrent)
      : mem_(mem), sequence_(seq), concurrent_(concurrent) {}

  void Put(const Slice& key, const Slice& value) override {
    Add(kTypeValue, key, value);
  }
  void Delete(const Slice& key) override { Add(kTypeDeletion, key, Slice()); }

  // The first error, after folding the counters of concurrent inserts.
  Status Finish() {
    if (concurrent_) mem_->ApplyAddStats(stats_);
    return status_;
  }

 private:
  void Add(ValueType type, const Slice& key, const Slice& value) {
    if (status_.ok()) {
      status_ = concurrent_ ? mem_->AddConcurrently(sequence_, type, key, value,
                                                    &stats_)
                            : mem_->Add(sequence_, type, key, value);
    }
    sequence_++;
  }

  MemTable* const mem_;
  SequenceNumber sequence_;
  const bool concurrent_;
  MemTableAddStats stats_;
  Status status_;
};

}  // namespace

// ---------------------------------------------------------------- WriteBatch

WriteBatch::WriteBatch() { rep_.resize(kHeader); }

WriteBatch::WriteBatch(size_t reserved_bytes) {
  rep_.reserve(reserved_bytes > kHeader ? reserved_bytes : kHeader);
  rep_.resize(kHeader);
}

WriteBatch::~WriteBatch() = default;

Status WriteBatch::Put(const Slice& key, const Slice& value) {
  if (key.size() > UINT32_MAX) return TooLarge("key", key.size());
  if (value.size() > UINT32_MAX) return TooLarge("value", value.size());
  const uint32_t count = Count();
  if (count == UINT32_MAX) {
    return Status::InvalidArgument("write batch: too many records");
  }
  ReserveRecord(&rep_, 1 + VarintLength(key.size()) + key.size() +
                           VarintLength(value.size()) + value.size());
  WriteBatchInternal::SetCount(this, count + 1);
  rep_.push_back(static_cast<char>(WriteBatchInternal::kTagValue));
  PutLengthPrefixedSlice(&rep_, key);
  PutLengthPrefixedSlice(&rep_, value);
  data_size_ += key.size() + value.size();
  return Status::OK();
}

Status WriteBatch::Delete(const Slice& key) {
  if (key.size() > UINT32_MAX) return TooLarge("key", key.size());
  const uint32_t count = Count();
  if (count == UINT32_MAX) {
    return Status::InvalidArgument("write batch: too many records");
  }
  ReserveRecord(&rep_, 1 + VarintLength(key.size()) + key.size());
  WriteBatchInternal::SetCount(this, count + 1);
  rep_.push_back(static_cast<char>(WriteBatchInternal::kTagDeletion));
  PutLengthPrefixedSlice(&rep_, key);
  data_size_ += key.size();
  return Status::OK();
}

void WriteBatch::Clear() {
  rep_.clear();
  rep_.resize(kHeader);
  data_size_ = 0;
}

uint32_t WriteBatch::Count() const { return WriteBatchInternal::Count(this); }

size_t WriteBatch::ApproximateSize() const { return rep_.size(); }

Status WriteBatch::Append(const WriteBatch& source) {
  const uint64_t total = uint64_t{Count()} + source.Count();
  if (total > UINT32_MAX) {
    return Status::InvalidArgument("write batch: too many records");
  }
  assert(source.rep_.size() >= kHeader);
  if (&source == this) {
    // Appending a string's bytes to itself may reallocate under the source
    // pointer; copy them first.
    const std::string records = rep_.substr(kHeader);
    rep_.append(records);
  } else {
    rep_.append(source.rep_.data() + kHeader, source.rep_.size() - kHeader);
  }
  WriteBatchInternal::SetCount(this, static_cast<uint32_t>(total));
  data_size_ += source.data_size_;
  return Status::OK();
}

Status WriteBatch::Iterate(Handler* handler) const {
  assert(handler != nullptr);
  return ParseBatch(rep_, handler);
}

// ---------------------------------------------------------------- internal

uint32_t WriteBatchInternal::Count(const WriteBatch* batch) {
  return DecodeFixed32(batch->rep_.data() + 8);
}

void WriteBatchInternal::SetCount(WriteBatch* batch, uint32_t n) {
  EncodeFixed32(&batch->rep_[8], n);
}

SequenceNumber WriteBatchInternal::Sequence(const WriteBatch* batch) {
  return DecodeFixed64(batch->rep_.data());
}

void WriteBatchInternal::SetSequence(WriteBatch* batch, SequenceNumber seq) {
  EncodeFixed64(&batch->rep_[0], seq);
}

Status WriteBatchInternal::SetContents(WriteBatch* batch,
                                       const Slice& contents) {
  if (contents.size() < kHeaderSize) {
    batch->Clear();
    char buf[64];
    std::snprintf(buf, sizeof(buf),
                  "write batch: too small (%zu bytes, header is %zu)",
                  contents.size(), kHeaderSize);
    return Status::Corruption(buf);
  }
  batch->rep_.assign(contents.data(), contents.size());
  batch->data_size_ = 0;  // replayed bytes are not new user bytes
  return Status::OK();
}

Status WriteBatchInternal::Append(WriteBatch* dst, const WriteBatch* src) {
  return dst->Append(*src);
}

Status WriteBatchInternal::Validate(const WriteBatch* batch) {
  return ParseBatch(batch->rep_, nullptr);
}

Status WriteBatchInternal::InsertInto(const WriteBatch* batch,
                                      MemTable* memtable,
                                      bool concurrent_memtable_writes) {
  Status s = Validate(batch);
  if (!s.ok()) return s;
  const SequenceNumber seq = Sequence(batch);
  if (Count(batch) > 0 && seq + Count(batch) - 1 > kMaxSequenceNumber) {
    char buf[96];
    std::snprintf(buf, sizeof(buf),
                  "write batch: sequence %llu + %u records runs past the "
                  "56-bit limit",
                  static_cast<unsigned long long>(seq), Count(batch));
    return Status::Corruption(buf);
  }
  MemTableInserter inserter(memtable, seq, concurrent_memtable_writes);
  s = ParseBatch(batch->rep_, &inserter);
  // Validated above, so parsing cannot fail now.
  assert(s.ok());
  s.IgnoreError();  // Checked by Validate; see the assert.
  return inserter.Finish();
}

}  // namespace cascadedb

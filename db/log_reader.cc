// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/log_reader.h"

#include <cstdio>

#include "cascadedb/env.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace cascadedb {
namespace log {

namespace {

bool AllZero(const Slice& s) {
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] != 0) return false;
  }
  return true;
}

// Whether a fragment's stored checksum matches the bytes it covers (the
// type, the log number if the header has one, and the payload).
bool ChecksumMatches(const char* header, size_t header_size, size_t length) {
  return crc32c::Unmask(DecodeFixed32(header)) ==
         crc32c::Value(header + 6, header_size - 6 + length);
}

Status DamageStatus(const std::string& problem, uint64_t offset) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), " at offset %llu",
                static_cast<unsigned long long>(offset));
  return Status::Corruption(problem + buf);
}

}  // namespace

Reader::Reader(SequentialFile* file, Reporter* reporter, bool checksum,
               uint64_t initial_offset, uint64_t log_number)
    : file_(file),
      reporter_(reporter),
      checksum_(checksum),
      initial_offset_(initial_offset),
      log_number_(static_cast<uint32_t>(log_number)),
      know_log_number_(log_number != 0),
      kind_known_(false),
      recyclable_(false),
      kind_hinted_(false),
      hinted_recyclable_(false),
      backing_store_(new char[kBlockSize]),
      buffer_(),
      eof_(false),
      end_of_buffer_offset_(0),
      resyncing_(initial_offset > 0),
      started_(false),
      last_record_offset_(0),
      last_record_end_(0) {}

Reader::~Reader() { delete[] backing_store_; }

bool Reader::SkipToInitialBlock() {
  const size_t offset_in_block = initial_offset_ % kBlockSize;
  uint64_t block_start = initial_offset_ - offset_in_block;
  // In a block tail too short for a header, no record can start: the first
  // candidate is in the next block.
  if (offset_in_block > kBlockSize - kHeaderSize) block_start += kBlockSize;
  end_of_buffer_offset_ = block_start;
  if (block_start > 0) {
    Status s = file_->Skip(block_start);
    if (!s.ok()) {
      eof_ = true;
      if (reporter_ != nullptr) {
        reporter_->Corruption(static_cast<size_t>(block_start), s);
      }
      return false;
    }
  }
  return true;
}

Reader::FragmentKind Reader::ReadFragment(Fragment* f) {
  while (true) {
    if (buffer_.size() < kHeaderSize) {
      if (!eof_) {
        // The rest is the zero padding of a block tail: skip it and read
        // the next block.
        buffer_.clear();
        Status s = file_->Read(kBlockSize, &buffer_, backing_store_);
        if (!s.ok()) {
          buffer_.clear();
          eof_ = true;
          f->offset = end_of_buffer_offset_;
          f->bytes = kBlockSize;
          f->io_status = s;
          return FragmentKind::kReadError;
        }
        end_of_buffer_offset_ += buffer_.size();
        if (buffer_.size() < kBlockSize) eof_ = true;
        continue;
      }
      // The file ends here.
      if (buffer_.empty()) return FragmentKind::kEof;
      const uint64_t offset = end_of_buffer_offset_ - buffer_.size();
      const Slice rest = buffer_;
      buffer_.clear();
      const bool in_block_tail =
          kBlockSize - static_cast<size_t>(offset % kBlockSize) <
          (recyclable_ ? kRecyclableHeaderSize : kHeaderSize);
      if (in_block_tail) return FragmentKind::kEof;  // Padding, cut short.
      f->offset = offset;
      f->bytes = rest.size();
      if (AllZero(rest)) return FragmentKind::kZeros;
      f->problem = "truncated record header";
      return FragmentKind::kTruncated;
    }

    const char* header = buffer_.data();
    const uint64_t offset = end_of_buffer_offset_ - buffer_.size();
    const size_t block_remaining =
        kBlockSize - static_cast<size_t>(offset % kBlockSize);
    if (recyclable_ && block_remaining < kRecyclableHeaderSize) {
      // A recyclable log's block tail, too short for its header: padding.
      buffer_.clear();
      continue;
    }
    const uint32_t length =
        static_cast<uint32_t>(static_cast<unsigned char>(header[4]) |
                              (static_cast<unsigned char>(header[5]) << 8));
    const unsigned int type = static_cast<unsigned char>(header[6]);
    const bool recyclable_type = IsRecyclableType(type);
    if (!kind_known_ && !kind_hinted_ && type != kZeroType &&
        type <= kMaxRecordType) {
      // Until a valid fragment says which kind the log is, the first
      // plausible type byte, even of a damaged fragment, is the guess.
      kind_hinted_ = true;
      hinted_recyclable_ = recyclable_type;
    }
    const size_t header_size =
        recyclable_type ? kRecyclableHeaderSize : kHeaderSize;
    f->offset = offset;
    f->tail_candidate = false;
    f->data_follows = false;

    if (type == kZeroType && length == 0) {
      // Zeros where a header belongs: preallocated space, or zeroed damage.
      // The writer never leaves a gap inside a block, so nothing valid can
      // follow in this block; drop the rest of it.
      f->bytes = buffer_.size();
      buffer_.clear();
      return FragmentKind::kZeros;
    }

    if (header_size + length > block_remaining) {
      // No fragment crosses a block boundary: the header is damaged. The
      // length is unusable, so drop the rest of the block.
      f->data_follows = OwnFragmentIn(
          Slice(buffer_.data() + 1, buffer_.size() - 1), recyclable_type);
      f->bytes = buffer_.size();
      buffer_.clear();
      f->problem = "bad record length";
      return FragmentKind::kCorrupt;
    }
    if (header_size + length > buffer_.size()) {
      // The fragment fits its block but not the file: a torn write. (With
      // a full block in the buffer the length check above catches
      // everything else.)
      f->bytes = buffer_.size();
      buffer_.clear();
      f->problem = "truncated record";
      return FragmentKind::kTruncated;
    }
    if (checksum_ && !ChecksumMatches(header, header_size, length)) {
      // Any header field may be the damaged one, the length included, so
      // nothing after it in this block can be located reliably. If only
      // zeros follow the fragment's claimed end, this may be the last
      // write, torn.
      const Slice after(buffer_.data() + header_size + length,
                        buffer_.size() - header_size - length);
      f->tail_candidate = AllZero(after);
      f->data_follows = OwnFragmentIn(after, recyclable_type);
      f->bytes = buffer_.size();
      buffer_.clear();
      f->problem = "checksum mismatch";
      return FragmentKind::kCorrupt;
    }
    buffer_.remove_prefix(header_size + length);
    f->bytes = header_size + length;

    if (type == kZeroType || type > kMaxRecordType) {
      // The length is trustworthy when the checksum matched, so drop just
      // this fragment.
      char buf[48];
      std::snprintf(buf, sizeof(buf), "unknown record type %u", type);
      f->problem = buf;
      return FragmentKind::kCorrupt;
    }
    if (!kind_known_) {
      kind_known_ = true;
      recyclable_ = recyclable_type;
    } else if (recyclable_type != recyclable_) {
      // The writer never mixes the two header kinds in one file.
      f->problem = recyclable_ ? "record without a log number"
                               : "record with a log number";
      return FragmentKind::kCorrupt;
    }
    if (recyclable_type) {
      const uint32_t number = DecodeFixed32(header + kHeaderSize);
      if (!know_log_number_) {
        know_log_number_ = true;
        log_number_ = number;
      }
      if (number != log_number_) return FragmentKind::kStale;
    }
    if (offset < initial_offset_) continue;  // Before the requested start.

    f->payload = Slice(header + header_size, length);
    switch (recyclable_type ? ToPlainType(type) : type) {
      case kFullType:
        return FragmentKind::kFull;
      case kFirstType:
        return FragmentKind::kFirst;
      case kMiddleType:
        return FragmentKind::kMiddle;
      default:
        return FragmentKind::kLast;
    }
  }
}

bool Reader::OwnFragmentIn(const Slice& bytes, bool recyclable_type) const {
  // Only a recyclable log of known number can be searched: a valid
  // fragment with its number cannot be an older log's. (In a plain log the
  // torn-tail rule needs only zeros after the damage.)
  const bool recyclable = kind_known_ ? recyclable_ : recyclable_type;
  if (!recyclable || !know_log_number_ || !checksum_) return false;
  const char* p = bytes.data();
  for (size_t i = 0; i + kRecyclableHeaderSize <= bytes.size(); i++) {
    const char* h = p + i;
    const unsigned int type = static_cast<unsigned char>(h[6]);
    if (!IsRecyclableType(type) ||
        DecodeFixed32(h + kHeaderSize) != log_number_) {
      continue;
    }
    const size_t length = static_cast<unsigned char>(h[4]) |
                          (static_cast<unsigned char>(h[5]) << 8);
    if (kRecyclableHeaderSize + length > bytes.size() - i) continue;
    if (ChecksumMatches(h, kRecyclableHeaderSize, length)) return true;
  }
  return false;
}

void Reader::AddAnomaly(const std::string& problem, uint64_t offset,
                        uint64_t bytes, AnomalyKind kind) {
  // Damage wholly before initial_offset_ is none of the caller's business;
  // damage that also dropped bytes at or after it (the rest of a block
  // holding records the caller asked for) must be reported.
  if (offset + bytes <= initial_offset_) return;
  if (!damage_.active) {
    damage_.active = true;
    damage_.offset = offset;
    damage_.problem = problem;
    damage_.bytes = bytes;
    damage_.zeros_only = kind == AnomalyKind::kZeros;
    damage_.middle = kind == AnomalyKind::kMiddle;
    damage_.garbage = kind == AnomalyKind::kGarbage;
    return;
  }
  damage_.bytes += bytes;
  if (kind == AnomalyKind::kMiddle) {
    damage_.zeros_only = false;
    damage_.middle = true;
  } else if (kind != AnomalyKind::kZeros) {
    // Non-zero bytes after earlier damage: the earlier damage was not the
    // end of the log, unless the log is recyclable (an older log's bytes).
    damage_.zeros_only = false;
    damage_.garbage = true;
  }
}

void Reader::AddOrphanFragment(const Fragment& f) {
  // Most likely the rest of a record the damage destroyed; either way a
  // valid fragment proves data was written after the damage.
  AddAnomaly("missing start of fragmented record", f.offset, f.bytes,
             AnomalyKind::kMiddle);
}

void Reader::ReportDamageAsCorruption() {
  if (!damage_.active) return;
  if (reporter_ != nullptr) {
    reporter_->Corruption(static_cast<size_t>(damage_.bytes),
                          DamageStatus(damage_.problem, damage_.offset));
  }
  damage_ = Damage();
}

void Reader::ReportDamageAtEof() {
  if (!damage_.active) return;
  if (damage_.zeros_only) {
    damage_ = Damage();  // Preallocated space: a clean end.
    return;
  }
  const bool recyclable = kind_known_ ? recyclable_ : hinted_recyclable_;
  if (damage_.middle || (damage_.garbage && !recyclable)) {
    ReportDamageAsCorruption();
    return;
  }
  if (reporter_ != nullptr) {
    reporter_->TornTail(static_cast<size_t>(damage_.bytes),
                        DamageStatus(damage_.problem, damage_.offset));
  }
  damage_ = Damage();
}

bool Reader::ReadRecord(Slice* record, std::string* scratch) {
  if (!started_) {
    started_ = true;
    if (!SkipToInitialBlock()) return false;
  }
  scratch->clear();
  *record = Slice();
  // True while *scratch holds the fragments of a record begun by a FIRST.
  bool in_fragmented_record = false;
  uint64_t record_offset = 0;  // Of the FIRST fragment, while in one.
  uint64_t record_bytes = 0;   // File bytes of its fragments so far.

  // Drops the partial record in *scratch as part of an anomaly.
  auto drop_partial = [&](const std::string& problem, uint64_t extra_bytes,
                          AnomalyKind kind) {
    AddAnomaly(problem, record_offset, record_bytes + extra_bytes, kind);
    scratch->clear();
    in_fragmented_record = false;
    record_bytes = 0;
  };

  Fragment f;
  while (true) {
    const FragmentKind kind = ReadFragment(&f);
    if (resyncing_) {
      // Skip the rest of a record that started before initial_offset_.
      if (kind == FragmentKind::kMiddle) continue;
      if (kind == FragmentKind::kLast) {
        resyncing_ = false;
        continue;
      }
      resyncing_ = false;
    }

    switch (kind) {
      case FragmentKind::kFull:
        if (in_fragmented_record)
          drop_partial("record without end", 0, AnomalyKind::kMiddle);
        ReportDamageAsCorruption();
        *record = f.payload;
        last_record_offset_ = f.offset;
        last_record_end_ = f.offset + f.bytes;
        return true;

      case FragmentKind::kFirst:
        if (in_fragmented_record)
          drop_partial("record without end", 0, AnomalyKind::kMiddle);
        ReportDamageAsCorruption();
        scratch->assign(f.payload.data(), f.payload.size());
        in_fragmented_record = true;
        record_offset = f.offset;
        record_bytes = f.bytes;
        break;

      case FragmentKind::kMiddle:
        if (!in_fragmented_record) {
          AddOrphanFragment(f);
        } else {
          scratch->append(f.payload.data(), f.payload.size());
          record_bytes += f.bytes;
        }
        break;

      case FragmentKind::kLast:
        if (!in_fragmented_record) {
          AddOrphanFragment(f);
          break;
        }
        scratch->append(f.payload.data(), f.payload.size());
        *record = Slice(*scratch);
        last_record_offset_ = record_offset;
        last_record_end_ = f.offset + f.bytes;
        return true;

      case FragmentKind::kZeros:
        // Zeros cut a record short: the record is what was lost.
        if (in_fragmented_record) {
          drop_partial("incomplete record", f.bytes,
                       AnomalyKind::kTailCandidate);
        } else {
          AddAnomaly("zero-filled bytes", f.offset, f.bytes,
                     AnomalyKind::kZeros);
        }
        break;

      case FragmentKind::kStale:
        // An older log's record in a recycled file: this log ended before
        // it. Neutral, like zeros: only this log's records after it would
        // make it damage.
        if (in_fragmented_record) {
          drop_partial("incomplete record", 0, AnomalyKind::kTailCandidate);
        }
        AddAnomaly("record of an older log", f.offset, f.bytes,
                   AnomalyKind::kZeros);
        break;

      case FragmentKind::kTruncated:
      case FragmentKind::kCorrupt:
        // Report the damaged fragment's position, not the record start;
        // the partial record is dropped with it.
        AddAnomaly(f.problem, f.offset,
                   f.bytes + (in_fragmented_record ? record_bytes : 0),
                   f.data_follows ? AnomalyKind::kMiddle
                   : kind == FragmentKind::kTruncated || f.tail_candidate
                       ? AnomalyKind::kTailCandidate
                       : AnomalyKind::kGarbage);
        scratch->clear();
        in_fragmented_record = false;
        record_bytes = 0;
        break;

      case FragmentKind::kEof:
        if (in_fragmented_record)
          drop_partial("incomplete record", 0, AnomalyKind::kTailCandidate);
        ReportDamageAtEof();
        return false;

      case FragmentKind::kReadError:
        if (in_fragmented_record)
          drop_partial("incomplete record", 0, AnomalyKind::kTailCandidate);
        // Whether more data would have followed is unknown: report pending
        // damage conservatively as corruption, then the error itself.
        ReportDamageAsCorruption();
        if (reporter_ != nullptr) reporter_->Corruption(f.bytes, f.io_status);
        return false;
    }
  }
}

}  // namespace log
}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// log::Reader: reads the records of a record log (WAL or MANIFEST; format
// in docs/format/log.md) back, checking every fragment, and tells the
// caller precisely what it had to drop, so the engine can apply its WAL
// recovery mode:
//
//   Reporter::TornTail    the log ends with an incomplete or damaged record
//                         and only zeros follow: what a crash during a
//                         write leaves. kTolerateCorruptedTailRecords and
//                         kPointInTimeRecovery accept it;
//                         kAbsoluteConsistency does not.
//   Reporter::Corruption  damage with valid data after it (a bad checksum,
//                         length or type, a fragment without its start,
//                         zeros between records), or a read error. Only
//                         kSkipAnyCorruptedRecords goes on past it;
//                         kPointInTimeRecovery stops replay there.
//
// The rule: damage is a torn tail when the file holds nothing but zero
// bytes after it - no valid fragment, no other damaged bytes. A header or
// payload cut off by the end of the file, a record without its LAST
// fragment at the end, or a checksum mismatch in a fragment followed only
// by zeros are tail candidates; anything non-zero after them turns them
// into corruption. A bad length or an unknown type is always corruption
// (a torn write cuts bytes off, it does not invent them).
//
// A run of damaged bytes is reported ONCE, when the reader knows how it
// ends: at the next valid record start (Corruption) or at the end of the
// file (TornTail or Corruption by the rule above). The report therefore
// comes before the record that follows the damage is returned (or before
// ReadRecord returns false), so a caller that stops at the first
// Corruption has applied exactly the records before the damage. Zero bytes
// running to the end of the file (preallocated space) are a clean end and
// are not reported.
//
// Messages name the problem and the byte offset of the first damaged byte
// run, e.g. "checksum mismatch at offset 40960"; the caller adds the file
// name ("log 000012.log: checksum mismatch at offset 40960"). After damage
// the reader resynchronizes at the next block, skipping fragments that
// continue a record whose start was lost.
//
// Recyclable logs (headers with the log number; the first valid fragment
// says which kind a log is) may be written over an obsolete log's file, so
// after their last record the file can hold anything: the old log's
// fragments (valid, but with another log number: "stale"), or bytes in the
// middle of one. There, only a valid fragment of this log after the damage
// makes it Corruption (the rest of a block dropped after damage is searched
// for one too); stale fragments count as zeros, and damage followed by
// nothing of this log is a TornTail (a torn write and the old log's bytes
// cannot be told apart).
//
// Thread safety: not thread-safe (one reader per file, one thread).

#ifndef CASCADEDB_DB_LOG_READER_H_
#define CASCADEDB_DB_LOG_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "db/log_format.h"

namespace cascadedb {

class SequentialFile;

namespace log {

class Reader {
 public:
  // Receives what the reader drops. Calls happen inside ReadRecord.
  class Reporter {
   public:
    virtual ~Reporter() = default;

    // Damage followed by valid data, or an I/O error. bytes is how many
    // bytes of the file were dropped (approximate for read errors). status
    // is Corruption("<problem> at offset <N>"), or the IOError of the read
    // (after which ReadRecord returns false).
    virtual void Corruption(size_t bytes, const Status& status) = 0;

    // The log ends with an incomplete or damaged record and nothing but
    // zeros after it. bytes is how many bytes were dropped; status is
    // Corruption("<problem> at offset <N>"), e.g. "truncated record header
    // at offset 98304", "incomplete record at offset 65536", or a checksum
    // mismatch in the last record. Called at most once per log, just before
    // ReadRecord returns false.
    virtual void TornTail(size_t bytes, const Status& status) = 0;
  };

  // Reads from file, starting with the first record that starts at or
  // after initial_offset; damage is not reported if all the bytes it drops
  // lie before initial_offset.
  // file and reporter are borrowed and must outlive the reader; reporter
  // may be null (nothing reported). If checksum, every fragment's CRC is
  // verified (recommended; the engine passes true).
  // log_number is the log's file number, for recyclable logs: their
  // fragments that carry another number are an older log's, left in a
  // recycled file, and end this one (see the file comment). 0 means
  // unknown: the number of the first recyclable fragment is taken.
  Reader(SequentialFile* file, Reporter* reporter, bool checksum,
         uint64_t initial_offset, uint64_t log_number = 0);

  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  ~Reader();

  // Reads the next record into *record and returns true, or returns false
  // at the end of the log (or after a read error, reported to the
  // reporter). *record borrows the reader's or *scratch's bytes, valid
  // until the next call or until *scratch is modified. *scratch is
  // temporary storage for records split across blocks.
  bool ReadRecord(Slice* record, std::string* scratch);

  // The file offset of the first byte (the first fragment's header) of the
  // last record returned by ReadRecord. REQUIRES: a record was returned.
  uint64_t LastRecordOffset() const { return last_record_offset_; }

  // The file offset just past the last record returned (0 if none): the
  // length of the log's intact prefix after a torn tail.
  uint64_t LastRecordEnd() const { return last_record_end_; }

 private:
  // What ReadFragment found.
  enum class FragmentKind {
    kFull,
    kFirst,
    kMiddle,
    kLast,
    kEof,        // The end of the file (clean).
    kZeros,      // Zero bytes where a header was expected.
    kStale,      // A valid fragment of another log (a recycled file).
    kTruncated,  // A header or payload cut off by the end of the file.
    kCorrupt,    // A bad length, checksum or type.
    kReadError,  // The file read failed.
  };

  // One fragment, or one problem.
  struct Fragment {
    Slice payload;        // For valid fragments.
    uint64_t offset;      // File offset of the header or of the problem.
    size_t bytes;         // File bytes consumed.
    std::string problem;  // For kTruncated/kCorrupt: "checksum mismatch".
    // For kCorrupt: the damage could be a torn write (a checksum mismatch
    // with only zeros after the fragment's end in its block).
    bool tail_candidate;
    // For kCorrupt in a recyclable log: a valid fragment of this log
    // follows in the dropped bytes, so the damage is not its end.
    bool data_follows = false;
    Status io_status;  // For kReadError.
  };

  // How an anomaly bears on the torn-tail rule.
  enum class AnomalyKind {
    kZeros,          // Zero bytes: neutral.
    kTailCandidate,  // A torn write could have left it.
    kGarbage,        // Invented bytes: a bad length or type, a checksum
                     // mismatch with data after it. Not a torn tail,
                     // except in a recyclable log (an older log's bytes).
    kMiddle,         // Proof of data after the damage: a valid fragment.
  };

  // The run of dropped bytes not yet reported (see the file comment).
  struct Damage {
    bool active = false;
    uint64_t offset = 0;      // Of its first anomaly.
    std::string problem;      // Of its first anomaly.
    uint64_t bytes = 0;       // Dropped so far.
    bool zeros_only = false;  // Every anomaly so far was zero bytes.
    bool middle = false;      // Not a torn tail, whatever follows.
    // Invented or non-zero bytes: not a torn tail unless the log is
    // recyclable.
    bool garbage = false;
  };

  // Positions the file at the block holding initial_offset_. Returns false
  // (after reporting) if the file cannot be skipped.
  bool SkipToInitialBlock();

  // Reads the next fragment or problem, reading blocks as needed. Silently
  // skips fragments that start before initial_offset_.
  FragmentKind ReadFragment(Fragment* fragment);

  // True if bytes hold a valid fragment of this recyclable log (its number,
  // a matching checksum) at any offset: searched in the rest of a block
  // dropped after damage, so damage with this log's data after it in the
  // same block is corruption, not a torn tail. recyclable_type: the
  // damaged header's type, if the log's kind is not known yet.
  bool OwnFragmentIn(const Slice& bytes, bool recyclable_type) const;

  // Adds an anomaly (dropped bytes) to the pending damage run, or starts a
  // run. Anomalies whose bytes all lie before initial_offset_ are ignored.
  void AddAnomaly(const std::string& problem, uint64_t offset, uint64_t bytes,
                  AnomalyKind kind);

  // A valid fragment continuing a record whose start is missing.
  void AddOrphanFragment(const Fragment& fragment);

  // Reports the pending damage run as Corruption (valid data follows).
  void ReportDamageAsCorruption();

  // Reports the pending damage run at the end of the file: nothing if it
  // is only zeros, TornTail if it passes the torn-tail rule, else
  // Corruption.
  void ReportDamageAtEof();

  SequentialFile* const file_;
  Reporter* const reporter_;
  const bool checksum_;
  const uint64_t initial_offset_;
  uint32_t log_number_;   // Low 32 bits; valid if know_log_number_.
  bool know_log_number_;  // Given, or taken from the first fragment.
  bool kind_known_;       // A valid fragment has shown the log's kind.
  bool recyclable_;       // The log's headers carry a log number.
  // Before any valid fragment: what the first plausible (maybe damaged)
  // header's type suggests, for telling a torn tail from corruption.
  bool kind_hinted_;
  bool hinted_recyclable_;

  char* const backing_store_;      // kBlockSize bytes.
  Slice buffer_;                   // The unread rest of the current block.
  bool eof_;                       // The last read returned a short block.
  uint64_t end_of_buffer_offset_;  // File offset just past buffer_.

  // Skipping fragments of a record that began before initial_offset_.
  bool resyncing_;
  bool started_;  // SkipToInitialBlock has run.

  uint64_t last_record_offset_;
  uint64_t last_record_end_;
  Damage damage_;
};

}  // namespace log
}  // namespace cascadedb

#endif  // CASCADEDB_DB_LOG_READER_H_

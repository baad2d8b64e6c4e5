// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Status: the result of every CascadeDB operation that can fail. A Status is
// either OK or carries a code and a message naming the thing and the problem
// ("000123.sst: bad block checksum at offset 4096"). The library never throws.
//
// Status is [[nodiscard]]: an ignored result does not compile under -Werror.
// To drop one on purpose call IgnoreError() and say why in a comment.
//
// Thread safety: thread-compatible (a value type).

#ifndef CASCADEDB_INCLUDE_CASCADEDB_STATUS_H_
#define CASCADEDB_INCLUDE_CASCADEDB_STATUS_H_

#include <memory>
#include <string>

#include "cascadedb/slice.h"

namespace cascadedb {

class [[nodiscard]] Status {
 public:
  // The codes, chosen by cause. Values are part of the C API to come and
  // must never be renumbered.
  enum class Code : unsigned char {
    kOk = 0,
    kNotFound = 1,         // a key or file is absent
    kCorruption = 2,       // bytes on disk break the format or a checksum
    kNotSupported = 3,     // the operation or feature is not available
    kInvalidArgument = 4,  // the caller's input or options are wrong
    kIOError = 5,          // the operating system failed
    kBusy = 6,             // a lock is held elsewhere
    kIncomplete = 7,       // a write stalled under no_slowdown
    kTimedOut = 8,         // a wait ran out of time
    kAborted = 9,          // the operation was cancelled
  };

  // An OK status. Cheap: no allocation.
  Status() noexcept = default;
  Status(const Status& s);
  Status& operator=(const Status& s);
  Status(Status&& s) noexcept = default;
  Status& operator=(Status&& s) noexcept = default;
  ~Status() = default;

  static Status OK() { return Status(); }

  // Each factory joins msg and msg2 as "msg: msg2" when msg2 is not empty.
  static Status NotFound(const Slice& msg, const Slice& msg2 = Slice()) {
    return Status(Code::kNotFound, msg, msg2);
  }
  static Status Corruption(const Slice& msg, const Slice& msg2 = Slice()) {
    return Status(Code::kCorruption, msg, msg2);
  }
  static Status NotSupported(const Slice& msg, const Slice& msg2 = Slice()) {
    return Status(Code::kNotSupported, msg, msg2);
  }
  static Status InvalidArgument(const Slice& msg,
                                const Slice& msg2 = Slice()) {
    return Status(Code::kInvalidArgument, msg, msg2);
  }
  static Status IOError(const Slice& msg, const Slice& msg2 = Slice()) {
    return Status(Code::kIOError, msg, msg2);
  }
  static Status Busy(const Slice& msg, const Slice& msg2 = Slice()) {
    return Status(Code::kBusy, msg, msg2);
  }
  static Status Incomplete(const Slice& msg, const Slice& msg2 = Slice()) {
    return Status(Code::kIncomplete, msg, msg2);
  }
  static Status TimedOut(const Slice& msg, const Slice& msg2 = Slice()) {
    return Status(Code::kTimedOut, msg, msg2);
  }
  static Status Aborted(const Slice& msg, const Slice& msg2 = Slice()) {
    return Status(Code::kAborted, msg, msg2);
  }

  bool ok() const { return state_ == nullptr; }
  Code code() const { return state_ == nullptr ? Code::kOk : state_->code; }
  bool IsNotFound() const { return code() == Code::kNotFound; }
  bool IsCorruption() const { return code() == Code::kCorruption; }
  bool IsNotSupported() const { return code() == Code::kNotSupported; }
  bool IsInvalidArgument() const { return code() == Code::kInvalidArgument; }
  bool IsIOError() const { return code() == Code::kIOError; }
  bool IsBusy() const { return code() == Code::kBusy; }
  bool IsIncomplete() const { return code() == Code::kIncomplete; }
  bool IsTimedOut() const { return code() == Code::kTimedOut; }
  bool IsAborted() const { return code() == Code::kAborted; }

  // The message alone ("" for OK).
  std::string message() const;

  // "OK", or the code's name followed by the message, e.g.
  // "Corruption: 000123.sst: bad block checksum at offset 4096".
  std::string ToString() const;

  // Returns a copy with "context: " put in front of the message; OK stays OK.
  // Use it once, at the layer that knows the context (a file name).
  Status WithContext(const Slice& context) const;

  // Marks the status as deliberately ignored. Always explain why at the call.
  void IgnoreError() const {}

 private:
  struct State {
    Code code;
    std::string message;
  };

  Status(Code code, const Slice& msg, const Slice& msg2);

  // nullptr means OK; shared so copies of errors stay cheap and immutable.
  std::shared_ptr<const State> state_;
};

inline Status::Status(const Status& s) = default;
inline Status& Status::operator=(const Status& s) = default;

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_STATUS_H_

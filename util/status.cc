// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "cascadedb/status.h"

namespace cascadedb {

namespace {

const char* CodeName(Status::Code code) {
  switch (code) {
    case Status::Code::kOk:
      return "OK";
    case Status::Code::kNotFound:
      return "NotFound";
    case Status::Code::kCorruption:
      return "Corruption";
    case Status::Code::kNotSupported:
      return "Not implemented";
    case Status::Code::kInvalidArgument:
      return "Invalid argument";
    case Status::Code::kIOError:
      return "IO error";
    case Status::Code::kBusy:
      return "Busy";
    case Status::Code::kIncomplete:
      return "Incomplete";
    case Status::Code::kTimedOut:
      return "Timed out";
    case Status::Code::kAborted:
      return "Aborted";
  }
  return "Unknown code";
}

}  // namespace

Status::Status(Code code, const Slice& msg, const Slice& msg2) {
  auto state = std::make_shared<State>();
  state->code = code;
  state->message = msg.ToString();
  if (!msg2.empty()) {
    state->message.append(": ");
    state->message.append(msg2.data(), msg2.size());
  }
  state_ = std::move(state);
}

std::string Status::message() const {
  return state_ == nullptr ? std::string() : state_->message;
}

std::string Status::ToString() const {
  if (state_ == nullptr) return "OK";
  std::string result = CodeName(state_->code);
  if (!state_->message.empty()) {
    result.append(": ");
    result.append(state_->message);
  }
  return result;
}

Status Status::WithContext(const Slice& context) const {
  if (state_ == nullptr) return *this;
  return Status(state_->code, context, state_->message);
}

}  // namespace cascadedb

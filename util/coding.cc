// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "util/coding.h"

namespace cascadedb {

void PutFixed32(std::string* dst, uint32_t v) {
  char buf[sizeof(v)];
  EncodeFixed32(buf, v);
  dst->append(buf, sizeof(buf));
}

void PutFixed64(std::string* dst, uint64_t v) {
  char buf[sizeof(v)];
  EncodeFixed64(buf, v);
  dst->append(buf, sizeof(buf));
}

bool GetFixed32(Slice* input, uint32_t* v) {
  if (input->size() < sizeof(uint32_t)) return false;
  *v = DecodeFixed32(input->data());
  input->remove_prefix(sizeof(uint32_t));
  return true;
}

bool GetFixed64(Slice* input, uint64_t* v) {
  if (input->size() < sizeof(uint64_t)) return false;
  *v = DecodeFixed64(input->data());
  input->remove_prefix(sizeof(uint64_t));
  return true;
}

void PutVarint32(std::string* dst, uint32_t v) {
  char buf[kMaxVarint32Length];
  const char* end = EncodeVarint32(buf, v);
  dst->append(buf, static_cast<size_t>(end - buf));
}

void PutVarint64(std::string* dst, uint64_t v) {
  char buf[kMaxVarint64Length];
  const char* end = EncodeVarint64(buf, v);
  dst->append(buf, static_cast<size_t>(end - buf));
}

int VarintLength(uint64_t v) {
  int len = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++len;
  }
  return len;
}

const char* GetVarint32PtrFallback(const char* p, const char* limit,
                                   uint32_t* v) {
  uint32_t result = 0;
  // Bytes 0..3 carry 7 bits each; byte 4 may carry only the top 4 bits of a
  // 32-bit value, so anything above 0x0f there is out of range or overlong.
  for (int shift = 0; shift <= 28 && p < limit; shift += 7) {
    const uint32_t byte = static_cast<unsigned char>(*p++);
    if (shift == 28 && byte > 0x0f) return nullptr;
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

const char* GetVarint64PtrFallback(const char* p, const char* limit,
                                   uint64_t* v) {
  uint64_t result = 0;
  // Byte 9 may carry only the top bit of a 64-bit value.
  for (int shift = 0; shift <= 63 && p < limit; shift += 7) {
    const uint64_t byte = static_cast<unsigned char>(*p++);
    if (shift == 63 && byte > 0x01) return nullptr;
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

bool GetVarint32(Slice* input, uint32_t* v) {
  const char* p = input->data();
  const char* limit = p + input->size();
  const char* q = GetVarint32Ptr(p, limit, v);
  if (q == nullptr) return false;
  input->remove_prefix(static_cast<size_t>(q - p));
  return true;
}

bool GetVarint64(Slice* input, uint64_t* v) {
  const char* p = input->data();
  const char* limit = p + input->size();
  const char* q = GetVarint64Ptr(p, limit, v);
  if (q == nullptr) return false;
  input->remove_prefix(static_cast<size_t>(q - p));
  return true;
}

void PutLengthPrefixedSlice(std::string* dst, const Slice& value) {
  PutVarint32(dst, static_cast<uint32_t>(value.size()));
  dst->append(value.data(), value.size());
}

const char* GetLengthPrefixedSlicePtr(const char* p, const char* limit,
                                      Slice* result) {
  uint32_t len;
  const char* q = GetVarint32Ptr(p, limit, &len);
  // Compare lengths rather than forming q + len, which could point past the
  // end of the buffer.
  if (q == nullptr || len > static_cast<size_t>(limit - q)) return nullptr;
  *result = Slice(q, len);
  return q + len;
}

bool GetLengthPrefixedSlice(Slice* input, Slice* result) {
  const char* p = input->data();
  const char* limit = p + input->size();
  Slice value;
  const char* q = GetLengthPrefixedSlicePtr(p, limit, &value);
  if (q == nullptr) return false;
  *result = value;
  input->remove_prefix(static_cast<size_t>(q - p));
  return true;
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/value_compression.h"

#include "table/format.h"
#include "util/compression.h"

namespace cascadedb {

bool CompressValue(CompressionType type, int level, const Slice& value,
                   std::string* stored) {
  if (type == kNoCompression || !CompressionTypeSupported(type)) return false;
  // A reader takes a larger claimed size for damage and would refuse it.
  if (value.size() > kMaxUncompressedBlockSize) return false;
  if (!CompressBlock(type, level, value, stored)) return false;
  if (!CompressionSavesEnough(value.size(), stored->size() + 1)) return false;
  stored->insert(stored->begin(), static_cast<char>(type));
  return true;
}

Status UncompressValue(const Slice& stored, std::string* value) {
  if (stored.empty()) {
    return Status::Corruption("compressed value is empty");
  }
  const auto type =
      static_cast<CompressionType>(static_cast<unsigned char>(stored[0]));
  if (type == kNoCompression) {
    return Status::Corruption("compressed value has compression type 0");
  }
  Status s =
      UncompressBlock(type, Slice(stored.data() + 1, stored.size() - 1), value);
  if (!s.ok()) {
    // Whatever the codec said (an unknown type is NotSupported there), a
    // stored value it cannot read is damage.
    return Status::Corruption("compressed value", s.message());
  }
  return s;
}

Status ValueAsWritten(ValueType type, const Slice& stored, std::string* scratch,
                      Slice* value) {
  if (type != kTypeValueCompressed) {
    *value = stored;
    return Status::OK();
  }
  Status s = UncompressValue(stored, scratch);
  *value = s.ok() ? Slice(*scratch) : Slice();
  return s;
}

}  // namespace cascadedb

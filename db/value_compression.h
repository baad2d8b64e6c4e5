// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Values compressed on their own. A value of at least
// Options::value_compression_min_size bytes is compressed by itself when it
// goes into a table (TableFileWriter), and its entry takes the type
// kTypeValueCompressed; the block holding it is then not compressed again
// (TableBuilder). A compaction copies such a value as it is, so a large
// value is compressed once, by the flush, instead of at every level, and
// never uncompressed on the way through. Readers (Get, DB iterators)
// uncompress it when they return it.
//
// Encoding (docs/format/sst.md, "Values compressed on their own"): one
// CompressionType byte, then the codec's payload as a compressed block's
// (util/compression.h). A value is kept compressed only if that saves
// at least 12.5%, as for blocks.
//
// Thread safety: thread-safe (pure functions).

#ifndef CASCADEDB_DB_VALUE_COMPRESSION_H_
#define CASCADEDB_DB_VALUE_COMPRESSION_H_

#include <string>

#include "cascadedb/options.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "db/dbformat.h"

namespace cascadedb {

// Encodes value compressed with type at level into *stored (replacing its
// contents). Returns false, leaving *stored unspecified, if type is
// kNoCompression or unsupported, value is larger than a compressed block
// may be (1 GiB, kMaxUncompressedBlockSize), the codec fails, or the
// encoding would not save at least 12.5% of value's size: the value is
// then stored plain.
bool CompressValue(CompressionType type, int level, const Slice& value,
                   std::string* stored);

// Decodes a value written by CompressValue into *value (replacing its
// contents). Returns Corruption naming the problem for an empty or
// malformed encoding or an unknown codec; never reads outside stored,
// whatever its bytes.
Status UncompressValue(const Slice& stored, std::string* value);

// The value of an entry of type as its writer gave it: *value is stored
// itself, or for kTypeValueCompressed stored uncompressed into *scratch
// (then valid while *scratch is). Errors as UncompressValue's.
Status ValueAsWritten(ValueType type, const Slice& stored, std::string* scratch,
                      Slice* value);

}  // namespace cascadedb

#endif  // CASCADEDB_DB_VALUE_COMPRESSION_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The properties block: facts about one SST (entry counts, raw sizes, block
// sizes, sequence range, compression, comparator, filter policy), readable
// without touching the data. It is a block (BlockBuilder format) of
// name -> value entries sorted by name; numbers are varint64, strings are
// raw bytes. Names and encodings are listed in docs/format/sst.md
// ("Properties block"); its metaindex key is kPropertiesBlockName. Readers
// ignore names they do not know, so new properties can be added freely;
// an existing name must never change its encoding.
//
// Thread safety: TableProperties is a thread-compatible value type; the
// functions are thread-safe.

#ifndef CASCADEDB_TABLE_PROPERTIES_H_
#define CASCADEDB_TABLE_PROPERTIES_H_

#include <cstdint>
#include <string>

#include "cascadedb/slice.h"
#include "cascadedb/status.h"

namespace cascadedb {

// Metaindex key of the properties block.
extern const char kPropertiesBlockName[];  // "cascadedb.properties"

struct TableProperties {
  uint64_t num_entries = 0;    // entries (puts + deletions)
  uint64_t num_deletions = 0;  // entries that are deletions
  uint64_t raw_key_size = 0;   // sum of key sizes as added
  // Sum of value sizes as added (a value compressed on its own, at its
  // compressed size).
  uint64_t raw_value_size = 0;
  uint64_t data_size = 0;          // bytes of data blocks, trailers included
  uint64_t index_size = 0;         // bytes of the index block, trailer incl.
  uint64_t filter_size = 0;        // bytes of the filter block, trailer incl.
  uint64_t num_data_blocks = 0;    // data blocks
  uint64_t smallest_seqno = 0;     // smallest sequence number of an entry
  uint64_t largest_seqno = 0;      // largest sequence number of an entry
  uint64_t creation_time = 0;      // wall-clock seconds since the epoch
  std::string compression_name;    // CompressionTypeName() of the option
  std::string comparator_name;     // Comparator::Name() of the key order
  std::string filter_policy_name;  // FilterPolicy::Name(), "" if none

  // "num_entries=10; num_deletions=0; ...; comparator=...": one line,
  // readable, every field.
  std::string ToString() const;
};

// Appends the properties block (before its trailer) for p to *dst.
void EncodeTableProperties(const TableProperties& p, std::string* dst);

// Parses a properties block into *p (fields not present keep their
// defaults; unknown names are ignored). Returns Corruption
// ("bad properties block: ...") if the block or a value is malformed.
Status DecodeTableProperties(const Slice& block_contents, TableProperties* p);

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_PROPERTIES_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// A RandomAccessFile wrapper that reads ahead: a read that misses its buffer
// fetches readahead_size bytes from the target in one call, so a sequential
// reader (a compaction input iterator walking a table block by block) issues
// a few large reads instead of one small read per block. Reads of at least
// readahead_size bytes bypass the buffer. Works over direct-I/O files too:
// the target aligns its own reads. Over a target that returns its own
// memory (a mapped file) there is no buffer: reads go straight to the
// target, which is asked to Prefetch each readahead_size window ahead.
//
// Thread safety: thread-safe (as RandomAccessFile requires), but meant for
// one sequential reader; concurrent readers would evict each other's buffer.

#ifndef CASCADEDB_TABLE_READAHEAD_FILE_H_
#define CASCADEDB_TABLE_READAHEAD_FILE_H_

#include <cstddef>
#include <memory>

#include "cascadedb/env.h"

namespace cascadedb {

// Returns a reading-ahead view of target, which is borrowed and must outlive
// the result. REQUIRES: readahead_size > 0.
std::unique_ptr<RandomAccessFile> NewReadaheadRandomAccessFile(
    const RandomAccessFile* target, size_t readahead_size);

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_READAHEAD_FILE_H_

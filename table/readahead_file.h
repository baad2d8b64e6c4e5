// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// A RandomAccessFile wrapper for a sequential reader (a compaction input
// iterator walking a table block by block): the OS is asked to read each
// readahead_size window ahead (Prefetch) as the reader enters it, and reads
// are served from a buffer refilled in pieces of up to 64 KiB (the whole
// readahead_size over a direct-I/O file, whose reads are the I/O). Reads of
// at least readahead_size bytes go straight to the file. A target that
// returns its own memory (a mapped file) is read through its copying reader
// (RandomAccessFile::NewCopyingReader), or, without one, in place: no
// buffer, pointers into the target, only the windows hinted.
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

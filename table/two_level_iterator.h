// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// The two-level iterator: walks an index iterator whose values name blocks
// (a table's index block -> data blocks; later, a level's file list ->
// tables) and, for each index entry, an iterator over that block opened on
// demand by a caller-supplied function. It skips empty blocks in both
// directions and reuses the open block when a seek lands in it again.
//
// Requirements on the index: its keys are separators, i.e. index key i is
// >= every key of block i and < every key of block i+1, in the same order
// the blocks' iterators use.
//
// Errors: an error from the index or from a block (a failed read, a corrupt
// block) makes the iterator invalid and is reported by status(); the
// iterator never skips a bad block to carry on with the next one, because
// that would silently hide data.
//
// Thread safety: not thread-safe (one iterator per thread).

#ifndef CASCADEDB_TABLE_TWO_LEVEL_ITERATOR_H_
#define CASCADEDB_TABLE_TWO_LEVEL_ITERATOR_H_

#include <string>

#include "cascadedb/iterator.h"
#include "cascadedb/options.h"
#include "cascadedb/slice.h"

namespace cascadedb {

// Opens the block named by index_value (the value of an index entry) and
// returns a new iterator over it, owned by the caller. To report an error
// (the block cannot be read), return NewErrorIterator(status). Never returns
// nullptr.
using BlockFunction = Iterator* (*)(void* arg, const ReadOptions& options,
                                    const Slice& index_value);

// Returns a new two-level iterator (owned by the caller). It takes ownership
// of index_iter; arg is borrowed and must outlive the result (register a
// cleanup on the result to tie them together). options is copied and passed
// to every block_function call. Every non-OK status() is prefixed with
// error_context when it is not empty (the table passes its file name).
Iterator* NewTwoLevelIterator(Iterator* index_iter,
                              BlockFunction block_function, void* arg,
                              const ReadOptions& options,
                              const std::string& error_context = "");

}  // namespace cascadedb

#endif  // CASCADEDB_TABLE_TWO_LEVEL_ITERATOR_H_

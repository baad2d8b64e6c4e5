// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// Options: how a database is built and run. Defaults follow RocksDB so users'
// intuitions carry over (see docs/tuning.md). Each field says its meaning,
// unit, default, valid range and whether it can change while the DB is open.
// ValidateOptions() checks them all at once; DB::Open fails with the same
// InvalidArgument.
//
// Thread safety: thread-compatible (plain structs).

#ifndef CASCADEDB_INCLUDE_CASCADEDB_OPTIONS_H_
#define CASCADEDB_INCLUDE_CASCADEDB_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cascadedb/status.h"

namespace cascadedb {

class Cache;
class Comparator;
class Env;
class FilterPolicy;
class Logger;

// Block compression. The values are stored in every block trailer (see
// docs/format/sst.md) and match RocksDB's; never renumber them.
enum CompressionType : unsigned char {
  kNoCompression = 0x0,
  kSnappyCompression = 0x1,
  kLZ4Compression = 0x4,
  kZSTD = 0x7,
};

// Returns "NoCompression", "Snappy", "LZ4" or "ZSTD" ("Unknown" otherwise).
const char* CompressionTypeName(CompressionType type);

struct Options {
  // ---------------------------------------------------------------- general

  // The order of user keys. Stored in the database; must be the same on
  // every open. Default: BytewiseComparator(). Borrowed: must outlive the DB.
  // Fixed while open.
  const Comparator* comparator;

  // Create the database directory and files if missing. Default: false.
  bool create_if_missing = false;

  // Fail Open with InvalidArgument if the database already exists.
  // Default: false.
  bool error_if_exists = false;

  // Check aggressively and stop on the first sign of damage (a missing file
  // named by the MANIFEST, a bad checksum during recovery) instead of
  // carrying on. Default: true.
  bool paranoid_checks = true;

  // The operating system interface. Default: Env::Default(). Borrowed: must
  // outlive the DB. Fixed while open.
  Env* env;

  // Where the info LOG goes. Default: nullptr, meaning a file named LOG in
  // the database directory.
  std::shared_ptr<Logger> info_log;

  // ---------------------------------------------------------------- write buffering

  // Bytes of user data gathered in the active memtable before it becomes
  // immutable and is flushed to an L0 file. Larger buffers mean fewer, larger
  // L0 files and longer recovery. Default: 64 MiB. Range: [4 KiB, 64 GiB].
  size_t write_buffer_size = 64 << 20;

  // Memtables (active + immutable) that may exist at once; when all are full
  // writes stop until a flush finishes. Default: 2. Range: [2, 64].
  int max_write_buffer_number = 2;

  // ---------------------------------------------------------------- levels and compaction

  // Number of levels, L0 included. Default: 7. Range: [2, 20].
  int num_levels = 7;

  // L0 file count at which an L0->L1 compaction starts. Default: 4.
  // Range: >= 1.
  int level0_file_num_compaction_trigger = 4;

  // Target size of L1 in bytes; level n+1's target is level n's times
  // max_bytes_for_level_multiplier. Default: 256 MiB. Range: > 0.
  uint64_t max_bytes_for_level_base = 256ull << 20;

  // Growth factor between level targets. Default: 10. Range: > 1.
  double max_bytes_for_level_multiplier = 10;

  // Target SST size for L1; level n's is target_file_size_base *
  // target_file_size_multiplier^(n-1). Smaller files lower write
  // amplification but cost throughput (see docs/write-amplification.md).
  // Default: 64 MiB. Range: >= 1 KiB.
  uint64_t target_file_size_base = 64ull << 20;

  // Default: 1. Range: >= 1.
  int target_file_size_multiplier = 1;

  // Threads in the HIGH pool for flushes. Default: 1. Range: [1, 64].
  int max_background_flushes = 1;

  // Threads in the LOW pool for compactions. Default: 2. Range: [1, 64].
  int max_background_compactions = 2;

  // ---------------------------------------------------------------- write stalls

  // L0 file count at which writes are slowed to delayed_write_rate.
  // Default: 20. Range: >= level0_file_num_compaction_trigger.
  int level0_slowdown_writes_trigger = 20;

  // L0 file count at which writes stop until compaction catches up.
  // Default: 36. Range: >= level0_slowdown_writes_trigger.
  int level0_stop_writes_trigger = 36;

  // Estimated bytes of pending compaction work at which writes slow down.
  // 0 disables. Default: 64 GiB. Range: <= hard limit when both are set.
  uint64_t soft_pending_compaction_bytes_limit = 64ull << 30;

  // Estimated pending compaction bytes at which writes stop. 0 disables.
  // Default: 256 GiB.
  uint64_t hard_pending_compaction_bytes_limit = 256ull << 30;

  // Starting rate, bytes per second, of writes while a slowdown trigger is
  // active; adapted up and down from there. Default: 16 MiB/s. Range: > 0.
  uint64_t delayed_write_rate = 16ull << 20;

  // ---------------------------------------------------------------- tables and caching

  // Uncompressed bytes of user data per SST data block. Default: 4 KiB.
  // Range: [256 B, 256 MiB].
  size_t block_size = 4096;

  // Keys between restart points (full keys) in a data block. Default: 16.
  // Range: >= 1.
  int block_restart_interval = 16;

  // Block compression. A block stays uncompressed unless compressing saves
  // at least 12.5%. Default: kSnappyCompression. Must be one of the
  // CompressionType values.
  CompressionType compression = kSnappyCompression;

  // Bits per key of each SST's bloom filter; 0 = no filter. Ignored when
  // filter_policy is set. Default: 10 (about 1% false positives).
  // Range: [0, 100].
  double bloom_bits_per_key = 10;

  // A custom filter policy instead of the built-in bloom. Default: nullptr.
  std::shared_ptr<const FilterPolicy> filter_policy;

  // Cache for uncompressed data blocks. Default: nullptr, meaning a 32 MiB
  // LRU cache made at Open (block_cache_size); may be shared by several DBs.
  std::shared_ptr<Cache> block_cache;

  // Capacity of the block cache made at Open when block_cache is nullptr;
  // 0 = no block cache. Default: 32 MiB.
  size_t block_cache_size = 32 << 20;

  // ---------------------------------------------------------------- I/O

  // Writable files buffer this many bytes before each write(2), so storage
  // sees large sequential writes (seed 003). Default: 1 MiB.
  // Range: [0, 1 GiB].
  size_t writable_file_max_buffer_size = 1 << 20;

  // Creates Options with every default above.
  Options();
};

// Options for reads.
struct ReadOptions {
  // Verify the checksum of every block read from an SST. Default: true.
  bool verify_checksums = true;

  // Put blocks read for this operation in the block cache. Turn off for
  // bulk scans. Default: true.
  bool fill_cache = true;
};

// Options for writes.
struct WriteOptions {
  // fsync the WAL before acknowledging the write. A write acknowledged with
  // sync=true survives a crash or power loss. Default: false.
  bool sync = false;

  // Skip the WAL: faster, but the write is lost on a crash until flushed.
  // Default: false.
  bool disableWAL = false;

  // Return Status::Incomplete instead of waiting when writes are stalled.
  // Default: false.
  bool no_slowdown = false;
};

// Checks every field of options. Returns OK, or one InvalidArgument listing
// every problem found, each naming the option, its value and the limit, e.g.
// "level0_stop_writes_trigger=10 is below level0_slowdown_writes_trigger=20".
Status ValidateOptions(const Options& options);

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_OPTIONS_H_

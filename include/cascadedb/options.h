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
#include <vector>

#include "cascadedb/status.h"

namespace cascadedb {

class Cache;
class Comparator;
class Env;
class EventListener;
class FilterPolicy;
class Logger;
class RateLimiter;
class Snapshot;
class Statistics;

// Block compression. The values are stored in every block trailer (see
// docs/format/sst.md) and match RocksDB's; never renumber them.
enum CompressionType : unsigned char {
  kNoCompression = 0x0,
  kSnappyCompression = 0x1,
  kLZ4Compression = 0x4,
  kZSTD = 0x7,
  // Not a codec: "no choice made" (bottommost_compression's default).
  // Never stored in a file.
  kDisableCompressionOption = 0xff,
};

// Returns "NoCompression", "Snappy", "LZ4" or "ZSTD" ("Unknown" otherwise).
const char* CompressionTypeName(CompressionType type);

// Codec settings shared by every compression type.
struct CompressionOptions {
  // The codec's level (zstd 1..22, lz4 acceleration); kDefault = the codec's
  // own default.
  static constexpr int kDefaultLevel = 32767;
  int level = kDefaultLevel;
};

// The sorted structure under each memtable. Both keep entries in the same
// arena with the same encoding; they differ in how a search walks memory.
enum class MemTableRep : char {
  // A skiplist (db/skiplist.h): lock-free concurrent inserts.
  kSkipList = 0,
  // A B+-tree with key heads in the nodes (db/btree.h): a search touches
  // a few hot inner nodes and one leaf instead of ~10 cold skiplist nodes
  // on a large memtable. Concurrent writers take turns on a mutex.
  kBTree = 1,
};

// Returns "skiplist" or "btree" ("unknown" otherwise).
const char* MemTableRepName(MemTableRep rep);

// Which file of a level (L1 and deeper) a size-triggered compaction takes
// into the next level. The values are RocksDB's, so its db_bench's
// --compaction_pri numbers carry over.
enum class CompactionPri : char {
  // The file whose overlap with the next level is smallest for its size:
  // the least of the next level rewritten per byte moved down.
  kMinOverlappingRatio = 3,
  // The file after the one compacted last, wrapping around at the end of
  // the level (LevelDB's compact pointer).
  kRoundRobin = 4,
};

// "min_overlapping_ratio", "round_robin"; "unknown" for other values.
const char* CompactionPriName(CompactionPri pri);

// Which thread flushes a memtable that becomes immutable while a
// compaction job runs (Options::flush_in_compaction).
enum class FlushInCompaction : char {
  // The running job, when CPUs are scarce and compaction keeps up; the
  // flush thread otherwise (see Options::flush_in_compaction). Default.
  kAuto = 0,
  // Always the flush thread (RocksDB's behaviour).
  kNever = 1,
  // The running job whenever there is one (LevelDB's behaviour, where one
  // background thread does both).
  kAlways = 2,
};

// "auto", "never", "always"; "unknown" for other values.
const char* FlushInCompactionName(FlushInCompaction f);

// How WAL recovery treats damage (RocksDB's WALRecoveryMode). Only the tail
// of the newest WAL may be forgiven by the default mode: damage anywhere
// else is Corruption naming the file and offset.
enum class WALRecoveryMode : char {
  // A torn or damaged final record of the newest WAL (a crash mid-write) is
  // dropped; any other damage fails Open. Default.
  kTolerateCorruptedTailRecords = 0,
  // Any damage, even a torn tail, fails Open.
  kAbsoluteConsistency = 1,
  // Replay stops at the first damaged record; later records and later WALs
  // are ignored, giving a consistent point in time.
  kPointInTimeRecovery = 2,
  // Damaged records are skipped and replay goes on (may lose writes).
  kSkipAnyCorruptedRecords = 3,
};

// Returns "kTolerateCorruptedTailRecords", ... ("Unknown" otherwise).
const char* WALRecoveryModeName(WALRecoveryMode mode);

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

  // Collects tickers and histograms (include/cascadedb/statistics.h) when
  // set, e.g. to CreateDBStatistics(). Default: nullptr (no statistics).
  std::shared_ptr<Statistics> statistics;

  // Called from background threads on flushes, compactions, file
  // creation/deletion, stall changes and background errors
  // (include/cascadedb/listener.h). Default: none.
  std::vector<std::shared_ptr<EventListener>> listeners;

  // Seconds between dumps of the "cascadedb.stats" table to the LOG; 0 =
  // never. Default: 600.
  unsigned int stats_dump_period_sec = 600;

  // How WAL damage found at Open is handled. Default:
  // kTolerateCorruptedTailRecords.
  WALRecoveryMode wal_recovery_mode =
      WALRecoveryMode::kTolerateCorruptedTailRecords;

  // Keep up to this many obsolete WALs and write new WALs over them instead
  // of deleting them and creating fresh files (RocksDB's option of the same
  // name). A reused WAL keeps its disk blocks and page-cache pages, so the
  // OS does not allocate, zero and later free a page for every 4 KiB of log
  // (docs/performance.md). Such WALs are written in the recyclable record
  // format (each header carries the log number; docs/format/log.md), so
  // recovery tells their records from the old ones left behind them.
  // Costs the disk space of the kept files (about write_buffer_size each).
  // Two, not one: while writes wait at the memtable limit, the flush that
  // ends the wait makes a WAL obsolete before the switch has taken the one
  // kept already, and with room for one the second would be deleted (a
  // quarter of all WALs under the matched options with 1 KiB values;
  // docs/performance.md, "Parked WAL mappings"). A second file is kept
  // only then. Ignored with kAbsoluteConsistency: there, a torn last write
  // could not be told from the old bytes after it. 0 = off. Default: 2.
  size_t recycle_log_file_num = 2;

  // Keep obsolete table files, up to this many bytes in all, and write new
  // tables (flush and compaction outputs) over them instead of deleting
  // them and creating fresh files. A table written over an old one finds
  // its disk blocks allocated and its pages cached, so the OS neither
  // allocates, charges and frees a page-cache page per 4 KiB written, nor
  // allocates the blocks and discards them again at the unlink
  // (docs/performance.md, "Recycled table files"). A table larger than
  // this is never kept: the default keeps a few tables of the small sizes
  // where the churn of files costs most (LevelDB's 2 MiB), and none of the
  // default 64 MiB ones, whose disk space bought no measurable speed
  // (their compactions are mostly idle). A table with another hard link
  // (a checkpoint's) is never kept. A kept file is named NNNNNN.recycle, is
  // not a table (Repair ignores it, the next Open deletes it) and is
  // deleted by Close.
  // 0 = off. Default: 16 MiB.
  uint64_t recycle_table_bytes = 16ull << 20;

  // Start a new MANIFEST when the current one grows past this many bytes.
  // Default: 1 GiB. Range: >= 4 KiB.
  uint64_t max_manifest_file_size = 1ull << 30;

  // Table files kept open (the table cache's capacity); -1 = all of them.
  // Default: -1. Range: -1 or >= 10.
  int max_open_files = -1;

  // ---------------------------------------------------------------- write
  // buffering

  // Bytes of user data gathered in the active memtable before it becomes
  // immutable and is flushed to an L0 file. Larger buffers mean fewer, larger
  // L0 files and longer recovery. Default: 64 MiB. Range: [4 KiB, 64 GiB].
  size_t write_buffer_size = 64 << 20;

  // Memtables (active + immutable) that may exist at once; when all are full
  // writes stop until a flush finishes. Default: 2. Range: [2, 64].
  int max_write_buffer_number = 2;

  // Let the members of a writer group insert into the memtable in parallel
  // (the skiplist's CAS mode) instead of the leader inserting for all.
  // Default: false (unlike RocksDB): members are woken through condition
  // variables, and on a 2-core machine the context switches cost more than
  // the parallel inserts save (db_bench fillrandom, 4 threads: 44K ops/s
  // with it, 84K without; docs/performance.md).
  bool allow_concurrent_memtable_write = false;

  // The memtable's sorted structure (see MemTableRep). Default: kBTree
  // (RocksDB's memtable is a skiplist; docs/design/20261125-btree-memtable.md
  // says why we differ).
  MemTableRep memtable_rep = MemTableRep::kBTree;

  // A bloom filter over the user keys of each memtable, of
  // write_buffer_size x memtable_prefix_bloom_size_ratio bytes, used when
  // memtable_whole_key_filtering is set (RocksDB's names; there are no
  // prefix extractors, so the ratio sizes the whole-key filter). A Get of a
  // key a memtable does not hold then costs one cache line instead of a
  // skiplist walk: on a full 64 MiB memtable ~0.1 us instead of ~2 us. It
  // costs the bytes from the write buffer and one hash per write.
  // Defaults: 0.02 and true (RocksDB: 0 and false; see
  // docs/design/20261124-memtable-bloom.md). Range of the ratio: [0, 0.25].
  double memtable_prefix_bloom_size_ratio = 0.02;
  bool memtable_whole_key_filtering = true;

  // ---------------------------------------------------------------- levels and
  // compaction

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

  // Seek compaction (LevelDB's): a file that keeps costing lookups an
  // extra probe is compacted into the next level, so a read-heavy phase
  // leaves fewer sorted runs for later reads and scans. A Get that consults
  // a second file charges the first file it consulted; iterators charge
  // the same way for one key in every ~1 MiB they read. A file may be
  // charged max(100, file_size / 16 KiB) times before it is compacted.
  // Costs compaction I/O while reads run (counted in the write
  // amplification like any compaction). Default: true.
  bool seek_compaction = true;

  // Which file of L1 and deeper levels a compaction picks (see
  // CompactionPri). Default: kMinOverlappingRatio.
  CompactionPri compaction_pri = CompactionPri::kMinOverlappingRatio;

  // A compaction writes a data block of its output level's inputs out
  // whole, as stored, when no entry of the other inputs falls within the
  // block's keys, each of its entries passes unchanged (a value, the only
  // entry of its user key) and it is compressed with the output's
  // compression: no decompressed copy is re-encoded or recompressed. With
  // large values whole blocks often lie between two keys of the level
  // above (a third of matched 1 KiB fillrandom's compaction output). A
  // copied block keeps the block_size and block_restart_interval it was
  // written with; turn this off to rebuild every block after changing
  // them. Counted in the "cascadedb.compact.copied.bytes" ticker.
  // Default: true.
  bool compaction_copy_blocks = true;

  // A compaction ends its output files where files of the level below its
  // output level end (a "grandparent boundary"), when one comes once an
  // output holds at least half of its target size and before the next
  // boundary would carry it past the target. An output with no boundary in
  // reach may grow to twice its target. A later compaction of such a file
  // then reads only the files below that its keys fall into, not one more
  // at each end that it merely grazes. Outputs to a level with nothing
  // below it are cut at their target size as before. RocksDB 7.8+ does the
  // same (level_compaction_dynamic_file_size). Default: true.
  bool align_compaction_outputs = true;

  // Never start compactions on their own (CompactRange still works); for
  // experiments and bulk loads. Default: false.
  bool disable_auto_compactions = false;

  // Threads in the HIGH pool for flushes. Default: 1. Range: [1, 64].
  int max_background_flushes = 1;

  // Threads in the LOW pool for compactions. Default: 2. Range: [1, 64].
  int max_background_compactions = 2;

  // Who flushes a memtable that becomes immutable while a compaction job
  // runs: the job itself, between two of its entries, or the flush thread.
  // A flush thread woken on a machine whose CPUs are all busy (a writer
  // and a compaction on two CPUs) takes its CPU time from the writer:
  // writes wait milliseconds for it. Flushed by the running job, the
  // flush takes that time from the compaction instead. kAuto hands the
  // flush to a running job when the process may run on fewer CPUs than
  // max_background_compactions + max_background_flushes + 1 (one writer),
  // no rate_limiter is set (a job waiting on it would hold the flush back),
  // writes are not being slowed down, and no L0 or pending-compaction
  // stall has ended in the last 10 s; when compaction is the bottleneck
  // it needs both CPUs, so the flush thread runs in parallel again. A
  // writer that would stop for want of a memtable never waits for a job
  // to take the flush: the flush thread starts then. Default: kAuto.
  FlushInCompaction flush_in_compaction = FlushInCompaction::kAuto;

  // ---------------------------------------------------------------- write
  // stalls

  // L0 file count at which writes are slowed to delayed_write_rate.
  // Default: 20. Range: >= level0_file_num_compaction_trigger.
  int level0_slowdown_writes_trigger = 20;

  // L0 file count at which writes stop until compaction catches up.
  // Default: 36. Range: >= level0_slowdown_writes_trigger.
  int level0_stop_writes_trigger = 36;

  // Limits the bytes per second written by background work (flush and
  // compaction output), e.g. NewGenericRateLimiter(...) from
  // include/cascadedb/rate_limiter.h. Deeper compactions are throttled
  // first; flushes and L0 compactions only when nothing else is left.
  // Default: nullptr (no limit).
  std::shared_ptr<RateLimiter> rate_limiter;

  // Estimated bytes of pending compaction work at which writes slow down.
  // 0 disables. Default: 64 GiB. Range: <= hard limit when both are set.
  uint64_t soft_pending_compaction_bytes_limit = 64ull << 30;

  // Estimated pending compaction bytes at which writes stop. 0 disables.
  // Default: 256 GiB.
  uint64_t hard_pending_compaction_bytes_limit = 256ull << 30;

  // Starting rate, bytes per second, of writes while a slowdown trigger is
  // active; adapted up and down from there. Default: 16 MiB/s. Range: > 0.
  uint64_t delayed_write_rate = 16ull << 20;

  // A writer held back by a delay or a stop compresses data blocks for the
  // running flushes and compactions while it waits, instead of spinning or
  // sleeping: their outputs' blocks wait for compression in a queue a few
  // blocks long, and whatever no writer takes, the flush or compaction
  // compresses itself. A delayed writer only takes a block expected to be
  // done before its delay ends. On a machine where the background threads
  // are busy, this gives them the writers' waiting time; the tables
  // written are the same either way. Counted in the
  // "cascadedb.stall.compressed.blocks" ticker. Default: true.
  bool stalled_writers_compress = true;

  // A flush or compaction gives its CPU to a write held up waiting for one,
  // and a compaction to a flush: between the blocks it appends, a job
  // yields (sched_yield) if the leading writer (or the flush) has worked on
  // the same thing since the job's last look without getting anywhere, or
  // the leading writer's delay sleep ended 50 us ago or more without the
  // writer back at work, and the thread was last seen on the job's CPU.
  // With more busy threads than CPUs, a thread that takes the writer's CPU
  // otherwise keeps it for the rest of its time slice, and the write takes
  // milliseconds. Counted in the stall stats' "yields-to-writers" and
  // "yields-to-flushes". Default: true.
  bool background_yields_to_writers = true;

  // ---------------------------------------------------------------- tables and
  // caching

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

  // Compression per level (index = level); when non-empty it overrides
  // compression, and levels past its end use its last entry. Default: empty.
  std::vector<CompressionType> compression_per_level;

  // Compression of the bottommost level's files when set to a type (not
  // kDisableCompressionOption). Default: unset (use the level's type).
  CompressionType bottommost_compression = kDisableCompressionOption;

  // Codec level etc. Default: the codec's defaults.
  CompressionOptions compression_opts;

  // Values of at least this many bytes are compressed on their own, with
  // the level's compression, when a flush or compaction writes them to a
  // table (if that saves at least 12.5%), and the blocks holding them are
  // not compressed again. Compactions then copy such values as they are:
  // each is compressed once, not at every level, and reads uncompress
  // only the value they return. 0 = every value goes into block
  // compression. Default: 512 (db_bench's 100-byte values are compressed
  // in blocks; 1 KiB values on their own). docs/tuning.md.
  size_t value_compression_min_size = 512;

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

  // Keep index and filter blocks in the block cache (charged to its
  // capacity) instead of in memory for each open table. Default: false.
  bool cache_index_and_filter_blocks = false;

  // A data block read on a cache miss is put in the block cache only if it
  // also missed recently (a doorkeeper remembering up to about four
  // cache-fulls of misses, table/block_admission.h). Blocks read once -
  // most of them when random reads cover data much larger than the cache -
  // then cost no insert, no eviction and no decompression into cold
  // memory; blocks read again are cached on their second miss. The window
  // narrows (to a quarter of a cache-full) while the blocks admitted
  // return fewer than two hits each, and widens back when they return
  // more (property "cascadedb.block-cache-admission-window"). Index and
  // filter blocks are always cached. false = cache every block on its
  // first miss. Default: true.
  bool block_cache_admit_on_second_miss = true;

  // A scan that has read this many data blocks of one table one after
  // another (in file order, either direction) reads the rest of that table
  // without adding blocks to the block cache, as if ReadOptions::fill_cache
  // were false; blocks already cached are still used. One long scan then
  // neither evicts the cache's working set nor pays for inserting and
  // evicting blocks it will not read again. On a mapped table, the rest of
  // such a run also stops looking in the cache after 32 misses in a row,
  // probing every 16th block until a probe hits. 0 = scans fill and look
  // in the cache like any other read. Default: 16 (64 KiB of 4 KiB blocks).
  size_t long_scan_blocks = 16;

  // ---------------------------------------------------------------- I/O

  // Writable files buffer up to this many bytes before each write, so
  // storage sees large sequential writes (seed 003). With direct I/O it is
  // the size of each write; files written through the page cache hand the
  // OS at most 64 KiB per call (EnvOptions::kMaxBufferedWriteChunk), as the
  // kernel's writeback sizes their I/O. Default: 1 MiB. Range: [0, 1 GiB].
  size_t writable_file_max_buffer_size = 1 << 20;

  // A compaction asks the OS to read each input file this many bytes ahead
  // of it (seed 003: large sequential reads), and copies the file with
  // pread in pieces of at most 64 KiB, even when tables are mapped
  // (allow_mmap_reads): it reads each byte once, and a first touch of a
  // mapped page costs more than the copy. With use_direct_reads each read
  // is this size. 0 = block by block, through the mapping if there is one.
  // Default: 2 MiB. Range: [0, 1 GiB].
  size_t compaction_readahead_size = 2 << 20;

  // Read SSTs with O_DIRECT (bypassing the page cache). Default: false.
  bool use_direct_reads = false;

  // Read SSTs through a memory mapping (mmap) instead of pread: a block
  // read is then no system call and no copy, only decompression. Mapped
  // pages are the kernel's page cache, shared and reclaimable, but they
  // count in the process's RSS once touched. An I/O error while reading a
  // mapped page kills the process with SIGBUS instead of returning a
  // Status; set false where storage is expected to fail and the process
  // must survive it. Ignored with use_direct_reads. At most 4096 files are
  // mapped per process; further files are read with pread. Default: true
  // (as LevelDB; RocksDB's default is false, see
  // docs/design/20261123-mmap-reads.md).
  bool allow_mmap_reads = true;

  // Append to the WAL through a shared memory mapping instead of one
  // write(2) per write group. The bytes of an acknowledged write are in
  // the page cache either way, so they survive a crash of the process; a
  // power loss keeps only what a sync (WriteOptions::sync, SyncWAL) made
  // durable, as before. Saves the system call that was 40% of a small
  // unsynced write (docs/performance.md). The live WAL holds up to 1 MiB
  // of reserved zeros after its last record until it is closed. Up to
  // 16 MiB of each WAL stays mapped while it is written, and the mappings
  // of closed WALs (32 MiB at most, process-wide) are kept for their reuse
  // (recycle_log_file_num); mapped pages count in the process's RSS
  // (docs/design/20261127-parked-wal-mappings.md). Falls back to write(2)
  // where the filesystem cannot fallocate. Applies to the WAL only: SSTs
  // are written in large chunks already. Default: true (RocksDB: false;
  // see docs/design/20261123-mmap-reads.md).
  bool allow_mmap_writes = true;

  // Write flush and compaction output with O_DIRECT. Default: false.
  bool use_direct_io_for_flush_and_compaction = false;

  // Ask the OS to write back SST data every this many bytes as a flush or
  // compaction writes it, so the final fsync is short (RocksDB's meaning:
  // the WAL has wal_bytes_per_sync). A flush ends with that fsync; while it
  // waits, writes that fill the next memtable meet the memtable limit (1 KiB
  // values with defaults: 40-50 ms stops without it; docs/performance.md).
  // 0 = off. Default: 1 MiB.
  uint64_t bytes_per_sync = 1 << 20;

  // The same for the WAL. Its write-back requests run on the writer's
  // path, so they cost every write a little; unsynced WAL data is written
  // back by the OS anyway. 0 = off. Default: 0.
  uint64_t wal_bytes_per_sync = 0;

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

  // Read as of this snapshot (from DB::GetSnapshot, not yet released);
  // nullptr = the state when the read starts. Borrowed.
  const Snapshot* snapshot = nullptr;
};

// Options for writes.
struct WriteOptions {
  // fsync the WAL before acknowledging the write. A write acknowledged with
  // sync=true survives a crash or power loss. Default: false.
  bool sync = false;

  // Skip the WAL: faster, but the write is lost on a crash until flushed.
  // Default: false.
  bool disableWAL = false;

  // Return Status::Incomplete instead of waiting when writes are stalled
  // (stopped, or delayed by compaction or by max_write_buffer_number > 3).
  // Such a write is not paced to a running flush (docs/stalls.md).
  // Default: false.
  bool no_slowdown = false;
};

// Options for DB::Flush.
struct FlushOptions {
  // Wait until the flush is done (and durable in the MANIFEST).
  // Default: true.
  bool wait = true;
};

// Options for DB::CompactRange.
// No fields yet; CompactRange takes it so options can be added without
// changing the call (RocksDB's signature).
struct CompactRangeOptions {};

// The compression of an SST written to level: bottommost_compression for
// the bottommost data when set, else compression_per_level (its last entry
// for deeper levels) when set, else compression.
CompressionType CompressionForLevel(const Options& options, int level,
                                    bool bottommost);

// Checks every field of options. Returns OK, or one InvalidArgument listing
// every problem found, each naming the option, its value and the limit, e.g.
// "level0_stop_writes_trigger=10 is below level0_slowdown_writes_trigger=20".
Status ValidateOptions(const Options& options);

}  // namespace cascadedb

#endif  // CASCADEDB_INCLUDE_CASCADEDB_OPTIONS_H_

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// sst_dump: inspects CascadeDB SST files without opening a database, with
// RocksDB's sst_dump command and flag names.
//
//   sst_dump --file=PATH_OR_DIR [--command=check|scan|raw|verify|recompress|
//            identify] [--from=K] [--to=K] [--read_num=N] [--input_key_hex]
//            [--output_hex] [--show_properties] ...
//
// Every command only reads the input; recompress builds its trial tables in
// memory. SSTs hold internal keys (db/dbformat.h) ordered by the internal
// key comparator over BytewiseComparator(). Two readers are used: the Table
// reader (scan, check, identify, recompress), and TableWalker below, which
// walks the blocks one by one from the footer (raw, verify, the properties
// block) so that it can name the first bad block and still read the
// properties when the data is damaged. Bad input never crashes the tool: it
// prints one line on stderr and exits with kExitError (bad file) or
// kExitUsage (bad command line).
//
// Thread safety: a single-threaded program.

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/env.h"
#include "cascadedb/filter_policy.h"
#include "cascadedb/iterator.h"
#include "cascadedb/options.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "db/dbformat.h"
#include "db/value_compression.h"
#include "table/block.h"
#include "table/filter_block.h"
#include "table/format.h"
#include "table/properties.h"
#include "table/table.h"
#include "table/table_builder.h"
#include "table/table_options.h"
#include "tools/tool_util.h"
#include "util/coding.h"
#include "util/compression.h"
#include "util/memory_file.h"

namespace cascadedb {
namespace {

constexpr char kTool[] = "sst_dump";

// Bits per key of the bloom filter used when recompress rebuilds a table
// that had one (the DB's default).
constexpr double kBloomBitsPerKey = 10;

// ---------------------------------------------------------------- options

struct Codec {
  CompressionType type;
  int level;  // kDefaultCompressionLevel for the codec's default
};

struct DumpOptions {
  std::string command = "check";
  bool has_from = false;
  std::string from;  // user key
  bool has_to = false;
  std::string to;         // user key, exclusive
  uint64_t read_num = 0;  // 0 = no limit
  bool output_hex = false;
  bool show_properties = false;
  size_t block_size = 4096;   // recompress
  std::vector<Codec> codecs;  // recompress
};

struct CommandInfo {
  const char* name;
  const char* help;
};

const CommandInfo kCommands[] = {
    {"check",
     "iterate over all entries (checksums verified); report the count"},
    {"scan", "print entries: 'key' seq:N, type:T => value"},
    {"raw", "print the footer, metaindex, properties, index and data blocks"},
    {"verify", "check every block's checksum; report the first corruption"},
    {"recompress",
     "rebuild in memory with each codec; report size, ratio, time"},
    {"identify", "say whether each file is a valid CascadeDB SST"},
};

std::vector<FlagSpec> Flags() {
  return {
      {"file", true, "PATH", "an SST file, or a directory of *.sst files"},
      {"command", true, "CMD", "a command above (default: check)"},
      {"from", true, "K", "scan/check: first user key (inclusive)"},
      {"to", true, "K", "scan/check: last user key (exclusive)"},
      {"read_num", true, "N", "scan/check: at most N entries (0: all)"},
      {"input_key_hex", false, "", "--from and --to are hex (0x optional)"},
      {"output_hex", false, "", "print keys and values in hex"},
      {"show_properties", false, "", "print the properties block as well"},
      {"set_block_size", true, "N",
       "recompress: data block size (default 4096)"},
      {"compression_types", true, "LIST",
       "recompress: e.g. kSnappyCompression,kZSTD"},
      {"compression_level_from", true, "N",
       "recompress: first lz4/zstd level to try"},
      {"compression_level_to", true, "N",
       "recompress: last lz4/zstd level to try"},
      {"help", false, "", "print this help"},
  };
}

void PrintHelp(const FlagParser& flags) {
  std::printf(
      "sst_dump: inspect CascadeDB SST files (read-only)\n\n"
      "usage: sst_dump --file=PATH_OR_DIR [--command=CMD] [flags]\n"
      "       sst_dump [flags] PATH...\n\ncommands:\n");
  for (const CommandInfo& c : kCommands) {
    std::printf("  %-11s %s\n", c.name, c.help);
  }
  std::printf("\nflags:\n%s", flags.Help().c_str());
  std::printf(
      "\nKeys and values are shown as text when printable (\\ and other "
      "bytes escaped),\nelse as 0x-prefixed hex. Exit codes: 0 OK, 1 a bad "
      "or unreadable file, 2 a bad\ncommand line.\n");
}

bool IsCommand(const std::string& name) {
  for (const CommandInfo& c : kCommands) {
    if (name == c.name) return true;
  }
  return false;
}

// The codecs recompress tries by default.
std::vector<Codec> DefaultCodecs() {
  return {{kNoCompression, kDefaultCompressionLevel},
          {kSnappyCompression, kDefaultCompressionLevel},
          {kLZ4Compression, kDefaultCompressionLevel},
          {kLZ4Compression, 9},
          {kZSTD, 1},
          {kZSTD, 3},
          {kZSTD, 9},
          {kZSTD, 19}};
}

Status ParseCompressionName(const std::string& name, CompressionType* type) {
  struct Alias {
    const char* name;
    CompressionType type;
  };
  static const Alias kAliases[] = {
      {"kNoCompression", kNoCompression},
      {"NoCompression", kNoCompression},
      {"none", kNoCompression},
      {"kSnappyCompression", kSnappyCompression},
      {"Snappy", kSnappyCompression},
      {"snappy", kSnappyCompression},
      {"kLZ4Compression", kLZ4Compression},
      {"LZ4", kLZ4Compression},
      {"lz4", kLZ4Compression},
      {"kZSTD", kZSTD},
      {"ZSTD", kZSTD},
      {"zstd", kZSTD},
  };
  for (const Alias& a : kAliases) {
    if (name == a.name) {
      *type = a.type;
      return Status::OK();
    }
  }
  return Status::InvalidArgument(
      "--compression_types: unknown compression type '" + FormatBytes(name) +
      "' (expected kNoCompression, kSnappyCompression, kLZ4Compression or "
      "kZSTD)");
}

Status ParseCodecs(const FlagParser& flags, std::vector<Codec>* codecs) {
  std::vector<CompressionType> types;
  if (flags.IsSet("compression_types")) {
    const std::string list = flags.GetString("compression_types");
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      CompressionType type;
      Status s = ParseCompressionName(list.substr(start, comma - start), &type);
      if (!s.ok()) return s;
      types.push_back(type);
      start = comma + 1;
    }
  }
  const bool has_from = flags.IsSet("compression_level_from");
  const bool has_to = flags.IsSet("compression_level_to");
  if (has_from != has_to) {
    return Status::InvalidArgument(
        "--compression_level_from and --compression_level_to go together");
  }
  std::vector<int> levels;
  if (has_from) {
    int from = 0;
    int to = 0;
    Status s = flags.GetInt("compression_level_from", 0, &from);
    if (s.ok()) s = flags.GetInt("compression_level_to", 0, &to);
    if (!s.ok()) return s;
    if (from > to || to - from > 63) {
      return Status::InvalidArgument(
          "compression levels " + std::to_string(from) + ".." +
          std::to_string(to) + ": need from <= to and at most 64 levels");
    }
    for (int l = from; l <= to; l++) levels.push_back(l);
  }

  codecs->clear();
  for (const Codec& c : DefaultCodecs()) {
    if (!types.empty() &&
        std::find(types.begin(), types.end(), c.type) == types.end()) {
      continue;
    }
    const bool has_levels = c.type == kLZ4Compression || c.type == kZSTD;
    if (!has_levels || levels.empty()) {
      codecs->push_back(c);
    } else if (codecs->empty() || codecs->back().type != c.type) {
      for (int l : levels) codecs->push_back({c.type, l});
    }
  }
  return Status::OK();
}

// Parses the command line into *opts and *paths. Every error is a usage
// error.
Status ParseOptions(const FlagParser& flags, DumpOptions* opts,
                    std::vector<std::string>* paths) {
  opts->command = flags.GetString("command", "check");
  if (!IsCommand(opts->command)) {
    return Status::InvalidArgument(
        "unknown command '" + FormatBytes(opts->command) + "' (see --help)");
  }
  const bool hex = flags.GetBool("input_key_hex");
  opts->has_from = flags.IsSet("from");
  opts->has_to = flags.IsSet("to");
  Status s;
  if (opts->has_from) {
    s = ParseKeyArgument("from", flags.GetString("from"), hex, &opts->from);
    if (!s.ok()) return s;
  }
  if (opts->has_to) {
    s = ParseKeyArgument("to", flags.GetString("to"), hex, &opts->to);
    if (!s.ok()) return s;
  }
  s = flags.GetUint64("read_num", 0, &opts->read_num);
  if (!s.ok()) return s;
  uint64_t block_size = 0;
  s = flags.GetUint64("set_block_size", 4096, &block_size);
  if (!s.ok()) return s;
  if (block_size == 0 || block_size > (uint64_t{1} << 28)) {
    return Status::InvalidArgument(
        "--set_block_size=" + std::to_string(block_size) +
        ": must be in [1, 268435456]");
  }
  opts->block_size = static_cast<size_t>(block_size);
  opts->output_hex = flags.GetBool("output_hex");
  opts->show_properties = flags.GetBool("show_properties");
  s = ParseCodecs(flags, &opts->codecs);
  if (!s.ok()) return s;

  if (flags.IsSet("file")) paths->push_back(flags.GetString("file"));
  for (const std::string& p : flags.positional()) paths->push_back(p);
  if (paths->empty()) {
    return Status::InvalidArgument(
        "missing --file=PATH (an SST file or a directory of them)");
  }
  return Status::OK();
}

// ---------------------------------------------------------------- display

// "'<user key>' seq:<n>, type:<t>" for any bytes: a key too short for a
// trailer is shown as "<bad internal key 0x..>".
std::string FormatInternalKey(const Slice& key, bool hex) {
  if (key.size() < kInternalKeyTrailerSize) {
    return "<bad internal key " + FormatBytes(key, true) + ">";
  }
  const uint64_t trailer = ExtractTrailer(key);
  return "'" + FormatBytes(ExtractUserKey(key), hex) +
         "' seq:" + std::to_string(trailer >> 8) +
         ", type:" + std::to_string(trailer & 0xff);
}

std::string FormatHandle(const BlockHandle& h) {
  return "offset " + std::to_string(h.offset()) + ", size " +
         std::to_string(h.size());
}

void PrintLine(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
}

void PrintProperties(const TableProperties& p) {
  auto number = [](const char* name, uint64_t value) {
    std::printf("  %s: %" PRIu64 "\n", name, value);
  };
  auto average = [&p](const char* name, uint64_t total) {
    std::printf(
        "  %s: %.6f\n", name,
        p.num_entries == 0 ? 0.0 : static_cast<double>(total) / p.num_entries);
  };
  auto text = [](const char* name, const std::string& value) {
    std::printf("  %s: %s\n", name, FormatBytes(value).c_str());
  };
  std::printf("Table Properties:\n------------------------------\n");
  number("# data blocks", p.num_data_blocks);
  number("# entries", p.num_entries);
  number("# deletions", p.num_deletions);
  number("raw key size", p.raw_key_size);
  average("raw average key size", p.raw_key_size);
  number("raw value size", p.raw_value_size);
  average("raw average value size", p.raw_value_size);
  number("data block size", p.data_size);
  number("index block size", p.index_size);
  number("filter block size", p.filter_size);
  number("smallest seqno", p.smallest_seqno);
  number("largest seqno", p.largest_seqno);
  text("comparator name", p.comparator_name);
  text("filter policy name", p.filter_policy_name);
  text("compression name", p.compression_name);
  number("creation time", p.creation_time);
}

// ---------------------------------------------------------------- files

Status OpenFile(const std::string& path,
                std::unique_ptr<RandomAccessFile>* file, uint64_t* size) {
  Env* env = Env::Default();
  Status s = env->GetFileSize(path, size);
  if (s.ok()) s = env->NewRandomAccessFile(path, file, EnvOptions());
  return s;
}

// Expands path into the files to process: path itself, or the *.sst files
// in it (sorted) if it is a directory.
Status ExpandPath(const std::string& path, std::vector<std::string>* files,
                  bool* is_dir) {
  std::error_code ec;
  *is_dir = std::filesystem::is_directory(path, ec);
  if (!*is_dir) {
    files->push_back(path);
    return Status::OK();
  }
  std::vector<std::string> children;
  Status s = Env::Default()->GetChildren(path, &children);
  if (!s.ok()) return s;
  std::sort(children.begin(), children.end());
  size_t found = 0;
  for (const std::string& child : children) {
    const std::string full =
        path.back() == '/' ? path + child : path + "/" + child;
    if (child.size() > 4 && child.compare(child.size() - 4, 4, ".sst") == 0 &&
        !std::filesystem::is_directory(full, ec)) {
      files->push_back(full);
      found++;
    }
  }
  if (found == 0) return Status::NotFound(path, "no *.sst files in directory");
  return Status::OK();
}

// ---------------------------------------------------------------- walker

enum class BlockKind { kMetaindex, kProperties, kFilter, kMeta, kIndex, kData };

const char* BlockKindName(BlockKind kind) {
  switch (kind) {
    case BlockKind::kMetaindex:
      return "metaindex";
    case BlockKind::kProperties:
      return "properties";
    case BlockKind::kFilter:
      return "filter";
    case BlockKind::kMeta:
      return "meta";
    case BlockKind::kIndex:
      return "index";
    case BlockKind::kData:
      return "data";
  }
  return "unknown";
}

// One block as read from the file.
struct BlockInfo {
  BlockKind kind = BlockKind::kData;
  std::string name;     // metaindex key of a meta block, else ""
  uint64_t number = 0;  // data blocks: 0, 1, ...
  BlockHandle handle;   // payload position and stored size
  CompressionType stored = kNoCompression;  // type byte of the trailer
  Slice contents;                           // uncompressed payload
};

// Sums over a walk.
struct WalkStats {
  uint64_t blocks = 0;
  uint64_t data_blocks = 0;
  uint64_t compressed_data_blocks = 0;
  uint64_t data_raw_bytes = 0;     // uncompressed data block payloads
  uint64_t data_stored_bytes = 0;  // stored data block payloads
  uint64_t entries = 0;
};

// Reads a table block by block from its footer, verifying every checksum
// (docs/format/sst.md): metaindex, every meta block it names, index, data
// blocks in index order. Also checks what the block checksums cannot: the
// metaindex names a properties block, data blocks tile [0, data_size) in
// index order, every data key is a well-formed internal key, keys increase
// across the table, each block's last key is <= its index separator, and
// the counts agree with the properties. Stops at the first problem, and
// returns it prefixed with the file name. Subclasses observe the walk.
class TableWalker {
 public:
  // file (borrowed; must outlive the walker) holds file_size bytes; name is
  // only used in messages.
  TableWalker(RandomAccessFile* file, uint64_t file_size, std::string name)
      : file_(file),
        file_size_(file_size),
        name_(std::move(name)),
        icmp_(BytewiseComparator()) {}
  virtual ~TableWalker() = default;

  // The full walk.
  Status Walk() { return Run(/*properties_only=*/false).WithContext(name_); }

  // Footer, metaindex and properties block only (readable even when the
  // index or data blocks are damaged).
  Status ReadProperties(TableProperties* props) {
    Status s = Run(/*properties_only=*/true);
    if (s.ok()) *props = props_;
    return s.WithContext(name_);
  }

  const WalkStats& stats() const { return stats_; }
  const TableProperties& properties() const { return props_; }

 protected:
  virtual void OnFooter(const Footer& /*footer*/) {}
  // Called for every block once it is read and checksummed.
  virtual void OnBlock(const BlockInfo& /*info*/) {}
  // Called for every entry of the metaindex, properties, index and data
  // blocks, after the block's OnBlock.
  virtual void OnEntry(BlockKind /*kind*/, const Slice& /*key*/,
                       const Slice& /*value*/) {}

 private:
  Status Run(bool properties_only);
  Status ReadFooter(Footer* footer);
  Status CheckHandle(const BlockHandle& handle) const;
  // Reads, checksums and uncompresses the block at handle into *contents
  // (owned by *block) and reports it to OnBlock.
  Status ReadBlockAt(BlockKind kind, const std::string& name, uint64_t number,
                     const BlockHandle& handle, std::unique_ptr<Block>* block,
                     Slice* contents = nullptr);
  // Iterates block's entries calling fn(key, value) for each (stopping at
  // its first error), then reports the iterator's status.
  template <typename Fn>
  Status ForEachEntry(BlockKind kind, const Block& block,
                      const BlockHandle& handle, const Comparator* cmp, Fn fn);
  Status WalkMetaBlocks(const Footer& footer, bool properties_only);
  Status WalkIndex(const BlockHandle& handle,
                   std::vector<std::pair<std::string, BlockHandle>>* entries);
  Status WalkData(uint64_t number, const std::string& separator,
                  const BlockHandle& handle, uint64_t* expected_offset);

  RandomAccessFile* const file_;
  const uint64_t file_size_;
  const std::string name_;
  const InternalKeyComparator icmp_;
  TableProperties props_;
  WalkStats stats_;
  std::string last_key_;  // the last data key seen, for the order check
  bool has_last_key_ = false;
};

Status TableWalker::ReadFooter(Footer* footer) {
  if (file_size_ < Footer::kEncodedLength) {
    return Status::Corruption("file is too short to be a table (" +
                              std::to_string(file_size_) +
                              " bytes): not a CascadeDB SST file");
  }
  char space[Footer::kEncodedLength];
  Slice input;
  const uint64_t offset = file_size_ - Footer::kEncodedLength;
  Status s = file_->Read(offset, Footer::kEncodedLength, &input, space);
  if (!s.ok()) return s;
  if (input.size() != Footer::kEncodedLength) {
    return Status::Corruption("truncated footer read at offset " +
                              std::to_string(offset));
  }
  const uint64_t magic = DecodeFixed64(input.data() + input.size() - 8);
  if (magic != kTableMagicNumber) {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "0x%016" PRIx64, magic);
    return Status::Corruption(std::string("bad table magic number ") + buf +
                              ": not a CascadeDB SST file");
  }
  s = footer->DecodeFrom(&input);
  if (!s.ok()) {
    return Status(s).WithContext("footer at offset " + std::to_string(offset));
  }
  OnFooter(*footer);
  return Status::OK();
}

Status TableWalker::CheckHandle(const BlockHandle& handle) const {
  // Every block and its trailer lie before the footer.
  const uint64_t limit = file_size_ - Footer::kEncodedLength;
  if (handle.offset() > limit || handle.size() > limit - handle.offset() ||
      kBlockTrailerSize > limit - handle.offset() - handle.size()) {
    return Status::Corruption("block handle out of range (" +
                              FormatHandle(handle) + ", file size " +
                              std::to_string(file_size_) + ")");
  }
  return Status::OK();
}

Status TableWalker::ReadBlockAt(BlockKind kind, const std::string& name,
                                uint64_t number, const BlockHandle& handle,
                                std::unique_ptr<Block>* block,
                                Slice* contents_out) {
  Status s = CheckHandle(handle);
  BlockContents contents;
  if (s.ok()) s = ReadBlock(file_, /*verify_checksum=*/true, handle, &contents);
  // The trailer's type byte, for display (ReadBlock has checked it).
  char type_byte = 0;
  Slice type_slice;
  if (s.ok()) {
    s = file_->Read(handle.offset() + handle.size(), 1, &type_slice,
                    &type_byte);
  }
  if (s.ok() && type_slice.size() != 1) {
    s = Status::Corruption("truncated block trailer at offset " +
                           std::to_string(handle.offset()));
  }
  if (!s.ok()) {
    return s.WithContext(std::string(BlockKindName(kind)) + " block");
  }
  block->reset(new Block(contents));  // owns contents from here on
  BlockInfo info;
  info.kind = kind;
  info.name = name;
  info.number = number;
  info.handle = handle;
  info.stored = static_cast<CompressionType>(type_slice[0]);
  info.contents = contents.data;
  if (contents_out != nullptr) *contents_out = contents.data;
  stats_.blocks++;
  if (kind == BlockKind::kData) {
    stats_.data_blocks++;
    if (info.stored != kNoCompression) stats_.compressed_data_blocks++;
    stats_.data_raw_bytes += contents.data.size();
    stats_.data_stored_bytes += handle.size();
  }
  OnBlock(info);
  return Status::OK();
}

template <typename Fn>
Status TableWalker::ForEachEntry(BlockKind kind, const Block& block,
                                 const BlockHandle& handle,
                                 const Comparator* cmp, Fn fn) {
  std::unique_ptr<Iterator> it(block.NewIterator(cmp));
  Status s;
  for (it->SeekToFirst(); s.ok() && it->Valid(); it->Next()) {
    s = fn(it->key(), it->value());
  }
  if (s.ok()) s = it->status();
  if (!s.ok()) {
    return s.WithContext(std::string(BlockKindName(kind)) +
                         " block at offset " + std::to_string(handle.offset()));
  }
  return s;
}

Status TableWalker::Run(bool properties_only) {
  Footer footer;
  Status s = ReadFooter(&footer);
  if (s.ok()) s = WalkMetaBlocks(footer, properties_only);
  if (!s.ok() || properties_only) return s;

  std::vector<std::pair<std::string, BlockHandle>> index;
  s = WalkIndex(footer.index_handle(), &index);
  uint64_t expected_offset = 0;
  for (size_t i = 0; s.ok() && i < index.size(); i++) {
    s = WalkData(i, index[i].first, index[i].second, &expected_offset);
  }
  if (!s.ok()) return s;
  if (expected_offset != props_.data_size) {
    return Status::Corruption("data blocks end at offset " +
                              std::to_string(expected_offset) +
                              " but the properties say data_size=" +
                              std::to_string(props_.data_size));
  }
  if (stats_.data_blocks != props_.num_data_blocks ||
      stats_.entries != props_.num_entries) {
    return Status::Corruption(
        "found " + std::to_string(stats_.data_blocks) + " data blocks and " +
        std::to_string(stats_.entries) + " entries but the properties say " +
        std::to_string(props_.num_data_blocks) + " and " +
        std::to_string(props_.num_entries));
  }
  return Status::OK();
}

Status TableWalker::WalkMetaBlocks(const Footer& footer, bool properties_only) {
  std::unique_ptr<Block> metaindex;
  Status s = ReadBlockAt(BlockKind::kMetaindex, "", 0,
                         footer.metaindex_handle(), &metaindex);
  if (!s.ok()) return s;
  std::vector<std::pair<std::string, BlockHandle>> metas;
  s = ForEachEntry(
      BlockKind::kMetaindex, *metaindex, footer.metaindex_handle(),
      BytewiseComparator(), [&](const Slice& key, const Slice& value) {
        OnEntry(BlockKind::kMetaindex, key, value);
        BlockHandle h;
        Slice v = value;
        Status hs = h.DecodeFrom(&v);
        if (!hs.ok()) {
          return hs.WithContext("entry '" + FormatBytes(key) + "'");
        }
        metas.emplace_back(key.ToString(), h);
        return Status::OK();
      });
  if (!s.ok()) return s;

  bool has_properties = false;
  for (const auto& meta : metas) {
    const std::string& name = meta.first;
    const BlockHandle& handle = meta.second;
    BlockKind kind = BlockKind::kMeta;
    if (name == kPropertiesBlockName) {
      kind = BlockKind::kProperties;
    } else if (Slice(name).starts_with(kFilterBlockPrefix)) {
      kind = BlockKind::kFilter;
    }
    // The properties must stay readable when other blocks are damaged.
    if (properties_only && kind != BlockKind::kProperties) continue;
    std::unique_ptr<Block> block;
    Slice contents;
    s = ReadBlockAt(kind, name, 0, handle, &block, &contents);
    if (!s.ok()) return s;
    if (kind != BlockKind::kProperties) continue;
    has_properties = true;
    s = ForEachEntry(kind, *block, handle, BytewiseComparator(),
                     [&](const Slice& key, const Slice& value) {
                       OnEntry(BlockKind::kProperties, key, value);
                       return Status::OK();
                     });
    if (!s.ok()) return s;
    s = DecodeTableProperties(contents, &props_);
    if (!s.ok()) {
      return s.WithContext("properties block at offset " +
                           std::to_string(handle.offset()));
    }
  }
  if (!has_properties) {
    return Status::Corruption("missing properties block");
  }
  return Status::OK();
}

Status TableWalker::WalkIndex(
    const BlockHandle& handle,
    std::vector<std::pair<std::string, BlockHandle>>* entries) {
  // The index follows the data blocks (table/table.cc, CheckLayout).
  if (handle.offset() < props_.data_size) {
    return Status::Corruption("index block handle (" + FormatHandle(handle) +
                              ") overlaps the data blocks (data_size=" +
                              std::to_string(props_.data_size) + ")");
  }
  std::unique_ptr<Block> block;
  Status s = ReadBlockAt(BlockKind::kIndex, "", 0, handle, &block);
  if (!s.ok()) return s;
  return ForEachEntry(
      BlockKind::kIndex, *block, handle, &icmp_,
      [&](const Slice& key, const Slice& value) {
        OnEntry(BlockKind::kIndex, key, value);
        const std::string entry = "entry " + std::to_string(entries->size());
        BlockHandle h;
        Slice v = value;
        Status hs = h.DecodeFrom(&v);
        if (!hs.ok()) return hs.WithContext(entry);
        if (!entries->empty() &&
            icmp_.Compare(entries->back().first, key) >= 0) {
          return Status::Corruption(entry, "index keys out of order");
        }
        entries->emplace_back(key.ToString(), h);
        return Status::OK();
      });
}

Status TableWalker::WalkData(uint64_t number, const std::string& separator,
                             const BlockHandle& handle,
                             uint64_t* expected_offset) {
  const std::string what = "data block " + std::to_string(number);
  // Data blocks start at offset 0 and are contiguous (table_builder.cc).
  if (handle.offset() != *expected_offset) {
    return Status::Corruption(what + " (" + FormatHandle(handle) +
                              ") does not start where the previous one "
                              "ends (offset " +
                              std::to_string(*expected_offset) + ")");
  }
  std::unique_ptr<Block> block;
  Status s = ReadBlockAt(BlockKind::kData, "", number, handle, &block);
  if (!s.ok()) return s;
  const uint64_t end = handle.offset() + handle.size() + kBlockTrailerSize;
  if (end > props_.data_size) {
    return Status::Corruption(
        what + " (" + FormatHandle(handle) +
        ") extends past data_size=" + std::to_string(props_.data_size));
  }
  uint64_t in_block = 0;
  s = ForEachEntry(
      BlockKind::kData, *block, handle, &icmp_,
      [&](const Slice& key, const Slice& value) {
        const std::string entry = "entry " + std::to_string(in_block++);
        ParsedInternalKey parsed;
        Status ps = ParseInternalKey(key, &parsed);
        if (!ps.ok()) return ps.WithContext(entry);
        if (has_last_key_ && icmp_.Compare(last_key_, key) >= 0) {
          return Status::Corruption(
              entry, "keys out of order: " + FormatInternalKey(key, false) +
                         " after " + FormatInternalKey(last_key_, false));
        }
        last_key_.assign(key.data(), key.size());
        has_last_key_ = true;
        stats_.entries++;
        OnEntry(BlockKind::kData, key, value);
        return Status::OK();
      });
  if (!s.ok()) return s;
  if (has_last_key_ && icmp_.Compare(last_key_, separator) > 0) {
    return Status::Corruption(
        what + ": last key " + FormatInternalKey(last_key_, false) +
        " is after its index key " + FormatInternalKey(separator, false));
  }
  *expected_offset = end;
  return Status::OK();
}

// ---------------------------------------------------------------- raw

// Walks a table printing every block (the raw command).
class RawPrinter : public TableWalker {
 public:
  RawPrinter(RandomAccessFile* file, uint64_t file_size,
             const std::string& name, bool hex)
      : TableWalker(file, file_size, name), hex_(hex) {}

 protected:
  void OnFooter(const Footer& footer) override {
    std::printf(
        "Footer:\n  metaindex handle: %s\n  index handle: %s\n"
        "  format version: %u\n  magic: 0x%016" PRIx64 "\n",
        FormatHandle(footer.metaindex_handle()).c_str(),
        FormatHandle(footer.index_handle()).c_str(), footer.format_version(),
        kTableMagicNumber);
  }

  void OnBlock(const BlockInfo& info) override {
    std::string title = BlockKindName(info.kind);
    title[0] = static_cast<char>(title[0] - 'a' + 'A');
    title += " block";
    if (info.kind == BlockKind::kData) {
      title += " " + std::to_string(info.number);
    }
    if (!info.name.empty()) title += " '" + FormatBytes(info.name) + "'";
    std::printf("\n%s (%s, compression %s, %zu bytes uncompressed):\n",
                title.c_str(), FormatHandle(info.handle).c_str(),
                CompressionTypeName(info.stored), info.contents.size());
    kind_ = info.kind;
    entry_ = 0;
    if (info.kind == BlockKind::kFilter || info.kind == BlockKind::kMeta) {
      std::printf("  %zu bytes of %s data\n", info.contents.size(),
                  BlockKindName(info.kind));
      return;
    }
    PrintRestarts(info.contents);
  }

  void OnEntry(BlockKind kind, const Slice& key, const Slice& value) override {
    std::string line = "  [" + std::to_string(entry_++) + "] ";
    switch (kind) {
      case BlockKind::kMetaindex:
      case BlockKind::kIndex: {
        line += kind == BlockKind::kIndex ? FormatInternalKey(key, hex_)
                                          : "'" + FormatBytes(key) + "'";
        BlockHandle h;
        Slice v = value;
        line +=
            " => " + (h.DecodeFrom(&v).ok()
                          ? FormatHandle(h)
                          : "<bad handle " + FormatBytes(value, true) + ">");
        break;
      }
      case BlockKind::kProperties: {
        Slice v = value;
        uint64_t number = 0;
        const bool is_number =
            GetVarint64(&v, &number) && v.empty() && !IsStringProperty(key);
        line += FormatBytes(key) + " => " +
                (is_number ? std::to_string(number) : FormatBytes(value));
        break;
      }
      default:
        line +=
            FormatInternalKey(key, hex_) + " => " + FormatBytes(value, hex_);
        break;
    }
    PrintLine(line);
  }

 private:
  static bool IsStringProperty(const Slice& name) {
    return name == Slice("cascadedb.comparator") ||
           name == Slice("cascadedb.compression") ||
           name == Slice("cascadedb.filter.policy");
  }

  // Prints the restart array of a block and the key at each restart point.
  // The block is not trusted: every offset is bounds-checked here.
  void PrintRestarts(const Slice& block) {
    if (block.size() < 4) {
      std::printf("  restart points: <block too short>\n");
      return;
    }
    const uint32_t num = DecodeFixed32(block.data() + block.size() - 4);
    const uint64_t array_bytes = (uint64_t{num} + 1) * 4;
    if (num == 0 || array_bytes > block.size()) {
      std::printf("  restart points: <bad restart array, count %u>\n", num);
      return;
    }
    const size_t restart_offset = block.size() - array_bytes;
    std::printf("  restart points (%u):\n", num);
    for (uint32_t i = 0; i < num; i++) {
      const uint32_t offset =
          DecodeFixed32(block.data() + restart_offset + 4 * i);
      std::string line = "    offset " + std::to_string(offset) + ": ";
      const char* p = block.data() + offset;
      const char* limit = block.data() + restart_offset;
      uint32_t shared = 0, non_shared = 0, value_length = 0;
      if (offset >= restart_offset ||
          (p = GetVarint32Ptr(p, limit, &shared)) == nullptr ||
          (p = GetVarint32Ptr(p, limit, &non_shared)) == nullptr ||
          (p = GetVarint32Ptr(p, limit, &value_length)) == nullptr ||
          shared != 0 || non_shared > static_cast<size_t>(limit - p)) {
        line += "<bad restart entry>";
      } else {
        const Slice key(p, non_shared);
        line += kind_ == BlockKind::kIndex || kind_ == BlockKind::kData
                    ? FormatInternalKey(key, hex_)
                    : "'" + FormatBytes(key) + "'";
      }
      PrintLine(line);
    }
  }

  const bool hex_;
  BlockKind kind_ = BlockKind::kData;  // of the block being printed
  uint64_t entry_ = 0;                 // entries printed in that block
};

// ---------------------------------------------------------------- commands

uint64_t NowMicros() { return Env::Default()->NowMicros(); }

class SstDump {
 public:
  explicit SstDump(const DumpOptions& opts)
      : opts_(opts),
        icmp_(BytewiseComparator()),
        bloom_(NewBloomFilterPolicy(kBloomBitsPerKey)) {}

  // Runs opts.command on the file at path.
  Status Run(const std::string& path) {
    const std::string& c = opts_.command;
    if (c == "scan") return Scan(path, /*print=*/true);
    if (c == "check") return Scan(path, /*print=*/false);
    if (c == "verify") return Verify(path);
    if (c == "raw") return Raw(path);
    if (c == "recompress") return Recompress(path);
    return Identify(path);
  }

  // Prints the properties block of the file at path.
  Status ShowProperties(const std::string& path) {
    std::unique_ptr<RandomAccessFile> file;
    uint64_t size = 0;
    Status s = OpenFile(path, &file, &size);
    if (!s.ok()) return s;
    TableProperties props;
    s = TableWalker(file.get(), size, path).ReadProperties(&props);
    if (s.ok()) PrintProperties(props);
    return s;
  }

 private:
  TableOptions ReadTableOptions() const {
    TableOptions options;
    options.comparator = &icmp_;
    options.key_format = InternalKeyFormat::Get();
    options.filter_policy = bloom_.get();
    options.block_cache = nullptr;
    return options;
  }

  // Opens the table at path. The footer and properties are read by a
  // TableWalker first, whose errors say plainly when a file is not an SST.
  Status OpenTable(const std::string& path, std::unique_ptr<Table>* table) {
    std::unique_ptr<RandomAccessFile> file;
    uint64_t size = 0;
    Status s = OpenFile(path, &file, &size);
    if (!s.ok()) return s;
    TableProperties props;
    s = TableWalker(file.get(), size, path).ReadProperties(&props);
    if (!s.ok()) return s;
    return Table::Open(ReadTableOptions(), std::move(file), size, path, table);
  }

  Status Scan(const std::string& path, bool print);
  Status Verify(const std::string& path);
  Status Raw(const std::string& path);
  Status Recompress(const std::string& path);
  Status Identify(const std::string& path);

  const DumpOptions& opts_;
  const InternalKeyComparator icmp_;
  const std::unique_ptr<const FilterPolicy> bloom_;
};

Status SstDump::Scan(const std::string& path, bool print) {
  std::unique_ptr<Table> table;
  Status s = OpenTable(path, &table);
  if (!s.ok()) return s;
  ReadOptions read_options;
  read_options.verify_checksums = true;
  read_options.fill_cache = false;
  std::unique_ptr<Iterator> it(table->NewIterator(read_options));
  if (opts_.has_from) {
    // Sorts before every version of the key (dbformat.h).
    InternalKey target(opts_.from, kMaxSequenceNumber, kValueTypeForSeek);
    it->Seek(target.Encode());
  } else {
    it->SeekToFirst();
  }
  uint64_t count = 0;
  std::string last;
  std::string uncompressed;
  for (; it->Valid(); it->Next()) {
    if (opts_.read_num != 0 && count >= opts_.read_num) break;
    ParsedInternalKey ikey;
    s = ParseInternalKey(it->key(), &ikey);
    if (!s.ok()) {
      return s.WithContext(path + ": entry " + std::to_string(count));
    }
    if (opts_.has_to && ikey.user_key.compare(opts_.to) >= 0) break;
    if (count > 0 && icmp_.Compare(last, it->key()) >= 0) {
      return Status::Corruption(
          path, "entry " + std::to_string(count) + ": keys out of order: " +
                    FormatInternalKey(it->key(), false) + " after " +
                    FormatInternalKey(last, false));
    }
    last.assign(it->key().data(), it->key().size());
    if (print) {
      Slice value;  // shown as the DB returns it
      s = ValueAsWritten(ikey.type, it->value(), &uncompressed, &value);
      if (!s.ok()) {
        return s.WithContext(path + ": entry " + std::to_string(count));
      }
      PrintLine("'" + FormatBytes(ikey.user_key, opts_.output_hex) +
                "' seq:" + std::to_string(ikey.sequence) +
                ", type:" + std::to_string(ikey.type) + " => " +
                FormatBytes(value, opts_.output_hex));
    }
    count++;
  }
  s = it->status();
  if (!s.ok() || print) return s;

  const bool whole_file =
      !opts_.has_from && !opts_.has_to && opts_.read_num == 0;
  const uint64_t expected = table->properties().num_entries;
  if (whole_file && count != expected) {
    return Status::Corruption(path, "read " + std::to_string(count) +
                                        " entries but the properties say " +
                                        std::to_string(expected));
  }
  std::printf("%s: OK, %" PRIu64 " entries%s\n", path.c_str(), count,
              whole_file ? "" : " in the range");
  return Status::OK();
}

Status SstDump::Verify(const std::string& path) {
  std::unique_ptr<RandomAccessFile> file;
  uint64_t size = 0;
  Status s = OpenFile(path, &file, &size);
  if (!s.ok()) return s;
  TableWalker walker(file.get(), size, path);
  s = walker.Walk();
  if (!s.ok()) return s;
  // The table reader checks the layout its reads rely on, too.
  std::unique_ptr<Table> table;
  s = Table::Open(ReadTableOptions(), std::move(file), size, path, &table);
  if (!s.ok()) return s;
  const WalkStats& st = walker.stats();
  std::printf("%s: OK, %" PRIu64 " blocks verified (%" PRIu64
              " data blocks), %" PRIu64 " entries\n",
              path.c_str(), st.blocks, st.data_blocks, st.entries);
  return Status::OK();
}

Status SstDump::Raw(const std::string& path) {
  std::unique_ptr<RandomAccessFile> file;
  uint64_t size = 0;
  Status s = OpenFile(path, &file, &size);
  if (!s.ok()) return s;
  std::printf("File: %s (%" PRIu64 " bytes)\n", path.c_str(), size);
  RawPrinter printer(file.get(), size, path, opts_.output_hex);
  s = printer.Walk();
  if (!s.ok()) return s;
  const WalkStats& st = printer.stats();
  std::printf("\nSummary: %" PRIu64 " blocks, %" PRIu64 " data blocks (%" PRIu64
              " compressed), %" PRIu64 " entries\n",
              st.blocks, st.data_blocks, st.compressed_data_blocks, st.entries);
  return Status::OK();
}

std::string CodecLevelName(const Codec& c) {
  if (c.type == kNoCompression || c.type == kSnappyCompression) return "-";
  if (c.level == kDefaultCompressionLevel) return "default";
  return std::to_string(c.level);
}

Status SstDump::Recompress(const std::string& path) {
  std::unique_ptr<Table> table;
  Status s = OpenTable(path, &table);
  if (!s.ok()) return s;
  const TableProperties props = table->properties();

  // Load the entries once, so the timings below measure the builder and
  // the reader only. A value stored compressed on its own is loaded as
  // written (a plain value), so each codec is tried on the data itself.
  std::vector<std::pair<std::string, std::string>> entries;
  {
    std::unique_ptr<Iterator> it(table->NewIterator(ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      std::string key = it->key().ToString();
      std::string value;
      ParsedInternalKey ikey;
      if (ParseInternalKey(key, &ikey).ok() &&
          ikey.type == kTypeValueCompressed) {
        s = UncompressValue(it->value(), &value);
        if (!s.ok()) {
          return s.WithContext(path + ": entry " +
                               std::to_string(entries.size()));
        }
        SetInternalKeyType(&key, kTypeValue);
      } else {
        value = it->value().ToString();
      }
      entries.emplace_back(std::move(key), std::move(value));
    }
    if (!it->status().ok()) return it->status();
  }
  const bool with_filter = props.filter_policy_name == bloom_->Name();
  std::printf("%s: %zu entries, %" PRIu64 " bytes, data blocks %" PRIu64
              " bytes (%s)\n",
              path.c_str(), entries.size(), table->file_size(), props.data_size,
              FormatBytes(props.compression_name).c_str());
  std::printf("block size %zu, filter %s; tables are built in memory\n",
              opts_.block_size, with_filter ? bloom_->Name() : "none");
  std::printf("%-13s %7s %12s %12s %7s %11s %10s %9s\n", "compression", "level",
              "file bytes", "data bytes", "ratio", "compressed", "build ms",
              "read ms");

  for (const Codec& codec : opts_.codecs) {
    const std::string label = std::string(CompressionTypeName(codec.type)) +
                              " level " + CodecLevelName(codec);
    TableOptions options = ReadTableOptions();
    if (!with_filter) options.filter_policy = nullptr;
    options.compression = codec.type;
    options.compression_level = codec.level;
    options.block_size = opts_.block_size;
    options.creation_time = props.creation_time;

    MemoryWritableFile sink;
    const uint64_t build_start = NowMicros();
    TableBuilder builder(options, &sink);
    for (const auto& e : entries) builder.Add(e.first, e.second);
    s = builder.Finish();
    const uint64_t build_micros = NowMicros() - build_start;
    if (!s.ok()) return s.WithContext(path + ": recompress with " + label);

    const uint64_t file_size = sink.contents()->size();
    auto rebuilt =
        std::make_unique<MemoryRandomAccessFile>(std::move(*sink.contents()));
    TableWalker walker(rebuilt.get(), file_size, "table rebuilt with " + label);
    s = walker.Walk();
    if (!s.ok()) return s;
    const WalkStats st = walker.stats();

    const uint64_t read_start = NowMicros();
    std::unique_ptr<Table> trial;
    s = Table::Open(options, std::move(rebuilt), file_size,
                    "table rebuilt with " + label, &trial);
    uint64_t count = 0;
    if (s.ok()) {
      std::unique_ptr<Iterator> it(trial->NewIterator(ReadOptions()));
      for (it->SeekToFirst(); it->Valid(); it->Next()) count++;
      s = it->status();
    }
    const uint64_t read_micros = NowMicros() - read_start;
    if (!s.ok()) return s;
    if (count != entries.size()) {
      return Status::Corruption("table rebuilt with " + label + " holds " +
                                std::to_string(count) + " entries, not " +
                                std::to_string(entries.size()));
    }
    const double ratio =
        st.data_stored_bytes == 0
            ? 1.0
            : static_cast<double>(st.data_raw_bytes) / st.data_stored_bytes;
    const std::string compressed = std::to_string(st.compressed_data_blocks) +
                                   "/" + std::to_string(st.data_blocks);
    std::printf("%-13s %7s %12" PRIu64 " %12" PRIu64
                " %6.2fx %11s %10.2f %9.2f\n",
                CompressionTypeName(codec.type), CodecLevelName(codec).c_str(),
                file_size, st.data_stored_bytes, ratio, compressed.c_str(),
                build_micros / 1000.0, read_micros / 1000.0);
  }
  return Status::OK();
}

Status SstDump::Identify(const std::string& path) {
  std::unique_ptr<Table> table;
  Status s = OpenTable(path, &table);
  if (!s.ok()) return s;
  std::printf("%s: valid CascadeDB SST (%" PRIu64 " entries, %" PRIu64
              " data blocks, %" PRIu64 " bytes)\n",
              path.c_str(), table->properties().num_entries,
              table->properties().num_data_blocks, table->file_size());
  return Status::OK();
}

// ---------------------------------------------------------------- main

void ReportError(const std::string& message) {
  std::fflush(stdout);  // keep stdout and stderr in order on a terminal
  PrintError(kTool, message);
}

int Main(int argc, char** argv) {
  FlagParser flags(Flags());
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "-h") == 0) {
      PrintHelp(flags);
      return kExitOk;
    }
  }
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) {
    ReportError(s.message() + " (see --help)");
    return kExitUsage;
  }
  if (flags.GetBool("help")) {
    PrintHelp(flags);
    return kExitOk;
  }
  DumpOptions opts;
  std::vector<std::string> paths;
  s = ParseOptions(flags, &opts, &paths);
  if (!s.ok()) {
    ReportError(s.message());
    return kExitUsage;
  }

  bool failed = false;
  bool any_dir = false;
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    bool is_dir = false;
    s = ExpandPath(path, &files, &is_dir);
    any_dir = any_dir || is_dir;
    if (!s.ok()) {
      ReportError(s.ToString());
      failed = true;
    }
  }
  // Name each file before its output when there are several and the
  // output lines do not name it themselves.
  const bool headers =
      (files.size() > 1 || any_dir) &&
      (opts.show_properties || opts.command == "scan" || opts.command == "raw");
  SstDump dump(opts);
  for (const std::string& file : files) {
    if (headers) std::printf("Process %s\n", file.c_str());
    s = dump.Run(file);
    if (!s.ok()) {
      ReportError(s.ToString());
      failed = true;
    }
    if (opts.show_properties) {
      s = dump.ShowProperties(file);
      if (!s.ok()) {
        ReportError(s.ToString());
        failed = true;
      }
    }
  }
  std::fflush(stdout);
  return failed ? kExitError : kExitOk;
}

}  // namespace
}  // namespace cascadedb

int main(int argc, char** argv) { return cascadedb::Main(argc, argv); }

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// ldb: inspects and maintains a CascadeDB database from the command line,
// with RocksDB's ldb command and flag names.
//
//   ldb --db=PATH [--hex|--key_hex|--value_hex] [--create_if_missing]
//       COMMAND [ARGS] [command flags]
//
// Read-only commands (get, scan, dump, idump, dump_live_files, approxsize,
// stats, property) open the database with DB::OpenForReadOnly, which
// changes nothing on disk and takes no LOCK; manifest_dump, dump_wal and
// checkconsistency read the files directly. Writing commands (put, delete,
// batchput, compact) open it with DB::Open, which takes the LOCK; repair
// runs the Repairer (db/repair.h). Bad input never crashes the tool: it
// prints one line on stderr ("ldb: <problem>") and exits with kExitError (a
// missing, locked or damaged database, a failed operation) or kExitUsage (a
// bad command line).
//
// Thread safety: a single-threaded program.

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "cascadedb/iterator.h"
#include "cascadedb/options.h"
#include "cascadedb/slice.h"
#include "cascadedb/status.h"
#include "cascadedb/write_batch.h"
#include "db/db_impl.h"
#include "db/dbformat.h"
#include "db/filename.h"
#include "db/log_reader.h"
#include "db/repair.h"
#include "db/value_compression.h"
#include "db/version_edit.h"
#include "db/write_batch_internal.h"
#include "tools/tool_util.h"

namespace cascadedb {
namespace {

constexpr char kTool[] = "ldb";

// ---------------------------------------------------------------- commands

// How a command gets at the database.
enum class Access {
  kReadOnly,  // DB::OpenForReadOnly
  kWrite,     // DB::Open (takes the LOCK)
  kFiles,     // reads files directly, never writes
  kRepair,    // RepairDB
};

struct CommandInfo {
  const char* name;
  const char* args;  // for the help
  const char* help;
  Access access;
  std::vector<std::string> flags;  // command flags it accepts
  int min_args;
  int max_args;  // -1: unlimited
};

const std::vector<CommandInfo>& Commands() {
  static const std::vector<CommandInfo> commands = {
      {"get", "KEY", "print the value of KEY", Access::kReadOnly, {}, 1, 1},
      {"put", "KEY VALUE", "set KEY to VALUE", Access::kWrite, {}, 2, 2},
      {"delete", "KEY", "delete KEY", Access::kWrite, {}, 1, 1},
      {"batchput",
       "K V [K V ...]",
       "set several keys in one atomic batch",
       Access::kWrite,
       {},
       2,
       -1},
      {"scan",
       "[--from=K] [--to=K] [--max_keys=N]",
       "print 'key : value' for the keys in [from, to)",
       Access::kReadOnly,
       {"from", "to", "max_keys"},
       0,
       0},
      {"dump",
       "[--from --to --max_keys] [--count_only] [--stats]",
       "print 'key ==> value' for every live key; or count them",
       Access::kReadOnly,
       {"from", "to", "max_keys", "count_only", "stats"},
       0,
       0},
      {"idump",
       "[--from --to --max_keys] [--count_only]",
       "print internal entries: 'key' @ seq : type => value",
       Access::kReadOnly,
       {"from", "to", "max_keys", "count_only"},
       0,
       0},
      {"manifest_dump",
       "[--path=MANIFEST] [--verbose]",
       "print every version edit of the MANIFEST, then the file set",
       Access::kFiles,
       {"path", "verbose"},
       0,
       0},
      {"dump_wal",
       "--walfile=FILE [--header] [--print_value]",
       "print every write batch of a WAL",
       Access::kFiles,
       {"walfile", "header", "print_value"},
       0,
       0},
      {"dump_live_files",
       "",
       "list the live SSTs by level, and the live WALs",
       Access::kReadOnly,
       {},
       0,
       0},
      {"approxsize",
       "[--from=K] [--to=K]",
       "print the approximate SST bytes of the keys in [from, to)",
       Access::kReadOnly,
       {"from", "to"},
       0,
       0},
      {"compact",
       "[--from=K] [--to=K]",
       "compact the keys in [from, to] (default: everything)",
       Access::kWrite,
       {"from", "to"},
       0,
       0},
      {"checkconsistency",
       "",
       "check that the MANIFEST's files exist with their sizes, no orphans",
       Access::kFiles,
       {},
       0,
       0},
      {"repair",
       "",
       "rebuild the MANIFEST from the SSTs and WALs (RepairDB)",
       Access::kRepair,
       {},
       0,
       0},
      {"stats",
       "",
       "print the cascadedb.stats property",
       Access::kReadOnly,
       {},
       0,
       0},
      {"property",
       "NAME",
       "print a property (text, integer or map; see docs/properties.md)",
       Access::kReadOnly,
       {},
       1,
       1},
  };
  return commands;
}

const CommandInfo* FindCommand(const std::string& name) {
  for (const CommandInfo& c : Commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

// Flags every command accepts.
const char* const kGlobalFlags[] = {
    "db", "hex", "key_hex", "value_hex", "create_if_missing", "help"};

std::vector<FlagSpec> Flags() {
  return {
      {"db", true, "PATH", "the database directory"},
      {"hex", false, "", "keys and values are hex, in and out (0x optional)"},
      {"key_hex", false, "", "keys are hex, in and out"},
      {"value_hex", false, "", "values are hex, in and out"},
      {"create_if_missing", false, "",
       "put/batchput/...: create the database if missing"},
      {"from", true, "K", "first key (inclusive)"},
      {"to", true, "K", "last key (exclusive; compact: inclusive)"},
      {"max_keys", true, "N", "print at most N entries"},
      {"count_only", false, "", "dump/idump: only count the entries"},
      {"stats", false, "", "dump: print cascadedb.stats first"},
      {"path", true, "FILE", "manifest_dump: the MANIFEST to read"},
      {"verbose", false, "", "manifest_dump: also print each record in hex"},
      {"walfile", true, "FILE", "dump_wal: the WAL to read"},
      {"header", false, "", "dump_wal: print a header line first"},
      {"print_value", false, "", "dump_wal: print values too"},
      {"help", false, "", "print this help"},
  };
}

void PrintHelp(const FlagParser& flags) {
  std::printf(
      "ldb: inspect and maintain a CascadeDB database\n\n"
      "usage: ldb --db=PATH [--hex|--key_hex|--value_hex] "
      "[--create_if_missing]\n           COMMAND [ARGS] [flags]\n\n"
      "commands:\n");
  for (const CommandInfo& c : Commands()) {
    std::printf("  %s%s%s\n      %s\n", c.name, c.args[0] == '\0' ? "" : " ",
                c.args, c.help);
  }
  std::printf("\nflags:\n%s", flags.Help().c_str());
  std::printf(
      "\nRead-only commands (get, scan, dump, idump, manifest_dump, dump_wal,\n"
      "dump_live_files, approxsize, checkconsistency, stats, property) never\n"
      "change the directory. Keys and values are shown as text when printable\n"
      "(\\ and other bytes escaped), else as 0x-prefixed hex. Exit codes: 0 "
      "OK,\n1 an error (missing, locked or damaged database, key not found), "
      "2 a bad\ncommand line.\n");
}

// ---------------------------------------------------------------- output

void PrintLine(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
}

void ReportError(const std::string& message) {
  std::fflush(stdout);  // keep stdout and stderr in order on a terminal
  PrintError(kTool, message);
}

// Prints what the repairer logs, one line each.
class StdoutLogger : public Logger {
 public:
  void Logv(const char* format, va_list ap) override {
    std::vfprintf(stdout, format, ap);
    std::fputc('\n', stdout);
  }
};

std::string FileLine(int level, uint64_t number, uint64_t size,
                     const std::string& smallest, const std::string& largest,
                     uint64_t smallest_seqno, uint64_t largest_seqno,
                     bool hex) {
  char buf[160];
  std::snprintf(buf, sizeof(buf),
                "  L%d %s %" PRIu64 " bytes seq [%" PRIu64 ", %" PRIu64 "] ",
                level, TableFileBaseName(number).c_str(), size, smallest_seqno,
                largest_seqno);
  return buf + ("'" + FormatBytes(smallest, hex) + "' .. '" +
                FormatBytes(largest, hex) + "'");
}

// ---------------------------------------------------------------- MANIFEST

// The state a MANIFEST's edits add up to.
struct ManifestState {
  std::string comparator;
  uint64_t log_number = 0;
  uint64_t next_file_number = 0;
  SequenceNumber last_sequence = 0;
  bool has_log_number = false;
  bool has_next_file_number = false;
  bool has_last_sequence = false;
  std::map<uint64_t, std::pair<int, FileMetaData>> files;  // by number
  uint64_t edits = 0;
  std::string torn_tail;  // what a torn final record dropped, if any
};

// Collects what the log reader drops.
struct Reporter : public log::Reader::Reporter {
  Status corruption;      // the first damage followed by data, or I/O error
  std::string torn_tail;  // the torn tail, if any
  void Corruption(size_t /*bytes*/, const Status& s) override {
    if (corruption.ok()) corruption = s;
  }
  void TornTail(size_t /*bytes*/, const Status& s) override {
    torn_tail = s.ToString();
  }
};

using EditVisitor = std::function<void(uint64_t offset, const Slice& record,
                                       const VersionEdit& edit)>;

// Replays the MANIFEST at path into *state, calling visit (if set) for each
// edit. A torn final record is tolerated (noted in state->torn_tail), as
// the engine does; other damage, a bad edit or an edit that contradicts
// the file set so far is Corruption naming the file and offset.
Status ReadManifest(const std::string& path, ManifestState* state,
                    const EditVisitor& visit) {
  std::unique_ptr<SequentialFile> file;
  Status s = Env::Default()->NewSequentialFile(path, &file, EnvOptions());
  if (!s.ok()) return s;
  Reporter reporter;
  log::Reader reader(file.get(), &reporter, /*checksum=*/true, 0);
  Slice record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    if (!reporter.corruption.ok()) break;  // damage before this record
    const uint64_t offset = reader.LastRecordOffset();
    const std::string where =
        path + ": edit at offset " + std::to_string(offset);
    VersionEdit edit;
    s = edit.DecodeFrom(record);
    if (!s.ok()) return Status::Corruption(where, s.message());
    if (visit) visit(offset, record, edit);
    state->edits++;
    if (edit.has_comparator()) state->comparator = edit.comparator();
    if (edit.has_log_number()) {
      state->log_number = edit.log_number();
      state->has_log_number = true;
    }
    if (edit.has_next_file_number()) {
      state->next_file_number = edit.next_file_number();
      state->has_next_file_number = true;
    }
    if (edit.has_last_sequence()) {
      state->last_sequence = edit.last_sequence();
      state->has_last_sequence = true;
    }
    for (const auto& [level, number] : edit.deleted_files()) {
      auto it = state->files.find(number);
      if (it == state->files.end() || it->second.first != level) {
        return Status::Corruption(
            where, "deletes " + TableFileBaseName(number) + " at L" +
                       std::to_string(level) + ", which is not there");
      }
      state->files.erase(it);
    }
    for (const auto& [level, f] : edit.new_files()) {
      if (state->files.count(f.number) != 0) {
        return Status::Corruption(
            where, "adds " + TableFileBaseName(f.number) + " twice");
      }
      state->files[f.number] = {level, f};
    }
  }
  if (!reporter.corruption.ok()) {
    return reporter.corruption.WithContext(path);
  }
  state->torn_tail = reporter.torn_tail;
  return Status::OK();
}

// The path of the MANIFEST that CURRENT names.
Status CurrentManifest(const std::string& db, std::string* path) {
  std::string current;
  Status s = ReadFileToString(Env::Default(), CurrentFileName(db), &current);
  if (s.IsNotFound()) {
    return Status::NotFound(db, "not a CascadeDB database (no CURRENT file)");
  }
  if (!s.ok()) return s;
  uint64_t number;
  FileType type;
  if (current.empty() || current.back() != '\n' ||
      !ParseFileName(Slice(current.data(), current.size() - 1), &number,
                     &type) ||
      type != FileType::kManifestFile) {
    return Status::Corruption(
        CurrentFileName(db),
        "does not name a MANIFEST: '" + FormatBytes(current) + "'");
  }
  *path = db + "/" + current.substr(0, current.size() - 1);
  return Status::OK();
}

// ---------------------------------------------------------------- ldb

class Ldb {
 public:
  Ldb(const FlagParser& flags, const CommandInfo& command,
      std::vector<std::string> args)
      : flags_(flags),
        command_(command),
        args_(std::move(args)),
        db_path_(flags.GetString("db")),
        key_hex_(flags.GetBool("hex") || flags.GetBool("key_hex")),
        value_hex_(flags.GetBool("hex") || flags.GetBool("value_hex")) {}

  // Checks and decodes the arguments and flags; InvalidArgument (a usage
  // error) if they are bad.
  Status Prepare();

  // Runs the command.
  Status Run();

 private:
  Status ParseKey(const std::string& what, const std::string& text,
                  std::string* key) const;
  Status ParseValue(const std::string& text, std::string* value) const;
  std::string Key(const Slice& key) const { return FormatBytes(key, key_hex_); }
  std::string Value(const Slice& v) const { return FormatBytes(v, value_hex_); }

  // Checks that db_path_ holds a database (or may be created).
  Status CheckDatabase() const;
  Status OpenDB();

  Status Get();
  Status Put();
  Status Delete();
  Status BatchPut();
  Status Scan(const char* separator, bool count_only);
  Status Dump();
  Status InternalDump();
  Status ManifestDump();
  Status DumpWal();
  Status DumpLiveFiles();
  Status ApproxSize();
  Status Compact();
  Status CheckConsistency();
  Status Repair();
  Status Stats();
  Status Property();

  const FlagParser& flags_;
  const CommandInfo& command_;
  const std::vector<std::string> args_;
  const std::string db_path_;
  const bool key_hex_;
  const bool value_hex_;

  // Decoded by Prepare.
  std::vector<std::string> keys_;  // get/delete: 1; put/batchput: K V ...
  bool has_from_ = false;
  std::string from_;
  bool has_to_ = false;
  std::string to_;
  uint64_t max_keys_ = 0;  // 0: all

  std::unique_ptr<DB> db_;
};

Status Ldb::ParseKey(const std::string& what, const std::string& text,
                     std::string* key) const {
  if (!key_hex_) {
    *key = text;
    return Status::OK();
  }
  Status s = ParseHex(text, key);
  if (!s.ok()) return Status::InvalidArgument(what + ": " + s.message());
  return s;
}

Status Ldb::ParseValue(const std::string& text, std::string* value) const {
  if (!value_hex_) {
    *value = text;
    return Status::OK();
  }
  Status s = ParseHex(text, value);
  if (!s.ok()) return Status::InvalidArgument("value: " + s.message());
  return s;
}

Status Ldb::Prepare() {
  const std::string name = command_.name;
  // Flags that belong to other commands.
  for (const FlagSpec& spec : Flags()) {
    if (!flags_.IsSet(spec.name)) continue;
    const bool global =
        std::find_if(std::begin(kGlobalFlags), std::end(kGlobalFlags),
                     [&](const char* g) { return spec.name == g; }) !=
        std::end(kGlobalFlags);
    if (!global && std::find(command_.flags.begin(), command_.flags.end(),
                             spec.name) == command_.flags.end()) {
      return Status::InvalidArgument("flag --" + spec.name +
                                     " does not apply to " + name);
    }
  }
  const int n = static_cast<int>(args_.size());
  if (n < command_.min_args ||
      (command_.max_args >= 0 && n > command_.max_args)) {
    const std::string got = " (got " + std::to_string(n) + ")";
    if (command_.max_args == 0) {
      return Status::InvalidArgument(name + " takes no arguments" + got);
    }
    return Status::InvalidArgument(name + " needs " + command_.args + got);
  }
  if (name == "batchput" && n % 2 != 0) {
    return Status::InvalidArgument(
        "batchput takes key/value pairs, got an odd number of arguments (" +
        std::to_string(n) + ")");
  }
  if (name == "get" || name == "delete") {
    keys_.resize(1);
    Status s = ParseKey("key", args_[0], &keys_[0]);
    if (!s.ok()) return s;
  } else if (name == "put" || name == "batchput") {
    keys_.resize(args_.size());
    for (size_t i = 0; i < args_.size(); i += 2) {
      Status s = ParseKey("key", args_[i], &keys_[i]);
      if (s.ok()) s = ParseValue(args_[i + 1], &keys_[i + 1]);
      if (!s.ok()) return s;
    }
  }
  has_from_ = flags_.IsSet("from");
  has_to_ = flags_.IsSet("to");
  Status s;
  if (has_from_) s = ParseKey("--from", flags_.GetString("from"), &from_);
  if (s.ok() && has_to_) s = ParseKey("--to", flags_.GetString("to"), &to_);
  if (s.ok()) s = flags_.GetUint64("max_keys", 0, &max_keys_);
  if (!s.ok()) return s;

  const bool needs_db =
      !(name == "manifest_dump" && flags_.IsSet("path")) && name != "dump_wal";
  if (needs_db && db_path_.empty()) {
    return Status::InvalidArgument("missing --db=PATH");
  }
  if (name == "dump_wal" && !flags_.IsSet("walfile")) {
    return Status::InvalidArgument("dump_wal needs --walfile=FILE");
  }
  return Status::OK();
}

Status Ldb::CheckDatabase() const {
  Env* env = Env::Default();
  const bool may_create =
      command_.access == Access::kWrite && flags_.GetBool("create_if_missing");
  if (may_create) return Status::OK();
  Status s = env->FileExists(db_path_);
  if (s.IsNotFound()) return Status::NotFound(db_path_, "no such directory");
  if (!s.ok()) return s;
  std::vector<std::string> children;
  s = env->GetChildren(db_path_, &children);
  if (!s.ok()) return s;
  if (std::find(children.begin(), children.end(), "CURRENT") !=
      children.end()) {
    return Status::OK();
  }
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (ParseFileName(child, &number, &type) &&
        (type == FileType::kTableFile || type == FileType::kManifestFile)) {
      return Status::NotFound(
          db_path_, "not a CascadeDB database (no CURRENT file, but it holds " +
                        child + "; 'ldb repair' can rebuild the MANIFEST)");
    }
  }
  return Status::NotFound(db_path_,
                          "not a CascadeDB database (no CURRENT file)");
}

Status Ldb::OpenDB() {
  Status s = CheckDatabase();
  if (!s.ok()) return s;
  Options options;
  options.stats_dump_period_sec = 0;
  if (command_.access == Access::kReadOnly) {
    return DB::OpenForReadOnly(options, db_path_, &db_);
  }
  options.create_if_missing = flags_.GetBool("create_if_missing");
  return DB::Open(options, db_path_, &db_);
}

Status Ldb::Run() {
  const std::string name = command_.name;
  if (command_.access == Access::kReadOnly ||
      command_.access == Access::kWrite) {
    Status s = OpenDB();
    if (!s.ok()) return s;
  }
  Status s;
  if (name == "get") {
    s = Get();
  } else if (name == "put") {
    s = Put();
  } else if (name == "delete") {
    s = Delete();
  } else if (name == "batchput") {
    s = BatchPut();
  } else if (name == "scan") {
    s = Scan(" : ", /*count_only=*/false);
  } else if (name == "dump") {
    s = Dump();
  } else if (name == "idump") {
    s = InternalDump();
  } else if (name == "manifest_dump") {
    s = ManifestDump();
  } else if (name == "dump_wal") {
    s = DumpWal();
  } else if (name == "dump_live_files") {
    s = DumpLiveFiles();
  } else if (name == "approxsize") {
    s = ApproxSize();
  } else if (name == "compact") {
    s = Compact();
  } else if (name == "checkconsistency") {
    s = CheckConsistency();
  } else if (name == "repair") {
    s = Repair();
  } else if (name == "stats") {
    s = Stats();
  } else {
    s = Property();
  }
  if (db_ != nullptr) {
    Status close = db_->Close();
    if (s.ok()) s = close;
    db_.reset();
  }
  return s;
}

ReadOptions ToolReadOptions() {
  ReadOptions options;
  options.verify_checksums = true;
  options.fill_cache = false;
  return options;
}

Status Ldb::Get() {
  std::string value;
  Status s = db_->Get(ToolReadOptions(), keys_[0], &value);
  if (s.IsNotFound()) {
    return Status::NotFound("key '" + Key(keys_[0]) + "' not found");
  }
  if (s.ok()) PrintLine(Value(value));
  return s;
}

Status Ldb::Put() {
  Status s = db_->Put(WriteOptions(), keys_[0], keys_[1]);
  if (s.ok()) PrintLine("OK");
  return s;
}

Status Ldb::Delete() {
  Status s = db_->Delete(WriteOptions(), keys_[0]);
  if (s.ok()) PrintLine("OK");
  return s;
}

Status Ldb::BatchPut() {
  WriteBatch batch;
  Status s;
  for (size_t i = 0; i < keys_.size() && s.ok(); i += 2) {
    s = batch.Put(keys_[i], keys_[i + 1]);
  }
  if (s.ok()) s = db_->Write(WriteOptions(), &batch);
  if (s.ok()) PrintLine("OK");
  return s;
}

Status Ldb::Scan(const char* separator, bool count_only) {
  std::unique_ptr<Iterator> it(db_->NewIterator(ToolReadOptions()));
  if (has_from_) {
    it->Seek(from_);
  } else {
    it->SeekToFirst();
  }
  uint64_t count = 0;
  for (; it->Valid(); it->Next()) {
    if (max_keys_ != 0 && count >= max_keys_) break;
    if (has_to_ && it->key().compare(to_) >= 0) break;
    if (!count_only) PrintLine(Key(it->key()) + separator + Value(it->value()));
    count++;
  }
  Status s = it->status();
  if (s.ok() && count_only) {
    std::printf("Keys in range: %" PRIu64 "\n", count);
  }
  return s;
}

Status Ldb::Dump() {
  if (flags_.GetBool("stats")) {
    std::string stats;
    if (db_->GetProperty("cascadedb.stats", &stats)) {
      std::fwrite(stats.data(), 1, stats.size(), stdout);
      std::printf("\n");
    }
  }
  return Scan(" ==> ", flags_.GetBool("count_only"));
}

Status Ldb::InternalDump() {
  SequenceNumber sequence = 0;
  // OpenDB gave a DBImpl: the only DB implementation.
  DBImpl* impl = static_cast<DBImpl*>(db_.get());
  std::unique_ptr<Iterator> it(
      impl->NewInternalIterator(ToolReadOptions(), &sequence));
  if (has_from_) {
    // Sorts before every version of the key (dbformat.h).
    InternalKey target(from_, kMaxSequenceNumber, kValueTypeForSeek);
    it->Seek(target.Encode());
  } else {
    it->SeekToFirst();
  }
  const bool count_only = flags_.GetBool("count_only");
  uint64_t count = 0;
  std::string uncompressed;
  for (; it->Valid(); it->Next()) {
    if (max_keys_ != 0 && count >= max_keys_) break;
    ParsedInternalKey ikey;
    Status s = ParseInternalKey(it->key(), &ikey);
    if (!s.ok()) return s.WithContext("entry " + std::to_string(count));
    if (has_to_ && ikey.user_key.compare(to_) >= 0) break;
    if (!count_only) {
      Slice value;  // shown as the DB returns it
      s = ValueAsWritten(ikey.type, it->value(), &uncompressed, &value);
      if (!s.ok()) return s.WithContext("entry " + std::to_string(count));
      PrintLine("'" + Key(ikey.user_key) + "' @ " +
                std::to_string(ikey.sequence) + " : " +
                std::to_string(static_cast<int>(ikey.type)) + " => " +
                Value(value));
    }
    count++;
  }
  Status s = it->status();
  if (s.ok() && count_only) {
    std::printf("Internal keys in range: %" PRIu64 "\n", count);
  }
  return s;
}

Status Ldb::ManifestDump() {
  std::string path = flags_.GetString("path");
  if (path.empty()) {
    Status s = CurrentManifest(db_path_, &path);
    if (!s.ok()) return s;
  }
  const bool verbose = flags_.GetBool("verbose");
  std::printf("%s\n", path.c_str());
  ManifestState state;
  uint64_t index = 0;
  auto visit = [&](uint64_t offset, const Slice& record,
                   const VersionEdit& edit) {
    std::printf("--- edit %" PRIu64 " at offset %" PRIu64 " (%zu bytes)\n",
                index++, offset, record.size());
    if (verbose) PrintLine("  " + FormatBytes(record, true));
    const std::string text = edit.DebugString();
    std::fwrite(text.data(), 1, text.size(), stdout);
  };
  Status s = ReadManifest(path, &state, visit);
  if (!s.ok()) return s;
  if (!state.torn_tail.empty()) {
    std::printf("--- torn final record dropped (tolerated): %s\n",
                state.torn_tail.c_str());
  }
  std::printf("--- final state after %" PRIu64 " edits\n", state.edits);
  std::printf("comparator: %s\n", FormatBytes(state.comparator).c_str());
  std::printf("log number: %" PRIu64 "\n", state.log_number);
  std::printf("next file number: %" PRIu64 "\n", state.next_file_number);
  std::printf("last sequence: %" PRIu64 "\n", state.last_sequence);
  std::vector<std::pair<int, const FileMetaData*>> files;
  for (const auto& entry : state.files) {
    files.emplace_back(entry.second.first, &entry.second.second);
  }
  // By level; state.files is ordered by number already.
  std::stable_sort(
      files.begin(), files.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  std::printf("files: %zu\n", files.size());
  for (const auto& [level, f] : files) {
    PrintLine(FileLine(level, f->number, f->file_size,
                       f->smallest.user_key().ToString(),
                       f->largest.user_key().ToString(), f->smallest_seqno,
                       f->largest_seqno, key_hex_));
  }
  if (!state.has_log_number || !state.has_next_file_number ||
      !state.has_last_sequence) {
    return Status::Corruption(
        path, "no log number, next file number or last sequence entry");
  }
  return Status::OK();
}

// Prints the records of a write batch.
class BatchPrinter : public WriteBatch::Handler {
 public:
  BatchPrinter(bool key_hex, bool value_hex, bool print_value)
      : key_hex_(key_hex), value_hex_(value_hex), print_value_(print_value) {}
  void Put(const Slice& key, const Slice& value) override {
    Separate();
    line_ += "PUT : '" + FormatBytes(key, key_hex_) + "'";
    if (print_value_) line_ += " => '" + FormatBytes(value, value_hex_) + "'";
  }
  void Delete(const Slice& key) override {
    Separate();
    line_ += "DELETE : '" + FormatBytes(key, key_hex_) + "'";
  }
  const std::string& line() const { return line_; }

 private:
  void Separate() {
    if (!line_.empty()) line_ += " ";
  }

  const bool key_hex_;
  const bool value_hex_;
  const bool print_value_;
  std::string line_;
};

Status Ldb::DumpWal() {
  const std::string path = flags_.GetString("walfile");
  std::unique_ptr<SequentialFile> file;
  Status s = Env::Default()->NewSequentialFile(path, &file, EnvOptions());
  if (!s.ok()) return s;
  Reporter reporter;
  // A recycled WAL's records carry its number: take it from the file name
  // (NNNNNN.log) so an older log's records left in the file are not shown.
  // Under another name, the first record's number is taken.
  uint64_t log_number = 0;
  FileType type;
  if (!ParseFileName(BaseName(path), &log_number, &type) ||
      type != FileType::kWalFile) {
    log_number = 0;
  }
  log::Reader reader(file.get(), &reporter, /*checksum=*/true, 0, log_number);
  if (flags_.GetBool("header")) {
    PrintLine("Sequence,Count,ByteSize,Physical Offset,Records");
  }
  const bool print_value = flags_.GetBool("print_value");
  Slice record;
  std::string scratch;
  WriteBatch batch;
  Status damage;  // the first damaged record
  uint64_t batches = 0;
  while (reader.ReadRecord(&record, &scratch)) {
    if (!reporter.corruption.ok() && damage.ok()) {
      damage = reporter.corruption.WithContext(path);
    }
    const uint64_t offset = reader.LastRecordOffset();
    uint64_t sequence = 0;
    uint32_t count = 0;
    BatchPrinter printer(key_hex_, value_hex_, print_value);
    s = WriteBatchInternal::SetContents(&batch, record);
    if (s.ok()) {
      sequence = WriteBatchInternal::Sequence(&batch);
      count = WriteBatchInternal::Count(&batch);
      s = batch.Iterate(&printer);
    }
    std::string line = std::to_string(sequence) + "," + std::to_string(count) +
                       "," + std::to_string(record.size()) + "," +
                       std::to_string(offset) + "," + printer.line();
    if (!s.ok()) {
      line += " <damaged: " + s.ToString() + ">";
      if (damage.ok()) {
        damage = Status::Corruption(path, "bad write batch at offset " +
                                              std::to_string(offset) + ": " +
                                              s.ToString());
      }
    }
    PrintLine(line);
    batches++;
  }
  if (!reporter.corruption.ok() && damage.ok()) {
    damage = reporter.corruption.WithContext(path);
  }
  if (!reporter.torn_tail.empty()) {
    PrintLine("torn final record dropped (what a crash leaves): " +
              reporter.torn_tail);
  }
  return damage;
}

Status Ldb::DumpLiveFiles() {
  std::vector<LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  // By level, then by number (as manifest_dump lists them).
  std::sort(files.begin(), files.end(),
            [](const LiveFileMetaData& a, const LiveFileMetaData& b) {
              return a.level != b.level ? a.level < b.level
                                        : a.file_number < b.file_number;
            });
  std::printf("SST files: %zu\n", files.size());
  for (const LiveFileMetaData& f : files) {
    PrintLine(FileLine(f.level, f.file_number, f.size, f.smallest_key,
                       f.largest_key, f.smallest_seqno, f.largest_seqno,
                       key_hex_));
  }
  // The WALs still needed: numbered at or above the MANIFEST's log number.
  std::string manifest;
  Status s = CurrentManifest(db_path_, &manifest);
  ManifestState state;
  if (s.ok()) s = ReadManifest(manifest, &state, nullptr);
  if (!s.ok()) return s;
  std::vector<std::string> children;
  s = Env::Default()->GetChildren(db_path_, &children);
  if (!s.ok()) return s;
  std::sort(children.begin(), children.end());
  std::vector<std::string> wals;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (ParseFileName(child, &number, &type) && type == FileType::kWalFile &&
        number >= state.log_number) {
      uint64_t size = 0;
      Env::Default()->GetFileSize(db_path_ + "/" + child, &size).IgnoreError();
      wals.push_back("  " + child + " " + std::to_string(size) + " bytes");
    }
  }
  std::printf("Live WAL files: %zu\n", wals.size());
  for (const std::string& w : wals) PrintLine(w);
  uint64_t manifest_size = 0;
  Env::Default()->GetFileSize(manifest, &manifest_size).IgnoreError();
  const size_t slash = manifest.rfind('/');
  std::printf("MANIFEST: %s %" PRIu64 " bytes\n",
              manifest.substr(slash + 1).c_str(), manifest_size);
  return Status::OK();
}

Status Ldb::ApproxSize() {
  std::string limit = to_;
  if (!has_to_) {
    // Just past the largest key: the whole database.
    std::unique_ptr<Iterator> it(db_->NewIterator(ToolReadOptions()));
    it->SeekToLast();
    if (!it->status().ok()) return it->status();
    if (!it->Valid()) {
      PrintLine("0");
      return Status::OK();
    }
    limit = it->key().ToString();
    limit.push_back('\0');
  }
  const Range range(from_, limit);  // from_ is "" without --from
  uint64_t size = 0;
  Status s = db_->GetApproximateSizes(&range, 1, &size);
  if (s.ok()) PrintLine(std::to_string(size));
  return s;
}

Status Ldb::Compact() {
  const Slice from(from_), to(to_);
  Status s =
      db_->CompactRange(CompactRangeOptions(), has_from_ ? &from : nullptr,
                        has_to_ ? &to : nullptr);
  if (s.ok()) PrintLine("OK");
  return s;
}

Status Ldb::CheckConsistency() {
  Status s = CheckDatabase();
  std::string manifest;
  if (s.ok()) s = CurrentManifest(db_path_, &manifest);
  ManifestState state;
  if (s.ok()) s = ReadManifest(manifest, &state, nullptr);
  if (!s.ok()) return s;
  Env* env = Env::Default();
  std::vector<std::string> children;
  s = env->GetChildren(db_path_, &children);
  if (!s.ok()) return s;
  std::vector<std::string> problems;
  for (const auto& [number, entry] : state.files) {
    const std::string name = TableFileBaseName(number);
    uint64_t size = 0;
    Status fs = env->GetFileSize(db_path_ + "/" + name, &size);
    if (!fs.ok()) {
      problems.push_back(name + " is missing (" + fs.ToString() + ")");
    } else if (size != entry.second.file_size) {
      problems.push_back(name + " has " + std::to_string(size) +
                         " bytes, the MANIFEST says " +
                         std::to_string(entry.second.file_size));
    }
  }
  std::set<uint64_t> wals;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(child, &number, &type)) continue;
    if (type == FileType::kWalFile) wals.insert(number);
    if (type == FileType::kTableFile && state.files.count(number) == 0) {
      problems.push_back(child + " is not in the MANIFEST (orphan)");
    }
  }
  if (state.log_number != 0 && wals.count(state.log_number) == 0) {
    problems.push_back("WAL " + WalFileName("", state.log_number).substr(1) +
                       " named by the MANIFEST is missing");
  }
  if (problems.empty()) {
    std::printf("OK (%zu SST files, MANIFEST %s)\n", state.files.size(),
                manifest.substr(manifest.rfind('/') + 1).c_str());
    return Status::OK();
  }
  for (const std::string& p : problems) PrintLine("FAIL: " + p);
  std::string summary = problems[0];
  if (problems.size() > 1) {
    summary += " (and " + std::to_string(problems.size() - 1) + " more)";
  }
  return Status::Corruption("consistency check failed", summary);
}

Status Ldb::Repair() {
  Options options;
  options.stats_dump_period_sec = 0;
  StdoutLogger report;
  Repairer repairer(db_path_, options, &report);
  Status s = repairer.Run();
  if (s.ok()) PrintLine("OK");
  return s;
}

Status Ldb::Stats() {
  std::string stats;
  if (!db_->GetProperty("cascadedb.stats", &stats)) {
    return Status::NotSupported("the DB has no cascadedb.stats property");
  }
  std::fwrite(stats.data(), 1, stats.size(), stdout);
  if (stats.empty() || stats.back() != '\n') std::printf("\n");
  return Status::OK();
}

Status Ldb::Property() {
  const std::string& name = args_[0];
  uint64_t number = 0;
  if (db_->GetIntProperty(name, &number)) {
    std::printf("%s: %" PRIu64 "\n", name.c_str(), number);
    return Status::OK();
  }
  std::string text;
  if (db_->GetProperty(name, &text)) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (text.empty() || text.back() != '\n') std::printf("\n");
    return Status::OK();
  }
  std::map<std::string, std::string> map;
  if (db_->GetMapProperty(name, &map)) {
    for (const auto& [key, value] : map) {
      PrintLine(name + "." + key + ": " + value);
    }
    return Status::OK();
  }
  return Status::NotFound("unknown property '" + FormatBytes(name) +
                          "' (docs/properties.md lists them)");
}

// ---------------------------------------------------------------- main

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
  const std::vector<std::string>& positional = flags.positional();
  if (positional.empty()) {
    ReportError("missing command (see --help)");
    return kExitUsage;
  }
  const CommandInfo* command = FindCommand(positional[0]);
  if (command == nullptr) {
    ReportError("unknown command '" + FormatBytes(positional[0]) +
                "' (see --help)");
    return kExitUsage;
  }
  Ldb ldb(flags, *command,
          std::vector<std::string>(positional.begin() + 1, positional.end()));
  s = ldb.Prepare();
  if (!s.ok()) {
    ReportError(s.message() + " (see --help)");
    return kExitUsage;
  }
  s = ldb.Run();
  std::fflush(stdout);
  if (!s.ok()) {
    ReportError(s.ToString());
    return kExitError;
  }
  return kExitOk;
}

}  // namespace
}  // namespace cascadedb

int main(int argc, char** argv) { return cascadedb::Main(argc, argv); }

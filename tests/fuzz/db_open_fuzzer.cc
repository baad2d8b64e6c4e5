// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// libFuzzer target for recovery: DB::Open (and OpenForReadOnly) of a
// database directory whose files the input damages. Once per process a
// small real database is made (tables in two levels, a MANIFEST, a WAL
// holding synced writes not yet flushed) and its files copied while it is
// still open, as a crash would leave them. Each input picks:
//   byte 0: the open mode (read-write or read-only), paranoid_checks and
//           the wal_recovery_mode;
//   byte 1: how many damages (0-7), then for each the file it hits (CURRENT,
//           the MANIFEST, a WAL, a table...), what it does (flip a byte,
//           overwrite a run with input bytes, cut the file short, insert
//           bytes, remove the file) and where.
// The directory is rebuilt, damaged and opened; an open DB is read whole,
// looked up in and, read-write, written to and flushed before it closes.
// Contracts: nothing crashes or trips a sanitizer (leaks included); with
// no damage, Open succeeds and the DB holds exactly what was written
// (except under kAbsoluteConsistency, see below).

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "cascadedb/db.h"
#include "cascadedb/env.h"
#include "cascadedb/iterator.h"
#include "cascadedb/options.h"
#include "tests/fuzz/fuzz_input.h"

namespace cascadedb {
namespace {

using Input = FuzzInput;

[[noreturn]] void Fail(const char* what) { FuzzFail("db_open_fuzzer", what); }

// Small memtables and tables, so the template has several tables in two
// levels. (The info LOG each open writes is not copied or damaged.)
Options TemplateOptions() {
  Options o;
  o.write_buffer_size = 64 << 10;
  o.target_file_size_base = 16 << 10;
  o.max_bytes_for_level_base = 64 << 10;
  o.level0_file_num_compaction_trigger = 2;
  o.stats_dump_period_sec = 0;
  return o;
}

std::string Key(int i) {
  char buf[32];
  snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

std::string Value(int i, int round) {
  // Every tenth value is large enough to be stored compressed on its own
  // (Options::value_compression_min_size), so damage reaches those too.
  const size_t size = i % 10 == 0 ? 600 + i % 50 : 20 + (i * 7 + round) % 90;
  return std::string(size, static_cast<char>('a' + round));
}

struct Template {
  std::string root;                          // scratch directory
  std::string dir;                           // the DB each input opens
  std::map<std::string, std::string> files;  // name -> bytes
  std::vector<std::string> names;            // files' keys, in order
  std::map<std::string, std::string> data;   // what the DB holds
};

bool Skipped(const std::string& name) {
  return name == "LOCK" || name.rfind("LOG", 0) == 0 || name == "." ||
         name == "..";
}

void Check(const Status& s, const char* what) {
  if (!s.ok()) {
    fprintf(stderr, "db_open_fuzzer: %s: %s\n", what, s.ToString().c_str());
    abort();
  }
}

const Template& GetTemplate();

// The scratch directory goes when the fuzzer exits.
void RemoveScratch() {
  std::error_code ec;  // best effort
  std::filesystem::remove_all(GetTemplate().root, ec);
}

// Builds the template database and copies its files while it is open.
const Template& GetTemplate() {
  static const Template* t = [] {
    auto* tp = new Template;
    Env* env = Env::Default();
    const char* base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    tp->root = std::string(base) + "/cascadedb_open_fuzzer_" +
               std::to_string(static_cast<long>(getpid()));
    tp->dir = tp->root + "/db";
    const std::string src = tp->root + "/template";
    Check(env->CreateDirIfMissing(tp->root), "scratch directory");
    Options o = TemplateOptions();
    o.create_if_missing = true;
    std::unique_ptr<DB> db;
    Check(DB::Open(o, src, &db), "open the template");
    WriteOptions w;
    for (int round = 0; round < 3; round++) {
      for (int i = round * 150; i < round * 150 + 900; i += 2 + round) {
        Check(db->Put(w, Key(i), Value(i, round)), "put");
        tp->data[Key(i)] = Value(i, round);
      }
      if (round == 1) {
        for (int i = 0; i < 300; i += 5) {
          Check(db->Delete(w, Key(i)), "delete");
          tp->data.erase(Key(i));
        }
      }
      Check(db->Flush(FlushOptions()), "flush");
    }
    Check(db->WaitForCompact(), "compactions");
    // Writes left in the WAL only, synced.
    w.sync = true;
    for (int i = 1000; i < 1060; i++) {
      Check(db->Put(w, Key(i), Value(i, 3)), "put to the WAL");
      tp->data[Key(i)] = Value(i, 3);
    }
    std::vector<std::string> children;
    Check(env->GetChildren(src, &children), "list the template");
    for (const std::string& name : children) {
      if (Skipped(name)) continue;
      std::string bytes;
      Check(ReadFileToString(env, src + "/" + name, &bytes), "copy");
      tp->files[name] = bytes;
      tp->names.push_back(name);
    }
    db.reset();
    Check(DestroyDB(src, o), "destroy the template");
    bool has_wal = false, has_table = false;
    for (const std::string& name : tp->names) {
      has_wal |=
          name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0;
      has_table |=
          name.size() > 4 && name.compare(name.size() - 4, 4, ".sst") == 0;
    }
    if (!has_wal || !has_table || tp->files.count("CURRENT") == 0) {
      Fail("the template lacks a WAL, a table or CURRENT");
    }
    std::atexit(RemoveScratch);
    return tp;
  }();
  return *t;
}

void Damage(Input* in, std::map<std::string, std::string>* files,
            const std::vector<std::string>& names) {
  const std::string& name = names[in->Byte() % names.size()];
  auto it = files->find(name);
  if (it == files->end()) return;  // removed by an earlier damage
  std::string& f = it->second;
  const uint8_t kind = in->Byte() % 5;
  const size_t at = f.empty() ? 0 : in->Fixed32() % f.size();
  switch (kind) {
    case 0:  // flip bits of one byte
      if (!f.empty()) f[at] = static_cast<char>(f[at] ^ (in->Byte() | 1));
      break;
    case 1: {  // overwrite a run
      const std::string run = in->Bytes(1 + in->Byte() % 32);
      f.replace(at, run.size(), run);
      break;
    }
    case 2:  // cut short
      f.resize(at);
      break;
    case 3:  // insert bytes
      f.insert(at, in->Bytes(1 + in->Byte() % 32));
      break;
    default:  // remove
      files->erase(it);
      break;
  }
}

void WriteDir(const std::string& dir,
              const std::map<std::string, std::string>& files) {
  Env* env = Env::Default();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);  // the last input's
  Check(env->CreateDirIfMissing(dir), "make the DB directory");
  for (const auto& [name, bytes] : files) {
    Check(WriteStringToFile(env, bytes, dir + "/" + name, /*sync=*/false),
          "write a file");
  }
}

// Reads the whole DB and looks a few keys up; returns what the scan saw
// if it ended without an error.
bool ReadAll(DB* db, std::map<std::string, std::string>* seen) {
  ReadOptions r;
  std::unique_ptr<Iterator> it(db->NewIterator(r));
  size_t n = 0;
  for (it->SeekToFirst(); it->Valid() && n < 100000; it->Next(), n++) {
    (*seen)[it->key().ToString()] = it->value().ToString();
  }
  const bool ok = it->status().ok();
  for (it->SeekToLast(); it->Valid() && n < 200000; it->Prev(), n++) {
  }
  it->Seek(Key(500));
  it.reset();
  std::string value;
  for (int i : {0, 1, 151, 450, 899, 1001, 5000}) {
    db->Get(r, Key(i), &value).IgnoreError();
  }
  return ok;
}

}  // namespace
}  // namespace cascadedb

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cascadedb;
  const Template& t = GetTemplate();
  Input in(data, size);
  const uint8_t mode = in.Byte();
  const bool read_only = (mode & 1) != 0;
  Options o = TemplateOptions();
  o.paranoid_checks = (mode & 2) != 0;
  o.wal_recovery_mode = static_cast<WALRecoveryMode>((mode >> 2) % 4);
  const int damages = in.Byte() % 8;
  std::map<std::string, std::string> files = t.files;
  for (int i = 0; i < damages; i++) Damage(&in, &files, t.names);
  WriteDir(t.dir, files);

  std::unique_ptr<DB> db;
  const Status s =
      read_only ? DB::OpenForReadOnly(o, t.dir, &db) : DB::Open(o, t.dir, &db);
  // The template's newest WAL was written over an older one (recycling is
  // on by default), so its end is followed by the older log's bytes, which
  // kAbsoluteConsistency cannot tell from a torn write: under it an
  // undamaged copy may fail to open (docs/format/log.md).
  const bool must_open =
      damages == 0 &&
      o.wal_recovery_mode != WALRecoveryMode::kAbsoluteConsistency;
  if (!s.ok()) {
    if (must_open) {
      fprintf(stderr, "db_open_fuzzer: %s\n", s.ToString().c_str());
      Fail("an undamaged copy did not open");
    }
    return 0;
  }
  std::map<std::string, std::string> seen;
  const bool scanned = ReadAll(db.get(), &seen);
  if (must_open && (!scanned || seen != t.data)) {
    Fail("an undamaged copy does not hold what was written");
  }
  if (!read_only) {
    // Recovery left a DB that takes writes, flushes and compacts (or
    // reports why not).
    db->Put(WriteOptions(), Key(7), "after").IgnoreError();
    db->Flush(FlushOptions()).IgnoreError();
    db->WaitForCompact().IgnoreError();
  }
  db->Close().IgnoreError();
  return 0;
}

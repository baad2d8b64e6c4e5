// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "db/filename.h"

#include <cinttypes>
#include <cstdio>

#include "cascadedb/env.h"

namespace cascadedb {

namespace {

std::string NumberedName(const std::string& dbname, uint64_t number,
                         const char* suffix) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "/%06" PRIu64 ".%s", number, suffix);
  return dbname + buf;
}

std::string PrefixedName(const std::string& dbname, const char* prefix,
                         uint64_t number) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "/%s-%06" PRIu64, prefix, number);
  return dbname + buf;
}

// Consumes a decimal number from the front of *in. Fails on no digits or
// on overflow.
bool ConsumeNumber(Slice* in, uint64_t* value) {
  uint64_t v = 0;
  size_t digits = 0;
  while (digits < in->size() && (*in)[digits] >= '0' && (*in)[digits] <= '9') {
    const uint64_t d = static_cast<uint64_t>((*in)[digits] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
    digits++;
  }
  if (digits == 0) return false;
  in->remove_prefix(digits);
  *value = v;
  return true;
}

}  // namespace

std::string WalFileName(const std::string& dbname, uint64_t number) {
  return NumberedName(dbname, number, "log");
}

std::string TableFileName(const std::string& dbname, uint64_t number) {
  return NumberedName(dbname, number, "sst");
}

std::string RecycledTableFileName(const std::string& dbname, uint64_t number) {
  return NumberedName(dbname, number, "recycle");
}

std::string TableFileBaseName(uint64_t number) {
  return TableFileName("", number).substr(1);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string TempFileName(const std::string& dbname, uint64_t number) {
  return NumberedName(dbname, number, "dbtmp");
}

std::string ManifestFileName(const std::string& dbname, uint64_t number) {
  return PrefixedName(dbname, "MANIFEST", number);
}

std::string OptionsFileName(const std::string& dbname, uint64_t number) {
  return PrefixedName(dbname, "OPTIONS", number);
}

std::string CurrentFileName(const std::string& dbname) {
  return dbname + "/CURRENT";
}

std::string LockFileName(const std::string& dbname) { return dbname + "/LOCK"; }

std::string InfoLogFileName(const std::string& dbname) {
  return dbname + "/LOG";
}

std::string OldInfoLogFileName(const std::string& dbname) {
  return dbname + "/LOG.old";
}

bool ParseFileName(const Slice& filename, uint64_t* number, FileType* type) {
  Slice rest = filename;
  if (rest == "CURRENT") {
    *number = 0;
    *type = FileType::kCurrentFile;
    return true;
  }
  if (rest == "LOCK") {
    *number = 0;
    *type = FileType::kLockFile;
    return true;
  }
  if (rest == "LOG" || rest == "LOG.old") {
    *number = 0;
    *type = FileType::kInfoLogFile;
    return true;
  }
  struct Prefixed {
    const char* prefix;
    FileType type;
  };
  for (const Prefixed& p : {Prefixed{"MANIFEST-", FileType::kManifestFile},
                            Prefixed{"OPTIONS-", FileType::kOptionsFile}}) {
    if (rest.starts_with(p.prefix)) {
      rest.remove_prefix(strlen(p.prefix));
      uint64_t n;
      if (!ConsumeNumber(&rest, &n) || !rest.empty()) return false;
      *number = n;
      *type = p.type;
      return true;
    }
  }
  uint64_t n;
  if (!ConsumeNumber(&rest, &n)) return false;
  FileType t;
  if (rest == ".log") {
    t = FileType::kWalFile;
  } else if (rest == ".sst") {
    t = FileType::kTableFile;
  } else if (rest == ".dbtmp") {
    t = FileType::kTempFile;
  } else if (rest == ".recycle") {
    t = FileType::kRecycledTableFile;
  } else {
    return false;
  }
  *number = n;
  *type = t;
  return true;
}

Status SetCurrentFile(Env* env, const std::string& dbname,
                      uint64_t manifest_number) {
  const std::string manifest = ManifestFileName(dbname, manifest_number);
  // CURRENT holds the MANIFEST's base name and a newline.
  const std::string contents = manifest.substr(dbname.size() + 1) + "\n";
  const std::string tmp = TempFileName(dbname, manifest_number);
  Status s = WriteStringToFile(env, contents, tmp, /*sync=*/true);
  if (s.ok()) s = env->RenameFile(tmp, CurrentFileName(dbname));
  if (s.ok()) s = env->SyncDir(dbname);
  if (!s.ok()) {
    // The temp file is garbage either way; its removal failing changes
    // nothing about the outcome, and the next open deletes it.
    env->RemoveFile(tmp).IgnoreError();
  }
  return s;
}

}  // namespace cascadedb

// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
//
// libFuzzer target for the record log reader (WAL and MANIFEST format,
// docs/format/log.md). Two kinds of input, picked by the first byte:
//   even: the rest is a log number and a file, read as is from offset 0 and
//         from an offset the input gives; every returned record must lie
//         inside the file, the reader must not crash;
//   odd:  the rest describes an old recyclable log, a new one written over
//         it (another log number) and where the new one was cut (a crash),
//         optionally with a flipped byte in the old log's bytes. The
//         reader's contract for recycled files: exactly the new log's
//         records that were wholly written come back, in order, and no
//         Corruption is reported (at most a torn tail).
// Any crash, sanitizer report or broken contract is a bug.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "db/log_reader.h"
#include "db/log_writer.h"
#include "tests/fuzz/fuzz_input.h"
#include "util/memory_file.h"

namespace cascadedb {
namespace {

using Input = FuzzInput;

[[noreturn]] void Fail(const char* what) {
  FuzzFail("log_reader_fuzzer", what);
}

struct Reports : public log::Reader::Reporter {
  int corruptions = 0;
  int tails = 0;
  void Corruption(size_t, const Status&) override { corruptions++; }
  void TornTail(size_t, const Status&) override { tails++; }
};

// Reads every record of contents.
std::vector<std::string> ReadAll(const std::string& contents,
                                 uint64_t log_number, uint64_t initial_offset,
                                 Reports* reports) {
  MemorySequentialFile file(contents);
  log::Reader reader(&file, reports, /*checksum=*/true, initial_offset,
                     log_number);
  std::vector<std::string> records;
  Slice record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    if (reader.LastRecordOffset() >= reader.LastRecordEnd() ||
        reader.LastRecordEnd() > contents.size() ||
        reader.LastRecordOffset() < initial_offset) {
      Fail("record outside the file or before the initial offset");
    }
    records.push_back(record.ToString());
    if (records.size() > contents.size() + 1) Fail("more records than bytes");
  }
  return records;
}

// Records of sizes the input picks (some span blocks), tagged by index.
std::vector<std::string> MakeRecords(Input* in, char tag) {
  std::vector<std::string> records;
  const int n = in->Byte() % 24;
  for (int i = 0; i < n; i++) {
    const uint8_t b = in->Byte();
    size_t size = b;
    if (b >= 240) size = static_cast<size_t>(b - 239) * 9000;  // long
    records.push_back(std::string(size, static_cast<char>(tag + i % 7)));
  }
  return records;
}

std::string WriteLog(const std::vector<std::string>& records,
                     uint64_t log_number, std::vector<uint64_t>* ends) {
  MemoryWritableFile file;
  auto writer = log::Writer::Recyclable(&file, log_number);
  for (const std::string& r : records) {
    if (!writer->AddRecord(r).ok()) Fail("write failed");
    if (ends != nullptr) ends->push_back(writer->length());
  }
  return *file.contents();
}

void CheckRecycledFile(Input* in) {
  // Both odd, so neither is 0 (unknown to the reader), and different.
  const uint32_t old_number = in->Fixed32() | 1;
  const uint32_t new_number = old_number + 2 * (1 + (in->Byte() & 0x7f));
  const std::string old_log =
      WriteLog(MakeRecords(in, 'a'), old_number, nullptr);
  const std::vector<std::string> fresh = MakeRecords(in, 'n');
  std::vector<uint64_t> ends;
  const std::string new_log = WriteLog(fresh, new_number, &ends);
  // Where the crash cut the new log: anywhere, or at its end.
  uint64_t cut = new_log.size();
  if (in->Byte() & 1) cut = in->Fixed32() % (new_log.size() + 1);
  std::string file = old_log;
  if (file.size() < cut) file.resize(cut);
  file.replace(0, cut, new_log, 0, cut);
  size_t whole = 0;
  while (whole < ends.size() && ends[whole] <= cut) whole++;
  // Once a record of the new log says the log is recyclable, a damaged
  // byte in what is left of the old log changes nothing. (Before that, a
  // damaged old header may look like a plain log's, which is corruption.)
  if ((in->Byte() & 1) && whole > 0 && file.size() > cut) {
    file[cut + in->Fixed32() % (file.size() - cut)] ^=
        static_cast<char>(in->Byte() | 1);
  }
  // What the file holds of the new log: the cut, or more where the old
  // bytes after it happen to equal the new log's (the found case: the one
  // byte a cut left off a header was the same in both logs' numbers).
  size_t written = 0;
  while (written < file.size() && written < new_log.size() &&
         file[written] == new_log[written]) {
    written++;
  }
  whole = 0;
  while (whole < ends.size() && ends[whole] <= written) whole++;
  Reports reports;
  const std::vector<std::string> got = ReadAll(file, new_number, 0, &reports);
  if (reports.corruptions != 0) Fail("corruption reported in a recycled file");
  if (got.size() != whole) Fail("wrong number of records");
  for (size_t i = 0; i < whole; i++) {
    if (got[i] != fresh[i]) Fail("wrong record");
  }
}

}  // namespace
}  // namespace cascadedb

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cascadedb::Input in(data, size);
  if ((in.Byte() & 1) == 0) {
    const uint64_t log_number = in.Fixed32();
    const uint64_t offset = in.Fixed32() % 70000;
    const std::string contents = in.Rest();
    cascadedb::Reports reports;
    cascadedb::ReadAll(contents, log_number, 0, &reports);
    cascadedb::ReadAll(contents, log_number, offset, &reports);
  } else {
    cascadedb::CheckRecycledFile(&in);
  }
  return 0;
}

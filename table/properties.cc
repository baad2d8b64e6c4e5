// Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.

#include "table/properties.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cascadedb/comparator.h"
#include "cascadedb/iterator.h"
#include "table/block.h"
#include "table/block_builder.h"
#include "util/coding.h"

namespace cascadedb {

const char kPropertiesBlockName[] = "cascadedb.properties";

namespace {

// The persisted property names (docs/format/sst.md, "Properties block").
// A name must never change meaning or encoding; add new names instead.
// Numbers are varint64, strings raw bytes.
struct NumberProperty {
  const char* name;
  uint64_t TableProperties::*field;
};
struct StringProperty {
  const char* name;
  std::string TableProperties::*field;
};

constexpr NumberProperty kNumberProperties[] = {
    {"cascadedb.creation.time", &TableProperties::creation_time},
    {"cascadedb.data.size", &TableProperties::data_size},
    {"cascadedb.filter.size", &TableProperties::filter_size},
    {"cascadedb.index.size", &TableProperties::index_size},
    {"cascadedb.largest.seqno", &TableProperties::largest_seqno},
    {"cascadedb.num.data.blocks", &TableProperties::num_data_blocks},
    {"cascadedb.num.deletions", &TableProperties::num_deletions},
    {"cascadedb.num.entries", &TableProperties::num_entries},
    {"cascadedb.raw.key.size", &TableProperties::raw_key_size},
    {"cascadedb.raw.value.size", &TableProperties::raw_value_size},
    {"cascadedb.smallest.seqno", &TableProperties::smallest_seqno},
};

constexpr StringProperty kStringProperties[] = {
    {"cascadedb.comparator", &TableProperties::comparator_name},
    {"cascadedb.compression", &TableProperties::compression_name},
    {"cascadedb.filter.policy", &TableProperties::filter_policy_name},
};

// Properties are few; one full key per entry keeps the block trivially
// readable in a hex dump.
constexpr int kPropertiesRestartInterval = 1;

}  // namespace

std::string TableProperties::ToString() const {
  std::string r;
  auto add = [&r](const char* name, const std::string& value) {
    if (!r.empty()) r += "; ";
    r += name;
    r += '=';
    r += value;
  };
  add("num_entries", std::to_string(num_entries));
  add("num_deletions", std::to_string(num_deletions));
  add("raw_key_size", std::to_string(raw_key_size));
  add("raw_value_size", std::to_string(raw_value_size));
  add("data_size", std::to_string(data_size));
  add("index_size", std::to_string(index_size));
  add("filter_size", std::to_string(filter_size));
  add("num_data_blocks", std::to_string(num_data_blocks));
  add("smallest_seqno", std::to_string(smallest_seqno));
  add("largest_seqno", std::to_string(largest_seqno));
  add("creation_time", std::to_string(creation_time));
  add("compression", compression_name);
  add("comparator", comparator_name);
  add("filter_policy", filter_policy_name);
  return r;
}

void EncodeTableProperties(const TableProperties& p, std::string* dst) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const NumberProperty& prop : kNumberProperties) {
    std::string value;
    PutVarint64(&value, p.*prop.field);
    entries.emplace_back(prop.name, std::move(value));
  }
  for (const StringProperty& prop : kStringProperties) {
    entries.emplace_back(prop.name, p.*prop.field);
  }
  // Block keys must be in bytewise order.
  std::sort(entries.begin(), entries.end());
  BlockBuilder builder(kPropertiesRestartInterval);
  for (const auto& entry : entries) builder.Add(entry.first, entry.second);
  const Slice block = builder.Finish();
  dst->append(block.data(), block.size());
}

Status DecodeTableProperties(const Slice& block_contents, TableProperties* p) {
  BlockContents contents;
  contents.data = block_contents;  // borrowed for the duration of the call
  Block block(contents);
  std::unique_ptr<Iterator> it(block.NewIterator(BytewiseComparator()));
  TableProperties result;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const Slice name = it->key();
    Slice value = it->value();
    bool known = false;
    for (const NumberProperty& prop : kNumberProperties) {
      if (name != Slice(prop.name)) continue;
      known = true;
      if (!GetVarint64(&value, &(result.*prop.field)) || !value.empty()) {
        return Status::Corruption("bad properties block: bad value of " +
                                  name.ToString());
      }
      break;
    }
    if (known) continue;
    for (const StringProperty& prop : kStringProperties) {
      if (name != Slice(prop.name)) continue;
      result.*prop.field = value.ToString();
      break;
    }
    // Any other name is from a newer writer: ignored (forward compatible).
  }
  if (!it->status().ok()) {
    return Status::Corruption("bad properties block: " +
                              it->status().message());
  }
  *p = std::move(result);
  return Status::OK();
}

}  // namespace cascadedb

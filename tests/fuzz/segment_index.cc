// Fuzzes the index files of closed segments (segment_index.h): a partition of the embedded log
// with three closed segments and an active one, one of whose indexes (the input's first byte
// picks it) holds the rest of the input. Properties: the open succeeds (an index that does not
// check out is rebuilt from its segment) and every record reads back as written, or a read
// fails with a status: a damaged index never changes what is read.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "backend/embedded/partition_log.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace brook;
using namespace brook::internal;

constexpr PartitionLogConfig kConfig{.segment_bytes = 1024};

StoredRecord record_number(int i) {
  return {
      .timestamp = Timestamp(1000 + i),
      .key = "key-" + std::to_string(i % 7),
      .value = std::string(static_cast<std::size_t>(20 + i % 13), static_cast<char>('a' + i % 26))};
}

// The files of the partition every input starts from, by name: 60 records of about 60 bytes
// in 1 KiB segments.
const std::map<std::string, std::string>& partition_files() {
  static const std::map<std::string, std::string> files = [] {
    const auto dir = fuzz::fresh_scratch_dir() / "partition";
    {
      auto log = PartitionLog::open(dir, kConfig);
      FUZZ_CHECK(log.has_value());
      for (int i = 0; i < 60; ++i) {
        const StoredRecord record = record_number(i);
        FUZZ_CHECK((*log)->append({&record, 1}).has_value());
      }
    }
    std::map<std::string, std::string> read;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      std::ifstream in(entry.path(), std::ios::binary);
      read[entry.path().filename().string()] = {std::istreambuf_iterator<char>(in), {}};
    }
    return read;
  }();
  return files;
}

std::vector<std::string> index_names() {
  std::vector<std::string> names;
  for (const auto& [name, bytes] : partition_files()) {
    if (name.ends_with(".index")) names.push_back(name);
  }
  FUZZ_CHECK(names.size() >= 3);
  return names;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::silence_logs();
  static const std::vector<std::string> indexes = index_names();
  fuzz::FuzzInput input(data, size);
  const std::string& damaged = indexes[input.byte() % indexes.size()];
  const std::string_view index_bytes = input.rest();

  const auto dir = fuzz::fresh_scratch_dir() / "partition";
  for (const auto& [name, bytes] : partition_files()) {
    fuzz::write_file(dir / name, name == damaged ? index_bytes : bytes);
  }
  auto log = PartitionLog::open(dir, kConfig);
  FUZZ_CHECK(log.has_value());
  FUZZ_CHECK((*log)->start_offset() == Offset(0) && (*log)->end_offset() == Offset(60));
  for (int i = 0; i < 60; ++i) {
    auto batch = (*log)->read(Offset(i), 1);
    if (!batch) return 0;
    FUZZ_CHECK(!batch->records.empty());
    const ConsumedRecord& read = batch->records.front();
    const StoredRecord expected = record_number(i);
    FUZZ_CHECK(read.offset == Offset(i) && read.timestamp == expected.timestamp);
    FUZZ_CHECK(read.key == expected.key && read.value == expected.value);
  }
  return 0;
}

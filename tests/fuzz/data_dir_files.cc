// Fuzzes the embedded log's small files (docs/log_format.md): a topic's metadata, a consumer
// group's committed offsets, a partition's start offset and the transaction log. The input's
// first byte picks the file; the rest is its text, given its checksum line (so the parsers
// behind it are reached) unless bit 2 of that byte asks for the bytes as they are. Properties:
// opening fails with a status or succeeds; what opened writes back and reads again the same
// (committed offsets, a pending transaction), and a start offset stays within the log. The
// transaction log's bytes are also decoded as an entry's payload, behind its checksums.
#include <cstdint>
#include <filesystem>
#include <string>

#include "backend/embedded/checksummed_file.h"
#include "backend/embedded/offset_store.h"
#include "backend/embedded/partition_log.h"
#include "backend/embedded/topic_store.h"
#include "backend/embedded/transaction_log.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace brook;
using namespace brook::internal;
namespace fs = std::filesystem;

void write_metadata_file(const fs::path& path, std::string_view text, bool raw) {
  if (raw) {
    fuzz::write_file(path, text);
  } else {
    fs::create_directories(path.parent_path());
    FUZZ_CHECK(write_checksummed_file(path, text).ok());
  }
}

void open_topic_metadata(const fs::path& data, std::string_view text, bool raw) {
  fs::create_directories(data / "topics" / "clicks" / "0");
  write_metadata_file(data / "topics" / "clicks" / "topic.json", text, raw);
  auto topics = TopicStore::open(data, false);
  if (topics) FUZZ_CHECK((*topics)->find("clicks").has_value());
}

void open_group_offsets(const fs::path& data, std::string_view text, bool raw) {
  write_metadata_file(data / "groups" / "app.json", text, raw);
  auto store = OffsetStore::open(data);
  if (!store) return;
  const CommittedOffsets offsets = (*store)->offsets("app");
  auto copy = OffsetStore::open(data / "copy");
  FUZZ_CHECK(copy.has_value());
  if (!(*copy)->commit("app", offsets).ok()) return;  // e.g. an offset commit() refuses
  auto reread = OffsetStore::open(data / "copy");
  FUZZ_CHECK(reread.has_value());
  FUZZ_CHECK((*reread)->offsets("app") == offsets);
}

void open_start_offset(const fs::path& data, std::string_view text, bool raw) {
  write_metadata_file(data / "partition" / "start-offset", text, raw);
  auto log = PartitionLog::open(data / "partition", {});
  if (log) FUZZ_CHECK((*log)->start_offset() >= Offset(0));
}

bool same_entry(const TransactionEntry& a, const TransactionEntry& b) {
  if (a.transactional_id != b.transactional_id || a.offsets != b.offsets ||
      a.batches.size() != b.batches.size()) {
    return false;
  }
  for (auto i = a.batches.begin(), j = b.batches.begin(); i != a.batches.end(); ++i, ++j) {
    if (i->first != j->first || i->second.base != j->second.base ||
        i->second.records.size() != j->second.records.size()) {
      return false;
    }
    for (std::size_t r = 0; r < i->second.records.size(); ++r) {
      const RecordToAppend& x = i->second.records.records()[r];
      const RecordToAppend& y = j->second.records.records()[r];
      const Headers none;
      if (x.timestamp != y.timestamp || x.key != y.key || x.value != y.value ||
          *(x.headers ? x.headers : &none) != *(y.headers ? y.headers : &none)) {
        return false;
      }
    }
  }
  return true;
}

// `entry` written to a transaction log of its own reads back the same.
void check_written_back(const fs::path& dir, const TransactionEntry& entry) {
  auto log = TransactionLog::open(dir, false);
  FUZZ_CHECK(log.has_value());
  FUZZ_CHECK((*log)->write(entry).ok());
  auto reread = (*log)->pending();
  FUZZ_CHECK(reread.has_value() && reread->has_value());
  FUZZ_CHECK(same_entry(entry, **reread));
}

// The bytes as the transaction log file, and as an entry's payload (behind the checksums,
// which random bytes rarely pass).
void open_transaction_log(const fs::path& data, std::string_view bytes) {
  fuzz::write_file(data / "transactions.wal", bytes);
  auto log = TransactionLog::open(data, false);
  if (!log) return;
  auto pending = (*log)->pending();
  if (pending && *pending) check_written_back(data / "copy", **pending);
  auto payload = decode_transaction_payload(bytes, "fuzz input");
  if (payload) check_written_back(data / "copy", *payload);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::silence_logs();
  fuzz::FuzzInput input(data, size);
  const std::uint8_t choice = input.byte();
  const bool raw = (choice & 4) != 0;
  const std::string_view rest = input.rest();
  const fs::path dir = fuzz::fresh_scratch_dir();
  fs::create_directories(dir / "copy");
  switch (choice % 4) {
    case 0: open_topic_metadata(dir, rest, raw); break;
    case 1: open_group_offsets(dir, rest, raw); break;
    case 2: open_start_offset(dir, rest, raw); break;
    case 3: open_transaction_log(dir, rest); break;
  }
  return 0;
}

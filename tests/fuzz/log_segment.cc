// Fuzzes opening and reading a partition of the embedded log whose one (active) segment holds
// the input's bytes: the frame scanner, frame headers and bodies, record headers and the
// recovery of a torn tail. Properties: open fails with a status or gives a log whose records
// read back without error, in increasing offsets within [start, end); after an append and a
// reopen the same records read back, followed by the one appended (recovery never changes or
// drops what an open accepted). The same bytes also go straight to the record body decoder,
// which random bytes rarely reach through the checksums: a body that decodes is encoded again
// into a frame that decodes to the same record.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend/embedded/byte_buffer.h"
#include "backend/embedded/partition_log.h"
#include "backend/embedded/record_format.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace brook;
using namespace brook::internal;

// For records as read (views) and as stored (owned).
template <class Record>
bool same_record(const Record& a, const Record& b) {
  return a.offset == b.offset && a.timestamp == b.timestamp && a.key == b.key &&
         a.value == b.value && a.headers == b.headers;
}

// Every record of `log`, read in batches of about 4 KiB; the batches keep their bytes.
struct Contents {
  std::vector<RecordBatch> batches;
  std::vector<ConsumedRecord> records;
};

Contents read_all(const PartitionLog& log) {
  Contents contents;
  Offset next = log.start_offset();
  while (next < log.end_offset()) {
    auto batch = log.read(next, 4096);
    FUZZ_CHECK(batch.has_value());  // the open scanned the active segment: reads can't fail
    FUZZ_CHECK(!batch->records.empty());
    for (const ConsumedRecord& record : batch->records) {
      FUZZ_CHECK(record.offset >= next && record.offset < log.end_offset());
      contents.records.push_back(record);
      next = Offset(record.offset.value() + 1);
    }
    contents.batches.push_back(std::move(*batch));
  }
  return contents;
}

void check_body(std::string_view body) {
  auto view = decode_body(body);
  if (!view) return;
  const StoredRecord record = to_stored_record(*view);
  ByteBuffer frame;
  encode_record(to_append(record), view->offset, encoded_size(to_append(record)), frame);
  const auto header = decode_frame_header(frame.data());
  FUZZ_CHECK(header.has_value() && header->frame_bytes() == frame.size());
  const char* again = frame.data() + kFrameHeaderBytes;
  FUZZ_CHECK(body_crc_matches(*header, again));
  auto decoded = decode_body({again, header->body_bytes});
  FUZZ_CHECK(decoded.has_value());
  FUZZ_CHECK(same_record(to_stored_record(*decoded), record));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::silence_logs();
  check_body({reinterpret_cast<const char*>(data), size});
  const auto dir = fuzz::fresh_scratch_dir() / "partition";
  fuzz::write_file(dir / "00000000000000000000.log", {reinterpret_cast<const char*>(data), size});
  auto log = PartitionLog::open(dir, {});
  if (!log) return 0;
  const Contents before = read_all(**log);

  const StoredRecord appended{.timestamp = Timestamp(1), .key = "key", .value = "value"};
  const Offset end = (*log)->end_offset();
  auto offset = (*log)->append({&appended, 1});
  if (!offset) return 0;  // e.g. no offset left after the input's last record
  FUZZ_CHECK(*offset == end);
  log->reset();

  auto reopened = PartitionLog::open(dir, {});
  FUZZ_CHECK(reopened.has_value());
  const Contents after = read_all(**reopened);
  FUZZ_CHECK(after.records.size() == before.records.size() + 1);
  for (std::size_t i = 0; i < before.records.size(); ++i) {
    FUZZ_CHECK(same_record(before.records[i], after.records[i]));
  }
  const ConsumedRecord& last = after.records.back();
  FUZZ_CHECK(last.offset == end && last.key == "key" && last.value == "value");
  return 0;
}

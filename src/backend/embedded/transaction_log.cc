#include "backend/embedded/transaction_log.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstring>
#include <limits>

#include "backend/embedded/byte_buffer.h"
#include "backend/embedded/crc32c.h"
#include "backend/embedded/file_io.h"
#include "backend/embedded/record_format.h"
#include "core/log.h"

namespace brook::internal {
namespace {

// Entry (docs/log_format.md), little endian: a header of fixed size, the transactional id,
// the payload.
// Header: u32 payload bytes | u32 masked crc32c(payload) | u32 masked crc32c(id) |
//         u16 id bytes | u8 version | u32 masked crc32c(the 15 header bytes before it).
// Payload: u32 batches, each: u16 topic length, topic, i32 partition, i64 base, u32 count,
//          count record frames (record_format.h); then u32 groups, each: u16 group length,
//          group, u32 offsets, each: u16 topic length, topic, i32 partition, i64 offset,
//          u32 metadata length, metadata.
constexpr std::uint8_t kEntryVersion = 1;
constexpr std::size_t kIdCrcAt = 8;
constexpr std::size_t kIdBytesAt = 12;
constexpr std::size_t kVersionAt = 14;
constexpr std::size_t kHeaderCrcAt = 15;
constexpr std::size_t kEntryHeaderBytes = kHeaderCrcAt + 4;

std::uint32_t read_u32(std::string_view data, std::size_t at) {
  std::uint32_t v = 0;
  std::memcpy(&v, data.data() + at, 4);
  return v;
}

template <class T>
void put(ByteBuffer& out, T v) {
  std::memcpy(out.extend(sizeof(T)), &v, sizeof(T));
}
void put_string(ByteBuffer& out, const std::string& s) {
  put(out, static_cast<std::uint16_t>(s.size()));
  out.append(s.data(), s.size());
}

// Reads the payload front to back; every read is bounds-checked.
class PayloadReader {
 public:
  explicit PayloadReader(std::string_view data) : data_(data) {}
  template <class T>
  bool get(T& v) {
    if (data_.size() < sizeof(T)) return false;
    std::memcpy(&v, data_.data(), sizeof(T));
    data_.remove_prefix(sizeof(T));
    return true;
  }
  // A string after its length, a u16 or (as `Length`) another unsigned type.
  template <class Length = std::uint16_t>
  bool get_string(std::string& s) {
    Length n = 0;
    if (!get(n) || data_.size() < n) return false;
    s.assign(data_.data(), n);
    data_.remove_prefix(n);
    return true;
  }
  // One record frame.
  bool get_record(StoredRecord& record) {
    if (data_.size() < kFrameHeaderBytes) return false;
    auto header = decode_frame_header(data_.data());
    if (!header || data_.size() < header->frame_bytes() ||
        !body_crc_matches(*header, data_.data() + kFrameHeaderBytes)) {
      return false;
    }
    auto view = decode_body(data_.substr(kFrameHeaderBytes, header->body_bytes));
    if (!view) return false;
    record = to_stored_record(*view);
    data_.remove_prefix(header->frame_bytes());
    return true;
  }
  bool done() const { return data_.empty(); }

 private:
  std::string_view data_;
};

}  // namespace

Result<TransactionEntry> decode_transaction_payload(std::string_view payload,
                                                    const std::string& file) {
  auto corrupt = [&] {
    return error(Status::corruption(fmt::format("transaction log {}: malformed entry", file)));
  };
  PayloadReader in(payload);
  TransactionEntry entry;
  std::uint32_t batches = 0;
  if (!in.get(batches)) return corrupt();
  for (std::uint32_t b = 0; b < batches; ++b) {
    TopicPartition tp;
    std::int32_t partition = 0;
    std::int64_t base = 0;
    std::uint32_t count = 0;
    if (!in.get_string(tp.topic) || !in.get(partition) || !in.get(base) || !in.get(count)) {
      return corrupt();
    }
    tp.partition = Partition(partition);
    auto& batch = entry.batches[tp];
    batch.base = Offset(base);
    for (std::uint32_t r = 0; r < count; ++r) {  // `count` is not trusted to size anything
      StoredRecord record;
      if (!in.get_record(record)) return corrupt();
      batch.records.add(record);
    }
  }
  std::uint32_t groups = 0;
  if (!in.get(groups)) return corrupt();
  for (std::uint32_t g = 0; g < groups; ++g) {
    std::string group;
    std::uint32_t n = 0;
    if (!in.get_string(group) || !in.get(n)) return corrupt();
    for (std::uint32_t i = 0; i < n; ++i) {
      TopicPartition tp;
      std::int32_t partition = 0;
      std::int64_t offset = 0;
      std::string metadata;
      if (!in.get_string(tp.topic) || !in.get(partition) || !in.get(offset) ||
          !in.get_string<std::uint32_t>(metadata)) {
        return corrupt();
      }
      tp.partition = Partition(partition);
      entry.offsets[group][tp] = {Offset(offset), std::move(metadata)};
    }
  }
  if (!in.done()) return corrupt();
  return entry;
}

Result<std::unique_ptr<TransactionLog>> TransactionLog::open(std::filesystem::path data_dir,
                                                             bool fsync) {
  auto path = data_dir / "transactions.wal";
  auto fd = open_file(path, O_RDWR | O_CREAT);
  if (!fd) return error(fd.error());
  return std::unique_ptr<TransactionLog>(new TransactionLog(path, fd->release(), fsync));
}

TransactionLog::~TransactionLog() { ::close(fd_); }

Result<std::optional<TransactionEntry>> TransactionLog::pending() const {
  auto contents = read_small_file(path_);
  if (!contents) return error(contents.error());
  const std::string_view file = *contents;
  if (file.empty()) return std::optional<TransactionEntry>();
  // An entry is written whole into the empty file: a prefix of one is a write that did not
  // finish (its commit never returned), so it is discarded, which is exactly an abort.
  auto torn = [&](std::optional<std::string_view> id, std::string_view where) {
    log(LogLevel::kWarn,
        "transaction log {}: discarded an entry whose write did not finish (transactional id "
        "{}, {} bytes in the file, {}): its commit never returned, so it is aborted",
        path_.string(), id ? fmt::format("'{}'", *id) : "unreadable", file.size(), where);
    return std::optional<TransactionEntry>();
  };
  // Whatever else does not check out was damaged after it was written.
  auto corrupt = [&](std::string_view what) {
    return error(Status::corruption(fmt::format("transaction log {}: {}", path_.string(), what)));
  };
  if (file.size() < kEntryHeaderBytes) return torn(std::nullopt, "it ends inside the entry header");
  if (crc32c(file.data(), kHeaderCrcAt) != unmask_crc(read_u32(file, kHeaderCrcAt))) {
    return corrupt("entry header checksum mismatch");
  }
  if (file[kVersionAt] != static_cast<char>(kEntryVersion)) {
    return corrupt(fmt::format("unknown entry version {}", static_cast<int>(file[kVersionAt])));
  }
  std::uint16_t id_bytes = 0;
  std::memcpy(&id_bytes, file.data() + kIdBytesAt, 2);
  const std::uint32_t size = read_u32(file, 0);
  const std::size_t payload_at = kEntryHeaderBytes + id_bytes;
  if (file.size() < payload_at) {
    return torn(std::nullopt, "it ends inside the transactional id");
  }
  const std::string_view id = file.substr(kEntryHeaderBytes, id_bytes);
  if (crc32c(id) != unmask_crc(read_u32(file, kIdCrcAt))) {
    return corrupt("transactional id checksum mismatch");
  }
  if (file.size() < payload_at + size) {
    return torn(id, fmt::format("it ends {} bytes into the {}-byte payload",
                                file.size() - payload_at, size));
  }
  if (file.size() > payload_at + size) {
    return corrupt(fmt::format("{} bytes follow the entry of {} bytes",
                               file.size() - payload_at - size, payload_at + size));
  }
  const std::string_view payload = file.substr(payload_at);
  if (crc32c(payload) != unmask_crc(read_u32(file, 4))) return corrupt("entry checksum mismatch");
  auto entry = decode_transaction_payload(payload, path_.string());
  if (!entry) return error(entry.error());
  entry->transactional_id = id;
  return std::optional<TransactionEntry>(std::move(*entry));
}

Status TransactionLog::write(const TransactionEntry& entry) {
  const std::string& id = entry.transactional_id;
  if (id.size() > std::numeric_limits<std::uint16_t>::max()) {
    return Status::invalid_argument(fmt::format(
        "transactional id of {} bytes: at most 65535 fit the transaction log", id.size()));
  }
  const std::size_t payload_at = kEntryHeaderBytes + id.size();
  ByteBuffer out;
  out.extend(kEntryHeaderBytes);
  out.append(id.data(), id.size());
  put(out, static_cast<std::uint32_t>(entry.batches.size()));
  for (const auto& [tp, batch] : entry.batches) {
    put_string(out, tp.topic);
    put(out, tp.partition.value());
    put(out, batch.base.value());
    put(out, static_cast<std::uint32_t>(batch.records.size()));
    std::int64_t offset = batch.base.value();
    for (const RecordToAppend& record : batch.records.records()) {
      encode_record(record, offset++, encoded_size(record), out);
    }
  }
  put(out, static_cast<std::uint32_t>(entry.offsets.size()));
  for (const auto& [group, offsets] : entry.offsets) {
    put_string(out, group);
    put(out, static_cast<std::uint32_t>(offsets.size()));
    for (const auto& [tp, committed] : offsets) {
      put_string(out, tp.topic);
      put(out, tp.partition.value());
      put(out, committed.offset.value());
      put(out, static_cast<std::uint32_t>(committed.metadata.size()));
      out.append(committed.metadata.data(), committed.metadata.size());
    }
  }
  if (out.size() - payload_at > std::numeric_limits<std::uint32_t>::max()) {
    return Status::invalid_argument(
        fmt::format("a transaction of producer '{}' holds {} bytes: at most 4 GiB fit the "
                    "transaction log; commit smaller transactions",
                    id, out.size() - payload_at));
  }
  const auto size = static_cast<std::uint32_t>(out.size() - payload_at);
  const std::uint32_t crc = mask_crc(crc32c(out.data() + payload_at, size));
  const std::uint32_t id_crc = mask_crc(crc32c(id));
  const auto id_bytes = static_cast<std::uint16_t>(id.size());
  std::memcpy(out.data(), &size, 4);
  std::memcpy(out.data() + 4, &crc, 4);
  std::memcpy(out.data() + kIdCrcAt, &id_crc, 4);
  std::memcpy(out.data() + kIdBytesAt, &id_bytes, 2);
  out.data()[kVersionAt] = static_cast<char>(kEntryVersion);
  const std::uint32_t header_crc = mask_crc(crc32c(out.data(), kHeaderCrcAt));
  std::memcpy(out.data() + kHeaderCrcAt, &header_crc, 4);
  // Into the empty file, so that a write that does not finish leaves a prefix of the entry.
  // The entry's fsync makes the truncation durable too.
  if (auto s = truncate(); !s.ok()) return s;
  if (auto s = write_at(fd_, path_, out.data(), out.size(), 0); !s.ok()) return s;
  return fsync_ ? sync_fd(fd_, path_) : Status();
}

Status TransactionLog::clear() {
  if (auto s = truncate(); !s.ok()) return s;
  // Else an entry already applied could come back after a power loss and be applied again.
  return fsync_ ? sync_fd(fd_, path_) : Status();
}

Status TransactionLog::truncate() {
  if (::ftruncate(fd_, 0) != 0) return errno_status("truncate", path_);
  return {};
}

}  // namespace brook::internal

// The byte format of one record in a segment file (docs/log_format.md): a 12-byte frame header
// (body length, body CRC-32C, header CRC-32C) followed by the body. Integers are little endian.
//
//   frame header  u32 body_bytes | u32 masked crc32c(body) | u32 masked crc32c(bytes 0..7)
//   body          u8 version (1) | u8 attributes (bit 0: null key, bit 1: null value)
//                 i64 offset | i64 timestamp
//                 u32 key length | key bytes | u32 value length | value bytes
//                 u32 header count | per header: u32 key length | key | i32 value length
//                 (-1 = null) | value
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "backend/embedded/byte_buffer.h"
#include "backend/embedded/partition_log.h"
#include "backend/record_batch.h"
#include "brook/status.h"

namespace brook::internal {

inline constexpr std::size_t kFrameHeaderBytes = 12;
inline constexpr std::uint8_t kRecordFormatVersion = 1;
// version, attributes, offset, timestamp, key length, value length, header count.
inline constexpr std::size_t kMinBodyBytes = 1 + 1 + 8 + 8 + 4 + 4 + 4;
// Larger bodies are refused by append() and reported as corruption when read.
inline constexpr std::size_t kMaxBodyBytes = std::size_t{256} << 20;

inline constexpr std::uint8_t kNullKeyBit = 1;
inline constexpr std::uint8_t kNullValueBit = 2;

// The encoded size of `record`: frame header plus body.
std::size_t encoded_size(const RecordToAppend& record);

// Appends the frame of `record` stored at `offset` to `out`. `size` must be
// encoded_size(record).
void encode_record(const RecordToAppend& record, std::int64_t offset, std::size_t size,
                   ByteBuffer& out);

struct FrameHeader {
  std::uint32_t body_bytes = 0;
  std::uint32_t body_crc = 0;  // unmasked
  std::size_t frame_bytes() const { return kFrameHeaderBytes + body_bytes; }
};

// Decodes the kFrameHeaderBytes at `p`; nullopt if the header checksum does not match (garbage or
// a damaged header). The length is not range-checked here.
std::optional<FrameHeader> decode_frame_header(const char* p);

// Whether `body` (header.body_bytes bytes) matches the header's CRC.
bool body_crc_matches(const FrameHeader& header, const char* body);

// A record decoded in place: the views point into the body bytes.
struct RecordView {
  std::int64_t offset = 0;
  std::int64_t timestamp = 0;
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  std::uint32_t header_count = 0;
  std::string_view headers;  // the encoded header pairs, already validated
};

// Decodes a body whose CRC matched. Every length is checked against the body size; a body that
// does not parse exactly is kCorruption with the reason (the caller adds file and position).
Result<RecordView> decode_body(std::string_view body);
// The same into `view`; returns why the body does not parse, or null.
const char* decode_body_into(std::string_view body, RecordView& view);

// Copies a decoded record out of the segment bytes.
StoredRecord to_stored_record(const RecordView& view);
// A decoded record whose key and value stay views into the segment bytes it was read from.
ConsumedRecord to_consumed_record(const RecordView& view);

}  // namespace brook::internal

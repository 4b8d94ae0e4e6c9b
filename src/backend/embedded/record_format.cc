#include "backend/embedded/record_format.h"

#include <cstring>
#include <string>

#include "backend/embedded/crc32c.h"
#include "brook/internal/coding.h"

namespace brook::internal {
namespace {

char* put_bytes(char* p, std::string_view bytes) {
  if (!bytes.empty()) std::memcpy(p, bytes.data(), bytes.size());
  return p + bytes.size();
}

// A bounds-checked cursor over a body.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool has(std::size_t n) const { return bytes_.size() - position_ >= n; }
  std::size_t remaining() const { return bytes_.size() - position_; }
  template <class T>
  T take() {  // callers check has(sizeof(T)) first
    const T v = get_little_endian<T>(bytes_.data() + position_);
    position_ += sizeof(T);
    return v;
  }
  std::string_view take_bytes(std::size_t n) {
    const std::string_view v = bytes_.substr(position_, n);
    position_ += n;
    return v;
  }

 private:
  std::string_view bytes_;
  std::size_t position_ = 0;
};

Status malformed(std::string_view what) {
  return Status::corruption("malformed record: " + std::string(what));
}

}  // namespace

std::size_t encoded_size(const RecordToAppend& record) {
  std::size_t size = kFrameHeaderBytes + kMinBodyBytes;
  if (record.key) size += record.key->size();
  if (record.value) size += record.value->size();
  if (record.headers != nullptr) {
    for (const Header& h : *record.headers) {
      size += 8 + h.key.size() + (h.value ? h.value->size() : 0);
    }
  }
  return size;
}

void encode_record(const RecordToAppend& record, std::int64_t offset, std::size_t size,
                   ByteBuffer& out) {
  char* const frame = out.extend(size);
  char* const body = frame + kFrameHeaderBytes;
  char* p = body;
  p = put_little_endian<std::uint8_t>(p, kRecordFormatVersion);
  p = put_little_endian<std::uint8_t>(
      p, static_cast<std::uint8_t>((record.key ? 0 : kNullKeyBit) |
                                   (record.value ? 0 : kNullValueBit)));
  p = put_little_endian<std::int64_t>(p, offset);
  p = put_little_endian<std::int64_t>(p, record.timestamp.value());
  const std::string_view key = record.key.value_or(std::string_view());
  p = put_little_endian<std::uint32_t>(p, static_cast<std::uint32_t>(key.size()));
  p = put_bytes(p, key);
  const std::string_view value = record.value.value_or(std::string_view());
  p = put_little_endian<std::uint32_t>(p, static_cast<std::uint32_t>(value.size()));
  p = put_bytes(p, value);
  const std::size_t header_count = record.headers != nullptr ? record.headers->size() : 0;
  p = put_little_endian<std::uint32_t>(p, static_cast<std::uint32_t>(header_count));
  if (record.headers != nullptr) {
    for (const Header& h : *record.headers) {
      p = put_little_endian<std::uint32_t>(p, static_cast<std::uint32_t>(h.key.size()));
      p = put_bytes(p, h.key);
      p = put_little_endian<std::int32_t>(
          p, h.value ? static_cast<std::int32_t>(h.value->size()) : -1);
      if (h.value) p = put_bytes(p, *h.value);
    }
  }
  const auto body_bytes = static_cast<std::uint32_t>(p - body);
  char* h = put_little_endian<std::uint32_t>(frame, body_bytes);
  h = put_little_endian<std::uint32_t>(h, mask_crc(crc32c(body, body_bytes)));
  put_little_endian<std::uint32_t>(h, mask_crc(crc32c(frame, 8)));
}

std::optional<FrameHeader> decode_frame_header(const char* p) {
  if (unmask_crc(get_little_endian<std::uint32_t>(p + 8)) != crc32c(p, 8)) return std::nullopt;
  return FrameHeader{.body_bytes = get_little_endian<std::uint32_t>(p),
                     .body_crc = unmask_crc(get_little_endian<std::uint32_t>(p + 4))};
}

bool body_crc_matches(const FrameHeader& header, const char* body) {
  return crc32c(body, header.body_bytes) == header.body_crc;
}

namespace {

// Takes a length-prefixed key or value into `out`, or checks that its length is 0 if
// `is_null`; returns why it cannot (`past_end`, `null_with_length`), or null.
const char* take_nullable(Reader& in, bool is_null, std::optional<std::string_view>& out,
                          const char* past_end, const char* null_with_length) {
  if (!in.has(4)) return past_end;
  const auto size = in.take<std::uint32_t>();
  if (!in.has(size)) return past_end;
  const std::string_view bytes = in.take_bytes(size);
  if (!is_null) {
    out = bytes;
    return nullptr;
  }
  return size == 0 ? nullptr : null_with_length;
}

}  // namespace

const char* decode_body_into(std::string_view body, RecordView& view) {
  Reader in(body);
  if (!in.has(kMinBodyBytes)) return "body shorter than the fixed fields";
  if (in.take<std::uint8_t>() != kRecordFormatVersion) return "unknown format version";
  const auto attributes = in.take<std::uint8_t>();
  if ((attributes & ~(kNullKeyBit | kNullValueBit)) != 0) return "unknown attribute bits";
  view = RecordView{.offset = in.take<std::int64_t>(), .timestamp = in.take<std::int64_t>()};
  if (const char* why =
          take_nullable(in, attributes & kNullKeyBit, view.key,
                        "key length past the end of the record", "null key with a length")) {
    return why;
  }
  if (const char* why =
          take_nullable(in, attributes & kNullValueBit, view.value,
                        "value length past the end of the record", "null value with a length")) {
    return why;
  }
  if (!in.has(4)) return "header count past the end of the record";
  view.header_count = in.take<std::uint32_t>();
  const std::size_t headers_start = body.size() - in.remaining();
  for (std::uint32_t i = 0; i < view.header_count; ++i) {
    if (!in.has(4)) return "header key length past the end of the record";
    const auto header_key_size = in.take<std::uint32_t>();
    if (!in.has(header_key_size)) return "header key past the end of the record";
    in.take_bytes(header_key_size);
    if (!in.has(4)) return "header value length past the end of the record";
    const auto header_value_size = in.take<std::int32_t>();
    if (header_value_size < -1) return "negative header value length";
    if (header_value_size > 0) {
      if (!in.has(static_cast<std::uint32_t>(header_value_size))) {
        return "header value past the end of the record";
      }
      in.take_bytes(static_cast<std::uint32_t>(header_value_size));
    }
  }
  if (in.remaining() != 0) return "bytes after the last header";
  view.headers = body.substr(headers_start);
  return nullptr;
}

Result<RecordView> decode_body(std::string_view body) {
  RecordView view;
  if (const char* why = decode_body_into(body, view)) return error(malformed(why));
  return view;
}

namespace {

Headers decode_headers(const RecordView& view) {
  Headers headers;
  Reader in(view.headers);
  for (std::uint32_t i = 0; i < view.header_count; ++i) {
    std::string key(in.take_bytes(in.take<std::uint32_t>()));
    const auto value_size = in.take<std::int32_t>();
    std::optional<std::string> value;
    if (value_size >= 0) value.emplace(in.take_bytes(static_cast<std::uint32_t>(value_size)));
    headers.add(std::move(key), std::move(value));
  }
  return headers;
}

}  // namespace

StoredRecord to_stored_record(const RecordView& view) {
  StoredRecord record{.offset = Offset(view.offset),
                      .timestamp = Timestamp(view.timestamp),
                      .headers = decode_headers(view)};
  if (view.key) record.key.emplace(*view.key);
  if (view.value) record.value.emplace(*view.value);
  return record;
}

ConsumedRecord to_consumed_record(const RecordView& view) {
  return {.offset = Offset(view.offset),
          .timestamp = Timestamp(view.timestamp),
          .key = view.key,
          .value = view.value,
          .headers = decode_headers(view)};
}

}  // namespace brook::internal

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

Result<RecordView> decode_body(std::string_view body) {
  Reader in(body);
  if (!in.has(kMinBodyBytes)) return error(malformed("body shorter than the fixed fields"));
  if (in.take<std::uint8_t>() != kRecordFormatVersion) {
    return error(malformed("unknown format version"));
  }
  const auto attributes = in.take<std::uint8_t>();
  if ((attributes & ~(kNullKeyBit | kNullValueBit)) != 0) {
    return error(malformed("unknown attribute bits"));
  }
  RecordView view;
  view.offset = in.take<std::int64_t>();
  view.timestamp = in.take<std::int64_t>();

  // A length-prefixed key or value; a set null bit requires length 0.
  auto take_nullable = [&](std::uint8_t null_bit, std::string_view what,
                           std::optional<std::string_view>& out) -> Status {
    auto past_end = [&] {
      return malformed(std::string(what) + " length past the end of the record");
    };
    if (!in.has(4)) return past_end();
    const auto size = in.take<std::uint32_t>();
    if (!in.has(size)) return past_end();
    const std::string_view bytes = in.take_bytes(size);
    if (attributes & null_bit) {
      if (size != 0) return malformed("null " + std::string(what) + " with a length");
    } else {
      out = bytes;
    }
    return {};
  };
  if (auto s = take_nullable(kNullKeyBit, "key", view.key); !s.ok()) return error(s);
  if (auto s = take_nullable(kNullValueBit, "value", view.value); !s.ok()) return error(s);
  if (!in.has(4)) return error(malformed("header count past the end of the record"));
  view.header_count = in.take<std::uint32_t>();
  const std::size_t headers_start = body.size() - in.remaining();
  for (std::uint32_t i = 0; i < view.header_count; ++i) {
    if (!in.has(4)) return error(malformed("header key length past the end of the record"));
    const auto header_key_size = in.take<std::uint32_t>();
    if (!in.has(header_key_size)) return error(malformed("header key past the end of the record"));
    in.take_bytes(header_key_size);
    if (!in.has(4)) return error(malformed("header value length past the end of the record"));
    const auto header_value_size = in.take<std::int32_t>();
    if (header_value_size < -1) return error(malformed("negative header value length"));
    if (header_value_size > 0) {
      if (!in.has(static_cast<std::uint32_t>(header_value_size))) {
        return error(malformed("header value past the end of the record"));
      }
      in.take_bytes(static_cast<std::uint32_t>(header_value_size));
    }
  }
  if (in.remaining() != 0) return error(malformed("bytes after the last header"));
  view.headers = body.substr(headers_start);
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

ConsumedRecord to_consumed_record(const RecordView& view, RecordArena& arena) {
  ConsumedRecord record{.offset = Offset(view.offset),
                        .timestamp = Timestamp(view.timestamp),
                        .headers = decode_headers(view)};
  if (view.key) record.key = arena.copy(*view.key);
  if (view.value) record.value = arena.copy(*view.value);
  return record;
}

}  // namespace brook::internal

#include "brook/internal/headers_codec.h"

#include <cstdint>

#include "brook/internal/coding.h"

namespace brook::internal {
namespace {

void put_u32(std::string& out, std::uint32_t v) { append_big_endian(out, v, 4); }

// Reads a big-endian u32 from the front of `in`; false if fewer than 4 bytes are left.
bool take_u32(std::string_view& in, std::uint32_t& v) {
  if (in.size() < 4) return false;
  v = get_big_endian<std::uint32_t>(in.data());
  in.remove_prefix(4);
  return true;
}

bool take_bytes(std::string_view& in, std::uint32_t n, std::string_view& out) {
  if (in.size() < n) return false;
  out = in.substr(0, n);
  in.remove_prefix(n);
  return true;
}

constexpr std::uint32_t kNull = 0xffffffff;

}  // namespace

std::size_t encoded_headers_size(const Headers& headers) {
  if (headers.empty()) return 0;
  std::size_t size = 4;
  for (const Header& h : headers) size += 8 + h.key.size() + (h.value ? h.value->size() : 0);
  return size;
}

void append_headers(std::string& out, const Headers& headers) {
  if (headers.empty()) return;
  out.reserve(out.size() + encoded_headers_size(headers));
  put_u32(out, static_cast<std::uint32_t>(headers.size()));
  for (const Header& h : headers) {
    put_u32(out, static_cast<std::uint32_t>(h.key.size()));
    out.append(h.key);
    put_u32(out, h.value ? static_cast<std::uint32_t>(h.value->size()) : kNull);
    if (h.value) out.append(*h.value);
  }
}

Result<Headers> decode_headers(std::string_view bytes) {
  Headers headers;
  if (bytes.empty()) return headers;
  auto malformed = [&] {
    return error(
        Status::corruption("malformed headers (" + std::to_string(bytes.size()) + " bytes)"));
  };
  std::string_view in = bytes;
  std::uint32_t count = 0;
  if (!take_u32(in, count)) return malformed();
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint32_t key_size = 0, value_size = 0;
    std::string_view key, value;
    if (!take_u32(in, key_size) || !take_bytes(in, key_size, key) || !take_u32(in, value_size)) {
      return malformed();
    }
    if (value_size == kNull) {
      headers.add(std::string(key), std::nullopt);
      continue;
    }
    if (!take_bytes(in, value_size, value)) return malformed();
    headers.add(std::string(key), std::string(value));
  }
  if (!in.empty()) return malformed();
  return headers;
}

}  // namespace brook::internal

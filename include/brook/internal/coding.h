// Fixed-width integers as raw bytes, the one place Brook encodes and decodes them. Big-endian
// (network order) where the bytes are Kafka's or sort as numbers: Kafka's integer serializers,
// window and session keys, store and subscription formats, PostgreSQL's protocol.
// Little-endian in the embedded log's own files. Not for users.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "brook/types.h"

namespace brook::internal {

// Writes `v` at `p` in byte order `Order`; returns the byte after it.
template <std::endian Order, std::integral T>
char* put_in_order(char* p, T v) {
  if constexpr (std::endian::native != Order) v = std::byteswap(v);
  std::memcpy(p, &v, sizeof v);
  return p + sizeof v;
}
// The T at `p` (sizeof(T) bytes) in byte order `Order`.
template <std::endian Order, std::integral T>
T get_in_order(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native != Order) v = std::byteswap(v);
  return v;
}

template <std::integral T>
char* put_big_endian(char* p, T v) {
  return put_in_order<std::endian::big>(p, v);
}
template <std::integral T>
T get_big_endian(const char* p) {
  return get_in_order<std::endian::big, T>(p);
}
template <std::integral T>
char* put_little_endian(char* p, T v) {
  return put_in_order<std::endian::little>(p, v);
}
template <std::integral T>
T get_little_endian(const char* p) {
  return get_in_order<std::endian::little, T>(p);
}

// Appends `v` as `bytes` (at most 8) big-endian bytes (its low ones), in one append.
inline void append_big_endian(std::string& out, std::uint64_t v, int bytes) {
  char all[sizeof v];
  put_big_endian(all, v);
  out.append(all + sizeof v - bytes, static_cast<std::size_t>(bytes));
}
// The big-endian integer in `bytes` (at most 8 of them).
inline std::uint64_t read_big_endian(std::string_view bytes) {
  std::uint64_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<unsigned char>(c);
  return v;
}

// Timestamps as 8 big-endian bytes of their value (any value; window and session store keys
// clamp negative ones first, window_keys.h).
inline void put_time(std::string& out, Timestamp t) {
  append_big_endian(out, static_cast<std::uint64_t>(t.value()), 8);
}
// The timestamp in the first 8 bytes of `bytes`.
inline Timestamp get_time(std::string_view bytes) {
  return Timestamp(static_cast<std::int64_t>(read_big_endian(bytes.substr(0, 8))));
}

}  // namespace brook::internal

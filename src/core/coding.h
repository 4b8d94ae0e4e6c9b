// Fixed-width integers as raw bytes in little-endian order (the embedded log's files), without
// alignment requirements.
#pragma once

#include <bit>
#include <concepts>
#include <cstring>

namespace brook::internal {

// Writes `v` at `p` in little-endian order; returns the byte after it.
template <std::integral T>
char* put_le(char* p, T v) {
  if constexpr (std::endian::native == std::endian::big) v = std::byteswap(v);
  std::memcpy(p, &v, sizeof v);
  return p + sizeof v;
}

// Reads a little-endian T at `p`.
template <std::integral T>
T get_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = std::byteswap(v);
  return v;
}

}  // namespace brook::internal

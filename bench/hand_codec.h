// Hand-written big-endian 8-byte encoding (Kafka's LongSerializer/DoubleSerializer format)
// without Brook: what the baselines do instead of Int64Serde/DoubleSerde.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace brook::bench {

inline std::string hand_encode_u64(std::uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) v = std::byteswap(v);
  std::string out(sizeof v, '\0');
  std::memcpy(out.data(), &v, sizeof v);
  return out;
}

// `bytes` must hold exactly 8 bytes (the caller checks the size, as a real decoder would).
inline std::uint64_t hand_decode_u64(std::string_view bytes) {
  std::uint64_t v;
  std::memcpy(&v, bytes.data(), sizeof v);
  if constexpr (std::endian::native == std::endian::little) v = std::byteswap(v);
  return v;
}

}  // namespace brook::bench

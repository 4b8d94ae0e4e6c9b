// CRC-32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78), the checksum of the embedded
// log's record frames. Uses the SSE4.2 crc32 instruction when the CPU has it, else a portable
// slice-by-8 table implementation; both give identical results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace brook::internal {

// The CRC-32C of `data` appended to a byte string whose CRC-32C is `crc` (0 for the empty
// string), so crc32c_extend(crc32c(a), b) == crc32c(a + b).
std::uint32_t crc32c_extend(std::uint32_t crc, const void* data, std::size_t n);
inline std::uint32_t crc32c(const void* data, std::size_t n) { return crc32c_extend(0, data, n); }
inline std::uint32_t crc32c(std::string_view data) { return crc32c(data.data(), data.size()); }

// The table implementation, always; exposed so tests can compare it with the hardware one.
std::uint32_t crc32c_extend_portable(std::uint32_t crc, const void* data, std::size_t n);

// Stored CRCs are masked (as in LevelDB): the CRC of a string that embeds its own CRC is weak,
// and a frame header checksums the body CRC it holds.
inline constexpr std::uint32_t kCrcMaskDelta = 0xa282ead8u;
inline std::uint32_t mask_crc(std::uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kCrcMaskDelta;
}
inline std::uint32_t unmask_crc(std::uint32_t masked) {
  const std::uint32_t rot = masked - kCrcMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace brook::internal

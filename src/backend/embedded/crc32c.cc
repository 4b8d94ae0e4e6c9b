#include "backend/embedded/crc32c.h"

#include <array>
#include <bit>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace brook::internal {
namespace {

constexpr std::uint32_t kPolynomial = 0x82F63B78u;  // reflected 0x1EDC6F41

// kTables[k][b]: the CRC of byte b followed by k zero bytes (slice-by-8).
constexpr auto kTables = [] {
  std::array<std::array<std::uint32_t, 256>, 8> tables{};
  for (std::uint32_t b = 0; b < 256; ++b) {
    std::uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1) ? kPolynomial : 0);
    tables[0][b] = crc;
  }
  for (std::uint32_t b = 0; b < 256; ++b) {
    for (int k = 1; k < 8; ++k) {
      const std::uint32_t prev = tables[k - 1][b];
      tables[k][b] = (prev >> 8) ^ tables[0][prev & 0xff];
    }
  }
  return tables;
}();

std::uint64_t load_le64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = std::byteswap(v);
  return v;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t extend_sse42(std::uint32_t crc, const void* data,
                                                             std::size_t n) {
  // Unaligned loads: on the CPUs that have SSE4.2 they cost what aligned ones cost, and a
  // frame's body starts anywhere.
  auto p = static_cast<const unsigned char*>(data);
  std::uint64_t l = ~crc;
  for (; n >= 8; p += 8, n -= 8) l = _mm_crc32_u64(l, load_le64(p));
  auto c = static_cast<std::uint32_t>(l);
  if (n & 4) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    c = _mm_crc32_u32(c, v);
    p += 4;
  }
  if (n & 2) {
    std::uint16_t v;
    std::memcpy(&v, p, 2);
    c = _mm_crc32_u16(c, v);
    p += 2;
  }
  if (n & 1) c = _mm_crc32_u8(c, *p);
  return ~c;
}
#endif

using ExtendFn = std::uint32_t (*)(std::uint32_t, const void*, std::size_t);

ExtendFn choose_implementation() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("sse4.2")) return extend_sse42;
#endif
  return crc32c_extend_portable;
}

}  // namespace

std::uint32_t crc32c_extend_portable(std::uint32_t crc, const void* data, std::size_t n) {
  auto p = static_cast<const unsigned char*>(data);
  std::uint32_t l = ~crc;
  while (n >= 8) {
    const std::uint64_t word = load_le64(p) ^ l;
    l = kTables[7][word & 0xff] ^ kTables[6][(word >> 8) & 0xff] ^ kTables[5][(word >> 16) & 0xff] ^
        kTables[4][(word >> 24) & 0xff] ^ kTables[3][(word >> 32) & 0xff] ^
        kTables[2][(word >> 40) & 0xff] ^ kTables[1][(word >> 48) & 0xff] ^ kTables[0][word >> 56];
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    l = (l >> 8) ^ kTables[0][(l ^ *p++) & 0xff];
    --n;
  }
  return ~l;
}

std::uint32_t crc32c_extend(std::uint32_t crc, const void* data, std::size_t n) {
  static const ExtendFn kImplementation = choose_implementation();
  return kImplementation(crc, data, n);
}

}  // namespace brook::internal

// CRC-32C (Castagnoli), as used by Kafka record batches: the checksum of Brook's files.
#pragma once

#include <cstdint>
#include <string_view>

namespace brook::internal {

// The CRC-32C of `data`, continuing from `crc` (0 to start).
std::uint32_t crc32c(std::string_view data, std::uint32_t crc = 0);

}  // namespace brook::internal

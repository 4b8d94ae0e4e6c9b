#include "brook/internal/partitioner.h"

namespace brook::internal {

// Kafka's org.apache.kafka.common.utils.Utils.murmur2, seed 0x9747b28c.
std::int32_t murmur2(std::string_view key) {
  const auto* data = reinterpret_cast<const unsigned char*>(key.data());
  const std::uint32_t length = static_cast<std::uint32_t>(key.size());
  constexpr std::uint32_t kSeed = 0x9747b28c;
  constexpr std::uint32_t kM = 0x5bd1e995;
  constexpr int kR = 24;
  std::uint32_t h = kSeed ^ length;
  const std::uint32_t blocks = length / 4;
  for (std::uint32_t i = 0; i < blocks; ++i) {
    const std::uint32_t j = i * 4;
    std::uint32_t k = data[j] | (data[j + 1] << 8) | (data[j + 2] << 16) |
                      (static_cast<std::uint32_t>(data[j + 3]) << 24);
    k *= kM;
    k ^= k >> kR;
    k *= kM;
    h *= kM;
    h ^= k;
  }
  const std::uint32_t tail = blocks * 4;
  switch (length % 4) {
    case 3: h ^= static_cast<std::uint32_t>(data[tail + 2]) << 16; [[fallthrough]];
    case 2: h ^= static_cast<std::uint32_t>(data[tail + 1]) << 8; [[fallthrough]];
    case 1: h ^= data[tail]; h *= kM;
  }
  h ^= h >> 13;
  h *= kM;
  h ^= h >> 15;
  return static_cast<std::int32_t>(h);
}

Partition partition_for_key(std::string_view key, std::int32_t partitions) {
  // Kafka: toPositive(murmur2(key)) % numPartitions, toPositive = x & 0x7fffffff.
  return Partition((murmur2(key) & 0x7fffffff) % partitions);
}

}  // namespace brook::internal

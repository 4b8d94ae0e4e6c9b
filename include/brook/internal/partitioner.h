// Kafka's default partitioner, identical to the Java client's, so that Brook co-partitions
// with data written by any Kafka client. Not for users.
#pragma once

#include <cstdint>
#include <string_view>

#include "brook/types.h"

namespace brook::internal {

// murmur2 of `key` as the Java client computes it (Utils.murmur2).
std::int32_t murmur2(std::string_view key);
// The partition of `partitions` that the default partitioner gives `key`:
// toPositive(murmur2(key)) % partitions.
Partition partition_for_key(std::string_view key, std::int32_t partitions);

}  // namespace brook::internal

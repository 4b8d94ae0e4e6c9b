// What the count app of crash_app.cc leaves behind, read back for a test's checks: its stores on
// disk and the counts it wrote to its output topic.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "brook/record.h"
#include "brook/serde.h"
#include "brook/state_store.h"
#include "state/rocksdb/rocksdb_store.h"

namespace brook::testing {

// 1, 2, ..., n: the counts a count app writes for a key of n records, exactly once.
inline std::vector<std::int64_t> one_to(std::int64_t n) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) counts[static_cast<std::size_t>(i)] = i + 1;
  return counts;
}

// Every key's count in the "counts" stores of tasks 0_0 .. 0_<partitions - 1> under
// `state_dir` (the app's state.dir), read from the RocksDB files.
inline std::map<std::string, std::int64_t> counts_on_disk(const std::filesystem::path& state_dir,
                                                          int partitions) {
  std::map<std::string, std::int64_t> out;
  const TimestampedSerde<std::int64_t> serde(std::make_shared<Int64Serde>());
  auto memory = std::make_shared<internal::RocksDbMemory>(16 << 20);
  for (int p = 0; p < partitions; ++p) {
    auto store = internal::open_rocksdb_store(
        "counts", state_dir / "crash-app" / ("0_" + std::to_string(p)) / "counts", memory);
    EXPECT_TRUE(store) << store.error().to_string();
    if (!store) continue;
    EXPECT_TRUE((*store)
                    ->scan({},
                           [&](std::string_view key, std::string_view value) {
                             out[std::string(key)] = serde.deserialize(value)->value;
                             return true;
                           })
                    .ok());
  }
  return out;
}

// The last count of every key among `records` of the output topic.
inline std::map<std::string, std::int64_t> latest_counts(
    const std::vector<ConsumerRecord>& records) {
  std::map<std::string, std::int64_t> out;
  for (const auto& r : records) out[*r.key] = *Int64Serde().deserialize(*r.value);
  return out;
}

}  // namespace brook::testing

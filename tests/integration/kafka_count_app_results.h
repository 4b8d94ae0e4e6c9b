// What the Kafka count app (kafka_count_app.cc) shows from outside while it runs and leaves
// behind: the input offsets its group committed, and the counts it wrote.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "backend/log_backend.h"
#include "brook/serde.h"
#include "integration/count_app_results.h"
#include "topic_reader.h"

namespace brook::testing {

// Input records of `topic` (partitions 0 .. partitions - 1) whose offsets `group` committed.
inline std::int64_t group_committed(internal::LogBackend& log, const std::string& group,
                                    const std::string& topic, int partitions) {
  auto consumer = log.make_consumer({.group_id = group});
  EXPECT_TRUE(consumer) << consumer.error().to_string();
  if (!consumer) return 0;
  std::int64_t total = 0;
  for (int p = 0; p < partitions; ++p) {
    auto offset = (*consumer)->committed({topic, Partition(p)});
    EXPECT_TRUE(offset) << offset.error().to_string();
    if (offset && *offset) total += (*offset)->value();
  }
  return total;
}

// Waits until `group` committed at least `records` records of `topic`; fails the test if that
// takes longer than `limit`.
inline void wait_for_group_committed(internal::LogBackend& log, const std::string& group,
                                     const std::string& topic, int partitions, std::int64_t records,
                                     std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::int64_t now = 0;
  while ((now = group_committed(log, group, topic, partitions)) < records &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // offsets only move on commits
  }
  ASSERT_GE(now, records) << "the application stopped making progress";
}

// Every count written per key to `topic`, in the order written (read_committed).
inline std::map<std::string, std::vector<std::int64_t>> counts_written(internal::LogBackend& log,
                                                                       const std::string& topic) {
  std::map<std::string, std::vector<std::int64_t>> out;
  const Int64Serde serde;
  for (const auto& [partition, records] : read_topic(log, topic)) {
    for (const auto& r : records) out[*r.key].push_back(*serde.deserialize(*r.value));
  }
  return out;
}

}  // namespace brook::testing

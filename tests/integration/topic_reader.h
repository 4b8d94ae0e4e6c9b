// Reads a whole topic through any LogBackend (the embedded log or Kafka), up to the end its
// partitions have when the read starts.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "backend/log_backend.h"

namespace brook::testing {

// Every record of `topic`, partition by partition, each in offset order. Reads each partition
// until its position reaches the end the admin reports (an empty poll proves nothing on
// Kafka). Fails the test on an error or if that takes over a minute.
inline std::map<int, std::vector<ConsumerRecord>> read_topic(internal::LogBackend& log,
                                                             const std::string& topic) {
  std::map<int, std::vector<ConsumerRecord>> out;
  auto description = log.admin().describe_topic(topic);
  EXPECT_TRUE(description) << description.error().to_string();
  if (!description) return out;
  std::map<internal::TopicPartition, Offset> end;
  for (int p = 0; p < description->partitions; ++p) {
    const internal::TopicPartition tp{topic, Partition(p)};
    auto offset = log.admin().list_offset(tp, {.kind = internal::OffsetSpec::Kind::kLatest});
    EXPECT_TRUE(offset) << offset.error().to_string();
    if (!offset) return out;
    end.emplace(tp, *offset);
    out[p];
  }
  auto consumer = log.make_consumer({});
  EXPECT_TRUE(consumer) << consumer.error().to_string();
  if (!consumer) return out;
  std::vector<internal::TopicPartition> partitions;
  for (const auto& [tp, offset] : end) partitions.push_back(tp);
  EXPECT_TRUE((*consumer)->assign(partitions).ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (true) {
    bool done = true;
    for (const auto& [tp, offset] : end) {
      auto position = (*consumer)->position(tp);
      done = done && position && *position >= offset;
    }
    if (done) return out;
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "reading " << topic << " did not reach its end within a minute";
      return out;
    }
    auto records = (*consumer)->poll(std::chrono::milliseconds(100));
    EXPECT_TRUE(records) << records.error().to_string();
    if (!records) return out;
    for (auto& r : *records) out[r.partition.value()].push_back(std::move(r));
  }
}

}  // namespace brook::testing

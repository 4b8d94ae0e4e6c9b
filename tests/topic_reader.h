// Reads partitions or a whole topic through any LogBackend (the embedded log or Kafka), up to
// the end they have when the read starts.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "backend/log_backend.h"

namespace brook::testing {

// The records of `partitions` from offset `from` (0: the earliest there is), each in offset order,
// read until each position reaches the partition's end as such a reader sees it when the read
// starts (the last stable offset for read_committed, else the high watermark): an empty poll proves
// nothing on Kafka. Fails the test on an error or if that takes over a minute.
inline std::map<internal::TopicPartition, std::vector<ConsumerRecord>> read_partitions(
    internal::LogBackend& log, const std::vector<internal::TopicPartition>& partitions,
    Offset from = Offset(0), bool read_committed = true) {
  using Kind = internal::OffsetSpec::Kind;
  std::map<internal::TopicPartition, std::vector<ConsumerRecord>> out;
  std::map<internal::TopicPartition, Offset> end;
  for (const auto& tp : partitions) {
    auto offset = log.admin().list_offset(
        tp, {.kind = read_committed ? Kind::kLatest : Kind::kHighWatermark});
    EXPECT_TRUE(offset) << offset.error().to_string();
    if (!offset) return out;
    end.emplace(tp, *offset);
    out[tp];
  }
  auto consumer = log.make_consumer({.read_committed = read_committed});
  EXPECT_TRUE(consumer) << consumer.error().to_string();
  if (!consumer) return out;
  EXPECT_TRUE((*consumer)->assign(partitions).ok());
  if (from != Offset(0)) {
    for (const auto& tp : partitions) EXPECT_TRUE((*consumer)->seek(tp, from).ok());
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (true) {
    bool done = true;
    for (const auto& [tp, offset] : end) {
      auto position = (*consumer)->position(tp);
      done = done && position && *position >= offset;
    }
    if (done) return out;
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "reading " << partitions.size()
                    << " partition(s) did not reach their end within a minute";
      return out;
    }
    auto records = (*consumer)->poll(std::chrono::milliseconds(100));
    EXPECT_TRUE(records) << records.error().to_string();
    if (!records) return out;
    for (auto& r : *records) out[{r.topic, r.partition}].push_back(std::move(r));
  }
}

inline std::vector<ConsumerRecord> read_partition(internal::LogBackend& log,
                                                  const internal::TopicPartition& partition,
                                                  Offset from = Offset(0),
                                                  bool read_committed = true) {
  return std::move(read_partitions(log, {partition}, from, read_committed)[partition]);
}

// Every record of `topic`, by partition number.
inline std::map<int, std::vector<ConsumerRecord>> read_topic(internal::LogBackend& log,
                                                             const std::string& topic) {
  std::map<int, std::vector<ConsumerRecord>> out;
  auto description = log.admin().describe_topic(topic);
  EXPECT_TRUE(description) << description.error().to_string();
  if (!description) return out;
  std::vector<internal::TopicPartition> partitions;
  for (int p = 0; p < description->partitions; ++p) partitions.push_back({topic, Partition(p)});
  for (auto& [tp, records] : read_partitions(log, partitions)) {
    out[tp.partition.value()] = std::move(records);
  }
  return out;
}

// The values of `records` in order, "<null>" for a tombstone.
inline std::vector<std::string> values_of(const std::vector<ConsumerRecord>& records) {
  std::vector<std::string> out;
  for (const auto& r : records) out.push_back(r.value.value_or("<null>"));
  return out;
}

}  // namespace brook::testing

#include "cli/topic_reader.h"

#include <fmt/format.h>

#include <vector>

namespace brook::cli {

using internal::TopicPartition;

Result<std::vector<PartitionRange>> partition_ranges(internal::LogBackend& log,
                                                     const std::string& topic,
                                                     std::int32_t partitions) {
  std::vector<PartitionRange> ranges;
  for (std::int32_t p = 0; p < partitions; ++p) {
    const TopicPartition tp{topic, Partition(p)};
    auto start = log.admin().list_offset(tp, {.kind = internal::OffsetSpec::Kind::kEarliest});
    if (!start) return error(start.error());
    auto end = log.admin().list_offset(tp, {.kind = internal::OffsetSpec::Kind::kLatest});
    if (!end) return error(end.error());
    ranges.push_back({.start = *start, .end = *end});
  }
  return ranges;
}

Result<bool> TopicReader::reached_end() const {
  for (const auto& [tp, last] : end) {
    auto position = consumer->position(tp);
    if (!position && position.error().code() == StatusCode::kFailedPrecondition) return false;
    if (!position) return error(position.error());
    if (*position < last) return false;
  }
  return true;
}

Result<TopicReader> open_topic_reader(internal::LogBackend& log, const std::string& topic,
                                      std::optional<Partition> partition, const std::string& group,
                                      bool from_beginning) {
  auto description = log.admin().describe_topic(topic);
  if (!description) return error(description.error());
  TopicReader reader;
  for (std::int32_t p = 0; p < description->partitions; ++p) {
    if (partition && partition->value() != p) continue;
    const TopicPartition tp{topic, Partition(p)};
    auto end = log.admin().list_offset(tp, {.kind = internal::OffsetSpec::Kind::kLatest});
    if (!end) return error(end.error());
    reader.end.emplace(tp, *end);
  }
  if (reader.end.empty()) {
    return error(
        Status::invalid_argument(fmt::format("topic '{}' has no partition {} (it has {})", topic,
                                             partition->value(), description->partitions)));
  }
  // With a group id, assign() starts each partition at the group's committed offset.
  auto consumer = log.make_consumer({.group_id = group, .client_id = "brook-cli"});
  if (!consumer) return error(consumer.error());
  reader.consumer = std::move(*consumer);
  std::vector<TopicPartition> partitions;
  for (const auto& [tp, end] : reader.end) partitions.push_back(tp);
  if (auto s = reader.consumer->assign(partitions); !s.ok()) return error(s);
  if (group.empty() && !from_beginning) {
    for (const auto& [tp, end] : reader.end) {
      if (auto s = reader.consumer->seek(tp, end); !s.ok()) return error(s);
    }
  }
  return reader;
}

}  // namespace brook::cli

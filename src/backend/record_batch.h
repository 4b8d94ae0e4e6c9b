// RecordBatch: the records of one partition read together, viewing the bytes they were read
// into, so that reading a log costs no allocation per record (issue "the record path").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "brook/record.h"

namespace brook::internal {

struct TopicPartition {
  std::string topic;
  Partition partition;
  friend auto operator<=>(const TopicPartition&, const TopicPartition&) = default;
  std::string to_string() const { return topic + "-" + std::to_string(partition.value()); }
};

// A record as read from a log: a ConsumerRecord without the topic and partition (its batch
// has them), whose key and value view bytes its batch keeps alive.
struct ConsumedRecord {
  Offset offset;
  Timestamp timestamp;
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  Headers headers;
};

// Records of one partition in offset order. Their views stay valid as long as `bytes` lives
// (shared: a copy of the batch keeps them valid too).
struct RecordBatch {
  TopicPartition partition;
  std::vector<ConsumedRecord> records;
  std::shared_ptr<const void> bytes;
};

// A copy of nullable bytes.
inline std::optional<std::string> owned(std::optional<std::string_view> bytes) {
  return bytes ? std::optional<std::string>(*bytes) : std::nullopt;
}

// A batch of `record` alone, viewing its key, value and topic: valid while `record` lives,
// unless `bytes` keeps it alive as long as the batch.
RecordBatch batch_of(const ConsumerRecord& record, std::shared_ptr<const void> bytes = nullptr);

// The records of `batches` in order, each owning a copy of its key and value.
std::vector<ConsumerRecord> to_consumer_records(std::vector<RecordBatch> batches);

}  // namespace brook::internal

#include "backend/record_batch.h"

namespace brook::internal {

std::vector<ConsumerRecord> to_consumer_records(std::vector<RecordBatch> batches) {
  std::size_t total = 0;
  for (const auto& batch : batches) total += batch.records.size();
  std::vector<ConsumerRecord> out;
  out.reserve(total);
  for (auto& batch : batches) {
    for (auto& r : batch.records) {
      out.push_back({.topic = batch.partition.topic,
                     .partition = batch.partition.partition,
                     .offset = r.offset,
                     .timestamp = r.timestamp,
                     .key = r.key ? std::optional<std::string>(*r.key) : std::nullopt,
                     .value = r.value ? std::optional<std::string>(*r.value) : std::nullopt,
                     .headers = std::move(r.headers)});
    }
  }
  return out;
}

std::vector<RecordBatch> to_record_batches(std::vector<ConsumerRecord> records) {
  auto owned = std::make_shared<const std::vector<ConsumerRecord>>(std::move(records));
  std::vector<RecordBatch> batches;
  for (const ConsumerRecord& r : *owned) {
    if (batches.empty() || batches.back().partition.partition != r.partition ||
        batches.back().partition.topic != r.topic) {
      batches.push_back({.partition = {r.topic, r.partition}, .records = {}, .bytes = owned});
    }
    batches.back().records.push_back({.offset = r.offset,
                                      .timestamp = r.timestamp,
                                      .key = r.key,
                                      .value = r.value,
                                      .headers = r.headers});
  }
  return batches;
}

}  // namespace brook::internal

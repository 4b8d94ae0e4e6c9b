#include "backend/record_batch.h"

namespace brook::internal {

RecordBatch batch_of(const ConsumerRecord& record, std::shared_ptr<const void> bytes) {
  return {.partition = {record.topic, record.partition},
          .records = {{.offset = record.offset,
                       .timestamp = record.timestamp,
                       .key = record.key,
                       .value = record.value,
                       .headers = record.headers}},
          .bytes = std::move(bytes)};
}

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
                     .key = owned(r.key),
                     .value = owned(r.value),
                     .headers = std::move(r.headers)});
    }
  }
  return out;
}

}  // namespace brook::internal

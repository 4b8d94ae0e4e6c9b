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
                     .key = owned(r.key),
                     .value = owned(r.value),
                     .headers = std::move(r.headers)});
    }
  }
  return out;
}

}  // namespace brook::internal

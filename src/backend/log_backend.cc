#include "backend/log_backend.h"

namespace brook::internal {

Status Consumer::commit(const std::map<TopicPartition, Offset>& offsets) {
  std::map<TopicPartition, OffsetAndMetadata> with_metadata;
  for (const auto& [tp, offset] : offsets)
    with_metadata.emplace(tp, OffsetAndMetadata{.offset = offset});
  return commit_with_metadata(with_metadata);
}

Result<std::optional<Offset>> Consumer::committed(const TopicPartition& partition) {
  auto committed = committed_with_metadata({partition});
  if (!committed) return error(committed.error());
  auto it = committed->find(partition);
  if (it == committed->end()) return std::optional<Offset>();
  return std::optional<Offset>(it->second.offset);
}

}  // namespace brook::internal

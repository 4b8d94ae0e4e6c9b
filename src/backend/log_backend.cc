#include "backend/log_backend.h"

#include <fmt/format.h>

#include "core/utf8.h"

namespace brook::internal {

Status check_commit_metadata(const std::map<TopicPartition, OffsetAndMetadata>& offsets) {
  for (const auto& [tp, committed] : offsets) {
    if (const auto at = first_non_utf8(committed.metadata); at != std::string_view::npos) {
      return Status::invalid_argument(
          fmt::format("commit metadata of {} is not UTF-8 (byte {} of {})", tp.to_string(), at,
                      committed.metadata.size()));
    }
  }
  return {};
}

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

// OffsetStore: committed offsets per consumer group, one file per group under
// `<data>/groups/<group>.json`, checksummed and rewritten atomically on each commit
// (checksummed_file.h). Thread-safe.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "backend/log_backend.h"

namespace brook::internal {

using CommittedOffsets = std::map<TopicPartition, OffsetAndMetadata>;

class OffsetStore {
 public:
  // Reads every group's file; kCorruption naming the first that is damaged.
  static Result<std::unique_ptr<OffsetStore>> open(std::filesystem::path data_dir);

  // Adds `offsets` to the group's and writes them; on failure nothing changes (metadata that
  // is not UTF-8 is refused: check_commit_metadata()).
  Status commit(const std::string& group, const CommittedOffsets& offsets);
  std::optional<OffsetAndMetadata> committed(const std::string& group,
                                             const TopicPartition& tp) const;
  // The groups with committed offsets, sorted.
  std::vector<std::string> groups() const;
  // Everything `group` has committed; empty for an unknown group.
  CommittedOffsets offsets(const std::string& group) const;
  // Drops every group's offsets of `topic` (deleted: as Kafka does, so that a topic created
  // again under the name is read from its start).
  Status forget_topic(const std::string& topic);

 private:
  explicit OffsetStore(std::filesystem::path dir) : dir_(std::move(dir)) {}
  Status persist(const std::string& group, const CommittedOffsets& offsets) const;

  std::filesystem::path dir_;
  mutable std::mutex mutex_;
  std::map<std::string, CommittedOffsets> groups_;
};

}  // namespace brook::internal

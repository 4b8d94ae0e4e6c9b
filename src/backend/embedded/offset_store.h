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

class OffsetStore {
 public:
  // Reads every group's file; kCorruption naming the first that is damaged.
  static Result<std::unique_ptr<OffsetStore>> open(std::filesystem::path data_dir);

  Status commit(const std::string& group, const std::map<TopicPartition, Offset>& offsets);
  std::optional<Offset> committed(const std::string& group, const TopicPartition& tp) const;

 private:
  explicit OffsetStore(std::filesystem::path dir) : dir_(std::move(dir)) {}
  Status persist(const std::string& group) const;

  std::filesystem::path dir_;
  mutable std::mutex mutex_;
  std::map<std::string, std::map<TopicPartition, Offset>> groups_;
};

}  // namespace brook::internal

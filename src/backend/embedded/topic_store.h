// TopicStore: the topics of an embedded data dir, each a set of PartitionLogs, with their
// metadata in `<data>/topics/<name>/topic.json`. Creates, opens, deletes topics and wakes
// readers when records arrive. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "backend/embedded/partition_log.h"
#include "backend/log_backend.h"

namespace brook::internal {

// One partition: its log and the lock that serialises its writers.
struct PartitionSlot {
  std::mutex write_mutex;
  std::unique_ptr<PartitionLog> log;
};

struct Topic {
  TopicDescription description;
  std::vector<std::unique_ptr<PartitionSlot>> partitions;
};

// Checks a topic name and configs; returns the partition-log config they describe.
Result<PartitionLogConfig> parse_topic_configs(const std::map<std::string, std::string>& configs);
Status check_topic_name(const std::string& name);

class TopicStore {
 public:
  // Opens every topic under `<data_dir>/topics`.
  static Result<std::unique_ptr<TopicStore>> open(std::filesystem::path data_dir, bool fsync);

  Status create(const NewTopic& topic);
  Status remove(const std::string& name);
  std::vector<std::string> names() const;
  // The topic (or one partition of it), or kNotFound naming it. Stays usable after the
  // topic is deleted, as long as the pointer is held.
  Result<std::shared_ptr<Topic>> find(const std::string& name) const;
  Result<std::shared_ptr<PartitionSlot>> partition(const TopicPartition& tp) const;

  // Readers wait here for new records; writers call notify_appended() after appending.
  void wait_for_append(std::chrono::milliseconds timeout, std::uint64_t seen_version);
  std::uint64_t append_version() const;
  void notify_appended();

  // Runs retention and compaction on every partition now.
  Status run_maintenance(Timestamp now);

 private:
  TopicStore(std::filesystem::path data_dir, bool fsync)
      : dir_(std::move(data_dir)), fsync_(fsync) {}
  Result<std::shared_ptr<Topic>> open_topic(const std::filesystem::path& dir,
                                            TopicDescription description);

  std::filesystem::path dir_;
  bool fsync_;
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::shared_ptr<Topic>, std::less<>> topics_;

  mutable std::mutex append_mutex_;
  std::condition_variable appended_;
  std::uint64_t append_version_ = 0;
};

}  // namespace brook::internal

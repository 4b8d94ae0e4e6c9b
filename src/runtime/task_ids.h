// TaskIds: which task reads a partition. Partition p of a source topic of sub-topology s is an
// input of task (s, p); the stream threads' task managers and the standby replicas both ask.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend/log_backend.h"
#include "brook/internal/topology_data.h"

namespace brook::internal {

class TaskIds {
 public:
  explicit TaskIds(const TopologyData& topology);

  // The task reading `partition`; none if its topic is no sub-topology's source.
  std::optional<TaskId> of(const TopicPartition& partition) const;
  // Every sub-topology's source topics, sorted.
  std::vector<std::string> source_topics() const;

 private:
  std::map<std::string, int, std::less<>> subtopology_of_topic_;
};

}  // namespace brook::internal

#include "runtime/task_ids.h"

namespace brook::internal {

TaskIds::TaskIds(const TopologyData& topology) {
  for (const auto& sub : topology.subtopologies) {
    for (const auto& topic : sub.source_topics) subtopology_of_topic_.emplace(topic, sub.id);
  }
}

std::optional<TaskId> TaskIds::of(const TopicPartition& partition) const {
  auto sub = subtopology_of_topic_.find(partition.topic);
  if (sub == subtopology_of_topic_.end()) return std::nullopt;
  return TaskId{sub->second, partition.partition.value()};
}

std::vector<std::string> TaskIds::source_topics() const {
  std::vector<std::string> out;
  for (const auto& [topic, sub] : subtopology_of_topic_) out.push_back(topic);
  return out;
}

}  // namespace brook::internal

// Internal-topic planning: how many tasks each sub-topology runs and how many partitions each
// repartition topic and each store's changelog needs, from the partition counts of the source
// topics alone. A pure function, so that its rules are tested without a log. Implemented in
// src/topology; called by the runtime when it creates the internal topics. Not for users.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "brook/internal/topology_data.h"
#include "brook/status.h"

namespace brook::internal {

struct TopicPlan {
  std::vector<std::int32_t> tasks;  // by sub-topology id
  // Every source and repartition topic's partition count.
  std::map<std::string, std::int32_t, std::less<>> partitions;
  // By store used by a node: its sub-topology's task count (its changelog's partitions); a
  // global store 1 (one per instance).
  std::map<std::string, std::int32_t, std::less<>> store_partitions;
};

// The plan of `topology` whose source topics (not internal ones) have `source_partitions`.
// The rules: a sub-topology has as many tasks as its largest source topic; a repartition topic
// without a count of its own gets as many partitions as its writer has tasks, unless it feeds a
// join, whose inputs all take the count of the one that has one; a store's changelog has one
// partition per task. Fails naming the join whose inputs have different counts, or the store
// whose table's topic serves as its changelog (reuse.ktable.source.topics) with fewer
// partitions than the store has tasks.
Result<TopicPlan> plan_topics(
    const TopologyData& topology,
    const std::map<std::string, std::int32_t, std::less<>>& source_partitions);

}  // namespace brook::internal

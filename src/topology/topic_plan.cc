#include "brook/internal/topic_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

namespace brook::internal {
namespace {

using Partitions = std::map<std::string, std::int32_t, std::less<>>;

// Checks that the inputs of each join have equal partition counts (equal keys then meet in
// one task) and gives the repartition topics among them without a count of their own that
// count. `partitions`: the counts known so far, by topic.
Status copartition(const TopologyData& data, Partitions& partitions) {
  for (const auto& group : data.copartition_groups) {
    std::vector<std::string> topics;
    for (const auto& input : group.inputs) {
      auto upstream = data.source_topics_of(input);
      topics.insert(topics.end(), upstream.begin(), upstream.end());
    }
    std::optional<std::pair<std::string, std::int32_t>> first;
    for (const auto& topic : topics) {
      auto it = partitions.find(topic);
      if (it == partitions.end()) continue;  // a repartition topic: it gets the group's count
      if (!first) {
        first.emplace(topic, it->second);
      } else if (it->second != first->second) {
        return Status::invalid_argument(fmt::format(
            "join {}: its inputs must be co-partitioned (equal partition counts, so that equal "
            "keys meet in one task), but topic {} has {} partitions and topic {} has {}; "
            "repartition one side (KStream::repartition with {} partitions) or recreate a "
            "topic",
            group.join, first->first, first->second, topic, it->second, first->second));
      }
    }
    if (!first) continue;
    for (const auto& topic : topics) partitions.emplace(topic, first->second);
  }
  return {};
}

// The sub-topology with the sink that writes `topic`, or null.
const Subtopology* writer_of(const TopologyData& data, const std::string& topic) {
  for (const auto& sub : data.subtopologies) {
    for (std::size_t i : sub.nodes) {
      const auto& node = data.nodes[i];
      if (node.kind == NodeKind::kSink && node.topics == std::vector{topic}) return &sub;
    }
  }
  return nullptr;
}

}  // namespace

Result<TopicPlan> plan_topics(const TopologyData& data, const Partitions& source_partitions) {
  TopicPlan plan{.tasks = std::vector<std::int32_t>(data.subtopologies.size(), 0),
                 .partitions = source_partitions};
  auto& partitions = plan.partitions;
  for (const auto& topic : data.repartition_topics) {
    if (topic.partitions > 0) partitions[topic.name] = topic.partitions;
  }
  // Repartition topics in a co-partition group take the group's count once one of its
  // topics has one (a foreign-key join's subscription topic: as many as the right table's
  // topic, which may itself be a repartition topic counted only in an earlier round). Only
  // when no count reaches a group from outside does one of its topics take its writer's
  // task count, one topic at a time, so that the rest of the group follows it.
  std::set<std::string, std::less<>> grouped;
  for (const auto& group : data.copartition_groups) {
    for (const auto& input : group.inputs) {
      for (auto& topic : data.source_topics_of(input)) grouped.insert(std::move(topic));
    }
  }
  for (bool include_grouped : {false, true}) {
    for (bool changed = true; changed;) {
      changed = false;
      if (auto s = copartition(data, partitions); !s.ok()) return error(std::move(s));
      for (const auto& sub : data.subtopologies) {
        for (const auto& topic : sub.source_topics) {
          if (auto it = partitions.find(topic); it != partitions.end()) {
            plan.tasks[sub.id] = std::max(plan.tasks[sub.id], it->second);
          }
        }
      }
      for (const auto& topic : data.repartition_topics) {
        const auto* writer = writer_of(data, topic.name);
        if (partitions.contains(topic.name) || writer == nullptr || plan.tasks[writer->id] == 0) {
          continue;
        }
        if (grouped.contains(topic.name)) {
          if (!include_grouped || changed) continue;
        }
        partitions[topic.name] = plan.tasks[writer->id];
        changed = true;
      }
    }
  }
  if (auto s = copartition(data, partitions); !s.ok()) return error(std::move(s));
  for (const auto& store : data.stores) {
    if (store.global) {
      plan.store_partitions[store.name] = 1;
      continue;
    }
    const auto* owner = data.owner_of_store(store.name);
    if (owner == nullptr) continue;
    const std::int32_t tasks = plan.tasks[owner->id];
    plan.store_partitions[store.name] = tasks;
    // A table's topic as its store's changelog needs a partition per task.
    if (auto it = partitions.find(store.source_topic);
        it != partitions.end() && it->second < tasks) {
      return error(Status::invalid_argument(fmt::format(
          "store {} restores from its table's topic {} (reuse.ktable.source.topics), which has {} "
          "partitions, but the store's sub-topology runs {} tasks; give the topics of that "
          "sub-topology equal partition counts, or build without reuse.ktable.source.topics",
          store.name, store.source_topic, it->second, tasks)));
    }
  }
  return plan;
}

}  // namespace brook::internal

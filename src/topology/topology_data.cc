// Validation of node specs, grouping into sub-topologies, and per-task instantiation.
#include "brook/internal/topology_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <unordered_map>

#include "brook/topology.h"

namespace brook::internal {
namespace {

std::string_view kind_name(NodeKind kind) {
  switch (kind) {
    case NodeKind::kSource: return "source";
    case NodeKind::kProcessor: return "processor";
    case NodeKind::kSink: return "sink";
  }
  return "node";
}

// Union-find over node indices: nodes joined by an edge belong to one sub-topology.
class Components {
 public:
  explicit Components(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  std::size_t find(std::size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void join(std::size_t a, std::size_t b) { parent_[find(a)] = find(b); }

 private:
  std::vector<std::size_t> parent_;
};

void check_stores(const std::vector<StoreSpec>& stores, std::vector<Status>& errors) {
  std::set<std::string_view> names;
  for (const auto& store : stores) {
    if (store.name.empty()) {
      errors.push_back(Status::invalid_argument("a state store has an empty name"));
    } else if (!names.insert(store.name).second) {
      errors.push_back(
          Status::already_exists(fmt::format("state store {}: duplicate store name", store.name)));
    }
  }
}

void check_nodes(const std::vector<NodeSpec>& nodes,
                 const std::unordered_map<std::string, std::size_t>& index,
                 const std::vector<StoreSpec>& stores, std::vector<Status>& errors) {
  std::unordered_map<std::string, std::string> topic_owner;
  for (const auto& node : nodes) {
    const auto what = fmt::format("{} {}", kind_name(node.kind), node.name);
    for (const auto& parent : node.parents) {
      if (!index.contains(parent)) {
        errors.push_back(
            Status::not_found(fmt::format("{}: unknown parent node '{}'", what, parent)));
      } else if (nodes[index.at(parent)].kind == NodeKind::kSink) {
        errors.push_back(Status::invalid_argument(
            fmt::format("{}: parent '{}' is a sink and cannot have children", what, parent)));
      }
    }
    if (node.kind == NodeKind::kSource) {
      if (node.topics.empty()) {
        errors.push_back(Status::invalid_argument(what + ": reads no topic"));
      }
      for (const auto& topic : node.topics) {
        if (topic.empty()) {
          errors.push_back(Status::invalid_argument(what + ": empty topic name"));
        } else if (auto [it, fresh] = topic_owner.emplace(topic, node.name); !fresh) {
          errors.push_back(Status::invalid_argument(
              fmt::format("{}: topic '{}' is already read by source {}", what, topic, it->second)));
        }
      }
    }
    if (node.kind == NodeKind::kSink && node.topic_extractor.empty() &&
        (node.topics.size() != 1 || node.topics.front().empty())) {
      errors.push_back(Status::invalid_argument(what + ": has no topic to write to"));
    }
    if (node.kind != NodeKind::kSource && node.parents.empty()) {
      errors.push_back(Status::invalid_argument(what + ": has no parent node"));
    }
    for (const auto& store : node.stores) {
      auto spec = std::find_if(stores.begin(), stores.end(),
                               [&](const StoreSpec& s) { return s.name == store; });
      if (spec == stores.end()) {
        errors.push_back(
            Status::not_found(fmt::format("{}: unknown state store '{}'", what, store)));
      } else if (node.global && !spec->global) {
        errors.push_back(Status::invalid_argument(fmt::format(
            "{}: a global store's node can use only global stores, not '{}'", what, store)));
      }
    }
    if (node.global && node.kind == NodeKind::kSource && node.topics.size() > 1) {
      errors.push_back(Status::invalid_argument(what + ": a global source reads one topic"));
    }
    if (node.global && node.kind == NodeKind::kSink) {
      errors.push_back(Status::invalid_argument(what + ": a global store's nodes cannot write"));
    }
    for (const auto& parent : node.parents) {
      if (index.contains(parent) && nodes[index.at(parent)].global != node.global) {
        errors.push_back(Status::invalid_argument(
            fmt::format("{}: parent '{}' {} a global store's node and this one {}", what, parent,
                        node.global ? "is not" : "is", node.global ? "is" : "is not")));
      }
    }
  }
}

}  // namespace

Result<std::shared_ptr<const TopologyData>> make_topology_data(
    std::vector<NodeSpec> nodes, std::vector<StoreSpec> stores,
    std::vector<RepartitionTopic> repartition_topics, std::vector<Status> errors,
    std::vector<CopartitionGroup> copartition_groups, Optimizations optimizations) {
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    if (node.name.empty()) {
      errors.push_back(Status::invalid_argument(
          fmt::format("{} #{}: empty node name", kind_name(node.kind), i)));
    } else if (auto [it, fresh] = index.emplace(node.name, i); !fresh) {
      errors.push_back(Status::already_exists(
          fmt::format("{} {}: duplicate node name (already used by a {})", kind_name(node.kind),
                      node.name, kind_name(nodes[it->second].kind))));
    }
  }
  auto data = std::make_shared<TopologyData>();
  data->optimizations = optimizations;
  data->stores = std::move(stores);
  data->repartition_topics = std::move(repartition_topics);
  check_stores(data->stores, errors);
  check_nodes(nodes, index, data->stores, errors);
  for (const auto& group : copartition_groups) {
    for (const auto& input : group.inputs) {
      if (!index.contains(input)) {
        errors.push_back(
            Status::not_found(fmt::format("join {}: unknown input node '{}'", group.join, input)));
      }
    }
  }
  data->copartition_groups = std::move(copartition_groups);
  if (!errors.empty()) {
    std::string message =
        fmt::format("the topology has {} error{}:", errors.size(), errors.size() == 1 ? "" : "s");
    for (const auto& e : errors) message += "\n  - " + e.message();
    return error(Status::invalid_argument(std::move(message)));
  }

  Components components(nodes.size());
  // Nodes that share a store run in one task, so they belong to one sub-topology; a global
  // store is shared by every task and joins nothing.
  std::unordered_map<std::string_view, std::size_t> user_of_store;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& parent : nodes[i].parents) components.join(i, index.at(parent));
    for (const auto& store : nodes[i].stores) {
      if (data->store(store)->global) continue;
      if (auto [it, fresh] = user_of_store.emplace(store, i); !fresh)
        components.join(i, it->second);
    }
  }
  // Sub-topologies are numbered in the order their first node was added, global ones after.
  std::unordered_map<std::size_t, int> id_of_root;
  std::unordered_map<std::size_t, std::size_t> global_of_root;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].global) continue;
    auto [it, fresh] =
        global_of_root.emplace(components.find(i), data->global_subtopologies.size());
    if (fresh) data->global_subtopologies.emplace_back();
    auto& global = data->global_subtopologies[it->second];
    global.nodes.push_back(i);
    if (nodes[i].kind == NodeKind::kSource && !nodes[i].topics.empty()) {
      global.topic = nodes[i].topics.front();
    }
    for (const auto& store : nodes[i].stores) {
      if (data->store(store)->global) global.stores.push_back(store);
    }
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].global) continue;
    auto [it, fresh] = id_of_root.emplace(components.find(i), data->subtopologies.size());
    if (fresh) data->subtopologies.push_back({.id = it->second});
    auto& sub = data->subtopologies[it->second];
    sub.nodes.push_back(i);
    if (nodes[i].kind == NodeKind::kSource) {
      sub.source_topics.insert(sub.source_topics.end(), nodes[i].topics.begin(),
                               nodes[i].topics.end());
    }
  }
  for (auto& global : data->global_subtopologies) {
    global.id = static_cast<int>(data->subtopologies.size() +
                                 (&global - data->global_subtopologies.data()));
  }
  data->nodes = std::move(nodes);
  return std::shared_ptr<const TopologyData>(std::move(data));
}

std::vector<std::string> TopologyData::source_topics_of(std::string_view name) const {
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i].name, i);
  std::vector<bool> upstream(nodes.size(), false);
  if (auto it = index.find(name); it != index.end()) upstream[it->second] = true;
  // Parents come before children: one backward pass marks every ancestor.
  for (std::size_t i = nodes.size(); i-- > 0;) {
    if (!upstream[i]) continue;
    for (const auto& parent : nodes[i].parents) upstream[index.at(parent)] = true;
  }
  std::vector<std::string> topics;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (upstream[i] && nodes[i].kind == NodeKind::kSource) {
      topics.insert(topics.end(), nodes[i].topics.begin(), nodes[i].topics.end());
    }
  }
  return topics;
}

const StoreSpec* TopologyData::store(std::string_view name) const {
  for (const auto& spec : stores) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

const Subtopology* TopologyData::owner_of_store(std::string_view name) const {
  for (const auto& sub : subtopologies) {
    for (std::size_t i : sub.nodes) {
      const auto& used = nodes[i].stores;
      if (std::find(used.begin(), used.end(), name) != used.end()) return &sub;
    }
  }
  return nullptr;
}

const GlobalSubtopology* TopologyData::global_of_store(std::string_view name) const {
  for (const auto& global : global_subtopologies) {
    if (std::find(global.stores.begin(), global.stores.end(), name) != global.stores.end()) {
      return &global;
    }
  }
  return nullptr;
}

std::string changelog_topic(std::string_view application_id, std::string_view store) {
  return fmt::format("{}-{}-changelog", application_id, store);
}

std::shared_ptr<const TopologyData> resolve_internal_topics(const TopologyData& topology,
                                                            std::string_view application_id) {
  auto resolved = std::make_shared<TopologyData>(topology);
  auto full = [&](std::string& topic) { topic = internal_topic_name(application_id, topic); };
  for (auto& node : resolved->nodes) {
    if (node.internal_topics) std::for_each(node.topics.begin(), node.topics.end(), full);
    node.internal_topics = false;
  }
  for (auto& sub : resolved->subtopologies) {
    sub.source_topics.clear();
    for (std::size_t i : sub.nodes) {
      const auto& node = resolved->nodes[i];
      if (node.kind != NodeKind::kSource) continue;
      sub.source_topics.insert(sub.source_topics.end(), node.topics.begin(), node.topics.end());
    }
  }
  for (auto& topic : resolved->repartition_topics) full(topic.name);
  return resolved;
}

namespace {

Result<TaskGraph> instantiate_nodes(const TopologyData& topology,
                                    const std::vector<std::size_t>& nodes) {
  TaskGraph graph;
  std::unordered_map<std::string_view, Node*> by_name;
  for (std::size_t i : nodes) {
    const auto& spec = topology.nodes[i];
    auto node = spec.factory(spec.name);
    for (const auto& parent : spec.parents) {
      if (!by_name.at(parent)->add_child(*node)) {
        return error(Status::internal(
            fmt::format("node {} cannot take the records of node {}", spec.name, parent)));
      }
    }
    if (spec.kind == NodeKind::kSource) {
      auto* source = static_cast<SourceNodeBase*>(node.get());
      for (const auto& topic : spec.topics) graph.sources_by_topic.emplace(topic, source);
    }
    by_name.emplace(spec.name, node.get());
    graph.nodes.push_back(std::move(node));
  }
  return graph;
}

}  // namespace

Result<TaskGraph> instantiate(const TopologyData& topology, int subtopology) {
  if (subtopology < 0 || subtopology >= static_cast<int>(topology.subtopologies.size())) {
    return error(Status::not_found(fmt::format("no sub-topology {}", subtopology)));
  }
  return instantiate_nodes(topology, topology.subtopologies[subtopology].nodes);
}

Result<TaskGraph> instantiate_global(const TopologyData& topology, int global_index) {
  if (global_index < 0 || global_index >= static_cast<int>(topology.global_subtopologies.size())) {
    return error(Status::not_found(fmt::format("no global sub-topology #{}", global_index)));
  }
  return instantiate_nodes(topology, topology.global_subtopologies[global_index].nodes);
}

const TopologyData& topology_data(const Topology& topology) { return *topology.data_; }

const std::shared_ptr<const TopologyData>& shared_topology_data(const Topology& topology) {
  return topology.data_;
}

}  // namespace brook::internal

#include "dsl/optimizer.h"

#include <algorithm>
#include <optional>
#include <queue>
#include <set>
#include <unordered_map>

namespace brook::internal {
namespace {

NodeRole role_of(const LogicalGraph& graph, const std::string& node) {
  auto it = graph.roles.find(node);
  return it == graph.roles.end() ? NodeRole::kOther : it->second;
}

NodeSpec* find_node(LogicalGraph& graph, std::string_view name) {
  auto it = std::find_if(graph.nodes.begin(), graph.nodes.end(),
                         [&](const NodeSpec& node) { return node.name == name; });
  return it == graph.nodes.end() ? nullptr : &*it;
}

// How the records of a key change reach one mergeable repartition.
struct PathToRepartition {
  MergeableRepartition repartition;
  std::string sink_parent;       // the node the repartition's entry() hangs off
  std::string below_key_change;  // the key change's child on the path; empty: the sink
};

// The key-changing node whose records reach `repartition` through nodes of one parent that
// pass records on unchanged, with the path; nullopt if there is none.
std::optional<std::pair<std::string, PathToRepartition>> trace(LogicalGraph& graph,
                                                               const MergeableRepartition& r) {
  const NodeSpec* entry = find_node(graph, r.entry());
  if (entry == nullptr || entry->parents.size() != 1 || find_node(graph, r.source) == nullptr) {
    return std::nullopt;
  }
  PathToRepartition path{.repartition = r, .sink_parent = entry->parents.front()};
  std::string below;
  std::string current = path.sink_parent;
  for (;;) {
    const NodeSpec* node = find_node(graph, current);
    if (node == nullptr) return std::nullopt;
    switch (role_of(graph, current)) {
      case NodeRole::kKeyChanging:
        path.below_key_change = std::move(below);
        return std::pair{std::move(current), std::move(path)};
      case NodeRole::kRecordPreserving:
        if (node->parents.size() != 1) return std::nullopt;
        below = std::move(current);
        current = node->parents.front();
        break;
      case NodeRole::kOther: return std::nullopt;
    }
  }
}

std::int32_t partitions_of(const LogicalGraph& graph, const std::string& topic) {
  auto it = std::find_if(graph.repartition_topics.begin(), graph.repartition_topics.end(),
                         [&](const RepartitionTopic& t) { return t.name == topic; });
  return it == graph.repartition_topics.end() ? 0 : it->partitions;
}

// Every reader of node `from` (a child, or a join naming it as an input) reads `to` instead.
void redirect_readers(LogicalGraph& graph, const std::string& from, const std::string& to) {
  for (auto& node : graph.nodes) std::replace(node.parents.begin(), node.parents.end(), from, to);
  for (auto& group : graph.copartition_groups) {
    std::replace(group.inputs.begin(), group.inputs.end(), from, to);
  }
}

void merge(LogicalGraph& graph, const std::string& key_change,
           const std::vector<PathToRepartition>& paths) {
  const MergeableRepartition& merged = paths.front().repartition;
  std::set<std::string, std::less<>> replaced;  // the other repartitions' topics and nodes
  for (const auto& path : paths) {
    const auto& r = path.repartition;
    // The former readers of the repartition read the records where its sink took them from:
    // behind the merged repartition now.
    redirect_readers(graph, r.source,
                     path.sink_parent == key_change ? merged.source : path.sink_parent);
    if (r.topic != merged.topic) replaced.insert({r.topic, r.filter, r.sink, r.source});
  }
  for (const auto& path : paths) {
    if (path.below_key_change.empty()) continue;
    auto& parents = find_node(graph, path.below_key_change)->parents;
    std::replace(parents.begin(), parents.end(), key_change, merged.source);
  }
  find_node(graph, merged.entry())->parents = {key_change};
  std::erase_if(graph.nodes, [&](const NodeSpec& node) { return replaced.contains(node.name); });
  std::erase_if(graph.repartition_topics,
                [&](const RepartitionTopic& topic) { return replaced.contains(topic.name); });
}

// `nodes` reordered so that parents come before children, otherwise in their order.
std::vector<NodeSpec> parents_first(std::vector<NodeSpec> nodes) {
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i].name, i);
  std::vector<std::size_t> waiting_for(nodes.size(), 0);
  std::vector<std::vector<std::size_t>> children(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& parent : nodes[i].parents) {
      auto it = index.find(parent);
      if (it == index.end()) continue;  // reported when the graph is lowered
      ++waiting_for[i];
      children[it->second].push_back(i);
    }
  }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (waiting_for[i] == 0) ready.push(i);
  }
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    auto i = ready.top();
    ready.pop();
    order.push_back(i);
    for (auto child : children[i]) {
      if (--waiting_for[child] == 0) ready.push(child);
    }
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {  // on a cycle: reported when lowered
    if (waiting_for[i] != 0) order.push_back(i);
  }
  std::vector<NodeSpec> sorted;
  sorted.reserve(nodes.size());
  for (auto i : order) sorted.push_back(std::move(nodes[i]));
  return sorted;
}

}  // namespace

void merge_repartition_topics(LogicalGraph& graph) {
  // Per key change (in the order of their first repartition), the paths to its repartitions.
  std::vector<std::pair<std::string, std::vector<PathToRepartition>>> by_key_change;
  for (const auto& repartition : graph.mergeable_repartitions) {
    auto traced = trace(graph, repartition);
    if (!traced) continue;
    auto it = std::find_if(by_key_change.begin(), by_key_change.end(),
                           [&](const auto& entry) { return entry.first == traced->first; });
    if (it == by_key_change.end()) it = by_key_change.insert(it, {traced->first, {}});
    it->second.push_back(std::move(traced->second));
  }
  for (const auto& [key_change, paths] : by_key_change) {
    const auto partitions = partitions_of(graph, paths.front().repartition.topic);
    if (std::all_of(paths.begin(), paths.end(), [&](const PathToRepartition& path) {
          return partitions_of(graph, path.repartition.topic) == partitions;
        })) {
      merge(graph, key_change, paths);
    }
  }
  graph.nodes = parents_first(std::move(graph.nodes));
}

void reuse_table_source_topics(LogicalGraph& graph) {
  for (const auto& table : graph.table_sources) {
    auto store = std::find_if(graph.stores.begin(), graph.stores.end(),
                              [&](const StoreSpec& spec) { return spec.name == table.store; });
    if (store == graph.stores.end() || !store->logging || !table.from_source) continue;
    store->logging = false;
    store->source_topic = table.topic;
    store->from_source = table.from_source;
  }
}

}  // namespace brook::internal

// Topology::describe() in Kafka Streams' TopologyDescription text format, and describe_dot().
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "brook/internal/topology_data.h"
#include "brook/topology.h"
#include "topology/java_order.h"

namespace brook {
namespace {

using internal::in_java_hash_order;
using internal::java_grown_table;
using internal::JavaTreeSet;
using internal::NodeKind;
using internal::NodeSpec;
using internal::TopologyData;

// The nodes of one sub-topology connected as Kafka Streams' TopologyDescription connects them,
// for the same order of successors and predecessors. It takes the nodes in its HashMap's order,
// links each to its predecessors (in the order they were given), and adds each link to TreeSets
// ordered by sub-tree size, largest first, then by name, while the sizes still grow: a link adds
// the node's size so far to its predecessor and to each node above it connected so far. A set
// keeps the order its comparator gave when each node went in.
class Connections {
 public:
  Connections(const TopologyData& data, const std::vector<std::size_t>& nodes) {
    std::vector<std::string> names;
    for (std::size_t i : nodes) {
      names.push_back(data.nodes[i].name);
      spec_[names.back()] = &data.nodes[i];
      size_[names.back()] = 1;
    }
    for (const auto& name : in_java_hash_order(names, java_grown_table(names.size()))) {
      for (const auto& parent : spec_.at(name)->parents) {
        predecessors_[name].add(parent, compare_);
        successors_[parent].add(name, compare_);
        grow(parent, size_.at(name));
      }
    }
    std::sort(names.begin(), names.end(),
              [&](const std::string& a, const std::string& b) { return compare_(a, b) < 0; });
    ordered_ = std::move(names);
  }

  // The nodes, largest sub-tree first, then by name.
  const std::vector<std::string>& ordered() const { return ordered_; }
  const NodeSpec& spec(const std::string& name) const { return *spec_.at(name); }
  std::string successors(const std::string& name) const { return listed(successors_, name); }
  std::string predecessors(const std::string& name) const { return listed(predecessors_, name); }

 private:
  void grow(const std::string& name, int delta) {
    size_.at(name) += delta;
    if (auto it = predecessors_.find(name); it != predecessors_.end()) {
      for (const auto& above : it->second.in_order()) grow(above, delta);
    }
  }
  static std::string listed(const std::unordered_map<std::string, JavaTreeSet>& sets,
                            const std::string& name) {
    const auto it = sets.find(name);
    if (it == sets.end()) return "none";
    return fmt::format("{}", fmt::join(it->second.in_order(), ", "));
  }

  std::unordered_map<std::string, const NodeSpec*> spec_;
  std::unordered_map<std::string, int> size_;
  std::unordered_map<std::string, JavaTreeSet> successors_;
  std::unordered_map<std::string, JavaTreeSet> predecessors_;
  JavaTreeSet::Compare compare_ = [this](const std::string& a, const std::string& b) {
    if (a == b) return 0;
    const int sa = size_.at(a), sb = size_.at(b);
    return sa != sb ? sb - sa : a.compare(b);
  };
  std::vector<std::string> ordered_;
};

std::string describe_node(const NodeSpec& node, const Connections& connections) {
  switch (node.kind) {
    case NodeKind::kSource:
      return fmt::format("Source: {} (topics: [{}])\n      --> {}", node.name,
                         fmt::join(node.topics, ", "), connections.successors(node.name));
    case NodeKind::kProcessor:
      // Kafka Streams keeps a processor's stores in a HashSet (of 16 buckets: a few stores).
      return fmt::format("Processor: {} (stores: [{}])\n      --> {}\n      <-- {}", node.name,
                         fmt::join(in_java_hash_order(node.stores, 16), ", "),
                         connections.successors(node.name), connections.predecessors(node.name));
    case NodeKind::kSink:
      if (!node.topic_extractor.empty()) {
        return fmt::format("Sink: {} (extractor class: {})\n      <-- {}", node.name,
                           node.topic_extractor, connections.predecessors(node.name));
      }
      return fmt::format("Sink: {} (topic: {})\n      <-- {}", node.name, node.topics.front(),
                         connections.predecessors(node.name));
  }
  return {};
}

// The lines of one sub-topology's nodes.
std::string describe_nodes(const TopologyData& data, const std::vector<std::size_t>& nodes) {
  const Connections connections(data, nodes);
  std::string out;
  for (const auto& name : connections.ordered()) {
    out += "    " + describe_node(connections.spec(name), connections) + "\n";
  }
  return out;
}

}  // namespace

std::string Topology::describe() const {
  std::string out = "Topologies:\n ";
  for (const auto& sub : data_->subtopologies) {
    out += fmt::format("  Sub-topology: {}\n", sub.id) + describe_nodes(*data_, sub.nodes) + "\n";
  }
  // Global stores as Kafka Streams prints them (its ids interleave with the sub-topologies';
  // Brook numbers them after, so adding a global table renumbers no task).
  for (const auto& global : data_->global_subtopologies) {
    out +=
        fmt::format("  Sub-topology: {} for global store (will not generate tasks)\n", global.id) +
        describe_nodes(*data_, global.nodes) + "\n";
  }
  return out;
}

std::string Topology::describe_dot() const {
  std::string out = "digraph brook {\n  rankdir=LR;\n  node [shape=box];\n";
  for (const auto& sub : data_->subtopologies) {
    out += fmt::format("  subgraph cluster_{0} {{\n    label=\"Sub-topology: {0}\";\n", sub.id);
    for (std::size_t i : sub.nodes) out += fmt::format("    \"{}\";\n", data_->nodes[i].name);
    out += "  }\n";
  }
  for (const auto& global : data_->global_subtopologies) {
    out += fmt::format(
        "  subgraph cluster_{0} {{\n    label=\"Sub-topology: {0} for global store\";\n",
        global.id);
    for (std::size_t i : global.nodes) out += fmt::format("    \"{}\";\n", data_->nodes[i].name);
    out += "  }\n";
  }
  for (const auto& node : data_->nodes) {
    for (const auto& parent : node.parents) {
      out += fmt::format("  \"{}\" -> \"{}\";\n", parent, node.name);
    }
    const bool source = node.kind == NodeKind::kSource;
    if (node.kind == NodeKind::kProcessor) continue;
    for (const auto& topic : node.topics) {
      out += fmt::format("  \"topic:{0}\" [shape=ellipse, label=\"{0}\"];\n", topic);
      out += source ? fmt::format("  \"topic:{}\" -> \"{}\";\n", topic, node.name)
                    : fmt::format("  \"{}\" -> \"topic:{}\";\n", node.name, topic);
    }
  }
  return out + "}\n";
}

std::vector<std::string> Topology::source_topics() const {
  std::vector<std::string> topics;
  for (const auto& node : data_->nodes)
    if (node.kind == NodeKind::kSource && !node.internal_topics)
      topics.insert(topics.end(), node.topics.begin(), node.topics.end());
  return topics;
}

std::vector<std::string> Topology::sink_topics() const {
  std::vector<std::string> topics;
  for (const auto& node : data_->nodes)
    if (node.kind == NodeKind::kSink && node.topic_extractor.empty() && !node.internal_topics)
      if (std::find(topics.begin(), topics.end(), node.topics.front()) == topics.end())
        topics.push_back(node.topics.front());
  return topics;
}

}  // namespace brook

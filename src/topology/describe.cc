// Topology::describe() in Kafka Streams' TopologyDescription text format, and describe_dot().
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "brook/internal/topology_data.h"
#include "brook/topology.h"

namespace brook {
namespace {

using internal::NodeKind;
using internal::NodeSpec;
using internal::TopologyData;

// Successors of each node, and the size of the sub-graph below it (Kafka orders nodes of a
// sub-topology by that size, largest first, then by name).
struct Shape {
  std::unordered_map<std::string, std::vector<std::string>> children;
  std::unordered_map<std::string, int> size;

  explicit Shape(const TopologyData& data) {
    for (const auto& node : data.nodes)
      for (const auto& parent : node.parents) children[parent].push_back(node.name);
    std::function<int(const std::string&)> measure = [&](const std::string& name) {
      if (auto it = size.find(name); it != size.end()) return it->second;
      int total = 1;
      for (const auto& child : children[name]) total += measure(child);
      return size[name] = total;
    };
    for (const auto& node : data.nodes) measure(node.name);
  }

  void order(std::vector<std::string>& names) const {
    std::sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
      const int sa = size.at(a), sb = size.at(b);
      return sa != sb ? sa > sb : a < b;
    });
  }
};

std::string names_or_none(std::vector<std::string> names, const Shape& shape) {
  if (names.empty()) return "none";
  shape.order(names);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string describe_node(const NodeSpec& node, const Shape& shape) {
  const auto children = shape.children.contains(node.name) ? shape.children.at(node.name)
                                                           : std::vector<std::string>{};
  switch (node.kind) {
    case NodeKind::kSource:
      return fmt::format("Source: {} (topics: [{}])\n      --> {}", node.name,
                         fmt::join(node.topics, ", "), names_or_none(children, shape));
    case NodeKind::kProcessor:
      return fmt::format("Processor: {} (stores: [{}])\n      --> {}\n      <-- {}", node.name,
                         fmt::join(node.stores, ", "), names_or_none(children, shape),
                         names_or_none(node.parents, shape));
    case NodeKind::kSink:
      if (!node.topic_extractor.empty()) {
        return fmt::format("Sink: {} (extractor class: {})\n      <-- {}", node.name,
                           node.topic_extractor, names_or_none(node.parents, shape));
      }
      return fmt::format("Sink: {} (topic: {})\n      <-- {}", node.name, node.topics.front(),
                         names_or_none(node.parents, shape));
  }
  return {};
}

}  // namespace

std::string Topology::describe() const {
  const Shape shape(*data_);
  std::string out = "Topologies:\n ";
  for (const auto& sub : data_->subtopologies) {
    std::vector<std::string> names;
    std::unordered_map<std::string, const NodeSpec*> spec;
    for (std::size_t i : sub.nodes) {
      names.push_back(data_->nodes[i].name);
      spec[names.back()] = &data_->nodes[i];
    }
    shape.order(names);
    out += fmt::format("  Sub-topology: {}\n", sub.id);
    for (const auto& name : names) out += "    " + describe_node(*spec[name], shape) + "\n";
    out += "\n";
  }
  // Global stores as Kafka Streams prints them (its ids interleave with the sub-topologies';
  // Brook numbers them after, so adding a global table renumbers no task).
  for (const auto& global : data_->global_subtopologies) {
    std::vector<std::string> names;
    std::unordered_map<std::string, const NodeSpec*> spec;
    for (std::size_t i : global.nodes) {
      names.push_back(data_->nodes[i].name);
      spec[names.back()] = &data_->nodes[i];
    }
    shape.order(names);
    out +=
        fmt::format("  Sub-topology: {} for global store (will not generate tasks)\n", global.id);
    for (const auto& name : names) out += "    " + describe_node(*spec[name], shape) + "\n";
    out += "\n";
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

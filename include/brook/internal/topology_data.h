// The physical topology as data: node specs with factories, grouped into sub-topologies.
// Produced by the DSL (or by hand), read by the runtime. Not for users.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "brook/internal/node.h"
#include "brook/status.h"

namespace brook::internal {

enum class NodeKind { kSource, kProcessor, kSink };

using NodeFactory = std::function<std::unique_ptr<Node>()>;

struct NodeSpec {
  std::string name;
  NodeKind kind = NodeKind::kProcessor;
  std::vector<std::string> parents;  // in the order records reach this node
  std::vector<std::string> topics;   // source: subscribed topics; sink: its fixed topic
  std::string topic_extractor;       // sink with a per-record topic: a description of it
  std::vector<std::string> stores;
  NodeFactory factory;
};

struct Subtopology {
  int id = 0;
  std::vector<std::size_t> nodes;  // indices into TopologyData::nodes, parents before children
  std::vector<std::string> source_topics;
};

struct TopologyData {
  std::vector<NodeSpec> nodes;
  std::vector<Subtopology> subtopologies;
  std::vector<std::string> stores;  // names of every state store of the topology
};

// Checks `nodes` and groups them into sub-topologies. Every mistake found (and every one in
// `earlier_errors`) is reported in one Status, one line each, naming the node at fault.
Result<std::shared_ptr<const TopologyData>> make_topology_data(std::vector<NodeSpec> nodes,
                                                               std::vector<Status> earlier_errors);

// The live nodes of one task of a sub-topology, wired together and ready for init().
struct TaskGraph {
  std::vector<std::unique_ptr<Node>> nodes;  // parents before children
  std::map<std::string, SourceNodeBase*, std::less<>> sources_by_topic;
};

Result<TaskGraph> instantiate(const TopologyData& topology, int subtopology);

}  // namespace brook::internal

// The DSL's record of the graph being described (the logical graph): node specs in the order
// they were added, what the optimiser may assume of each node, generated names, and the
// mistakes found so far. Shared by a StreamsBuilder and every stream it hands out. build() runs
// the chosen optimisations over it, then lowers it into the topology. Not for users.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "brook/internal/topology_data.h"
#include "brook/status.h"

namespace brook {
class Topology;
}

namespace brook::internal {

// What the optimiser may assume of a node beyond its spec.
enum class NodeRole {
  kOther,             // assumes nothing
  kKeyChanging,       // may change keys (map, select_key, process, a merge of re-keyed streams)
  kRecordPreserving,  // passes on some of its input records unchanged (filter, peek, split)
};

// A repartition topic that only exists because the keys changed upstream (group_by_key,
// joins and to_table after a key change), and its nodes. Several of them downstream of one
// key change may become one (merge.repartition.topics).
struct MergeableRepartition {
  std::string topic;
  std::string filter;  // in front of the sink (empty: none)
  std::string sink;
  std::string source;
  // The node the repartition's records enter by.
  const std::string& entry() const { return filter.empty() ? sink : filter; }
};

// A table read from a topic into its store (StreamsBuilder::table()), and how a record of the
// topic becomes the store's entry: that store may restore from the topic itself
// (reuse.ktable.source.topics).
struct TableSource {
  std::string topic;
  std::string store;
  FromSourceRecord from_source;
};

struct LogicalGraph {
  std::vector<NodeSpec> nodes;  // parents before children
  std::vector<StoreSpec> stores;
  std::vector<RepartitionTopic> repartition_topics;
  std::vector<CopartitionGroup> copartition_groups;
  std::map<std::string, NodeRole, std::less<>> roles;  // a node not listed: kOther
  std::vector<MergeableRepartition> mergeable_repartitions;
  std::vector<TableSource> table_sources;
};

class GraphBuilder {
 public:
  GraphBuilder() = default;
  GraphBuilder(const GraphBuilder&) = delete;
  GraphBuilder& operator=(const GraphBuilder&) = delete;
  ~GraphBuilder();  // out of line: compiled once, not in every application's DSL calls

  // A node's name: `user_name` if given, else "<prefix>-<10-digit counter>". Takes a number
  // either way, as Kafka Streams does, so the generated names of the other nodes are Kafka
  // Streams' for the same DSL. An empty `prefix`: `user_name` was decided before
  // (given_or_generated()) and no number is taken.
  std::string name_for(const std::string& user_name, std::string_view prefix);
  // `user_name` if given, taking no number, else "<prefix>-<10-digit counter>": as Kafka Streams
  // names stores and process() nodes.
  std::string given_or_generated(const std::string& user_name, std::string_view prefix);
  void add(NodeSpec spec);
  void set_role(const std::string& node, NodeRole role);
  void add_store(StoreSpec spec);
  // Takes the record cache away from the store `name` (added before): its node then forwards
  // every update at once instead of the net change per key at commit.
  void uncache_store(std::string_view name);
  void add_repartition_topic(RepartitionTopic topic);
  void add_mergeable_repartition(MergeableRepartition repartition);
  void add_table_source(TableSource source);
  void add_copartition_group(CopartitionGroup group);
  void add_error(Status status);
  // The topology after the optimisations `config` asks for (topology.optimization; other keys
  // are ignored), or one Status listing every mistake. May be called once.
  Result<Topology> build(const std::map<std::string, std::string>& config);

 private:
  LogicalGraph graph_;
  std::vector<Status> errors_;
  int counter_ = 0;
  bool built_ = false;
};

}  // namespace brook::internal

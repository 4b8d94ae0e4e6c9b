// The physical topology as data: node specs with factories, grouped into sub-topologies.
// Produced by the DSL (or by hand), read by the runtime. Not for users.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "brook/internal/node.h"
#include "brook/internal/store_spec.h"
#include "brook/status.h"

namespace brook::internal {

enum class NodeKind { kSource, kProcessor, kSink };

// Makes the live node of a spec; called with the spec's name.
using NodeFactory = std::function<std::unique_ptr<Node>(const std::string& name)>;

struct NodeSpec {
  std::string name;
  NodeKind kind = NodeKind::kProcessor;
  std::vector<std::string> parents;  // in the order records reach this node
  std::vector<std::string> topics;   // source: subscribed topics; sink: its fixed topic
  bool internal_topics = false;      // `topics` are internal: <application.id>-<topic>
  std::string topic_extractor;       // sink with a per-record topic: a description of it
  std::vector<std::string> stores;
  // Part of a global store's sub-topology (its source and the processor that updates the
  // store): run by the global thread, never in a task.
  bool global = false;
  NodeFactory factory;
};

struct Subtopology {
  int id = 0;
  std::vector<std::size_t> nodes;  // indices into TopologyData::nodes, parents before children
  std::vector<std::string> source_topics;
};

// The nodes that keep one global store up to date: a source of one topic and the processors
// below it. Its `id` follows the ids of the stream sub-topologies; it makes no tasks.
struct GlobalSubtopology {
  int id = 0;
  std::vector<std::size_t> nodes;   // indices into TopologyData::nodes, parents before children
  std::string topic;                // the one topic of its source
  std::vector<std::string> stores;  // the global stores its processors update
};

// A repartition topic the topology writes and reads back. Partitions 0: as many as the
// writing sub-topology has tasks.
struct RepartitionTopic {
  std::string name;  // without the <application.id>- prefix
  std::int32_t partitions = 0;
};

// The inputs of a join (nodes), whose source topics must have equal partition counts so that
// equal keys meet in one task.
struct CopartitionGroup {
  std::string join;                 // the join's node, for messages
  std::vector<std::string> inputs;  // node names
};

// The optimisations a topology was built with (topology.optimization).
struct Optimizations {
  // Several repartition topics downstream of one key change become one, written right after
  // the key change.
  bool merge_repartition_topics = false;
  // A table's store restores from the table's source topic instead of a changelog of its own.
  bool reuse_table_source_topics = false;

  bool operator==(const Optimizations&) const = default;
};

// topology.optimization: "none", "all", or a comma-separated list of optimisation names
// (reuse.ktable.source.topics, merge.repartition.topics). An unknown value is an InvalidArgument
// naming it.
Result<Optimizations> parse_optimizations(std::string_view value);
// The value parse_optimizations() reads back: "none", or the list of names.
std::string to_string(const Optimizations& optimizations);

struct TopologyData {
  Optimizations optimizations;
  std::vector<NodeSpec> nodes;
  std::vector<Subtopology> subtopologies;
  std::vector<GlobalSubtopology> global_subtopologies;
  std::vector<StoreSpec> stores;
  std::vector<RepartitionTopic> repartition_topics;
  std::vector<CopartitionGroup> copartition_groups;

  const StoreSpec* store(std::string_view name) const;
  // The topics of the source nodes upstream of node `name` (itself included), in node order.
  std::vector<std::string> source_topics_of(std::string_view name) const;
  // The sub-topology whose nodes use `store` (a global store: the first that reads it).
  const Subtopology* owner_of_store(std::string_view name) const;
  // The global sub-topology that updates the global store `name`, or null.
  const GlobalSubtopology* global_of_store(std::string_view name) const;
};

// `topology` with every internal topic name prefixed by "<application_id>-": what the runtime
// and the test driver run. The node factories are shared, not copied.
std::shared_ptr<const TopologyData> resolve_internal_topics(const TopologyData& topology,
                                                            std::string_view application_id);
// The changelog topic of `store` in application `application_id`.
std::string changelog_topic(std::string_view application_id, std::string_view store);

// Checks `nodes` and groups them into sub-topologies. Every mistake found (and every one in
// `earlier_errors`) is reported in one Status, one line each, naming the node at fault.
Result<std::shared_ptr<const TopologyData>> make_topology_data(
    std::vector<NodeSpec> nodes, std::vector<StoreSpec> stores,
    std::vector<RepartitionTopic> repartition_topics, std::vector<Status> earlier_errors,
    std::vector<CopartitionGroup> copartition_groups = {}, Optimizations optimizations = {});

// The live nodes of one task of a sub-topology, wired together and ready for init().
struct TaskGraph {
  std::vector<std::unique_ptr<Node>> nodes;  // parents before children
  std::map<std::string, SourceNodeBase*, std::less<>> sources_by_topic;
};

Result<TaskGraph> instantiate(const TopologyData& topology, int subtopology);
// The live nodes of a global sub-topology.
Result<TaskGraph> instantiate_global(const TopologyData& topology, int global_index);

}  // namespace brook::internal

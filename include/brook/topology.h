// Topology: the physical graph of source, processor and sink nodes that StreamsBuilder
// produces, split into sub-topologies. Immutable; cheap to copy; safe to share.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace brook {

class Topology;

namespace internal {
struct TopologyData;
// What `topology` holds, for the runtime, the test driver and tests. Not for users.
const TopologyData& topology_data(const Topology& topology);
const std::shared_ptr<const TopologyData>& shared_topology_data(const Topology& topology);
}  // namespace internal

class Topology {
 public:
  explicit Topology(std::shared_ptr<const internal::TopologyData> data) : data_(std::move(data)) {}

  // The same text as Kafka Streams' TopologyDescription::toString(), so tools that read
  // that format read this one.
  std::string describe() const;
  // A Graphviz digraph: one cluster per sub-topology, topics as ellipses.
  std::string describe_dot() const;

  // Every topic a source node reads, in the order they were added; internal topics
  // (repartition, changelog) are not listed.
  std::vector<std::string> source_topics() const;
  // Every fixed topic a sink node writes, in the order they were added, internal ones not.
  std::vector<std::string> sink_topics() const;

 private:
  friend const internal::TopologyData& internal::topology_data(const Topology&);
  friend const std::shared_ptr<const internal::TopologyData>& internal::shared_topology_data(
      const Topology&);

  std::shared_ptr<const internal::TopologyData> data_;
};

}  // namespace brook

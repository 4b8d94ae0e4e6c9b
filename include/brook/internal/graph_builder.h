// The DSL's record of the graph being described: node specs in the order they were added,
// generated names, and the mistakes found so far. Shared by a StreamsBuilder and every
// stream it hands out. Not for users.
#pragma once

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

class GraphBuilder {
 public:
  // `user_name` if given, else "<prefix>-<10-digit counter>" as Kafka Streams names nodes.
  std::string name_for(const std::string& user_name, std::string_view prefix);
  void add(NodeSpec spec);
  void add_store(StoreSpec spec);
  // Takes the record cache away from the store `name` (added before): its node then forwards
  // every update at once instead of the net change per key at commit.
  void uncache_store(std::string_view name);
  void add_repartition_topic(RepartitionTopic topic);
  void add_copartition_group(CopartitionGroup group);
  void add_error(Status status);
  // The topology, or one Status listing every mistake. May be called once.
  Result<Topology> build();

 private:
  std::vector<NodeSpec> nodes_;
  std::vector<StoreSpec> stores_;
  std::vector<RepartitionTopic> repartition_topics_;
  std::vector<CopartitionGroup> copartition_groups_;
  std::vector<Status> errors_;
  int counter_ = 0;
  bool built_ = false;
};

}  // namespace brook::internal

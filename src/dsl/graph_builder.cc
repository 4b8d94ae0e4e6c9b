#include "brook/internal/graph_builder.h"

#include <fmt/format.h>

#include "brook/internal/dsl_support.h"
#include "brook/topology.h"

namespace brook::internal {

std::string GraphBuilder::name_for(const std::string& user_name, std::string_view prefix) {
  if (!user_name.empty()) return user_name;
  return fmt::format("{}-{:010d}", prefix, counter_++);
}

void GraphBuilder::add(NodeSpec spec) { nodes_.push_back(std::move(spec)); }

void GraphBuilder::add_store(StoreSpec spec) { stores_.push_back(std::move(spec)); }

void GraphBuilder::uncache_store(std::string_view name) {
  for (auto& store : stores_) {
    if (store.name == name) store.caching = false;
  }
}

void GraphBuilder::add_repartition_topic(RepartitionTopic topic) {
  repartition_topics_.push_back(std::move(topic));
}

void GraphBuilder::add_copartition_group(CopartitionGroup group) {
  copartition_groups_.push_back(std::move(group));
}

void GraphBuilder::add_error(Status status) { errors_.push_back(std::move(status)); }

void missing_serde(GraphBuilder& graph, const std::string& name, std::string_view kind,
                   std::string_view what, std::string_view options, std::string_view type) {
  graph.add_error(Status::invalid_argument(
      fmt::format("{} {}: no {} serde for type {}; give one in {}{{.{}_serde = ...}} or specialise "
                  "brook::DefaultSerde (a type with to_json/from_json: include brook/json_serde.h)",
                  kind, name, what, type, options, what)));
}

Result<Topology> GraphBuilder::build() {
  if (built_) {
    return error(Status::failed_precondition("StreamsBuilder::build() may be called only once"));
  }
  built_ = true;
  auto data =
      make_topology_data(std::move(nodes_), std::move(stores_), std::move(repartition_topics_),
                         std::move(errors_), std::move(copartition_groups_));
  if (!data) return error(std::move(data.error()));
  return Topology(std::move(*data));
}

}  // namespace brook::internal

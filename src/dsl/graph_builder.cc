#include "brook/internal/graph_builder.h"

#include <fmt/format.h>

#include "brook/topology.h"

namespace brook::internal {

std::string GraphBuilder::name_for(const std::string& user_name, std::string_view prefix) {
  if (!user_name.empty()) return user_name;
  return fmt::format("{}-{:010d}", prefix, counter_++);
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

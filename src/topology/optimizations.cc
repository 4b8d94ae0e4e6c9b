// topology.optimization: its values and their names.
#include <fmt/format.h>

#include "brook/internal/topology_data.h"

namespace brook::internal {
namespace {

constexpr std::string_view kMergeRepartitionTopics = "merge.repartition.topics";

}  // namespace

Result<Optimizations> parse_optimizations(std::string_view value) {
  if (value == "none") return Optimizations{};
  if (value == "all") return Optimizations{.merge_repartition_topics = true};
  Optimizations optimizations;
  for (std::size_t start = 0; start <= value.size();) {
    auto end = std::min(value.find(',', start), value.size());
    auto name = value.substr(start, end - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name == kMergeRepartitionTopics) {
      optimizations.merge_repartition_topics = true;
    } else {
      return error(Status::invalid_argument(fmt::format(
          "topology.optimization: '{}' is not none, all or a comma-separated list of {}", value,
          kMergeRepartitionTopics)));
    }
    start = end + 1;
  }
  return optimizations;
}

std::string to_string(const Optimizations& optimizations) {
  return optimizations.merge_repartition_topics ? std::string(kMergeRepartitionTopics) : "none";
}

}  // namespace brook::internal

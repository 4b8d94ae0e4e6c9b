// topology.optimization: its values and their names.
#include <fmt/format.h>

#include <vector>

#include "brook/internal/topology_data.h"

namespace brook::internal {
namespace {

constexpr std::string_view kReuseTableSourceTopics = "reuse.ktable.source.topics";
constexpr std::string_view kMergeRepartitionTopics = "merge.repartition.topics";

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

}  // namespace

Result<Optimizations> parse_optimizations(std::string_view value) {
  if (value == "none") return Optimizations{};
  if (value == "all") {
    return Optimizations{.merge_repartition_topics = true, .reuse_table_source_topics = true};
  }
  Optimizations optimizations;
  for (std::size_t start = 0; start <= value.size();) {
    const auto end = std::min(value.find(',', start), value.size());
    const auto name = trimmed(value.substr(start, end - start));
    if (name == kMergeRepartitionTopics) {
      optimizations.merge_repartition_topics = true;
    } else if (name == kReuseTableSourceTopics) {
      optimizations.reuse_table_source_topics = true;
    } else {
      return error(Status::invalid_argument(
          fmt::format("topology.optimization: '{}' is not none, all or a comma-separated list "
                      "of {} and {}",
                      value, kReuseTableSourceTopics, kMergeRepartitionTopics)));
    }
    start = end + 1;
  }
  return optimizations;
}

std::string to_string(const Optimizations& optimizations) {
  std::vector<std::string_view> names;
  if (optimizations.reuse_table_source_topics) names.push_back(kReuseTableSourceTopics);
  if (optimizations.merge_repartition_topics) names.push_back(kMergeRepartitionTopics);
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ","));
}

}  // namespace brook::internal

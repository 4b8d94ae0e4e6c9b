#include "log_router.h"

namespace log_router {

std::string level_of(const std::string& line) {
  const auto start = line.find(' ');
  if (start == std::string::npos) return {};
  const auto end = line.find(' ', start + 1);
  return line.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
}

brook::Result<brook::Topology> build_topology(const std::map<std::string, std::string>& config) {
  using Host = std::optional<std::string>;
  brook::StreamsBuilder builder;
  auto by_priority =
      builder.stream<Host, std::string>(kInputTopic, {.name = "read-logs"})
          .split({.name = "priority-"})
          .branch([](const Host&, const std::string& line) { return level_of(line) == "ERROR"; },
                  {.name = "high"})
          .default_branch({.name = "low"});
  by_priority.at("priority-high").to(kHighPriorityTopic, {.name = "write-high"});
  by_priority.at("priority-low").to(kLowPriorityTopic, {.name = "write-low"});
  return builder.build(config);
}

}  // namespace log_router

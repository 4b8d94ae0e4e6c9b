// log_router: reads log lines and routes ERROR lines to a high-priority topic and every other
// line to a low-priority topic (DESIGN.md pattern 1).
#pragma once

#include <brook/brook.h>

#include <optional>
#include <string>

namespace log_router {

inline constexpr const char* kInputTopic = "logs";
inline constexpr const char* kHighPriorityTopic = "logs-high-priority";
inline constexpr const char* kLowPriorityTopic = "logs-low-priority";

// The level of a line "<timestamp> <LEVEL> <message>", e.g. "ERROR"; empty if there is none.
std::string level_of(const std::string& line);

// Log lines keyed by host (null when the producer sent no key).
// Built with `config` (StreamsBuilder::build: its topology.optimization).
brook::Result<brook::Topology> build_topology(
    const std::map<std::string, std::string>& config = {});

}  // namespace log_router

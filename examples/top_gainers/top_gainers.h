// top_gainers: the day's ten best performing stocks, in two phases joined by repartition
// topics in one Streams app (DESIGN.md pattern 3, multiphase).
//
//   phase 1: trades -> per "SYMBOL@YYYY-MM-DD" its DayStats (stock_stats::day_stats(), local
//            state over all of the input's partitions) -> its gain in percent so far.
//   phase 2: every phase-1 update re-keyed to its day (KTable::group_by, through the
//            repartition topic <application.id>-gains-by-day-repartition, so each day lands in
//            one task) and aggregated with an adder and a subtractor into the latest gain of
//            every symbol that traded that day; its top 10 go to the compacted topic
//            top-gainers, key = day, value = [{"symbol": ..., "gain": ...}, ...] best first.
//
// The aggregate keeps all the day's symbols, not only the top 10, so the subtractor is exact:
// when a symbol drops out of the top 10, the 11th takes its place.
#pragma once

#include <brook/brook.h>
#include <brook/json_serde.h>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "stock_stats.h"

namespace top_gainers {

inline constexpr const char* kInputTopic = stock_stats::kInputTopic;
inline constexpr const char* kOutputTopic = "top-gainers";
inline constexpr std::size_t kTop = 10;

// A symbol's gain in percent on some day. JSON {"symbol": "ACME", "gain": 1.5}.
struct Gain {
  std::string symbol;
  double gain = 0;
  friend bool operator==(const Gain&, const Gain&) = default;
};
void to_json(nlohmann::json& json, const Gain& gain);
void from_json(const nlohmann::json& json, Gain& gain);

// The latest gain of every symbol that traded on one day: the phase-2 aggregate.
using DayGains = std::map<std::string, double>;

// The `n` largest gains, largest first; equal gains in symbol order.
std::vector<Gain> top(const DayGains& gains, std::size_t n = kTop);

// Built with `config` (StreamsBuilder::build: its topology.optimization).
brook::Result<brook::Topology> build_topology(
    const std::map<std::string, std::string>& config = {});

}  // namespace top_gainers

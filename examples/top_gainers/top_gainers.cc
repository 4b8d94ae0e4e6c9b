#include "top_gainers.h"

#include <algorithm>

namespace top_gainers {

void to_json(nlohmann::json& json, const Gain& gain) {
  json = {{"symbol", gain.symbol}, {"gain", gain.gain}};
}

void from_json(const nlohmann::json& json, Gain& gain) {
  json.at("symbol").get_to(gain.symbol);
  json.at("gain").get_to(gain.gain);
}

std::vector<Gain> top(const DayGains& gains, std::size_t n) {
  std::vector<Gain> ranked;
  for (const auto& [symbol, gain] : gains) ranked.push_back({symbol, gain});
  // `gains` is in symbol order already: a stable sort keeps it among equal gains.
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Gain& a, const Gain& b) { return a.gain > b.gain; });
  if (ranked.size() > n) ranked.resize(n);
  return ranked;
}

brook::Result<brook::Topology> build_topology(const std::map<std::string, std::string>& config) {
  using stock_stats::DayStats;
  brook::StreamsBuilder builder;
  stock_stats::day_stats(builder, "symbol-day-stats")
      .group_by(
          [](const std::string& key, const DayStats& stats) {
            auto [symbol, day] = stock_stats::split_day_key(key);
            return brook::KeyValue{std::move(day), Gain{std::move(symbol), stats.gain_percent()}};
          },
          {.name = "gains-by-day"})
      .aggregate([] { return DayGains{}; },
                 [](const std::string&, const Gain& gain, DayGains gains) {
                   gains[gain.symbol] = gain.gain;
                   return gains;
                 },
                 [](const std::string&, const Gain& gain, DayGains gains) {
                   gains.erase(gain.symbol);
                   return gains;
                 },
                 {.name = "day-gains"})
      .map_values([](const DayGains& gains) { return top(gains); }, {.name = "top-10"})
      .to_stream({.name = "top-10-updates"})
      .to(kOutputTopic, {.name = "write-top-gainers"});
  return builder.build(config);
}

}  // namespace top_gainers

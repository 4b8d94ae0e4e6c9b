#include "search_clicks.h"

#include <algorithm>
#include <optional>

namespace search_clicks {

void to_json(nlohmann::json& json, const Search& s) {
  json = {{"query", s.query}, {"results", s.results}};
}
void from_json(const nlohmann::json& json, Search& s) {
  json.at("query").get_to(s.query);
  json.at("results").get_to(s.results);
}
void to_json(nlohmann::json& json, const Click& c) { json = {{"result", c.result}}; }
void from_json(const nlohmann::json& json, Click& c) { json.at("result").get_to(c.result); }
void to_json(nlohmann::json& json, const Hit& h) {
  json = {{"query", h.query}, {"result", h.result}, {"shown", h.shown}};
}
void from_json(const nlohmann::json& json, Hit& h) {
  json.at("query").get_to(h.query);
  json.at("result").get_to(h.result);
  json.at("shown").get_to(h.shown);
}
void to_json(nlohmann::json& json, const ResultClicks& c) { json = {{"clicks", c.clicks}}; }
void from_json(const nlohmann::json& json, ResultClicks& c) { json.at("clicks").get_to(c.clicks); }
void to_json(nlohmann::json& json, const TopResult& t) {
  json = {{"result", t.result}, {"clicks", t.clicks}};
}
void from_json(const nlohmann::json& json, TopResult& t) {
  json.at("result").get_to(t.result);
  json.at("clicks").get_to(t.clicks);
}

TopResult top_result(const ResultClicks& counts) {
  TopResult top;
  for (const auto& [result, clicks] : counts.clicks) {  // in name order: ties keep the first
    if (clicks > top.clicks) top = {result, clicks};
  }
  return top;
}

brook::JoinWindows click_window() {
  return brook::JoinWindows::of_time_difference_and_grace(std::chrono::milliseconds(0), kGrace)
      .after(kClickWindow);
}

brook::Result<brook::Topology> build_topology(const std::map<std::string, std::string>& config) {
  brook::StreamsBuilder builder;
  auto searches = builder.stream<std::string, Search>(kSearchTopic, {.name = "read-searches"});
  auto clicks = builder.stream<std::string, Click>(kClickTopic, {.name = "read-clicks"});
  searches
      .join(clicks,
            [](const Search& s, const Click& c) {
              const bool shown =
                  std::find(s.results.begin(), s.results.end(), c.result) != s.results.end();
              return Hit{s.query, c.result, shown};
            },
            click_window(), {.name = kJoinName, .store_name = kJoinName})
      .filter([](const std::string&, const Hit& hit) { return hit.shown; }, {.name = "shown-hits"})
      .group_by([](const std::string&, const Hit& hit) { return hit.query; },
                {.name = "hits-by-query"})
      .aggregate([] { return ResultClicks{}; },
                 [](const std::string&, const Hit& hit, ResultClicks counts) {
                   counts.add(hit.result);
                   return counts;
                 },
                 {.name = kCountsStore})
      .to_stream({.name = "click-count-updates"})
      .map_values(
          [](const std::optional<ResultClicks>& counts) -> std::optional<TopResult> {
            if (!counts) return std::nullopt;
            return top_result(*counts);
          },
          {.name = "top-result"})
      .to(kOutputTopic, {.name = "write-top-results"});
  return builder.build(config);
}

std::map<std::string, TopResult> recompute(const std::vector<Timed<Search>>& searches,
                                           const std::vector<Timed<Click>>& clicks) {
  std::map<std::string, ResultClicks> counts;
  for (const auto& s : searches) {
    for (const auto& c : clicks) {
      if (c.user != s.user || c.at < s.at || c.at > s.at + kClickWindow.count()) continue;
      const auto& shown = s.value.results;
      if (std::find(shown.begin(), shown.end(), c.value.result) == shown.end()) continue;
      counts[s.value.query].add(c.value.result);
    }
  }
  std::map<std::string, TopResult> out;
  for (const auto& [query, c] : counts) out[query] = top_result(c);
  return out;
}

}  // namespace search_clicks

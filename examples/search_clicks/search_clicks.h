// search_clicks: which result people click most for each search query (DESIGN.md pattern 6,
// windowed stream-stream join). Searches (topic "searches", key: the user, JSON {"query":
// "boots", "results": ["r1", "r2", ...]}) are joined with the same user's clicks (topic
// "clicks", key: the user, JSON {"result": "r2"}) that come within kClickWindow after the
// search (JoinWindows: before 0, after 5 s, 2 s of grace, see kGrace; join state in the RocksDB
// window stores search-clicks-this-join-store / -other-join-store, as Kafka Streams names them
// for StreamJoined's name and store name "search-clicks"). A click on a result the search did
// not show is no hit. The hits are re-keyed by query (repartition topic
// <application.id>-hits-by-query-repartition) and counted per result in the store
// "result-clicks"; every change of a query's most-clicked result (ties: the smallest result
// name) goes to the compacted topic "top-clicked-results", keyed by query.
//
// Both input topics must have the same number of partitions and be keyed by user.
#pragma once

#include <brook/brook.h>
#include <brook/json_serde.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace search_clicks {

inline constexpr const char* kSearchTopic = "searches";
inline constexpr const char* kClickTopic = "clicks";
inline constexpr const char* kOutputTopic = "top-clicked-results";
inline constexpr const char* kJoinName = "search-clicks";
inline constexpr const char* kCountsStore = "result-clicks";
inline constexpr std::chrono::milliseconds kClickWindow = std::chrono::seconds(5);
// For records a little out of order within a topic. Across the two topics a task takes records
// in timestamp order: it waits for a topic with nothing buffered while the log holds more of
// it (max.task.idle.ms), so one topic read ahead of the other makes nothing late.
inline constexpr std::chrono::milliseconds kGrace = std::chrono::seconds(2);

struct Search {
  std::string query;
  std::vector<std::string> results;
  friend bool operator==(const Search&, const Search&) = default;
};
void to_json(nlohmann::json& json, const Search& search);
void from_json(const nlohmann::json& json, Search& search);

struct Click {
  std::string result;
  friend bool operator==(const Click&, const Click&) = default;
};
void to_json(nlohmann::json& json, const Click& click);
void from_json(const nlohmann::json& json, Click& click);

// A click joined with the search it followed; `shown`: the search listed the result.
struct Hit {
  std::string query;
  std::string result;
  bool shown = false;
};
void to_json(nlohmann::json& json, const Hit& hit);
void from_json(const nlohmann::json& json, Hit& hit);

// The clicks per result of one query, and the most-clicked one.
struct ResultClicks {
  std::map<std::string, std::int64_t> clicks;
  void add(const std::string& result) { ++clicks[result]; }
  friend bool operator==(const ResultClicks&, const ResultClicks&) = default;
};
void to_json(nlohmann::json& json, const ResultClicks& counts);
void from_json(const nlohmann::json& json, ResultClicks& counts);

// What kOutputTopic holds per query: JSON {"result": "r2", "clicks": 7}.
struct TopResult {
  std::string result;
  std::int64_t clicks = 0;
  friend bool operator==(const TopResult&, const TopResult&) = default;
};
void to_json(nlohmann::json& json, const TopResult& top);
void from_json(const nlohmann::json& json, TopResult& top);

// The most-clicked result (ties: the smallest name); empty for no clicks.
TopResult top_result(const ResultClicks& counts);

// A click follows a search by the same user by 0 to kClickWindow (both inclusive).
brook::JoinWindows click_window();

// Built with `config` (StreamsBuilder::build: its topology.optimization).
brook::Result<brook::Topology> build_topology(
    const std::map<std::string, std::string>& config = {});

// The same results computed directly from timestamped inputs (a record's user, value and
// time), for tests and the demo: what kOutputTopic holds per query once everything is read.
template <class V>
struct Timed {
  std::string user;
  V value;
  std::int64_t at = 0;
};
std::map<std::string, TopResult> recompute(const std::vector<Timed<Search>>& searches,
                                           const std::vector<Timed<Click>>& clicks);

}  // namespace search_clicks

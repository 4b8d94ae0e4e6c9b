// stock_stats: daily statistics per stock symbol from a stream of trades (DESIGN.md pattern 2,
// local state). Each trade is re-keyed to "SYMBOL@YYYY-MM-DD" (its UTC day), which routes it
// through a repartition topic, and folded into that key's DayStats in the RocksDB store
// "day-stats". Every update of a key's stats goes to the compacted topic stock-stats, whose
// latest record per key is the day's statistics so far.
//
// Alongside, a moving average of each symbol's price over hopping windows: 1 hour long (by
// default, see Options), one starting every 10 minutes, with 1 hour of grace, in the RocksDB
// window store "moving-average", every update to the compacted topic stock-moving-average
// (keyed by Windowed<symbol>, brook::TimeWindowedSerde). It groups trades by their record key,
// which must be the symbol (as the demo and json_to_avro write them): no repartition topic, so a
// symbol's trades reach the windows in their partition's order and lateness is measured
// within that partition only. Trades keyed otherwise are left out of it.
//
// Event time is the record timestamp. Open and close are the prices of the trades with the
// earliest and the latest timestamp, so a trade that arrives late (out of order) still lands
// in the right place; trades with equal timestamps count in arrival order.
#pragma once

#include <brook/brook.h>
#include <brook/json_serde.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stock_stats {

inline constexpr const char* kInputTopic = "trades";
inline constexpr const char* kOutputTopic = "stock-stats";
inline constexpr const char* kStoreName = "day-stats";
// The moving average covers this many trades of the day: the latest by timestamp.
inline constexpr std::size_t kMovingAverageTrades = 5;
// The moving average over hopping windows (kAverageWindowSize unless Options say otherwise),
// and its window store.
inline constexpr const char* kMovingAverageTopic = "stock-moving-average";
inline constexpr const char* kMovingAverageStore = "moving-average";
inline constexpr std::chrono::milliseconds kAverageWindowSize = std::chrono::hours(1);
inline constexpr std::chrono::milliseconds kAverageAdvance = std::chrono::minutes(10);
inline constexpr std::chrono::milliseconds kAverageGrace = std::chrono::hours(1);

// A trade as JSON {"symbol": "ACME", "price": 12.5, "volume": 100}, the fields of
// examples/json_to_avro's trades that matter here (others, like "side", are ignored). When it
// happened is the record's timestamp.
struct Trade {
  std::string symbol;
  double price = 0;
  std::int64_t volume = 0;
};
void to_json(nlohmann::json& json, const Trade& trade);
void from_json(const nlohmann::json& json, Trade& trade);

// A trade with its record timestamp (ms since the Unix epoch), which aggregators, seeing
// values only, could not read otherwise. JSON: the trade's fields and "timestamp".
struct TimedTrade {
  Trade trade;
  std::int64_t timestamp = 0;
};
void to_json(nlohmann::json& json, const TimedTrade& trade);
void from_json(const nlohmann::json& json, TimedTrade& trade);

// The UTC day of a timestamp (ms since the Unix epoch) as "YYYY-MM-DD".
std::string utc_day(std::int64_t timestamp);
// "SYMBOL@YYYY-MM-DD": the key of a symbol's statistics for the UTC day of `timestamp`.
std::string day_key(const std::string& symbol, std::int64_t timestamp);

struct SymbolDay {
  std::string symbol;
  std::string day;
};
// The parts of a day_key(): the text before and after its last '@' (all of it is the symbol,
// and the day empty, if there is no '@').
SymbolDay split_day_key(const std::string& key);

// One trade in the moving average's window.
struct PricePoint {
  std::int64_t timestamp = 0;
  double price = 0;
  friend bool operator==(const PricePoint&, const PricePoint&) = default;
};

// One symbol's statistics for one day. Starts empty (trades == 0, every other field 0).
struct DayStats {
  double min = 0;
  double max = 0;
  double open = 0;   // the price of the trade with the earliest timestamp
  double close = 0;  // the price of the trade with the latest timestamp
  std::int64_t open_time = 0;
  std::int64_t close_time = 0;
  std::int64_t trades = 0;
  std::int64_t volume = 0;
  // The mean price of `window`: a simple moving average over the kMovingAverageTrades latest
  // trades by timestamp (all of them while there are fewer). By timestamp, not by arrival,
  // so that like open and close it does not depend on the order trades arrive in.
  double moving_average = 0;
  std::vector<PricePoint> window;  // oldest first

  // Adds a trade of this symbol and day.
  void add(const TimedTrade& trade);
  // (close - open) * 100 / open: the day's gain in percent so far; 0 before the first trade.
  double gain_percent() const;

  friend bool operator==(const DayStats&, const DayStats&) = default;
};
void to_json(nlohmann::json& json, const DayStats& stats);
void from_json(const nlohmann::json& json, DayStats& stats);

// The mean price of a symbol's trades in one window. Starts empty (every field 0).
// JSON {"trades": 3, "sum": 37.5, "average": 12.5}.
struct PriceAverage {
  std::int64_t trades = 0;
  double sum = 0;      // of the prices, in the order the trades were added
  double average = 0;  // sum / trades

  void add(double price);
  friend bool operator==(const PriceAverage&, const PriceAverage&) = default;
};
void to_json(nlohmann::json& json, const PriceAverage& average);
void from_json(const nlohmann::json& json, PriceAverage& average);

// Hopping windows of `size` every kAverageAdvance, kAverageGrace of grace.
brook::TimeWindows moving_average_windows(std::chrono::milliseconds size = kAverageWindowSize);
// The key serde of the moving average's topic: the symbol and the window start; reads the end
// back as start + `size`, the size of the windows the topic was written with.
brook::SerdePtr<brook::Windowed<std::string>> moving_average_key_serde(
    std::chrono::milliseconds size = kAverageWindowSize);
// "ACME@2026-03-02T10:20Z": a symbol's window, by its start (UTC, to the minute).
std::string window_label(const brook::Windowed<std::string>& key);

// The table of DayStats per day_key() of the trades in kInputTopic (keyed by anything: the key
// is not read), held in the RocksDB store `store`; trades read through the repartition topic
// <application.id>-trades-by-symbol-day-repartition. Trades without a positive price are
// dropped. The first phase of both stock_stats and top_gainers.
brook::KTable<std::string, DayStats> day_stats(brook::StreamsBuilder& builder,
                                               const std::string& store);

// What may differ between two versions of stock_stats run side by side under two application
// ids (docs/patterns/reprocessing.md). The defaults are stock_stats as it ships.
struct Options {
  // The size of the moving average's windows; at least kAverageAdvance.
  std::chrono::milliseconds average_window = kAverageWindowSize;
  // Appended to the names of both output topics.
  std::string output_suffix;
};

// day_stats() in kStoreName, every update written to kOutputTopic + output_suffix; and the
// PriceAverage per symbol (the record key of the trades whose key is their symbol) in each of
// moving_average_windows(average_window), in the RocksDB window store kMovingAverageStore,
// every update written to kMovingAverageTopic + output_suffix. An average_window shorter than
// kAverageAdvance is an error. Built with `config` (StreamsBuilder::build: its
// topology.optimization).
brook::Result<brook::Topology> build_topology(
    const Options& options = {}, const std::map<std::string, std::string>& config = {});

}  // namespace stock_stats

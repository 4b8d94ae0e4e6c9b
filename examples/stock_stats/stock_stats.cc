#include "stock_stats.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <optional>

namespace stock_stats {
namespace {

// Null keys read as "" (the moving average needs the symbol key as a std::string).
using Key = std::string;

// Copies each trade's record timestamp into its value.
class StampTime final : public brook::Processor<Key, Trade, Key, TimedTrade> {
 public:
  void process(brook::Record<Key, Trade> r) override {
    const std::int64_t timestamp = r.timestamp.value();
    context().forward(r.with_value(TimedTrade{std::move(r.value), timestamp}));
  }
};

}  // namespace

void to_json(nlohmann::json& json, const Trade& trade) {
  json = {{"symbol", trade.symbol}, {"price", trade.price}, {"volume", trade.volume}};
}

void from_json(const nlohmann::json& json, Trade& trade) {
  json.at("symbol").get_to(trade.symbol);
  json.at("price").get_to(trade.price);
  json.at("volume").get_to(trade.volume);
}

void to_json(nlohmann::json& json, const TimedTrade& trade) {
  json = trade.trade;
  json["timestamp"] = trade.timestamp;
}

void from_json(const nlohmann::json& json, TimedTrade& trade) {
  json.get_to(trade.trade);
  json.at("timestamp").get_to(trade.timestamp);
}

std::string utc_day(std::int64_t timestamp) {
  using namespace std::chrono;
  const year_month_day day{floor<days>(sys_time<milliseconds>(milliseconds(timestamp)))};
  char text[32];
  std::snprintf(text, sizeof text, "%04d-%02u-%02u", static_cast<int>(day.year()),
                static_cast<unsigned>(day.month()), static_cast<unsigned>(day.day()));
  return text;
}

std::string day_key(const std::string& symbol, std::int64_t timestamp) {
  return symbol + "@" + utc_day(timestamp);
}

SymbolDay split_day_key(const std::string& key) {
  const auto at = key.rfind('@');
  if (at == std::string::npos) return {key, ""};
  return {key.substr(0, at), key.substr(at + 1)};
}

void DayStats::add(const TimedTrade& t) {
  const double price = t.trade.price;
  if (trades == 0) {
    min = max = open = close = price;
    open_time = close_time = t.timestamp;
  } else {
    min = std::min(min, price);
    max = std::max(max, price);
    if (t.timestamp < open_time) {
      open = price;
      open_time = t.timestamp;
    }
    if (t.timestamp >= close_time) {
      close = price;
      close_time = t.timestamp;
    }
  }
  ++trades;
  volume += t.trade.volume;
  // After the trades with the same timestamp: those arrived earlier.
  const auto at = std::upper_bound(
      window.begin(), window.end(), t.timestamp,
      [](std::int64_t timestamp, const PricePoint& p) { return timestamp < p.timestamp; });
  window.insert(at, {t.timestamp, price});
  if (window.size() > kMovingAverageTrades) window.erase(window.begin());
  moving_average = std::accumulate(window.begin(), window.end(), 0.0,
                                   [](double sum, const PricePoint& p) { return sum + p.price; }) /
                   static_cast<double>(window.size());
}

double DayStats::gain_percent() const { return trades == 0 ? 0 : (close - open) * 100 / open; }

void to_json(nlohmann::json& json, const DayStats& s) {
  nlohmann::json window = nlohmann::json::array();
  for (const auto& p : s.window) window.push_back({{"timestamp", p.timestamp}, {"price", p.price}});
  json = {{"min", s.min},
          {"max", s.max},
          {"open", s.open},
          {"close", s.close},
          {"open_time", s.open_time},
          {"close_time", s.close_time},
          {"trades", s.trades},
          {"volume", s.volume},
          {"moving_average", s.moving_average},
          {"window", std::move(window)}};
}

void from_json(const nlohmann::json& json, DayStats& s) {
  json.at("min").get_to(s.min);
  json.at("max").get_to(s.max);
  json.at("open").get_to(s.open);
  json.at("close").get_to(s.close);
  json.at("open_time").get_to(s.open_time);
  json.at("close_time").get_to(s.close_time);
  json.at("trades").get_to(s.trades);
  json.at("volume").get_to(s.volume);
  json.at("moving_average").get_to(s.moving_average);
  s.window.clear();
  for (const auto& p : json.at("window")) {
    s.window.push_back({p.at("timestamp").get<std::int64_t>(), p.at("price").get<double>()});
  }
}

namespace {

brook::KStream<Key, Trade> priced_trades(brook::StreamsBuilder& builder) {
  return builder.stream<Key, Trade>(kInputTopic, {.name = "read-trades"})
      .filter([](const Key&, const Trade& trade) { return trade.price > 0; },
              {.name = "priced-trades"});
}

brook::KTable<std::string, DayStats> day_stats(const brook::KStream<Key, Trade>& trades,
                                               const std::string& store) {
  return trades.process([] { return std::make_unique<StampTime>(); }, {.name = "stamp-time"})
      .group_by(
          [](const Key&, const TimedTrade& t) { return day_key(t.trade.symbol, t.timestamp); },
          {.name = "trades-by-symbol-day"})
      .aggregate([] { return DayStats{}; },
                 [](const std::string&, const TimedTrade& trade, DayStats stats) {
                   stats.add(trade);
                   return stats;
                 },
                 {.name = store});
}

}  // namespace

brook::KTable<std::string, DayStats> day_stats(brook::StreamsBuilder& builder,
                                               const std::string& store) {
  return day_stats(priced_trades(builder), store);
}

void PriceAverage::add(double price) {
  ++trades;
  sum += price;
  average = sum / static_cast<double>(trades);
}

void to_json(nlohmann::json& json, const PriceAverage& a) {
  json = {{"trades", a.trades}, {"sum", a.sum}, {"average", a.average}};
}

void from_json(const nlohmann::json& json, PriceAverage& a) {
  json.at("trades").get_to(a.trades);
  json.at("sum").get_to(a.sum);
  json.at("average").get_to(a.average);
}

brook::TimeWindows moving_average_windows(std::chrono::milliseconds size) {
  return brook::TimeWindows::of_size_and_grace(size, kAverageGrace).advance_by(kAverageAdvance);
}

brook::SerdePtr<brook::Windowed<std::string>> moving_average_key_serde(
    std::chrono::milliseconds size) {
  return std::make_shared<const brook::TimeWindowedSerde<std::string>>(
      std::make_shared<const brook::StringSerde>(), size);
}

std::string window_label(const brook::Windowed<std::string>& key) {
  using namespace std::chrono;
  const sys_time<milliseconds> start{milliseconds(key.window.start.value())};
  const hh_mm_ss time{floor<minutes>(start - floor<days>(start))};
  char text[16];
  std::snprintf(text, sizeof text, "T%02d:%02dZ", static_cast<int>(time.hours().count()),
                static_cast<int>(time.minutes().count()));
  return key.key + "@" + utc_day(key.window.start.value()) + text;
}

brook::Result<brook::Topology> build_topology(const Options& options,
                                              const std::map<std::string, std::string>& config) {
  brook::StreamsBuilder builder;
  const auto trades = priced_trades(builder);
  day_stats(trades, kStoreName)
      .to_stream({.name = "stats-updates"})
      .to(kOutputTopic + options.output_suffix, {.name = "write-stats"});
  trades
      .filter([](const Key& key, const Trade& trade) { return key == trade.symbol; },
              {.name = "keyed-by-symbol"})
      .group_by_key()
      .windowed_by(moving_average_windows(options.average_window))
      .aggregate([] { return PriceAverage{}; },
                 [](const std::string&, const Trade& trade, PriceAverage average) {
                   average.add(trade.price);
                   return average;
                 },
                 {.name = kMovingAverageStore})
      .to_stream({.name = "moving-average-updates"})
      .to(kMovingAverageTopic + options.output_suffix,
          {.key_serde = moving_average_key_serde(options.average_window),
           .name = "write-moving-average"});
  return builder.build(config);
}

}  // namespace stock_stats

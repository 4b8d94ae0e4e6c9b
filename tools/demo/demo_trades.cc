#include "demo_trades.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "demo_time.h"

namespace brook::demo {
namespace {

using stock_stats::DayStats;
using stock_stats::TimedTrade;

constexpr std::int64_t kFirstDay = 1'772'409'600'000;  // 2026-03-02T00:00:00Z
constexpr std::int64_t kOpen = (9 * 60 + 30) * kMinute;
constexpr std::int64_t kClose = 16 * 60 * kMinute;

// The statistics of one key's trades, sorted by timestamp.
DayStats stats_of(const std::vector<TimedTrade>& sorted) {
  DayStats s;
  s.open = sorted.front().trade.price;
  s.open_time = sorted.front().timestamp;
  s.close = sorted.back().trade.price;
  s.close_time = sorted.back().timestamp;
  s.min = s.max = s.open;
  for (const auto& t : sorted) {
    s.min = std::min(s.min, t.trade.price);
    s.max = std::max(s.max, t.trade.price);
    s.volume += t.trade.volume;
  }
  s.trades = static_cast<std::int64_t>(sorted.size());
  const std::size_t first =
      sorted.size() - std::min(sorted.size(), stock_stats::kMovingAverageTrades);
  double sum = 0;
  for (std::size_t i = first; i < sorted.size(); ++i) {
    s.window.push_back({sorted[i].timestamp, sorted[i].trade.price});
    sum += sorted[i].trade.price;
  }
  s.moving_average = sum / static_cast<double>(s.window.size());
  return s;
}

}  // namespace

std::vector<TimedTrade> generate_trades(std::uint32_t seed, int count) {
  struct Stock {
    const char* symbol;
    double price;
  };
  Stock stocks[] = {{"ACME", 120.0}, {"INIT", 43.5},  {"GLOBX", 310.25}, {"BRKX", 12.8},
                    {"ZETA", 77.0},  {"NOVA", 8.4},   {"KRON", 54.1},    {"LUMO", 231.0},
                    {"PIXL", 19.95}, {"QBIT", 402.5}, {"RIVR", 66.6},    {"SOLR", 27.3},
                    {"TERA", 145.0}, {"VOLT", 3.2}};
  std::mt19937 random(seed);
  std::vector<TimedTrade> trades;
  const int per_day = count / kDemoDays;
  const std::int64_t step = (kClose - kOpen) / per_day;
  for (int i = 0; i < per_day * kDemoDays; ++i) {
    Stock& stock = stocks[random() % std::size(stocks)];
    const double move = (static_cast<int>(random() % 201) - 100) / 10'000.0;
    stock.price = std::max(1.0, std::round(stock.price * (1 + move) * 100) / 100);
    std::int64_t ts = kFirstDay + (i / per_day) * kDay + kOpen + (i % per_day) * step +
                      static_cast<std::int64_t>(random() % step);
    if (random() % 50 == 0) ts -= static_cast<std::int64_t>(random() % (30 * kMinute));
    trades.push_back(
        {{stock.symbol, stock.price, static_cast<std::int64_t>(random() % 50 + 1) * 10}, ts});
  }
  return trades;
}

std::map<std::string, DayStats> recompute_day_stats(const std::vector<TimedTrade>& trades) {
  std::map<std::string, std::vector<TimedTrade>> by_key;
  for (const auto& t : trades) {
    by_key[stock_stats::day_key(t.trade.symbol, t.timestamp)].push_back(t);
  }
  std::map<std::string, DayStats> out;
  for (auto& [key, list] : by_key) {
    std::stable_sort(list.begin(), list.end(), [](const TimedTrade& a, const TimedTrade& b) {
      return a.timestamp < b.timestamp;
    });
    out.emplace(key, stats_of(list));
  }
  return out;
}

std::map<std::string, stock_stats::PriceAverage> recompute_moving_averages(
    const std::vector<TimedTrade>& trades) {
  const auto windows = stock_stats::moving_average_windows();
  std::map<std::string, stock_stats::PriceAverage> out;
  for (const auto& t : trades) {
    for (const auto& window : windows.windows_for(Timestamp(t.timestamp))) {
      out[stock_stats::window_label({t.trade.symbol, window})].add(t.trade.price);
    }
  }
  return out;
}

std::map<std::string, std::vector<top_gainers::Gain>> recompute_top_gainers(
    const std::map<std::string, DayStats>& day_stats) {
  std::map<std::string, top_gainers::DayGains> by_day;
  for (const auto& [key, stats] : day_stats) {
    const auto [symbol, day] = stock_stats::split_day_key(key);
    by_day[day][symbol] = stats.gain_percent();
  }
  std::map<std::string, std::vector<top_gainers::Gain>> out;
  for (const auto& [day, gains] : by_day) out.emplace(day, top_gainers::top(gains));
  return out;
}

}  // namespace brook::demo

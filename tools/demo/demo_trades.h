// The stock trades `brook-demo` feeds to the examples stock_stats and top_gainers, and the
// results those must end with, recomputed straight from the trades: the demo compares them
// with what the applications wrote.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "stock_stats.h"
#include "top_gainers.h"

namespace brook::demo {

inline constexpr int kDemoDays = 3;

// `count` trades of 14 symbols over kDemoDays UTC days from 2026-03-02, in the order they are
// written, the same for the same seed. Prices walk randomly by up to 1% per trade; about one
// trade in 50 arrives late, up to 30 minutes out of timestamp order.
std::vector<stock_stats::TimedTrade> generate_trades(std::uint32_t seed, int count);

// The final stock-stats table: per day key, the statistics of its trades, computed in one pass
// over them sorted by timestamp (equal timestamps in arrival order).
std::map<std::string, stock_stats::DayStats> recompute_day_stats(
    const std::vector<stock_stats::TimedTrade>& trades);

// The final stock-moving-average table: per window_label() of each symbol's windows, the
// PriceAverage of its trades in that window, added in the order generated (the order the
// application sees a symbol's trades). Every trade counts: the grace (1 h) exceeds how late
// the generated trades arrive (up to 30 min).
std::map<std::string, stock_stats::PriceAverage> recompute_moving_averages(
    const std::vector<stock_stats::TimedTrade>& trades);

// The final top-gainers table: per day, the top_gainers::kTop best gains of `day_stats`.
std::map<std::string, std::vector<top_gainers::Gain>> recompute_top_gainers(
    const std::map<std::string, stock_stats::DayStats>& day_stats);

}  // namespace brook::demo

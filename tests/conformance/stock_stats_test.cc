// stock_stats and top_gainers against their Kafka Streams twins (StockStats.java,
// TopGainers.java), on the same trades:
//
// - stock_stats: describe(); stock-stats (the day statistics per "SYMBOL@YYYY-MM-DD") and
//   stock-moving-average (the average price per symbol in hopping windows, keyed by the symbol
//   and the window start) as tables, JSON values compared as JSON; the changelogs of the stores
//   day-stats and moving-average.
// - top_gainers: describe(); top-gainers (the day's 10 best gains) as a table; the changelogs of
//   symbol-day-stats and day-gains.
//
// Both are aggregations whose updates reach their topics when record caches flush, so the
// outputs are compared as tables. Their final values do not depend on the order in which tasks
// interleave: a trade keyed by its symbol stays in its partition's order, and the trades that
// reach a day's statistics from other partitions (no key, another key) have timestamps no other
// trade of that symbol has, so open, close and the window of the latest trades are the same in
// any order. StampTime (the example's processor) copies the record timestamp, not the clock:
// nothing depends on wall-clock time.
//
// The input (over 10 000 records): the demo's trades (tools/demo), moved from 2026 to 2100,
// some with a field the example ignores or an integer price; trades of symbols with '@', with a
// non-ASCII letter, and empty; tombstones, null keys, prices of 0 and below, trades keyed
// otherwise than by their symbol, all with event times below their partition's stream time
// (docs/compatibility.md#windows-close-by-the-tasks-stream-time); per partition, equal
// timestamps, trades at window starts and at midnight, trades late within the grace period, on
// its bound and beyond it, late trades at a day's open and close times; a day that ends in a tie
// of more than 10 equal gains. Every trade has a header naming its day: the trades of one day's
// statistics carry the same, so which of them comes last does not matter.
//
// The trades are dated 2100, apart from anything else on the broker.
#include "stock_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "brook/internal/partitioner.h"
#include "conformance.h"
#include "demo_trades.h"

namespace brook::testing {
namespace {

constexpr std::int32_t kTradePartitions = 4;

const ExampleTopics kStockStats{
    .name = "stock_stats",
    .inputs = {{.name = stock_stats::kInputTopic, .partitions = kTradePartitions}},
    .outputs = {{.name = stock_stats::kOutputTopic, .partitions = 4},
                {.name = stock_stats::kMovingAverageTopic, .partitions = 4}},
    .stores = {stock_stats::kStoreName, stock_stats::kMovingAverageStore},
};

const ExampleTopics kTopGainers{
    .name = "top_gainers",
    .inputs = {{.name = stock_stats::kInputTopic, .partitions = kTradePartitions}},
    .outputs = {{.name = "top-gainers", .partitions = 1}},
    .stores = {"symbol-day-stats", "day-gains"},
};

constexpr std::int64_t kMinute = 60'000;
constexpr std::int64_t kHour = 60 * kMinute;
constexpr std::int64_t kDay = 24 * kHour;

// ms since the epoch at UTC midnight of `day`.
constexpr std::int64_t midnight(std::chrono::sys_days day) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(day.time_since_epoch()).count();
}

// The first of the demo's days (2026-03-02) and where the input moves it (2100-03-01).
constexpr std::int64_t kDemoFirstDay = midnight(std::chrono::year(2026) / 3 / 2);
constexpr std::int64_t kFirstDay = midnight(std::chrono::year(2100) / 3 / 1);

// The demo's symbols (tools/demo/demo_trades.cc).
const std::vector<std::string> kSymbols = {"ACME", "INIT", "GLOBX", "BRKX", "ZETA", "NOVA", "KRON",
                                           "LUMO", "PIXL", "QBIT",  "RIVR", "SOLR", "TERA", "VOLT"};

std::string trade_json(const std::string& symbol, double price, std::int64_t volume) {
  return nlohmann::json(stock_stats::Trade{symbol, price, volume}).dump();
}

// A record of the trades topic at `timestamp`: on the partition of its key, or without a key
// on `unkeyed_partition`; with the header "session" naming its UTC day.
ProducerRecord trade_record(std::optional<std::string> key, std::optional<std::string> value,
                            std::int64_t timestamp, std::int32_t unkeyed_partition = 0) {
  ProducerRecord r{.topic = stock_stats::kInputTopic,
                   .timestamp = Timestamp(timestamp),
                   .key = std::move(key),
                   .value = std::move(value)};
  r.partition =
      r.key ? internal::partition_for_key(*r.key, kTradePartitions) : Partition(unkeyed_partition);
  r.headers.add("session", stock_stats::utc_day(timestamp));
  return r;
}

// A trade keyed by its symbol.
ProducerRecord trade(const std::string& symbol, double price, std::int64_t timestamp) {
  return trade_record(symbol, trade_json(symbol, price, 100), timestamp);
}

std::vector<ProducerRecord> trades() {
  std::vector<ProducerRecord> records;
  std::mt19937 random(2100);
  // The timestamps each symbol's trades have: a trade not keyed by its symbol (on another
  // partition, in an order relative to the symbol's own that depends on the tasks) takes one
  // no other trade of its symbol has.
  std::map<std::string, std::set<std::int64_t>> taken;
  auto keyed = [&](ProducerRecord r, const std::string& symbol) {
    taken[symbol].insert(r.timestamp.value());
    records.push_back(std::move(r));
  };

  // The demo's trades, keyed by symbol, three days from kFirstDay; a third with a field the
  // example ignores ("side"), some with an integer price.
  const auto demo = demo::generate_trades(7, 9'600);
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> first_day;  // symbol -> open, close
  for (std::size_t i = 0; i < demo.size(); ++i) {
    const auto& t = demo[i];
    const std::int64_t ts = t.timestamp - kDemoFirstDay + kFirstDay;
    nlohmann::json json = t.trade;
    if (i % 3 == 0) json["side"] = i % 2 ? "BUY" : "SELL";
    if (i % 101 == 0) json["price"] = static_cast<std::int64_t>(std::floor(t.trade.price));
    keyed(trade_record(t.trade.symbol, json.dump(), ts), t.trade.symbol);
    if (ts < kFirstDay + kDay) {
      auto [it, added] = first_day.try_emplace(t.trade.symbol, ts, ts);
      it->second.first = std::min(it->second.first, ts);
      it->second.second = std::max(it->second.second, ts);
    }
  }

  // Symbols with '@' (the day key splits at the last one), with a non-ASCII letter, and empty
  // (keyed by the empty key, not null), on the third day from 13:00, after the demo's trades of
  // that day: pairs at equal timestamps, the first beyond the grace period of their partition's
  // stream time, the later within it.
  for (const std::string symbol : {"AT@T", "\xC3\x86ON", ""}) {
    for (int i = 0; i < 24; ++i) {
      const std::int64_t ts = kFirstDay + 2 * kDay + 13 * kHour + (i / 2) * 20 * kMinute;
      keyed(trade(symbol, 20.0 + i * 0.25 + static_cast<double>(symbol.size()), ts), symbol);
    }
  }

  // Per partition, a symbol of its own on the fourth day from 10:00 (B): trades at window
  // starts and at equal timestamps; then stream time B + 3h (windows close at B + 2h) and late
  // trades: beyond the grace period (every window of B + 1h - 1 ms and of B + 1h ends by B + 2h,
  // the last exactly then), on its bound (B + 1h 10min - 1 ms: no window; B + 1h 10min: one),
  // within it. Then midnight: the day's last and the next day's first trades (equal ones), late
  // trades an hour before midnight (all windows open) and two hours before (the last window
  // ends exactly at the close time). Then late trades on the first day: at its open time (not
  // the new open: equal), at its close time (the new close: equal), at midnight (the new open),
  // a millisecond before the next midnight (the new close); and at the second day's midnight.
  std::set<std::int32_t> scripted;
  for (const auto& symbol : kSymbols) {
    if (!scripted.insert(internal::partition_for_key(symbol, kTradePartitions).value()).second) {
      continue;
    }
    const std::int64_t b = kFirstDay + 3 * kDay + 10 * kHour;
    const std::int64_t next_day = kFirstDay + 4 * kDay;
    const std::vector<std::pair<std::int64_t, double>> script = {
        {b, 100.0},
        {b, 101.0},
        {b + 10 * kMinute, 102.0},
        {b + 3 * kHour, 103.0},
        {b + kHour - 1, 90.0},
        {b + kHour, 91.0},
        {b + kHour + 10 * kMinute - 1, 92.0},
        {b + kHour + 10 * kMinute, 93.0},
        {b + 2 * kHour - 1, 94.0},
        {b + 2 * kHour, 95.0},
        {b + 3 * kHour, 96.0},
        {b + 3 * kHour, 97.0},
        {b + 2 * kHour + 30 * kMinute, 98.0},
        {next_day - 1, 99.0},
        {next_day, 100.5},
        {next_day, 100.25},
        {next_day - kHour, 97.5},
        {next_day - 2 * kHour, 96.5},
        {first_day.at(symbol).first, 77.7},
        {first_day.at(symbol).second, 88.8},
        {kFirstDay, 66.6},
        {kFirstDay + kDay - 1, 55.5},
        {kFirstDay + kDay, 44.4},
    };
    for (const auto& [ts, price] : script) keyed(trade(symbol, price, ts), symbol);
  }

  // The sixth day: every symbol trades at midnight at 50, so their gains tie at 0 (the top 10
  // in symbol order); two of them end 10% up (a tie too), one down.
  const std::int64_t sixth = kFirstDay + 5 * kDay;
  for (const auto& symbol : kSymbols) keyed(trade(symbol, 50.0, sixth), symbol);
  keyed(trade("TERA", 55.0, sixth + 10 * kMinute), "TERA");
  keyed(trade("BRKX", 55.0, sixth + 10 * kMinute), "BRKX");
  keyed(trade("VOLT", 45.0, sixth + 10 * kMinute), "VOLT");

  // Last, what the trades' filters drop and what reaches the day statistics from other
  // partitions, on the first two days: below every partition's stream time by now, so they
  // leave the windows' close time alone.
  auto early = [&] {
    return kFirstDay + 9 * kHour + static_cast<std::int64_t>(random() % (kDay + 7 * kHour));
  };
  auto any_symbol = [&] { return kSymbols[random() % kSymbols.size()]; };
  auto unique_time = [&](const std::string& symbol) {
    std::int64_t ts = early();
    while (!taken[symbol].insert(ts).second) ++ts;
    return ts;
  };
  for (int i = 0; i < 60; ++i) records.push_back(trade_record(any_symbol(), std::nullopt, early()));
  for (int i = 0; i < 12; ++i) {
    records.push_back(trade_record(std::nullopt, std::nullopt, early(), i % kTradePartitions));
  }
  for (int i = 0; i < 40; ++i) {
    const auto symbol = any_symbol();
    records.push_back(trade_record(symbol, trade_json(symbol, i % 2 ? 0.0 : -1.5, 10), early()));
  }
  for (int i = 0; i < 120; ++i) {  // no key
    const auto symbol = any_symbol();
    records.push_back(trade_record(std::nullopt, trade_json(symbol, 10.0 + i * 0.5, 10 + i),
                                   unique_time(symbol), i % kTradePartitions));
  }
  for (int i = 0; i < 60; ++i) {  // another key: a desk, or the symbol in lower case
    const auto symbol = any_symbol();
    std::string key = fmt::format("desk-{}", i % 6);
    if (i % 5 == 0) {
      key = symbol;
      for (char& c : key) c = static_cast<char>(c - 'A' + 'a');
    }
    records.push_back(
        trade_record(key, trade_json(symbol, 30.0 + i * 0.75, 20), unique_time(symbol)));
  }
  return records;
}

TEST_F(ConformanceTest, StockStatsAggregatesAsKafkaStreams) {
  create_topics(kStockStats);
  produce(trades());
  const auto [brook, twin] = run_both(kStockStats);
  expect_same_dropped_records(kStockStats, brook, twin);
  expect_same_description(kStockStats, brook, twin);
  expect_same_table(kStockStats, stock_stats::kOutputTopic, brook, twin, ValueFormat::kJson);
  expect_same_table(kStockStats, stock_stats::kMovingAverageTopic, brook, twin, ValueFormat::kJson);
  expect_same_changelog(kStockStats, stock_stats::kStoreName, brook, twin, ValueFormat::kJson);
  expect_same_changelog(kStockStats, stock_stats::kMovingAverageStore, brook, twin,
                        ValueFormat::kJson);
}

// Symbol -> the starts of its windows in `run`'s stock-moving-average (keys: [symbol][8-byte
// window start]).
std::map<std::string, std::set<std::int64_t>> average_windows(const AppRun& run) {
  std::map<std::string, std::set<std::int64_t>> out;
  for (const auto& [key, value] :
       last_values(run.outputs.at(stock_stats::kMovingAverageTopic), ValueFormat::kBytes)) {
    std::uint64_t start = 0;
    for (std::size_t i = key.size() - 8; i < key.size(); ++i) {
      start = start << 8 | static_cast<unsigned char>(key[i]);
    }
    out[key.substr(0, key.size() - 8)].insert(static_cast<std::int64_t>(start));
  }
  return out;
}

// docs/compatibility.md#windows-close-by-the-tasks-stream-time and
// #a-null-key-read-as-a-key-type-without-null, on ACME's partition and another. ACME's trades
// at t + 1 h, t + 2 h and t + 3 h follow trades the filters drop (no price at t + 5 h, a
// tombstone at t + 10 h, a trade of ACMEX keyed ACME at t + 20 h): they move Brook's stream
// time of the task, so its hopping windows of ACME (1 h, every 10 min, grace 1 h) after the
// first trade's are closed; Kafka Streams measures against the trades that reached the windows
// and counts all four. The trade without a key of the symbol "" is averaged under the key "" in
// Brook (the key type is std::string), and dropped by the filter keyed-by-symbol in Kafka
// Streams. INIT's trade is averaged alike. The day statistics, which these differences do not
// reach, are equal.
TEST_F(ConformanceTest, StockStatsMovingAverageClosesByTheTasksStreamTime) {
  create_topics(kStockStats);
  const std::int64_t t = kFirstDay + 10 * kHour;
  const std::vector<ProducerRecord> input = {
      trade("ACME", 10.0, t),
      trade("ACME", 0.0, t + 5 * kHour),
      trade("ACME", 11.0, t + kHour),
      trade_record("ACME", std::nullopt, t + 10 * kHour),
      trade("ACME", 12.0, t + 2 * kHour),
      trade_record("ACME", trade_json("ACMEX", 13.0, 100), t + 20 * kHour),
      trade("ACME", 14.0, t + 3 * kHour),
      trade_record(std::nullopt, trade_json("", 5.0, 100), t, 2),
      trade("INIT", 6.0, t + kHour),
  };
  produce(input);
  const auto [brook, twin] = run_both(kStockStats);
  expect_same_table(kStockStats, stock_stats::kOutputTopic, brook, twin, ValueFormat::kJson);
  expect_same_changelog(kStockStats, stock_stats::kStoreName, brook, twin, ValueFormat::kJson);

  constexpr std::int64_t kAdvance = 10 * 60'000;
  std::set<std::int64_t> first_trades_windows;  // the windows holding t
  for (std::int64_t start = t - kHour + kAdvance; start <= t; start += kAdvance) {
    first_trades_windows.insert(start);
  }
  auto ours = average_windows(brook);
  auto theirs = average_windows(twin);
  EXPECT_EQ(ours["ACME"], first_trades_windows);
  EXPECT_TRUE(theirs["ACME"].contains(t + 3 * kHour));
  EXPECT_TRUE(std::includes(theirs["ACME"].begin(), theirs["ACME"].end(),
                            first_trades_windows.begin(), first_trades_windows.end()));
  EXPECT_EQ(ours[""], first_trades_windows);
  EXPECT_FALSE(theirs.contains(""));
  EXPECT_EQ(ours["INIT"], theirs["INIT"]);
  EXPECT_FALSE(ours["INIT"].empty());
  report_documented("stock_stats", "stock-moving-average (late trades)",
                    "windows-close-by-the-tasks-stream-time");
}

TEST_F(ConformanceTest, TopGainersRanksAsKafkaStreams) {
  create_topics(kTopGainers);
  produce(trades());
  const auto [brook, twin] = run_both(kTopGainers);
  expect_same_dropped_records(kTopGainers, brook, twin);
  expect_same_description(kTopGainers, brook, twin);
  expect_same_table(kTopGainers, "top-gainers", brook, twin, ValueFormat::kJson);
  expect_same_changelog(kTopGainers, "symbol-day-stats", brook, twin, ValueFormat::kJson);
  expect_same_changelog(kTopGainers, "day-gains", brook, twin, ValueFormat::kJson);
}

}  // namespace
}  // namespace brook::testing

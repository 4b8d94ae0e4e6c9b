#include "stock_stats.h"

#include <brook/testing/topology_test_driver.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>

namespace stock_stats {
namespace {

using namespace std::chrono_literals;
using Key = std::optional<std::string>;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::chrono::sys_days kMonday = std::chrono::year(2026) / 3 / 2;
constexpr std::chrono::sys_days kTuesday = kMonday + std::chrono::days(1);

// ms since the epoch at `time` (UTC) on `day`.
constexpr std::int64_t at(std::chrono::sys_days day, std::chrono::milliseconds time) {
  return (std::chrono::sys_time<std::chrono::milliseconds>(day) + time).time_since_epoch().count();
}

class StockStats : public ::testing::Test {
 protected:
  StockStats()
      : topology_(*build_topology()),
        driver_(topology_, {.application_id = "stats"}),
        trades_(driver_.create_input_topic<Key, Trade>(kInputTopic)),
        stats_(driver_.create_output_topic<std::string, std::optional<DayStats>>(kOutputTopic)) {}

  void trade(const std::string& symbol, double price, std::int64_t volume, std::int64_t timestamp) {
    trades_.pipe_input(symbol, Trade{symbol, price, volume}, brook::Timestamp(timestamp));
  }
  // The stats of every update written since the last call.
  std::vector<DayStats> updates() {
    std::vector<DayStats> out;
    for (auto& stats : stats_.read_values_to_list()) out.push_back(stats.value());
    return out;
  }

  brook::Topology topology_;
  brook::testing::TopologyTestDriver driver_;
  brook::testing::TestInputTopic<Key, Trade> trades_;
  brook::testing::TestOutputTopic<std::string, std::optional<DayStats>> stats_;
};

TEST(StockStatsDayKey, IsTheSymbolAndTheUtcDay) {
  EXPECT_EQ(utc_day(0), "1970-01-01");
  EXPECT_EQ(utc_day(at(kMonday, 0ms)), "2026-03-02");
  EXPECT_EQ(utc_day(at(kMonday, 24h - 1ms)), "2026-03-02");
  EXPECT_EQ(utc_day(at(kTuesday, 0ms)), "2026-03-03");
  EXPECT_EQ(day_key("ACME", at(kMonday, 10h)), "ACME@2026-03-02");
  const SymbolDay parts = split_day_key("ACME@2026-03-02");
  EXPECT_EQ(parts.symbol, "ACME");
  EXPECT_EQ(parts.day, "2026-03-02");
  EXPECT_EQ(split_day_key("A@B@2026-03-02").symbol, "A@B");
  EXPECT_EQ(split_day_key("ACME").day, "");
}

TEST_F(StockStats, OpenAndCloseFollowTimestampsEvenForATradeArrivingLate) {
  const std::int64_t t0900 = at(kMonday, 9h), t1000 = at(kMonday, 10h),
                     t1005 = at(kMonday, 10h + 5min), t1100 = at(kMonday, 11h);
  trade("ACME", 10, 100, t1000);
  trade("ACME", 12, 50, t1005);
  trade("ACME", 9, 10, t0900);  // out of order: the day's first trade arrives third
  trade("ACME", 11, 40, t1100);
  EXPECT_THAT(updates(),
              ElementsAre(DayStats{.min = 10,
                                   .max = 10,
                                   .open = 10,
                                   .close = 10,
                                   .open_time = t1000,
                                   .close_time = t1000,
                                   .trades = 1,
                                   .volume = 100,
                                   .moving_average = 10,
                                   .window = {{t1000, 10}}},
                          DayStats{.min = 10,
                                   .max = 12,
                                   .open = 10,
                                   .close = 12,
                                   .open_time = t1000,
                                   .close_time = t1005,
                                   .trades = 2,
                                   .volume = 150,
                                   .moving_average = 11,
                                   .window = {{t1000, 10}, {t1005, 12}}},
                          DayStats{.min = 9,
                                   .max = 12,
                                   .open = 9,
                                   .close = 12,
                                   .open_time = t0900,
                                   .close_time = t1005,
                                   .trades = 3,
                                   .volume = 160,
                                   .moving_average = 31.0 / 3,
                                   .window = {{t0900, 9}, {t1000, 10}, {t1005, 12}}},
                          DayStats{.min = 9,
                                   .max = 12,
                                   .open = 9,
                                   .close = 11,
                                   .open_time = t0900,
                                   .close_time = t1100,
                                   .trades = 4,
                                   .volume = 200,
                                   .moving_average = 10.5,
                                   .window = {{t0900, 9}, {t1000, 10}, {t1005, 12}, {t1100, 11}}}));
  auto store = driver_.timestamped_key_value_store<std::string, DayStats>(kStoreName);
  EXPECT_EQ(store.get("ACME@2026-03-02")->value.gain_percent(), (11.0 - 9) * 100 / 9);
}

TEST_F(StockStats, KeepsOneRowPerSymbolAndUtcDay) {
  trade("ACME", 10, 1, at(kMonday, 23h + 59min));
  trade("INIT", 20, 2, at(kMonday, 12h));
  trade("ACME", 30, 3, at(kTuesday, 0ms));
  trade("ACME", 40, 4, at(kMonday, 1h));  // Monday's, though it arrives after Tuesday's
  auto records = stats_.read_key_values_to_list();
  std::vector<std::string> keys;
  for (const auto& r : records) keys.push_back(r.key);
  EXPECT_THAT(keys, ElementsAre("ACME@2026-03-02", "INIT@2026-03-02", "ACME@2026-03-03",
                                "ACME@2026-03-02"));
  const DayStats& monday = *records.back().value;
  EXPECT_EQ(monday.open, 40);
  EXPECT_EQ(monday.close, 10);
  EXPECT_EQ(monday.volume, 5);
  EXPECT_EQ(records[2].value->trades, 1);
}

TEST_F(StockStats, MovingAverageCoversTheFiveLatestTradesByTimestamp) {
  for (int minute = 1; minute <= 6; ++minute) {
    trade("ACME", minute, 1, at(kMonday, 10h + std::chrono::minutes(minute)));
  }
  EXPECT_EQ(updates().back().moving_average, (2.0 + 3 + 4 + 5 + 6) / 5);
  trade("ACME", 100, 1, at(kMonday, 10h));  // late and older than the window: not in it
  DayStats stats = updates().back();
  EXPECT_EQ(stats.moving_average, (2.0 + 3 + 4 + 5 + 6) / 5);
  EXPECT_EQ(stats.max, 100);
  EXPECT_EQ(stats.open, 100);
  trade("ACME", 10, 1, at(kMonday, 10h + 3min + 30s));  // late, but among the five latest
  stats = updates().back();
  EXPECT_EQ(stats.moving_average, (3.0 + 10 + 4 + 5 + 6) / 5);
  EXPECT_EQ(stats.window.front(), (PricePoint{at(kMonday, 10h + 3min), 3}));
  EXPECT_EQ(stats.close, 6);
  EXPECT_EQ(stats.trades, 8);
}

TEST_F(StockStats, TradesWithEqualTimestampsCountInArrivalOrder) {
  const std::int64_t t = at(kMonday, 10h);
  trade("ACME", 5, 1, t);
  trade("ACME", 6, 1, t);
  trade("ACME", 7, 1, t);
  const DayStats stats = updates().back();
  EXPECT_EQ(stats.open, 5);
  EXPECT_EQ(stats.close, 7);
  EXPECT_EQ(stats.window, (std::vector<PricePoint>{{t, 5}, {t, 6}, {t, 7}}));
}

TEST_F(StockStats, TradesWithoutAPositivePriceAreDropped) {
  trade("ACME", 0, 1, at(kMonday, 10h));
  trade("ACME", -1, 1, at(kMonday, 11h));
  EXPECT_TRUE(stats_.is_empty());
  EXPECT_TRUE(driver_.output_queue("stats-trades-by-symbol-day-repartition").empty());
}

TEST_F(StockStats, RekeysThroughARepartitionTopicIntoARocksDbStoreAndWritesJson) {
  EXPECT_EQ(brook::internal::topology_data(topology_).subtopologies.size(), 2u);
  EXPECT_THAT(topology_.describe(), HasSubstr("trades-by-symbol-day-repartition"));
  std::map<std::string, brook::StoreType> stores;
  for (const auto& store : brook::internal::topology_data(topology_).stores)
    stores[store.name] = store.type;
  EXPECT_EQ(stores, (std::map<std::string, brook::StoreType>{
                        {kStoreName, brook::StoreType::kRocksDb},
                        {kMovingAverageStore, brook::StoreType::kRocksDb}}));

  trade("ACME", 12.5, 100, at(kMonday, 10h));
  EXPECT_EQ(driver_.output_queue("stats-day-stats-changelog").size(), 1u);
  auto& out = driver_.output_queue(kOutputTopic);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].key, "ACME@2026-03-02");
  EXPECT_EQ(nlohmann::json::parse(*out[0].value), nlohmann::json::parse(R"({
      "min": 12.5, "max": 12.5, "open": 12.5, "close": 12.5,
      "open_time": 1772445600000, "close_time": 1772445600000, "trades": 1, "volume": 100,
      "moving_average": 12.5, "window": [{"timestamp": 1772445600000, "price": 12.5}]})"));
}

// The moving average per symbol over hopping windows: window label -> its latest average.
class StockMovingAverage : public StockStats {
 protected:
  StockMovingAverage()
      : averages_(
            driver_.create_output_topic<brook::Windowed<std::string>, std::optional<PriceAverage>>(
                kMovingAverageTopic, moving_average_key_serde())) {}

  std::map<std::string, PriceAverage> latest() {
    for (auto& r : averages_.read_key_values_to_list()) {
      EXPECT_EQ(r.key.window.end - r.key.window.start, kAverageWindowSize);
      table_[window_label(r.key)] = r.value.value();
    }
    return table_;
  }
  static PriceAverage average(std::initializer_list<double> prices) {
    PriceAverage a;
    for (double p : prices) a.add(p);
    return a;
  }

  brook::testing::TestOutputTopic<brook::Windowed<std::string>, std::optional<PriceAverage>>
      averages_;
  std::map<std::string, PriceAverage> table_;
};

TEST_F(StockMovingAverage, AveragesEachSymbolsPricesOverHourLongWindowsEveryTenMinutes) {
  EXPECT_EQ(window_label({"ACME", {brook::Timestamp(at(kMonday, 10h + 20min)), {}}}),
            "ACME@2026-03-02T10:20Z");
  trade("ACME", 10, 1, at(kMonday, 10h + 5min));
  trade("ACME", 20, 1, at(kMonday, 10h + 25min));
  trade("INIT", 99, 1, at(kMonday, 10h + 30min));
  trade("ACME", 30, 1, at(kMonday, 11h + 2min));
  const auto table = latest();
  // 10:05 is in the six windows starting 9:10 ... 10:00.
  EXPECT_EQ(table.at("ACME@2026-03-02T09:10Z"), average({10}));
  EXPECT_EQ(table.at("ACME@2026-03-02T09:30Z"), average({10, 20}));
  EXPECT_EQ(table.at("ACME@2026-03-02T10:00Z"), average({10, 20}));
  EXPECT_EQ(table.at("ACME@2026-03-02T10:10Z"), average({20, 30}));
  EXPECT_EQ(table.at("ACME@2026-03-02T11:00Z"), average({30}));
  EXPECT_EQ(table.at("INIT@2026-03-02T10:30Z"), average({99}));
  EXPECT_EQ(table.at("ACME@2026-03-02T10:10Z").average, 25);
  EXPECT_EQ(table.size(), 12u + 6);  // ACME: the windows starting 9:10 ... 11:00
}

// A late trade is dropped from each window that has closed, and counted once for each.
TEST_F(StockMovingAverage, ALateTradeUpdatesItsOpenWindowsAndIsDroppedFromTheClosedOnes) {
  trade("ACME", 10, 1, at(kMonday, 10h));
  trade("ACME", 20, 1, at(kMonday, 12h));          // stream time 12:00: 10:00-11:00 closes at 12:00
  trade("ACME", 40, 1, at(kMonday, 10h + 59min));  // only 10:00-11:00 has closed
  auto table = latest();
  EXPECT_EQ(table.at("ACME@2026-03-02T10:00Z"), average({10}));
  EXPECT_EQ(table.at("ACME@2026-03-02T10:10Z"), average({40}));
  EXPECT_EQ(driver_.metrics().total("dropped-records-total"), 1);
  trade("ACME", 50, 1, at(kMonday, 9h));  // all six windows of 9:00 have closed
  EXPECT_EQ(latest(), table);
  EXPECT_EQ(driver_.metrics().total("dropped-records-total"), 1 + 6);
}

TEST_F(StockMovingAverage, LeavesOutTradesNotKeyedByTheirSymbol) {
  trades_.pipe_input(std::nullopt, Trade{"ACME", 10, 1}, brook::Timestamp(at(kMonday, 10h)));
  trades_.pipe_input("BRKX", Trade{"ACME", 10, 1}, brook::Timestamp(at(kMonday, 10h)));
  EXPECT_TRUE(latest().empty());
  EXPECT_EQ(updates().size(), 2u);  // the day statistics count them
}

}  // namespace
}  // namespace stock_stats

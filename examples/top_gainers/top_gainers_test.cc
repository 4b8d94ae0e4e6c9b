#include "top_gainers.h"

#include <brook/testing/topology_test_driver.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

namespace top_gainers {
namespace {

using namespace std::chrono_literals;
using Key = std::optional<std::string>;
using stock_stats::Trade;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// 10:00 on Monday 2026-03-02 and on the Tuesday after, in ms since the epoch.
constexpr std::int64_t kMonday = 1'772'445'600'000;
constexpr std::int64_t kTuesday = kMonday + 86'400'000;
constexpr std::int64_t kHour = 3'600'000;

TEST(TopGainersRanking, LargestFirstEqualGainsBySymbolAtMostN) {
  const DayGains gains = {{"D", 1.5}, {"C", -2}, {"B", 3}, {"A", 1.5}};
  EXPECT_THAT(top(gains), ElementsAre(Gain{"B", 3}, Gain{"A", 1.5}, Gain{"D", 1.5}, Gain{"C", -2}));
  EXPECT_THAT(top(gains, 2), ElementsAre(Gain{"B", 3}, Gain{"A", 1.5}));
  EXPECT_TRUE(top({}).empty());
}

class TopGainers : public ::testing::Test {
 protected:
  TopGainers()
      : topology_(*build_topology()),
        driver_(topology_, {.application_id = "top"}),
        trades_(driver_.create_input_topic<Key, Trade>(kInputTopic)),
        top_(driver_.create_output_topic<std::string, std::optional<std::vector<Gain>>>(
            kOutputTopic)) {}

  void trade(const std::string& symbol, double price, std::int64_t timestamp) {
    trades_.pipe_input(symbol, Trade{symbol, price, 1}, brook::Timestamp(timestamp));
  }
  // Monday: A..K open at 100 at 10:00 and close at 101..111 at 11:00, so symbol number i
  // gains i percent: A is 11th, out of the top 10.
  void eleven_symbols() {
    for (char symbol = 'A'; symbol <= 'K'; ++symbol) trade({symbol}, 100, kMonday);
    for (char symbol = 'A'; symbol <= 'K'; ++symbol) {
      trade({symbol}, 100 + (symbol - 'A' + 1), kMonday + kHour);
    }
  }
  // Every update of the top 10 since the last call: (day, ranking).
  std::vector<brook::KeyValue<std::string, std::vector<Gain>>> updates() {
    std::vector<brook::KeyValue<std::string, std::vector<Gain>>> out;
    for (auto& kv : top_.read_key_values_to_list()) out.push_back({kv.key, kv.value.value()});
    return out;
  }

  // The phase-2 aggregate of `day`.
  DayGains day_gains(const std::string& day) {
    auto gains = driver_.timestamped_key_value_store<std::string, DayGains>("day-gains").get(day);
    return gains ? gains->value : DayGains{};
  }

  brook::Topology topology_;
  brook::testing::TopologyTestDriver driver_;
  brook::testing::TestInputTopic<Key, Trade> trades_;
  brook::testing::TestOutputTopic<std::string, std::optional<std::vector<Gain>>> top_;
};

// K..C: gains 11..3, in the top 10 throughout.
std::vector<Gain> k_to_c() {
  std::vector<Gain> out;
  for (char symbol = 'K'; symbol >= 'C'; --symbol) out.push_back({{symbol}, symbol - 'A' + 1.0});
  return out;
}
std::vector<Gain> with_first(Gain gain, std::vector<Gain> rest) {
  rest.insert(rest.begin(), std::move(gain));
  return rest;
}
std::vector<Gain> with_last(std::vector<Gain> rest, Gain gain) {
  rest.push_back(std::move(gain));
  return rest;
}

TEST_F(TopGainers, PhasesAreSubtopologiesJoinedByRepartitionTopics) {
  EXPECT_EQ(brook::internal::topology_data(topology_).subtopologies.size(), 3u);
  const std::string description = topology_.describe();
  EXPECT_THAT(description, HasSubstr("trades-by-symbol-day-repartition"));
  EXPECT_THAT(description, HasSubstr("gains-by-day-repartition"));
  trade("ACME", 10, kMonday);
  EXPECT_EQ(driver_.output_queue("top-gains-by-day-repartition").size(), 1u);
}

TEST_F(TopGainers, ASymbolMovesIntoAndOutOfTheTopTen) {
  eleven_symbols();
  auto setup = updates();
  ASSERT_EQ(setup.size(), 22u);  // one update of the day's ranking per trade
  EXPECT_EQ(setup.back().key, "2026-03-02");
  EXPECT_EQ(setup.back().value, with_last(k_to_c(), {"B", 2}));

  trade("A", 120, kMonday + 2 * kHour);  // A gains 20%: first; B drops out
  EXPECT_THAT(updates(), ElementsAre(brook::KeyValue<std::string, std::vector<Gain>>{
                             "2026-03-02", with_first({"A", 20}, k_to_c())}));
  trade("A", 100.5, kMonday + 3 * kHour);  // A gains 0.5%: out again; B is back
  EXPECT_EQ(updates().back().value, with_last(k_to_c(), {"B", 2}));
  trade("A", 50, kMonday - kHour);  // late: A opened at 50, so it gains 101%
  EXPECT_EQ(updates().back().value, with_first({"A", 101}, k_to_c()));

  // The aggregate holds every symbol's gain, so a symbol can come back exactly.
  const DayGains day = day_gains("2026-03-02");
  EXPECT_EQ(day.size(), 11u);
  EXPECT_EQ(day.at("B"), 2);
}

TEST_F(TopGainers, EachDayHasItsOwnRanking) {
  eleven_symbols();
  updates();
  trade("A", 100, kTuesday);
  trade("A", 90, kTuesday + kHour);
  trade("Z", 10, kTuesday);
  trade("Z", 11, kTuesday + kHour);
  const auto tuesday = updates();
  ASSERT_EQ(tuesday.size(), 4u);
  EXPECT_EQ(tuesday.back().key, "2026-03-03");
  EXPECT_THAT(tuesday.back().value, ElementsAre(Gain{"Z", 10}, Gain{"A", -10}));
  EXPECT_EQ(day_gains("2026-03-02").size(), 11u);
}

}  // namespace
}  // namespace top_gainers

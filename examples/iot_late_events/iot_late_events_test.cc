#include "iot_late_events.h"

#include <brook/testing/topology_test_driver.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

namespace iot_late_events {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using Key = brook::Windowed<std::string>;
using Update = brook::KeyValue<Key, std::optional<HourlyStats>>;

constexpr std::chrono::sys_days kDay = std::chrono::year(2026) / 11 / 2;

// ms since the epoch at `time` (UTC) on kDay.
constexpr std::int64_t at(std::chrono::milliseconds time) {
  return (std::chrono::sys_time<std::chrono::milliseconds>(kDay) + time).time_since_epoch().count();
}

// `device`'s hour starting at `start` (a time of day on kDay).
Key hour(const std::string& device, std::chrono::milliseconds start) {
  return {device, {brook::Timestamp(at(start)), brook::Timestamp(at(start + 1h))}};
}

// The statistics of `temperatures`, added in this order.
HourlyStats stats(std::initializer_list<double> temperatures) {
  HourlyStats s;
  for (double t : temperatures) s.add(t);
  return s;
}

class IotLateEvents : public ::testing::Test {
 protected:
  IotLateEvents()
      : topology_(*build_topology()),
        driver_(topology_, {.application_id = "iot"}),
        readings_(driver_.create_input_topic<std::string, Reading>(kInputTopic)),
        hourly_(driver_.create_output_topic<Key, std::optional<HourlyStats>>(kHourlyTopic,
                                                                             windowed_key_serde())),
        final_(driver_.create_output_topic<Key, std::optional<HourlyStats>>(
            kFinalTopic, windowed_key_serde())) {}

  // A reading of `device` taken at `taken_at` that arrives (log timestamp) at `arrival`.
  void reading(const std::string& device, std::int64_t taken_at, double temperature,
               std::int64_t arrival) {
    readings_.pipe_input(device, Reading{device, taken_at, temperature}, brook::Timestamp(arrival));
  }
  // A reading that arrives a second after it was taken.
  void reading(const std::string& device, std::int64_t taken_at, double temperature) {
    reading(device, taken_at, temperature, taken_at + 1'000);
  }
  std::int64_t dropped() const { return driver_.metrics().total("dropped-records-total"); }

  brook::Topology topology_;
  brook::testing::TopologyTestDriver driver_;
  brook::testing::TestInputTopic<std::string, Reading> readings_;
  brook::testing::TestOutputTopic<Key, std::optional<HourlyStats>> hourly_;
  brook::testing::TestOutputTopic<Key, std::optional<HourlyStats>> final_;
};

TEST_F(IotLateEvents, EventTimeIsWhenTheReadingWasTakenNotWhenItArrived) {
  // Taken at 10:55, arrived at 12:10: it belongs to the hour 10:00-11:00.
  reading("phone", at(10h + 55min), 21.5, at(12h + 10min));
  auto records = hourly_.read_records_to_list();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].key, hour("phone", 10h));
  EXPECT_EQ(records[0].value, stats({21.5}));
  EXPECT_EQ(records[0].timestamp, brook::Timestamp(at(10h + 55min)));
}

TEST_F(IotLateEvents, AReadingLateWithinTheGraceUpdatesItsHourWhichIsEmittedAgain) {
  reading("phone", at(10h + 5min), 20.0);
  reading("phone", at(10h + 20min), 21.0);
  reading("lab", at(12h + 50min), 18.0);  // the task's stream time: 12:50
  // The phone was offline: its 10:40 reading arrives more than 2 h late, within the 3 h grace.
  reading("phone", at(10h + 40min), 25.0, at(12h + 51min));
  EXPECT_THAT(hourly_.read_key_values_to_list(),
              ElementsAre(Update{hour("phone", 10h), stats({20.0})},
                          Update{hour("phone", 10h), stats({20.0, 21.0})},
                          Update{hour("lab", 12h), stats({18.0})},
                          Update{hour("phone", 10h), stats({20.0, 21.0, 25.0})}));
  const HourlyStats corrected = stats({20.0, 21.0, 25.0});
  EXPECT_EQ(corrected.count, 3);
  EXPECT_EQ(corrected.min, 20.0);
  EXPECT_EQ(corrected.max, 25.0);
  EXPECT_EQ(corrected.mean, 22.0);
  EXPECT_EQ(dropped(), 0);
}

TEST_F(IotLateEvents, ReadingsThreeWeeksOldAreDroppedAndCounted) {
  reading("switch", at(9h), 30.0);
  const std::int64_t three_weeks = std::chrono::milliseconds(std::chrono::weeks(3)).count();
  // Replayed from the switch's memory after a repair: far beyond the grace.
  reading("switch", at(9h) - three_weeks, 31.0, at(9h + 1min));
  reading("switch", at(9h + 10min) - three_weeks, 32.0, at(9h + 1min));
  EXPECT_THAT(hourly_.read_key_values_to_list(),
              ElementsAre(Update{hour("switch", 9h), stats({30.0})}));
  EXPECT_EQ(dropped(), 2);
  // A reading only just beyond the grace is dropped too: 8:00-9:00 closed at 12:00.
  reading("switch", at(12h), 29.0);
  reading("switch", at(8h + 59min), 28.0, at(12h + 1min));
  EXPECT_THAT(hourly_.read_key_values_to_list(),
              ElementsAre(Update{hour("switch", 12h), stats({29.0})}));
  EXPECT_EQ(dropped(), 3);
}

TEST_F(IotLateEvents, TheFinalTopicGetsEachHourOnceOnlyAfterItCloses) {
  reading("lab", at(10h + 5min), 18.0);
  reading("lab", at(10h + 50min), 19.0);
  reading("lab", at(11h + 10min), 20.0);
  reading("lab", at(14h) - 1, 21.0);               // 10:00-11:00 closes at 14:00: not yet
  reading("lab", at(10h + 30min), 17.0, at(14h));  // late, within the grace
  EXPECT_THAT(final_.read_key_values_to_list(), IsEmpty());
  reading("lab", at(14h), 22.0);  // stream time 14:00: 10:00-11:00 closes
  EXPECT_THAT(final_.read_key_values_to_list(),
              ElementsAre(Update{hour("lab", 10h), stats({18.0, 19.0, 17.0})}));
  reading("lab", at(15h) - 1, 23.0);  // 11:00-12:00 closes at 15:00: not yet
  EXPECT_THAT(final_.read_key_values_to_list(), IsEmpty());
  reading("lab", at(15h), 24.0);
  EXPECT_THAT(final_.read_key_values_to_list(),
              ElementsAre(Update{hour("lab", 11h), stats({20.0})}));
  reading("lab", at(17h), 25.0);  // 13:00-14:00 closes (12:00-13:00 had no reading)
  EXPECT_THAT(final_.read_key_values_to_list(),
              ElementsAre(Update{hour("lab", 13h), stats({21.0})}));
  // Every update went to sensor-hourly meanwhile: 10:00-11:00 three times.
  std::map<std::int64_t, int> versions;
  for (const auto& update : hourly_.read_key_values_to_list()) {
    ++versions[update.key.window.start.value()];
  }
  EXPECT_EQ(versions[at(10h)], 3);
  EXPECT_EQ(dropped(), 0);
}

TEST_F(IotLateEvents, WritesWindowedKeysAndJsonIntoNamedStores) {
  std::vector<std::string> stores;
  for (const auto& store : brook::internal::topology_data(topology_).stores)
    stores.push_back(store.name);
  EXPECT_THAT(stores, UnorderedElementsAre(kStoreName, std::string(kFinalName) + "-store"));
  EXPECT_EQ(brook::internal::topology_data(topology_).subtopologies.size(),
            1u);  // keyed by device: no repartition

  reading("lab", at(10h + 5min), 18.5);
  auto& out = driver_.output_queue(kHourlyTopic);
  ASSERT_EQ(out.size(), 1u);
  std::string key = "lab";
  const auto start = static_cast<std::uint64_t>(at(10h));
  for (int i = 7; i >= 0; --i) key.push_back(static_cast<char>((start >> (8 * i)) & 0xff));
  EXPECT_EQ(out[0].key, key);
  EXPECT_EQ(nlohmann::json::parse(*out[0].value),
            nlohmann::json::parse(R"({"count": 1, "min": 18.5, "max": 18.5, "sum": 18.5,
                                      "mean": 18.5})"));
  EXPECT_EQ(driver_.output_queue("iot-hourly-temperatures-changelog").size(), 1u);
  EXPECT_EQ(label(hour("lab", 10h)), "lab 2026-11-02T10:00Z");
}

}  // namespace
}  // namespace iot_late_events

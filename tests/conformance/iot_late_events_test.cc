// iot_late_events and its twin: the same hourly statistics, updates and final results, from
// readings that arrive late and out of order.
//
// Compared: describe(); sensor-hourly as a stream (the window store has no record cache, so
// every accepted reading sends exactly one update of its hour, and both applications take each
// partition's records in offset order: a task reads one partition of the one input topic; so the
// updates of each device's hour come in the same order, with the same timestamps, the largest
// event time of the hour so far, and headers, the last reading's); sensor-hourly-final as a
// stream (each closed hour once, when stream time reaches its end + the grace period); the
// changelog of the window store hourly-temperatures, the last value of each device's hour. The
// suppression buffer's changelog (hourly-final-store) is not compared: each library lays out its
// buffer in a format of its own (keys and values). Readings dropped as too late are counted in
// the metric dropped-records-total on both sides, which is not compared here.
//
// Input: seven runs of the demo's generator (tools/demo/demo_readings.h: a phone uploading
// 2 h of buffered readings, a switch replaying readings from 3 weeks ago, far beyond the grace)
// with their devices renamed apart, over the same day, ~11 000 readings, some with headers (one
// with a null value); then, on each partition, readings of two devices of their own at the edges:
// at a window's start and end, a millisecond before the end, equal event times, late readings
// when stream time is the window's end + grace - 1 (accepted) and end + grace (dropped), readings
// at the event time 0, negative ones (invalid: skipped), out-of-order bursts, readings equal to
// stream time. Event times lie in the last two days (deterministic up to whole days), none in
// the future.
//
// Two more tests pin documented differences: readings without a key (a device), and a reading
// late for an hour that closed before a restart.
#include "iot_late_events.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "brook/internal/partitioner.h"
#include "conformance.h"
#include "demo_readings.h"

namespace brook::testing {
namespace {

using iot_late_events::Reading;

constexpr std::int64_t kMinute = 60'000;
constexpr std::int64_t kHour = 60 * kMinute;
constexpr std::int64_t kIotDay = 24 * kHour;
constexpr std::int64_t kWindowEnd = iot_late_events::kWindowSize.count();  // of a window at 0
constexpr std::int64_t kGrace = iot_late_events::kGrace.count();
constexpr int kPartitions = 4;
constexpr int kDemoRuns = 7;
// The edge readings start 2 h after the demo's readings end; their event times end 11 h after
// it, arrivals a few seconds later: 12 h leaves room.
constexpr std::int64_t kScenarioStart = 2 * kHour;
constexpr std::int64_t kScenarioSpan = 12 * kHour;

const ExampleTopics kIotLateEvents{
    .name = "iot_late_events",
    .inputs = {{.name = iot_late_events::kInputTopic, .partitions = kPartitions}},
    // Not compacted (as the example's are): every update stays for the comparison.
    .outputs = {{.name = iot_late_events::kHourlyTopic, .partitions = kPartitions},
                {.name = iot_late_events::kFinalTopic, .partitions = kPartitions}},
    .stores = {iot_late_events::kStoreName},
};

// The end of the demo's readings: midnight (UTC) at most a day and a half ago, so that the
// scenarios after it end in the past, and within the changelogs' retention.
std::int64_t demo_end() {
  using namespace std::chrono;
  const std::int64_t now =
      duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  const std::int64_t latest = now - kScenarioSpan;
  return latest - latest % kIotDay;
}

// `reading` as the device's record (on the partition Kafka's producer gives its key), arrived
// at `arrival`.
ProducerRecord reading_record(const Reading& reading, std::int64_t arrival, Headers headers = {}) {
  return {.topic = iot_late_events::kInputTopic,
          .partition = internal::partition_for_key(reading.device, kPartitions),
          .timestamp = Timestamp(arrival),
          .key = reading.device,
          .value = nlohmann::json(reading).dump(),
          .headers = std::move(headers)};
}

// The demo's readings, run kDemoRuns times (seeds and ends apart, devices renamed "<id>.<run>"
// after the first run), in arrival order.
std::vector<ProducerRecord> demo_readings(std::int64_t end) {
  std::vector<std::pair<demo::DemoReading, std::int64_t>> all;  // and its sequence number
  for (int run = 0; run < kDemoRuns; ++run) {
    for (auto r : demo::generate_readings(static_cast<std::uint32_t>(1'000 + run),
                                          end - run * 41 * kMinute)) {
      if (run > 0) r.reading.device += fmt::format(".{}", run);
      all.emplace_back(std::move(r), static_cast<std::int64_t>(all.size()));
    }
  }
  // Each device's readings are in arrival order already: a stable order keeps them so.
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.first.arrival < b.first.arrival; });
  std::vector<ProducerRecord> out;
  for (const auto& [r, n] : all) {
    Headers headers;
    if (n % 9 == 0) headers.add("firmware", fmt::format("2.4.{}", n % 3));
    if (n % 97 == 0) headers.add("checked", std::nullopt);
    out.push_back(reading_record(r.reading, r.arrival, std::move(headers)));
  }
  return out;
}

// Two devices "edge-<n>" on each partition (partition -> their ids).
std::vector<std::pair<std::string, std::string>> edge_devices() {
  std::vector<std::vector<std::string>> found(kPartitions);
  for (int n = 0; std::any_of(found.begin(), found.end(), [](auto& f) { return f.size() < 2; });
       ++n) {
    std::string id = fmt::format("edge-{}", n);
    auto& devices = found[internal::partition_for_key(id, kPartitions).value()];
    if (devices.size() < 2) devices.push_back(std::move(id));
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& devices : found) out.emplace_back(devices[0], devices[1]);
  return out;
}

// Readings of one partition's two devices that come in the order of the calls, arriving after
// the last one and no earlier than a second after they were taken.
class Readings {
 public:
  Readings(std::vector<ProducerRecord>& out, std::int64_t arrival) : out_(out), arrival_(arrival) {}
  void add(const std::string& device, std::int64_t taken_at, double temperature,
           Headers headers = {}) {
    arrival_ = std::max(arrival_ + 1'000, taken_at + 1'000);
    out_.push_back(reading_record({device, taken_at, temperature}, arrival_, std::move(headers)));
  }
  // A reading without a key (its device "unknown") on `partition`.
  void add_without_key(int partition, std::int64_t taken_at, double temperature) {
    arrival_ = std::max(arrival_ + 1'000, taken_at + 1'000);
    out_.push_back({.topic = iot_late_events::kInputTopic,
                    .partition = Partition(partition),
                    .timestamp = Timestamp(arrival_),
                    .value = nlohmann::json(Reading{"unknown", taken_at, temperature}).dump()});
  }

 private:
  std::vector<ProducerRecord>& out_;
  std::int64_t arrival_;
};

// The readings at the edges of windows and of the grace period, on `partition` with its devices
// d and e, from `base` (an hour's start, after every earlier reading of the partition: stream
// time is the largest event time read so far). W is d's and e's hour [base, base + 1 h).
void edge_readings(int partition, const std::string& d, const std::string& e, std::int64_t base,
                   std::vector<ProducerRecord>& out) {
  Readings readings(out, base);
  const double t = 20.0 + partition;  // temperatures of this partition's devices
  const std::int64_t end = base + kWindowEnd;
  readings.add(d, base + 10 * kMinute, t + 0.1);  // stream time base + 10 min
  readings.add(d, base, t + 0.2);                 // at W's start
  // Equal event times, of one device and of two.
  readings.add(e, base + 30 * kMinute, t + 0.3);
  readings.add(d, base + 30 * kMinute, t + 0.4, {{"firmware", "3.0"}});
  readings.add(d, base + 30 * kMinute, t + 0.5);
  readings.add(d, base + 30 * kMinute, t + 0.6);
  readings.add(d, end, t + 0.7);      // at W's end: the next hour's; stream time W's end
  readings.add(d, end - 1, t + 0.8);  // W's last millisecond, out of order
  // Stream time W's end + grace - 1: W is still open, a reading 3 h 15 min late updates it.
  readings.add(e, end + kGrace - 1, t + 0.9);
  readings.add(d, base + 45 * kMinute, t + 1.0, {{"late", "3h15m"}});
  readings.add(d, base + 5 * kMinute, t + 1.1);
  // Stream time W's end + grace: W closes (its final results go out), its readings are dropped.
  readings.add(e, end + kGrace, t + 1.2);
  readings.add(d, base + 50 * kMinute, t + 1.3, {{"late", "dropped"}});
  readings.add(d, end - 1, t + 1.4);
  readings.add(e, base + 30 * kMinute, t + 1.5);
  readings.add(d, end, t + 1.5);  // the next hour is still open
  readings.add(d, end + 10 * kMinute, t + 1.6);
  // Far too late: three weeks, a day; the event time 0 (valid, and late); negative event times
  // (invalid: skipped).
  readings.add(d, base - 21 * kIotDay, t + 1.7);
  readings.add(e, base - kIotDay, t + 1.8);
  readings.add(d, 0, t + 1.9);
  readings.add(d, -5, t + 2.0);
  readings.add(e, -1, t + 2.1);
  // Out of order: 40 readings within [base + 2 h, base + 5 h), all in open hours, shuffled,
  // some at equal times.
  std::mt19937 random(static_cast<std::uint32_t>(77 + partition));
  std::vector<std::pair<const std::string*, std::int64_t>> burst;
  for (int i = 0; i < 40; ++i) {
    const std::int64_t at = base + 2 * kHour + static_cast<std::int64_t>(random() % 180) * kMinute;
    burst.emplace_back(i % 3 == 0 ? &e : &d, at);
  }
  std::shuffle(burst.begin(), burst.end(), random);
  for (std::size_t i = 0; i < burst.size(); ++i) {
    readings.add(*burst[i].first, burst[i].second, t + 0.1 * static_cast<double>(i % 17));
  }
  // The grace boundary of the hour [base + 2 h, base + 3 h), whose end + grace is base + 6 h.
  readings.add(e, base + 6 * kHour - 1, t + 2.2);
  readings.add(d, base + 2 * kHour + 15 * kMinute, t + 2.3);  // accepted
  readings.add(e, base + 6 * kHour, t + 2.4);
  readings.add(d, base + 2 * kHour + 30 * kMinute, t + 2.5);  // dropped
  // Stream time base + 9 h closes every hour up to base + 6 h; a reading at stream time itself.
  readings.add(e, base + 9 * kHour, t + 2.6);
  readings.add(d, base + 9 * kHour, t + 2.7);
}

// The demo's readings, then the edge readings on every partition.
std::vector<ProducerRecord> readings() {
  const std::int64_t end = demo_end();
  std::vector<ProducerRecord> out = demo_readings(end);
  const auto devices = edge_devices();
  for (int p = 0; p < kPartitions; ++p) {
    edge_readings(p, devices[p].first, devices[p].second, end + kScenarioStart, out);
  }
  return out;
}

TEST_F(ConformanceTest, IotLateEventsUpdatesAndClosesHoursAsKafkaStreams) {
  create_topics(kIotLateEvents);
  const auto input = readings();
  ASSERT_GE(input.size(), 10'000u);
  produce(input);
  const auto [brook, twin] = run_both(kIotLateEvents);
  expect_same_dropped_records(kIotLateEvents, brook, twin);
  expect_same_description(kIotLateEvents, brook, twin);
  expect_same_stream(kIotLateEvents, iot_late_events::kHourlyTopic, brook, twin,
                     ValueFormat::kJson);
  expect_same_stream(kIotLateEvents, iot_late_events::kFinalTopic, brook, twin, ValueFormat::kJson);
  expect_same_changelog(kIotLateEvents, iot_late_events::kStoreName, brook, twin,
                        ValueFormat::kJson);
}

// "<device>@<window start>" -> the readings' count of each hour in `run`'s `topic` (keys:
// [device][8-byte window start]).
std::map<std::string, int> counts(const AppRun& run, const std::string& topic) {
  std::map<std::string, int> out;
  for (const auto& [key, value] : last_values(run.outputs.at(topic), ValueFormat::kJson)) {
    std::uint64_t start = 0;
    for (std::size_t i = key.size() - 8; i < key.size(); ++i) {
      start = start << 8 | static_cast<unsigned char>(key[i]);
    }
    out[fmt::format("{}@{}", key.substr(0, key.size() - 8), start)] =
        nlohmann::json::parse(value).at("count").get<int>();
  }
  return out;
}

// docs/compatibility.md#a-null-key-read-as-a-key-type-without-null: readings without a key,
// among a device's. Kafka Streams drops them before its windowed aggregation; Brook reads the
// null key as the device "" (the example's key type is std::string) and counts them there. The
// reading without a key at W's end + grace then closes W in Brook: the device's reading at
// 30 min that follows is too late for it, where Kafka Streams counts it.
TEST_F(ConformanceTest, IotLateEventsCountsReadingsWithoutAKeyUnderTheEmptyKey) {
  create_topics(kIotLateEvents);
  const std::int64_t base = demo_end() + kScenarioStart;
  const std::int64_t end = base + kWindowEnd;
  std::vector<ProducerRecord> input;
  const auto devices = edge_devices();
  for (int p = 0; p < kPartitions; ++p) {
    Readings readings(input, base);
    const std::string& d = devices[p].first;
    const double t = 10.0 + p;
    readings.add(d, base + 10 * kMinute, t + 0.1);
    readings.add(d, base + 20 * kMinute, t + 0.2);
    readings.add_without_key(p, end + kGrace, t + 0.3);
    readings.add(d, base + 30 * kMinute, t + 0.4);  // in W, within its grace for d's time
    readings.add_without_key(p, base + 30 * kMinute, t + 0.5);
    readings.add_without_key(p, base - 21 * kIotDay, t + 0.6);
    readings.add(d, end + kGrace + kHour, t + 0.7);  // W closes
    readings.add(d, end + kGrace + kHour + kMinute, t + 0.8);
  }
  produce(input);
  const auto [brook, twin] = run_both(kIotLateEvents);
  const auto ours = counts(brook, iot_late_events::kFinalTopic);
  const auto theirs = counts(twin, iot_late_events::kFinalTopic);
  for (const auto& [d, e] : devices) {
    const std::string w = fmt::format("{}@{}", d, base);
    EXPECT_EQ(theirs.at(w), 3) << w;
    EXPECT_EQ(ours.at(w), 2) << w;
  }
  // The hour at end + grace of the device "": one reading in each partition's task (the other
  // readings without a key are too late), so every update of it counts one.
  const std::string empty = fmt::format("@{}", end + kGrace);
  EXPECT_EQ(counts(brook, iot_late_events::kHourlyTopic).at(empty), 1);
  for (const auto& [window, count] : counts(twin, iot_late_events::kHourlyTopic)) {
    EXPECT_FALSE(window.starts_with("@")) << window;
  }
  report_documented("iot_late_events", "readings without a key",
                    "a-null-key-read-as-a-key-type-without-null");
}

// docs/compatibility.md#windows-close-by-the-tasks-stream-time: after a restart, Brook judges a
// late reading against the stream time it had (restored with the committed offsets), Kafka
// Streams' windowed aggregation against the time it has seen since (none): an hour that closed
// before the restart takes a late reading in Kafka Streams, not in Brook. Its final result, sent
// before the restart, is the same in both.
TEST_F(ConformanceTest, IotLateEventsClosedHoursStayClosedAfterARestart) {
  create_topics(kIotLateEvents);
  const std::int64_t base = demo_end() + kScenarioStart;
  const std::int64_t end = base + kWindowEnd;
  const auto devices = edge_devices();
  std::vector<ProducerRecord> before;
  std::vector<ProducerRecord> after;
  std::int64_t arrival = base;
  for (int p = 0; p < kPartitions; ++p) {
    const std::string& d = devices[p].first;
    Readings readings(before, base);
    readings.add(d, base + 10 * kMinute, 20.0 + p);
    readings.add(d, base + 20 * kMinute, 21.0 + p);
    readings.add(d, end + kGrace + kHour, 22.0 + p);  // the hour at base closes
    arrival = std::max(arrival, before.back().timestamp.value());
  }
  for (int p = 0; p < kPartitions; ++p) {
    Readings late(after, arrival);
    late.add(devices[p].first, base + 30 * kMinute, 30.0 + p);  // late for the closed hour
  }
  produce(before);
  const auto [brook, twin] = run_both_with_restart(kIotLateEvents, [&] { produce(after); });
  expect_same_description(kIotLateEvents, brook, twin);
  const auto brook_hourly = counts(brook, iot_late_events::kHourlyTopic);
  const auto twin_hourly = counts(twin, iot_late_events::kHourlyTopic);
  for (const auto& [d, e] : devices) {
    const std::string hour = fmt::format("{}@{}", d, base);
    EXPECT_EQ(brook_hourly.at(hour), 2) << hour;
    EXPECT_EQ(twin_hourly.at(hour), 3) << hour;
  }
  expect_same_stream(kIotLateEvents, iot_late_events::kFinalTopic, brook, twin, ValueFormat::kJson);
  EXPECT_EQ(brook.dropped_records, kPartitions);  // after the restart: the late readings
  EXPECT_EQ(twin.dropped_records, 0);
  report_documented("iot_late_events", "late readings after a restart",
                    "windows-close-by-the-tasks-stream-time");
}

}  // namespace
}  // namespace brook::testing

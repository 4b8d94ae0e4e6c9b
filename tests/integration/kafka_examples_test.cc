// Every example program on the shared Kafka broker (tests/kafka_cluster.h) produces what it
// produces on the embedded log, from the same input: each runs as a real process with
// --bootstrap-servers and --until-idle, and once more with --data-dir.
//
// The examples' topic names are fixed in their topologies, so each test deletes and recreates
// its topics on the broker and deletes them at the end; tests of different examples use
// different topics (stock_stats and top_gainers share theirs, so they are one test). Inputs
// and expected results of the demo's examples come from the demo's own generators. The
// application id is unique per run (--application-id): the consumer group and the internal
// topics never collide with another run's.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "backend/embedded/embedded_log.h"
#include "backend/kafka/kafka_backend.h"
#include "demo_joins.h"
#include "demo_readings.h"
#include "demo_trades.h"
#include "iot_late_events.h"
#include "json_to_avro.h"
#include "kafka_cluster.h"
#include "kafka_tools.h"
#include "log_router.h"
#include "run_process.h"
#include "scratch_dir.h"
#include "stock_stats.h"
#include "top_gainers.h"
#include "topic_reader.h"

namespace brook::testing {
namespace {

using internal::NewTopic;

// A record as the examples' outputs are compared: key and value.
struct KeyValue {
  std::optional<std::string> key;
  std::optional<std::string> value;
  friend bool operator==(const KeyValue&, const KeyValue&) = default;
  friend std::ostream& operator<<(std::ostream& out, const KeyValue& kv) {
    return out << kv.key.value_or("null") << " -> " << kv.value.value_or("null");
  }
};

// Partition -> its records in offset order.
using PartitionedRecords = std::map<int, std::vector<KeyValue>>;
// Key -> its latest value: what a compacted topic stands for.
using Table = std::map<std::string, std::string>;

class KafkaExamplesTest : public KafkaFixture {
 protected:
  void SetUp() override {
    KafkaFixture::SetUp();
    if (HasFatalFailure()) return;
    std::filesystem::create_directories(io_.path());
  }

  void TearDown() override {
    if (!kafka_) return;
    for (const auto& topic : topics_) (void)kafka_->admin().delete_topic(topic.name);
    auto all = kafka_->admin().list_topics();
    if (!all) return;
    for (const auto& name : *all) {  // the internal topics of this run's applications
      if (name.starts_with(application_prefix_)) (void)kafka_->admin().delete_topic(name);
    }
  }

  // Creates `topics` on the embedded log and, anew and empty, on the broker. Kept forever:
  // the examples' event times are long past Kafka's default retention of 7 days.
  void create_topics(std::vector<NewTopic> topics) {
    topics_ = std::move(topics);
    for (auto& topic : topics_) topic.configs.emplace("retention.ms", "-1");
    with_embedded([&](internal::LogBackend& log) {
      for (const auto& topic : topics_) ASSERT_TRUE(log.admin().create_topic(topic).ok());
    });
    create_topics_anew(*kafka_, topics_);
  }

  // Opens the embedded log (no example may be running on it), runs `fn` on it, closes it.
  template <class Fn>
  void with_embedded(Fn fn) {
    auto log = internal::open_embedded_log(
        {.data_dir = data_dir_.path(), .maintenance_interval = std::chrono::milliseconds(0)});
    ASSERT_TRUE(log) << log.error().to_string();
    fn(**log);
  }

  // Sends `records` through a producer of `log`.
  static void send(internal::LogBackend& log, const std::vector<ProducerRecord>& records) {
    auto producer = log.make_producer({.client_id = "test-input"});
    ASSERT_TRUE(producer) << producer.error().to_string();
    for (const auto& record : records) ASSERT_TRUE((*producer)->send(record).ok());
    ASSERT_TRUE((*producer)->flush().ok());
  }

  // Writes `records` to the embedded log and to the broker.
  void produce_to_both(const std::vector<ProducerRecord>& records) {
    with_embedded([&](internal::LogBackend& log) { send(log, records); });
    send(*kafka_, records);
  }

  // Runs the example program `name` with `flags` until it is idle; expects exit code 0.
  // Returns what it printed on stdout.
  std::string run_example(const std::string& name, std::vector<std::string> flags) {
    flags.insert(flags.begin(), fmt::format("{}/{}/{}", BROOK_EXAMPLES_DIR, name, name));
    flags.push_back("--until-idle");
    const auto r = run_process(flags, "", io_.path());
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    return r.out;
  }

  // Runs `name` on the embedded log, then on the broker as application `<id>-<name>` with
  // `kafka_flags` (e.g. --exactly-once). Returns what each run printed on stdout.
  std::pair<std::string, std::string> run_on_both(const std::string& name,
                                                  std::vector<std::string> kafka_flags = {}) {
    std::string embedded = run_example(name, {"--data-dir", data_dir_.path().string()});
    kafka_flags.insert(kafka_flags.end(), {"--bootstrap-servers", bootstrap_, "--state-dir",
                                           (data_dir_.path() / "kafka-state").string(),
                                           "--application-id", application_prefix_ + name});
    return {std::move(embedded), run_example(name, kafka_flags)};
  }

  static PartitionedRecords records_of(internal::LogBackend& log, const std::string& topic) {
    PartitionedRecords out;
    for (const auto& [partition, records] : read_topic(log, topic)) {
      auto& list = out[partition];
      for (const auto& r : records) list.push_back({r.key, r.value});
    }
    return out;
  }

  // `topic` on the embedded log and on the broker.
  std::pair<PartitionedRecords, PartitionedRecords> outputs(const std::string& topic) {
    PartitionedRecords embedded;
    with_embedded([&](internal::LogBackend& log) { embedded = records_of(log, topic); });
    return {embedded, records_of(*kafka_, topic)};
  }

  static Table table_of(const PartitionedRecords& records) {
    Table table;
    for (const auto& [partition, list] : records) {
      for (const auto& r : list) {
        if (r.value) {
          table.insert_or_assign(r.key.value_or(""), *r.value);
        } else {
          table.erase(r.key.value_or(""));
        }
      }
    }
    return table;
  }

  // The keys on which `kafka` and `embedded` differ, with both values: empty if they are equal.
  static std::string differences(const Table& kafka, const Table& embedded) {
    std::string out;
    std::set<std::string> keys;
    for (const auto* table : {&kafka, &embedded}) {
      for (const auto& [key, value] : *table) keys.insert(key);
    }
    auto at = [](const Table& table, const std::string& key) {
      auto it = table.find(key);
      return it == table.end() ? std::string("nothing") : it->second;
    };
    for (const auto& key : keys) {
      if (at(kafka, key) == at(embedded, key)) continue;
      out += key + ": Kafka " + at(kafka, key) + ", embedded log " + at(embedded, key) + "\n";
    }
    return out;
  }

  static std::size_t count(const PartitionedRecords& records) {
    std::size_t n = 0;
    for (const auto& [partition, list] : records) n += list.size();
    return n;
  }

  ScratchDir data_dir_{"brook-kafka-examples"};
  ScratchDir io_{"brook-kafka-examples-io"};
  const std::string application_prefix_ = unique_name("examples") + "-";
  std::vector<NewTopic> topics_;
};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// log lines "TS LEVEL TEXT" from six hosts, a tenth of them ERROR.
std::vector<ProducerRecord> log_lines(int count) {
  const char* hosts[] = {"web-1", "web-2", "web-3", "web-4", "db-1", "db-2"};
  const char* levels[] = {"INFO", "INFO", "WARN", "INFO", "INFO",
                          "INFO", "INFO", "INFO", "INFO", "ERROR"};
  std::mt19937 random(7);
  std::vector<ProducerRecord> records;
  for (int i = 0; i < count; ++i) {
    records.push_back({.topic = log_router::kInputTopic,
                       .timestamp = Timestamp(1'000 + i),
                       .key = hosts[random() % 6],
                       .value = fmt::format("{} {} request {} took {} ms", 1'000 + i,
                                            levels[random() % 10], i, random() % 500)});
  }
  return records;
}

// log_router on Kafka, its input written by kcat and its output read by kcat, against
// log_router on the embedded log.
TEST_F(KafkaExamplesTest, LogRouterRoutesKcatsInputAsOnTheEmbeddedLog) {
  create_topics({{log_router::kInputTopic, 4},
                 {log_router::kHighPriorityTopic, 4},
                 {log_router::kLowPriorityTopic, 4}});
  const auto input = log_lines(400);
  with_embedded([&](internal::LogBackend& log) { send(log, input); });
  std::string kcat_input;
  for (const auto& r : input) kcat_input += *r.key + ":" + *r.value + "\n";
  const auto kcat =
      run_process(kcat_producer(bootstrap_, log_router::kInputTopic), kcat_input, io_.path());
  ASSERT_EQ(kcat.exit_code, 0) << kcat.err;

  run_on_both("log_router");

  std::size_t routed = 0;
  for (const char* topic : {log_router::kHighPriorityTopic, log_router::kLowPriorityTopic}) {
    const auto [embedded, kafka] = outputs(topic);
    EXPECT_EQ(kafka, embedded) << topic;
    routed += count(kafka);

    const auto read = run_process(kcat_consumer(bootstrap_, topic), "", io_.path());
    ASSERT_EQ(read.exit_code, 0) << read.err;
    std::vector<std::string> expected;
    for (const auto& [partition, list] : embedded) {
      for (const auto& r : list)
        expected.push_back(fmt::format("{}:{}:{}", *r.key, *r.value, partition));
    }
    std::vector<std::string> lines;
    std::istringstream in(read.out);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    EXPECT_THAT(lines, ::testing::UnorderedElementsAreArray(expected)) << topic;
  }
  EXPECT_EQ(routed, input.size());
}

// Trades as JSON, a few malformed (truncated) or outside the Avro schema (side HOLD).
std::vector<ProducerRecord> json_trades(int count) {
  const char* symbols[] = {"ACME", "INIT", "GLOBX", "BRKX", "ZETA"};
  std::mt19937 random(11);
  std::vector<ProducerRecord> records;
  for (int i = 0; i < count; ++i) {
    const int roll = static_cast<int>(random() % 40);
    const char* side = roll == 0 ? "HOLD" : (random() % 2 ? "BUY" : "SELL");
    std::string json =
        fmt::format(R"({{"symbol": "{}", "side": "{}", "price": {:.2f}, "volume": {}, "ts": {}}})",
                    symbols[i % 5], side, 10.0 + random() % 1000 / 10.0, random() % 50 * 10, i);
    if (roll == 1) json.resize(json.size() / 2);
    records.push_back({.topic = json_to_avro::kInputTopic,
                       .timestamp = Timestamp(1'000 + i),
                       .key = symbols[i % 5],
                       .value = std::move(json)});
  }
  return records;
}

TEST_F(KafkaExamplesTest, JsonToAvroConvertsAndDeadLettersAsOnTheEmbeddedLog) {
  create_topics({{json_to_avro::kInputTopic, 4},
                 {json_to_avro::kOutputTopic, 4},
                 {json_to_avro::kDeadLetterTopic, 1}});
  const auto input = json_trades(300);
  produce_to_both(input);

  run_on_both("json_to_avro");

  const auto [avro_embedded, avro_kafka] = outputs(json_to_avro::kOutputTopic);
  auto [dead_embedded, dead_kafka] = outputs(json_to_avro::kDeadLetterTopic);
  EXPECT_EQ(avro_kafka, avro_embedded);
  // The dead letters of all input partitions share one partition: their order there depends
  // on how the tasks interleave, on either log.
  for (auto* records : {&dead_embedded, &dead_kafka}) {
    for (auto& [partition, list] : *records) {
      std::sort(list.begin(), list.end(), [](const KeyValue& a, const KeyValue& b) {
        return std::tie(a.key, a.value) < std::tie(b.key, b.value);
      });
    }
  }
  EXPECT_EQ(dead_kafka, dead_embedded);
  EXPECT_GT(count(dead_kafka), 0u);  // the bad trades are there to be compared
  EXPECT_EQ(count(avro_kafka) + count(dead_kafka), input.size());
}

// stock_stats (day statistics and moving averages) and top_gainers (the stateful examples,
// exactly-once on Kafka) end with the tables they end with on the embedded log, which are the
// recomputation from the trades.
TEST_F(KafkaExamplesTest, StockStatsAndTopGainersEndWithTheEmbeddedLogsTables) {
  const std::map<std::string, std::string> compacted = {{"cleanup.policy", "compact"}};
  create_topics({{stock_stats::kInputTopic, 4},
                 {stock_stats::kOutputTopic, 4, compacted},
                 {stock_stats::kMovingAverageTopic, 4, compacted},
                 {top_gainers::kOutputTopic, 1, compacted}});
  const auto trades = demo::generate_trades(42, 900);
  std::vector<ProducerRecord> input;
  for (const auto& t : trades) {
    input.push_back({.topic = stock_stats::kInputTopic,
                     .timestamp = Timestamp(t.timestamp),
                     .key = t.trade.symbol,
                     .value = nlohmann::json(t.trade).dump()});
  }
  produce_to_both(input);

  run_on_both("stock_stats", {"--exactly-once"});
  run_on_both("top_gainers", {"--exactly-once"});

  const auto day_stats = demo::recompute_day_stats(trades);
  const auto [stats_embedded, stats_kafka] = outputs(stock_stats::kOutputTopic);
  const Table stats = table_of(stats_kafka);
  EXPECT_EQ(stats, table_of(stats_embedded));
  EXPECT_EQ(stats.size(), day_stats.size());
  for (const auto& [key, json] : stats) {
    EXPECT_EQ(nlohmann::json::parse(json).get<stock_stats::DayStats>(), day_stats.at(key)) << key;
  }

  const auto averages = demo::recompute_moving_averages(trades);
  const auto [averages_embedded, averages_kafka] = outputs(stock_stats::kMovingAverageTopic);
  const Table average_table = table_of(averages_kafka);
  EXPECT_EQ(average_table, table_of(averages_embedded));
  EXPECT_EQ(average_table.size(), averages.size());
  const auto window_serde = stock_stats::moving_average_key_serde();
  for (const auto& [key, json] : average_table) {
    auto window = window_serde->deserialize(key);
    ASSERT_TRUE(window) << window.error().to_string();
    const std::string label = stock_stats::window_label(*window);
    ASSERT_TRUE(averages.contains(label)) << label;
    EXPECT_EQ(nlohmann::json::parse(json).get<stock_stats::PriceAverage>(), averages.at(label))
        << label;
  }

  const auto top = demo::recompute_top_gainers(day_stats);
  const auto [top_embedded, top_kafka] = outputs(top_gainers::kOutputTopic);
  const Table gainers = table_of(top_kafka);
  EXPECT_EQ(gainers, table_of(top_embedded));
  EXPECT_EQ(gainers.size(), top.size());
  for (const auto& [day, json] : gainers) {
    EXPECT_EQ(nlohmann::json::parse(json).get<std::vector<top_gainers::Gain>>(), top.at(day))
        << day;
  }
}

// iot_late_events (exactly-once on Kafka): the demo's readings, a phone's sent 2 h late and a
// switch's from 3 weeks ago, end with the same hourly tables on both logs, which are the
// recomputation from the readings; the old readings are dropped on both.
TEST_F(KafkaExamplesTest, IotLateEventsEndsWithTheEmbeddedLogsTables) {
  const std::map<std::string, std::string> compacted = {{"cleanup.policy", "compact"}};
  constexpr int kPartitions = 4;
  create_topics({{iot_late_events::kInputTopic, kPartitions},
                 {iot_late_events::kHourlyTopic, 4, compacted},
                 {iot_late_events::kFinalTopic, 4, compacted}});
  const auto readings = demo::generate_readings(42, now_ms() / 60'000 * 60'000);
  std::vector<ProducerRecord> input;
  for (const auto& r : readings) {
    input.push_back({.topic = iot_late_events::kInputTopic,
                     .timestamp = Timestamp(r.arrival),
                     .key = r.reading.device,
                     .value = nlohmann::json(r.reading).dump()});
  }
  produce_to_both(input);

  const auto [embedded_out, kafka_out] = run_on_both("iot_late_events", {"--exactly-once"});
  const std::string dropped = fmt::format("{} readings dropped", demo::kReplayedReadings);
  EXPECT_THAT(embedded_out, ::testing::HasSubstr(dropped));
  EXPECT_THAT(kafka_out, ::testing::HasSubstr(dropped));

  const auto key_serde = iot_late_events::windowed_key_serde();
  // A table of windowed keys as (device, window start) -> HourlyStats.
  auto decoded = [&](const Table& table) {
    std::map<demo::DeviceHour, iot_late_events::HourlyStats> out;
    for (const auto& [key, json] : table) {
      auto windowed = key_serde->deserialize(key);
      EXPECT_TRUE(windowed) << windowed.error().to_string();
      if (!windowed) continue;
      out.emplace(demo::DeviceHour{windowed->key, windowed->window.start.value()},
                  nlohmann::json::parse(json).get<iot_late_events::HourlyStats>());
    }
    return out;
  };
  const auto hourly = demo::recompute_hourly(readings);
  const auto [hourly_embedded, hourly_kafka] = outputs(iot_late_events::kHourlyTopic);
  EXPECT_EQ(table_of(hourly_kafka), table_of(hourly_embedded));
  EXPECT_EQ(decoded(table_of(hourly_kafka)), hourly);

  const auto closed = demo::closed_hours(readings, hourly, kPartitions);
  const auto [final_embedded, final_kafka] = outputs(iot_late_events::kFinalTopic);
  EXPECT_EQ(table_of(final_kafka), table_of(final_embedded));
  EXPECT_EQ(decoded(table_of(final_kafka)), closed);
  EXPECT_EQ(count(final_kafka), closed.size());  // each closed hour once
  EXPECT_EQ(count(final_embedded), closed.size());
}

// click_enrichment (exactly-once on Kafka) in the demo's phases, the application run after each:
// profiles, clicks, profile updates, more clicks. Every click comes out as on the embedded log,
// partition by partition, enriched with the profile its user had when it was written: the
// updates change the second batch only.
TEST_F(KafkaExamplesTest, ClickEnrichmentEnrichesClicksAsOnTheEmbeddedLogPhaseByPhase) {
  create_topics({{click_enrichment::kClicksTopic, 4},
                 {click_enrichment::kProfilesTopic, 4, {{"cleanup.policy", "compact"}}},
                 {click_enrichment::kOutputTopic, 4}});
  const std::int64_t start = now_ms() - 100'000;
  for (int phase = 0; phase < demo::kClickPhases; ++phase) {
    produce_to_both(demo::click_phase(phase, start));
    run_on_both("click_enrichment", {"--exactly-once"});
  }

  const auto [embedded, kafka] = outputs(click_enrichment::kOutputTopic);
  EXPECT_EQ(kafka, embedded);
  const JsonSerde<click_enrichment::EnrichedClick> serde;
  demo::EnrichedClicks clicks;  // by page
  for (const auto& [partition, list] : kafka) {
    for (const auto& r : list) {
      auto click = serde.deserialize(r.value.value_or(""));
      ASSERT_TRUE(click) << click.error().to_string();
      EXPECT_TRUE(clicks.emplace(click->page, std::pair{r.key.value_or(""), *click}).second)
          << click->page << " twice";
    }
  }
  EXPECT_EQ(clicks, demo::expected_enriched_clicks());
}

// orders_customers (a foreign-key join of tables on topics of 4 and 3 partitions, exactly-once
// on Kafka) ends with the table it ends with on the embedded log, which is the join of the
// latest orders and customers.
TEST_F(KafkaExamplesTest, OrdersCustomersEndsWithTheEmbeddedLogsTable) {
  const std::map<std::string, std::string> compacted = {{"cleanup.policy", "compact"}};
  create_topics({{orders_customers::kOrdersTopic, 4, compacted},
                 {orders_customers::kCustomersTopic, 3, compacted},
                 {orders_customers::kOutputTopic, 4, compacted}});
  produce_to_both(demo::orders_and_customers(now_ms() - 10'000));

  run_on_both("orders_customers", {"--exactly-once"});

  const auto [embedded, kafka] = outputs(orders_customers::kOutputTopic);
  const Table table = table_of(kafka);
  EXPECT_EQ(differences(table, table_of(embedded)), "");
  const JsonSerde<orders_customers::EnrichedOrder> serde;
  std::map<std::string, orders_customers::EnrichedOrder> orders;
  for (const auto& [id, json] : table) {
    auto order = serde.deserialize(json);
    ASSERT_TRUE(order) << order.error().to_string();
    orders.emplace(id, *order);
  }
  EXPECT_EQ(orders, demo::expected_enriched_orders());
}

// search_clicks (a windowed stream-stream join, then a count per query, exactly-once on Kafka)
// ends with the table it ends with on the embedded log, which is the recomputation from the
// searches and clicks.
TEST_F(KafkaExamplesTest, SearchClicksEndsWithTheEmbeddedLogsTable) {
  create_topics({{search_clicks::kSearchTopic, 4},
                 {search_clicks::kClickTopic, 4},
                 {search_clicks::kOutputTopic, 4, {{"cleanup.policy", "compact"}}}});
  const auto data = demo::generate_search_clicks(42);
  produce_to_both(demo::search_click_records(data));

  run_on_both("search_clicks", {"--exactly-once"});

  const auto [embedded, kafka] = outputs(search_clicks::kOutputTopic);
  const Table table = table_of(kafka);
  EXPECT_EQ(table, table_of(embedded));
  const JsonSerde<search_clicks::TopResult> serde;
  std::map<std::string, search_clicks::TopResult> top;
  for (const auto& [query, json] : table) {
    auto result = serde.deserialize(json);
    ASSERT_TRUE(result) << result.error().to_string();
    top.emplace(query, *result);
  }
  EXPECT_EQ(top, search_clicks::recompute(data.searches, data.clicks));
  EXPECT_FALSE(top.empty());
}

}  // namespace
}  // namespace brook::testing

#include "demo.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "app_runner.h"
#include "backend/embedded/embedded_log.h"
#include "click_enrichment.h"
#include "core/wall_clock.h"
#include "demo_joins.h"
#include "demo_readings.h"
#include "demo_trades.h"
#include "iot_late_events.h"
#include "json_to_avro.h"
#include "log_router.h"
#include "orders_customers.h"
#include "search_clicks.h"
#include "stock_stats.h"
#include "top_gainers.h"

namespace brook::demo {
namespace {

using internal::EmbeddedLog;
using Clock = std::chrono::steady_clock;

constexpr int kLogLines = 20'000;
constexpr int kTrades = 10'000;
constexpr int kStockTrades = 6'000;
constexpr std::uint32_t kSeed = 42;
constexpr int kReadingPartitions = 4;

Status create_topics(EmbeddedLog& log) {
  const std::map<std::string, std::string> compacted = {{"cleanup.policy", "compact"}};
  const internal::NewTopic topics[] = {{log_router::kInputTopic, 4},
                                       {log_router::kHighPriorityTopic, 4},
                                       {log_router::kLowPriorityTopic, 4},
                                       {json_to_avro::kInputTopic, 4},
                                       {json_to_avro::kOutputTopic, 4},
                                       {json_to_avro::kDeadLetterTopic, 1},
                                       {stock_stats::kInputTopic, 4},
                                       {stock_stats::kOutputTopic, 4, compacted},
                                       {stock_stats::kMovingAverageTopic, 4, compacted},
                                       {top_gainers::kOutputTopic, 1, compacted},
                                       {iot_late_events::kInputTopic, kReadingPartitions},
                                       {iot_late_events::kHourlyTopic, 4, compacted},
                                       {iot_late_events::kFinalTopic, 4, compacted},
                                       {click_enrichment::kClicksTopic, 4},
                                       {click_enrichment::kProfilesTopic, 4, compacted},
                                       {click_enrichment::kOutputTopic, 4},
                                       // Tables on topics of different partition counts: a
                                       // foreign-key join needs no co-partitioning.
                                       {orders_customers::kOrdersTopic, 4, compacted},
                                       {orders_customers::kCustomersTopic, 3, compacted},
                                       {orders_customers::kOutputTopic, 4, compacted},
                                       {search_clicks::kSearchTopic, 4},
                                       {search_clicks::kClickTopic, 4},
                                       {search_clicks::kOutputTopic, 4, compacted}};
  for (const auto& topic : topics) {
    if (auto s = log.admin().create_topic(topic); !s.ok()) return s;
  }
  return {};
}

// Application logs from six hosts: mostly INFO, some WARN, a few ERROR.
Status write_logs(internal::Producer& producer, std::mt19937& random) {
  const char* hosts[] = {"web-1", "web-2", "web-3", "web-4", "db-1", "db-2"};
  struct Message {
    const char* level;
    const char* text;  // {} takes a number in [low, high)
    int low, high;
  };
  const Message info[] = {{"INFO", "GET /api/orders 200 in {} ms", 2, 80},
                          {"INFO", "cache hit ratio {}%", 80, 100},
                          {"INFO", "user session started ({} active)", 100, 5000}};
  const Message warn[] = {{"WARN", "slow query took {} ms", 500, 3000},
                          {"WARN", "retrying upstream call (attempt {})", 2, 5}};
  const Message error[] = {{"ERROR", "disk /var is {}% full", 95, 100},
                           {"ERROR", "connection to db-1 lost after {} ms", 1000, 30000},
                           {"ERROR", "payment provider returned 503 ({} in a row)", 2, 20}};
  std::int64_t ts = internal::wall_clock_ms() - std::int64_t{kLogLines} * 10;
  for (int i = 0; i < kLogLines; ++i) {
    const int roll = static_cast<int>(random() % 100);
    const Message& m = roll < 5    ? error[random() % 3]
                       : roll < 20 ? warn[random() % 2]
                                   : info[random() % 3];
    const int n = m.low + static_cast<int>(random() % (m.high - m.low));
    ts += 10;
    if (auto s = producer.send(
            {.topic = log_router::kInputTopic,
             .timestamp = Timestamp(ts),
             .key = hosts[random() % 6],
             .value = fmt::format("{} {} {}", ts, m.level, fmt::format(fmt::runtime(m.text), n))});
        !s.ok()) {
      return s;
    }
  }
  return producer.flush();
}

// Stock trades as JSON, keyed by symbol; a few malformed or outside the schema.
Status write_trades(internal::Producer& producer, std::mt19937& random) {
  const char* symbols[] = {"ACME", "INIT", "GLOBX", "BRKX", "ZETA"};
  double prices[] = {120.0, 43.5, 310.25, 12.8, 77.0};
  std::int64_t ts = internal::wall_clock_ms() - std::int64_t{kTrades} * 50;
  for (int i = 0; i < kTrades; ++i) {
    const int s = static_cast<int>(random() % 5);
    prices[s] =
        std::max(1.0, prices[s] * (1.0 + (static_cast<int>(random() % 201) - 100) / 10000.0));
    const int roll = static_cast<int>(random() % 200);
    const char* side = roll == 0 ? "HOLD" : (random() % 2 ? "BUY" : "SELL");
    std::string json =
        fmt::format(R"({{"symbol": "{}", "side": "{}", "price": {:.2f}, "volume": {}, "ts": {}}})",
                    symbols[s], side, prices[s], (random() % 50 + 1) * 10, ts += 50);
    if (roll == 1) json.resize(json.size() / 2);  // a truncated message
    if (auto status = producer.send({.topic = json_to_avro::kInputTopic,
                                     .timestamp = Timestamp(ts),
                                     .key = symbols[s],
                                     .value = std::move(json)});
        !status.ok()) {
      return status;
    }
  }
  return producer.flush();
}

// Sends `records` and flushes.
Status send_all(internal::Producer& producer, std::vector<ProducerRecord> records) {
  for (auto& record : records) {
    if (auto s = producer.send(std::move(record)); !s.ok()) return s;
  }
  return producer.flush();
}

// The trades of stock_stats and top_gainers as JSON, keyed by symbol: a symbol's trades stay
// in one partition, in the order generated.
Status write_stock_trades(internal::Producer& producer,
                          const std::vector<stock_stats::TimedTrade>& trades) {
  std::vector<ProducerRecord> records;
  for (const auto& t : trades) {
    records.push_back({.topic = stock_stats::kInputTopic,
                       .timestamp = Timestamp(t.timestamp),
                       .key = t.trade.symbol,
                       .value = nlohmann::json(t.trade).dump()});
  }
  return send_all(producer, std::move(records));
}

// The sensor readings of iot_late_events as JSON, keyed by device, in arrival order, each
// with its arrival time as the log timestamp.
Status write_readings(internal::Producer& producer, const std::vector<DemoReading>& readings) {
  std::vector<ProducerRecord> records;
  for (const auto& r : readings) {
    records.push_back({.topic = iot_late_events::kInputTopic,
                       .timestamp = Timestamp(r.arrival),
                       .key = r.reading.device,
                       .value = nlohmann::json(r.reading).dump()});
  }
  return send_all(producer, std::move(records));
}

Status prepare(const std::filesystem::path& dir,
               const std::vector<stock_stats::TimedTrade>& stock_trades,
               const std::vector<DemoReading>& readings, const SearchClickData& search_data) {
  std::filesystem::remove_all(dir);
  auto log = internal::open_embedded_log({.data_dir = dir});
  if (!log) return log.error();
  if (auto s = create_topics(**log); !s.ok()) return s;
  auto producer = (*log)->make_producer({});
  if (!producer) return producer.error();
  std::mt19937 random(kSeed);
  if (auto s = write_logs(**producer, random); !s.ok()) return s;
  if (auto s = write_trades(**producer, random); !s.ok()) return s;
  if (auto s = write_stock_trades(**producer, stock_trades); !s.ok()) return s;
  if (auto s = send_all(**producer, orders_and_customers(internal::wall_clock_ms() - 10'000));
      !s.ok())
    return s;
  if (auto s = send_all(**producer, search_click_records(search_data)); !s.ok()) return s;
  return write_readings(**producer, readings);
}

// Runs an example's topology as a Streams app until it has processed everything; then calls
// `after_run` (if given) with the app, e.g. to read its metrics.
int run_example(const char* name, const examples::BuildTopology& build,
                const std::string& application_id, const std::filesystem::path& dir,
                std::map<std::string, std::string> config = {},
                const std::function<void(const Streams&)>& after_run = {}) {
  fmt::print("\n== {}: running as a Streams app (2 threads) ...\n", name);
  std::string data_dir = dir.string();
  std::vector<char*> argv = {const_cast<char*>(name), const_cast<char*>("--data-dir"),
                             data_dir.data(), const_cast<char*>("--until-idle")};
  const auto start = Clock::now();
  const int code =
      examples::run_app(build, application_id, static_cast<int>(argv.size()), argv.data(),
                        {.config = std::move(config), .after_run = after_run});
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  fmt::print("   done in {} ms (exit code {})\n", ms.count(), code);
  return code;
}

// Every record in `topic`, partition by partition.
Result<std::vector<ConsumerRecord>> read_topic(EmbeddedLog& log, const std::string& topic) {
  auto description = log.admin().describe_topic(topic);
  if (!description) return error(description.error());
  auto consumer = log.make_consumer({});
  if (!consumer) return error(consumer.error());
  std::vector<internal::TopicPartition> partitions;
  for (int p = 0; p < description->partitions; ++p) partitions.push_back({topic, Partition(p)});
  if (auto s = (*consumer)->assign(partitions); !s.ok()) return error(s);
  std::vector<ConsumerRecord> out;
  while (true) {
    auto records = (*consumer)->poll(std::chrono::milliseconds(0));
    if (!records) return error(records.error());
    if (records->empty()) return out;
    for (auto& r : *records) out.push_back(std::move(r));
  }
}

// Prints how many records a topic holds and its first `show` values; returns the count.
Result<std::size_t> show_topic(EmbeddedLog& log, const std::string& topic, std::size_t show,
                               const std::function<std::string(const ConsumerRecord&)>& format) {
  auto records = read_topic(log, topic);
  if (!records) return error(records.error());
  fmt::print("   {:<20} {:>6} records\n", topic, records->size());
  for (std::size_t i = 0; i < std::min(show, records->size()); ++i) {
    fmt::print("      {}\n", format((*records)[i]));
  }
  return records->size();
}

// Reads a record's key for people: the key as it is, or as `key_of` makes it.
using KeyReader = std::function<Result<std::string>(const std::string& bytes)>;

// The table a compacted topic of JSON values stands for: the latest value per key, a
// tombstone deleting its key.
template <class V>
Result<std::map<std::string, V>> latest_values(EmbeddedLog& log, const std::string& topic,
                                               const KeyReader& key_of = {}) {
  auto records = read_topic(log, topic);
  if (!records) return error(records.error());
  const JsonSerde<V> serde;
  std::map<std::string, V> table;
  for (const auto& r : *records) {
    auto key = key_of ? key_of(r.key.value_or("")) : r.key.value_or("");
    if (!key) return error(key.error());
    if (!r.value) {
      table.erase(*key);
      continue;
    }
    auto value = serde.deserialize(*r.value);
    if (!value) return error(value.error());
    table.insert_or_assign(std::move(*key), std::move(*value));
  }
  return table;
}

// Whether the table in `topic` is `expected`; prints the verdict, and the first difference.
template <class V>
bool check_table(EmbeddedLog& log, const std::string& topic,
                 const std::map<std::string, V>& expected, const KeyReader& key_of = {}) {
  auto actual = latest_values<V>(log, topic, key_of);
  if (!actual) {
    fmt::print("   {}: cannot read it: {}\n", topic, actual.error().to_string());
    return false;
  }
  if (*actual == expected) {
    fmt::print("   {:<20} {:>4} keys, each equal to the recomputation from the input\n", topic,
               actual->size());
    return true;
  }
  auto json_at = [](const std::map<std::string, V>& table, const std::string& key) {
    const auto it = table.find(key);
    return it == table.end() ? std::string("nothing") : nlohmann::json(it->second).dump();
  };
  std::set<std::string> keys;
  for (const auto& entry : *actual) keys.insert(entry.first);
  for (const auto& entry : expected) keys.insert(entry.first);
  for (const auto& key : keys) {
    const std::string want = json_at(expected, key), got = json_at(*actual, key);
    if (want == got) continue;
    fmt::print(
        "   {} DIFFERS from the recomputation from the input ({} keys, {} expected); "
        "first at key {}:\n      expected {}\n      got      {}\n",
        topic, actual->size(), expected.size(), key, want, got);
    break;
  }
  return false;
}

// Whether every click came out enriched with the profile its user had when it was written
// (the updates of phase 2 only for the clicks of phase 3); prints a verdict and a sample.
bool check_click_results(EmbeddedLog& log) {
  fmt::print(
      "\n== Clicks with their users' profiles (click_enrichment: a stream-table left join; "
      "profiles updated between two batches of clicks):\n");
  auto records = read_topic(log, click_enrichment::kOutputTopic);
  if (!records) {
    fmt::print("   {}: cannot read it: {}\n", click_enrichment::kOutputTopic,
               records.error().to_string());
    return false;
  }
  EnrichedClicks actual;
  for (const auto& r : *records) {
    auto click = JsonSerde<click_enrichment::EnrichedClick>().deserialize(r.value.value_or(""));
    if (click) actual.insert_or_assign(click->page, std::pair{r.key.value_or(""), *click});
  }
  const EnrichedClicks expected = expected_enriched_clicks();
  for (const char* page : {"/page-5", "/page-165", "/page-35"}) {
    const auto it = actual.find(page);
    fmt::print("      {} -> {}\n", page,
               it == actual.end()
                   ? std::string("(none)")
                   : it->second.first + " " + nlohmann::json(it->second.second).dump());
  }
  const bool ok = records->size() == expected.size() && actual == expected;
  fmt::print(
      "   {} {} records for {} clicks: {}\n", click_enrichment::kOutputTopic, records->size(),
      expected.size(),
      ok ? "each enriched with the profile as of its click (updates changed later clicks only)"
         : "NOT as expected");
  return ok;
}

// Checks orders-enriched against the join recomputed from the latest orders and customers,
// and prints a few of its rows.
bool check_orders_results(EmbeddedLog& log) {
  using orders_customers::EnrichedOrder;
  const auto expected = expected_enriched_orders();
  fmt::print(
      "\n== Orders with their customers (orders_customers: a foreign-key join of the orders "
      "table, 4 partitions, with the customers table, 3 partitions):\n");
  auto actual = latest_values<EnrichedOrder>(log, orders_customers::kOutputTopic);
  if (!actual) {
    fmt::print("   {}: cannot read it: {}\n", orders_customers::kOutputTopic,
               actual.error().to_string());
    return false;
  }
  for (const char* key : {"o005", "o006", "o007", "o014"}) {
    const auto it = actual->find(key);
    fmt::print("      {} -> {}\n", key,
               it == actual->end() ? std::string("(none)") : nlohmann::json(it->second).dump());
  }
  if (*actual != expected) {
    for (const auto& [key, want] : expected) {
      const auto it = actual->find(key);
      if (it != actual->end() && it->second == want) continue;
      fmt::print(
          "   {} DIFFERS from the recomputation ({} keys, {} expected); first at {}: "
          "expected {}, got {}\n",
          orders_customers::kOutputTopic, actual->size(), expected.size(), key,
          nlohmann::json(want).dump(),
          it == actual->end() ? std::string("nothing") : nlohmann::json(it->second).dump());
      return false;
    }
    fmt::print("   {} DIFFERS from the recomputation: {} keys, {} expected\n",
               orders_customers::kOutputTopic, actual->size(), expected.size());
    return false;
  }
  fmt::print("   {:<20} {:>4} orders, each equal to the recomputation from orders and customers\n",
             orders_customers::kOutputTopic, actual->size());
  return true;
}

// Checks stock-stats and top-gainers against the recomputation from `trades` and prints a
// sample of each: one symbol's days, and the head of each day's ranking.
bool check_stock_results(EmbeddedLog& log, const std::vector<stock_stats::TimedTrade>& trades) {
  const auto day_stats = recompute_day_stats(trades);
  const auto top = recompute_top_gainers(day_stats);
  const auto averages = recompute_moving_averages(trades);
  fmt::print(
      "\n== Day statistics, moving averages and top gainers, against a recomputation from the "
      "trades:\n");
  const bool stats_ok = check_table(log, stock_stats::kOutputTopic, day_stats);
  const auto key_serde = stock_stats::moving_average_key_serde();
  const bool averages_ok = check_table(log, stock_stats::kMovingAverageTopic, averages,
                                       [&](const std::string& bytes) -> Result<std::string> {
                                         auto key = key_serde->deserialize(bytes);
                                         if (!key) return error(key.error());
                                         return stock_stats::window_label(*key);
                                       });
  const bool top_ok = check_table(log, top_gainers::kOutputTopic, top);
  for (const auto& [key, s] : day_stats) {
    if (!key.starts_with("ACME@")) continue;
    fmt::print(
        "      {}  open {:.2f} close {:.2f} min {:.2f} max {:.2f}  {} trades, volume {}, "
        "moving average {:.2f}\n",
        key, s.open, s.close, s.min, s.max, s.trades, s.volume, s.moving_average);
  }
  fmt::print("      ACME's price, averaged over 1 h windows starting every 10 min (of {}):\n",
             averages.size());
  int shown = 0;
  for (auto it = averages.lower_bound("ACME@2026-03-02T12:00Z");
       it != averages.end() && it->first.starts_with("ACME@") && shown < 6; ++it, ++shown) {
    fmt::print("      {}  {} trades, average {:.2f}\n", it->first, it->second.trades,
               it->second.average);
  }
  for (const auto& [day, ranking] : top) {
    std::string line;
    for (std::size_t i = 0; i < std::min<std::size_t>(5, ranking.size()); ++i) {
      line += fmt::format("  {} {:+.2f}%", ranking[i].symbol, ranking[i].gain);
    }
    fmt::print("      {} top 5:{}\n", day, line);
  }
  return stats_ok && averages_ok && top_ok;
}

// A windowed topic of iot_late_events: every record as (device hour, value or nullopt).
Result<std::vector<std::pair<DeviceHour, std::optional<iot_late_events::HourlyStats>>>> read_hourly(
    EmbeddedLog& log, const std::string& topic) {
  auto records = read_topic(log, topic);
  if (!records) return error(records.error());
  const auto key_serde = iot_late_events::windowed_key_serde();
  const JsonSerde<iot_late_events::HourlyStats> value_serde;
  std::vector<std::pair<DeviceHour, std::optional<iot_late_events::HourlyStats>>> out;
  for (const auto& r : *records) {
    auto key = key_serde->deserialize(r.key.value_or(""));
    if (!key) return error(key.error());
    std::optional<iot_late_events::HourlyStats> value;
    if (r.value) {
      auto decoded = value_serde.deserialize(*r.value);
      if (!decoded) return error(decoded.error());
      value = std::move(*decoded);
    }
    out.emplace_back(DeviceHour{key->key, key->window.start.value()}, std::move(value));
  }
  return out;
}

std::string hour_label(const DeviceHour& hour) {
  return iot_late_events::label(
      {hour.first,
       {Timestamp(hour.second), Timestamp(hour.second) + iot_late_events::kWindowSize}});
}

std::string stats_text(const iot_late_events::HourlyStats& s) {
  return fmt::format("count {:>2}  min {:5.1f}  max {:5.1f}  mean {:6.2f}", s.count, s.min, s.max,
                     s.mean);
}

// The first device hour where `actual` differs from `expected`, as a line; empty if none.
std::string first_difference(const std::map<DeviceHour, iot_late_events::HourlyStats>& expected,
                             const std::map<DeviceHour, iot_late_events::HourlyStats>& actual) {
  std::set<DeviceHour> keys;
  for (const auto& entry : expected) keys.insert(entry.first);
  for (const auto& entry : actual) keys.insert(entry.first);
  auto text = [](const auto& table, const DeviceHour& key) {
    const auto it = table.find(key);
    return it == table.end() ? std::string("nothing") : nlohmann::json(it->second).dump();
  };
  for (const auto& key : keys) {
    const std::string want = text(expected, key), got = text(actual, key);
    if (want != got) {
      return fmt::format("first at {}:\n      expected {}\n      got      {}", hour_label(key),
                         want, got);
    }
  }
  return "";
}

// Checks what iot_late_events wrote against the recomputation from `readings`, and the number
// of readings it dropped (its dropped-records-total), and shows how the phone's late readings
// corrected hours already written.
bool check_iot_results(EmbeddedLog& log, const std::vector<DemoReading>& readings,
                       std::int64_t dropped) {
  using iot_late_events::HourlyStats;
  const auto hourly = recompute_hourly(readings);
  const auto closed = closed_hours(readings, hourly, kReadingPartitions);
  std::size_t buffered = 0, replayed = 0;
  std::set<std::string> devices;
  for (const auto& r : readings) {
    devices.insert(r.reading.device);
    buffered += r.kind == DemoReading::Kind::kBuffered;
    replayed += r.kind == DemoReading::Kind::kReplayed;
  }
  fmt::print(
      "\n== Hourly temperatures per device (iot_late_events: event time = when a reading was "
      "taken, 3 h grace),\n   against a recomputation from the readings:\n");
  fmt::print(
      "   {} readings of {} devices over 24 h: {} of {}'s sent 2 h late, {} of {}'s from 3 "
      "weeks ago\n",
      readings.size(), devices.size(), buffered, kPhone, replayed, kSwitch);
  auto updates = read_hourly(log, iot_late_events::kHourlyTopic);
  auto finals = read_hourly(log, iot_late_events::kFinalTopic);
  if (!updates || !finals) {
    fmt::print("   cannot read the results: {}\n",
               (updates ? finals.error() : updates.error()).to_string());
    return false;
  }
  bool ok = true;

  // (a) sensor-hourly: the newest per device hour is the recomputation; one update per
  // reading that counted (no record cache on the store).
  std::map<DeviceHour, HourlyStats> latest;
  std::map<DeviceHour, std::vector<HourlyStats>> versions;
  for (const auto& [key, value] : *updates) {
    if (!value) {
      latest.erase(key);
      continue;
    }
    latest.insert_or_assign(key, *value);
    versions[key].push_back(*value);
  }
  const std::size_t counted = readings.size() - replayed;
  if (latest == hourly && updates->size() == counted) {
    fmt::print(
        "   {:<20} {:>4} updates (one per reading counted) of {} device hours; the newest of "
        "each equals the recomputation\n",
        iot_late_events::kHourlyTopic, updates->size(), latest.size());
  } else {
    ok = false;
    fmt::print(
        "   {} DIFFERS from the recomputation: {} updates of {} device hours, expected {} "
        "of {}; {}\n",
        iot_late_events::kHourlyTopic, updates->size(), latest.size(), counted, hourly.size(),
        first_difference(hourly, latest));
  }

  // (b) sensor-hourly-final: one record per closed hour, equal to the recomputation; none for
  // the hours still open.
  std::map<DeviceHour, HourlyStats> final_table;
  std::size_t repeated = 0;
  for (const auto& [key, value] : *finals) {
    if (!value) continue;
    if (!final_table.insert_or_assign(key, *value).second) ++repeated;
  }
  if (final_table == closed && repeated == 0 && finals->size() == closed.size()) {
    fmt::print(
        "   {:<20} {:>4} records: one per closed hour, each equal to the recomputation; none "
        "for the {} hours still open (end + 3 h after the last reading)\n",
        iot_late_events::kFinalTopic, finals->size(), hourly.size() - closed.size());
  } else {
    ok = false;
    fmt::print(
        "   {} DIFFERS: {} records for {} hours ({} repeated), expected one for each of the {} "
        "closed hours; {}\n",
        iot_late_events::kFinalTopic, finals->size(), final_table.size(), repeated, closed.size(),
        first_difference(closed, final_table));
  }

  // (c) the readings from three weeks ago, and only they, were dropped and counted.
  if (dropped == static_cast<std::int64_t>(replayed)) {
    fmt::print(
        "   dropped-records-total {:>4}: the {} readings from 3 weeks ago, far beyond the grace\n",
        dropped, replayed);
  } else {
    ok = false;
    fmt::print("   dropped-records-total is {}, EXPECTED {} (the readings from 3 weeks ago)\n",
               dropped, replayed);
  }

  // (d) the phone's buffered readings corrected hours already written: the hour it went
  // offline in has the versions of its readings before, then those of the buffered ones.
  std::int64_t reconnected = 0;
  std::map<DeviceHour, std::pair<std::size_t, std::size_t>> phone_hours;  // before, buffered
  for (const auto& r : readings) {
    if (r.kind == DemoReading::Kind::kBuffered && reconnected == 0) reconnected = r.arrival;
  }
  for (const auto& r : readings) {
    if (r.reading.device != kPhone || r.kind == DemoReading::Kind::kReplayed) continue;
    const DeviceHour key{r.reading.device, r.reading.taken_at - r.reading.taken_at % 3'600'000};
    if (r.kind == DemoReading::Kind::kBuffered) {
      ++phone_hours[key].second;
    } else if (r.arrival < reconnected) {
      ++phone_hours[key].first;
    }
  }
  std::size_t corrected = 0;
  bool shown = false;
  for (const auto& [key, counts] : phone_hours) {
    const auto [before, late] = counts;
    if (before == 0 || late == 0) continue;
    ++corrected;
    const auto& list = versions[key];
    HourlyStats on_time;
    for (const auto& r : readings) {
      if (r.reading.device == kPhone && r.arrival < reconnected &&
          r.reading.taken_at - r.reading.taken_at % 3'600'000 == key.second) {
        on_time.add(r.reading.temperature);
      }
    }
    const auto latest_it = latest.find(key);
    const bool versions_ok = latest_it != latest.end() &&
                             std::cmp_equal(list.size(), latest_it->second.count) &&
                             list.size() >= before + late && list[before - 1] == on_time;
    if (!versions_ok) {
      ok = false;
      fmt::print(
          "   {}: {} versions in {}, EXPECTED {} written before the phone went offline "
          "({}) and then one per later reading\n",
          hour_label(key), list.size(), iot_late_events::kHourlyTopic, before,
          nlohmann::json(on_time).dump());
      continue;
    }
    if (shown) continue;
    shown = true;
    fmt::print("   {}: {} versions in {}:\n", hour_label(key), list.size(),
               iot_late_events::kHourlyTopic);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const char* note = i + 1 == before ? "  <- written before the phone went offline"
                         : i >= before && i < before + late
                             ? "  <- a buffered reading, sent when the phone reconnected"
                             : "";
      fmt::print("      v{:<2} {}{}\n", i + 1, stats_text(list[i]), note);
    }
    const auto final_it = final_table.find(key);
    fmt::print("      in {}: {}\n", iot_late_events::kFinalTopic,
               final_it == final_table.end() ? std::string("nothing (still open)")
                                             : stats_text(final_it->second) + " (once)");
  }
  if (corrected == 0) {
    ok = false;
    fmt::print("   NO hour of {} was written before its buffered readings corrected it\n", kPhone);
  }
  return ok;
}

}  // namespace

// Checks top-clicked-results against the recomputation of the windowed join and the counts
// from the searches and clicks, and prints each query's most-clicked result.
bool check_search_results(EmbeddedLog& log, const SearchClickData& data, std::int64_t dropped) {
  fmt::print(
      "\n== Most-clicked result per query (search_clicks: clicks joined with the search they "
      "followed within 5 s), against a recomputation:\n");
  const auto expected = search_clicks::recompute(data.searches, data.clicks);
  const bool same = check_table(log, search_clicks::kOutputTopic, expected);
  for (const auto& [query, top] : expected) {
    fmt::print("      {:<12} -> {} ({} clicks)\n", query, top.result, top.clicks);
  }
  if (dropped != 0) fmt::print("   {} records were DROPPED as late; expected none\n", dropped);
  return same && dropped == 0 && !expected.empty();
}

constexpr std::string_view kUsage = R"(usage: brook-demo [--data-dir DIR]

Runs the main demo on the embedded log in DIR (default ./brook-demo-data): creates topics,
writes synthetic application logs and stock trades, runs each example as a Streams application
until it has processed everything, prints what each produced and checks it. Exits 1 if a
result is incomplete or differs from its recomputation.
)";

int run_demo(int argc, char** argv) {
  std::filesystem::path dir = "brook-demo-data";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      fmt::print("{}", kUsage);
      return 0;
    }
    if (arg == "--data-dir" && i + 1 < argc) {
      dir = argv[++i];
    } else {
      fmt::print(stderr, "brook-demo: unknown argument '{}'\n{}", arg, kUsage);
      return 2;
    }
  }
  fmt::print("Brook demo on the embedded log in {}/\n", dir.string());
  const auto stock_trades = generate_trades(kSeed, kStockTrades);
  // Readings over the last 24 hours, to the minute: their event times are recent.
  const auto readings = generate_readings(kSeed, internal::wall_clock_ms() / 60'000 * 60'000);
  fmt::print(
      "Writing {} application log lines, {} stock trades (JSON), {} more over {} days and {} "
      "sensor readings ...\n",
      kLogLines, kTrades, stock_trades.size(), kDemoDays, readings.size());
  const auto search_data = generate_search_clicks(kSeed);
  fmt::print("... and {} searches with {} clicks\n", search_data.searches.size(),
             search_data.clicks.size());
  if (auto s = prepare(dir, stock_trades, readings, search_data); !s.ok()) return report(s);

  if (int code = run_example("log_router", log_router::build_topology, "demo-log-router", dir);
      code != 0) {
    return code;
  }
  const auto errors = json_to_avro::error_handling();
  if (int code = run_example("json_to_avro", json_to_avro::build_topology, "demo-json-to-avro", dir,
                             {{"default.deserialization.exception.handler", "dead-letter"},
                              {"processing.exception.handler", "dead-letter"},
                              {"errors.dead.letter.queue.topic.name", errors.dead_letter_topic}});
      code != 0) {
    return code;
  }
  if (int code = run_example(
          "stock_stats", [](const auto& config) { return stock_stats::build_topology({}, config); },
          "demo-stock-stats", dir);
      code != 0) {
    return code;
  }
  if (int code = run_example("top_gainers", top_gainers::build_topology, "demo-top-gainers", dir);
      code != 0) {
    return code;
  }
  std::int64_t dropped = -1;
  if (int code = run_example(
          "iot_late_events", iot_late_events::build_topology, "demo-iot-late-events", dir, {},
          [&](const Streams& app) { dropped = app.metrics().total("dropped-records-total"); });
      code != 0) {
    return code;
  }
  if (int code = run_example("orders_customers", orders_customers::build_topology,
                             "demo-orders-customers", dir);
      code != 0) {
    return code;
  }

  std::int64_t search_dropped = -1;
  for (int phase = 0; phase < kClickPhases; ++phase) {
    {
      auto log = internal::open_embedded_log({.data_dir = dir});
      if (!log) return report(log.error());
      auto producer = (*log)->make_producer({});
      if (!producer) return report(producer.error());
      if (auto s = send_all(**producer, click_phase(phase, internal::wall_clock_ms() - 100'000));
          !s.ok()) {
        return report(s);
      }
    }
    if (int code = run_example("click_enrichment", click_enrichment::build_topology,
                               "demo-click-enrichment", dir);
        code != 0) {
      return code;
    }
  }
  if (int code =
          run_example("search_clicks", search_clicks::build_topology, "demo-search-clicks", dir, {},
                      [&](const Streams& app) {
                        search_dropped = app.metrics().total("dropped-records-total");
                      });
      code != 0) {
    return code;
  }

  auto log = internal::open_embedded_log({.data_dir = dir});
  if (!log) return report(log.error());
  auto avro =
      AvroSerde::make(json_to_avro::kTradeSchema, {.confluent_schema_id = json_to_avro::kSchemaId});
  if (!avro) return report(avro.error());
  auto plain = [](const ConsumerRecord& r) {
    return fmt::format("[{}] {}", r.key.value_or("null"), r.value.value_or("null"));
  };
  auto decoded = [&](const ConsumerRecord& r) {
    auto json = (*avro)->deserialize(r.value.value_or(""));
    return fmt::format("[{}] {} Avro bytes = {}", r.key.value_or("null"), r.value->size(),
                       json ? json->dump() : json.error().to_string());
  };
  auto dead = [](const ConsumerRecord& r) {
    const auto* why = r.headers.last(kErrorMessageHeader);
    return fmt::format("{}\n        because: {}", r.value.value_or("null"),
                       why && why->value ? *why->value : "?");
  };
  fmt::print("\n== What the applications produced:\n");
  std::vector<std::size_t> counts;
  for (auto [topic, show, format] :
       {std::tuple{log_router::kHighPriorityTopic, 3, std::function(plain)},
        std::tuple{log_router::kLowPriorityTopic, 2, std::function(plain)},
        std::tuple{json_to_avro::kOutputTopic, 2, std::function(decoded)},
        std::tuple{json_to_avro::kDeadLetterTopic, 2, std::function(dead)}}) {
    auto count = show_topic(**log, topic, show, format);
    if (!count) return report(count.error());
    counts.push_back(*count);
  }
  const bool stocks_ok = check_stock_results(**log, stock_trades);
  const bool iot_ok = check_iot_results(**log, readings, dropped);
  const bool clicks_ok = check_click_results(**log);
  const bool orders_ok = check_orders_results(**log);
  const bool search_ok = check_search_results(**log, search_data, search_dropped);
  // Nothing lost: every log line routed once, every trade converted or dead-lettered once.
  const bool complete = counts[0] + counts[1] == kLogLines && counts[2] + counts[3] == kTrades;
  fmt::print("\nlog lines in: {}, routed: {}; trades in: {}, converted + dead-lettered: {} -> {}\n",
             kLogLines, counts[0] + counts[1], kTrades, counts[2] + counts[3],
             complete ? "nothing lost" : "RECORDS MISSING");
  fmt::print("stock trades in: {}; day statistics, moving averages and top gainers -> {}\n",
             stock_trades.size(), stocks_ok ? "as recomputed" : "NOT AS RECOMPUTED");
  fmt::print("sensor readings in: {}; hourly statistics, final results, drops -> {}\n",
             readings.size(), iot_ok ? "as recomputed" : "NOT AS RECOMPUTED");
  fmt::print("orders and customers in: {}; orders enriched with their customers -> {}\n",
             orders_and_customers(0).size(), orders_ok ? "as recomputed" : "NOT AS RECOMPUTED");
  fmt::print("searches in: {}, clicks in: {}; most-clicked results per query -> {}\n",
             search_data.searches.size(), search_data.clicks.size(),
             search_ok ? "as recomputed" : "NOT AS RECOMPUTED");
  fmt::print(
      "clicks in: {}, profiles in: 30 and 10 updates; clicks enriched with their "
      "profiles -> {}\n",
      2 * kClicksPerPhase, clicks_ok ? "as expected" : "NOT AS EXPECTED");
  return complete && stocks_ok && iot_ok && clicks_ok && orders_ok && search_ok ? 0 : 1;
}

}  // namespace brook::demo

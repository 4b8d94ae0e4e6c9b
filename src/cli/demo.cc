#include "cli/demo.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "app_runner.h"
#include "backend/embedded/embedded_log.h"
#include "cli/demo_trades.h"
#include "json_to_avro.h"
#include "log_router.h"
#include "stock_stats.h"
#include "top_gainers.h"

namespace brook::cli {
namespace {

using internal::EmbeddedLog;
using Clock = std::chrono::steady_clock;

constexpr int kLogLines = 20'000;
constexpr int kTrades = 10'000;
constexpr int kStockTrades = 6'000;
constexpr std::uint32_t kSeed = 42;

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
                                       {top_gainers::kOutputTopic, 1, compacted}};
  for (const auto& topic : topics) {
    if (auto s = log.admin().create_topic(topic); !s.ok()) return s;
  }
  return {};
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
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
  std::int64_t ts = now_ms() - std::int64_t{kLogLines} * 10;
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
  std::int64_t ts = now_ms() - std::int64_t{kTrades} * 50;
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

// The trades of stock_stats and top_gainers as JSON, keyed by symbol: a symbol's trades stay
// in one partition, in the order generated.
Status write_stock_trades(internal::Producer& producer,
                          const std::vector<stock_stats::TimedTrade>& trades) {
  for (const auto& t : trades) {
    if (auto s = producer.send({.topic = stock_stats::kInputTopic,
                                .timestamp = Timestamp(t.timestamp),
                                .key = t.trade.symbol,
                                .value = nlohmann::json(t.trade).dump()});
        !s.ok()) {
      return s;
    }
  }
  return producer.flush();
}

Status prepare(const std::filesystem::path& dir,
               const std::vector<stock_stats::TimedTrade>& stock_trades) {
  std::filesystem::remove_all(dir);
  auto log = internal::open_embedded_log({.data_dir = dir});
  if (!log) return log.error();
  if (auto s = create_topics(**log); !s.ok()) return s;
  auto producer = (*log)->make_producer({});
  if (!producer) return producer.error();
  std::mt19937 random(kSeed);
  if (auto s = write_logs(**producer, random); !s.ok()) return s;
  if (auto s = write_trades(**producer, random); !s.ok()) return s;
  return write_stock_trades(**producer, stock_trades);
}

// Runs an example's topology as a Streams app until it has processed everything.
int run_example(const char* name, const Result<Topology>& topology,
                const std::string& application_id, const std::filesystem::path& dir,
                std::map<std::string, std::string> config = {}) {
  if (!topology) return report(topology.error());
  fmt::print("\n== {}: running as a Streams app (2 threads) ...\n", name);
  std::string data_dir = dir.string();
  std::vector<char*> argv = {const_cast<char*>(name), const_cast<char*>("--data-dir"),
                             data_dir.data(), const_cast<char*>("--until-idle")};
  const auto start = Clock::now();
  const int code = examples::run_app(*topology, application_id, static_cast<int>(argv.size()),
                                     argv.data(), std::move(config));
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

// The table a compacted topic of JSON values stands for: the latest value per key, a
// tombstone deleting its key.
template <class V>
Result<std::map<std::string, V>> latest_values(EmbeddedLog& log, const std::string& topic) {
  auto records = read_topic(log, topic);
  if (!records) return error(records.error());
  const JsonSerde<V> serde;
  std::map<std::string, V> table;
  for (const auto& r : *records) {
    if (!r.value) {
      table.erase(r.key.value_or(""));
      continue;
    }
    auto value = serde.deserialize(*r.value);
    if (!value) return error(value.error());
    table.insert_or_assign(r.key.value_or(""), std::move(*value));
  }
  return table;
}

// Whether the table in `topic` is `expected`; prints the verdict, and the first difference.
template <class V>
bool check_table(EmbeddedLog& log, const std::string& topic,
                 const std::map<std::string, V>& expected) {
  auto actual = latest_values<V>(log, topic);
  if (!actual) {
    fmt::print("   {}: cannot read it: {}\n", topic, actual.error().to_string());
    return false;
  }
  if (*actual == expected) {
    fmt::print("   {:<12} {:>3} keys, each equal to the recomputation from the trades\n", topic,
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
        "   {} DIFFERS from the recomputation from the trades ({} keys, {} expected); "
        "first at key {}:\n      expected {}\n      got      {}\n",
        topic, actual->size(), expected.size(), key, want, got);
    break;
  }
  return false;
}

// Checks stock-stats and top-gainers against the recomputation from `trades` and prints a
// sample of each: one symbol's days, and the head of each day's ranking.
bool check_stock_results(EmbeddedLog& log, const std::vector<stock_stats::TimedTrade>& trades) {
  const auto day_stats = recompute_day_stats(trades);
  const auto top = recompute_top_gainers(day_stats);
  fmt::print("\n== Day statistics and top gainers, against a recomputation from the trades:\n");
  const bool stats_ok = check_table(log, stock_stats::kOutputTopic, day_stats);
  const bool top_ok = check_table(log, top_gainers::kOutputTopic, top);
  for (const auto& [key, s] : day_stats) {
    if (!key.starts_with("ACME@")) continue;
    fmt::print(
        "      {}  open {:.2f} close {:.2f} min {:.2f} max {:.2f}  {} trades, volume {}, "
        "moving average {:.2f}\n",
        key, s.open, s.close, s.min, s.max, s.trades, s.volume, s.moving_average);
  }
  for (const auto& [day, ranking] : top) {
    std::string line;
    for (std::size_t i = 0; i < std::min<std::size_t>(5, ranking.size()); ++i) {
      line += fmt::format("  {} {:+.2f}%", ranking[i].symbol, ranking[i].gain);
    }
    fmt::print("      {} top 5:{}\n", day, line);
  }
  return stats_ok && top_ok;
}

}  // namespace

int run_demo(int argc, char** argv) {
  std::filesystem::path dir = "brook-demo-data";
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--data-dir" && i + 1 < argc) {
      dir = argv[++i];
    } else {
      fmt::print(stderr, "brook demo: unknown argument '{}'\nusage: brook demo [--data-dir DIR]\n",
                 argv[i]);
      return 2;
    }
  }
  fmt::print("Brook demo on the embedded log in {}/\n", dir.string());
  const auto stock_trades = generate_trades(kSeed, kStockTrades);
  fmt::print(
      "Writing {} application log lines, {} stock trades (JSON) and {} more over {} days ...\n",
      kLogLines, kTrades, stock_trades.size(), kDemoDays);
  if (auto s = prepare(dir, stock_trades); !s.ok()) return report(s);

  if (int code = run_example("log_router", log_router::build_topology(), "demo-log-router", dir);
      code != 0) {
    return code;
  }
  const auto errors = json_to_avro::error_handling();
  if (int code =
          run_example("json_to_avro", json_to_avro::build_topology(), "demo-json-to-avro", dir,
                      {{"default.deserialization.exception.handler", "dead-letter"},
                       {"processing.exception.handler", "dead-letter"},
                       {"errors.dead.letter.queue.topic.name", errors.dead_letter_topic}});
      code != 0) {
    return code;
  }
  if (int code = run_example("stock_stats", stock_stats::build_topology(), "demo-stock-stats", dir);
      code != 0) {
    return code;
  }
  if (int code = run_example("top_gainers", top_gainers::build_topology(), "demo-top-gainers", dir);
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
  // Nothing lost: every log line routed once, every trade converted or dead-lettered once.
  const bool complete = counts[0] + counts[1] == kLogLines && counts[2] + counts[3] == kTrades;
  fmt::print("\nlog lines in: {}, routed: {}; trades in: {}, converted + dead-lettered: {} -> {}\n",
             kLogLines, counts[0] + counts[1], kTrades, counts[2] + counts[3],
             complete ? "nothing lost" : "RECORDS MISSING");
  fmt::print("stock trades in: {}; day statistics and top gainers -> {}\n", stock_trades.size(),
             stocks_ok ? "as recomputed" : "NOT AS RECOMPUTED");
  return complete && stocks_ok ? 0 : 1;
}

}  // namespace brook::cli

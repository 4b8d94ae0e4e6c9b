// json_to_avro and its twin: the same trades written as the same Avro bytes (Confluent wire
// format, schema id 1) to the same partitions of trades-avro, and the same records dead-lettered
// to trades-dead-letter, as they were read (key, value, timestamp, headers) with the same error
// headers appended.
//
// Kafka Streams 3.9 has no dead-letter queue: the twin (twins/.../JsonToAvro.java) reads the
// values as bytes and converts them in its processor "to-generic", which forwards to
// "write-avro" or to a sink of its own, "write-dead-letter", the one difference of the two
// descriptions (Brook's runtime writes the dead letters outside the topology). The dead letters'
// __brook.errors.message is compared byte for byte, except for JSON that is not a trade: there
// the text after "json serde: cannot read json_to_avro::Trade from '<the value's start>': " is
// the JSON library's reason (nlohmann's words in Brook, the twin's own), which the comparison
// leaves out; what comes before it, and every other header, must be equal.
//
// Input: 9 000 trades of the demo's generator (random sides, venues or none, a tenth with a null
// key, some with headers) and, after every sixth, one of 84 adversarial records at the same
// timestamp: invalid JSON (empty, blank, truncated, trailing data, not UTF-8, an excerpt cut in
// a UTF-8 sequence, a number beyond a double), JSON that is not a trade (a missing member, a wrong
// type, numbers that do not fit a long or a double exactly, not an object), trades the schema
// refuses (sides other than BUY and SELL) and tombstones (Brook reads a null value as an empty
// Trade, whose side "" the schema refuses: it is dead-lettered by write-avro); also JSON edge cases
// both must accept (1.0 and 1e3 as longs, -0.0, duplicate members, escapes, extra members,
// Unicode).
#include "json_to_avro.h"

#include <fmt/format.h>

#include <random>
#include <string_view>

#include "brook/error_handling.h"
#include "brook/internal/partitioner.h"
#include "conformance.h"
#include "demo_trades.h"

namespace brook::testing {
namespace {

constexpr std::int32_t kInputPartitions = 4;

const ExampleTopics kJsonToAvro{
    .name = "json_to_avro",
    .inputs = {{.name = json_to_avro::kInputTopic, .partitions = kInputPartitions}},
    .outputs = {{.name = json_to_avro::kOutputTopic, .partitions = 4},
                {.name = json_to_avro::kDeadLetterTopic, .partitions = 2}},
};

// A valid trade, `venue` as given (a JSON value) or absent if empty.
std::string trade_json(std::string_view symbol, std::string_view side, std::string_view price,
                       std::string_view volume, std::string_view ts, std::string_view venue = "") {
  std::string json = fmt::format(R"({{"symbol": "{}", "side": "{}", "price": {}, "volume": {}, )"
                                 R"("ts": {})",
                                 symbol, side, price, volume, ts);
  if (!venue.empty()) json += fmt::format(R"(, "venue": {})", venue);
  return json + "}";
}

// Values that are not plain trades; nullopt for a tombstone.
std::vector<std::optional<std::string>> adversarial_values() {
  const std::string ok = trade_json("ACME", "BUY", "12.5", "100", "5", R"("XNAS")");
  // Longer than the 64 bytes messages quote, with a UTF-8 sequence across byte 64.
  const std::string long_start = R"({"symbol": ")" + std::string(51, 'x') + "\xc3\xa9";
  return {
      // Not valid JSON.
      "",
      "   ",
      "not json",
      R"({"symbol": "ACME", "price": oops})",
      ok.substr(0, ok.size() / 2),
      ok + " trailing",
      ok + ok,
      ok + "\n}",
      R"({"symbol": "ACME",})",
      R"({'symbol': 'ACME'})",
      trade_json("ACME", "BUY", "NaN", "1", "1"),
      trade_json("ACME", "BUY", "1", "01", "1"),
      trade_json("ACME", "BUY", "1.", "1", "1"),
      trade_json("AC\xff", "BUY", "1", "1", "1"),          // not UTF-8
      trade_json("AC\xc3", "BUY", "1", "1", "1"),          // a truncated UTF-8 sequence
      trade_json("A\tB", "BUY", "1", "1", "1"),            // a raw control character
      long_start + R"(", "side": "BUY", "price": oops})",  // quoted up to the middle of é
      "[1, 2",
      // A number beyond a double, anywhere: nlohmann's parser refuses it.
      trade_json("ACME", "BUY", "1", "1e400", "1"),
      trade_json("ACME", "BUY", "-1e400", "1", "1"),
      R"({"symbol": "ACME", "side": "BUY", "price": 1, "volume": 1, "ts": 1, "note": [1e400]})",
      // JSON, but not a trade.
      "{}",
      "[]",
      R"("ACME")",
      "42",
      "null",
      "true",
      R"([{"symbol": "ACME", "side": "BUY", "price": 1, "volume": 1, "ts": 1}])",
      R"({"side": "BUY", "price": 1, "volume": 1, "ts": 1})",
      R"({"symbol": "ACME", "price": 1, "volume": 1, "ts": 1})",
      R"({"symbol": "ACME", "side": "BUY", "volume": 1, "ts": 1})",
      R"({"symbol": "ACME", "side": "BUY", "price": 1, "ts": 1})",
      R"({"symbol": "ACME", "side": "BUY", "price": 1, "volume": 1})",
      R"({"symbol": "ACME", "side": "HOLD", "price": 1, "volume": 1})",  // no ts before HOLD
      trade_json("ACME", "BUY", R"("12.5")", "1", "1"),
      trade_json("ACME", "BUY", "true", "1", "1"),
      trade_json("ACME", "BUY", "null", "1", "1"),
      trade_json("ACME", "BUY", "1", R"("100")", "1"),
      trade_json("ACME", "BUY", "1", "false", "1"),
      trade_json("ACME", "BUY", "1", "[1]", "1"),
      trade_json("ACME", "BUY", "1", "1", "null"),
      trade_json("ACME", "BUY", "1", "1", R"({"ms": 1})"),
      R"({"symbol": 42, "side": "BUY", "price": 1, "volume": 1, "ts": 1})",
      R"({"symbol": null, "side": "BUY", "price": 1, "volume": 1, "ts": 1})",
      R"({"symbol": "ACME", "side": null, "price": 1, "volume": 1, "ts": 1})",
      R"({"symbol": "ACME", "side": 1, "price": 1, "volume": 1, "ts": 1})",
      trade_json("ACME", "BUY", "1", "1", "1", "5"),
      trade_json("ACME", "BUY", "1", "1", "1", "true"),
      trade_json("ACME", "BUY", "1", "1", "1", R"(["XNAS"])"),
      trade_json("ACME", "BUY", "1", "1.5", "1"),
      trade_json("ACME", "BUY", "1", "1e30", "1"),
      trade_json("ACME", "BUY", "1", "-1e30", "1"),
      trade_json("ACME", "BUY", "1", "18446744073709551615", "1"),
      trade_json("ACME", "BUY", "1", "9223372036854775808", "1"),
      trade_json("ACME", "BUY", "1", "1", "123456789012345678901234567890"),
      trade_json("ACME", "BUY", "1", "1", "0.001"),
      trade_json("ACME", "BUY", "9007199254740993", "1", "1"),       // 2^53 + 1: not a double
      trade_json("ACME", "HOLD", "1.5", "1.5", "1"),                 // the number fails first
      long_start + R"(", "side": "BUY", "price": 1, "volume": 1})",  // quoted, no ts
      // Trades the schema refuses (at the sink).
      trade_json("ACME", "HOLD", "1", "1", "1"),
      trade_json("ACME", "buy", "1", "1", "1"),
      trade_json("ACME", "", "1", "1", "1", R"("XNAS")"),
      trade_json("ACME", "BUY ", "1", "1", "1"),
      trade_json("ACME", "ACHAT \xc3\xa0 terme", "1", "1", "1"),
      trade_json("ACME", "S\\u0045LL\\u0021", "1", "1", "1"),
      long_start + R"(", "side": "SHORT", "price": 1, "volume": 1, "ts": 1})",
      // Tombstones.
      std::nullopt,
      std::nullopt,
      // Edge cases that are trades.
      trade_json("ACME", "BUY", "1", "1.0", "1e3"),
      trade_json("ACME", "SELL", "-0.0", "-0", "0"),
      trade_json("ACME", "SELL", "0", "-5", "-1"),
      trade_json("ACME", "BUY", "12", "9223372036854775807", "-9223372036854775808"),
      trade_json("ACME", "BUY", "9007199254740992", "1", "1"),  // 2^53
      trade_json("ACME", "BUY", "18446744073709551616", "1", "1"),
      trade_json("ACME", "BUY", "1e-400", "1", "1"),
      trade_json("ACME", "BUY", "1.7976931348623157e308", "1", "1"),
      trade_json("ACME", "BUY", "0.1", "1", "1", R"("")"),
      trade_json("ACME", "BUY", "0.30000000000000004", "1", "1", "null"),
      trade_json("ACME", "SELL", "2.5e-3", "1E2", "1", R"("X\"NAS\\")"),
      R"({"symbol": "ACME", "symbol": "INIT", "side": "BUY", "price": 1, "volume": 1, "ts": 1})",
      R"({"sym\u0062ol": "\u00dcNI", "side": "SELL", "price": 1, "volume": 1, "ts": 1})",
      trade_json("\xc3\x9cn\xc3\xaf \xf0\x9f\x93\x88", "BUY", "3.25", "7", "6",
                 R"("\ud83d\udcc8")"),
      R"(  {"ts": 9, "volume": 8, "venue": "BATS", "price": 7.5, "side": "SELL", "symbol": "Z"} )",
      R"({"symbol": "ACME", "side": "BUY", "price": 1, "volume": 1, "ts": 1,)"
      R"( "extra": [1, {"a": null}], "note": -1e300, "more": "x"})",
      "\n" + trade_json("ACME", "BUY", "1", "1", "1") + "\r\n\t",
  };
}

// The demo's trades as JSON, random sides and venues, and after every sixth an adversarial
// record; keyed by symbol (a tenth with a null key), each on its partition.
std::vector<ProducerRecord> trades() {
  const auto adversarial = adversarial_values();
  const char* venues[] = {"", R"("XNAS")", R"("XNYS")", R"("BATS")", "null"};
  const char* keys[] = {"ACME", "INIT", "bad-key", "K\xc3\xa9y"};
  std::mt19937 random(23);
  std::vector<ProducerRecord> records;
  int n = 0;
  for (const auto& t : demo::generate_trades(7, 9'000)) {
    const std::string price = random() % 10 == 0 ? fmt::format("{}", t.trade.price / 3)
                                                 : fmt::format("{}", t.trade.price);
    ProducerRecord r{.topic = json_to_avro::kInputTopic,
                     .timestamp = Timestamp(t.timestamp),
                     .value = trade_json(t.trade.symbol, random() % 2 ? "BUY" : "SELL", price,
                                         std::to_string(t.trade.volume),
                                         std::to_string(t.timestamp), venues[random() % 5])};
    if (random() % 10 != 0) r.key = t.trade.symbol;
    records.push_back(std::move(r));
    if (++n % 6 == 0) {
      const auto& value = adversarial[(n / 6) % adversarial.size()];
      ProducerRecord bad{.topic = json_to_avro::kInputTopic,
                         .timestamp = Timestamp(t.timestamp),  // equal timestamps
                         .value = value};
      if (random() % 5 != 0) bad.key = keys[random() % 4];
      records.push_back(std::move(bad));
    }
  }
  for (std::size_t i = 0; i < records.size(); ++i) {
    auto& r = records[i];
    r.partition = r.key ? internal::partition_for_key(*r.key, kInputPartitions)
                        : Partition(static_cast<std::int32_t>(random() % kInputPartitions));
    switch (random() % 16) {
      case 0: r.headers.add("trace", fmt::format("t-{}", i)); break;
      case 1: r.headers.add("empty", std::nullopt); break;
      case 2:  // a dead letter read again: its old error headers stay, the new ones follow
        r.headers.add(std::string(kErrorKindHeader), "deserialization");
        r.headers.add(std::string(kErrorNodeHeader), "elsewhere");
        break;
      default: break;
    }
  }
  return records;
}

// The value of the last header `key` of `r`, or "".
std::string header(const OutputRecord& r, std::string_view key) {
  const Header* h = r.headers.last(key);
  return h != nullptr && h->value ? *h->value : "";
}

// `run` with the reason of each dead letter whose value is JSON but not a trade cut from its
// message: what follows "source read-json: cannot deserialize value of
// <topic>-<partition>@<offset>: json serde: cannot read json_to_avro::Trade from '<the value's
// first 64 bytes>[...]': ", which is the JSON library's (the rest must be equal). Other messages
// stay as they are.
AppRun without_json_reasons(AppRun run) {
  for (auto& [partition, records] : run.outputs.at(json_to_avro::kDeadLetterTopic)) {
    for (auto& r : records) {
      if (!r.value) continue;
      const std::string prefix = fmt::format(
          "source read-json: cannot deserialize value of {}-{}@{}: json serde: cannot read "
          "json_to_avro::Trade from '{}{}': ",
          header(r, kErrorTopicHeader), header(r, kErrorPartitionHeader),
          header(r, kErrorOffsetHeader), r.value->substr(0, 64), r.value->size() > 64 ? "..." : "");
      Headers headers;
      for (const auto& h : r.headers) {
        const bool reason = h.key == kErrorMessageHeader && h.value && h.value->starts_with(prefix);
        headers.add(h.key, reason ? prefix + "<the JSON library's reason>" : h.value);
      }
      r.headers = std::move(headers);
    }
  }
  return run;
}

std::size_t count(const PartitionRecords& records) {
  std::size_t n = 0;
  for (const auto& [partition, list] : records) n += list.size();
  return n;
}

// docs/compatibility.md#dead-letters-are-not-a-node: the twin's description without its
// dead-letter sink is Brook's.
const std::vector<std::pair<std::string, std::string>> kWithoutDeadLetterSink = {
    {"      --> write-avro, write-dead-letter\n", "      --> write-avro\n"},
    {"    Sink: write-dead-letter (topic: trades-dead-letter)\n      <-- to-generic\n", ""}};

TEST_F(ConformanceTest, JsonToAvroDescribesAsKafkaStreamsWithEveryOptimization) {
  const auto [brook, twin] = describe_both(kJsonToAvro, kEveryOptimization);
  expect_documented_description(kJsonToAvro, brook, twin, "dead-letters-are-not-a-node",
                                kWithoutDeadLetterSink, kWithEveryOptimization);
}

TEST_F(ConformanceTest, JsonToAvroConvertsAndDeadLettersAsKafkaStreams) {
  create_topics(kJsonToAvro);
  const auto input = trades();
  ASSERT_GE(input.size(), 10'000u);
  produce(input);
  const auto [brook, twin] = run_both(kJsonToAvro);
  expect_same_dropped_records(kJsonToAvro, brook, twin);
  expect_documented_description(kJsonToAvro, brook, twin, "dead-letters-are-not-a-node",
                                kWithoutDeadLetterSink);
  expect_same_stream(kJsonToAvro, json_to_avro::kOutputTopic, brook, twin);
  expect_same_stream(kJsonToAvro, json_to_avro::kDeadLetterTopic, without_json_reasons(brook),
                     without_json_reasons(twin));
  // Nothing lost, nothing doubled; each kind of error is there to be compared.
  for (const auto* run : {&brook, &twin}) {
    if (run->outputs.empty()) continue;  // the run failed, which run_both reported
    const auto& dead = run->outputs.at(json_to_avro::kDeadLetterTopic);
    EXPECT_EQ(count(run->outputs.at(json_to_avro::kOutputTopic)) + count(dead), input.size());
    std::map<std::string, int> by_node;
    for (const auto& [partition, list] : dead) {
      for (const auto& r : list) ++by_node[header(r, kErrorNodeHeader)];
    }
    EXPECT_GT(by_node["read-json"], 0);
    EXPECT_GT(by_node["write-avro"], 0);
  }
}

}  // namespace
}  // namespace brook::testing

// Every stateful operator on the real runtime (embedded log, 4 partitions, RocksDB and
// in-memory stores) gives the same final tables as the test driver. Aggregations over
// re-keyed data are order-independent here, since the runtime interleaves partitions
// differently from the driver.
#include <gmock/gmock.h>

#include "brook/kstream.h"
#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"
#include "embedded_fixture.h"

namespace brook::testing {
namespace {

using Table = std::map<std::string, std::string>;  // key -> latest value, as bytes
const std::vector<std::string> kOutputs = {
    "count-out",       "reduce-out",         "agg-out",          "table-out",
    "regroup-sum-out", "regroup-reduce-out", "regroup-count-out"};

std::int64_t length(const std::string& s) { return static_cast<std::int64_t>(s.size()); }

Topology every_operator() {
  StreamsBuilder builder;
  auto in = builder.stream<std::string, std::string>("in");
  in.group_by_key().count({.name = "count"}).to_stream().to("count-out");
  in.map_values(length)
      .group_by_key()
      .reduce([](std::int64_t a, std::int64_t b) { return std::max(a, b); },
              {.name = "reduce", .type = StoreType::kInMemory})
      .to_stream()
      .to("reduce-out");
  in.select_key([](const std::string&, const std::string& v) { return v.substr(0, 1); })
      .group_by_key({.name = "first-letter"})
      .aggregate([] { return std::int64_t{0}; },
                 [](const std::string&, const std::string& v, std::int64_t sum) {
                   return sum + length(v);
                 },
                 {.name = "agg", .caching = false})
      .to_stream()
      .to("agg-out");
  in.map_values([](const std::string& v) { return std::optional<std::string>(v); })
      .to_table({.name = "latest"})
      .filter([](const std::string&, const std::string& v) { return v.size() > 2; })
      .map_values([](const std::string& v) { return v + "!"; })
      .to_stream()
      .to("table-out");
  auto regrouped =
      builder.table<std::string, std::string>("tin", {}, {.name = "tin"})
          .filter_not([](const std::string&, const std::string& v) { return v.empty(); })
          .group_by([](const std::string& k, const std::string& v) {
            return KeyValue{v, length(k)};
          });
  regrouped
      .aggregate([] { return std::int64_t{0}; },
                 [](const std::string&, std::int64_t n, std::int64_t sum) { return sum + n; },
                 [](const std::string&, std::int64_t n, std::int64_t sum) { return sum - n; },
                 {.name = "regroup-sum"})
      .to_stream()
      .to("regroup-sum-out");
  regrouped
      .reduce([](std::int64_t a, std::int64_t b) { return a + b; },
              [](std::int64_t a, std::int64_t b) { return a - b; }, {.name = "regroup-reduce"})
      .to_stream()
      .to("regroup-reduce-out");
  regrouped.count({.name = "regroup-count", .type = StoreType::kInMemory})
      .to_stream()
      .to("regroup-count-out");
  return std::move(*builder.build());
}

using Input = std::vector<std::pair<std::string, std::optional<std::string>>>;

Input stream_input() {
  Input out;
  for (int i = 0; i < 600; ++i) {
    out.emplace_back("k" + std::to_string(i % 37),
                     std::string(1, char('a' + i % 5)) + std::string(i % 7, 'x'));
  }
  return out;
}

Input table_input() {
  Input out;
  for (int i = 0; i < 300; ++i) {
    const std::string key = "user" + std::to_string(i % 23);
    if (i % 11 == 0) {
      out.emplace_back(key, std::nullopt);  // a deletion
    } else {
      out.emplace_back(key, "city" + std::to_string(i % 4));
    }
  }
  return out;
}

class OperatorsTest : public EmbeddedFixture {
 protected:
  void SetUp() override {
    std::map<std::string, int> topics{{"in", 4}, {"tin", 4}};
    for (const auto& out : kOutputs) topics.emplace(out, 4);
    create_topics(topics);
  }

  Table latest(const std::string& topic) {
    Table out;
    for (const auto& r : read_all(topic)) apply(out, *r.key, r.value);
    return out;
  }

  static void apply(Table& table, const std::string& key, const std::optional<std::string>& value) {
    if (value) {
      table[key] = *value;
    } else {
      table.erase(key);
    }
  }
};

TEST_F(OperatorsTest, RuntimeAndTestDriverGiveTheSameFinalTables) {
  produce("in", stream_input());
  produce("tin", table_input());
  {
    Streams app(every_operator(),
                config({{"application.id", "operators"}, {"num.stream.threads", "2"}}));
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
  }

  TopologyTestDriver driver(every_operator());
  std::int64_t ts = 0;
  for (const auto& [key, value] : stream_input()) {
    driver.pipe_raw_input("in", key, value, Timestamp(++ts));
  }
  ts = 0;
  for (const auto& [key, value] : table_input()) {
    driver.pipe_raw_input("tin", key, value, Timestamp(++ts));
  }

  for (const auto& topic : kOutputs) {
    Table from_driver;
    for (const auto& r : driver.output_queue(topic)) apply(from_driver, *r.key, r.value);
    const Table from_runtime = latest(topic);
    EXPECT_FALSE(from_driver.empty()) << topic;
    EXPECT_EQ(from_runtime, from_driver) << topic;
  }
}

}  // namespace
}  // namespace brook::testing

// Foreign-key join of tables on the real runtime over the embedded log, with the two tables on
// topics of different partition counts: the results equal the test driver's, and the join's
// internal topics get the partition counts of the tables they lead to; responses find their
// rows on a left topic that another partitioner wrote; the right table's changes reach the join
// uncached.
#include <gmock/gmock.h>

#include <chrono>
#include <map>
#include <optional>
#include <thread>

#include "brook/internal/partitioner.h"
#include "brook/kstream.h"
#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"
#include "embedded_fixture.h"

namespace brook::testing {
namespace {

using Records = std::vector<std::pair<std::string, std::optional<std::string>>>;

// Orders "<customer>:<amount>" joined with customer names.
Topology orders_with_customers() {
  StreamsBuilder builder;
  auto orders = builder.table<std::string, std::string>("orders", {}, {.name = "orders"});
  auto customers = builder.table<std::string, std::string>("customers", {}, {.name = "customers"});
  orders
      .join(
          customers, [](const std::string& o) { return o.substr(0, o.find(':')); },
          [](const std::string& o, const std::string& c) { return o + " by " + c; }, {.name = "fk"})
      .to_stream()
      .to("out");
  return std::move(*builder.build());
}

Records customers(const std::string& suffix) {
  Records out;
  for (int c = 0; c < 10; ++c) out.emplace_back("c" + std::to_string(c), "name" + suffix);
  return out;
}
Records orders() {
  Records out;
  for (int i = 0; i < 60; ++i) {
    out.emplace_back("o" + std::to_string(i % 40),
                     "c" + std::to_string(i % 13) + ":" + std::to_string(i));
  }
  out.emplace_back("o5", std::nullopt);
  return out;
}

// Feeds the phases to a table: the latest value per key of the output.
std::map<std::string, std::string> latest(const std::vector<ConsumerRecord>& records) {
  std::map<std::string, std::string> table;
  for (const auto& r : records) {
    if (r.value) {
      table[*r.key] = *r.value;
    } else {
      table.erase(*r.key);
    }
  }
  return table;
}

class TableJoinsTest : public EmbeddedFixture {};

TEST_F(TableJoinsTest, ForeignKeyJoinOfTablesWithOtherPartitionCountsGivesWhatTheDriverGives) {
  create_topics({{"orders", 4}, {"customers", 3}, {"out", 2}});
  const std::vector<std::pair<std::string, Records>> phases = {
      {"customers", customers("-v1")},
      {"orders", orders()},
      {"customers", {{"c3", "name-v2"}, {"c4", std::nullopt}, {"c11", "late"}}}};
  for (const auto& [topic, records] : phases) {
    produce<std::optional<std::string>>(topic, records);
    Streams app(orders_with_customers(), config({{"application.id", "tables"}}));
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
  }
  with_log([](internal::EmbeddedLog& log) {
    auto registration = log.admin().describe_topic("tables-fk-subscription-registration-topic");
    ASSERT_TRUE(registration);
    EXPECT_EQ(registration->partitions, 3) << "as many as the customers' topic";
    auto response = log.admin().describe_topic("tables-fk-subscription-response-topic");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->partitions, 4) << "as many as the orders' topic";
  });
  const auto runtime = latest(read_all("out"));

  TopologyTestDriver driver(orders_with_customers());
  for (const auto& [topic, records] : phases) {
    auto input = driver.create_input_topic<std::string, std::optional<std::string>>(topic);
    for (const auto& [key, value] : records) input.pipe_input(key, value);
  }
  std::map<std::string, std::string> expected;
  for (auto& [key, value] :
       driver.create_output_topic<std::string, std::optional<std::string>>("out")
           .read_key_values_to_list()) {
    if (value) {
      expected[key] = *value;
    } else {
      expected.erase(key);
    }
  }
  EXPECT_EQ(runtime, expected);
  // o0..o19 hold orders 40..59, o20..o39 orders 20..39, of customer c<order % 13>: o2's is
  // c3's (renamed), o3's c4's (deleted), o10's c11's (arrived late), o11's c12's (none).
  EXPECT_EQ(runtime.at("o0"), "c1:40 by name-v1");
  EXPECT_EQ(runtime.at("o2"), "c3:42 by name-v2");
  EXPECT_FALSE(runtime.contains("o3"));
  EXPECT_EQ(runtime.at("o10"), "c11:50 by late");
  EXPECT_FALSE(runtime.contains("o11"));
  EXPECT_FALSE(runtime.contains("o5"));
  // All but o5 (deleted) and the orders of c4, c10 and c12 (o3 o9 o11 o16 o23 o25 o30 o36 o38).
  EXPECT_EQ(runtime.size(), 30u);
}

// As in Kafka Streams, a response goes back to the partition its row was read from, not to
// its key's: a left topic written by a partitioner of its own joins all the same.
TEST_F(TableJoinsTest, ResponsesGoBackToThePartitionOfTheirRowWhateverPartitionedItsTopic) {
  create_topics({{"orders", 4}, {"customers", 3}, {"out", 2}});
  produce<std::optional<std::string>>("customers", customers("-v1"));
  with_log([](internal::EmbeddedLog& log) {
    auto producer = std::move(*log.make_producer({}));
    for (int i = 0; i < 20; ++i) {
      const std::string key = "o" + std::to_string(i);
      const auto by_key = internal::partition_for_key(key, 4).value();
      ASSERT_TRUE(producer
                      ->send({.topic = "orders",
                              .partition = Partition((by_key + 1) % 4),
                              .timestamp = Timestamp(100 + i),
                              .key = key,
                              .value = "c" + std::to_string(i % 10) + ":" + std::to_string(i)})
                      .ok());
    }
    ASSERT_TRUE(producer->flush().ok());
  });
  Streams app(orders_with_customers(), config({{"application.id", "moved"}}));
  ASSERT_TRUE(app.start().ok());
  wait_until_idle(app);
  EXPECT_EQ(app.metrics().total("dropped-records-total"), 0) << "a response reached another task";
  ASSERT_TRUE(app.close().ok());
  const auto out = latest(read_all("out"));
  EXPECT_EQ(out.size(), 20u);
  EXPECT_EQ(out.at("o13"), "c3:13 by name-v1");
}

// docs/compatibility.md#the-right-table-of-a-foreign-key-join-has-no-record-cache: a customer
// created and deleted between two commits still reaches its subscriber, twice. Through a record
// cache only the net change, none, would reach the join, at the commit.
TEST_F(TableJoinsTest, ARightRowCreatedAndDeletedBetweenCommitsStillReachesItsSubscriber) {
  create_topics({{"orders", 1}, {"customers", 1}, {"out", 1}});
  auto run = [&](std::map<std::string, std::string> extra, std::int64_t processed) {
    extra.emplace("application.id", "uncached");
    Streams app(orders_with_customers(), config(std::move(extra)));
    ASSERT_TRUE(app.start().ok());
    if (processed == 0) {
      wait_until_idle(app);
    } else {  // without a commit until close()
      while (app.metrics().total("process-total") < processed) {
        ASSERT_NE(app.state(), Streams::State::kError);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    ASSERT_TRUE(app.close().ok());
  };
  produce<std::optional<std::string>>("orders", {{"o1", "c1:10"}});
  run({}, 0);  // o1 subscribes to c1, which does not exist: no result
  produce<std::optional<std::string>>("customers", {{"c1", "ann"}, {"c1", std::nullopt}});
  run({{"commit.interval.ms", "3600000"}}, 2);  // both customer records, one commit at close
  run({}, 0);                                   // the responses
  std::vector<std::optional<std::string>> results;
  for (const auto& r : read_all("out")) results.push_back(r.value);
  EXPECT_THAT(results, ::testing::ElementsAre("c1:10 by ann", std::nullopt));
}

}  // namespace
}  // namespace brook::testing

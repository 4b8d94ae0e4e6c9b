// Tables and aggregations through the test driver: every operator of KGroupedStream, KTable
// and KGroupedTable, with tombstones, re-keying and repartitioning.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/kstream.h"
#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"
#include "built_topology.h"

namespace brook {
namespace {

using testing::build;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TopologyTestDriver;
using Count = KeyValue<std::string, std::optional<std::int64_t>>;
using Text = KeyValue<std::string, std::optional<std::string>>;

TEST(KGroupedStream, CountsPerKeyAndEmitsEveryUpdateWhenTheDriverCommitsEachRecord) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("words")
      .group_by_key()
      .count({.name = "counts"})
      .to_stream()
      .to("counts-out");
  TopologyTestDriver driver(build(builder));
  auto in = driver.create_input_topic<std::string, std::string>("words");
  in.pipe_key_value_list({{"a", "x"}, {"b", "y"}, {"a", "z"}});
  auto out = driver.create_output_topic<std::string, std::optional<std::int64_t>>("counts-out");
  EXPECT_THAT(out.read_key_values_to_list(),
              ElementsAre(Count{"a", 1}, Count{"b", 1}, Count{"a", 2}));
  auto store = driver.timestamped_key_value_store<std::string, std::int64_t>("counts");
  EXPECT_EQ(store.get("a")->value, 2);
}

TEST(KGroupedStream, EachUpdateCarriesTheHeadersOfTheRecordThatCausedIt) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("words")
      .group_by_key()
      .count({.name = "counts"})
      .to_stream()
      .to("counts-out");
  TopologyTestDriver driver(build(builder));
  auto in = driver.create_input_topic<std::string, std::string>("words");
  in.pipe_input("a", "x", Timestamp(1), Headers{{"trace", "t1"}});
  in.pipe_input("a", "y", Timestamp(2), Headers{{"trace", "t2"}, {"flag", std::nullopt}});
  in.pipe_input("b", "z", Timestamp(3));
  auto out = driver.create_output_topic<std::string, std::optional<std::int64_t>>("counts-out");
  auto records = out.read_records_to_list();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].headers, (Headers{{"trace", "t1"}}));
  EXPECT_EQ(records[1].headers, (Headers{{"trace", "t2"}, {"flag", std::nullopt}}));
  EXPECT_TRUE(records[2].headers.empty());
}

TEST(KGroupedStream, GroupByRekeysThroughARepartitionTopic) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("lines")
      .group_by([](const std::string&, const std::string& v) { return v.substr(0, 1); },
                {.name = "by-letter", .partitions = 3})
      .count({.name = "letters"})
      .to_stream()
      .to("out");
  auto topology = build(builder);
  EXPECT_THAT(topology.describe(), HasSubstr("by-letter-repartition"));
  EXPECT_EQ(internal::topology_data(topology).subtopologies.size(), 2u);
  ASSERT_EQ(internal::topology_data(topology).repartition_topics.size(), 1u);
  EXPECT_EQ(internal::topology_data(topology).repartition_topics[0].partitions, 3);
  TopologyTestDriver driver(topology, {.application_id = "app"});
  auto in = driver.create_input_topic<std::string, std::string>("lines");
  in.pipe_key_value_list({{"1", "apple"}, {"2", "avocado"}, {"3", "banana"}});
  auto out = driver.create_output_topic<std::string, std::optional<std::int64_t>>("out");
  EXPECT_THAT(out.read_key_values_to_list(),
              ElementsAre(Count{"a", 1}, Count{"a", 2}, Count{"b", 1}));
  EXPECT_EQ(driver.output_queue("app-by-letter-repartition").size(), 3u);
  EXPECT_EQ(driver.output_queue("app-letters-changelog").size(), 3u);
}

TEST(KGroupedStream, ReduceAndAggregateKeepTheLargestTimestamp) {
  StreamsBuilder builder;
  auto grouped = builder.stream<std::string, std::int64_t>("in").group_by_key();
  grouped.reduce([](std::int64_t a, std::int64_t b) { return std::max(a, b); }, {.name = "max"})
      .to_stream()
      .to("max-out");
  grouped
      .aggregate([] { return std::string(); },
                 [](const std::string&, std::int64_t v, std::string acc) {
                   return acc + std::to_string(v);
                 },
                 {.name = "concat"})
      .to_stream()
      .to("concat-out");
  TopologyTestDriver driver(build(builder));
  auto in = driver.create_input_topic<std::string, std::int64_t>("in");
  in.pipe_input("k", 3, Timestamp(50));
  in.pipe_input("k", 1, Timestamp(20));  // out of order: the result keeps timestamp 50
  in.pipe_input("k", 7, Timestamp(60));
  auto max = driver.create_output_topic<std::string, std::optional<std::int64_t>>("max-out");
  EXPECT_THAT(max.read_values_to_list(), ElementsAre(3, 3, 7));
  auto concat = driver.create_output_topic<std::string, std::optional<std::string>>("concat-out");
  auto records = concat.read_records_to_list();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].value, "317");
  EXPECT_EQ(records[1].timestamp, Timestamp(50));
  EXPECT_EQ(records[2].timestamp, Timestamp(60));
}

// The table "users" (store "users"), its changes written to "users-out".
Topology users_table() {
  StreamsBuilder builder;
  builder.table<std::string, std::string>("users", {}, {.name = "users"})
      .to_stream()
      .to("users-out");
  return build(builder);
}

TEST(KTable, TableFromTopicAppliesUpsertsAndTombstones) {
  TopologyTestDriver driver(users_table());
  auto in = driver.create_input_topic<std::string, std::optional<std::string>>("users");
  in.pipe_input("u1", std::string("ann"));
  in.pipe_input("u1", std::string("anna"));
  in.pipe_input("u1", std::nullopt);
  in.pipe_input("u2", std::nullopt);  // deleting a missing key changes nothing
  auto out = driver.create_output_topic<std::string, std::optional<std::string>>("users-out");
  EXPECT_THAT(out.read_key_values_to_list(),
              ElementsAre(Text{"u1", "ann"}, Text{"u1", "anna"}, Text{"u1", std::nullopt}));
  auto users = driver.timestamped_key_value_store<std::string, std::string>("users");
  EXPECT_EQ(users.get("u1"), std::nullopt);
}

TEST(KTable, ARecordWithANullKeyIsDroppedAndCountedAndTheRestOfTheTableStays) {
  TopologyTestDriver driver(users_table());
  auto in = driver.create_input_topic<std::string, std::optional<std::string>>("users");
  in.pipe_input("u1", std::string("ann"));
  in.pipe_value(std::string("ghost"));  // read as the empty key, it would add a row
  in.pipe_value(std::nullopt);          // a null key and a null value
  in.pipe_input("u2", std::string("bob"));
  EXPECT_EQ(driver.metrics().total("dropped-records-total"), 2);
  auto out = driver.create_output_topic<std::string, std::optional<std::string>>("users-out");
  EXPECT_THAT(out.read_key_values_to_list(), ElementsAre(Text{"u1", "ann"}, Text{"u2", "bob"}));
  auto users = driver.timestamped_key_value_store<std::string, std::string>("users");
  EXPECT_EQ(users.get(""), std::nullopt);
  ASSERT_TRUE(users.get("u1").has_value());
  EXPECT_EQ(users.get("u1")->value, "ann");
}

TEST(KTable, FilterTurnsRejectedValuesIntoTombstonesOnlyWhereARowExisted) {
  StreamsBuilder builder;
  builder.table<std::string, std::int64_t>("scores")
      .filter([](const std::string&, std::int64_t v) { return v >= 10; })
      .to_stream()
      .to("out");
  TopologyTestDriver driver(build(builder));
  auto in = driver.create_input_topic<std::string, std::optional<std::int64_t>>("scores");
  in.pipe_input("a", 5);   // never passed: nothing
  in.pipe_input("a", 12);  // passes
  in.pipe_input("a", 3);   // stops passing: tombstone
  auto out = driver.create_output_topic<std::string, std::optional<std::int64_t>>("out");
  EXPECT_THAT(out.read_key_values_to_list(), ElementsAre(Count{"a", 12}, Count{"a", std::nullopt}));
}

TEST(KTable, MaterializeKeepsADerivedTableInAStoreOfItsOwn) {
  StreamsBuilder builder;
  auto scores = builder.table<std::string, std::int64_t>("scores", {}, {.name = "scores"});
  EXPECT_EQ(scores.materialize().store_name(), "scores");  // it has one already
  auto high = scores.filter([](const std::string&, std::int64_t v) { return v >= 10; })
                  .materialize({.name = "high"});
  EXPECT_EQ(high.store_name(), "high");
  high.to_stream().to("out");
  TopologyTestDriver driver(build(builder));
  auto in = driver.create_input_topic<std::string, std::optional<std::int64_t>>("scores");
  in.pipe_input("a", 12);
  in.pipe_input("b", 15);
  in.pipe_input("a", 3);  // leaves the table: deleted from the store, a tombstone downstream
  auto store = driver.timestamped_key_value_store<std::string, std::int64_t>("high");
  EXPECT_EQ(store.get("a"), std::nullopt);
  EXPECT_EQ(store.get("b")->value, 15);
  auto out = driver.create_output_topic<std::string, std::optional<std::int64_t>>("out");
  EXPECT_THAT(out.read_key_values_to_list(),
              ElementsAre(Count{"a", 12}, Count{"b", 15}, Count{"a", std::nullopt}));
}

TEST(KTable, MapValuesAndFilterNot) {
  StreamsBuilder builder;
  builder.table<std::string, std::string>("t")
      .map_values([](const std::string& v) { return static_cast<std::int64_t>(v.size()); })
      .filter_not([](const std::string&, std::int64_t n) { return n == 0; })
      .to_stream()
      .to("out");
  TopologyTestDriver driver(build(builder));
  auto in = driver.create_input_topic<std::string, std::optional<std::string>>("t");
  in.pipe_input("a", std::string("four"));
  in.pipe_input("b", std::string(""));
  auto out = driver.create_output_topic<std::string, std::optional<std::int64_t>>("out");
  EXPECT_THAT(out.read_key_values_to_list(), ElementsAre(Count{"a", 4}));
}

TEST(KStream, ToTableTreatsNulloptAsDelete) {
  StreamsBuilder builder;
  builder.stream<std::string, std::optional<std::string>>("in")
      .to_table({.name = "latest", .type = StoreType::kInMemory})
      .to_stream()
      .to("out");
  TopologyTestDriver driver(build(builder));
  auto in = driver.create_input_topic<std::string, std::optional<std::string>>("in");
  in.pipe_input("k", std::string("v1"));
  in.pipe_input("k", std::nullopt);
  auto out = driver.create_output_topic<std::string, std::optional<std::string>>("out");
  EXPECT_THAT(out.read_key_values_to_list(), ElementsAre(Text{"k", "v1"}, Text{"k", std::nullopt}));
}

// Users per city: moving a user retracts them from the old city first, then adds them to the
// new one; deleting a user only subtracts.
TEST(KGroupedTable, RekeyedAggregationSubtractsFromTheOldGroupBeforeAddingToTheNew) {
  StreamsBuilder builder;
  builder.table<std::string, std::string>("user-city")
      .group_by([](const std::string& user, const std::string& city) {
        return KeyValue{city, user};
      })
      .count({.name = "per-city"})
      .to_stream()
      .to("out");
  TopologyTestDriver driver(build(builder));
  auto in = driver.create_input_topic<std::string, std::optional<std::string>>("user-city");
  in.pipe_input("ann", std::string("oslo"));
  in.pipe_input("bob", std::string("oslo"));
  in.pipe_input("ann", std::string("rome"));
  in.pipe_input("bob", std::nullopt);
  auto out = driver.create_output_topic<std::string, std::optional<std::int64_t>>("out");
  EXPECT_THAT(out.read_key_values_to_list(),
              ElementsAre(Count{"oslo", 1}, Count{"oslo", 2}, Count{"oslo", 1}, Count{"rome", 1},
                          Count{"oslo", 0}));
}

TEST(KGroupedTable, AggregateAndReduceWithAdderAndSubtractor) {
  StreamsBuilder builder;
  auto grouped = builder.table<std::string, std::int64_t>("balances")
                     .group_by([](const std::string& account, std::int64_t amount) {
                       return KeyValue{account.substr(0, 1), amount};
                     });
  grouped
      .aggregate([] { return std::int64_t{0}; },
                 [](const std::string&, std::int64_t v, std::int64_t sum) { return sum + v; },
                 [](const std::string&, std::int64_t v, std::int64_t sum) { return sum - v; },
                 {.name = "sum"})
      .to_stream()
      .to("sum-out");
  grouped
      .reduce([](std::int64_t a, std::int64_t b) { return a + b; },
              [](std::int64_t a, std::int64_t b) { return a - b; }, {.name = "reduced"})
      .to_stream()
      .to("reduce-out");
  TopologyTestDriver driver(build(builder));
  auto in = driver.create_input_topic<std::string, std::optional<std::int64_t>>("balances");
  in.pipe_input("a1", 10);
  in.pipe_input("a2", 5);
  in.pipe_input("a1", 7);  // same group: one update, minus 10 plus 7
  auto sums = driver.create_output_topic<std::string, std::optional<std::int64_t>>("sum-out");
  EXPECT_THAT(sums.read_values_to_list(), ElementsAre(10, 15, 12));
  auto reduced = driver.create_output_topic<std::string, std::optional<std::int64_t>>("reduce-out");
  EXPECT_THAT(reduced.read_values_to_list(), ElementsAre(10, 15, 12));
}

TEST(KStream, ExplicitRepartitionStartsANewSubtopology) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .repartition({.name = "spread", .partitions = 4})
      .to("out");
  auto topology = build(builder);
  ASSERT_EQ(internal::topology_data(topology).repartition_topics.size(), 1u);
  EXPECT_EQ(internal::topology_data(topology).repartition_topics[0].name, "spread-repartition");
  EXPECT_EQ(internal::topology_data(topology).repartition_topics[0].partitions, 4);
  TopologyTestDriver driver(topology);
  driver.create_input_topic<std::string, std::string>("in").pipe_input("k", "v");
  auto out = driver.create_output_topic<std::string, std::string>("out");
  EXPECT_THAT(out.read_values_to_list(), ElementsAre("v"));
}

// Keys each word by its first letter.
class KeyByFirstLetter final
    : public Processor<std::string, std::string, std::string, std::string> {
 public:
  void process(Record<std::string, std::string> r) override {
    context().forward(r.with_key(r.value.substr(0, 1)));
  }
};

TEST(KStream, AggregationAfterProcessRepartitionsAsTheProcessorMayChangeKeys) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .process([] { return std::make_unique<KeyByFirstLetter>(); })
      .group_by_key({.name = "by-letter"})
      .count({.name = "letters"})
      .to_stream()
      .to("out");
  auto topology = build(builder);
  EXPECT_EQ(internal::topology_data(topology).subtopologies.size(), 2u);
  EXPECT_THAT(topology.describe(), HasSubstr("by-letter-repartition"));
  TopologyTestDriver driver(topology);
  auto in = driver.create_input_topic<std::string, std::string>("in");
  in.pipe_key_value_list({{"1", "apple"}, {"2", "avocado"}});
  auto out = driver.create_output_topic<std::string, std::optional<std::int64_t>>("out");
  EXPECT_THAT(out.read_key_values_to_list(), ElementsAre(Count{"a", 1}, Count{"a", 2}));
}

TEST(StreamsBuilder, DuplicateStoreNamesAreReported) {
  StreamsBuilder builder;
  auto grouped = builder.stream<std::string, std::string>("in").group_by_key();
  grouped.count({.name = "same"});
  grouped.count({.name = "same"});
  auto topology = builder.build();
  ASSERT_FALSE(topology);
  EXPECT_THAT(topology.error().message(), HasSubstr("state store same: duplicate store name"));
}

struct Opaque {
  int n = 0;
};

TEST(StreamsBuilder, MissingStoreAndRepartitionSerdesAreReportedNamingTheirNodes) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .group_by([](const std::string&, const std::string& v) { return Opaque{int(v.size())}; },
                {.name = "by-size"})
      .aggregate([] { return Opaque{}; },
                 [](const Opaque&, const std::string&, Opaque o) { return o; },
                 {.name = "opaque-store"});
  auto topology = builder.build();
  ASSERT_FALSE(topology);
  const auto& message = topology.error().message();
  EXPECT_THAT(message, HasSubstr("store opaque-store: no key serde for type brook::(anonymous "
                                 "namespace)::Opaque; give one in Materialized{.key_serde = ...}"));
  EXPECT_THAT(message, HasSubstr("store opaque-store: no value serde"));
  EXPECT_THAT(message, HasSubstr("repartition by-size-repartition-sink: no key serde"));
}

}  // namespace
}  // namespace brook

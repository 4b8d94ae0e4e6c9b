// Stream-table joins through the test driver: inner and left, table updates and deletes,
// re-keyed streams, tables without a store, streams with null keys.
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
using StreamTableOut = KeyValue<std::string, std::string>;

std::string describe(const std::string& click, const std::optional<std::string>& profile) {
  return click + " by " + profile.value_or("?");
}

struct StreamTableApp {
  explicit StreamTableApp(StreamsBuilder& builder)
      : driver(build(builder)),
        clicks(driver.create_input_topic<std::string, std::string>("clicks")),
        profiles(driver.create_input_topic<std::string, std::optional<std::string>>("profiles")),
        out(driver.create_output_topic<std::string, std::string>("out")) {}
  TopologyTestDriver driver;
  testing::TestInputTopic<std::string, std::string> clicks;
  testing::TestInputTopic<std::string, std::optional<std::string>> profiles;
  testing::TestOutputTopic<std::string, std::string> out;
};

TEST(StreamTableJoin, InnerJoinEnrichesMatchesAndDropsTheRest) {
  StreamsBuilder builder;
  auto profiles = builder.table<std::string, std::string>("profiles");
  builder.stream<std::string, std::string>("clicks")
      .join(profiles, [](const std::string& c, const std::string& p) { return describe(c, p); })
      .to("out");
  StreamTableApp run(builder);
  run.clicks.pipe_input("u1", "home", Timestamp(1));  // no profile yet: nothing
  run.profiles.pipe_input("u1", "ann, 34", Timestamp(2));
  run.clicks.pipe_input("u1", "cart", Timestamp(3));
  run.clicks.pipe_input("u2", "home", Timestamp(4));
  EXPECT_THAT(run.out.read_key_values_to_list(),
              ElementsAre(StreamTableOut{"u1", "cart by ann, 34"}));
}

TEST(StreamTableJoin, LeftJoinKeepsUnmatchedRecordsAndTableUpdatesOnlyChangeLaterOnes) {
  StreamsBuilder builder;
  auto profiles = builder.table<std::string, std::string>("profiles");
  builder.stream<std::string, std::string>("clicks").left_join(profiles, describe).to("out");
  StreamTableApp run(builder);
  run.clicks.pipe_input("u1", "home", Timestamp(1));
  run.profiles.pipe_input("u1", "ann, 34", Timestamp(2));
  run.clicks.pipe_input("u1", "cart", Timestamp(3));
  run.profiles.pipe_input("u1", "ann, 35", Timestamp(4));  // only updates the table
  run.clicks.pipe_input("u1", "pay", Timestamp(5));
  run.profiles.pipe_input("u1", std::nullopt, Timestamp(6));  // deleted
  run.clicks.pipe_input("u1", "exit", Timestamp(7));
  const auto results = run.out.read_records_to_list();
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].value, "home by ?");
  EXPECT_EQ(results[1].value, "cart by ann, 34");
  EXPECT_EQ(results[2].value, "pay by ann, 35");
  EXPECT_EQ(results[3].value, "exit by ?");
  EXPECT_EQ(results[2].timestamp, Timestamp(5)) << "the stream record's timestamp";
}

TEST(StreamTableJoin, AReKeyedStreamIsRepartitionedAndAFilteredTableMaterialised) {
  StreamsBuilder builder;
  auto adults = builder.table<std::string, std::string>("profiles")
                    .filter([](const std::string&, const std::string& p) { return p != "kid"; });
  builder.stream<std::string, std::string>("clicks")
      .select_key([](const std::string&, const std::string& v) { return v.substr(0, 2); })
      .join(adults, [](const std::string& c, const std::string& p) { return describe(c, p); },
            {.name = "enrich"})
      .to("out");
  auto topology = build(builder);
  EXPECT_THAT(topology.describe(), HasSubstr("enrich-repartition"));
  EXPECT_THAT(topology.describe(), HasSubstr("KTABLE-MATERIALIZE-STATE-STORE"));
  ASSERT_EQ(internal::topology_data(topology).copartition_groups.size(), 1u);
  EXPECT_EQ(internal::topology_data(topology).copartition_groups[0].join, "enrich");

  TopologyTestDriver driver(topology);
  auto profiles = driver.create_input_topic<std::string, std::optional<std::string>>("profiles");
  auto clicks = driver.create_input_topic<std::string, std::string>("clicks");
  profiles.pipe_input("u1", "ann", Timestamp(1));
  profiles.pipe_input("u2", "kid", Timestamp(2));
  clicks.pipe_input("x", "u1:home", Timestamp(3));
  clicks.pipe_input("y", "u2:home", Timestamp(4));  // u2 is filtered out of the table
  auto out = driver.create_output_topic<std::string, std::string>("out");
  EXPECT_THAT(out.read_key_values_to_list(), ElementsAre(StreamTableOut{"u1", "u1:home by ann"}));
}

// Streams keyed by std::optional<std::string>, joined with a table keyed by std::string.
using NullableKey = std::optional<std::string>;
using NullableOut = KeyValue<NullableKey, std::string>;

struct NullableKeyApp {
  explicit NullableKeyApp(StreamsBuilder& builder)
      : driver(build(builder), {.application_id = "app"}),
        clicks(driver.create_input_topic<NullableKey, std::string>("clicks")),
        profiles(driver.create_input_topic<std::string, std::optional<std::string>>("profiles")),
        out(driver.create_output_topic<NullableKey, std::string>("out")) {}
  std::int64_t dropped() const { return driver.metrics().total("dropped-records-total"); }
  TopologyTestDriver driver;
  testing::TestInputTopic<NullableKey, std::string> clicks;
  testing::TestInputTopic<std::string, std::optional<std::string>> profiles;
  testing::TestOutputTopic<NullableKey, std::string> out;
};

TEST(StreamTableJoin, InnerJoinDropsAndCountsNullKeyedRecords) {
  StreamsBuilder builder;
  auto profiles = builder.table<std::string, std::string>("profiles");
  builder.stream<NullableKey, std::string>("clicks")
      .join(profiles, [](const std::string& c, const std::string& p) { return describe(c, p); })
      .to("out");
  NullableKeyApp run(builder);
  run.profiles.pipe_input("u1", "ann", Timestamp(1));
  run.profiles.pipe_input("", "nobody", Timestamp(2));  // a null key must not find the empty one
  run.clicks.pipe_value("home", Timestamp(3));
  run.clicks.pipe_input("u1", "cart", Timestamp(4));
  EXPECT_THAT(run.out.read_key_values_to_list(), ElementsAre(NullableOut{"u1", "cart by ann"}));
  EXPECT_EQ(run.dropped(), 1);
}

TEST(StreamTableJoin, LeftJoinEmitsNullKeyedRecordsUnmatchedUnderTheNullKey) {
  StreamsBuilder builder;
  auto profiles = builder.table<std::string, std::string>("profiles");
  builder.stream<NullableKey, std::string>("clicks").left_join(profiles, describe).to("out");
  NullableKeyApp run(builder);
  run.profiles.pipe_input("u1", "ann", Timestamp(1));
  run.profiles.pipe_input("", "nobody", Timestamp(2));
  run.clicks.pipe_value("home", Timestamp(3));
  run.clicks.pipe_input("u1", "cart", Timestamp(4));
  const auto results = run.out.read_records_to_list();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].key, std::nullopt);
  EXPECT_EQ(results[0].value, "home by ?");
  EXPECT_EQ(results[0].timestamp, Timestamp(3));
  EXPECT_EQ(results[1].key, NullableKey("u1"));
  EXPECT_EQ(results[1].value, "cart by ann");
  EXPECT_EQ(run.dropped(), 0);
}

// Clicks keyed by the first two letters of their value (none for "anon..."), left-joined with
// profiles.
Topology rekeyed_clicks_with_profiles() {
  StreamsBuilder builder;
  auto profiles = builder.table<std::string, std::string>("profiles");
  builder.stream<std::string, std::string>("clicks")
      .select_key([](const std::string&, const std::string& v) -> NullableKey {
        if (v.starts_with("anon")) return std::nullopt;
        return v.substr(0, 2);
      })
      .left_join(profiles, describe, {.name = "enrich"})
      .to("out");
  return build(builder);
}

TEST(StreamTableJoin, AStreamReKeyedToOptionalKeysIsRepartitionedWithTheTablesKeyBytes) {
  auto topology = rekeyed_clicks_with_profiles();
  ASSERT_EQ(internal::topology_data(topology).copartition_groups.size(), 1u);
  EXPECT_EQ(internal::topology_data(topology).copartition_groups[0].join, "enrich");

  TopologyTestDriver driver(topology, {.application_id = "app"});
  auto clicks = driver.create_input_topic<std::string, std::string>("clicks");
  driver.create_input_topic<std::string, std::optional<std::string>>("profiles")
      .pipe_input("u1", "ann", Timestamp(1));
  clicks.pipe_input("x", "u1:home", Timestamp(2));
  clicks.pipe_input("y", "anon:home", Timestamp(3));
  const auto& repartitioned = driver.output_queue("app-enrich-repartition");
  ASSERT_EQ(repartitioned.size(), 2u);
  EXPECT_EQ(repartitioned[0].key, StringSerde().serialize("u1").value()) << "as the table's";
  EXPECT_EQ(repartitioned[1].key, std::nullopt);
  auto out = driver.create_output_topic<NullableKey, std::string>("out");
  EXPECT_THAT(out.read_key_values_to_list(),
              ElementsAre(NullableOut{"u1", "u1:home by ann"},
                          NullableOut{std::nullopt, "anon:home by ?"}));
}

TEST(StreamTableJoin, AReKeyedStreamJoinsThroughARepartitionDescribedAsKafkaStreams) {
  // Kafka Streams 3.9's describe() of the same DSL.
  EXPECT_EQ(rekeyed_clicks_with_profiles().describe(),
            "Topologies:\n"
            "   Sub-topology: 0\n"
            "    Source: enrich-repartition-source (topics: [enrich-repartition])\n"
            "      --> enrich\n"
            "    Source: KSTREAM-SOURCE-0000000001 (topics: [profiles])\n"
            "      --> KTABLE-SOURCE-0000000002\n"
            "    Processor: enrich (stores: [profiles-STATE-STORE-0000000000])\n"
            "      --> KSTREAM-SINK-0000000009\n"
            "      <-- enrich-repartition-source\n"
            "    Sink: KSTREAM-SINK-0000000009 (topic: out)\n"
            "      <-- enrich\n"
            "    Processor: KTABLE-SOURCE-0000000002 (stores: [profiles-STATE-STORE-0000000000])\n"
            "      --> none\n"
            "      <-- KSTREAM-SOURCE-0000000001\n"
            "\n"
            "  Sub-topology: 1\n"
            "    Source: KSTREAM-SOURCE-0000000003 (topics: [clicks])\n"
            "      --> KSTREAM-KEY-SELECT-0000000004\n"
            "    Processor: KSTREAM-KEY-SELECT-0000000004 (stores: [])\n"
            "      --> enrich-repartition-filter\n"
            "      <-- KSTREAM-SOURCE-0000000003\n"
            "    Processor: enrich-repartition-filter (stores: [])\n"
            "      --> enrich-repartition-sink\n"
            "      <-- KSTREAM-KEY-SELECT-0000000004\n"
            "    Sink: enrich-repartition-sink (topic: enrich-repartition)\n"
            "      <-- enrich-repartition-filter\n"
            "\n");
}

}  // namespace
}  // namespace brook

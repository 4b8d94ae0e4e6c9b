// topology.optimization through the test driver: what each optimisation changes in the
// topology, and that the same input gives the same output with "none" and "all".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/kstream.h"
#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"

namespace brook {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TopologyTestDriver;
using Config = std::map<std::string, std::string>;
using Count = KeyValue<std::string, std::optional<std::int64_t>>;
using Text = KeyValue<std::string, std::optional<std::string>>;

const Config kNone = {{"topology.optimization", "none"}};
const Config kAll = {{"topology.optimization", "all"}};

Topology build(StreamsBuilder& builder, const Config& config) {
  auto topology = builder.build(config);
  EXPECT_TRUE(topology) << topology.error().to_string();
  return std::move(*topology);
}

// Words re-keyed by their first letter, then counted (non-empty words only) and concatenated
// per letter: two key-based operators downstream of one key change.
Topology two_aggregations(const Config& config) {
  StreamsBuilder builder;
  auto by_letter = builder.stream<std::string, std::string>("words").select_key(
      [](const std::string&, const std::string& word) { return word.substr(0, 1); },
      {.name = "by-letter"});
  by_letter.filter([](const std::string&, const std::string& word) { return word.size() > 1; })
      .group_by_key()
      .count({.name = "counts"})
      .to_stream()
      .to("counts-out");
  by_letter.group_by_key()
      .reduce([](const std::string& a, const std::string& b) { return a + "+" + b; },
              {.name = "words-per-letter"})
      .to_stream()
      .to("words-out");
  return build(builder, config);
}

struct Outputs {
  std::vector<Count> counts;
  std::vector<Text> words;
};

Outputs run_two_aggregations(const Config& config) {
  TopologyTestDriver driver(two_aggregations(config));
  auto in = driver.create_input_topic<std::string, std::string>("words");
  in.pipe_key_value_list({{"1", "apple"}, {"2", "a"}, {"3", "banana"}, {"4", "avocado"}});
  return {
      driver.create_output_topic<std::string, std::optional<std::int64_t>>("counts-out")
          .read_key_values_to_list(),
      driver.create_output_topic<std::string, std::optional<std::string>>("words-out")
          .read_key_values_to_list(),
  };
}

std::vector<std::string> repartition_topics(const Topology& topology) {
  std::vector<std::string> names;
  for (const auto& topic : internal::topology_data(topology).repartition_topics)
    names.push_back(topic.name);
  return names;
}

TEST(MergeRepartitionTopics, TwoAggregationsAfterOneKeyChangeShareOneRepartitionTopic) {
  const auto none = two_aggregations(kNone);
  EXPECT_THAT(repartition_topics(none),
              ElementsAre("counts-repartition", "words-per-letter-repartition"));
  EXPECT_EQ(internal::topology_data(none).subtopologies.size(), 3u);
  const auto all = two_aggregations(kAll);
  EXPECT_THAT(repartition_topics(all), ElementsAre("counts-repartition"));
  EXPECT_EQ(internal::topology_data(all).subtopologies.size(), 2u);
  EXPECT_TRUE(internal::topology_data(all).optimizations.merge_repartition_topics);
}

TEST(MergeRepartitionTopics, TheFilterBetweenKeyChangeAndRepartitionRunsBehindTheMergedTopic) {
  // Kafka Streams 3.9's describe() of the same DSL with topology.optimization=all.
  EXPECT_EQ(two_aggregations(kAll).describe(),
            "Topologies:\n"
            "   Sub-topology: 0\n"
            "    Source: KSTREAM-SOURCE-0000000000 (topics: [words])\n"
            "      --> by-letter\n"
            "    Processor: by-letter (stores: [])\n"
            "      --> counts-repartition-filter\n"
            "      <-- KSTREAM-SOURCE-0000000000\n"
            "    Processor: counts-repartition-filter (stores: [])\n"
            "      --> counts-repartition-sink\n"
            "      <-- by-letter\n"
            "    Sink: counts-repartition-sink (topic: counts-repartition)\n"
            "      <-- counts-repartition-filter\n"
            "\n"
            "  Sub-topology: 1\n"
            "    Source: counts-repartition-source (topics: [counts-repartition])\n"
            "      --> KSTREAM-FILTER-0000000002, KSTREAM-REDUCE-0000000009\n"
            "    Processor: KSTREAM-FILTER-0000000002 (stores: [])\n"
            "      --> KSTREAM-AGGREGATE-0000000003\n"
            "      <-- counts-repartition-source\n"
            "    Processor: KSTREAM-AGGREGATE-0000000003 (stores: [counts])\n"
            "      --> KTABLE-TOSTREAM-0000000007\n"
            "      <-- KSTREAM-FILTER-0000000002\n"
            "    Processor: KSTREAM-REDUCE-0000000009 (stores: [words-per-letter])\n"
            "      --> KTABLE-TOSTREAM-0000000013\n"
            "      <-- counts-repartition-source\n"
            "    Processor: KTABLE-TOSTREAM-0000000007 (stores: [])\n"
            "      --> KSTREAM-SINK-0000000008\n"
            "      <-- KSTREAM-AGGREGATE-0000000003\n"
            "    Processor: KTABLE-TOSTREAM-0000000013 (stores: [])\n"
            "      --> KSTREAM-SINK-0000000014\n"
            "      <-- KSTREAM-REDUCE-0000000009\n"
            "    Sink: KSTREAM-SINK-0000000008 (topic: counts-out)\n"
            "      <-- KTABLE-TOSTREAM-0000000007\n"
            "    Sink: KSTREAM-SINK-0000000014 (topic: words-out)\n"
            "      <-- KTABLE-TOSTREAM-0000000013\n"
            "\n");
}

TEST(MergeRepartitionTopics, TheOutputIsTheSameWithAndWithout) {
  const auto none = run_two_aggregations(kNone);
  EXPECT_THAT(none.counts, ElementsAre(Count{"a", 1}, Count{"b", 1}, Count{"a", 2}));
  EXPECT_THAT(none.words, ElementsAre(Text{"a", "apple"}, Text{"a", "apple+a"}, Text{"b", "banana"},
                                      Text{"a", "apple+a+avocado"}));
  const auto all = run_two_aggregations(kAll);
  EXPECT_EQ(all.counts, none.counts);
  EXPECT_EQ(all.words, none.words);
}

TEST(MergeRepartitionTopics, BothSidesOfAJoinAfterOneKeyChangeReadOneTopic) {
  auto run = [](const Config& config) {
    StreamsBuilder builder;
    auto by_letter = builder.stream<std::string, std::string>("words").select_key(
        [](const std::string&, const std::string& word) { return word.substr(0, 1); });
    by_letter
        .join(by_letter.filter([](const std::string&, const std::string& w) { return w != "a"; }),
              [](const std::string& a, const std::string& b) { return a + "/" + b; },
              JoinWindows::of_time_difference_with_no_grace(std::chrono::minutes(1)),
              {.name = "pairs"})
        .to("pairs-out");
    const auto topology = build(builder, config);
    const auto topics = repartition_topics(topology);
    TopologyTestDriver driver(topology);
    auto in = driver.create_input_topic<std::string, std::string>("words");
    in.pipe_key_value_list({{"1", "apple"}, {"2", "a"}, {"3", "avocado"}});
    auto out = driver.create_output_topic<std::string, std::string>("pairs-out");
    std::vector<std::string> values = out.read_values_to_list();
    std::sort(values.begin(), values.end());
    return std::pair{topics, values};
  };
  const auto [none_topics, none_pairs] = run(kNone);
  EXPECT_THAT(none_topics, ElementsAre("pairs-left-repartition", "pairs-right-repartition"));
  EXPECT_THAT(none_pairs, ElementsAre("a/apple", "a/avocado", "apple/apple", "apple/avocado",
                                      "avocado/apple", "avocado/avocado"));
  const auto [all_topics, all_pairs] = run(kAll);
  EXPECT_THAT(all_topics, ElementsAre("pairs-left-repartition"));
  EXPECT_EQ(all_pairs, none_pairs);
}

TEST(MergeRepartitionTopics, AfterAMergeOfReKeyedStreamsTheMergeIsTheKeyChange) {
  auto run = [](const Config& config) {
    StreamsBuilder builder;
    auto first_letter = [](const std::string&, const std::string& w) { return w.substr(0, 1); };
    auto words = builder.stream<std::string, std::string>("words").select_key(first_letter);
    auto names = builder.stream<std::string, std::string>("names").select_key(first_letter);
    auto all = words.merge(names);
    all.group_by_key().count({.name = "counts"}).to_stream().to("counts-out");
    all.group_by_key()
        .reduce([](const std::string& a, const std::string& b) { return a + "+" + b; },
                {.name = "joined"})
        .to_stream()
        .to("joined-out");
    const auto topology = build(builder, config);
    const auto topics = repartition_topics(topology);
    TopologyTestDriver driver(topology);
    driver.create_input_topic<std::string, std::string>("words").pipe_input("1", "apple");
    driver.create_input_topic<std::string, std::string>("names").pipe_input("2", "anna");
    driver.create_input_topic<std::string, std::string>("words").pipe_input("3", "bee");
    return std::tuple{
        topics,
        driver.create_output_topic<std::string, std::optional<std::int64_t>>("counts-out")
            .read_key_values_to_list(),
        driver.create_output_topic<std::string, std::optional<std::string>>("joined-out")
            .read_key_values_to_list()};
  };
  const auto [none_topics, none_counts, none_joined] = run(kNone);
  EXPECT_THAT(none_topics, ElementsAre("counts-repartition", "joined-repartition"));
  EXPECT_THAT(none_counts, ElementsAre(Count{"a", 1}, Count{"a", 2}, Count{"b", 1}));
  EXPECT_THAT(none_joined,
              ElementsAre(Text{"a", "apple"}, Text{"a", "apple+anna"}, Text{"b", "bee"}));
  const auto [all_topics, all_counts, all_joined] = run(kAll);
  EXPECT_THAT(all_topics, ElementsAre("counts-repartition"));
  EXPECT_EQ(all_counts, none_counts);
  EXPECT_EQ(all_joined, none_joined);
}

// select_key, then a map_values before one aggregation, and the given partition counts.
Topology with_value_change(const Config& config, std::int32_t counts_partitions = 0) {
  StreamsBuilder builder;
  auto by_letter = builder.stream<std::string, std::string>("words").select_key(
      [](const std::string&, const std::string& word) { return word.substr(0, 1); });
  by_letter.map_values([](const std::string& word) { return word + "!"; })
      .group_by_key()
      .count({.name = "loud"});
  by_letter.group_by_key({.partitions = counts_partitions}).count({.name = "counts"});
  by_letter.group_by_key().count({.name = "more-counts"});
  return build(builder, config);
}

TEST(MergeRepartitionTopics, ARepartitionBehindAValueChangeStaysAsItIs) {
  const auto all = with_value_change(kAll);
  EXPECT_THAT(repartition_topics(all), ElementsAre("loud-repartition", "counts-repartition"));
  EXPECT_THAT(repartition_topics(with_value_change(kNone)),
              ElementsAre("loud-repartition", "counts-repartition", "more-counts-repartition"));
}

TEST(MergeRepartitionTopics, RepartitionsOfDifferentPartitionCountsStayAsTheyAre) {
  const auto none = with_value_change(kNone, 4);
  const auto all = with_value_change(kAll, 4);
  EXPECT_EQ(all.describe(), none.describe());
  EXPECT_EQ(repartition_topics(all), repartition_topics(none));
}

// The table of topic "users" (its store "users", `materialized` otherwise), joined by clicks.
Topology users_table(const Config& config,
                     Materialized<std::string, std::int64_t> materialized = {},
                     Consumed<std::string, std::optional<std::int64_t>> consumed = {}) {
  StreamsBuilder builder;
  materialized.name = "users";
  auto users = builder.table<std::string, std::int64_t>("users", consumed, materialized);
  builder.stream<std::string, std::string>("clicks")
      .join(users, [](const std::string& click,
                      std::int64_t age) { return click + "@" + std::to_string(age); })
      .to("out");
  return build(builder, config);
}

TEST(ReuseTableSourceTopics, ATablesStoreTakesItsSourceTopicAsItsChangelog) {
  const auto none = users_table(kNone);
  EXPECT_TRUE(internal::topology_data(none).store("users")->logging);
  EXPECT_EQ(internal::topology_data(none).store("users")->source_topic, "");
  const auto all = users_table(kAll);
  const auto& store = *internal::topology_data(all).store("users");
  EXPECT_FALSE(store.logging);
  EXPECT_EQ(store.source_topic, "users");
  EXPECT_TRUE(internal::topology_data(all).optimizations.reuse_table_source_topics);
}

TEST(ReuseTableSourceTopics, AStoreWithoutLoggingOrATableWithExtractedTimestampsKeepsItsOwn) {
  const auto unlogged = users_table(kAll, {.logging = false});
  EXPECT_EQ(internal::topology_data(unlogged).store("users")->source_topic, "");
  const auto extracted = users_table(
      kAll, {}, {.timestamp_extractor = [](const auto&, Timestamp) { return Timestamp(7); }});
  EXPECT_TRUE(internal::topology_data(extracted).store("users")->logging);
  EXPECT_EQ(internal::topology_data(extracted).store("users")->source_topic, "");
}

TEST(ReuseTableSourceTopics, ASourceRecordBecomesTheEntryTheTablesSourceWrites) {
  const auto topology = users_table(kAll);
  const auto& from_source = internal::topology_data(topology).store("users")->from_source;
  ASSERT_TRUE(from_source);
  const auto age = *Int64Serde().serialize(42);
  auto entry = from_source("ann", age, Timestamp(5));
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->key, "ann");
  EXPECT_EQ(entry->value, *TimestampedSerde<std::int64_t>(std::make_shared<Int64Serde>())
                               .serialize({42, Timestamp(5)}));
  auto tombstone = from_source("ann", std::nullopt, Timestamp(6));
  ASSERT_TRUE(tombstone);
  EXPECT_EQ(tombstone->value, std::nullopt);
  EXPECT_FALSE(from_source(std::nullopt, age, Timestamp(5))) << "a row needs a key";
  EXPECT_FALSE(from_source("ann", "abc", Timestamp(5))) << "not an int64";
  EXPECT_FALSE(from_source("ann", age, Timestamp(-1))) << "an invalid timestamp";
}

TEST(ReuseTableSourceTopics, TheJoinsOutputIsTheSameWithAndWithout) {
  auto run = [](const Config& config) {
    TopologyTestDriver driver(users_table(config));
    auto users = driver.create_input_topic<std::string, std::optional<std::int64_t>>("users");
    auto clicks = driver.create_input_topic<std::string, std::string>("clicks");
    users.pipe_input("ann", 42);
    clicks.pipe_input("ann", "home");
    users.pipe_input("ann", 43);
    clicks.pipe_input("ann", "cart");
    users.pipe_input("ann", std::nullopt);
    clicks.pipe_input("ann", "pay");
    return driver.create_output_topic<std::string, std::string>("out").read_values_to_list();
  };
  EXPECT_THAT(run(kNone), ElementsAre("home@42", "cart@43"));
  EXPECT_EQ(run(kAll), run(kNone));
}

TEST(TopologyOptimization, NamesAndTheirSpellings) {
  using internal::Optimizations;
  using internal::parse_optimizations;
  const Optimizations all{.merge_repartition_topics = true, .reuse_table_source_topics = true};
  EXPECT_EQ(*parse_optimizations("none"), Optimizations{});
  EXPECT_EQ(*parse_optimizations("all"), all);
  EXPECT_EQ(*parse_optimizations("merge.repartition.topics, reuse.ktable.source.topics"), all);
  EXPECT_EQ(*parse_optimizations("merge.repartition.topics"),
            Optimizations{.merge_repartition_topics = true});
  EXPECT_EQ(internal::to_string(all), "reuse.ktable.source.topics,merge.repartition.topics");
  EXPECT_EQ(*parse_optimizations(internal::to_string(all)), all);
  EXPECT_EQ(internal::to_string(Optimizations{}), "none");
  const auto unknown = parse_optimizations("merge.repartition.topics, fast");
  ASSERT_FALSE(unknown);
  EXPECT_THAT(unknown.error().message(),
              HasSubstr("topology.optimization: 'merge.repartition.topics, fast' is not none, all "
                        "or a comma-separated list of reuse.ktable.source.topics and "
                        "merge.repartition.topics"));
}

TEST(TopologyOptimization, BuildReportsAnUnknownValueWithTheOtherMistakes) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in").to("");
  auto topology = builder.build({{"topology.optimization", "fast"}, {"application.id", "x"}});
  ASSERT_FALSE(topology);
  EXPECT_THAT(topology.error().message(), HasSubstr("the topology has 2 errors"));
  EXPECT_THAT(topology.error().message(), HasSubstr("'fast' is not none, all"));
}

}  // namespace
}  // namespace brook

// Internal-topic planning without a log: task counts, repartition and changelog partitions,
// co-partitioned joins.
#include "brook/internal/topic_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/foreign_key_join.h"
#include "brook/streams_builder.h"
#include "built_topology.h"

namespace brook::internal {
namespace {

using testing::build;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Partitions = std::map<std::string, std::int32_t, std::less<>>;

std::string first_letter(const std::string&, const std::string& v) { return v.substr(0, 1); }

// Counts per first letter of the values of topics a and b, through `grouped`'s repartition.
Topology counts(Grouped<std::string, std::string> grouped) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>(std::vector<std::string>{"a", "b"})
      .select_key(first_letter)
      .group_by_key(std::move(grouped))
      .count({.name = "counts"});
  return build(builder);
}

TEST(TopicPlan, TasksFollowTheLargestInputAndARepartitionTopicItsWriter) {
  auto plan = plan_topics(topology_data(counts({.name = "by-letter"})), {{"a", 4}, {"b", 2}});
  ASSERT_TRUE(plan) << plan.error().to_string();
  EXPECT_THAT(plan->tasks, ElementsAre(4, 4));
  EXPECT_EQ(plan->partitions.at("by-letter-repartition"), 4);
  EXPECT_EQ(plan->store_partitions, (Partitions{{"counts", 4}}));
}

TEST(TopicPlan, ARepartitionTopicsOwnCountSetsItsReadersTasks) {
  auto plan = plan_topics(topology_data(counts({.name = "by-letter", .partitions = 1})),
                          {{"a", 4}, {"b", 2}});
  ASSERT_TRUE(plan) << plan.error().to_string();
  EXPECT_THAT(plan->tasks, ElementsAre(4, 1));
  EXPECT_EQ(plan->partitions.at("by-letter-repartition"), 1);
  EXPECT_EQ(plan->store_partitions, (Partitions{{"counts", 1}}));
}

// Clicks re-keyed by their value joined with the table of topic "users".
Topology rekeyed_clicks_join_users() {
  StreamsBuilder builder;
  auto users = builder.table<std::string, std::string>("users", {}, {.name = "users"});
  builder.stream<std::string, std::string>("clicks")
      .select_key([](const std::string&, const std::string& v) { return v; })
      .join(users, [](const std::string& c, const std::string& u) { return c + u; },
            {.name = "enrich"})
      .to("out");
  return build(builder);
}

TEST(TopicPlan, ARepartitionedJoinInputTakesTheOtherInputsCount) {
  auto plan =
      plan_topics(topology_data(rekeyed_clicks_join_users()), {{"clicks", 6}, {"users", 3}});
  ASSERT_TRUE(plan) << plan.error().to_string();
  EXPECT_EQ(plan->partitions.at("enrich-repartition"), 3);
  EXPECT_THAT(plan->tasks, ElementsAre(3, 6));  // the join's sub-topology was added first
  EXPECT_EQ(plan->store_partitions, (Partitions{{"users", 3}}));
}

TEST(TopicPlan, JoinInputsWithDifferentCountsAreAnErrorNamingTheJoinAndTheTopics) {
  StreamsBuilder builder;
  auto users = builder.table<std::string, std::string>("users");
  builder.stream<std::string, std::string>("clicks")
      .join(users, [](const std::string& c, const std::string& u) { return c + u; },
            {.name = "enrich"})
      .to("out");
  auto plan = plan_topics(topology_data(build(builder)), {{"clicks", 2}, {"users", 3}});
  ASSERT_FALSE(plan);
  EXPECT_THAT(plan.error().message(), HasSubstr("join enrich: its inputs must be co-partitioned"));
  EXPECT_THAT(plan.error().message(),
              HasSubstr("topic clicks has 2 partitions and topic users has 3"));
}

TEST(TopicPlan, AForeignKeyJoinSubscribesThroughTheRightTablesCountAndAnswersThroughTheLefts) {
  StreamsBuilder builder;
  auto orders = builder.table<std::string, std::string>("orders");
  auto customers = builder.table<std::string, std::string>("customers");
  orders
      .join(
          customers, [](const std::string& order) { return order.substr(0, 1); },
          [](const std::string& order, const std::string& customer) { return order + customer; },
          {.name = "enrich"})
      .to_stream()
      .to("out");
  auto plan = plan_topics(topology_data(build(builder)), {{"orders", 5}, {"customers", 3}});
  ASSERT_TRUE(plan) << plan.error().to_string();
  EXPECT_EQ(plan->partitions.at("enrich-subscription-registration-topic"), 3);
  EXPECT_EQ(plan->partitions.at("enrich-subscription-response-topic"), 5);
}

TEST(TopicPlan, ATablesTopicAsItsChangelogNeedsAPartitionPerTask) {
  auto merged = [](const std::map<std::string, std::string>& config) {
    StreamsBuilder builder;
    builder.table<std::string, std::string>("users", {}, {.name = "users"})
        .to_stream()
        .merge(builder.stream<std::string, std::optional<std::string>>("clicks"))
        .to("out");
    auto topology = builder.build(config);
    EXPECT_TRUE(topology) << topology.error().to_string();
    return std::move(*topology);
  };
  const Partitions partitions = {{"users", 2}, {"clicks", 4}};
  auto plan = plan_topics(topology_data(merged({})), partitions);
  ASSERT_TRUE(plan) << plan.error().to_string();
  EXPECT_EQ(plan->store_partitions, (Partitions{{"users", 4}}));  // a changelog of 4 partitions
  auto reused = plan_topics(topology_data(merged({{"topology.optimization", "all"}})), partitions);
  ASSERT_FALSE(reused);
  EXPECT_THAT(reused.error().message(),
              HasSubstr("store users restores from its table's topic users "
                        "(reuse.ktable.source.topics), which has 2 partitions, but the store's "
                        "sub-topology runs 4 tasks"));
}

TEST(TopicPlan, AGlobalStoreHasOnePartition) {
  StreamsBuilder builder;
  builder.global_table<std::string, std::string>("rates", {}, {.name = "rates"});
  builder.stream<std::string, std::string>("in").to("out");
  auto plan = plan_topics(topology_data(build(builder)), {{"in", 4}, {"rates", 2}});
  ASSERT_TRUE(plan) << plan.error().to_string();
  EXPECT_EQ(plan->store_partitions, (Partitions{{"rates", 1}}));
}

}  // namespace
}  // namespace brook::internal

// Table-table joins on the key through the test driver: inner, left and outer; both sides
// trigger; old values; tombstones on both sides; timestamps; materialised results; null keys.
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
using testing::TopologyTestDriver;
using Out = KeyValue<std::string, std::optional<std::string>>;

std::string opt(const std::optional<std::string>& v) { return v.value_or("-"); }

struct TableTableApp {
  explicit TableTableApp(Topology topology)
      : driver(std::move(topology)),
        left(driver.create_input_topic<std::string, std::optional<std::string>>("left")),
        right(driver.create_input_topic<std::string, std::optional<std::string>>("right")),
        out(driver.create_output_topic<std::string, std::optional<std::string>>("out")) {}
  TopologyTestDriver driver;
  testing::TestInputTopic<std::string, std::optional<std::string>> left;
  testing::TestInputTopic<std::string, std::optional<std::string>> right;
  testing::TestOutputTopic<std::string, std::optional<std::string>> out;
};

// "left" outer-joined with "right" as "<left>+<right>" ("-" for a missing side), into "out".
Topology outer_joined() {
  StreamsBuilder builder;
  auto left = builder.table<std::string, std::string>("left");
  auto right = builder.table<std::string, std::string>("right");
  left.outer_join(right, [](const std::optional<std::string>& l,
                            const std::optional<std::string>& r) { return opt(l) + "+" + opt(r); })
      .to_stream()
      .to("out");
  return build(builder);
}

TEST(TableTableJoin, InnerJoinBothSidesTriggerAndDeletesOfEitherSideRetract) {
  StreamsBuilder builder;
  auto left = builder.table<std::string, std::string>("left");
  auto right = builder.table<std::string, std::string>("right");
  left.join(right, [](const std::string& l, const std::string& r) { return l + "+" + r; })
      .to_stream()
      .to("out");
  TableTableApp run(build(builder));
  run.left.pipe_input("a", "l1", Timestamp(10));           // no right value: nothing
  run.right.pipe_input("a", "r1", Timestamp(5));           // right triggers
  run.left.pipe_input("a", "l2", Timestamp(20));           // left triggers
  run.right.pipe_input("b", "rb", Timestamp(21));          // no left value: nothing
  run.right.pipe_input("a", std::nullopt, Timestamp(30));  // retracts
  run.right.pipe_input("a", std::nullopt, Timestamp(31));  // nothing was there: nothing
  run.right.pipe_input("a", "r2", Timestamp(32));
  run.left.pipe_input("a", std::nullopt, Timestamp(40));  // retracts
  run.left.pipe_input("c", std::nullopt, Timestamp(41));  // neither side: nothing
  const auto results = run.out.read_records_to_list();
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].value, "l1+r1");
  EXPECT_EQ(results[0].timestamp, Timestamp(10)) << "max of the left's 10 and the right's 5";
  EXPECT_EQ(results[1].value, "l2+r1");
  EXPECT_EQ(results[1].timestamp, Timestamp(20));
  EXPECT_EQ(results[2].value, std::nullopt);
  EXPECT_EQ(results[2].timestamp, Timestamp(30));
  EXPECT_EQ(results[3].value, "l2+r2");
  EXPECT_EQ(results[4].value, std::nullopt);
  EXPECT_EQ(results[4].timestamp, Timestamp(40));
}

TEST(TableTableJoin, ANullKeyedRecordOnEitherSideJoinsNothing) {
  TableTableApp run(outer_joined());
  run.left.pipe_input("a", "l1", Timestamp(1));
  run.left.pipe_value("l0", Timestamp(2));  // read as the empty key, each would emit a row
  run.right.pipe_value("r0", Timestamp(3));
  run.right.pipe_input("a", "r1", Timestamp(4));
  EXPECT_THAT(run.out.read_key_values_to_list(), ElementsAre(Out{"a", "l1+-"}, Out{"a", "l1+r1"}));
  EXPECT_EQ(run.driver.metrics().total("dropped-records-total"), 2);
}

// A table aggregation over the joined table subtracts each change's old value: the counts
// are only right if the join's changes carry their old joined values.
TEST(TableTableJoin, ChangesCarryTheOldJoinedValue) {
  StreamsBuilder builder;
  auto left = builder.table<std::string, std::string>("left");
  auto right = builder.table<std::string, std::string>("right");
  left.join(right, [](const std::string& l, const std::string& r) { return l + "+" + r; })
      .group_by([](const std::string&, const std::string& v) {
        return KeyValue<std::string, std::string>{v, v};
      })
      .count()
      .to_stream()
      .map_values([](const std::optional<std::int64_t>& n) {
        return std::optional<std::string>(std::to_string(n.value_or(-1)));
      })
      .to("out");
  TableTableApp run(build(builder));
  run.left.pipe_input("a", "x", Timestamp(1));
  run.right.pipe_input("a", "y", Timestamp(2));  // x+y: 1
  run.left.pipe_input("b", "x", Timestamp(3));
  run.right.pipe_input("b", "y", Timestamp(4));          // x+y: 2
  run.right.pipe_input("a", "z", Timestamp(5));          // x+y: 1 (old subtracted), x+z: 1
  run.left.pipe_input("b", std::nullopt, Timestamp(6));  // x+y: 0
  EXPECT_THAT(run.out.read_key_values_to_list(),
              ElementsAre(Out{"x+y", "1"}, Out{"x+y", "2"}, Out{"x+y", "1"}, Out{"x+z", "1"},
                          Out{"x+y", "0"}));
}

TEST(TableTableJoin, LeftJoinKeepsEveryLeftKeyAndRightDeletesFallBackToNothing) {
  StreamsBuilder builder;
  auto left = builder.table<std::string, std::string>("left");
  auto right = builder.table<std::string, std::string>("right");
  left.left_join(right, [](const std::string& l,
                           const std::optional<std::string>& r) { return l + "+" + opt(r); })
      .to_stream()
      .to("out");
  TableTableApp run(build(builder));
  run.left.pipe_input("a", "l1", Timestamp(1));
  run.right.pipe_input("a", "r1", Timestamp(2));
  run.right.pipe_input("b", "rb", Timestamp(3));  // no left: nothing
  run.right.pipe_input("a", std::nullopt, Timestamp(4));
  run.left.pipe_input("a", std::nullopt, Timestamp(5));
  run.right.pipe_input("a", "r2", Timestamp(6));  // no left: nothing
  EXPECT_THAT(
      run.out.read_key_values_to_list(),
      ElementsAre(Out{"a", "l1+-"}, Out{"a", "l1+r1"}, Out{"a", "l1+-"}, Out{"a", std::nullopt}));
}

TEST(TableTableJoin, OuterJoinKeepsEveryKeyOfEitherSide) {
  TableTableApp run(outer_joined());
  run.right.pipe_input("a", "r1", Timestamp(1));
  run.left.pipe_input("a", "l1", Timestamp(2));
  run.left.pipe_input("a", std::nullopt, Timestamp(3));
  run.right.pipe_input("a", std::nullopt, Timestamp(4));
  run.right.pipe_input("a", std::nullopt, Timestamp(5));  // nothing left: nothing
  EXPECT_THAT(
      run.out.read_key_values_to_list(),
      ElementsAre(Out{"a", "-+r1"}, Out{"a", "l1+r1"}, Out{"a", "-+r1"}, Out{"a", std::nullopt}));
}

TEST(TableTableJoin, NamedMaterializedResultIsQueryableAndInputsFormACopartitionGroup) {
  StreamsBuilder builder;
  auto left = builder.table<std::string, std::string>("left");
  auto right = builder.table<std::string, std::string>("right").filter(
      [](const std::string&, const std::string& v) { return v != "hidden"; });
  auto joined =
      left.join(right, [](const std::string& l, const std::string& r) { return l + "+" + r; },
                {.name = "joined"}, {.name = "joined-store"});
  EXPECT_EQ(joined.store_name(), "joined-store");
  joined.to_stream().to("out");
  auto topology = build(builder);
  ASSERT_EQ(internal::topology_data(topology).copartition_groups.size(), 1u);
  EXPECT_EQ(internal::topology_data(topology).copartition_groups[0].join, "joined");
  TableTableApp run(std::move(topology));
  run.left.pipe_input("a", "l", Timestamp(1));
  run.right.pipe_input("a", "r", Timestamp(2));
  run.right.pipe_input("a", "hidden", Timestamp(3));  // filtered: a delete of the right side
  auto store = run.driver.timestamped_key_value_store<std::string, std::string>("joined-store");
  EXPECT_EQ(store.get("a"), std::nullopt);
  run.right.pipe_input("a", "r2", Timestamp(4));
  EXPECT_EQ(store.get("a"), (ValueAndTimestamp<std::string>{"l+r2", Timestamp(4)}));
}

}  // namespace
}  // namespace brook

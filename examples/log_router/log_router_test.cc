#include "log_router.h"

#include <brook/testing/topology_test_driver.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace log_router {
namespace {

using Host = std::optional<std::string>;
using ::testing::ElementsAre;

TEST(LogRouter, LevelIsTheSecondWord) {
  EXPECT_EQ(level_of("2026-11-29T10:00:00Z ERROR disk full"), "ERROR");
  EXPECT_EQ(level_of("t INFO"), "INFO");
  EXPECT_EQ(level_of("garbage"), "");
}

TEST(LogRouter, RoutesErrorLinesToHighPriorityAndTheRestToLow) {
  auto topology = build_topology();
  ASSERT_TRUE(topology) << topology.error().to_string();
  brook::testing::TopologyTestDriver driver(*topology);
  auto logs = driver.create_input_topic<Host, std::string>(kInputTopic);
  logs.pipe_input("web-1", "t1 INFO ok");
  logs.pipe_input("web-2", "t2 ERROR disk full");
  logs.pipe_value("t3 ERROR no host");
  logs.pipe_input("web-1", "t4 WARN ERROR mentioned but not the level");

  auto high = driver.create_output_topic<Host, std::string>(kHighPriorityTopic);
  auto low = driver.create_output_topic<Host, std::string>(kLowPriorityTopic);
  EXPECT_THAT(high.read_key_values_to_list(),
              ElementsAre(brook::KeyValue<Host, std::string>{"web-2", "t2 ERROR disk full"},
                          brook::KeyValue<Host, std::string>{std::nullopt, "t3 ERROR no host"}));
  EXPECT_THAT(low.read_values_to_list(),
              ElementsAre("t1 INFO ok", "t4 WARN ERROR mentioned but not the level"));
}

}  // namespace
}  // namespace log_router

// click_enrichment through the test driver: a left join of clicks with profiles.
#include "click_enrichment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/testing/topology_test_driver.h"

namespace click_enrichment {
namespace {

using brook::Timestamp;

TEST(ClickEnrichment, ClicksGetTheProfileAsOfTheirTimeAndUnknownsWithoutOne) {
  brook::testing::TopologyTestDriver driver(*build_topology());
  auto profiles = driver.create_input_topic<std::string, std::optional<Profile>>(kProfilesTopic);
  auto clicks = driver.create_input_topic<std::string, Click>(kClicksTopic);
  auto out = driver.create_output_topic<std::string, EnrichedClick>(kOutputTopic);
  clicks.pipe_input("u1", {"/home"}, Timestamp(1));
  profiles.pipe_input("u1", Profile{34, "f"}, Timestamp(2));
  clicks.pipe_input("u1", {"/cart"}, Timestamp(3));
  profiles.pipe_input("u1", Profile{35, "f"}, Timestamp(4));  // a birthday: later clicks only
  clicks.pipe_input("u1", {"/pay"}, Timestamp(5));
  clicks.pipe_input("u2", {"/home"}, Timestamp(6));
  EXPECT_THAT(out.read_values_to_list(),
              ::testing::ElementsAre(
                  EnrichedClick{"/home", -1, "unknown"}, EnrichedClick{"/cart", 34, "f"},
                  EnrichedClick{"/pay", 35, "f"}, EnrichedClick{"/home", -1, "unknown"}));
}

TEST(ClickEnrichment, TheJoinAndItsStoreAreNamed) {
  const auto description = build_topology()->describe();
  EXPECT_THAT(description, ::testing::HasSubstr("enrich-clicks"));
  EXPECT_THAT(description, ::testing::HasSubstr("stores: [profiles]"));
}

}  // namespace
}  // namespace click_enrichment

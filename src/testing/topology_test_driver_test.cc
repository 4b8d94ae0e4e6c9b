#include "brook/testing/topology_test_driver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/streams_builder.h"

namespace brook::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

Topology pass_through(const std::string& from, const std::string& to) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>(from).to(to);
  return *builder.build();
}

TEST(TopologyTestDriver, FeedsOutputWrittenToASourceTopicBackIn) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .map_values([](const std::string& v) { return v + "+"; })
      .to("middle");
  builder.stream<std::string, std::string>("middle")
      .map_values([](const std::string& v) { return v + "!"; })
      .to("out");
  auto topology = builder.build();
  ASSERT_TRUE(topology);
  ASSERT_EQ(internal::topology_data(*topology).subtopologies.size(), 2u);
  TopologyTestDriver driver(*topology);
  driver.create_input_topic<std::string, std::string>("in").pipe_input("k", "v");
  auto out = driver.create_output_topic<std::string, std::string>("out");
  EXPECT_THAT(out.read_values_to_list(), ElementsAre("v+!"));
  auto middle = driver.create_output_topic<std::string, std::string>("middle");
  EXPECT_THAT(middle.read_values_to_list(), ElementsAre("v+"));
}

TEST(TopologyTestDriver, InputTopicAdvancesItsOwnTimeAutomatically) {
  TopologyTestDriver driver(pass_through("in", "out"));
  auto in = driver.create_input_topic<std::string, std::string>("in");
  in.set_time(Timestamp(100), 10ms);
  in.pipe_input("a", "1");
  in.pipe_input("b", "2");
  auto out = driver.create_output_topic<std::string, std::string>("out");
  EXPECT_EQ(out.read_record().timestamp, Timestamp(100));
  EXPECT_EQ(out.read_record().timestamp, Timestamp(110));
}

TEST(TopologyTestDriver, RejectsATopicNoSourceReads) {
  TopologyTestDriver driver(pass_through("in", "out"));
  EXPECT_THROW(driver.pipe_raw_input("nope", std::nullopt, "v", Timestamp(0)),
               std::invalid_argument);
}

TEST(TopologyTestDriver, ReadingAnEmptyOutputTopicThrows) {
  TopologyTestDriver driver(pass_through("in", "out"));
  auto out = driver.create_output_topic<std::string, std::string>("out");
  EXPECT_TRUE(out.is_empty());
  EXPECT_THROW(out.read_record(), std::out_of_range);
}

TEST(TopologyTestDriver, ReadingWithTheWrongSerdeThrowsNamingTheTopic) {
  TopologyTestDriver driver(pass_through("in", "out"));
  driver.create_input_topic<std::string, std::string>("in").pipe_input("k", "abc");
  auto out = driver.create_output_topic<std::string, std::int64_t>("out");
  try {
    out.read_value();
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("topic out"));
    EXPECT_THAT(e.what(), HasSubstr("int64 serde: expected 8 bytes, got 3"));
  }
}

TEST(TopologyTestDriver, InvalidErrorHandlingIsRejectedAtConstruction) {
  EXPECT_THROW(
      TopologyTestDriver(pass_through("in", "out"),
                         {.errors = {.on_deserialization_error = ErrorAction::kDeadLetter}}),
      TaskFailed);
}

TEST(TopologyTestDriver, FailedTaskThrowsTaskFailedWithTheStatus) {
  StreamsBuilder builder;
  builder.stream<std::string, std::int32_t>("numbers").to("out");
  TopologyTestDriver numbers(*builder.build());
  try {
    numbers.pipe_raw_input("numbers", "k", "not four bytes", Timestamp(0));
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(e.status().message(), HasSubstr("deserialization error"));
  }
  EXPECT_EQ(numbers.metrics().total("deserialization-errors-total"), 1);
}

}  // namespace
}  // namespace brook::testing

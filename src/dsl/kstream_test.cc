#include "brook/kstream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"

namespace brook {
namespace {

using testing::TopologyTestDriver;
using ::testing::ElementsAre;
using KV = KeyValue<std::string, std::string>;

TEST(KStream, FilterKeepsMatchingRecords) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .filter([](const std::string&, const std::string& v) { return v.starts_with("ERROR"); })
      .to("out");
  auto topology = builder.build();
  ASSERT_TRUE(topology) << topology.error().to_string();
  TopologyTestDriver driver(*topology);
  auto in = driver.create_input_topic<std::string, std::string>("in");
  auto out = driver.create_output_topic<std::string, std::string>("out");
  in.pipe_input("a", "ERROR disk full");
  in.pipe_input("b", "INFO started");
  EXPECT_THAT(out.read_key_values_to_list(), ElementsAre(KV{"a", "ERROR disk full"}));
}

}  // namespace
}  // namespace brook

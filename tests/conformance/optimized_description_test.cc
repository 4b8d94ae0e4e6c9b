// Every example with a twin, both built with topology.optimization=all (Brook's example through
// StreamsBuilder::build(config), the twin through StreamsBuilder.build(props)): describe() is
// Kafka Streams', byte for byte. The other tests compare the examples as they build themselves
// (click_enrichment with reuse.ktable.source.topics, the others without optimisations).
#include "conformance.h"

namespace brook::testing {
namespace {

class OptimizedDescriptionTest : public ConformanceTest,
                                 public ::testing::WithParamInterface<const char*> {};

TEST_P(OptimizedDescriptionTest, IsKafkaStreamsWithEveryOptimization) {
  const ExampleTopics example{.name = GetParam()};
  const auto [brook, twin] = describe_both(example, kEveryOptimization);
  expect_same_description(example, brook, twin, kWithEveryOptimization);
}

// json_to_avro differs by its dead-letter sink, as without optimisations:
// json_to_avro_test.cc compares it.
INSTANTIATE_TEST_SUITE_P(Examples, OptimizedDescriptionTest,
                         ::testing::Values("log_router", "stock_stats", "top_gainers",
                                           "iot_late_events", "click_enrichment",
                                           "orders_customers", "search_clicks", "book_sales"),
                         [](const auto& example) { return std::string(example.param); });

}  // namespace
}  // namespace brook::testing

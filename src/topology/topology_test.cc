#include "brook/topology.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/streams_builder.h"

namespace brook {
namespace {

using ::testing::HasSubstr;

struct NoSerde {
  int x = 0;
};

TEST(Topology, DescribeMatchesKafkaStreamsFormat) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("input")
      .filter([](const std::string&, const std::string&) { return true; })
      .map_values([](const std::string& v) { return v; })
      .to("output");
  auto topology = builder.build();
  ASSERT_TRUE(topology);
  EXPECT_EQ(topology->describe(),
            "Topologies:\n"
            "   Sub-topology: 0\n"
            "    Source: KSTREAM-SOURCE-0000000000 (topics: [input])\n"
            "      --> KSTREAM-FILTER-0000000001\n"
            "    Processor: KSTREAM-FILTER-0000000001 (stores: [])\n"
            "      --> KSTREAM-MAPVALUES-0000000002\n"
            "      <-- KSTREAM-SOURCE-0000000000\n"
            "    Processor: KSTREAM-MAPVALUES-0000000002 (stores: [])\n"
            "      --> KSTREAM-SINK-0000000003\n"
            "      <-- KSTREAM-FILTER-0000000001\n"
            "    Sink: KSTREAM-SINK-0000000003 (topic: output)\n"
            "      <-- KSTREAM-MAPVALUES-0000000002\n"
            "\n");
}

TEST(Topology, DescribeOrdersNodesBySubtreeSizeAndSplitsUnconnectedParts) {
  StreamsBuilder builder;
  auto branches =
      builder.stream<std::string, std::string>("logs", {.name = "read-logs"})
          .split({.name = "by-level-"})
          .branch([](const std::string&, const std::string& v) { return v.starts_with("ERROR"); },
                  {.name = "error"})
          .default_branch({.name = "rest"});
  branches.at("by-level-error").to("errors", {.name = "write-errors"});
  branches.at("by-level-rest")
      .map_values([](const std::string& v) { return v; }, {.name = "keep"})
      .to("rest", {.name = "write-rest"});
  builder.stream<std::string, std::string>("other", {.name = "read-other"})
      .to([](const std::string&, const std::string&) { return "x"; }, {.name = "route"});
  auto topology = builder.build();
  ASSERT_TRUE(topology) << topology.error().to_string();
  EXPECT_EQ(topology->describe(),
            "Topologies:\n"
            "   Sub-topology: 0\n"
            "    Source: read-logs (topics: [logs])\n"
            "      --> by-level-\n"
            "    Processor: by-level- (stores: [])\n"
            "      --> by-level-rest, by-level-error\n"
            "      <-- read-logs\n"
            "    Processor: by-level-rest (stores: [])\n"
            "      --> keep\n"
            "      <-- by-level-\n"
            "    Processor: by-level-error (stores: [])\n"
            "      --> write-errors\n"
            "      <-- by-level-\n"
            "    Processor: keep (stores: [])\n"
            "      --> write-rest\n"
            "      <-- by-level-rest\n"
            "    Sink: write-errors (topic: errors)\n"
            "      <-- by-level-error\n"
            "    Sink: write-rest (topic: rest)\n"
            "      <-- keep\n"
            "\n"
            "  Sub-topology: 1\n"
            "    Source: read-other (topics: [other])\n"
            "      --> route\n"
            "    Sink: route (extractor class: brook::TopicNameExtractor)\n"
            "      <-- read-other\n"
            "\n");
  EXPECT_THAT(topology->source_topics(), ::testing::ElementsAre("logs", "other"));
  EXPECT_THAT(topology->sink_topics(), ::testing::ElementsAre("errors", "rest"));
}

TEST(Topology, DescribeDotDrawsTopicsAndEdges) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in", {.name = "src"}).to("out", {.name = "snk"});
  auto topology = builder.build();
  ASSERT_TRUE(topology);
  const auto dot = topology->describe_dot();
  EXPECT_THAT(dot, HasSubstr("digraph brook {"));
  EXPECT_THAT(dot, HasSubstr("subgraph cluster_0"));
  EXPECT_THAT(dot, HasSubstr("\"topic:in\" -> \"src\";"));
  EXPECT_THAT(dot, HasSubstr("\"src\" -> \"snk\";"));
  EXPECT_THAT(dot, HasSubstr("\"snk\" -> \"topic:out\";"));
}

TEST(Topology, BuildReportsEveryMistakeAtOnceNamingEachNode) {
  StreamsBuilder builder;
  auto s = builder.stream<std::string, std::string>("in", {.name = "source"});
  s.filter([](const std::string&, const std::string&) { return true; }, {.name = "same"})
      .map_values([](const std::string& v) { return v; }, {.name = "same"})
      .to("", {.name = "nowhere"});
  s.map_values([](const std::string&) { return NoSerde{}; }).to("out", {.name = "no-serde-sink"});
  struct Passthrough : Processor<std::string, std::string, std::string, std::string> {
    void process(Record<std::string, std::string> r) override { context().forward(r); }
  };
  s.process([] { return std::make_unique<Passthrough>(); },
            {.name = "uses-store", .stores = {"counts"}});
  builder.stream<std::string, std::string>("in", {.name = "again"});
  auto topology = builder.build();
  ASSERT_FALSE(topology);
  const auto& message = topology.error().message();
  EXPECT_THAT(message, HasSubstr("the topology has 5 errors:"));
  EXPECT_THAT(message, HasSubstr("sink no-serde-sink: no value serde for type brook::(anonymous "
                                 "namespace)::NoSerde"));
  EXPECT_THAT(message, HasSubstr("processor same: duplicate node name"));
  EXPECT_THAT(message, HasSubstr("sink nowhere: has no topic to write to"));
  EXPECT_THAT(message, HasSubstr("processor uses-store: unknown state store 'counts'"));
  EXPECT_THAT(message, HasSubstr("source again: topic 'in' is already read by source source"));
}

TEST(Topology, BuildMayBeCalledOnlyOnce) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in").to("out");
  ASSERT_TRUE(builder.build());
  auto again = builder.build();
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), StatusCode::kFailedPrecondition);
}

TEST(Topology, SourceWithoutSerdeIsReported) {
  StreamsBuilder builder;
  builder.stream<std::string, NoSerde>("in", {.name = "src"});
  auto topology = builder.build();
  ASSERT_FALSE(topology);
  EXPECT_THAT(topology.error().message(), HasSubstr("source src: no value serde"));
}

}  // namespace
}  // namespace brook

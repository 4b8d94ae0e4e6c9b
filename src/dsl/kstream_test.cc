#include "brook/kstream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ranges>
#include <stdexcept>
#include <utility>
#include <vector>

#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"

namespace brook {
namespace {

using ::testing::ElementsAre;
using testing::TopologyTestDriver;
using KV = KeyValue<std::string, std::string>;
using Stream = KStream<std::string, std::string>;

// Builds `describe(stream of "in")`, pipes `inputs` into "in" and returns what reached "out".
template <class KOut, class VOut, class Describe>
std::vector<KeyValue<KOut, VOut>> run(Describe describe, const std::vector<KV>& inputs) {
  StreamsBuilder builder;
  describe(builder.stream<std::string, std::string>("in"));
  auto topology = builder.build();
  EXPECT_TRUE(topology) << topology.error().to_string();
  TopologyTestDriver driver(*topology);
  auto in = driver.create_input_topic<std::string, std::string>("in");
  in.pipe_key_value_list(inputs);
  return driver.create_output_topic<KOut, VOut>("out").read_key_values_to_list();
}

std::vector<std::string> values_of(TopologyTestDriver& driver, const std::string& topic) {
  return driver.create_output_topic<std::string, std::string>(topic).read_values_to_list();
}

bool is_error(const std::string&, const std::string& v) { return v.starts_with("ERROR"); }

TEST(KStream, FilterKeepsMatchingRecords) {
  auto out = run<std::string, std::string>(
      [](Stream s) { s.filter(is_error).to("out"); },
      {{"a", "ERROR disk full"}, {"b", "INFO started"}, {"c", "ERROR again"}});
  EXPECT_THAT(out, ElementsAre(KV{"a", "ERROR disk full"}, KV{"c", "ERROR again"}));
}

TEST(KStream, FilterNotDropsMatchingRecords) {
  auto out = run<std::string, std::string>([](Stream s) { s.filter_not(is_error).to("out"); },
                                           {{"a", "ERROR disk full"}, {"b", "INFO started"}});
  EXPECT_THAT(out, ElementsAre(KV{"b", "INFO started"}));
}

TEST(KStream, MapReplacesKeyAndValue) {
  auto out = run<std::string, std::int64_t>(
      [](Stream s) {
        s.map([](const std::string& k, const std::string& v) {
           return KeyValue{v, static_cast<std::int64_t>(k.size())};
         }).to("out");
      },
      {{"abc", "x"}});
  EXPECT_THAT(out, ElementsAre(KeyValue<std::string, std::int64_t>{"x", 3}));
}

TEST(KStream, MapAcceptsStdPair) {
  auto out = run<std::string, std::string>(
      [](Stream s) {
        s.map([](const std::string& k, const std::string& v) { return std::pair{v, k}; }).to("out");
      },
      {{"k", "v"}});
  EXPECT_THAT(out, ElementsAre(KV{"v", "k"}));
}

TEST(KStream, MapValuesTakesValueOrKeyAndValue) {
  auto out = run<std::string, std::string>(
      [](Stream s) {
        s.map_values([](const std::string& v) { return v + "!"; })
            .map_values([](const std::string& k, const std::string& v) { return k + ":" + v; })
            .to("out");
      },
      {{"k", "v"}});
  EXPECT_THAT(out, ElementsAre(KV{"k", "k:v!"}));
}

TEST(KStream, FlatMapEmitsZeroOrMoreRecords) {
  auto out = run<std::string, std::int32_t>(
      [](Stream s) {
        s.flat_map([](const std::string& k, const std::string& v) {
           std::vector<KeyValue<std::string, std::int32_t>> words;
           for (std::int32_t i = 0; i < static_cast<std::int32_t>(v.size()); ++i)
             words.push_back({k + std::to_string(i), i});
           return words;
         }).to("out");
      },
      {{"a", "xy"}, {"b", ""}, {"c", "z"}});
  EXPECT_THAT(out, ElementsAre(KeyValue<std::string, std::int32_t>{"a0", 0},
                               KeyValue<std::string, std::int32_t>{"a1", 1},
                               KeyValue<std::string, std::int32_t>{"c0", 0}));
}

TEST(KStream, FlatMapValuesKeepsTheKey) {
  auto out = run<std::string, std::string>(
      [](Stream s) {
        s.flat_map_values([](const std::string& v) {
           return std::vector<std::string>{v, v + v};
         }).to("out");
      },
      {{"k", "a"}});
  EXPECT_THAT(out, ElementsAre(KV{"k", "a"}, KV{"k", "aa"}));
}

TEST(KStream, SelectKeySetsTheKeyFromTheRecord) {
  auto out = run<std::string, std::string>(
      [](Stream s) {
        s.select_key([](const std::string&, const std::string& v) {
           return v.substr(0, 1);
         }).to("out");
      },
      {{"old", "new value"}});
  EXPECT_THAT(out, ElementsAre(KV{"n", "new value"}));
}

TEST(KStream, PeekSeesEveryRecordAndPassesItOn) {
  std::vector<std::string> seen;
  auto out = run<std::string, std::string>(
      [&](Stream s) {
        s.peek([&](const std::string& k, const std::string&) { seen.push_back(k); }).to("out");
      },
      {{"a", "1"}, {"b", "2"}});
  EXPECT_THAT(seen, ElementsAre("a", "b"));
  EXPECT_EQ(out.size(), 2u);
}

TEST(KStream, ForeachIsTerminal) {
  std::vector<std::string> seen;
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in").foreach (
      [&](const std::string&, const std::string& v) { seen.push_back(v); });
  auto topology = builder.build();
  ASSERT_TRUE(topology);
  TopologyTestDriver driver(*topology);
  driver.create_input_topic<std::string, std::string>("in").pipe_input("k", "v");
  EXPECT_THAT(seen, ElementsAre("v"));
  EXPECT_TRUE(driver.output_topics().empty());
}

TEST(KStream, SplitSendsEachRecordToTheFirstMatchingBranch) {
  StreamsBuilder builder;
  auto branches = builder.stream<std::string, std::string>("in")
                      .split({.name = "level-"})
                      .branch(is_error, {.name = "error"})
                      .branch([](const std::string&, const std::string& v) {
                        return v.starts_with("WARN") || v.starts_with("ERROR");
                      })
                      .default_branch({.name = "other"});
  ASSERT_EQ(branches.size(), 3u);
  branches.at("level-error").to("errors");
  branches.at("level-2").to("warnings");
  branches.at("level-other").to("rest");
  auto topology = builder.build();
  ASSERT_TRUE(topology) << topology.error().to_string();
  TopologyTestDriver driver(*topology);
  auto in = driver.create_input_topic<std::string, std::string>("in");
  in.pipe_key_value_list({{"1", "ERROR a"}, {"2", "WARN b"}, {"3", "INFO c"}});
  EXPECT_THAT(values_of(driver, "errors"), ElementsAre("ERROR a"));
  EXPECT_THAT(values_of(driver, "warnings"), ElementsAre("WARN b"));
  EXPECT_THAT(values_of(driver, "rest"), ElementsAre("INFO c"));
}

TEST(KStream, SplitWithoutDefaultDropsUnmatchedRecords) {
  StreamsBuilder builder;
  auto branches =
      builder.stream<std::string, std::string>("in").split().branch(is_error).no_default_branch();
  ASSERT_EQ(branches.size(), 1u);
  branches.begin()->second.to("out");
  auto topology = builder.build();
  ASSERT_TRUE(topology);
  TopologyTestDriver driver(*topology);
  auto in = driver.create_input_topic<std::string, std::string>("in");
  in.pipe_key_value_list({{"1", "ERROR a"}, {"2", "INFO b"}});
  EXPECT_THAT(values_of(driver, "out"), ElementsAre("ERROR a"));
}

TEST(KStream, MergeInterleavesBothStreamsInProcessingOrder) {
  StreamsBuilder builder;
  auto a = builder.stream<std::string, std::string>("a");
  auto b = builder.stream<std::string, std::string>("b");
  a.merge(b).to("out");
  auto topology = builder.build();
  ASSERT_TRUE(topology);
  TopologyTestDriver driver(*topology);
  auto in_a = driver.create_input_topic<std::string, std::string>("a");
  auto in_b = driver.create_input_topic<std::string, std::string>("b");
  in_a.pipe_input("k", "a1", Timestamp(1));
  in_b.pipe_input("k", "b1", Timestamp(2));
  in_a.pipe_input("k", "a2", Timestamp(3));
  EXPECT_THAT(values_of(driver, "out"), ElementsAre("a1", "b1", "a2"));
}

TEST(KStream, ToWithExtractorChoosesTheTopicPerRecord) {
  auto topic_of = [](const std::string& k, const std::string&) { return "out-" + k; };
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in").to(topic_of);
  auto topology = builder.build();
  ASSERT_TRUE(topology);
  TopologyTestDriver driver(*topology);
  driver.create_input_topic<std::string, std::string>("in").pipe_key_value_list(
      {{"x", "1"}, {"y", "2"}, {"x", "3"}});
  EXPECT_THAT(values_of(driver, "out-x"), ElementsAre("1", "3"));
  EXPECT_THAT(values_of(driver, "out-y"), ElementsAre("2"));
}

TEST(KStream, RecordsKeepTimestampAndHeadersThroughStatelessOperators) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .map_values([](const std::string& v) { return v + "!"; })
      .select_key([](const std::string&, const std::string& v) { return v; })
      .to("out");
  auto topology = builder.build();
  ASSERT_TRUE(topology);
  TopologyTestDriver driver(*topology);
  driver.create_input_topic<std::string, std::string>("in").pipe_input("k", "v", Timestamp(42),
                                                                       Headers{{"trace", "abc"}});
  auto record = driver.create_output_topic<std::string, std::string>("out").read_record();
  EXPECT_EQ(record.key, "v!");
  EXPECT_EQ(record.timestamp, Timestamp(42));
  EXPECT_EQ(record.headers, (Headers{{"trace", "abc"}}));
}

TEST(KStream, NullKeyPassesThroughAsNullWithOptionalKeyType) {
  StreamsBuilder builder;
  builder.stream<std::optional<std::string>, std::string>("in").to("out");
  auto topology = builder.build();
  ASSERT_TRUE(topology);
  TopologyTestDriver driver(*topology);
  driver.pipe_raw_input("in", std::nullopt, "v", Timestamp(1));
  auto& raw = driver.output_queue("out");
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_FALSE(raw.front().key.has_value());
  EXPECT_EQ(raw.front().value, "v");
}

// Each operator's node reports an exception from its function against itself, also one thrown
// while its range is iterated, whichever operators run before and after it.
TEST(KStream, AnExceptionInAnOperatorsFunctionIsAProcessingErrorOfItsNode) {
  auto fails = [](std::string_view v, std::string_view where) {
    if (v == where) throw std::runtime_error(std::string("boom in ") + std::string(where));
  };
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .filter([&](const std::string&, const std::string& v) { return fails(v, "filter"), true; },
              {.name = "keep"})
      .map_values([&](const std::string& v) { return fails(v, "map"), v; }, {.name = "tag"})
      .flat_map_values(
          [&](const std::string& v) {
            return std::views::iota(0, 2) | std::views::transform([&, v](int) {
                     fails(v, "flat");
                     return v;
                   });
          },
          {.name = "twice"})
      .split(Named{"pick-"})
      .branch([&](const std::string&, const std::string& v) { return fails(v, "split"), true; },
              {.name = "all"})
      .no_default_branch()
      .at("pick-all")
      .to("out");
  auto topology = builder.build();
  ASSERT_TRUE(topology) << topology.error().to_string();
  for (const auto& [value, node] : std::vector<std::pair<std::string, std::string>>{
           {"filter", "keep"}, {"map", "tag"}, {"flat", "twice"}, {"split", "pick-"}}) {
    TopologyTestDriver driver(*topology);
    auto in = driver.create_input_topic<std::string, std::string>("in");
    try {
      in.pipe_input("k", value);
      ADD_FAILURE() << "expected TaskFailed for " << value;
    } catch (const testing::TaskFailed& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("processing error in node " + node + " "));
      EXPECT_THAT(e.what(), ::testing::HasSubstr("boom in " + value));
    }
  }
  TopologyTestDriver driver(*topology);
  driver.create_input_topic<std::string, std::string>("in").pipe_input("k", "fine");
  EXPECT_THAT(values_of(driver, "out"), ElementsAre("fine", "fine"));
}

TEST(KStream, ChainedOperatorsComposeInOneSubTopology) {
  StreamsBuilder builder;
  builder.stream<std::string, std::int64_t>("numbers")
      .filter([](const std::string&, std::int64_t v) { return v % 2 == 0; })
      .map_values([](std::int64_t v) { return v * 10; })
      .map([](const std::string& k, std::int64_t v) {
        return KeyValue{v, k};
      })
      .to("out");
  auto topology = builder.build();
  ASSERT_TRUE(topology);
  EXPECT_EQ(internal::topology_data(*topology).subtopologies.size(), 1u);
  TopologyTestDriver driver(*topology);
  auto in = driver.create_input_topic<std::string, std::int64_t>("numbers");
  for (std::int64_t i = 1; i <= 4; ++i) in.pipe_input("n" + std::to_string(i), i);
  auto out = driver.create_output_topic<std::int64_t, std::string>("out").read_key_values_to_list();
  EXPECT_THAT(out, ElementsAre(KeyValue<std::int64_t, std::string>{20, "n2"},
                               KeyValue<std::int64_t, std::string>{40, "n4"}));
}

}  // namespace
}  // namespace brook

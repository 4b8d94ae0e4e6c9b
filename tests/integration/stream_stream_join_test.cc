// Windowed stream-stream joins on the real runtime over the embedded log: an outer join run in
// two parts with a restart in between keeps its join state (records waiting for a match and
// unmatched records not yet emitted), and its results equal the test driver's.
#include <gmock/gmock.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "brook/kstream.h"
#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"
#include "embedded_fixture.h"

namespace brook::testing {
namespace {

using namespace std::chrono_literals;

// The grace (10 s) covers all the data (2 s): the runtime reads the two topics independently
// and may process one ahead of the other, which must not make records late here.
Topology outer_join() {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("left")
      .outer_join(builder.stream<std::string, std::string>("right"),
                  [](const std::optional<std::string>& l, const std::optional<std::string>& r) {
                    return l.value_or("_") + "+" + r.value_or("_");
                  },
                  JoinWindows::of_time_difference_and_grace(25ms, 10s),
                  {.name = "pairs", .store_name = "pairs"})
      .to("out");
  return std::move(*builder.build());
}

struct StreamJoinInput {
  std::string topic;
  std::string key;
  std::string value;
  std::int64_t at;
};

// Left records at even times, right records at odd ones, in time order; `part` 0 or 1. The
// second part ends with a record far ahead, which closes every window.
std::vector<StreamJoinInput> inputs(int part) {
  std::vector<StreamJoinInput> out;
  for (int i = part * 100; i < (part + 1) * 100; ++i) {
    out.push_back({"left", "k" + std::to_string(i * 7 % 10), "l" + std::to_string(i), 10 * i});
    if (i % 3 != 0) {
      out.push_back(
          {"right", "k" + std::to_string(i * 3 % 10), "r" + std::to_string(i), 10 * i + 7});
    }
  }
  if (part == 1) out.push_back({"left", "end", "end", 100'000});
  return out;
}

class StreamStreamJoinTest : public EmbeddedFixture {
 protected:
  void produce_timed(const std::vector<StreamJoinInput>& records) {
    with_log([&](internal::EmbeddedLog& log) {
      auto producer = std::move(*log.make_producer({}));
      for (const auto& r : records) {
        ASSERT_TRUE(producer
                        ->send({.topic = r.topic,
                                .timestamp = Timestamp(r.at),
                                .key = r.key,
                                .value = r.value})
                        .ok());
      }
      ASSERT_TRUE(producer->flush().ok());
    });
  }
};

TEST_F(StreamStreamJoinTest, OuterJoinKeepsItsStateAcrossARestartAndMatchesTheTestDriver) {
  create_topics({{"left", 1}, {"right", 1}, {"out", 1}});
  std::vector<std::tuple<std::string, std::string, std::int64_t>> runtime;
  for (int part : {0, 1}) {
    produce_timed(inputs(part));
    Streams app(outer_join(), config({{"application.id", "ss-join"}}));
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
    // The first part's last unmatched records wait in the shared store across the restart.
    if (part == 0) {
      EXPECT_FALSE(read_all("out").empty());
    }
  }
  for (const auto& r : read_all("out")) runtime.emplace_back(*r.key, *r.value, r.timestamp.value());

  TopologyTestDriver driver(outer_join());
  auto left = driver.create_input_topic<std::string, std::string>("left");
  auto right = driver.create_input_topic<std::string, std::string>("right");
  for (int part : {0, 1}) {
    for (const auto& r : inputs(part)) {
      (r.topic == "left" ? left : right).pipe_input(r.key, r.value, Timestamp(r.at));
    }
  }
  std::vector<std::tuple<std::string, std::string, std::int64_t>> expected;
  for (auto& r :
       driver.create_output_topic<std::string, std::string>("out").read_records_to_list()) {
    expected.emplace_back(r.key, r.value, r.timestamp.value());
  }
  std::sort(runtime.begin(), runtime.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(runtime, expected);
  // Joined pairs and unmatched records of both sides are all there.
  auto count = [&](auto pred) { return std::count_if(expected.begin(), expected.end(), pred); };
  EXPECT_GT(count([](const auto& e) { return std::get<1>(e).starts_with("_+"); }), 0);
  EXPECT_GT(count([](const auto& e) { return std::get<1>(e).ends_with("+_"); }), 0);
  EXPECT_GT(count([](const auto& e) { return std::get<1>(e).find('_') == std::string::npos; }), 50);
  // Every left record but "end" (whose window never closes) is in the output at least once.
  for (int i = 0; i < 200; ++i) {
    const std::string l = "l" + std::to_string(i) + "+";
    EXPECT_GT(count([&](const auto& e) { return std::get<1>(e).starts_with(l); }), 0) << l;
  }
}

}  // namespace
}  // namespace brook::testing

// Stream time across restarts on the embedded log: partition times are committed with the
// input offsets and restored when a task is created, under both guarantees.
#include <gmock/gmock.h>

#include "brook/serde.h"
#include "embedded_fixture.h"
#include "late_records.h"

namespace brook::testing {
namespace {

class StreamTimeTest : public EmbeddedFixture, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override { create_topics({{"in", 1}, {"out", 1}}); }

  void produce_at(const std::vector<std::int64_t>& timestamps) {
    with_log([&](internal::EmbeddedLog& log) {
      auto producer = std::move(*log.make_producer({}));
      for (std::int64_t t : timestamps) {
        ASSERT_TRUE(
            producer->send({.topic = "in", .timestamp = Timestamp(t), .key = "k", .value = "v"})
                .ok());
      }
      ASSERT_TRUE(producer->flush().ok());
    });
  }

  std::int64_t run() {
    Streams app(late_counts_topology("in", "out"),
                config({{"application.id", "late"}, {"processing.guarantee", GetParam()}}));
    EXPECT_TRUE(app.start().ok());
    EXPECT_EQ(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(60)).to_string(),
              "OK");
    wait_until_idle(app);
    const std::int64_t dropped = app.metrics().total("dropped-records-total");
    EXPECT_TRUE(app.close().ok());
    return dropped;
  }

  std::map<std::string, std::int64_t> counts() {
    std::map<std::string, std::int64_t> out;
    for (const auto& r : read_all("out")) out[*r.key] = *Int64Serde().deserialize(*r.value);
    return out;
  }
};

TEST_P(StreamTimeTest, ARecordTooLateBeforeARestartIsStillTooLateAfterIt) {
  expect_lateness_judged_as_before_restarts(
      {.produce = [this](const auto& timestamps) { produce_at(timestamps); },
       .run = [this] { return run(); },
       .counts = [this] { return counts(); }});
}

INSTANTIATE_TEST_SUITE_P(Guarantees, StreamTimeTest,
                         ::testing::Values("at_least_once", "exactly_once_v2"),
                         [](const auto& guarantee) {
                           return guarantee.param == "at_least_once" ? "AtLeastOnce"
                                                                     : "ExactlyOnceV2";
                         });

}  // namespace
}  // namespace brook::testing

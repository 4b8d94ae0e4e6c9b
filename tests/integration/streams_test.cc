// Streams applications on the embedded log: configuration mistakes, one data dir per process,
// waiting for states. What applications do on both logs is in
// tests/contract/streams_contract_test.cc.
#include "brook/streams.h"

#include <gmock/gmock.h>

#include <future>

#include "brook/streams_builder.h"
#include "embedded_fixture.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;
using State = Streams::State;

Topology uppercase_errors() {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .filter([](const std::string&, const std::string& v) { return v.starts_with("ERROR"); })
      .map_values([](const std::string& v) { return "!" + v; })
      .to("out");
  return *builder.build();
}

class StreamsTest : public EmbeddedFixture {};

TEST_F(StreamsTest, ReportsEveryConfigurationMistakeAtOnce) {
  Streams app(uppercase_errors(), {{"num.stream.threads", "zero"},
                                   {"processing.guarantee", "maybe_once"},
                                   {"comit.interval.ms", "5"},
                                   {"processing.exception.handler", "dead-letter"}});
  auto status = app.start();
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("num.stream.threads: 'zero' is not an integer >= 1"));
  EXPECT_THAT(status.message(), HasSubstr("processing.guarantee: 'maybe_once'"));
  EXPECT_THAT(status.message(), HasSubstr("unknown configuration key 'comit.interval.ms'"));
  EXPECT_THAT(status.message(), HasSubstr("application.id is required"));
  EXPECT_THAT(status.message(), HasSubstr("dead_letter_topic"));
  EXPECT_EQ(app.state(), State::kError);
}

TEST_F(StreamsTest, ASecondApplicationOnTheSameDataDirIsRefused) {
  create_topics({{"in", 1}, {"out", 1}});
  Streams first(uppercase_errors(), config({{"application.id", "first"}}));
  ASSERT_TRUE(first.start().ok());
  Streams second(uppercase_errors(), config({{"application.id", "second"}}));
  auto status = second.start();
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("is locked by another process"));
  EXPECT_TRUE(first.close().ok());
}

TEST_F(StreamsTest, WaitingForAStateEndsAtOnceWithTheErrorWhenTheApplicationFails) {
  create_topics({{"in", 1}, {"out", 1}});
  produce("in", {{"k", "boom"}});
  std::promise<void> entered, release;
  std::shared_future<void> gate = release.get_future().share();
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .peek([&entered, gate](const std::string&, const std::string&) {
        entered.set_value();
        gate.wait();
      })
      .map_values([](const std::string& v) -> std::string { throw std::runtime_error(v); },
                  {.name = "explode"})
      .to("out");
  Streams app(*builder.build(), config({{"application.id", "app"}}));
  ASSERT_TRUE(app.start().ok());
  entered.get_future().wait();
  ASSERT_EQ(app.state(), State::kRunning);  // one thread, no state: running once assigned
  // REBALANCING can follow RUNNING, but not ERROR: the wait ends when the record fails.
  auto waiting = std::async(std::launch::async, [&] {
    return app.wait_for_state(State::kRebalancing, std::chrono::hours(1));
  });
  release.set_value();
  const Status waited = waiting.get();
  EXPECT_THAT(waited.message(), HasSubstr("processing error in node explode"));
  EXPECT_THAT(app.wait_for_state(State::kRunning, std::chrono::hours(1)).message(),
              HasSubstr("boom"));
  EXPECT_EQ(app.wait_for_state(State::kError, std::chrono::hours(1)).to_string(), "OK");
  EXPECT_EQ(app.wait_for_state(State::kNotRunning, std::chrono::milliseconds(0)).code(),
            StatusCode::kDeadlineExceeded);
  EXPECT_FALSE(app.close().ok());
  EXPECT_EQ(app.wait_for_state(State::kRunning, std::chrono::hours(1)).code(),
            StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace brook::testing

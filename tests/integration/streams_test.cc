// Streams applications on the embedded log: configuration, topics, threads, state machine.
#include "brook/streams.h"

#include <gmock/gmock.h>

#include <future>
#include <set>

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

TEST_F(StreamsTest, RefusesToStartWithoutItsTopicsNamingEach) {
  Streams app(uppercase_errors(), config({{"application.id", "app"}}));
  auto status = app.start();
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("source topic 'in' does not exist"));
  EXPECT_THAT(status.message(), HasSubstr("sink topic 'out' does not exist"));
}

TEST_F(StreamsTest, ThreeThreadsProcessEveryRecordOnceAndGoThroughTheStates) {
  create_topics({{"in", 6}, {"out", 3}});
  std::vector<std::pair<std::string, std::string>> input;
  std::set<std::string> expected;
  for (int i = 0; i < 6000; ++i) {
    const std::string value = (i % 3 == 0 ? "ERROR " : "INFO ") + std::to_string(i);
    input.emplace_back("key-" + std::to_string(i % 97), value);
    if (i % 3 == 0) expected.insert("!" + value);
  }
  produce("in", input);

  std::vector<std::string> transitions;
  {
    Streams app(uppercase_errors(),
                config({{"application.id", "app"}, {"num.stream.threads", "3"}}));
    app.set_state_listener(
        [&](State to, State) { transitions.push_back(std::string(to_string(to))); });
    ASSERT_TRUE(app.start().ok());
    ASSERT_EQ(app.wait_for_state(State::kRunning, std::chrono::seconds(30)).to_string(), "OK");
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
    EXPECT_EQ(app.state(), State::kNotRunning);
  }
  EXPECT_EQ(transitions.front(), "REBALANCING");
  EXPECT_EQ(transitions.back(), "NOT_RUNNING");
  EXPECT_THAT(transitions, ::testing::Contains("RUNNING"));

  std::multiset<std::string> got;
  for (const auto& r : read_all("out")) got.insert(*r.value);
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()), expected);
}

TEST_F(StreamsTest, ExactlyOnceProducesEveryResultOnce) {
  create_topics({{"in", 4}, {"out", 2}});
  std::vector<std::pair<std::string, std::string>> input;
  for (int i = 0; i < 2000; ++i)
    input.emplace_back(std::to_string(i), "ERROR " + std::to_string(i));
  produce("in", input);
  {
    Streams app(uppercase_errors(), config({{"application.id", "app"},
                                            {"processing.guarantee", "exactly_once_v2"},
                                            {"num.stream.threads", "2"}}));
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
  }
  EXPECT_EQ(read_all("out").size(), 2000u);
}

TEST_F(StreamsTest, ARestartContinuesFromTheCommittedOffsets) {
  create_topics({{"in", 2}, {"out", 2}});
  produce("in", {{"a", "ERROR 1"}, {"b", "ERROR 2"}});
  for (int round = 0; round < 2; ++round) {
    Streams app(uppercase_errors(), config({{"application.id", "app"}}));
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
    if (round == 0) produce("in", {{"c", "ERROR 3"}});
  }
  EXPECT_EQ(read_all("out").size(), 3u);
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

TEST_F(StreamsTest, AFatalProcessingErrorStopsTheApplicationInError) {
  create_topics({{"in", 1}, {"out", 1}});
  produce("in", {{"k", "boom"}});
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .map_values([](const std::string& v) -> std::string { throw std::runtime_error(v); },
                  {.name = "explode"})
      .to("out");
  Streams app(*builder.build(), config({{"application.id", "app"}}));
  ASSERT_TRUE(app.start().ok());
  ASSERT_EQ(app.wait_for_state(State::kError, std::chrono::seconds(30)).to_string(), "OK");
  auto status = app.close();
  EXPECT_THAT(status.message(), HasSubstr("processing error in node explode"));
  EXPECT_THAT(status.message(), HasSubstr("boom"));
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

TEST_F(StreamsTest, RunUntilIdleSaysWhenTheInputTopicsHoldNoRecords) {
  create_topics({{"in", 2}, {"out", 1}});
  for (bool expired : {false, true}) {
    if (expired) {  // records written, then deleted as retention would
      produce("in", {{"k", "ERROR 1"}, {"k", "ERROR 2"}});
      with_log([](internal::EmbeddedLog& log) {
        for (int p = 0; p < 2; ++p) {
          const internal::TopicPartition tp{"in", Partition(p)};
          auto end = log.admin().list_offset(tp, {.kind = internal::OffsetSpec::Kind::kLatest});
          ASSERT_TRUE(end);
          ASSERT_TRUE(log.admin().delete_records_before(tp, *end).ok());
        }
      });
    }
    Streams app(uppercase_errors(), config({{"application.id", expired ? "expired" : "empty"}}));
    ::testing::internal::CaptureStderr();
    const Status s = app.run_until_idle(std::chrono::seconds(60));
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(s.to_string(), "OK");
    EXPECT_THAT(err, HasSubstr("no records to process in topic(s) in: empty, or retention "
                               "deleted their records"));
    EXPECT_EQ(app.state(), State::kNotRunning);
  }
  produce("in", {{"k", "ERROR 3"}});
  Streams app(uppercase_errors(), config({{"application.id", "fed"}}));
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(app.run_until_idle(std::chrono::seconds(60)).to_string(), "OK");
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              ::testing::Not(HasSubstr("no records to process")));
  EXPECT_EQ(read_all("out").size(), 1u);
}

// Records routed to a topic that does not exist: refused by the log. log-and-continue drops
// and counts them and the others go through; fail (the default) stops the application.
TEST_F(StreamsTest, TheProductionErrorHandlerDropsOrFailsOnRecordsTheLogRefuses) {
  create_topics({{"in", 1}, {"out", 1}});
  produce("in", {{"k", "out"}, {"k", "nowhere"}, {"k", "out"}, {"k", "nowhere"}});
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in").to(
      [](const std::string&, const std::string& topic) { return topic; });
  const auto topology = *builder.build();
  {
    Streams app(topology, config({{"application.id", "continue"},
                                  {"default.production.exception.handler", "log-and-continue"}}));
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    EXPECT_EQ(app.metrics().total("dropped-records-total"), 2);
    EXPECT_TRUE(app.close().ok());
  }
  EXPECT_EQ(read_all("out").size(), 2u);
  Streams app(topology, config({{"application.id", "fail"}}));
  ASSERT_TRUE(app.start().ok());
  ASSERT_EQ(app.wait_for_state(State::kError, std::chrono::seconds(30)).to_string(), "OK");
  EXPECT_THAT(app.close().message(), HasSubstr("nowhere"));
}

// "in" is empty, but two records wait in the repartition topic that feeds the second
// sub-topology, which fails on them: the application has not caught up.
TEST_F(StreamsTest, LagCountsRecordsWaitingInRepartitionTopics) {
  create_topics({{"in", 1}, {"out", 1}, {"app-hop-repartition", 1}});
  produce("app-hop-repartition", {{"k1", "boom"}, {"k2", "boom"}});
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .repartition({.name = "hop", .partitions = 1})
      .map_values([](const std::string& v) -> std::string { throw std::runtime_error(v); },
                  {.name = "explode"})
      .to("out");
  Streams app(*builder.build(), config({{"application.id", "app"}}));
  ASSERT_TRUE(app.start().ok());
  ASSERT_EQ(app.wait_for_state(State::kError, std::chrono::seconds(30)).to_string(), "OK");
  auto lag = app.lag();
  ASSERT_TRUE(lag) << lag.error().to_string();
  EXPECT_EQ(*lag, 2);
  EXPECT_FALSE(app.close().ok());
}

TEST_F(StreamsTest, CloseGivesUpWaitingAfterItsTimeoutAndCanBeCalledAgain) {
  create_topics({{"in", 1}, {"out", 1}});
  produce("in", {{"k", "v"}});
  std::promise<void> entered, release;
  std::shared_future<void> gate = release.get_future().share();
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .peek([&entered, gate](const std::string&, const std::string&) {
        entered.set_value();
        gate.wait();  // a slow record, as long as the test wants
      })
      .to("out");
  Streams app(*builder.build(), config({{"application.id", "app"}}));
  ASSERT_TRUE(app.start().ok());
  entered.get_future().wait();
  auto timed_out = app.close(std::chrono::milliseconds(20));
  EXPECT_EQ(timed_out.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(timed_out.message(), HasSubstr("did not finish within 20 ms"));
  EXPECT_EQ(app.state(), State::kPendingShutdown);
  release.set_value();
  EXPECT_TRUE(app.close().ok());
  EXPECT_EQ(app.state(), State::kNotRunning);
  EXPECT_EQ(read_all("out").size(), 1u);  // the slow record was finished and committed
}

}  // namespace
}  // namespace brook::testing

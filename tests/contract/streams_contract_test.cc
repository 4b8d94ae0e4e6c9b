// Streams applications, the same tests on the embedded log and on a real Kafka broker:
// starting, threads and their states, both guarantees, restarts, errors and their handlers,
// lag, close, and how sinks partition windowed keys.
#include <gmock/gmock.h>

#include <future>
#include <set>

#include "app_waits.h"
#include "backend_under_test.h"
#include "brook/serde.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;
using State = Streams::State;
using namespace std::chrono_literals;

// The values of `in` that start with ERROR, with "!" in front, to `out`.
Topology errors_topology(const std::string& in, const std::string& out) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>(in)
      .filter([](const std::string&, const std::string& v) { return v.starts_with("ERROR"); })
      .map_values([](const std::string& v) { return "!" + v; })
      .to(out);
  return *builder.build();
}

// Each test has its own input and output topics and application id.
class StreamsContractTest : public BackendTest {
 protected:
  const std::string in_ = name("in");
  const std::string out_ = name("out");
  const std::string app_ = name("app");
};

TEST_P(StreamsContractTest, RefusesToStartWithoutItsTopicsNamingEach) {
  Streams app(errors_topology(in_, out_), streams_config(app_));
  const Status status = app.start();
  EXPECT_EQ(status.code(), StatusCode::kNotFound) << status.to_string();
  EXPECT_THAT(status.message(), HasSubstr("source topic '" + in_ + "' does not exist"));
  EXPECT_THAT(status.message(), HasSubstr("sink topic '" + out_ + "' does not exist"));
  EXPECT_EQ(app.state(), State::kError);
}

TEST_P(StreamsContractTest, ThreeThreadsProcessEveryRecordOnceAndGoThroughTheStates) {
  create_topic(in_, 6);
  create_topic(out_, 3);
  KeyValues input;
  std::set<std::string> expected;
  for (int i = 0; i < 6000; ++i) {
    const std::string value = (i % 3 == 0 ? "ERROR " : "INFO ") + std::to_string(i);
    input.emplace_back("key-" + std::to_string(i % 97), value);
    if (i % 3 == 0) expected.insert("!" + value);
  }
  produce(in_, input);

  std::vector<std::string> transitions;
  {
    Streams app(errors_topology(in_, out_), streams_config(app_, {{"num.stream.threads", "3"}}));
    app.set_state_listener(
        [&](State to, State) { transitions.push_back(std::string(to_string(to))); });
    ASSERT_TRUE(app.start().ok());
    ASSERT_EQ(app.wait_for_state(State::kRunning, 60s).to_string(), "OK");
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
    EXPECT_EQ(app.state(), State::kNotRunning);
  }
  EXPECT_EQ(transitions.front(), "REBALANCING");
  EXPECT_EQ(transitions.back(), "NOT_RUNNING");
  EXPECT_THAT(transitions, ::testing::Contains("RUNNING"));

  std::multiset<std::string> got;
  for (const auto& r : read_all(out_)) got.insert(*r.value);
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()), expected);
}

TEST_P(StreamsContractTest, ExactlyOnceProducesEveryResultOnce) {
  create_topic(in_, 4);
  create_topic(out_, 2);
  KeyValues input;
  for (int i = 0; i < 2000; ++i)
    input.emplace_back(std::to_string(i), "ERROR " + std::to_string(i));
  produce(in_, input);
  {
    Streams app(errors_topology(in_, out_),
                streams_config(app_, {{"processing.guarantee", "exactly_once_v2"},
                                      {"num.stream.threads", "2"}}));
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
  }
  std::multiset<std::string> got;
  for (const auto& r : read_all(out_)) got.insert(*r.value);
  EXPECT_EQ(got.size(), 2000u);
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()).size(), 2000u) << "a result twice";
}

TEST_P(StreamsContractTest, ARestartContinuesFromTheCommittedOffsets) {
  create_topic(in_, 2);
  create_topic(out_, 2);
  produce(in_, {{"a", "ERROR 1"}, {"b", "ERROR 2"}});
  for (int round = 0; round < 2; ++round) {
    Streams app(errors_topology(in_, out_), streams_config(app_));
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
    if (round == 0) produce(in_, {{"c", "ERROR 3"}});
  }
  std::multiset<std::string> got;
  for (const auto& r : read_all(out_)) got.insert(*r.value);
  EXPECT_EQ(got, (std::multiset<std::string>{"!ERROR 1", "!ERROR 2", "!ERROR 3"}));
}

TEST_P(StreamsContractTest, AFatalProcessingErrorStopsTheApplicationInError) {
  create_topic(in_, 1);
  create_topic(out_, 1);
  produce(in_, {{"k", "boom"}});
  StreamsBuilder builder;
  builder.stream<std::string, std::string>(in_)
      .map_values([](const std::string& v) -> std::string { throw std::runtime_error(v); },
                  {.name = "explode"})
      .to(out_);
  Streams app(*builder.build(), streams_config(app_));
  ASSERT_TRUE(app.start().ok());
  ASSERT_EQ(app.wait_for_state(State::kError, 60s).to_string(), "OK");
  const Status status = app.close();
  EXPECT_THAT(status.message(), HasSubstr("processing error in node explode"));
  EXPECT_THAT(status.message(), HasSubstr("boom"));
}

TEST_P(StreamsContractTest, RunUntilIdleSaysWhenTheInputTopicsHoldNoRecords) {
  create_topic(in_, 2);
  create_topic(out_, 1);
  for (bool expired : {false, true}) {
    if (expired) {  // records written, then deleted as retention would
      produce(in_, {{"k", "ERROR 1"}, {"k", "ERROR 2"}});
      with_log([&](internal::LogBackend& log) {
        for (int p = 0; p < 2; ++p) {
          const internal::TopicPartition tp{in_, Partition(p)};
          auto end = log.admin().list_offset(tp, {.kind = internal::OffsetSpec::Kind::kLatest});
          ASSERT_TRUE(end) << end.error().to_string();
          ASSERT_TRUE(log.admin().delete_records_before(tp, *end).ok());
        }
      });
    }
    Streams app(errors_topology(in_, out_), streams_config(name(expired ? "expired" : "empty")));
    ::testing::internal::CaptureStderr();
    const Status s = app.run_until_idle(60s);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(s.to_string(), "OK");
    EXPECT_THAT(err, HasSubstr("no records to process in topic(s) " + in_ +
                               ": empty, or retention deleted their records"));
    EXPECT_EQ(app.state(), State::kNotRunning);
  }
  produce(in_, {{"k", "ERROR 3"}});
  Streams app(errors_topology(in_, out_), streams_config(name("fed")));
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(app.run_until_idle(60s).to_string(), "OK");
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              ::testing::Not(HasSubstr("no records to process")));
  EXPECT_THAT(values_of(read_all(out_)), ::testing::ElementsAre("!ERROR 3"));
}

// Records routed to a topic that does not exist: refused by the log. log-and-continue drops
// and counts them and the others go through; fail (the default) stops the application.
TEST_P(StreamsContractTest, TheProductionErrorHandlerDropsOrFailsOnRecordsTheLogRefuses) {
  create_topic(in_, 1);
  create_topic(out_, 1);
  const std::string nowhere = name("nowhere");
  produce(in_, {{"k", out_}, {"k", nowhere}, {"k", out_}, {"k", nowhere}});
  StreamsBuilder builder;
  builder.stream<std::string, std::string>(in_).to(
      [](const std::string&, const std::string& topic) { return topic; });
  const auto topology = *builder.build();
  {
    Streams app(topology, streams_config(name("continue"), {{"default.production.exception.handler",
                                                             "log-and-continue"}}));
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    EXPECT_EQ(app.metrics().total("dropped-records-total"), 2);
    EXPECT_TRUE(app.close().ok());
  }
  EXPECT_EQ(read_all(out_).size(), 2u);
  Streams app(topology, streams_config(name("fail")));
  ASSERT_TRUE(app.start().ok());
  ASSERT_EQ(app.wait_for_state(State::kError, 60s).to_string(), "OK");
  EXPECT_THAT(app.close().message(), HasSubstr(nowhere));
}

// The input is empty, but two records wait in the repartition topic that feeds the second
// sub-topology, which fails on them: the application has not caught up.
TEST_P(StreamsContractTest, LagCountsRecordsWaitingInRepartitionTopics) {
  create_topic(in_, 1);
  create_topic(out_, 1);
  create_topic(app_ + "-hop-repartition", 1);
  produce(app_ + "-hop-repartition", {{"k1", "boom"}, {"k2", "boom"}});
  StreamsBuilder builder;
  builder.stream<std::string, std::string>(in_)
      .repartition({.name = "hop", .partitions = 1})
      .map_values([](const std::string& v) -> std::string { throw std::runtime_error(v); },
                  {.name = "explode"})
      .to(out_);
  Streams app(*builder.build(), streams_config(app_));
  ASSERT_TRUE(app.start().ok());
  ASSERT_EQ(app.wait_for_state(State::kError, 60s).to_string(), "OK");
  auto lag = app.lag();
  ASSERT_TRUE(lag) << lag.error().to_string();
  EXPECT_EQ(*lag, 2);
  EXPECT_FALSE(app.close().ok());
}

TEST_P(StreamsContractTest, CloseGivesUpWaitingAfterItsTimeoutAndCanBeCalledAgain) {
  create_topic(in_, 1);
  create_topic(out_, 1);
  produce(in_, {{"k", "v"}});
  std::promise<void> entered, release;
  std::shared_future<void> gate = release.get_future().share();
  StreamsBuilder builder;
  builder.stream<std::string, std::string>(in_)
      .peek([&entered, gate](const std::string&, const std::string&) {
        entered.set_value();
        gate.wait();  // a slow record, as long as the test wants
      })
      .to(out_);
  Streams app(*builder.build(), streams_config(app_));
  ASSERT_TRUE(app.start().ok());
  entered.get_future().wait();
  auto timed_out = app.close(20ms);
  EXPECT_EQ(timed_out.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(timed_out.message(), HasSubstr("did not finish within 20 ms"));
  EXPECT_EQ(app.state(), State::kPendingShutdown);
  release.set_value();
  EXPECT_TRUE(app.close().ok());
  EXPECT_EQ(app.state(), State::kNotRunning);
  EXPECT_THAT(values_of(read_all(out_)), ::testing::ElementsAre("v"))
      << "the slow record was finished and committed";
}

// Counts per last digit of the value, of the values longer than 2 characters and of all:
// two aggregations downstream of one key change, built with `config`.
Topology counts_per_digit(const std::string& in, const std::string& long_out,
                          const std::string& all_out,
                          const std::map<std::string, std::string>& config) {
  StreamsBuilder builder;
  auto by_digit = builder.stream<std::string, std::string>(in).select_key(
      [](const std::string&, const std::string& v) { return v.substr(v.size() - 1); });
  by_digit.filter([](const std::string&, const std::string& v) { return v.size() > 2; })
      .group_by_key()
      .count({.name = "long"})
      .to_stream()
      .to(long_out);
  by_digit.group_by_key().count({.name = "all"}).to_stream().to(all_out);
  return *builder.build(config);
}

TEST_P(StreamsContractTest, TwoAggregationsAfterOneKeyChangeCountTheSameThroughOneTopic) {
  const std::string long_out = name("long"), all_out = name("all");
  for (const auto& topic : {in_, long_out, all_out}) create_topic(topic, 3);
  KeyValues input;
  std::map<std::string, std::int64_t> expected_long, expected_all;
  for (int i = 0; i < 3000; ++i) {
    const std::string value = "v" + std::to_string(i);
    input.emplace_back("k" + std::to_string(i % 7), value);
    ++expected_all[value.substr(value.size() - 1)];
    if (value.size() > 2) ++expected_long[value.substr(value.size() - 1)];
  }
  produce(in_, input);
  const std::map<std::string, std::string> all = {{"topology.optimization", "all"}};
  auto config = streams_config(app_, all);
  {
    Streams app(counts_per_digit(in_, long_out, all_out, all), config);
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
  }
  EXPECT_EQ(latest_counts(long_out), expected_long);
  EXPECT_EQ(latest_counts(all_out), expected_all);
  with_log([&](internal::LogBackend& log) {
    auto topics = log.admin().list_topics();
    ASSERT_TRUE(topics) << topics.error().to_string();
    EXPECT_THAT(*topics, ::testing::Contains(app_ + "-long-repartition"));
    EXPECT_THAT(*topics, ::testing::Not(::testing::Contains(app_ + "-all-repartition")));
  });

  Streams unoptimized(counts_per_digit(in_, long_out, all_out, {}), config);
  const Status status = unoptimized.start();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("topology.optimization is 'reuse.ktable.source.topics,merge.repartition."
                        "topics' but the topology was built with 'none'"));
}

// Sinks of time- and session-windowed keys put every record in the partition of its key alone
// (as Kafka Streams' windowed stream partitioner), so all windows of a key share the key's
// partition: counts per key in 10 ms tumbling windows and in sessions with a 5 ms gap, 40
// keys at times 1, 2, 21, 22 and 41 (several windows and sessions per key).
TEST_P(StreamsContractTest, SinksPartitionWindowedKeysByTheKeyAlone) {
  const std::string per_window = name("per-window"), per_session = name("per-session");
  for (const auto& topic : {in_, per_window, per_session}) create_topic(topic, 4);
  with_log([&](internal::LogBackend& log) {
    auto producer = log.make_producer({.client_id = "test"});
    ASSERT_TRUE(producer) << producer.error().to_string();
    // Not at 0: a Kafka producer gives a record of timestamp 0 the current time.
    for (std::int64_t t : {1, 2, 21, 22, 41}) {
      for (int k = 0; k < 40; ++k) {
        ASSERT_TRUE((*producer)
                        ->send({.topic = in_,
                                .timestamp = Timestamp(t),
                                .key = "device-" + std::to_string(k),
                                .value = "x"})
                        .ok());
      }
    }
    ASSERT_TRUE((*producer)->flush().ok());
  });
  StreamsBuilder builder;
  auto grouped = builder.stream<std::string, std::string>(in_).group_by_key();
  grouped.windowed_by(TimeWindows::of_size_with_no_grace(10ms))
      .count({.name = "windowed-counts"})
      .to_stream()
      .to(per_window);
  grouped.windowed_by(SessionWindows::of_inactivity_gap_with_no_grace(5ms))
      .count({.name = "session-counts"})
      .to_stream()
      .to(per_session, {.key_serde = std::make_shared<const SessionWindowedSerde<std::string>>(
                            std::make_shared<const StringSerde>())});
  Streams app(*builder.build(), streams_config(app_));
  ASSERT_EQ(app.run_until_idle(60s).to_string(), "OK");

  // Every record's key without its window (the last `suffix` bytes) is in the partition the
  // default partitioner gives it.
  auto expect_partitioned_by_key = [&](internal::LogBackend& log, const std::string& topic,
                                       std::size_t suffix) {
    int records = 0;
    const auto partitions = read_topic(log, topic);
    for (const auto& [partition, in_partition] : partitions) {
      for (const auto& record : in_partition) {
        ASSERT_TRUE(record.key && record.key->size() > suffix);
        const std::string key = record.key->substr(0, record.key->size() - suffix);
        EXPECT_EQ(internal::partition_for_key(key, static_cast<int>(partitions.size())).value(),
                  partition)
            << topic << ": a record of key " << key << " is in partition " << partition;
        ++records;
      }
    }
    EXPECT_GT(records, 100) << topic;
  };
  with_log([&](internal::LogBackend& log) {
    expect_partitioned_by_key(log, per_window, 8);
    expect_partitioned_by_key(log, per_session, 16);
  });
}

INSTANTIATE_TEST_SUITE_P(BothBackends, StreamsContractTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kKafka), backend_name);

}  // namespace
}  // namespace brook::testing

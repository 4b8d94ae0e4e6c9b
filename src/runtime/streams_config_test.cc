#include "runtime/streams_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace brook::internal {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

TEST(StreamsConfig, StreamTimeIdleAdvanceIsOffUnlessSet) {
  auto config = parse_streams_config({{"application.id", "app"}});
  ASSERT_TRUE(config) << config.error().to_string();
  EXPECT_FALSE(config->stream_time_idle_advance);

  config =
      parse_streams_config({{"application.id", "app"}, {"stream.time.idle.advance.ms", "60000"}});
  ASSERT_TRUE(config) << config.error().to_string();
  EXPECT_EQ(config->stream_time_idle_advance, 60000ms);
}

TEST(StreamsConfig, ANegativeOrNonNumericIdleAdvanceIsAnErrorNamingTheKey) {
  for (const char* bad : {"-1", "soon", "10s", ""}) {
    auto config =
        parse_streams_config({{"application.id", "app"}, {"stream.time.idle.advance.ms", bad}});
    ASSERT_FALSE(config) << bad;
    EXPECT_THAT(config.error().message(), HasSubstr(std::string("stream.time.idle.advance.ms: '") +
                                                    bad + "' is not an integer >= 0"));
  }
}

TEST(StreamsConfig, ProducerBatchingGoesToTheEmbeddedLogAndToKafkasProducers) {
  auto config = parse_streams_config({{"application.id", "app"}});
  ASSERT_TRUE(config);
  EXPECT_EQ(config->batching.batch_bytes, std::size_t{1} << 20);
  EXPECT_EQ(config->batching.linger, 0ms);
  config = parse_streams_config(
      {{"application.id", "app"}, {"producer.batch.size", "16384"}, {"producer.linger.ms", "5"}});
  ASSERT_TRUE(config) << config.error().to_string();
  EXPECT_EQ(config->batching.batch_bytes, 16384u);
  EXPECT_EQ(config->batching.linger, 5ms);
  EXPECT_EQ(config->kafka_producer.at("batch.size"), "16384");
  EXPECT_EQ(config->kafka_producer.at("linger.ms"), "5");

  config = parse_streams_config(
      {{"application.id", "app"}, {"producer.batch.size", "0"}, {"producer.linger.ms", "-1"}});
  ASSERT_FALSE(config);
  EXPECT_THAT(config.error().message(),
              HasSubstr("producer.batch.size: '0' is not an integer >= 1"));
  EXPECT_THAT(config.error().message(),
              HasSubstr("producer.linger.ms: '-1' is not an integer >= 0"));
}

TEST(StreamsConfig, WindowChangelogsKeepADayLongerByDefaultAndNeverANegativeTime) {
  auto config = parse_streams_config({{"application.id", "app"}});
  ASSERT_TRUE(config);
  EXPECT_EQ(config->changelog_extra_retention, 86'400'000ms);
  config = parse_streams_config(
      {{"application.id", "app"}, {"windowstore.changelog.additional.retention.ms", "0"}});
  ASSERT_TRUE(config);
  EXPECT_EQ(config->changelog_extra_retention, 0ms);
  config = parse_streams_config(
      {{"application.id", "app"}, {"windowstore.changelog.additional.retention.ms", "-1"}});
  ASSERT_FALSE(config);
  EXPECT_THAT(config.error().message(),
              HasSubstr("windowstore.changelog.additional.retention.ms: '-1'"));
}

TEST(StreamsConfig, TasksWaitForKnownInputByDefaultAndNeverWithMinusOne) {
  auto config = parse_streams_config({{"application.id", "app"}});
  ASSERT_TRUE(config) << config.error().to_string();
  EXPECT_EQ(config->max_task_idle, 0ms);
  EXPECT_EQ(config->buffered_records_per_partition, 1000U);

  config = parse_streams_config({{"application.id", "app"},
                                 {"max.task.idle.ms", "250"},
                                 {"buffered.records.per.partition", "50"}});
  ASSERT_TRUE(config) << config.error().to_string();
  EXPECT_EQ(config->max_task_idle, 250ms);
  EXPECT_EQ(config->buffered_records_per_partition, 50U);

  config = parse_streams_config({{"application.id", "app"}, {"max.task.idle.ms", "-1"}});
  ASSERT_TRUE(config) << config.error().to_string();
  EXPECT_FALSE(config->max_task_idle);
}

TEST(StreamsConfig, BadTaskIdleAndBufferSettingsAreErrorsNamingTheKeys) {
  auto config = parse_streams_config({{"application.id", "app"},
                                      {"max.task.idle.ms", "-2"},
                                      {"buffered.records.per.partition", "0"}});
  ASSERT_FALSE(config);
  EXPECT_THAT(config.error().message(),
              HasSubstr("max.task.idle.ms: '-2' is not an integer >= -1"));
  EXPECT_THAT(config.error().message(),
              HasSubstr("buffered.records.per.partition: '0' is not an integer >= 1"));
}

TEST(StreamsConfig, KafkaCallsAreTriedAgainForFiveMinutesUnlessTaskTimeoutSaysOtherwise) {
  auto config = parse_streams_config({{"application.id", "app"}});
  ASSERT_TRUE(config) << config.error().to_string();
  EXPECT_EQ(config->task_timeout, 5min);  // Kafka Streams' default
  config = parse_streams_config({{"application.id", "app"}, {"task.timeout.ms", "60000"}});
  ASSERT_TRUE(config) << config.error().to_string();
  EXPECT_EQ(config->task_timeout, 1min);
  const auto bad = parse_streams_config({{"application.id", "app"}, {"task.timeout.ms", "-1"}});
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message(), HasSubstr("task.timeout.ms"));
}

}  // namespace
}  // namespace brook::internal

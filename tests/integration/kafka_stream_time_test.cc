// Stream time across restarts on a real Kafka broker: partition times travel in the commit
// metadata of the input offsets (as Kafka Streams keeps them) and come back when a task is
// created, under both guarantees.
#include <gmock/gmock.h>

#include "app_waits.h"
#include "brook/serde.h"
#include "kafka_cluster.h"
#include "late_records.h"
#include "topic_reader.h"

namespace brook::testing {
namespace {

class KafkaStreamTimeTest : public KafkaFixture, public ::testing::WithParamInterface<std::string> {
 protected:
  void produce_at(const std::string& topic, const std::vector<std::int64_t>& timestamps) {
    auto producer = kafka_->make_producer({.client_id = "test"});
    ASSERT_TRUE(producer) << producer.error().to_string();
    for (std::int64_t t : timestamps) {
      auto s =
          (*producer)->send({.topic = topic, .timestamp = Timestamp(t), .key = "k", .value = "v"});
      ASSERT_TRUE(s.ok()) << s.to_string();
    }
    auto s = (*producer)->flush();
    ASSERT_TRUE(s.ok()) << s.to_string();
  }

  std::int64_t run(const std::string& app_id, const std::string& in, const std::string& out) {
    auto settings = config(app_id, "a");
    settings["processing.guarantee"] = GetParam();
    Streams app(late_counts_topology(in, out), settings);
    EXPECT_TRUE(app.start().ok());
    EXPECT_EQ(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(60)).to_string(),
              "OK");
    wait_until_idle(app);
    const std::int64_t dropped = app.metrics().total("dropped-records-total");
    EXPECT_TRUE(app.close().ok());
    return dropped;
  }

  std::map<std::string, std::int64_t> counts(const std::string& topic) {
    std::map<std::string, std::int64_t> out;
    for (const auto& [p, records] : read_topic(*kafka_, topic)) {
      for (const auto& r : records) out[*r.key] = *Int64Serde().deserialize(*r.value);
    }
    return out;
  }
};

TEST_P(KafkaStreamTimeTest, ARecordTooLateBeforeARestartIsStillTooLateAfterIt) {
  const auto in = unique_name("late-in");
  const auto out = unique_name("late-out");
  const auto app_id = unique_name("late-app");
  create_topic(in, 1);
  create_topic(out, 1);
  expect_lateness_judged_as_before_restarts(
      {.produce = [&](const auto& timestamps) { produce_at(in, timestamps); },
       .run = [&] { return run(app_id, in, out); },
       .counts = [&] { return counts(out); }});
}

INSTANTIATE_TEST_SUITE_P(Guarantees, KafkaStreamTimeTest,
                         ::testing::Values("at_least_once", "exactly_once_v2"),
                         [](const auto& guarantee) {
                           return guarantee.param == "at_least_once" ? "AtLeastOnce"
                                                                     : "ExactlyOnceV2";
                         });

}  // namespace
}  // namespace brook::testing

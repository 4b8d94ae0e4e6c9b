// The Kafka broker the Kafka tests run against: scripts/test.sh starts one and exports its
// address as BROOK_KAFKA_BOOTSTRAP. Tests share it, so each names its topics and groups
// uniquely (unique_name).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backend/kafka/kafka_backend.h"
#include "scratch_dir.h"
#include "unique_name.h"

namespace brook::testing {

// The broker's address. Fails the test (with what to do) when no broker was started.
inline std::string kafka_bootstrap() {
  const char* address = std::getenv("BROOK_KAFKA_BOOTSTRAP");
  if (address == nullptr || *address == '\0') {
    ADD_FAILURE() << "BROOK_KAFKA_BOOTSTRAP is not set: run the tests with scripts/test.sh, "
                     "or start a broker with scripts/kafka.sh start (needs the Debian packages "
                     "openjdk-17-jdk-headless, maven and kcat) and export "
                     "BROOK_KAFKA_BOOTSTRAP=<the address it prints>";
    return "";
  }
  return address;
}

// Creates `topics` on `log` anew and empty: deletes any of the same name first. Kafka deletes in
// the background, so creating the name again fails until that is done: waits up to a minute.
inline void create_topics_anew(internal::LogBackend& log,
                               const std::vector<internal::NewTopic>& topics) {
  for (const auto& topic : topics) (void)log.admin().delete_topic(topic.name);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (const auto& topic : topics) {
    while (true) {
      const Status s = log.admin().create_topic(topic);
      if (s.ok()) break;
      ASSERT_EQ(s.code(), StatusCode::kAlreadyExists) << s.to_string();
      ASSERT_LT(std::chrono::steady_clock::now(), deadline)
          << topic.name << " is still being deleted after 60 s";
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
}

// Records to write: key, and value or std::nullopt for a tombstone.
using KeyValues = std::vector<std::pair<std::string, std::optional<std::string>>>;

// A test on the broker: `bootstrap_` is its address, `kafka_` a backend on it.
class KafkaFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    bootstrap_ = kafka_bootstrap();
    ASSERT_FALSE(bootstrap_.empty());
    auto kafka = internal::open_kafka_backend({.bootstrap_servers = bootstrap_});
    ASSERT_TRUE(kafka) << kafka.error().to_string();
    kafka_ = std::move(*kafka);
  }

  // Creates `topic` on the broker; fails the test if it cannot. Its records are kept forever
  // unless `configs` says otherwise: tests date records early in 1970, which the broker's
  // retention check (every 5 s, scripts/kafka.sh) would otherwise delete while the test runs.
  void create_topic(const std::string& topic, std::int32_t partitions,
                    std::map<std::string, std::string> configs = {}) {
    configs.try_emplace("retention.ms", "-1");
    auto s = kafka_->admin().create_topic(
        {.name = topic, .partitions = partitions, .configs = std::move(configs)});
    ASSERT_TRUE(s.ok()) << s.to_string();
  }

  // Writes `records` to `topic` in order, each keyed record to the partition murmur2 picks for
  // its key, and flushes.
  void produce(const std::string& topic, const KeyValues& records) {
    auto producer = kafka_->make_producer({.client_id = "test"});
    ASSERT_TRUE(producer) << producer.error().to_string();
    for (const auto& [key, value] : records) {
      auto s = (*producer)->send({.topic = topic, .key = key, .value = value});
      ASSERT_TRUE(s.ok()) << s.to_string();
    }
    auto s = (*producer)->flush();
    ASSERT_TRUE(s.ok()) << s.to_string();
  }

  // The config of an instance of application `app` on the broker, its stores in a scratch
  // directory named `instance`: commits every 100 ms; a short session, so that the group
  // notices a member leaving within seconds.
  std::map<std::string, std::string> config(const std::string& app, const std::string& instance) {
    return {{"bootstrap.servers", bootstrap_},
            {"application.id", app},
            {"state.dir", (state_dirs_.path() / instance).string()},
            {"commit.interval.ms", "100"},
            {"consumer.session.timeout.ms", "6000"},
            {"consumer.heartbeat.interval.ms", "1000"}};
  }

  std::string bootstrap_;
  std::unique_ptr<internal::LogBackend> kafka_;
  ScratchDir state_dirs_{"kafka-state"};
};

}  // namespace brook::testing

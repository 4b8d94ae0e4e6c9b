// The Kafka broker the Kafka tests run against: scripts/test.sh starts one and exports its
// address as BROOK_KAFKA_BOOTSTRAP. Tests share it, so each names its topics and groups
// uniquely (unique_name).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

#include "backend/kafka/kafka_backend.h"

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

// "<prefix>-<pid>-<time>-<n>": unique across the test processes sharing the broker.
inline std::string unique_name(const std::string& prefix) {
  static std::atomic<int> counter = 0;
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(now % 1'000'000'000) +
         "-" + std::to_string(counter++);
}

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

  std::string bootstrap_;
  std::unique_ptr<internal::LogBackend> kafka_;
};

}  // namespace brook::testing

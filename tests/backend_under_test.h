// Tests that must hold on both logs, written once and run on each (tests/contract/): the
// embedded log in a scratch directory, and Kafka on the broker scripts/test.sh starts
// (kafka_cluster.h). Names of topics, groups and applications are unique per test, as the
// broker is shared.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "backend/log_backend.h"
#include "backend/open_backend.h"
#include "brook/serde.h"
#include "kafka_cluster.h"
#include "scratch_dir.h"
#include "topic_reader.h"
#include "unique_name.h"

namespace brook::testing {

enum class Backend { kEmbedded, kKafka };

inline const char* to_string(Backend backend) {
  return backend == Backend::kEmbedded ? "Embedded" : "Kafka";
}
inline void PrintTo(Backend backend, std::ostream* out) { *out << to_string(backend); }
// The suffix of each test's name.
inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  return to_string(info.param);
}

// A test on one of the backends, which `backend()` names. The backend is opened by each
// helper and closed after it (with_log), so that between two helpers a Streams application
// may hold the embedded data dir, which one process at a time may open.
class OnBackend : public ::testing::Test {
 protected:
  virtual Backend backend() const = 0;
  bool on_kafka() const { return backend() == Backend::kKafka; }

  // A name no other test (or earlier run) on the broker uses.
  static std::string name(const std::string& prefix) { return unique_name(prefix); }

  // A client of the broker, or the embedded log of this test's data dir (without background
  // maintenance); null, with the test failed, if it cannot be opened.
  std::unique_ptr<internal::LogBackend> open_log() {
    const std::string bootstrap = on_kafka() ? kafka_bootstrap() : "";
    if (on_kafka() && bootstrap.empty()) return nullptr;
    auto log = internal::open_backend(
        {.bootstrap_servers = bootstrap},
        {.data_dir = data_dir_.path(), .maintenance_interval = std::chrono::milliseconds(0)});
    if (!log) {
      ADD_FAILURE() << log.error().to_string();
      return nullptr;
    }
    return std::move(*log);
  }

  // Opens the backend, runs `fn(LogBackend&)`, closes it.
  template <class Fn>
  void with_log(Fn fn) {
    auto log = open_log();
    ASSERT_NE(log, nullptr);
    fn(*log);
  }

  // Creates topic `name` with `partitions`; its records are kept forever unless `configs`
  // says otherwise (tests date records early in 1970, which the broker's retention would
  // delete).
  void create_topic(const std::string& topic, std::int32_t partitions,
                    std::map<std::string, std::string> configs = {}) {
    configs.try_emplace("retention.ms", "-1");
    with_log([&](internal::LogBackend& log) {
      const Status s = log.admin().create_topic(
          {.name = topic, .partitions = partitions, .configs = std::move(configs)});
      ASSERT_TRUE(s.ok()) << s.to_string();
    });
  }

  // Writes `records` (key, value or nullopt for a tombstone) to `topic` in order, with
  // timestamps 1, 2, ..., each to the partition murmur2 picks for its key, and flushes.
  void produce(const std::string& topic, const KeyValues& records) {
    with_log([&](internal::LogBackend& log) {
      auto producer = log.make_producer({.client_id = "test"});
      ASSERT_TRUE(producer) << producer.error().to_string();
      std::int64_t ts = 0;
      for (const auto& [key, value] : records) {
        const Status s = (*producer)->send(
            {.topic = topic, .timestamp = Timestamp(++ts), .key = key, .value = value});
        ASSERT_TRUE(s.ok()) << s.to_string();
      }
      const Status s = (*producer)->flush();
      ASSERT_TRUE(s.ok()) << s.to_string();
    });
  }

  // Every record of `topic`, partition by partition.
  std::vector<ConsumerRecord> read_all(const std::string& topic) {
    std::vector<ConsumerRecord> out;
    with_log([&](internal::LogBackend& log) {
      for (auto& [partition, records] : read_topic(log, topic)) {
        for (auto& r : records) out.push_back(std::move(r));
      }
    });
    return out;
  }

  // The latest value per key of `topic`, whose values are big-endian 64-bit counts: what a
  // compacted topic would keep (a key's records are in one partition, in order).
  std::map<std::string, std::int64_t> latest_counts(const std::string& topic) {
    std::map<std::string, std::int64_t> out;
    for (const auto& r : read_all(topic)) out[*r.key] = *Int64Serde().deserialize(*r.value);
    return out;
  }

  // The configuration of a Streams application `app` on this backend, plus `extra`: commits
  // every 100 ms; on Kafka a short session, so that the group notices a member leaving
  // within seconds.
  std::map<std::string, std::string> streams_config(const std::string& app,
                                                    std::map<std::string, std::string> extra = {}) {
    extra.emplace("application.id", app);
    extra.emplace("commit.interval.ms", "100");
    extra.emplace("state.dir", (state_dir_.path() / app).string());
    if (on_kafka()) {
      extra.emplace("bootstrap.servers", kafka_bootstrap());
      extra.emplace("consumer.session.timeout.ms", "6000");
      extra.emplace("consumer.heartbeat.interval.ms", "1000");
    } else {
      extra.emplace("data.dir", data_dir_.path().string());
      extra.emplace("poll.ms", "10");
    }
    return extra;
  }

 private:
  ScratchDir data_dir_{"brook-contract-log"};
  ScratchDir state_dir_{"brook-contract-state"};
};

// A test written once and run on each backend: INSTANTIATE_TEST_SUITE_P(BothBackends, <suite>,
// ::testing::Values(Backend::kEmbedded, Backend::kKafka), backend_name).
class BackendTest : public OnBackend, public ::testing::WithParamInterface<Backend> {
 protected:
  Backend backend() const override { return GetParam(); }
};

}  // namespace brook::testing

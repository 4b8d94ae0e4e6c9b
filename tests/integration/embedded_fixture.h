// A fresh embedded data dir per test, and helpers to create topics, produce and read records
// while no application holds the directory.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "app_waits.h"
#include "backend/embedded/embedded_log.h"
#include "brook/streams.h"
#include "scratch_dir.h"

namespace brook::testing {

class EmbeddedFixture : public ::testing::Test {
 protected:
  // Opens the data dir, runs `fn` on it, closes it.
  template <class Fn>
  void with_log(Fn fn) {
    auto log = internal::open_embedded_log(
        {.data_dir = dir_, .maintenance_interval = std::chrono::milliseconds(0)});
    ASSERT_TRUE(log) << log.error().to_string();
    fn(**log);
  }

  void create_topics(const std::map<std::string, int>& topics) {
    with_log([&](internal::EmbeddedLog& log) {
      for (const auto& [name, partitions] : topics) {
        ASSERT_TRUE(log.admin().create_topic({name, partitions}).ok());
      }
    });
  }

  // Writes `records` (values: strings, or std::optional for tombstones) with timestamps
  // first_timestamp, first_timestamp + 1, ...
  template <class Value = std::string>
  void produce(const std::string& topic, const std::vector<std::pair<std::string, Value>>& records,
               std::int64_t first_timestamp = 1) {
    with_log([&](internal::EmbeddedLog& log) {
      auto producer = std::move(*log.make_producer({}));
      std::int64_t ts = first_timestamp - 1;
      for (const auto& [key, value] : records) {
        ASSERT_TRUE(
            producer
                ->send({.topic = topic, .timestamp = Timestamp(++ts), .key = key, .value = value})
                .ok());
      }
      ASSERT_TRUE(producer->flush().ok());
    });
  }

  // Every record of `topic`, partition by partition.
  std::vector<ConsumerRecord> read_all(const std::string& topic) {
    std::vector<ConsumerRecord> out;
    with_log([&](internal::EmbeddedLog& log) {
      auto consumer = std::move(*log.make_consumer({}));
      auto description = log.admin().describe_topic(topic);
      ASSERT_TRUE(description) << description.error().to_string();
      std::vector<internal::TopicPartition> all;
      for (int p = 0; p < description->partitions; ++p) all.push_back({topic, Partition(p)});
      ASSERT_TRUE(consumer->assign(all).ok());
      while (true) {
        auto records = consumer->poll(std::chrono::milliseconds(0));
        ASSERT_TRUE(records);
        if (records->empty()) break;
        for (auto& r : *records) out.push_back(std::move(r));
      }
    });
    return out;
  }

  std::map<std::string, std::string> config(std::map<std::string, std::string> extra = {}) {
    extra.emplace("data.dir", dir_.string());
    extra.emplace("commit.interval.ms", "50");
    extra.emplace("poll.ms", "10");
    return extra;
  }

  ScratchDir scratch_{"brook-it"};
  const std::filesystem::path dir_ = scratch_.path();
};

}  // namespace brook::testing

// A test that runs instances of the Kafka count app (kafka_count_app.cc) as child processes
// over an input it writes itself, and checks what they wrote: topics of its own, the input's
// count per key, the offsets the application's group committed, the counts in the output; with
// `patterns`, also the app's windowed counts and join results.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "brook/serde.h"
#include "chaos/campaign_tally.h"
#include "integration/child_process.h"
#include "integration/count_app_results.h"
#include "integration/progress_files.h"
#include "kafka_cluster.h"
#include "scratch_dir.h"
#include "topic_reader.h"

namespace brook::testing {

class KafkaCountAppFixture : public KafkaFixture {
 protected:
  // Input and output of `partitions` partitions; input keys "key-0" .. "key-<keys - 1>". With
  // `patterns` the app also runs its windowed count and its join, each over topics of its own.
  KafkaCountAppFixture(std::string name, int partitions, int keys, bool patterns = false)
      : dir_(name),
        app_(unique_name(name + "-app")),
        input_(unique_name(name + "-in")),
        output_(unique_name(name + "-out")),
        partitions_(partitions),
        keys_(keys),
        patterns_(patterns),
        window_output_(unique_name(name + "-windows")),
        join_input_(unique_name(name + "-in2")),
        join_output_(unique_name(name + "-joins")) {}

  void SetUp() override {
    KafkaFixture::SetUp();
    if (HasFatalFailure()) return;
    create_topic(input_, partitions_);
    create_topic(output_, partitions_);
    if (patterns_) {
      for (const auto& topic : {window_output_, join_input_, join_output_}) {
        create_topic(topic, partitions_);
      }
    }
    auto producer = kafka_->make_producer({.client_id = app_});
    ASSERT_TRUE(producer) << producer.error().to_string();
    producer_ = std::move(*producer);
  }

  // An instance with its state in <scratch>/state-<instance>, reporting its phase to
  // <scratch>/progress-<instance> (progress_files.h), connecting to `app_bootstrap_` (the
  // fixture's broker if empty), with `settings` added to its configuration; its output goes to
  // the file `output` if given.
  std::unique_ptr<ChildProcess> start(int instance, const char* guarantee,
                                      const std::string& output = "",
                                      const std::map<std::string, std::string>& settings = {}) {
    const auto progress = progress_dir(instance);
    std::filesystem::create_directories(progress);
    std::filesystem::remove(progress / "phase");
    std::vector<std::string> args{app_bootstrap_.empty() ? bootstrap_ : app_bootstrap_,
                                  app_,
                                  input_,
                                  output_,
                                  (dir_.path() / ("state-" + std::to_string(instance))).string(),
                                  guarantee,
                                  progress.string()};
    if (patterns_) args.insert(args.end(), {window_output_, join_input_, join_output_});
    for (const auto& [key, value] : settings) args.push_back(key + "=" + value);
    return std::make_unique<ChildProcess>(BROOK_KAFKA_COUNT_APP, args, output);
  }

  // The phase the instance last started as `instance` wrote ("starting" before it wrote one).
  std::string phase(int instance) const { return read_phase(progress_dir(instance)); }
  // The standby replicas it reported last.
  StandbyReport standbys(int instance) const { return read_standbys(progress_dir(instance)); }
  // The record counts of the restorations it reported, in order.
  std::vector<std::int64_t> restorations(int instance) const {
    std::vector<std::int64_t> out;
    std::ifstream file(progress_dir(instance) / "restored.txt");
    for (std::int64_t n; file >> n;) out.push_back(n);
    return out;
  }

  // Waits until the instance last started as `instance` has run (its signal handling is then
  // in place); fails the test if that takes longer than `limit`.
  void wait_until_ran(int instance, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::string now;
    while ((now = phase(instance)) != "processing" && now != "rebalancing" &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a file has no notification
    }
    ASSERT_TRUE(now == "processing" || now == "rebalancing")
        << "instance " << instance << " is still " << now;
  }

  // Writes `n` more input records: record i has key "key-<i % keys>", value "<i>" and a
  // timestamp i ms after the fixture was made; with `patterns` its twin (the same record) goes
  // to the join's input, so that it joins only with its twin (the same key recurs `keys` ms
  // later, beyond the join's 100 ms).
  void produce(std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i, ++produced_) {
      const std::string key = "key-" + std::to_string(produced_ % keys_);
      const ProducerRecord record{.topic = input_,
                                  .timestamp = Timestamp(first_timestamp_ + produced_),
                                  .key = key,
                                  .value = std::to_string(produced_)};
      ASSERT_TRUE(producer_->send(ProducerRecord(record)).ok());
      ++expected_[key];
      if (!patterns_) continue;
      ProducerRecord twin = record;
      twin.topic = join_input_;
      ASSERT_TRUE(producer_->send(std::move(twin)).ok());
      const std::int64_t time = record.timestamp.value();
      ++expected_windows_[key + "@" + std::to_string(time - time % kWindowMs)];
    }
    ASSERT_TRUE(producer_->flush().ok());
  }

  // Input records whose offsets the application committed, over all partitions.
  std::int64_t committed() {
    auto consumer = kafka_->make_consumer({.group_id = app_});
    EXPECT_TRUE(consumer) << consumer.error().to_string();
    if (!consumer) return 0;
    std::int64_t total = 0;
    for (int p = 0; p < partitions_; ++p) {
      auto offset = (*consumer)->committed({input_, Partition(p)});
      EXPECT_TRUE(offset) << offset.error().to_string();
      if (offset && *offset) total += (*offset)->value();
    }
    return total;
  }

  // Waits until the application committed at least `records` input records; fails the test if
  // that takes longer than `limit`.
  void wait_for_committed(std::int64_t records, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::int64_t now = 0;
    while ((now = committed()) < records && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // offsets move on commits
    }
    ASSERT_GE(now, records) << "the application stopped making progress";
  }

  // Every count written per key to `topic` (the output, or the windowed counts' output keyed
  // "<key>@<window start>"), in the order written (read_committed).
  std::map<std::string, std::vector<std::int64_t>> counts_written(const std::string& topic) {
    std::map<std::string, std::vector<std::int64_t>> out;
    const Int64Serde serde;
    for (const auto& [partition, records] : read_topic(*kafka_, topic)) {
      for (const auto& r : records) out[*r.key].push_back(*serde.deserialize(*r.value));
    }
    return out;
  }
  std::map<std::string, std::vector<std::int64_t>> counts_written() {
    return counts_written(output_);
  }

  // How often the join's output holds each result (read_committed).
  std::map<std::string, std::int64_t> pairs_written() {
    std::map<std::string, std::int64_t> out;
    for (const auto& [partition, records] : read_topic(*kafka_, join_output_)) {
      for (const auto& r : records) ++out[r.value.value_or("")];
    }
    return out;
  }

  // Fails the test unless every key's counts in the output are 1, 2, ..., n; with `patterns`,
  // also every window's counts, and unless the join wrote each of its results exactly once.
  void expect_exact_counts() {
    expect_exact(counts_written(), expected_, "key");
    if (!patterns_) return;
    expect_exact(counts_written(window_output_), expected_windows_, "window");
    EXPECT_EQ(pairs_written(), twin_pairs(produced_)) << "the join's results";
  }

  static constexpr std::int64_t kWindowMs = 10'000;  // kafka_count_app.cc's windows

  // Fails the test unless `written` holds 1, 2, ..., n for every key of `expected` and no
  // other key.
  static void expect_exact(const std::map<std::string, std::vector<std::int64_t>>& written,
                           const std::map<std::string, std::int64_t>& expected, const char* what) {
    ASSERT_EQ(written.size(), expected.size())
        << what << "s in the output that the input has not, or missing";
    for (const auto& [key, n] : expected)
      ASSERT_EQ(written.at(key), one_to(n)) << what << " " << key;
  }

  std::filesystem::path progress_dir(int instance) const {
    return dir_.path() / ("progress-" + std::to_string(instance));
  }

  ScratchDir dir_;
  const std::string app_;
  const std::string input_;
  const std::string output_;
  const int partitions_;
  const int keys_;
  const bool patterns_;
  const std::string window_output_;
  const std::string join_input_;
  const std::string join_output_;
  // The first input record's timestamp: when the fixture was made, in ms.
  const std::int64_t first_timestamp_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                                            std::chrono::system_clock::now().time_since_epoch())
                                            .count();
  std::string app_bootstrap_;  // where instances connect; empty: the fixture's broker
  std::unique_ptr<internal::Producer> producer_;
  std::int64_t produced_ = 0;
  std::map<std::string, std::int64_t> expected_;          // the input's count per key
  std::map<std::string, std::int64_t> expected_windows_;  // per "<key>@<window start>"
};

}  // namespace brook::testing

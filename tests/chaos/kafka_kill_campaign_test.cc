// Random kill -9 campaigns on a Kafka broker. Two instances of integration/kafka_count_app (a
// count per key in RocksDB, no record cache, every new count written to the output) share a
// 4-partition input. Before each kill point a chunk of input is written; then one instance,
// drawn at random, is killed with SIGKILL at a random moment up to 8 s later and started again
// over the same state dir, so its tasks come back to it from a store written up to the kill,
// or go to the other instance and are restored there. After the last kill point both run until
// the application has committed every input record, then stop on SIGTERM. Checked from the
// output topic (read_committed): under exactly_once_v2 each key's counts are 1, 2, ..., n,
// each once and in order; under at_least_once each key's last count is at least n (nothing
// lost; what lies beyond n was counted twice).
// BROOK_KAFKA_CHAOS_KILLS sets the number of kill points (default 4, the test command's short
// campaign; scripts/chaos.sh --kafka runs long ones), BROOK_CHAOS_SEED the random seed. Each
// campaign prints a table: kill points by the phase the killed instance was in
// (integration/progress_files.h), what was lost and what was counted twice.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "integration/child_process.h"
#include "integration/kafka_count_app_results.h"
#include "kafka_cluster.h"
#include "scratch_dir.h"

namespace brook::testing {
namespace {

constexpr int kPartitions = 4;
constexpr int kKeys = 997;
constexpr int kChunk = 2'000;  // input records written before each kill point
constexpr int kInstances = 2;
constexpr std::chrono::milliseconds kLatestKill(8'000);

int env_int(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::atoi(value) : fallback;
}

class KafkaKillCampaignTest : public KafkaFixture {
 protected:
  void SetUp() override {
    KafkaFixture::SetUp();
    if (HasFatalFailure()) return;
    create_topic(input_, kPartitions);
    create_topic(output_, kPartitions);
    auto producer = kafka_->make_producer({.client_id = "kill-campaign"});
    ASSERT_TRUE(producer) << producer.error().to_string();
    producer_ = std::move(*producer);
  }

  std::filesystem::path progress_dir(int instance) const {
    return dir_.path() / ("progress-" + std::to_string(instance));
  }

  std::unique_ptr<ChildProcess> start(int instance, const char* guarantee) {
    const auto state = dir_.path() / ("state-" + std::to_string(instance));
    std::filesystem::create_directories(progress_dir(instance));
    std::filesystem::remove(progress_dir(instance) / "phase");
    return std::make_unique<ChildProcess>(
        BROOK_KAFKA_COUNT_APP,
        std::vector<std::string>{bootstrap_, app_, input_, output_, state.string(), guarantee,
                                 progress_dir(instance).string()});
  }

  // The phase `instance` wrote last ("starting" if it was killed before it wrote one).
  std::string phase(int instance) const {
    std::ifstream file(progress_dir(instance) / "phase");
    std::string word;
    file >> word;
    return word.empty() ? "starting" : word;
  }

  // The next kChunk input records: record i has key "key-<i % kKeys>".
  void produce_chunk() {
    for (int i = 0; i < kChunk; ++i, ++produced_) {
      const std::string key = "key-" + std::to_string(produced_ % kKeys);
      ASSERT_TRUE(producer_->send({.topic = input_, .key = key, .value = "v"}).ok());
      ++expected_[key];
    }
    ASSERT_TRUE(producer_->flush().ok());
  }

  // Runs the campaign; returns the kill points by phase.
  std::map<std::string, int> run_campaign(const char* guarantee) {
    std::map<std::string, int> kill_points;
    std::mt19937 random(static_cast<unsigned>(env_int("BROOK_CHAOS_SEED", 1)));
    std::vector<std::unique_ptr<ChildProcess>> instances;
    for (int i = 0; i < kInstances; ++i) instances.push_back(start(i, guarantee));
    const int kills = env_int("BROOK_KAFKA_CHAOS_KILLS", 4);
    for (int kill = 0; kill < kills; ++kill) {
      produce_chunk();
      const int victim = std::uniform_int_distribution<int>(0, kInstances - 1)(random);
      const std::chrono::milliseconds at(
          std::uniform_int_distribution<int>(0, static_cast<int>(kLatestKill.count()))(random));
      if (const auto ended = instances[victim]->wait(at)) {
        ADD_FAILURE() << "instance " << victim << " ended on its own with " << *ended;
        return kill_points;
      }
      instances[victim]->signal(SIGKILL);
      EXPECT_EQ(instances[victim]->wait(std::chrono::seconds(10)), -SIGKILL);
      ++kill_points[phase(victim)];
      instances[victim] = start(victim, guarantee);
    }
    produce_chunk();
    wait_for_group_committed(*kafka_, app_, input_, kPartitions, produced_,
                             std::chrono::seconds(180));
    for (auto& instance : instances) instance->signal(SIGTERM);
    for (auto& instance : instances) EXPECT_EQ(instance->wait(std::chrono::seconds(60)), 0);
    return kill_points;
  }

  // Prints the campaign's table; returns the counts lost and the counts made twice, judged by
  // each key's last count in the output.
  std::pair<std::int64_t, std::int64_t> report(
      const char* guarantee, const std::map<std::string, int>& kill_points,
      const std::map<std::string, std::vector<std::int64_t>>& written) const {
    std::int64_t lost = 0;
    std::int64_t twice = 0;
    for (const auto& [key, n] : expected_) {
      const auto it = written.find(key);
      const std::int64_t last = it == written.end() ? 0 : it->second.back();
      lost += std::max<std::int64_t>(0, n - last);
      twice += std::max<std::int64_t>(0, last - n);
    }
    int kills = 0;
    std::string rows;
    for (const auto& [phase, n] : kill_points) {
      kills += n;
      rows += fmt::format("  | {:<11} | {:>11} |\n", phase, n);
    }
    fmt::print(
        "kill campaign on Kafka, count app, {} instances, {}: {} kill points\n"
        "  | phase       | kill points |\n  |---|---:|\n{}  lost counts: {}, counted twice: {}\n",
        kInstances, guarantee, kills, rows, lost, twice);
    return {lost, twice};
  }

  ScratchDir dir_{"kafka-kill-campaign"};
  const std::string app_ = unique_name("kill-campaign-app");
  const std::string input_ = unique_name("kill-campaign-in");
  const std::string output_ = unique_name("kill-campaign-out");
  std::unique_ptr<internal::Producer> producer_;
  int produced_ = 0;
  std::map<std::string, std::int64_t> expected_;
};

TEST_F(KafkaKillCampaignTest, ExactlyOnceCountsAreExactAcrossRandomKills) {
  const auto kill_points = run_campaign("exactly_once_v2");
  const auto written = counts_written(*kafka_, output_);
  const auto [lost, twice] = report("exactly_once_v2", kill_points, written);
  EXPECT_EQ(lost, 0);
  EXPECT_EQ(twice, 0);
  ASSERT_EQ(written.size(), expected_.size()) << "keys in the output that the input has not";
  for (const auto& [key, n] : expected_) ASSERT_EQ(written.at(key), one_to(n)) << key;
}

TEST_F(KafkaKillCampaignTest, AtLeastOnceCountsLoseNothingAcrossRandomKills) {
  const auto kill_points = run_campaign("at_least_once");
  const std::int64_t lost =
      report("at_least_once", kill_points, counts_written(*kafka_, output_)).first;
  EXPECT_EQ(lost, 0);
}

}  // namespace
}  // namespace brook::testing

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
// BROOK_KAFKA_CHAOS_KILLS sets the number of kill points (default 3, the test command's short
// campaign; scripts/chaos.sh --kafka runs long ones), BROOK_CHAOS_SEED the random seed. Each
// campaign prints a table: kill points by the phase the killed instance was in
// (integration/progress_files.h), what was lost and what was counted twice.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "integration/kafka_count_app_fixture.h"
#include "test_env.h"

namespace brook::testing {
namespace {

constexpr int kKafkaPartitions = 4;
constexpr int kKafkaKeys = 997;
constexpr int kKafkaChunk = 2'000;  // input records written before each kill point
constexpr int kInstances = 2;
constexpr std::chrono::milliseconds kLatestKill(8'000);

class KafkaKillCampaignTest : public KafkaCountAppFixture {
 protected:
  KafkaKillCampaignTest() : KafkaCountAppFixture("kill-campaign", kKafkaPartitions, kKafkaKeys) {}

  // Runs the campaign; returns the kill points by phase.
  std::map<std::string, int> run_campaign(const char* guarantee) {
    std::map<std::string, int> kill_points;
    std::mt19937 random(static_cast<unsigned>(env_or("BROOK_CHAOS_SEED", 1)));
    std::vector<std::unique_ptr<ChildProcess>> instances;
    for (int i = 0; i < kInstances; ++i) instances.push_back(start(i, guarantee));
    const auto kills = env_or("BROOK_KAFKA_CHAOS_KILLS", 3);
    for (int kill = 0; kill < kills; ++kill) {
      produce(kKafkaChunk);
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
    produce(kKafkaChunk);
    wait_for_committed(produced_, std::chrono::seconds(180));
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
};

TEST_F(KafkaKillCampaignTest, ExactlyOnceCountsAreExactAcrossRandomKills) {
  const auto kill_points = run_campaign("exactly_once_v2");
  const auto [lost, twice] = report("exactly_once_v2", kill_points, counts_written());
  EXPECT_EQ(lost, 0);
  EXPECT_EQ(twice, 0);
  expect_exact_counts();
}

TEST_F(KafkaKillCampaignTest, AtLeastOnceCountsLoseNothingAcrossRandomKills) {
  const auto kill_points = run_campaign("at_least_once");
  const std::int64_t lost = report("at_least_once", kill_points, counts_written()).first;
  EXPECT_EQ(lost, 0);
}

}  // namespace
}  // namespace brook::testing

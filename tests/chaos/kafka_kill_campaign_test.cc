// Random kill -9 campaigns on a Kafka broker. Two instances of integration/kafka_count_app share
// a 4-partition input; the app runs three stateful patterns over it, each in RocksDB without a
// record cache: a count per key, a count per key and 10 s window, and a join of the input with a
// second one holding each record's twin (every new count, every join result written out). One
// instance, drawn at random, is killed with SIGKILL at a random moment up to 8 s after the last
// kill point, while a chunk of input is written in slices up to that moment (records flow when
// it dies), and started again over the same state dir, so its
// tasks come back to it from a store written up to the kill, or go to the other instance and are
// restored there. After the last kill point both run until the application has committed every
// input record, then stop on SIGTERM. Checked from the output topics (read_committed): under
// exactly_once_v2 each key's and each window's counts are 1, 2, ..., n, each once and in order, and
// each record joined its twin once; under at_least_once each key's and window's last count is at
// least n and each record joined its twin (nothing lost; what lies beyond n was counted twice, join
// results beyond one written twice). BROOK_KAFKA_CHAOS_KILLS sets the number of kill points
// (default 3, the test command's short campaign; scripts/chaos.sh --kafka runs long ones),
// BROOK_CHAOS_SEED the random seed. Each campaign prints a table: kill points by the phase the
// killed instance was in (integration/progress_files.h), what was lost and what was counted twice.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "chaos/campaign_tally.h"
#include "integration/kafka_count_app_fixture.h"
#include "test_env.h"

namespace brook::testing {
namespace {

constexpr int kKafkaPartitions = 4;
constexpr int kKafkaKeys = 997;
constexpr int kKafkaChunk = 2'000;  // input records written up to each kill point
constexpr int kInstances = 2;
constexpr std::chrono::milliseconds kLatestKill(8'000);
constexpr std::chrono::milliseconds kSlice(100);  // the chunk goes out a slice each this often

class KafkaKillCampaignTest : public KafkaCountAppFixture {
 protected:
  KafkaKillCampaignTest()
      : KafkaCountAppFixture("kill-campaign", kKafkaPartitions, kKafkaKeys, /*patterns=*/true) {}

  // Runs the campaign; returns the kill points by phase.
  std::map<std::string, int> run_campaign(const char* guarantee) {
    std::map<std::string, int> kill_points;
    std::mt19937 random(static_cast<unsigned>(env_or("BROOK_CHAOS_SEED", 1)));
    std::vector<std::unique_ptr<ChildProcess>> instances;
    for (int i = 0; i < kInstances; ++i) instances.push_back(start(i, guarantee));
    const auto kills = env_or("BROOK_KAFKA_CHAOS_KILLS", 3);
    for (int kill = 0; kill < kills; ++kill) {
      const int victim = std::uniform_int_distribution<int>(0, kInstances - 1)(random);
      const std::chrono::milliseconds at(
          std::uniform_int_distribution<int>(0, static_cast<int>(kLatestKill.count()))(random));
      // The chunk is written in slices up to the kill, so that it lands while records flow.
      const int slices = std::max<int>(1, static_cast<int>(at / kSlice));
      for (int slice = 0; slice < slices; ++slice) {
        produce(kKafkaChunk / slices + (slice < kKafkaChunk % slices ? 1 : 0));
        if (const auto ended = instances[victim]->wait(at / slices)) {
          ADD_FAILURE() << "instance " << victim << " ended on its own with " << *ended;
          return kill_points;
        }
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

  // Prints the campaign's table; returns what was lost and made twice over the three patterns.
  Tally report(const char* guarantee, const std::map<std::string, int>& kill_points) {
    Tally counts, windows, pairs;
    tally(expected_, last_counts(counts_written()), counts);
    tally(expected_windows_, last_counts(counts_written(window_output_)), windows);
    tally(twin_pairs(produced_), pairs_written(), pairs);
    int kills = 0;
    const std::string table = phase_table(kill_points, kills);
    fmt::print(
        "kill campaign on Kafka, count, windowed count and join, {} instances, {}: {} kill "
        "points\n{}"
        "  lost counts: {}, counted twice: {}\n"
        "  lost window counts: {}, counted twice: {}\n"
        "  lost join results: {}, written twice: {}\n",
        kInstances, guarantee, kills, table, counts.lost, counts.twice, windows.lost, windows.twice,
        pairs.lost, pairs.twice);
    return {counts.lost + windows.lost + pairs.lost, counts.twice + windows.twice + pairs.twice};
  }
};

TEST_F(KafkaKillCampaignTest, ExactlyOnceResultsAreExactAcrossRandomKills) {
  const auto kill_points = run_campaign("exactly_once_v2");
  const Tally t = report("exactly_once_v2", kill_points);
  EXPECT_EQ(t.lost, 0);
  EXPECT_EQ(t.twice, 0);
  expect_exact_counts();
}

TEST_F(KafkaKillCampaignTest, AtLeastOnceResultsLoseNothingAcrossRandomKills) {
  const auto kill_points = run_campaign("at_least_once");
  EXPECT_EQ(report("at_least_once", kill_points).lost, 0);
}

}  // namespace
}  // namespace brook::testing

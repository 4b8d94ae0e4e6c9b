// Random kill -9 campaigns. The count app of integration/crash_app.cc (2 threads, 4 partitions,
// RocksDB stores, every count written to "out": no record cache) is started over an input that
// grows by one chunk before each start, and killed with SIGKILL at a random moment; after the
// last kill point it runs to the end. Then, per key with n records in the input:
// - exactly_once_v2: the counts in "out" are 1, 2, ..., n, each once and in order, and the
//   stores hold n: nothing lost, nothing counted twice;
// - at_least_once: the store and the last count in "out" are at least n (nothing lost); what
//   they hold beyond n was counted twice, and is reported.
// BROOK_CHAOS_KILLS sets the number of kill points (default 12, the test command's short
// campaign; scripts/chaos.sh runs long ones), BROOK_CHAOS_SEED the random seed. Each campaign
// prints a table: kill points by the phase the app was in (crash_app.cc writes it down), lost
// and duplicated counts.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "brook/serde.h"
#include "integration/child_process.h"
#include "integration/count_app_results.h"
#include "integration/embedded_fixture.h"

namespace brook::testing {
namespace {

constexpr int kKeys = 997;
constexpr int kChunk = 10'000;  // input records added before each start
constexpr int kPartitions = 4;

int env_int(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::atoi(value) : fallback;
}

std::string key_of(int i) { return "key-" + std::to_string(i % kKeys); }

struct Campaign {
  std::map<std::string, int> kill_points;  // by phase
  int finished_before_the_kill = 0;        // runs that ended by themselves first
  std::int64_t lost = 0;                   // counts below the input's, summed over keys
  std::int64_t duplicated = 0;             // counts above it, summed over keys
};

class KillCampaignTest : public EmbeddedFixture {
 protected:
  void SetUp() override {
    create_topics({{"in", kPartitions}, {"out", kPartitions}});
    ::setenv("BROOK_LOG_LEVEL", "error", 1);  // the app's: thousands of runs log a lot
  }
  void TearDown() override { ::unsetenv("BROOK_LOG_LEVEL"); }

  void produce_chunk() {
    std::vector<std::pair<std::string, std::string>> records;
    for (int i = 0; i < kChunk; ++i) records.emplace_back(key_of(produced_ + i), "v");
    produce("in", records);
    produced_ += kChunk;
  }

  ChildProcess start_app(const char* guarantee) {
    return ChildProcess(BROOK_CRASH_APP, {dir_.string(), guarantee, "-1", "0", "count",
                                          "statestore.cache.max.bytes=0"});
  }

  std::string phase() {
    std::ifstream file(dir_ / "phase");
    std::string word;
    file >> word;
    return word.empty() ? "starting" : word;  // killed before it wrote a phase
  }

  Campaign run_campaign(const char* guarantee) {
    Campaign campaign;
    std::mt19937 random(static_cast<unsigned>(env_int("BROOK_CHAOS_SEED", 1)));
    // Kill moments are drawn up to how long a whole run takes: the last run that was not
    // killed, and 10 % more after each kill before processing (runs that are killed early leave
    // their input to the next, which then restores and processes for longer).
    std::chrono::milliseconds typical(300);
    const int kills = env_int("BROOK_CHAOS_KILLS", 12);
    for (int kill = 0; kill < kills; ++kill) {
      produce_chunk();
      std::filesystem::remove(dir_ / "phase");
      const auto started = std::chrono::steady_clock::now();
      ChildProcess app = start_app(guarantee);
      const std::chrono::milliseconds at(
          std::uniform_int_distribution<int>(0, static_cast<int>(typical.count()))(random));
      if (const auto ended = app.wait(at)) {
        EXPECT_EQ(*ended, 0) << "the app failed on its own";
        ++campaign.finished_before_the_kill;
        typical = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - started);
        continue;
      }
      app.signal(SIGKILL);
      const auto code = app.wait(std::chrono::seconds(30));
      if (code == 0) {  // it ended by itself just before the signal
        ++campaign.finished_before_the_kill;
        continue;
      }
      EXPECT_EQ(code, -SIGKILL) << "the app failed on its own";
      const std::string killed_in = phase();
      ++campaign.kill_points[killed_in];
      if (killed_in != "processing" && killed_in != "closing") typical += typical / 10;
    }
    produce_chunk();
    ChildProcess last = start_app(guarantee);
    EXPECT_EQ(last.wait(std::chrono::minutes(5)), 0) << "the last run did not end cleanly";
    return campaign;
  }

  std::map<std::string, std::int64_t> expected() const {
    std::map<std::string, std::int64_t> counts;
    for (int i = 0; i < produced_; ++i) ++counts[key_of(i)];
    return counts;
  }

  // Every count "out" holds, per key, in the order written (one partition per key).
  std::map<std::string, std::vector<std::int64_t>> out_counts() {
    std::map<std::string, std::vector<std::int64_t>> out;
    for (const auto& r : read_all("out"))
      out[*r.key].push_back(*Int64Serde().deserialize(*r.value));
    return out;
  }

  // Counts below and above the input's in `stores`, into `campaign`.
  void tally(const std::map<std::string, std::int64_t>& stores, Campaign& campaign) {
    for (const auto& [key, n] : expected()) {
      const auto it = stores.find(key);
      const std::int64_t got = it == stores.end() ? 0 : it->second;
      campaign.lost += std::max<std::int64_t>(0, n - got);
      campaign.duplicated += std::max<std::int64_t>(0, got - n);
    }
  }

  static void print(const char* guarantee, const Campaign& campaign) {
    int kills = 0;
    std::string rows;
    for (const auto& [phase, n] : campaign.kill_points) {
      kills += n;
      rows += fmt::format("  | {:<11} | {:>11} |\n", phase, n);
    }
    fmt::print(
        "kill campaign, {}: {} kill points ({} runs ended before their kill moment)\n"
        "  | phase       | kill points |\n  |---|---:|\n{}"
        "  lost counts: {}, counted twice: {}\n",
        guarantee, kills, campaign.finished_before_the_kill, rows, campaign.lost,
        campaign.duplicated);
  }

  // Runs a campaign into `campaign`, tallies the stores' counts against the input into it and
  // prints its table; returns the stores' counts.
  std::map<std::string, std::int64_t> run_and_report(const char* guarantee, Campaign& campaign) {
    campaign = run_campaign(guarantee);
    auto stores = counts_on_disk(dir_ / "state", kPartitions);
    tally(stores, campaign);
    print(guarantee, campaign);
    return stores;
  }

  int produced_ = 0;
};

TEST_F(KillCampaignTest, ExactlyOnceCountsAreExactAcrossRandomKills) {
  Campaign campaign;
  const auto stores = run_and_report("exactly_once_v2", campaign);
  EXPECT_EQ(campaign.lost, 0);
  EXPECT_EQ(campaign.duplicated, 0);
  EXPECT_EQ(stores, expected());
  const auto out = out_counts();
  for (const auto& [key, n] : expected()) {
    std::vector<std::int64_t> one_to_n(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) one_to_n[static_cast<std::size_t>(i)] = i + 1;
    const auto it = out.find(key);
    ASSERT_TRUE(it != out.end()) << key << " has no count in out";
    ASSERT_EQ(it->second, one_to_n) << key;
  }
}

TEST_F(KillCampaignTest, AtLeastOnceCountsLoseNothingAcrossRandomKills) {
  Campaign campaign;
  run_and_report("at_least_once", campaign);
  EXPECT_EQ(campaign.lost, 0);
  const auto out = out_counts();
  for (const auto& [key, n] : expected()) {
    const auto it = out.find(key);
    ASSERT_TRUE(it != out.end()) << key << " has no count in out";
    EXPECT_GE(it->second.back(), n) << key;
  }
}

}  // namespace
}  // namespace brook::testing

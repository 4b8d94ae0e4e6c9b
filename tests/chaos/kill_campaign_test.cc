// Random kill -9 campaigns. A stateful app of integration/crash_app.cc (2 threads, 4
// partitions, RocksDB stores, every update written to "out": no record cache) is started over an
// input that grows by one chunk before each start, and killed with SIGKILL at a random moment;
// after the last kill point it runs to the end. Record i of the input has key i % 997,
// timestamp i + 1 and value i. The apps, and what is checked at the end:
// - count (per key): under exactly_once_v2 the counts in "out" of a key with n records are
//   1, 2, ..., n, each once and in order, and the stores hold n; under at_least_once the store
//   and the last count are at least n (nothing lost), what they hold beyond n was counted twice;
// - windowed-count (per key and 10 s window): the same per window, from "out";
// - join ("in" with "in2", which gets the same records): each record i joins only its twin, so
//   "out" must hold "i+i" for every i: exactly once under exactly_once_v2, at least once under
//   at_least_once (the copies beyond one are reported).
// BROOK_CHAOS_KILLS sets the number of kill points (default 12, the test command's short
// campaign; scripts/chaos.sh runs long ones), BROOK_CHAOS_SEED the random seed. Each campaign
// prints a table: kill points by the phase the app was in (crash_app.cc writes it down), what
// was lost and what was written twice.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <chrono>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "brook/serde.h"
#include "chaos/campaign_tally.h"
#include "integration/child_process.h"
#include "integration/count_app_results.h"
#include "integration/embedded_fixture.h"
#include "integration/progress_files.h"
#include "test_env.h"

namespace brook::testing {
namespace {

constexpr int kKeys = 997;
constexpr int kChunk = 10'000;  // input records added before each start
constexpr int kPartitions = 4;
constexpr std::int64_t kWindowMs = 10'000;  // crash_app's windowed-count

std::string key_of(int i) { return "key-" + std::to_string(i % kKeys); }

struct Campaign : Tally {
  std::map<std::string, int> kill_points;  // by phase
  int finished_before_the_kill = 0;        // runs that ended by themselves first
};

class KillCampaignTest : public EmbeddedFixture {
 protected:
  void SetUp() override {
    create_topics({{"in", kPartitions}, {"in2", kPartitions}, {"out", kPartitions}});
    ::setenv("BROOK_LOG_LEVEL", "error", 1);  // the app's: thousands of runs log a lot
  }
  void TearDown() override { ::unsetenv("BROOK_LOG_LEVEL"); }

  // The next kChunk records of "in" (and of "in2" for the join).
  void produce_chunk() {
    std::vector<std::pair<std::string, std::string>> records;
    for (int i = produced_; i < produced_ + kChunk; ++i) {
      records.emplace_back(key_of(i), std::to_string(i));
    }
    produce("in", records, produced_ + 1);
    if (app_ == "join") produce("in2", records, produced_ + 1);
    produced_ += kChunk;
  }

  ChildProcess start_app(const char* guarantee) {
    return ChildProcess(BROOK_CRASH_APP, {dir_.string(), guarantee, "-1", "0", app_,
                                          "statestore.cache.max.bytes=0"});
  }

  std::string phase() const { return read_phase(dir_); }

  Campaign run_campaign(const char* guarantee) {
    Campaign campaign;
    std::mt19937 random(static_cast<unsigned>(env_or("BROOK_CHAOS_SEED", 1)));
    // Kill moments are drawn up to how long a whole run takes: the last run that was not
    // killed, and 10 % more after each kill before processing (runs that are killed early leave
    // their input to the next, which then restores and processes for longer).
    std::chrono::milliseconds typical(300);
    const auto kills = env_or("BROOK_CHAOS_KILLS", 12);
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

  // The input's count per key (count), or per "<key>@<window start>" (windowed-count).
  std::map<std::string, std::int64_t> expected() const {
    std::map<std::string, std::int64_t> counts;
    for (int i = 0; i < produced_; ++i) {
      const std::int64_t start = (i + 1) / kWindowMs * kWindowMs;
      ++counts[app_ == "count" ? key_of(i) : key_of(i) + "@" + std::to_string(start)];
    }
    return counts;
  }

  // Every count "out" holds, per key, in the order written (one partition per key).
  std::map<std::string, std::vector<std::int64_t>> out_counts() {
    std::map<std::string, std::vector<std::int64_t>> out;
    for (const auto& r : read_all("out"))
      out[*r.key].push_back(*Int64Serde().deserialize(*r.value));
    return out;
  }

  // How often "out" holds each join result.
  std::map<std::string, std::int64_t> out_pairs() {
    std::map<std::string, std::int64_t> out;
    for (const auto& r : read_all("out")) ++out[*r.value];
    return out;
  }

  void print(const char* guarantee, const Campaign& campaign) const {
    int kills = 0;
    const std::string table = phase_table(campaign.kill_points, kills);
    fmt::print(
        "kill campaign, {} app, {}: {} kill points ({} runs ended before their kill moment)\n"
        "{}  lost {}: {}, {} twice: {}\n",
        app_, guarantee, kills, campaign.finished_before_the_kill, table,
        app_ == "join" ? "pairs" : "counts", campaign.lost,
        app_ == "join" ? "pairs written" : "counted", campaign.twice);
  }

  // Runs a campaign of the count app, tallies the stores' counts against the input into it
  // and prints its table; returns the stores' counts.
  std::map<std::string, std::int64_t> run_count_campaign(const char* guarantee,
                                                         Campaign& campaign) {
    campaign = run_campaign(guarantee);
    auto stores = counts_on_disk(dir_ / "state", kPartitions);
    tally(expected(), stores, campaign);
    print(guarantee, campaign);
    return stores;
  }

  std::string app_ = "count";
  int produced_ = 0;
};

TEST_F(KillCampaignTest, ExactlyOnceCountsAreExactAcrossRandomKills) {
  Campaign campaign;
  const auto stores = run_count_campaign("exactly_once_v2", campaign);
  EXPECT_EQ(campaign.lost, 0);
  EXPECT_EQ(campaign.twice, 0);
  EXPECT_EQ(stores, expected());
  const auto out = out_counts();
  for (const auto& [key, n] : expected()) {
    const auto it = out.find(key);
    ASSERT_TRUE(it != out.end()) << key << " has no count in out";
    ASSERT_EQ(it->second, one_to(n)) << key;
  }
}

TEST_F(KillCampaignTest, AtLeastOnceCountsLoseNothingAcrossRandomKills) {
  Campaign campaign;
  run_count_campaign("at_least_once", campaign);
  EXPECT_EQ(campaign.lost, 0);
  const auto out = out_counts();
  for (const auto& [key, n] : expected()) {
    const auto it = out.find(key);
    ASSERT_TRUE(it != out.end()) << key << " has no count in out";
    EXPECT_GE(it->second.back(), n) << key;
  }
}

TEST_F(KillCampaignTest, ExactlyOnceWindowedCountsAreExactAcrossRandomKills) {
  app_ = "windowed-count";
  Campaign campaign = run_campaign("exactly_once_v2");
  const auto out = out_counts();
  tally(expected(), last_counts(out), campaign);
  print("exactly_once_v2", campaign);
  EXPECT_EQ(campaign.lost, 0);
  EXPECT_EQ(campaign.twice, 0);
  EXPECT_EQ(out.size(), expected().size()) << "windows in out that the input has not";
  for (const auto& [window, n] : expected()) {
    const auto it = out.find(window);
    ASSERT_TRUE(it != out.end()) << window << " has no count in out";
    ASSERT_EQ(it->second, one_to(n)) << window;
  }
}

TEST_F(KillCampaignTest, AtLeastOnceWindowedCountsLoseNothingAcrossRandomKills) {
  app_ = "windowed-count";
  Campaign campaign = run_campaign("at_least_once");
  tally(expected(), last_counts(out_counts()), campaign);
  print("at_least_once", campaign);
  EXPECT_EQ(campaign.lost, 0);
}

TEST_F(KillCampaignTest, ExactlyOnceJoinWritesEachPairOnceAcrossRandomKills) {
  app_ = "join";
  Campaign campaign = run_campaign("exactly_once_v2");
  const auto pairs = out_pairs();
  tally(twin_pairs(produced_), pairs, campaign);
  print("exactly_once_v2", campaign);
  EXPECT_EQ(campaign.lost, 0);
  EXPECT_EQ(campaign.twice, 0);
  EXPECT_EQ(pairs.size(), static_cast<std::size_t>(produced_)) << "pairs the input has not";
}

TEST_F(KillCampaignTest, AtLeastOnceJoinLosesNoPairAcrossRandomKills) {
  app_ = "join";
  Campaign campaign = run_campaign("at_least_once");
  tally(twin_pairs(produced_), out_pairs(), campaign);
  print("at_least_once", campaign);
  EXPECT_EQ(campaign.lost, 0);
}

}  // namespace
}  // namespace brook::testing

// Standby replicas on a real Kafka broker, with separate OS processes: three instances of the
// stateful count app (kafka_count_app) with num.standby.replicas=1 share a 6-partition topic;
// one is killed with SIGKILL mid-stream. Under exactly-once the output stays exact, and the
// survivors take the killed instance's tasks over from their standbys: they restore only the
// changelogs' tails, not the stores.
#include <gmock/gmock.h>

#include <map>
#include <memory>

#include "kafka_count_app_fixture.h"

namespace brook::testing {
namespace {

constexpr int kStandbyPartitions = 6;
constexpr int kStandbyKeys = 600;
constexpr int kStandbyBatch = 30'000;  // records per phase; three phases
constexpr auto kStandbyDeadline = std::chrono::seconds(120);
// A restoration of a whole changelog partition after the first phase reads about kStandbyBatch / 6
// records; a tail after a standby, a few commits' worth.
constexpr std::int64_t kMostATailRestores = kStandbyBatch / kStandbyPartitions / 4;

class KafkaStandbyTest : public KafkaCountAppFixture {
 protected:
  KafkaStandbyTest() : KafkaCountAppFixture("standby", kStandbyPartitions, kStandbyKeys) {}

  // Waits until the instances together keep a standby of every task, caught up.
  void wait_for_standbys(const std::vector<int>& instances) {
    const auto deadline = std::chrono::steady_clock::now() + kStandbyDeadline;
    StandbyReport all;
    while (std::chrono::steady_clock::now() < deadline) {
      all = {};
      for (int i : instances) {
        const auto report = standbys(i);
        all.partitions += report.partitions;
        all.lag += report.lag;
      }
      if (all.partitions == kStandbyPartitions && all.lag == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // reports are files
    }
    FAIL() << "standbys of " << all.partitions << " of " << kStandbyPartitions
           << " tasks, lagging by " << all.lag << " records in all";
  }
};

TEST_F(KafkaStandbyTest, SurvivorsOfAKill9TakeTheTasksOverFromTheirStandbysExactlyOnce) {
  const std::map<std::string, std::string> settings{{"num.standby.replicas", "1"}};
  std::vector<std::unique_ptr<ChildProcess>> instances;
  for (int i = 0; i < 3; ++i) instances.push_back(start(i, "exactly_once_v2", "", settings));
  for (int i = 0; i < 3; ++i) wait_until_ran(i, kStandbyDeadline);
  produce(kStandbyBatch);
  wait_for_committed(kStandbyBatch, kStandbyDeadline);
  wait_for_standbys({0, 1, 2});

  // Mid-stream: the second phase is being processed.
  std::map<int, std::size_t> restorations_before;
  for (int i : {0, 2}) restorations_before[i] = restorations(i).size();
  produce(kStandbyBatch);
  wait_for_committed(kStandbyBatch + kStandbyBatch / 4, kStandbyDeadline);
  auto killed = std::move(instances[1]);  // its open transaction is lost
  killed->signal(SIGKILL);
  EXPECT_EQ(killed->wait(std::chrono::seconds(10)), -SIGKILL);
  produce(kStandbyBatch);
  wait_for_committed(produced_, kStandbyDeadline);
  for (int i : {0, 2}) instances[i]->signal(SIGTERM);
  for (int i : {0, 2}) EXPECT_EQ(instances[i]->wait(std::chrono::seconds(60)), 0);

  expect_exact_counts();
  // Every restoration since the kill read a tail: the survivors' standbys held the rest.
  for (int i : {0, 2}) {
    const auto all = restorations(i);
    const std::vector<std::int64_t> since(all.begin() + restorations_before[i], all.end());
    EXPECT_THAT(since, ::testing::Each(::testing::Lt(kMostATailRestores))) << "instance " << i;
  }
}

}  // namespace
}  // namespace brook::testing

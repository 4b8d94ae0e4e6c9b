// Broker faults on a three-node Kafka cluster, not part of the test command (scripts/chaos.sh
// --broker-faults starts the cluster and runs it): two instances of
// integration/kafka_count_app under exactly_once_v2 count a 4-partition input whose topics
// (input, output, changelog, the group's offsets and the transactions' state) have three
// replicas, two of them required in sync. Each node in turn is killed with SIGKILL while the
// application processes (each leads about a third of every topic's partitions) and started
// again once the application has committed all input written meanwhile; then the whole cluster is
// killed, left down for 30 s, and started again. The instances are never restarted: after the
// last fault they must still run, commit all the input and stop cleanly on SIGTERM, and
// every key's counts in the output must be 1, 2, ..., n.
#include <gmock/gmock.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "integration/kafka_count_app_fixture.h"

namespace brook::testing {
namespace {

constexpr int kPartitions = 4;
constexpr int kKeys = 1'000;
constexpr int kChunk = 20'000;
constexpr int kNodes = 3;
constexpr auto kDeadline = std::chrono::seconds(300);

// Runs `scripts/kafka.sh <command>`; fails the test if it fails.
void kafka_sh(const std::string& command) {
  const std::string line = std::string(BROOK_KAFKA_SH) + " " + command;
  ASSERT_EQ(std::system(line.c_str()), 0) << line;
}

class KafkaBrokerFaultTest : public KafkaCountAppFixture {
 protected:
  KafkaBrokerFaultTest() : KafkaCountAppFixture("broker-faults", kPartitions, kKeys) {}
};

TEST_F(KafkaBrokerFaultTest, ExactlyOnceCountsStayExactAcrossBrokerKillsAndAClusterOutage) {
  std::vector<std::unique_ptr<ChildProcess>> instances;
  for (int i = 0; i < 2; ++i) instances.push_back(start(i, "exactly_once_v2"));
  produce(kChunk);
  wait_for_committed(kChunk / 4, kDeadline);

  for (int node = 1; node <= kNodes; ++node) {
    produce(kChunk);  // work in progress when the node dies
    kafka_sh("kill-node " + std::to_string(node));
    produce(kChunk);
    wait_for_committed(produced_, kDeadline);  // with the two nodes left
    kafka_sh("start-node " + std::to_string(node));
    produce(kChunk);
    wait_for_committed(produced_, kDeadline);  // with all three again
    std::cout << "node " << node << " killed and started again; all " << produced_
              << " input records committed" << std::endl;
  }

  for (int node = 1; node <= kNodes; ++node) kafka_sh("kill-node " + std::to_string(node));
  std::this_thread::sleep_for(std::chrono::seconds(30));  // the outage itself
  kafka_sh("start-node 1 2 3");  // together: one node alone has no controller quorum
  produce(kChunk);
  wait_for_committed(produced_, kDeadline);
  std::cout << "the cluster was down for 30 s; all " << produced_ << " input records committed"
            << std::endl;

  for (auto& instance : instances) {
    ASSERT_FALSE(instance->wait(std::chrono::milliseconds(0))) << "an instance stopped on its own";
    instance->signal(SIGTERM);
  }
  for (auto& instance : instances) EXPECT_EQ(instance->wait(std::chrono::seconds(60)), 0);
  expect_exact_counts();
}

}  // namespace
}  // namespace brook::testing

// Network faults between a Kafka application and its cluster, not part of the test command
// (scripts/chaos.sh --network-faults starts a one-node cluster whose clients can be routed
// through a proxy, and runs it). Instances of integration/kafka_count_app reach the broker only
// through a TcpProxy (tcp_proxy.h) listening on BROOK_KAFKA_PROXIED_PORT and forwarding to the
// broker's proxied listener on BROOK_KAFKA_PROXIED_TARGET (scripts/kafka.sh); the test writes
// the input and reads the results directly.
// - ExactlyOnce...: two instances under exactly_once_v2 and BROOK_NETWORK_FAULTS (default 12)
//   faults at random moments (seed BROOK_CHAOS_SEED): every connection reset; every byte
//   delayed by 0.1-2 s for 5-15 s; or a black hole for 1-20 s (longer than the instances' 6 s
//   session timeout about two times in three). After each, the application must commit all the
//   input written so far without a restart; at the end every key's counts are 1, 2, ..., n.
// - AnUnreachable...: a black hole that does not end. The instance must not hang: once its
//   Kafka calls have failed for its task.timeout.ms (120 s), it stops on its own (exit code 1)
//   with an error that says what it could not do and for how long it tried.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "chaos/tcp_proxy.h"
#include "integration/kafka_count_app_fixture.h"
#include "test_env.h"

namespace brook::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kPartitions = 4;
constexpr int kKeys = 997;
constexpr int kChunk = 5'000;  // input records written before each fault
constexpr auto kDeadline = seconds(300);

class KafkaNetworkFaultTest : public KafkaCountAppFixture {
 protected:
  KafkaNetworkFaultTest() : KafkaCountAppFixture("network-faults", kPartitions, kKeys) {}

  void SetUp() override {
    KafkaCountAppFixture::SetUp();
    if (HasFatalFailure()) return;
    const auto port = env_or("BROOK_KAFKA_PROXIED_PORT", 0);
    const auto target = env_or("BROOK_KAFKA_PROXIED_TARGET", 0);
    ASSERT_TRUE(port > 0 && target > 0)
        << "BROOK_KAFKA_PROXIED_PORT and BROOK_KAFKA_PROXIED_TARGET are not set: run "
           "scripts/chaos.sh --network-faults";
    proxy_ = std::make_unique<TcpProxy>(static_cast<int>(port), static_cast<int>(target));
    app_bootstrap_ = fmt::format("127.0.0.1:{}", port);
  }

  // Waits `duration` on `instances`; fails the test if one ends meanwhile.
  static void run_for(std::vector<std::unique_ptr<ChildProcess>>& instances,
                      milliseconds duration) {
    const auto until = std::chrono::steady_clock::now() + duration;
    for (std::size_t i = 0; i < instances.size(); ++i) {
      const auto left =
          std::chrono::duration_cast<milliseconds>(until - std::chrono::steady_clock::now());
      if (const auto ended = instances[i]->wait(std::max(left, milliseconds(0)))) {
        FAIL() << "instance " << i << " ended on its own with " << *ended;
      }
    }
  }

  std::unique_ptr<TcpProxy> proxy_;
};

TEST_F(KafkaNetworkFaultTest, ExactlyOnceCountsStayExactAcrossResetDelayedAndBlackHoledLinks) {
  std::mt19937 random(static_cast<unsigned>(env_or("BROOK_CHAOS_SEED", 1)));
  auto between = [&](int low, int high) {
    return milliseconds(std::uniform_int_distribution<int>(low, high)(random));
  };
  std::vector<std::unique_ptr<ChildProcess>> instances;
  for (int i = 0; i < 2; ++i) instances.push_back(start(i, "exactly_once_v2"));
  produce(kChunk);
  wait_for_committed(kChunk / 4, kDeadline);

  const auto faults = env_or("BROOK_NETWORK_FAULTS", 12);
  for (int fault = 0; fault < faults; ++fault) {
    produce(kChunk);  // work in progress when the fault strikes
    run_for(instances, between(0, 3'000));
    if (HasFatalFailure()) return;
    std::string what;
    switch (std::uniform_int_distribution<int>(0, 2)(random)) {
      case 0:
        proxy_->drop_connections();
        what = "every connection reset";
        break;
      case 1: {
        const auto delay = between(100, 2'000);
        const auto lasting = between(5'000, 15'000);
        proxy_->set_delay(delay);
        run_for(instances, lasting);
        proxy_->set_delay(milliseconds(0));
        what = fmt::format("every byte delayed {} ms for {} s", delay.count(),
                           lasting.count() / 1000.0);
        break;
      }
      default: {
        const auto lasting = between(1'000, 20'000);
        proxy_->set_black_hole(true);
        run_for(instances, lasting);
        proxy_->set_black_hole(false);
        what = fmt::format("a black hole for {} s", lasting.count() / 1000.0);
        break;
      }
    }
    if (HasFatalFailure()) return;
    produce(kChunk);
    wait_for_committed(produced_, kDeadline);
    if (HasFatalFailure()) return;
    std::cout << "fault " << fault + 1 << ": " << what << "; all " << produced_
              << " input records committed" << std::endl;
  }

  for (auto& instance : instances) instance->signal(SIGTERM);
  for (auto& instance : instances) EXPECT_EQ(instance->wait(seconds(60)), 0);
  expect_exact_counts();
  std::cout << faults << " faults, " << proxy_->connections() << " connections through the proxy"
            << std::endl;
}

TEST_F(KafkaNetworkFaultTest, AnUnreachableClusterStopsTheApplicationWithAClearError) {
  const auto output = dir_.path() / "instance.log";
  auto instance = start(0, "exactly_once_v2", output.string());
  produce(kChunk);
  wait_for_committed(kChunk, kDeadline);

  proxy_->set_black_hole(true);
  produce(kChunk);  // work it cannot commit
  const auto started = std::chrono::steady_clock::now();
  const auto ended = instance->wait(seconds(600));
  const auto after =
      std::chrono::duration_cast<seconds>(std::chrono::steady_clock::now() - started);
  std::stringstream log;
  log << std::ifstream(output).rdbuf();
  ASSERT_TRUE(ended) << "still running 600 s after the cluster became unreachable; its log:\n"
                     << log.str();
  EXPECT_EQ(*ended, 1) << "not the exit of a failed application (a signal is negative); its log:\n"
                       << log.str();
  // The stream thread's own error, after retrying for the app's task.timeout.ms (120 s).
  EXPECT_THAT(log.str(),
              ::testing::ContainsRegex("stream thread 0 stopped: IoError: .* \\(still failing "
                                       "after 120000 ms, task.timeout.ms\\): Local: Timed out"));
  std::cout << "the instance stopped " << after.count() << " s after the cluster became "
            << "unreachable, with exit code " << *ended << "; the end of its log:\n"
            << log.str().substr(log.str().size() > 2000 ? log.str().size() - 2000 : 0) << std::endl;
}

}  // namespace
}  // namespace brook::testing

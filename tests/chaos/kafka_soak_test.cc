// A long soak on a Kafka broker, not part of the test command (scripts/chaos.sh --soak
// DURATION runs it): two instances of integration/kafka_count_app under exactly_once_v2 share a
// 4-partition input written at a steady rate. Instance 0 lives the whole run; instance 1 is
// killed with SIGKILL every BROOK_SOAK_KILL_SECONDS (default 60) and started again over its
// state dir, so every minute instance 0 takes over its tasks and hands them back: task
// creation, restoration, closing and rebalancing, over and over, in one process. Every second
// the test samples each instance's resident memory and open file descriptors; it prints each
// minute's peaks. At the end the input stops, the application commits all of it, and the
// output is checked exactly: every key's counts are 1, 2, ..., n.
// Bounded means, for instance 0: the mean of its minute peaks of resident memory in the second
// half of the run at most 1.25 times that of the first half plus 16 MiB, and its most open
// descriptors in the second half at most the first half's plus 8 (the first two minutes,
// start-up and filling the caches, count for neither half). Instance 1 is reported alone.
// BROOK_SOAK_SECONDS sets the duration (default 1800), BROOK_SOAK_RATE the input records per
// second (default 5000).
#include <dirent.h>
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "integration/kafka_count_app_fixture.h"
#include "test_env.h"

namespace brook::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kPartitions = 4;
constexpr int kKeys = 10'000;
constexpr int kInstances = 2;

// The resident memory of process `pid` in KiB (VmRSS), 0 if it is gone.
std::int64_t resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  }
  return 0;
}

// The open file descriptors of process `pid`, 0 if it is gone.
int open_fds(pid_t pid) {
  DIR* dir = ::opendir(("/proc/" + std::to_string(pid) + "/fd").c_str());
  if (dir == nullptr) return 0;
  int n = 0;
  while (const dirent* entry = ::readdir(dir)) n += entry->d_name[0] != '.';
  ::closedir(dir);
  return n;
}

// One instance's minute peaks over part of the run.
struct Minutes {
  std::int64_t resident_kib_sum = 0;  // of the minute peaks
  int minutes = 0;
  int fds = 0;  // the most at any sample
  void add(std::int64_t resident_kib, int most_fds) {
    resident_kib_sum += resident_kib;
    ++minutes;
    fds = std::max(fds, most_fds);
  }
  double mean_mib() const { return minutes == 0 ? 0 : resident_kib_sum / 1024.0 / minutes; }
};

// One instance's peaks within the current minute.
struct Peaks {
  std::int64_t resident_kib = 0;
  int fds = 0;
  void add(std::int64_t kib, int n) {
    resident_kib = std::max(resident_kib, kib);
    fds = std::max(fds, n);
  }
};

class KafkaSoakTest : public KafkaCountAppFixture {
 protected:
  KafkaSoakTest() : KafkaCountAppFixture("soak", kPartitions, kKeys) {}
};

TEST_F(KafkaSoakTest, MemoryAndDescriptorsStayBoundedAndCountsExactUnderLoadAndKills) {
  const auto duration = std::chrono::seconds(env_or("BROOK_SOAK_SECONDS", 1800));
  const auto kill_every = std::chrono::seconds(env_or("BROOK_SOAK_KILL_SECONDS", 60));
  const std::int64_t rate = env_or("BROOK_SOAK_RATE", 5000);
  const int total_minutes = static_cast<int>(duration.count() / 60);
  std::vector<std::unique_ptr<ChildProcess>> instances;
  for (int i = 0; i < kInstances; ++i) instances.push_back(start(i, "exactly_once_v2"));

  std::vector<Minutes> first_half(kInstances), second_half(kInstances);
  std::vector<Peaks> minute(kInstances);
  const auto begin = Clock::now();
  auto next_tick = begin;
  auto next_kill = begin + kill_every;
  int kills = 0;
  int seconds = 0;
  fmt::print(
      "| minute | input records | committed | resident MiB (instance 0 / 1) | open fds |\n"
      "|---:|---:|---:|---|---|\n");
  while (Clock::now() - begin < duration) {
    // A tenth of a second's input every tenth of a second.
    produce(rate / 10);
    next_tick += std::chrono::milliseconds(100);
    std::this_thread::sleep_until(next_tick);  // the load's pace, not a synchronisation
    if ((next_tick - begin) % std::chrono::seconds(1) != std::chrono::seconds(0)) continue;
    ++seconds;
    for (int i = 0; i < kInstances; ++i) {
      // The process is not reaped until it is waited for, so its pid stays its own.
      const pid_t pid = instances[i]->pid();
      minute[i].add(resident_kib(pid), open_fds(pid));
    }
    if (seconds % 60 == 0) {
      const int m = seconds / 60;
      std::string memory, fds;
      for (int i = 0; i < kInstances; ++i) {
        memory += fmt::format("{}{:.0f}", i ? " / " : "", minute[i].resident_kib / 1024.0);
        fds += fmt::format("{}{}", i ? " / " : "", minute[i].fds);
        if (m > 2) {
          (m <= (total_minutes + 2) / 2 ? first_half : second_half)[i].add(minute[i].resident_kib,
                                                                           minute[i].fds);
        }
        minute[i] = {};
      }
      fmt::print("| {} | {} | {} | {} | {} |\n", m, produced_, committed(), memory, fds);
      std::fflush(stdout);  // a line a minute, also into a file
    }
    if (Clock::now() >= next_kill) {
      instances[1]->signal(SIGKILL);
      ASSERT_EQ(instances[1]->wait(std::chrono::seconds(10)), -SIGKILL);
      instances[1] = start(1, "exactly_once_v2");
      ++kills;
      next_kill += kill_every;
    }
  }
  wait_for_committed(produced_, std::chrono::seconds(300));
  for (int i = 0; i < kInstances; ++i) wait_until_ran(i, std::chrono::seconds(60));
  for (auto& instance : instances) instance->signal(SIGTERM);
  for (auto& instance : instances) EXPECT_EQ(instance->wait(std::chrono::seconds(60)), 0);

  fmt::print("{} input records, {} kills of instance 1\n", produced_, kills);
  for (int i = 0; i < kInstances; ++i) {
    fmt::print(
        "instance {}: mean minute peak of resident memory {:.0f} MiB, then {:.0f} MiB; most open "
        "fds {}, then {}\n",
        i, first_half[i].mean_mib(), second_half[i].mean_mib(), first_half[i].fds,
        second_half[i].fds);
  }
  EXPECT_LE(second_half[0].mean_mib(), first_half[0].mean_mib() * 1.25 + 16)
      << "the long-lived instance's memory grew";
  EXPECT_LE(second_half[0].fds, first_half[0].fds + 8)
      << "the long-lived instance's open descriptors grew";
  expect_exact_counts();
}

}  // namespace
}  // namespace brook::testing

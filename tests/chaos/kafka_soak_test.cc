// A long soak on a Kafka broker, not part of the test command (scripts/chaos.sh --soak
// DURATION runs it): two instances of integration/kafka_count_app under exactly_once_v2 share a
// 4-partition input written at a steady rate; every BROOK_SOAK_KILL_SECONDS (default 60) one of
// them, in turn, is killed with SIGKILL and started again over its state dir. Every second it
// samples each instance's resident memory and open file descriptors, and prints one line per
// minute. At the end the input stops, the application commits all of it, and the output is
// checked exactly: every key's counts are 1, 2, ..., n.
// Bounded means: in the second half of the run neither an instance's peak resident memory
// exceeds 1.25 times the first half's peak plus 16 MiB, nor its open descriptors the first
// half's most plus 8 (the first minute, start-up, counts for neither half).
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

namespace brook::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kPartitions = 4;
constexpr int kKeys = 10'000;
constexpr int kInstances = 2;

std::int64_t env_int(const char* name, std::int64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::atoll(value) : fallback;
}

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

// The peaks of one instance over part of the run.
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
  const auto duration = std::chrono::seconds(env_int("BROOK_SOAK_SECONDS", 1800));
  const auto kill_every = std::chrono::seconds(env_int("BROOK_SOAK_KILL_SECONDS", 60));
  const std::int64_t rate = env_int("BROOK_SOAK_RATE", 5000);
  std::vector<std::unique_ptr<ChildProcess>> instances;
  for (int i = 0; i < kInstances; ++i) instances.push_back(start(i, "exactly_once_v2"));

  std::vector<Peaks> first_half(kInstances), second_half(kInstances), minute(kInstances);
  const auto begin = Clock::now();
  auto next_tick = begin;
  auto next_kill = begin + kill_every;
  int kills = 0;
  int seconds = 0;
  fmt::print(
      "| minute | input records | committed | resident MiB (per instance) | open fds |\n"
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
      const std::int64_t kib = resident_kib(pid);
      const int fds = open_fds(pid);
      minute[i].add(kib, fds);
      if (seconds > 60) {
        (Clock::now() - begin < duration / 2 ? first_half : second_half)[i].add(kib, fds);
      }
    }
    if (seconds % 60 == 0) {
      std::string memory, fds;
      for (int i = 0; i < kInstances; ++i) {
        memory += fmt::format("{}{:.0f}", i ? " / " : "", minute[i].resident_kib / 1024.0);
        fds += fmt::format("{}{}", i ? " / " : "", minute[i].fds);
        minute[i] = {};
      }
      fmt::print("| {} | {} | {} | {} | {} |\n", seconds / 60, produced_, committed(), memory, fds);
      std::fflush(stdout);  // a line a minute, also into a file
    }
    if (Clock::now() >= next_kill) {
      const int victim = kills++ % kInstances;
      instances[victim]->signal(SIGKILL);
      ASSERT_EQ(instances[victim]->wait(std::chrono::seconds(10)), -SIGKILL);
      instances[victim] = start(victim, "exactly_once_v2");
      next_kill += kill_every;
    }
  }
  wait_for_committed(produced_, std::chrono::seconds(300));
  for (auto& instance : instances) instance->signal(SIGTERM);
  for (auto& instance : instances) EXPECT_EQ(instance->wait(std::chrono::seconds(60)), 0);

  fmt::print("{} input records, {} kills\n", produced_, kills);
  for (int i = 0; i < kInstances; ++i) {
    fmt::print("instance {}: peak resident {:.0f} MiB then {:.0f} MiB, open fds {} then {}\n", i,
               first_half[i].resident_kib / 1024.0, second_half[i].resident_kib / 1024.0,
               first_half[i].fds, second_half[i].fds);
    EXPECT_LE(second_half[i].resident_kib, first_half[i].resident_kib * 5 / 4 + 16 * 1024)
        << "instance " << i << "'s memory grew";
    EXPECT_LE(second_half[i].fds, first_half[i].fds + 8)
        << "instance " << i << "'s open descriptors grew";
  }
  expect_exact_counts();
}

}  // namespace
}  // namespace brook::testing

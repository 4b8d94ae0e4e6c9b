// Names for what tests create on a server they share (Kafka topics and groups, PostgreSQL
// databases and slots).
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>

namespace brook::testing {

// "<prefix><sep><pid><sep><time><sep><n>": unique across the test processes sharing a server
// and across runs (what a crashed test left behind does not clash). With '_' and a lowercase
// prefix of up to 30 bytes, a PostgreSQL identifier (at most 63 bytes).
inline std::string unique_name(const std::string& prefix, char separator = '-') {
  static std::atomic<int> counter = 0;
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  const std::string sep(1, separator);
  return prefix + sep + std::to_string(::getpid()) + sep + std::to_string(now % 1'000'000'000) +
         sep + std::to_string(counter++);
}

}  // namespace brook::testing

// Runs the log router over a handful of lines and prints where each went.
// (The demo uses the test driver until the embedded log runtime lands.)
#include <brook/testing/topology_test_driver.h>

#include <cstdio>

#include "log_router.h"

int main() {
  auto topology = log_router::build_topology();
  if (!topology) return brook::report(topology.error());
  std::printf("log_router topology:\n%s", topology->describe().c_str());

  brook::testing::TopologyTestDriver driver(*topology);
  auto logs = driver.create_input_topic<std::optional<std::string>, std::string>(
      log_router::kInputTopic);
  logs.pipe_input("web-1", "2026-11-29T10:00:00Z INFO request served in 12 ms", brook::Timestamp(1));
  logs.pipe_input("web-2", "2026-11-29T10:00:01Z ERROR disk /var is full", brook::Timestamp(2));
  logs.pipe_input("db-1", "2026-11-29T10:00:02Z WARN slow query (830 ms)", brook::Timestamp(3));
  logs.pipe_value("2026-11-29T10:00:03Z ERROR lost connection to db-1", brook::Timestamp(4));

  for (const char* topic : {log_router::kHighPriorityTopic, log_router::kLowPriorityTopic}) {
    auto out = driver.create_output_topic<std::optional<std::string>, std::string>(topic);
    std::printf("\n%s:\n", topic);
    for (const auto& r : out.read_records_to_list()) {
      std::printf("  [%s] %s\n", r.key.value_or("<no key>").c_str(), r.value.c_str());
    }
  }
  return 0;
}

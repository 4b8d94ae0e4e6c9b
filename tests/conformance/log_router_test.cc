// log_router and its twin: the same lines routed to the same partitions of the same topics.
#include <fmt/format.h>

#include <random>

#include "brook/internal/partitioner.h"
#include "conformance.h"

namespace brook::testing {
namespace {

const ExampleTopics kLogRouter{
    .name = "log_router",
    .inputs = {{.name = "logs", .partitions = 4}},
    .outputs = {{.name = "logs-high-priority", .partitions = 4},
                {.name = "logs-low-priority", .partitions = 4}},
};

// 10 000 lines "TS LEVEL TEXT" from six hosts (each on the partition Kafka's producer would
// pick), a tenth without a host (null keys, on random partitions), a tenth of them ERROR; also
// lines without a level, empty lines, lines of one word, the level in lower case, equal timestamps,
// and headers on some.
std::vector<ProducerRecord> log_lines() {
  const char* hosts[] = {"web-1", "web-2", "web-3", "web-4", "db-1", "db-2"};
  const char* levels[] = {"INFO", "WARN", "DEBUG", "INFO",  "INFO",
                          "INFO", "INFO", "INFO",  "error", "ERROR"};
  std::mt19937 random(11);
  std::vector<ProducerRecord> records;
  for (int i = 0; i < 10'000; ++i) {
    const std::int64_t ts = 1'000 + i / 3;  // three lines per millisecond
    std::string line;
    switch (random() % 20) {
      case 0: line = ""; break;
      case 1: line = fmt::format("{}", ts); break;
      case 2: line = fmt::format("{} ERROR", ts); break;
      default:
        line = fmt::format("{} {} request {} took {} ms", ts, levels[random() % 10], i,
                           random() % 500);
    }
    ProducerRecord r{.topic = "logs", .timestamp = Timestamp(ts), .value = std::move(line)};
    if (random() % 10 != 0) r.key = hosts[random() % 6];
    r.partition = r.key ? internal::partition_for_key(*r.key, 4)
                        : Partition(static_cast<std::int32_t>(random() % 4));
    if (random() % 7 == 0) r.headers.add("trace", fmt::format("t-{}", i));
    records.push_back(std::move(r));
  }
  return records;
}

TEST_F(ConformanceTest, LogRouterRoutesAsKafkaStreams) {
  create_topics(kLogRouter);
  produce(log_lines());
  const auto [brook, twin] = run_both(kLogRouter);
  expect_same_dropped_records(kLogRouter, brook, twin);
  expect_same_description(kLogRouter, brook, twin);
  expect_same_stream(kLogRouter, "logs-high-priority", brook, twin);
  expect_same_stream(kLogRouter, "logs-low-priority", brook, twin);
}

}  // namespace
}  // namespace brook::testing

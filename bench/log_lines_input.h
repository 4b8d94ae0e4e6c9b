// A scratch data dir of the embedded log (a BenchDir) holding log lines in topic "in":
// `records` values of 100 bytes, each starting with a level (DEBUG, INFO, WARN, ERROR in turn),
// record i keyed key_of(i) at time i; and empty topics as asked. Removed on destruction.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "backend/embedded/embedded_log.h"
#include "state_workload.h"

namespace brook::bench {

class LogLinesInput {
 public:
  template <class KeyOf>
  LogLinesInput(const std::string& name, std::int64_t records, std::int32_t partitions,
                KeyOf key_of, const std::vector<std::string>& empty_topics = {})
      : dir_(name) {
    auto log = std::move(*internal::open_embedded_log({.data_dir = dir_.path()}));
    (void)log->admin().create_topic({"in", partitions});
    for (const auto& topic : empty_topics) (void)log->admin().create_topic({topic, partitions});
    auto producer = std::move(*log->make_producer({}));
    const char* levels[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    for (std::int64_t i = 0; i < records; ++i) {
      std::string value = std::string(levels[i % 4]) + " request " + std::to_string(i) + " ";
      value.resize(100, 'x');
      (void)producer->send(
          {.topic = "in", .timestamp = Timestamp(i), .key = key_of(i), .value = std::move(value)});
    }
    (void)producer->flush();
  }
  const std::filesystem::path& dir() const { return dir_.path(); }

 private:
  BenchDir dir_;
};

}  // namespace brook::bench

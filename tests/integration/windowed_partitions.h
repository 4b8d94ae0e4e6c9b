// Windowed keys on user topics, on either log: sinks of time- and session-windowed keys must
// put every record in the partition of its own key alone (as Kafka Streams' windowed stream
// partitioner), so all windows of a key share the key's partition.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "backend/log_backend.h"
#include "brook/streams_builder.h"
#include "topic_reader.h"

namespace brook::testing {

// Counts per key in 10 ms tumbling windows to `time_out` and in sessions with a 5 ms gap to
// `session_out`, both keyed by the windowed key as Kafka Streams writes it.
inline Topology windowed_sinks(const std::string& in, const std::string& time_out,
                               const std::string& session_out) {
  using namespace std::chrono_literals;
  StreamsBuilder builder;
  auto grouped = builder.stream<std::string, std::string>(in).group_by_key();
  grouped.windowed_by(TimeWindows::of_size_with_no_grace(10ms))
      .count({.name = "windowed-counts"})
      .to_stream()
      .to(time_out);
  grouped.windowed_by(SessionWindows::of_inactivity_gap_with_no_grace(5ms))
      .count({.name = "session-counts"})
      .to_stream()
      .to(session_out, {.key_serde = std::make_shared<const SessionWindowedSerde<std::string>>(
                            std::make_shared<const StringSerde>())});
  return std::move(*builder.build());
}

// Records for windowed_sinks(): 40 keys, each at times 1, 2, 21, 22, 41 (several windows and
// sessions per key).
inline std::vector<ProducerRecord> windowed_input(const std::string& topic) {
  std::vector<ProducerRecord> out;
  // Not at 0: a Kafka producer gives a record of timestamp 0 the current time.
  for (std::int64_t t : {1, 2, 21, 22, 41}) {
    for (int k = 0; k < 40; ++k) {
      out.push_back({.topic = topic,
                     .timestamp = Timestamp(t),
                     .key = "device-" + std::to_string(k),
                     .value = "x"});
    }
  }
  return out;
}

// Every record of `topic` (windowed keys whose window takes the last `suffix` bytes) is in the
// partition the default partitioner gives its key without the window; there are some.
inline void expect_partitioned_by_key(internal::LogBackend& log, const std::string& topic,
                                      std::size_t suffix) {
  int records = 0;
  const auto partitions = read_topic(log, topic);
  for (const auto& [partition, in_partition] : partitions) {
    for (const auto& record : in_partition) {
      ASSERT_TRUE(record.key && record.key->size() > suffix);
      const std::string key = record.key->substr(0, record.key->size() - suffix);
      EXPECT_EQ(internal::partition_for_key(key, static_cast<int>(partitions.size())).value(),
                partition)
          << topic << ": a record of key " << key << " is in partition " << partition;
      ++records;
    }
  }
  EXPECT_GT(records, 100) << topic;
}

}  // namespace brook::testing

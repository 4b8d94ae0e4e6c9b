// The hand-written application the state and join benchmarks compare Brook with: what a
// developer would write directly against the log, without Brook.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "backend/embedded/embedded_log.h"
#include "streams_timing.h"

namespace brook::bench {

// One timed run over the embedded log in `dir`: Consumer::poll of partition 0 of topic `in` (a
// consumer group `group`) until `records` records are read; per record `transform(record)`
// gives the value to send to topic `out` under the record's key (nullopt: an error, the run
// stops); a flush after each poll and an offset commit every `commit_interval`. The seconds
// taken, or what failed (also if no record comes for 10 s: the topic has fewer than `records`).
template <class Transform>
Result<double> run_hand_written_app(const std::filesystem::path& dir, const std::string& group,
                                    const std::string& in, const std::string& out,
                                    std::int64_t records, std::chrono::milliseconds commit_interval,
                                    Transform transform) {
  auto log = internal::open_embedded_log({.data_dir = dir});
  if (!log) return error(std::move(log.error()));
  auto consumer = (*log)->make_consumer({.group_id = group});
  if (!consumer) return error(std::move(consumer.error()));
  auto producer = (*log)->make_producer({});
  if (!producer) return error(std::move(producer.error()));
  const internal::TopicPartition partition{in, Partition(0)};
  if (auto s = (*consumer)->assign({partition}); !s.ok()) return error(std::move(s));
  const auto start = Clock::now();
  auto last_commit = start;
  Offset next(0);
  while (next.value() < records) {
    auto batch = (*consumer)->poll(std::chrono::milliseconds(100));
    if (!batch) return error(std::move(batch.error()));
    if (batch->empty() && Clock::now() - last_commit > std::chrono::seconds(10)) {
      return error(Status::not_found("no record after offset " + std::to_string(next.value()) +
                                     " of " + in + " for 10 s"));
    }
    for (auto& r : *batch) {
      std::optional<std::string> value = transform(r);
      if (!value)
        return error(Status::internal("the transformation failed at offset " +
                                      std::to_string(r.offset.value())));
      if (auto s = (*producer)->send({.topic = out,
                                      .timestamp = r.timestamp,
                                      .key = std::move(r.key),
                                      .value = std::move(*value)});
          !s.ok()) {
        return error(std::move(s));
      }
      next = Offset(r.offset.value() + 1);
    }
    if (auto s = (*producer)->flush(); !s.ok()) return error(std::move(s));
    if (Clock::now() - last_commit >= commit_interval) {
      if (auto s = (*consumer)->commit({{partition, next}}); !s.ok()) return error(std::move(s));
      last_commit = Clock::now();
    }
  }
  if (auto s = (*consumer)->commit({{partition, next}}); !s.ok()) return error(std::move(s));
  return seconds_since(start);
}

}  // namespace brook::bench

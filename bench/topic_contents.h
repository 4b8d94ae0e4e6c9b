// Reading back what a benchmarked application left on the broker, for its checks: every
// committed record of a topic, and whether a consumer group has committed a topic's end.
// Throws std::runtime_error on a failure or when the broker does not get there in time.
#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "rdkafka_baseline.h"

namespace brook::bench {

// The end offset of each partition of `topic`: the high watermark, or under `read_committed`
// the last stable offset (which trails a committed transaction until its markers are written).
inline std::vector<std::int64_t> end_offsets(const std::string& topic, int partitions,
                                             bool read_committed) {
  auto rk =
      make_client(RD_KAFKA_CONSUMER,
                  {{"isolation.level", read_committed ? "read_committed" : "read_uncommitted"}});
  std::vector<std::int64_t> ends(partitions);
  for (int p = 0; p < partitions; ++p) {
    std::int64_t low = 0;
    check(rd_kafka_query_watermark_offsets(rk.get(), topic.c_str(), p, &low, &ends[p], 30'000),
          "querying the end offsets of " + topic);
  }
  return ends;
}

// Polls `done()` every 50 ms until it is true; throws `what()` after `timeout`.
template <class Done, class What>
void poll_until(Done done, What what, std::chrono::seconds timeout = std::chrono::seconds(60)) {
  const auto deadline = Clock::now() + timeout;
  while (!done()) {
    if (Clock::now() > deadline) throw std::runtime_error(what());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// Waits until no transaction is pending on `topic` (every partition's last stable offset is
// its high watermark): a transaction committed by a producer that has exited gets its
// markers written by the broker shortly after.
inline void wait_stable(const std::string& topic, int partitions) {
  poll_until(
      [&] { return end_offsets(topic, partitions, true) == end_offsets(topic, partitions, false); },
      [&] { return topic + ": a transaction is still open after 60 s"; });
}

// Waits until consumer group `group` has committed the end of every partition of `topic`
// (its lag is 0), as fetched by a read_committed client (which waits for pending
// transactional offsets).
inline void wait_committed_end(const std::string& group, const std::string& topic, int partitions) {
  const auto ends = end_offsets(topic, partitions, false);
  auto consumer =
      make_client(RD_KAFKA_CONSUMER, {{"group.id", group}, {"isolation.level", "read_committed"}});
  std::vector<std::int64_t> committed(partitions, -1);
  auto at_end = [&] {
    PartitionList list(rd_kafka_topic_partition_list_new(partitions));
    for (int p = 0; p < partitions; ++p) {
      rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p);
    }
    check(rd_kafka_committed(consumer.get(), list.get(), 30'000),
          "fetching the committed offsets of " + group);
    for (int p = 0; p < partitions; ++p) committed[p] = list->elems[p].offset;
    return committed == ends;
  };
  poll_until(at_end, [&] {
    std::string what = "group " + group + " did not commit the end of " + topic + ":";
    for (int p = 0; p < partitions; ++p) {
      what += " partition " + std::to_string(p) + " committed " + std::to_string(committed[p]) +
              " of " + std::to_string(ends[p]) + ";";
    }
    return what;
  });
}

// Reads every committed record of `topic` from the beginning of each partition to its end,
// calling `on_record(const rd_kafka_message_t&)` in offset order per partition. Wait for the
// topic to be stable first (wait_stable). Returns the number of records.
template <class OnRecord>
std::int64_t read_topic(const std::string& topic, int partitions, OnRecord on_record) {
  auto consumer = make_client(RD_KAFKA_CONSUMER, {{"group.id", unique_name("bench-check")},
                                                  {"enable.auto.commit", "false"},
                                                  {"enable.partition.eof", "true"},
                                                  {"isolation.level", "read_committed"}});
  PartitionList assignment(rd_kafka_topic_partition_list_new(partitions));
  std::set<std::int32_t> open;
  for (int p = 0; p < partitions; ++p) {
    rd_kafka_topic_partition_list_add(assignment.get(), topic.c_str(), p)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
    open.insert(p);
  }
  check(rd_kafka_assign(consumer.get(), assignment.get()), "assigning " + topic);
  rd_kafka_queue_t* queue = rd_kafka_queue_get_consumer(consumer.get());
  std::vector<rd_kafka_message_t*> messages(10'000);
  std::int64_t records = 0;
  std::string failure;
  const auto deadline = Clock::now() + std::chrono::minutes(5);
  while (!open.empty() && failure.empty()) {
    if (Clock::now() > deadline) failure = "not read to its end within 5 minutes";
    const ssize_t n = rd_kafka_consume_batch_queue(queue, 100, messages.data(), messages.size());
    for (ssize_t i = 0; i < n; ++i) {
      const rd_kafka_message_t* m = messages[i];
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        open.erase(m->partition);
      } else if (m->err) {
        failure = rd_kafka_message_errstr(m);
      } else if (failure.empty()) {
        on_record(*m);
        ++records;
      }
      rd_kafka_message_destroy(messages[i]);
    }
  }
  rd_kafka_queue_destroy(queue);
  rd_kafka_consumer_close(consumer.get());
  if (!failure.empty()) throw std::runtime_error("reading " + topic + ": " + failure);
  return records;
}

inline std::string_view key_of(const rd_kafka_message_t& m) {
  return {static_cast<const char*>(m.key), m.key_len};
}
inline std::string_view value_of(const rd_kafka_message_t& m) {
  return {static_cast<const char*>(m.payload), m.len};
}

}  // namespace brook::bench

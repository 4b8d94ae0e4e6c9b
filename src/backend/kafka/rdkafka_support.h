// Ownership and error helpers over librdkafka's C API, shared by the Kafka clients. Private to
// backend/kafka (the only code that includes librdkafka).
#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "backend/log_backend.h"

namespace brook::internal {

struct HandleDeleter {
  void operator()(rd_kafka_t* handle) const { rd_kafka_destroy(handle); }
};
struct PartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* list) const {
    rd_kafka_topic_partition_list_destroy(list);
  }
};
struct EventDeleter {
  void operator()(rd_kafka_event_t* event) const { rd_kafka_event_destroy(event); }
};
struct QueueDeleter {
  void operator()(rd_kafka_queue_t* queue) const { rd_kafka_queue_destroy(queue); }
};
struct MessageDeleter {
  void operator()(rd_kafka_message_t* message) const { rd_kafka_message_destroy(message); }
};
struct TopicDeleter {
  void operator()(rd_kafka_topic_t* topic) const { rd_kafka_topic_destroy(topic); }
};
using KafkaHandle = std::unique_ptr<rd_kafka_t, HandleDeleter>;
using PartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter>;
using KafkaEvent = std::unique_ptr<rd_kafka_event_t, EventDeleter>;
using KafkaQueue = std::unique_ptr<rd_kafka_queue_t, QueueDeleter>;
using KafkaMessage = std::unique_ptr<rd_kafka_message_t, MessageDeleter>;
using KafkaTopic = std::unique_ptr<rd_kafka_topic_t, TopicDeleter>;

// Where the clients of one backend connect, and how long a blocking call may take.
struct KafkaClientSettings {
  std::map<std::string, std::string> common;    // bootstrap.servers and kafka.* settings
  std::map<std::string, std::string> producer;  // producer.* settings
  std::map<std::string, std::string> consumer;  // consumer.* settings
  std::chrono::milliseconds timeout{30'000};
  std::chrono::milliseconds retry_timeout{300'000};  // KafkaOptions::retry_timeout

  // `defaults` overridden by the common settings, then by those of one kind of client.
  std::map<std::string, std::string> layered(std::map<std::string, std::string> defaults,
                                             const std::map<std::string, std::string>& kind) const {
    for (const auto* layer : {&common, &kind}) {
      for (const auto& [name, value] : *layer) defaults[name] = value;
    }
    return defaults;
  }
};

// A client handle from `properties` (librdkafka names); `configure` may add callbacks to the
// configuration first. Messages of librdkafka's own log go to Brook's log. kInvalidArgument
// naming the property librdkafka refused.
Result<KafkaHandle> make_handle(rd_kafka_type_t type,
                                const std::map<std::string, std::string>& properties,
                                void (*configure)(rd_kafka_conf_t*, void*) = nullptr,
                                void* opaque = nullptr);

// `what` failed with `error`: the Status code that fits (kTaskMigrated for a fenced producer or
// a member of an old generation, kNotFound for an unknown topic, kIoError otherwise).
Status kafka_status(rd_kafka_resp_err_t error, std::string_view what);
// The same for an error object, which it destroys; ok for nullptr. An error that requires
// aborting the transaction is kTaskMigrated too: the stream thread then aborts it, drops its
// tasks' uncommitted work and rejoins the group, so the work is done again.
Status kafka_status(rd_kafka_error_t* error, std::string_view what);
// The same for an error of `client`; a client's fatal error (ERR__FATAL) is told by its cause,
// e.g. a fenced producer.
Status kafka_status(rd_kafka_t* client, rd_kafka_resp_err_t error, std::string_view what);

// Errors that pass by themselves: a partition just created or whose leader moved, a
// coordinator still loading, a dropped connection, a call that timed out.
bool is_transient(rd_kafka_resp_err_t error);

// Calls `call` (returning a librdkafka error code) until it succeeds, fails for good, or
// `timeout` passes; returns its last code.
template <class Call>
rd_kafka_resp_err_t retry_transient(std::chrono::milliseconds timeout, Call call) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const rd_kafka_resp_err_t code = call();
    if (!is_transient(code) || std::chrono::steady_clock::now() >= deadline) return code;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the cluster settles
  }
}

// How long a topic may be unknown to the broker a client asks before it counts as unknown:
// brokers learn of a new topic one after another, so a topic created moments before (by this
// process or another) can be unknown to one of them for a while.
inline constexpr std::chrono::milliseconds kTopicPropagation{10'000};

// The partition count of `topic` in the cluster's metadata; kNotFound if the brokers asked
// (again and again, whichever one the client picks) did not know it for `wait`, or for
// `timeout` if that is shorter. Other errors (a partition without a leader yet) are asked
// again as long, then returned.
Result<std::int32_t> topic_partitions(rd_kafka_t* client, const std::string& topic,
                                      std::chrono::milliseconds timeout,
                                      std::chrono::milliseconds wait = kTopicPropagation);

PartitionList make_partition_list(const std::vector<TopicPartition>& partitions);
PartitionList make_offset_list(const std::map<TopicPartition, Offset>& offsets);
// Offsets to commit, each with its metadata (copied into memory the list owns).
PartitionList make_commit_list(const std::map<TopicPartition, OffsetAndMetadata>& offsets);
std::vector<TopicPartition> to_partitions(const rd_kafka_topic_partition_list_t* list);
// The committed offsets in `list` (as rd_kafka_committed fills it), without the partitions
// that have none; an entry's error as a Status.
Result<std::map<TopicPartition, OffsetAndMetadata>> to_committed(
    const rd_kafka_topic_partition_list_t* list);

}  // namespace brook::internal

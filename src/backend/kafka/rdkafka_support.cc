#include "backend/kafka/rdkafka_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "core/log.h"

namespace brook::internal {
namespace {

// librdkafka's syslog levels (0 emergency .. 7 debug) to Brook's.
void log_to_brook(const rd_kafka_t* handle, int level, const char* facility, const char* message) {
  const LogLevel brook_level = level <= 3   ? LogLevel::kError
                               : level == 4 ? LogLevel::kWarn
                               : level <= 6 ? LogLevel::kInfo
                                            : LogLevel::kDebug;
  log(brook_level, "kafka {} {}: {}", rd_kafka_name(handle), facility, message);
}

}  // namespace

Result<KafkaHandle> make_handle(rd_kafka_type_t type,
                                const std::map<std::string, std::string>& properties,
                                void (*configure)(rd_kafka_conf_t*, void*), void* opaque) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::array<char, 512> problem{};
  for (const auto& [name, value] : properties) {
    if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), problem.data(), problem.size()) !=
        RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return error(Status::invalid_argument(
          fmt::format("Kafka client setting {}={}: {}", name, value, problem.data())));
    }
  }
  rd_kafka_conf_set_log_cb(conf, log_to_brook);
  if (configure != nullptr) configure(conf, opaque);
  if (opaque != nullptr) rd_kafka_conf_set_opaque(conf, opaque);
  rd_kafka_t* handle = rd_kafka_new(type, conf, problem.data(), problem.size());
  if (handle == nullptr) {  // conf is still ours
    rd_kafka_conf_destroy(conf);
    return error(
        Status::invalid_argument(fmt::format("cannot create a Kafka client: {}", problem.data())));
  }
  return KafkaHandle(handle);
}

Status kafka_status(rd_kafka_resp_err_t error, std::string_view what) {
  if (error == RD_KAFKA_RESP_ERR_NO_ERROR) return {};
  std::string message = fmt::format("{}: {}", what, rd_kafka_err2str(error));
  switch (error) {
    case RD_KAFKA_RESP_ERR_PRODUCER_FENCED:
    case RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH:
    case RD_KAFKA_RESP_ERR__FENCED:
    case RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION:
    case RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID:
    case RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID: return Status::task_migrated(std::move(message));
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION: return Status::not_found(std::move(message));
    case RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS: return Status::already_exists(std::move(message));
    case RD_KAFKA_RESP_ERR_INVALID_PARTITIONS:
    case RD_KAFKA_RESP_ERR_INVALID_CONFIG:
    case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:
    case RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR:
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE:
    case RD_KAFKA_RESP_ERR__INVALID_ARG: return Status::invalid_argument(std::move(message));
    default: return Status::io_error(std::move(message));
  }
}

bool is_transient(rd_kafka_resp_err_t error) {
  switch (error) {
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_REPLICA_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT: return true;
    default: return false;
  }
}

Status kafka_status(rd_kafka_error_t* error, std::string_view what) {
  if (error == nullptr) return {};
  Status status = kafka_status(rd_kafka_error_code(error), what);
  if (rd_kafka_error_is_fatal(error) && status.code() != StatusCode::kTaskMigrated) {
    status = Status::io_error(status.message() + " (fatal)");
  } else if (rd_kafka_error_txn_requires_abort(error)) {
    // The transaction cannot commit (a step that timed out, say): what it holds is redone.
    status = Status::task_migrated(status.message() + " (the transaction must be aborted)");
  }
  rd_kafka_error_destroy(error);
  return status;
}

namespace {

// The metadata of `topic` as the broker the client picks says now: its partition count, or
// kNotFound if that broker does not know it.
Result<std::int32_t> topic_partitions_once(rd_kafka_t* client, const std::string& topic,
                                           std::chrono::milliseconds timeout) {
  KafkaTopic handle(rd_kafka_topic_new(client, topic.c_str(), nullptr));
  const rd_kafka_metadata_t* metadata = nullptr;
  const auto code =
      rd_kafka_metadata(client, 0, handle.get(), &metadata, static_cast<int>(timeout.count()));
  if (code != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return error(kafka_status(code, "reading metadata of topic " + topic));
  }
  Result<std::int32_t> result = error(Status::not_found(
      fmt::format("unknown topic {} (broker {} does not know it)", topic,
                  metadata->orig_broker_name ? metadata->orig_broker_name : "?")));
  if (metadata->topic_cnt == 1) {
    const auto& t = metadata->topics[0];
    if (t.err == RD_KAFKA_RESP_ERR_NO_ERROR && t.partition_cnt > 0) {
      result = t.partition_cnt;
    } else if (t.err != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART &&
               t.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      result = error(kafka_status(t.err, "reading metadata of topic " + topic));
    }
  }
  rd_kafka_metadata_destroy(metadata);
  return result;
}

}  // namespace

Result<std::int32_t> topic_partitions(rd_kafka_t* client, const std::string& topic,
                                      std::chrono::milliseconds timeout,
                                      std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + std::min(timeout, wait);
  while (true) {
    auto partitions = topic_partitions_once(client, topic, timeout);
    if (partitions || std::chrono::steady_clock::now() >= deadline) return partitions;
    log(LogLevel::kDebug, "{}; asking again", partitions.error().message());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // metadata has no notification
  }
}

Status kafka_status(rd_kafka_t* client, rd_kafka_resp_err_t error, std::string_view what) {
  if (error != RD_KAFKA_RESP_ERR__FATAL) return kafka_status(error, what);
  std::array<char, 512> reason{};
  const auto cause = rd_kafka_fatal_error(client, reason.data(), reason.size());
  return kafka_status(cause, fmt::format("{} (fatal: {})", what, reason.data()));
}

PartitionList make_partition_list(const std::vector<TopicPartition>& partitions) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (const auto& tp : partitions) {
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition.value());
  }
  return list;
}

PartitionList make_offset_list(const std::map<TopicPartition, Offset>& offsets) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const auto& [tp, offset] : offsets) {
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition.value())->offset =
        offset.value();
  }
  return list;
}

PartitionList make_commit_list(const std::map<TopicPartition, OffsetAndMetadata>& offsets) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const auto& [tp, committed] : offsets) {
    auto* entry =
        rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition.value());
    entry->offset = committed.offset.value();
    if (committed.metadata.empty()) continue;
    // Freed with the list, by librdkafka's allocator.
    entry->metadata = rd_kafka_mem_malloc(nullptr, committed.metadata.size());
    std::memcpy(entry->metadata, committed.metadata.data(), committed.metadata.size());
    entry->metadata_size = committed.metadata.size();
  }
  return list;
}

std::vector<TopicPartition> to_partitions(const rd_kafka_topic_partition_list_t* list) {
  std::vector<TopicPartition> out;
  for (int i = 0; i < list->cnt; ++i) {
    out.push_back({list->elems[i].topic, Partition(list->elems[i].partition)});
  }
  return out;
}

Result<std::map<TopicPartition, OffsetAndMetadata>> to_committed(
    const rd_kafka_topic_partition_list_t* list) {
  std::map<TopicPartition, OffsetAndMetadata> out;
  for (int i = 0; i < list->cnt; ++i) {
    const auto& entry = list->elems[i];
    TopicPartition tp{entry.topic, Partition(entry.partition)};
    if (entry.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return error(kafka_status(entry.err, "reading the committed offset of " + tp.to_string()));
    }
    if (entry.offset < 0) continue;  // none committed
    std::string metadata;
    if (entry.metadata != nullptr) {
      metadata.assign(static_cast<const char*>(entry.metadata), entry.metadata_size);
    }
    out.emplace(std::move(tp), OffsetAndMetadata{Offset(entry.offset), std::move(metadata)});
  }
  return out;
}

}  // namespace brook::internal

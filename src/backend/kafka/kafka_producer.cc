#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "backend/kafka/kafka_clients.h"
#include "core/log.h"

namespace brook::internal {
namespace {

constexpr unsigned kRecordsPerPoll = 256;

rd_kafka_headers_t* to_kafka_headers(const Headers* headers) {
  if (headers == nullptr || headers->empty()) return nullptr;
  rd_kafka_headers_t* out = rd_kafka_headers_new(headers->size());
  for (const auto& header : *headers) {
    const auto& value = header.value;
    (void)rd_kafka_header_add(out, header.key.data(), static_cast<ssize_t>(header.key.size()),
                              value ? value->data() : nullptr,
                              value ? static_cast<ssize_t>(value->size()) : 0);
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<KafkaProducer>> KafkaProducer::open(const KafkaClientSettings& settings,
                                                           const ProducerConfig& config) {
  // Idempotent (no duplicates or reordering on retries) and partitioned as the Java client
  // partitions keyed records; user settings may override the rest.
  std::map<std::string, std::string> defaults = {{"enable.idempotence", "true"},
                                                 {"partitioner", "murmur2_random"}};
  if (!config.transactional_id.empty()) {
    // As Kafka Streams: a transaction left open by a crashed instance blocks read_committed
    // readers of its partitions until this timeout aborts it.
    defaults["transaction.timeout.ms"] = "10000";
  }
  if (config.transaction_timeout.count() > 0) {
    defaults["transaction.timeout.ms"] = std::to_string(config.transaction_timeout.count());
  }
  auto properties = settings.layered(std::move(defaults), settings.producer);
  if (!config.client_id.empty()) properties["client.id"] = config.client_id;
  if (!config.transactional_id.empty()) properties["transactional.id"] = config.transactional_id;

  std::unique_ptr<KafkaProducer> producer(new KafkaProducer(config, settings));
  auto handle = make_handle(
      RD_KAFKA_PRODUCER, properties,
      [](rd_kafka_conf_t* conf, void*) { rd_kafka_conf_set_dr_msg_cb(conf, on_delivery); },
      producer.get());
  if (!handle) return error(handle.error());
  producer->handle_ = std::move(*handle);
  if (!config.transactional_id.empty()) {
    if (auto s = producer->transaction_step(
            "initialising transactional producer " + config.transactional_id,
            [&](int timeout_ms) {
              return rd_kafka_init_transactions(producer->handle_.get(), timeout_ms);
            });
        !s.ok()) {
      return error(s);
    }
  }
  return producer;
}

KafkaProducer::~KafkaProducer() {
  // A transactional producer's unfinished transaction is aborted by the cluster; plain
  // records already sent are delivered, not dropped.
  if (!handle_ || !config_.transactional_id.empty() || rd_kafka_outq_len(handle_.get()) == 0) {
    return;
  }
  if (rd_kafka_flush(handle_.get(), static_cast<int>(timeout_.count())) !=
      RD_KAFKA_RESP_ERR_NO_ERROR) {
    log(LogLevel::kError, "Kafka producer closed with {} records not acknowledged",
        rd_kafka_outq_len(handle_.get()));
  }
}

void KafkaProducer::on_delivery(rd_kafka_t*, const rd_kafka_message_t* message, void* opaque) {
  // Purged records belong to an aborted transaction: gone on purpose.
  if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR ||
      message->err == RD_KAFKA_RESP_ERR__PURGE_QUEUE ||
      message->err == RD_KAFKA_RESP_ERR__PURGE_INFLIGHT) {
    return;
  }
  auto* producer = static_cast<KafkaProducer*>(opaque);
  if (!producer->failure_.ok()) return;  // the first failure is the one reported
  producer->failure_ =
      refuse(producer->config_,
             kafka_status(producer->handle_.get(), message->err,
                          fmt::format("writing a record to {}-{}",
                                      rd_kafka_topic_name(message->rkt), message->partition)));
}

Status KafkaProducer::take_failure() { return std::exchange(failure_, Status()); }

Result<KafkaProducer::KnownTopic*> KafkaProducer::known_topic(const std::string& topic) {
  if (auto it = known_topics_.find(topic); it != known_topics_.end()) return &it->second;
  auto partitions = topic_partitions(handle_.get(), topic, timeout_);
  if (!partitions) return error(partitions.error());
  KafkaTopic handle(rd_kafka_topic_new(handle_.get(), topic.c_str(), nullptr));
  if (!handle) {
    return error(kafka_status(rd_kafka_last_error(), "opening topic " + topic + " to write"));
  }
  return &known_topics_.emplace(topic, KnownTopic{*partitions, std::move(handle)}).first->second;
}

Result<std::int32_t> KafkaProducer::partitions(const std::string& topic) {
  auto known = known_topic(topic);
  if (!known) return error(known.error());
  return (*known)->partitions;
}

Status KafkaProducer::send(const std::string& topic, const OutgoingRecord& record) {
  auto known = known_topic(topic);
  if (!known) {
    const Status& s = known.error();
    return s.code() == StatusCode::kNotFound ? refuse(config_, s) : s;
  }
  rd_kafka_headers_t* headers = to_kafka_headers(record.headers);
  // librdkafka's macros cast their arguments: plain values only.
  const std::int32_t partition =
      record.partition ? record.partition->value() : RD_KAFKA_PARTITION_UA;
  const void* key = record.key ? record.key->data() : nullptr;
  const std::size_t key_size = record.key ? record.key->size() : 0;
  // F_COPY: librdkafka copies the value before returning, so the cast drops nothing.
  void* value = record.value ? const_cast<char*>(record.value->data()) : nullptr;
  const std::size_t value_size = record.value ? record.value->size() : 0;
  const std::int64_t timestamp = record.timestamp.value();
  while (true) {
    const rd_kafka_resp_err_t code = rd_kafka_producev(
        handle_.get(), RD_KAFKA_V_RKT((*known)->handle.get()), RD_KAFKA_V_PARTITION(partition),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_size),
        RD_KAFKA_V_VALUE(value, value_size), RD_KAFKA_V_TIMESTAMP(timestamp),
        RD_KAFKA_V_HEADERS(headers), RD_KAFKA_V_END);
    if (code == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      rd_kafka_poll(handle_.get(), 10);  // deliveries make room
      continue;
    }
    if (code != RD_KAFKA_RESP_ERR_NO_ERROR) {
      if (headers != nullptr) rd_kafka_headers_destroy(headers);  // still ours
      const Status s = kafka_status(handle_.get(), code, "sending a record to " + topic);
      // Refused up front (too large, no such partition) or the client itself failed.
      return s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kNotFound
                 ? refuse(config_, s)
                 : s;
    }
    break;
  }
  // Delivery reports (each frees its record) in batches: serving them takes librdkafka's lock.
  if (++unpolled_ == kRecordsPerPoll) return dispatch();
  return take_failure();
}

Status KafkaProducer::flush() {
  if (rd_kafka_flush(handle_.get(), static_cast<int>(timeout_.count())) ==
      RD_KAFKA_RESP_ERR__TIMED_OUT) {
    return Status::io_error(fmt::format("{} records not acknowledged by Kafka within {} ms",
                                        rd_kafka_outq_len(handle_.get()), timeout_.count()));
  }
  return take_failure();
}

Status KafkaProducer::dispatch() {
  unpolled_ = 0;
  rd_kafka_poll(handle_.get(), 0);  // delivery reports
  return take_failure();
}

template <class Step>
Status KafkaProducer::transaction_step(std::string_view what, Step step) {
  // A retriable error (a coordinator loading or moving, a step that timed out) means: call
  // the same step again.
  const auto deadline = std::chrono::steady_clock::now() + retry_timeout_;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    rd_kafka_error_t* error =
        step(static_cast<int>(std::clamp(left, std::chrono::milliseconds(1), timeout_).count()));
    if (error == nullptr || !rd_kafka_error_is_retriable(error)) return kafka_status(error, what);
    if (std::chrono::steady_clock::now() >= deadline) {
      return kafka_status(error, fmt::format("{} (still failing after {} ms, task.timeout.ms)",
                                             what, retry_timeout_.count()));
    }
    log(LogLevel::kDebug, "{}: {}; retrying", what, rd_kafka_error_string(error));
    rd_kafka_error_destroy(error);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the cluster settles
  }
}

Status KafkaProducer::begin_transaction() {
  return kafka_status(rd_kafka_begin_transaction(handle_.get()), "beginning a transaction");
}

Status KafkaProducer::send_offsets_to_transaction(
    const std::map<TopicPartition, OffsetAndMetadata>& offsets, const GroupMetadata& group) {
  if (offsets.empty()) return {};
  if (auto s = check_commit_metadata(offsets); !s.ok()) return s;
  PartitionList list = make_commit_list(offsets);
  return transaction_step("sending offsets to the transaction", [&](int timeout_ms) {
    return rd_kafka_send_offsets_to_transaction(
        handle_.get(), list.get(), static_cast<const KafkaGroupMetadata&>(group).metadata,
        timeout_ms);
  });
}

Status KafkaProducer::commit_transaction() {
  if (auto s = transaction_step(
          "committing a transaction",
          [&](int timeout_ms) { return rd_kafka_commit_transaction(handle_.get(), timeout_ms); });
      !s.ok()) {
    return s;
  }
  return take_failure();
}

Status KafkaProducer::abort_transaction() {
  Status s = transaction_step("aborting a transaction", [&](int timeout_ms) {
    return rd_kafka_abort_transaction(handle_.get(), timeout_ms);
  });
  (void)take_failure();  // the aborted records (reported as purged) are gone on purpose
  return s;
}

}  // namespace brook::internal

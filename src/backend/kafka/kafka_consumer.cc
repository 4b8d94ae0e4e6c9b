#include <fmt/format.h>

#include "backend/kafka/kafka_clients.h"
#include "core/log.h"

namespace brook::internal {
namespace {

Headers to_headers(rd_kafka_message_t* message) {
  Headers out;
  rd_kafka_headers_t* headers = nullptr;
  if (rd_kafka_message_headers(message, &headers) != RD_KAFKA_RESP_ERR_NO_ERROR) return out;
  const char* name = nullptr;
  const void* value = nullptr;
  std::size_t size = 0;
  for (std::size_t i = 0;
       rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
       ++i) {
    out.add(name,
            value ? std::optional<std::string>(std::string(static_cast<const char*>(value), size))
                  : std::nullopt);
  }
  return out;
}

// A copy of the bytes in `arena`; nullopt for null.
std::optional<std::string_view> copy(const void* data, std::size_t size, RecordArena& arena) {
  if (data == nullptr) return std::nullopt;
  return arena.copy({static_cast<const char*>(data), size});
}

}  // namespace

Result<std::unique_ptr<KafkaConsumer>> KafkaConsumer::open(const KafkaClientSettings& settings,
                                                           const ConsumerConfig& config) {
  // Offsets are committed by Brook only; a partition without one starts at the beginning;
  // range assignment keeps co-partitioned partitions together.
  // Prefetch: librdkafka 2.0 stops fetching once the consumer's queue (all its partitions
  // together) holds queued.min.messages or queued.max.messages.kbytes of records, and looks
  // again only up to a second later. Its default of 100 000 records is a quarter of a second
  // of a stream thread's input, which then idled three quarters of the time; these hold about
  // a second of it and bound the payload held to 32 MiB.
  auto properties = settings.layered(
      {{"enable.auto.commit", "false"},
       {"enable.auto.offset.store", "false"},
       {"auto.offset.reset", "earliest"},
       {"partition.assignment.strategy", "range"},
       {"isolation.level", config.read_committed ? "read_committed" : "read_uncommitted"},
       {"queued.min.messages", "500000"},
       {"queued.max.messages.kbytes", "32768"}},
      settings.consumer);
  // Not to be overridden: the end of a partition is reported, which moves positions past
  // transaction markers and tells lag() a partition is caught up.
  properties["enable.partition.eof"] = "true";
  if (!config.client_id.empty()) properties["client.id"] = config.client_id;
  // librdkafka's consumer API needs a group even to read assigned partitions: one that is
  // never joined, and that commit() refuses.
  properties["group.id"] = config.group_id.empty() ? "brook-unjoined" : config.group_id;
  if (!config.group_instance_id.empty()) properties["group.instance.id"] = config.group_instance_id;

  std::unique_ptr<KafkaConsumer> consumer(new KafkaConsumer(config, settings));
  auto handle = make_handle(
      RD_KAFKA_CONSUMER, properties,
      [](rd_kafka_conf_t* conf, void*) { rd_kafka_conf_set_rebalance_cb(conf, on_rebalance); },
      consumer.get());
  if (!handle) return error(handle.error());
  consumer->handle_ = std::move(*handle);
  rd_kafka_poll_set_consumer(consumer->handle_.get());
  return consumer;
}

KafkaConsumer::~KafkaConsumer() { (void)close(); }

Status KafkaConsumer::subscribe(const std::vector<std::string>& topics,
                                RebalanceListener* listener) {
  if (config_.group_id.empty()) return Status::invalid_argument("subscribe() needs a group id");
  std::vector<TopicPartition> any_partition;
  for (const auto& topic : topics) any_partition.push_back({topic, Partition(-1)});
  PartitionList list = make_partition_list(any_partition);
  listener_ = listener;
  subscribed_ = true;
  return kafka_status(rd_kafka_subscribe(handle_.get(), list.get()), "subscribing");
}

void KafkaConsumer::on_rebalance(rd_kafka_t*, rd_kafka_resp_err_t event,
                                 rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  static_cast<KafkaConsumer*>(opaque)->rebalance(event, partitions);
}

void KafkaConsumer::rebalance(rd_kafka_resp_err_t event,
                              rd_kafka_topic_partition_list_t* partitions) {
  ++rebalances_;
  const auto changed = to_partitions(partitions);
  if (event == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    for (const auto& tp : changed) assigned_[tp] = {};
    if (auto s = kafka_status(rd_kafka_assign(handle_.get(), partitions), "assigning partitions");
        !s.ok()) {
      log(LogLevel::kError, "{}", s.to_string());
    }
    if (listener_ != nullptr) listener_->on_partitions_assigned(changed);
    return;
  }
  if (listener_ != nullptr) {
    if (rd_kafka_assignment_lost(handle_.get())) {
      listener_->on_partitions_lost(changed);
    } else {
      listener_->on_partitions_revoked(changed);
    }
  }
  for (const auto& tp : changed) {
    assigned_.erase(tp);
    paused_.erase(tp);
  }
  (void)rd_kafka_assign(handle_.get(), nullptr);
}

Status KafkaConsumer::assign(const std::vector<TopicPartition>& partitions) {
  if (subscribed_) return Status::failed_precondition("assign() on a subscribed consumer");
  assigned_.clear();
  for (const auto& tp : partitions) assigned_[tp] = {};
  std::erase_if(paused_, [&](const TopicPartition& tp) { return !assigned_.contains(tp); });
  assignment_changed_ = true;
  return {};
}

std::vector<TopicPartition> KafkaConsumer::assignment() const {
  std::vector<TopicPartition> out;
  for (const auto& [tp, reading] : assigned_) out.push_back(tp);
  return out;
}

Status KafkaConsumer::seek(const TopicPartition& partition, Offset offset) {
  if (subscribed_ || !assigned_.contains(partition)) {
    return Status::failed_precondition("seek() on a partition not given to assign(): " +
                                       partition.to_string());
  }
  assigned_[partition] = {.position = offset};
  assignment_changed_ = true;
  return {};
}

Status KafkaConsumer::apply_assignment() {
  if (!assignment_changed_) return {};
  assignment_changed_ = false;
  // Without a position: the committed offset, else the earliest. A consumer outside any group
  // has no committed offsets, so it starts at the earliest without asking a coordinator:
  // librdkafka does not retry a committed-offset fetch that a coordinator refused as a whole
  // (NOT_COORDINATOR, as while a fresh broker loads its groups), and leaves the partition
  // unread (its issue #5586).
  const std::int64_t unset =
      config_.group_id.empty() ? RD_KAFKA_OFFSET_BEGINNING : RD_KAFKA_OFFSET_INVALID;
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(assigned_.size())));
  for (const auto& [tp, reading] : assigned_) {
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition.value())->offset =
        reading.position ? reading.position->value() : unset;
  }
  if (auto s = kafka_status(rd_kafka_assign(handle_.get(), list.get()), "assigning partitions");
      !s.ok() || paused_.empty()) {
    return s;
  }
  PartitionList paused = make_partition_list({paused_.begin(), paused_.end()});
  return kafka_status(rd_kafka_pause_partitions(handle_.get(), paused.get()), "pausing partitions");
}

Status KafkaConsumer::take(KafkaMessage message, Batch& batch) {
  auto partition = [&] {
    return TopicPartition{message->rkt ? rd_kafka_topic_name(message->rkt) : "",
                          Partition(message->partition)};
  };
  if (message->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
    if (TopicPartition tp = partition(); assigned_.contains(tp)) {
      batch.positions[std::move(tp)] = {Offset(message->offset), true};
    }
    return {};
  }
  if (message->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    const TopicPartition tp = partition();
    const Status status = kafka_status(
        message->err, fmt::format("reading {}: {}", tp.topic.empty() ? "Kafka" : tp.to_string(),
                                  rd_kafka_message_errstr(message.get())));
    // librdkafka retries connection problems itself; these only need saying.
    if (status.code() == StatusCode::kIoError && !rd_kafka_fatal_error(handle_.get(), nullptr, 0)) {
      log(LogLevel::kWarn, "{}", status.to_string());
      return {};
    }
    return status;
  }
  if (message->rkt != batch.run_topic || message->partition != batch.run_partition) {
    batch.run_topic = message->rkt;
    batch.run_partition = message->partition;
    TopicPartition tp = partition();
    batch.run_assigned = assigned_.contains(tp);  // else revoked meanwhile
    if (batch.run_assigned) {
      batch.runs.push_back({.partition = tp, .records = {}, .bytes = batch.bytes});
      batch.run_position = batch.positions.try_emplace(std::move(tp)).first;
    }
  }
  if (!batch.run_assigned) return {};
  batch.run_position->second = {Offset(message->offset + 1), false};
  rd_kafka_timestamp_type_t type{};
  batch.runs.back().records.push_back(
      {.offset = Offset(message->offset),
       .timestamp = Timestamp(rd_kafka_message_timestamp(message.get(), &type)),
       .key = copy(message->key, message->key_len, *batch.bytes),
       .value = copy(message->payload, message->len, *batch.bytes),
       .headers = to_headers(message.get())});
  ++batch.records;
  return {};
}

Result<std::vector<ConsumerRecord>> KafkaConsumer::poll(std::chrono::milliseconds timeout) {
  auto batches = poll_batches(timeout);
  if (!batches) return error(std::move(batches.error()));
  return to_consumer_records(std::move(*batches));
}

Result<std::vector<RecordBatch>> KafkaConsumer::poll_batches(std::chrono::milliseconds timeout) {
  if (auto s = apply_assignment(); !s.ok()) return error(s);
  Batch batch;
  const std::uint64_t rebalances = rebalances_;
  auto wait = static_cast<int>(timeout.count());
  while (batch.records < config_.max_poll_records) {
    KafkaMessage message(rd_kafka_consumer_poll(handle_.get(), wait));
    if (rebalances_ != rebalances) {
      // Records read before the assignment changed belong to the old one, even for a
      // partition assigned again: its new owner reads from the committed offset (a task
      // would otherwise get them twice).
      batch = {};
      if (message) {
        if (auto s = take(std::move(message), batch); !s.ok()) return error(s);
      }
      break;
    }
    if (!message) break;
    if (auto s = take(std::move(message), batch); !s.ok()) return error(s);
    wait = 0;  // then only what has already arrived
  }
  for (auto& [tp, reading] : batch.positions) {
    if (auto it = assigned_.find(tp); it != assigned_.end()) it->second = reading;
  }
  return std::move(batch.runs);
}

Status KafkaConsumer::pause(const std::vector<TopicPartition>& partitions) {
  return set_paused(partitions, true);
}

Status KafkaConsumer::resume(const std::vector<TopicPartition>& partitions) {
  return set_paused(partitions, false);
}

Status KafkaConsumer::set_paused(const std::vector<TopicPartition>& partitions, bool paused) {
  for (const auto& tp : partitions) {
    if (!assigned_.contains(tp)) {
      return Status::failed_precondition("pause/resume of unassigned partition " + tp.to_string());
    }
  }
  // A partition assign() gave and no poll() has handed to librdkafka yet is not librdkafka's.
  if (auto s = apply_assignment(); !s.ok()) return s;
  for (const auto& tp : partitions) {
    if (paused) {
      paused_.insert(tp);
    } else {
      paused_.erase(tp);
    }
  }
  PartitionList list = make_partition_list(partitions);
  return paused ? kafka_status(rd_kafka_pause_partitions(handle_.get(), list.get()),
                               "pausing partitions")
                : kafka_status(rd_kafka_resume_partitions(handle_.get(), list.get()),
                               "resuming partitions");
}

Result<Offset> KafkaConsumer::position(const TopicPartition& partition) const {
  auto it = assigned_.find(partition);
  if (it == assigned_.end()) {
    return error(
        Status::failed_precondition("position() of unassigned partition " + partition.to_string()));
  }
  if (!it->second.position) {
    return error(Status::failed_precondition("no position yet for " + partition.to_string()));
  }
  return *it->second.position;
}

std::optional<std::int64_t> KafkaConsumer::lag(const TopicPartition& partition) const {
  auto it = assigned_.find(partition);
  if (it == assigned_.end() || !it->second.position) return std::nullopt;
  if (it->second.at_end) return 0;
  // The high watermark of the last fetch: under read_committed it may count records of open
  // transactions, so the lag is exact only once the end is reported again.
  std::int64_t low = 0;
  std::int64_t high = 0;
  if (rd_kafka_get_watermark_offsets(handle_.get(), partition.topic.c_str(),
                                     partition.partition.value(), &low,
                                     &high) != RD_KAFKA_RESP_ERR_NO_ERROR ||
      high == RD_KAFKA_OFFSET_INVALID) {
    return std::nullopt;
  }
  return std::max<std::int64_t>(0, high - it->second.position->value());
}

Status KafkaConsumer::commit_with_metadata(
    const std::map<TopicPartition, OffsetAndMetadata>& offsets) {
  if (config_.group_id.empty()) return Status::invalid_argument("commit() needs a group id");
  if (offsets.empty()) return {};
  if (auto s = check_commit_metadata(offsets); !s.ok()) return s;
  PartitionList list = make_commit_list(offsets);
  return kafka_status(rd_kafka_commit(handle_.get(), list.get(), 0), "committing offsets");
}

Result<std::map<TopicPartition, OffsetAndMetadata>> KafkaConsumer::committed_with_metadata(
    const std::vector<TopicPartition>& partitions) {
  if (partitions.empty()) return std::map<TopicPartition, OffsetAndMetadata>{};
  PartitionList list = make_partition_list(partitions);
  // A group coordinator still loading or just moved (a broker that has just started) passes.
  const auto code = retry_transient(retry_timeout_, [&] {
    return rd_kafka_committed(handle_.get(), list.get(), static_cast<int>(timeout_.count()));
  });
  if (auto s = kafka_status(code, "reading committed offsets"); !s.ok()) return error(s);
  return to_committed(list.get());
}

std::unique_ptr<GroupMetadata> KafkaConsumer::group_metadata() const {
  return std::make_unique<KafkaGroupMetadata>(rd_kafka_consumer_group_metadata(handle_.get()));
}

Status KafkaConsumer::close() {
  if (closed_ || !handle_) return {};
  closed_ = true;
  listener_ = nullptr;  // leaving the group revokes everything; Brook has closed its tasks
  assigned_.clear();
  return kafka_status(rd_kafka_consumer_close(handle_.get()), "closing the consumer");
}

}  // namespace brook::internal

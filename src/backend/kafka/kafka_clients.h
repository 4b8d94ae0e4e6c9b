// Admin, Producer and Consumer on Apache Kafka through librdkafka. Private to backend/kafka.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend/kafka/rdkafka_support.h"
#include "core/record_arena.h"

namespace brook::internal {

struct KafkaGroupMetadata final : GroupMetadata {
  explicit KafkaGroupMetadata(rd_kafka_consumer_group_metadata_t* m) : metadata(m) {}
  ~KafkaGroupMetadata() override { rd_kafka_consumer_group_metadata_destroy(metadata); }
  KafkaGroupMetadata(const KafkaGroupMetadata&) = delete;
  KafkaGroupMetadata& operator=(const KafkaGroupMetadata&) = delete;
  rd_kafka_consumer_group_metadata_t* metadata;
};

// Admin calls on a read_committed consumer handle, whose offset queries answer the last stable
// offset (as read_committed consumers see the end), and a read_uncommitted one for the high
// watermark. Thread-safe.
class KafkaAdmin final : public Admin {
 public:
  // Admin clients on the cluster of `settings`.
  static Result<std::unique_ptr<KafkaAdmin>> open(const KafkaClientSettings& settings);
  Status create_topic(const NewTopic& topic) override;
  Status delete_topic(const std::string& name) override;
  Result<std::vector<std::string>> list_topics() override;
  Result<TopicDescription> describe_topic(const std::string& name) override;
  Result<Offset> list_offset(const TopicPartition& partition, OffsetSpec spec) override;
  Status delete_records_before(const TopicPartition& partition, Offset offset) override;
  Result<GroupDescription> describe_group(const std::string& group) override;
  Result<std::vector<std::string>> list_groups() override;
  Result<std::map<TopicPartition, OffsetAndMetadata>> committed_offsets(
      const std::string& group) override;

  // The partition count of `topic`, or kNotFound (what metadata says now).
  Result<std::int32_t> partition_count(const std::string& topic);

 private:
  // Runs the admin request `send(options, queue)` issues, with the timeouts set, and waits
  // for its result event; `what` names it in errors.
  template <class Send>
  Result<KafkaEvent> run_request(std::string_view what, Send send);
  Result<std::map<std::string, std::string>> topic_configs(const std::string& name);
  // A new client whose offset queries answer what `isolation` ("read_committed" or
  // "read_uncommitted") readers see as the end.
  Result<KafkaHandle> make_client(const char* isolation) const;

  KafkaAdmin(std::map<std::string, std::string> properties, const KafkaClientSettings& settings)
      : properties_(std::move(properties)),
        timeout_(settings.timeout),
        retry_timeout_(settings.retry_timeout) {}

  // The client list_offset() asks for readers of one isolation (0: read_committed, 1:
  // read_uncommitted), and replaces one that failed by a new one that worked.
  std::shared_ptr<rd_kafka_t> offset_client(bool uncommitted) const;
  void replace_offset_client(bool uncommitted, std::shared_ptr<rd_kafka_t> client);

  std::map<std::string, std::string> properties_;  // of every client it makes
  std::shared_ptr<rd_kafka_t> handle_;             // admin requests and metadata
  mutable std::mutex offset_clients_mutex_;
  std::shared_ptr<rd_kafka_t> offset_clients_[2];  // at first handle_, and a read_uncommitted one
  std::chrono::milliseconds timeout_;
  std::chrono::milliseconds retry_timeout_;
};

class KafkaProducer final : public Producer {
 public:
  static Result<std::unique_ptr<KafkaProducer>> open(const KafkaClientSettings& settings,
                                                     const ProducerConfig& config);
  ~KafkaProducer() override;
  using Producer::send;
  Status send(const std::string& topic, const OutgoingRecord& record) override;
  Status flush() override;
  Status dispatch() override;
  Status begin_transaction() override;
  Status send_offsets_to_transaction(const std::map<TopicPartition, OffsetAndMetadata>& offsets,
                                     const GroupMetadata& group) override;
  Status commit_transaction() override;
  Status abort_transaction() override;
  // Asked of the cluster once per topic, also before the first send() to it: librdkafka would
  // hold records for an unknown topic until they time out.
  Result<std::int32_t> partitions(const std::string& topic) override;

 private:
  KafkaProducer(ProducerConfig config, const KafkaClientSettings& settings)
      : config_(std::move(config)),
        timeout_(settings.timeout),
        retry_timeout_(settings.retry_timeout) {}
  static void on_delivery(rd_kafka_t*, const rd_kafka_message_t* message, void* opaque);
  // The first delivery failure since the last call, as a Status (ok if none).
  Status take_failure();
  // Runs a step of the transaction protocol, `step(timeout_ms)` returning librdkafka's error,
  // again while it fails with a retriable error (timed out included), up to the retry timeout.
  template <class Step>
  Status transaction_step(std::string_view what, Step step);
  // A topic send() has written to: its partition count and librdkafka's handle of it.
  struct KnownTopic {
    std::int32_t partitions;
    KafkaTopic handle;
  };
  Result<KnownTopic*> known_topic(const std::string& topic);

  ProducerConfig config_;
  KafkaHandle handle_;
  std::map<std::string, KnownTopic, std::less<>> known_topics_;  // destroyed before handle_
  std::chrono::milliseconds timeout_;
  std::chrono::milliseconds retry_timeout_;
  Status failure_;         // the first record the cluster refused, until reported
  unsigned unpolled_ = 0;  // records sent since delivery reports were last served
};

class KafkaConsumer final : public Consumer {
 public:
  static Result<std::unique_ptr<KafkaConsumer>> open(const KafkaClientSettings& settings,
                                                     const ConsumerConfig& config);
  ~KafkaConsumer() override;
  Status subscribe(const std::vector<std::string>& topics, RebalanceListener* listener) override;
  Status assign(const std::vector<TopicPartition>& partitions) override;
  std::vector<TopicPartition> assignment() const override;
  Result<std::vector<ConsumerRecord>> poll(std::chrono::milliseconds timeout) override;
  Result<std::vector<RecordBatch>> poll_batches(std::chrono::milliseconds timeout) override;
  Status seek(const TopicPartition& partition, Offset offset) override;
  Status pause(const std::vector<TopicPartition>& partitions) override;
  Status resume(const std::vector<TopicPartition>& partitions) override;
  Result<Offset> position(const TopicPartition& partition) const override;
  std::optional<std::int64_t> lag(const TopicPartition& partition) const override;
  Status commit_with_metadata(const std::map<TopicPartition, OffsetAndMetadata>& offsets) override;
  Result<std::map<TopicPartition, OffsetAndMetadata>> committed_with_metadata(
      const std::vector<TopicPartition>& partitions) override;
  std::unique_ptr<GroupMetadata> group_metadata() const override;
  Status close() override;

 private:
  KafkaConsumer(ConsumerConfig config, const KafkaClientSettings& settings)
      : config_(std::move(config)),
        timeout_(settings.timeout),
        retry_timeout_(settings.retry_timeout) {}
  static void on_rebalance(rd_kafka_t*, rd_kafka_resp_err_t event,
                           rd_kafka_topic_partition_list_t* partitions, void* opaque);
  void rebalance(rd_kafka_resp_err_t event, rd_kafka_topic_partition_list_t* partitions);
  Status set_paused(const std::vector<TopicPartition>& partitions, bool paused);
  // Hands librdkafka what assign() and seek() changed since the last poll, with every known
  // position (a partition without one starts at its committed offset, else the earliest),
  // and pauses again the paused partitions (librdkafka's assignment starts them fetching).
  Status apply_assignment();
  // The records and positions one poll() has read, not yet handed out. A position moves only
  // when poll() returns its records: a rebalance callback inside the poll (whose listener
  // commits positions) must not see positions past records nobody has processed.
  // Where poll() has read a partition up to: the next offset, once known, and whether that is
  // the readable end librdkafka last reported.
  struct Reading {
    std::optional<Offset> position;
    bool at_end = false;
  };
  struct Batch {
    // The records, one RecordBatch per run of messages of one partition, viewing `bytes`.
    std::vector<RecordBatch> runs;
    std::size_t records = 0;
    std::shared_ptr<RecordArena> bytes = std::make_shared<RecordArena>(64 << 10);
    std::map<TopicPartition, Reading> positions;
    // The partition of the last message taken (messages come in runs from one partition):
    // librdkafka's topic handle, the partition, and where its position goes (null: the
    // partition is not assigned, its messages are dropped).
    const rd_kafka_topic_t* run_topic = nullptr;
    std::int32_t run_partition = -1;
    std::map<TopicPartition, Reading>::iterator run_position;
    bool run_assigned = false;
  };
  // Adds `message` to `batch`, or notes what it signals (end of partition, an error).
  Status take(KafkaMessage message, Batch& batch);

  ConsumerConfig config_;
  std::chrono::milliseconds timeout_;
  std::chrono::milliseconds retry_timeout_;
  KafkaHandle handle_;
  RebalanceListener* listener_ = nullptr;
  bool subscribed_ = false;
  bool closed_ = false;
  std::uint64_t rebalances_ = 0;  // assignment changes so far
  std::map<TopicPartition, Reading> assigned_;
  bool assignment_changed_ = false;  // by assign() or seek() since poll()
  std::set<TopicPartition> paused_;  // assigned partitions pause() stopped reading
};

}  // namespace brook::internal

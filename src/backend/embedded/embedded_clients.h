// The embedded log's shared state and its Producer, Consumer and Admin. Private to
// backend/embedded.
#pragma once

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backend/embedded/dir_lock.h"
#include "backend/embedded/embedded_log.h"
#include "backend/embedded/group_coordinator.h"
#include "backend/embedded/offset_store.h"
#include "backend/embedded/topic_store.h"
#include "backend/embedded/transaction_log.h"

namespace brook::internal {

// What producers, consumers and the admin of one data dir share.
struct EmbeddedState {
  std::filesystem::path data_dir;
  ProducerBatching batching;
  std::optional<DirLock> lock;
  std::unique_ptr<TopicStore> topics;
  std::unique_ptr<OffsetStore> offsets;
  std::unique_ptr<TransactionLog> transactions;
  std::unique_ptr<GroupCoordinator> groups;
  std::mutex transaction_mutex;  // one transaction lands at a time
  std::mutex epochs_mutex;
  std::map<std::string, std::uint64_t> epochs;  // transactional id -> newest producer's epoch

  // Writes `entry` to the transaction log, appends its records with the base offsets it
  // records, commits its offsets, and clears the log. Fills in the base offsets. A failure
  // after the entry is written poisons the log (below): the entry stays for the next open.
  Status commit(TransactionEntry& entry);
  // Appends what a crash (or a failed commit) left of `entry`, commits its offsets, and clears
  // the transaction log.
  Status apply(const TransactionEntry& entry);

  // OK, or why the log takes no more writes: a commit failed after its transaction log entry
  // was written, and the entry can be completed exactly only if nothing else is written to
  // its partitions or offsets before the next open. Writers call it holding the lock that
  // serialises them with commit(): a partition's write_mutex, or transaction_mutex.
  Status check_writable() const;

 private:
  // Appends the records `entry` lacks in `slots` (its partitions, in its order; locked by the
  // caller or not yet shared), flushes them, commits the offsets and clears the log.
  Status finish(const TransactionEntry& entry,
                const std::vector<std::shared_ptr<PartitionSlot>>& slots);
  void poison(const TransactionEntry& entry, const Status& cause);

  mutable std::mutex poison_mutex_;
  Status poisoned_;
};

struct EmbeddedGroupMetadata final : GroupMetadata {
  explicit EmbeddedGroupMetadata(std::string id) : group_id(std::move(id)) {}
  std::string group_id;
};

class EmbeddedAdmin final : public Admin {
 public:
  explicit EmbeddedAdmin(EmbeddedState& state) : state_(state) {}
  Status create_topic(const NewTopic& topic) override { return state_.topics->create(topic); }
  Status delete_topic(const std::string& name) override;
  Result<std::vector<std::string>> list_topics() override { return state_.topics->names(); }
  Result<TopicDescription> describe_topic(const std::string& name) override;
  Result<Offset> list_offset(const TopicPartition& partition, OffsetSpec spec) override;
  Status delete_records_before(const TopicPartition& partition, Offset offset) override;
  Result<GroupDescription> describe_group(const std::string& group) override {
    return state_.groups->describe(group);
  }
  Result<std::vector<std::string>> list_groups() override;
  Result<std::map<TopicPartition, OffsetAndMetadata>> committed_offsets(
      const std::string& group) override {
    return state_.offsets->offsets(group);
  }

 private:
  EmbeddedState& state_;
};

class EmbeddedProducer final : public Producer {
 public:
  EmbeddedProducer(EmbeddedState& state, ProducerConfig config, std::uint64_t epoch)
      : state_(state), config_(std::move(config)), epoch_(epoch) {}
  ~EmbeddedProducer() override;
  using Producer::send;
  Status send(const std::string& topic, const OutgoingRecord& record) override;
  Result<std::int32_t> partitions(const std::string& topic) override;
  Status flush() override;
  Status dispatch() override;
  Status begin_transaction() override;
  Status send_offsets_to_transaction(const std::map<TopicPartition, OffsetAndMetadata>& offsets,
                                     const GroupMetadata& group) override;
  Status commit_transaction() override;
  Status abort_transaction() override;

 private:
  // A topic this producer writes to: its partition count, and its batches in pending_ by
  // partition (null until used), so a send costs no map lookup in the common case.
  struct TopicBuffer {
    std::int32_t partitions = 0;
    std::vector<TransactionEntry::Batch*> batches;
  };
  using TopicBuffers = std::map<std::string, TopicBuffer, std::less<>>;

  bool transactional() const { return !config_.transactional_id.empty(); }
  Status check_transaction(std::string_view call) const;
  Result<TopicBuffers::iterator> buffer_of(const std::string& topic);
  // Appends `records` to partition `tp` and flushes it (fsyncs it with the log's fsync).
  Status append(const TopicPartition& tp, const PendingRecords& records);
  // Appends the buffered records of `partition` of `topic` alone (send(), at batch.size).
  Status append_batch(TopicBuffers::iterator topic, Partition partition);
  void clear_pending();

  EmbeddedState& state_;
  ProducerConfig config_;
  std::uint64_t epoch_;
  TopicBuffers topics_;
  TopicBuffers::iterator last_topic_ = topics_.end();  // where the previous send went
  std::uint32_t round_robin_ = 0;
  TransactionEntry pending_;  // buffered records (and, in a transaction, offsets)
  // When the oldest record buffered outside a transaction was sent (for linger.ms).
  std::optional<std::chrono::steady_clock::time_point> oldest_;
  bool in_transaction_ = false;
};

class EmbeddedConsumer final : public Consumer {
 public:
  EmbeddedConsumer(EmbeddedState& state, ConsumerConfig config)
      : state_(state), config_(std::move(config)) {}
  ~EmbeddedConsumer() override;
  Status subscribe(const std::vector<std::string>& topics, RebalanceListener* listener) override;
  std::unique_ptr<GroupMetadata> group_metadata() const override {
    return std::make_unique<EmbeddedGroupMetadata>(config_.group_id);
  }
  Status assign(const std::vector<TopicPartition>& partitions) override;
  std::vector<TopicPartition> assignment() const override;
  Result<std::vector<ConsumerRecord>> poll(std::chrono::milliseconds timeout) override;
  Result<std::vector<RecordBatch>> poll_batches(std::chrono::milliseconds timeout) override;
  Status seek(const TopicPartition& partition, Offset offset) override;
  Status pause(const std::vector<TopicPartition>& partitions) override {
    return set_paused(partitions, true);
  }
  Status resume(const std::vector<TopicPartition>& partitions) override {
    return set_paused(partitions, false);
  }
  Result<Offset> position(const TopicPartition& partition) const override;
  std::optional<std::int64_t> lag(const TopicPartition& partition) const override;
  Status commit_with_metadata(const std::map<TopicPartition, OffsetAndMetadata>& offsets) override;
  Result<std::map<TopicPartition, OffsetAndMetadata>> committed_with_metadata(
      const std::vector<TopicPartition>& partitions) override;
  Status close() override;

 private:
  struct Assigned {
    std::shared_ptr<PartitionSlot> slot;
    Offset position;
    bool paused = false;
  };
  Status set_paused(const std::vector<TopicPartition>& partitions, bool paused);
  Status add(const TopicPartition& tp);
  Status sync_group(std::chrono::milliseconds timeout);
  // The next records of the unpaused assigned partitions, taking turns. A failed read is
  // returned naming the partition and offset; that partition's position stays.
  Result<std::vector<RecordBatch>> fetch();

  EmbeddedState& state_;
  ConsumerConfig config_;
  std::map<TopicPartition, Assigned> assigned_;
  RebalanceListener* listener_ = nullptr;
  std::optional<std::uint64_t> member_;
  std::uint64_t synced_generation_ = 0;
  std::size_t next_partition_ = 0;  // fairness: where the next fetch starts
};

}  // namespace brook::internal

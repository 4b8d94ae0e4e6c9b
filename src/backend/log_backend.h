// LogBackend: what Brook needs from a partitioned log (DESIGN.md, backend layer). The
// embedded log (backend/embedded) and Kafka through librdkafka implement it; the runtime and
// the CLI use nothing else. Shaped after the Kafka clients so librdkafka fits it directly.
#pragma once

#include <chrono>
#include <compare>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/record_batch.h"        // IWYU pragma: export
#include "brook/internal/partitioner.h"  // IWYU pragma: export
#include "brook/record.h"
#include "brook/status.h"

namespace brook::internal {

// Topic-level configs use Kafka's names: cleanup.policy (delete | compact | compact,delete),
// retention.ms, retention.bytes, delete.retention.ms, segment.bytes, segment.ms,
// min.cleanable.dirty.ratio.
struct NewTopic {
  std::string name;
  std::int32_t partitions = 1;
  std::map<std::string, std::string> configs;
};

struct TopicDescription {
  std::string name;
  std::int32_t partitions = 0;
  std::map<std::string, std::string> configs;
};

// Which offset list_offset() returns: the first stored; the end read_committed readers reach
// (the last stable offset: before the first record of a transaction still open); the next
// offset to be written (the high watermark, past the records of open transactions); or the
// first whose timestamp is >= a time.
struct OffsetSpec {
  enum class Kind { kEarliest, kLatest, kHighWatermark, kTimestamp } kind = Kind::kLatest;
  Timestamp timestamp{0};
};

// An offset committed for a consumer group, with the string committed beside it (Kafka's
// OffsetAndMetadata): `offset` is the next offset to read; `metadata` is the committer's own
// text (UTF-8; at most 4096 bytes on a Kafka broker by default), returned as given. Streams
// keeps each input partition's partition time in it (stream_task.h).
struct OffsetAndMetadata {
  Offset offset;
  std::string metadata;
  friend bool operator==(const OffsetAndMetadata&, const OffsetAndMetadata&) = default;
};

// kInvalidArgument naming the partition if the metadata of one of `offsets` is not UTF-8 (a
// Kafka broker keeps it as text: bytes that are not would come back changed). Every backend
// refuses such a commit before it changes anything.
Status check_commit_metadata(const std::map<TopicPartition, OffsetAndMetadata>& offsets);

// One member of a consumer group as its coordinator knows it.
struct GroupMember {
  std::string member_id;  // given by the coordinator when the member joins
  std::string client_id;
  std::string group_instance_id;  // static membership; empty for a dynamic member
  std::string host;               // where it connects from; empty on the embedded log
  std::vector<TopicPartition> assignment;
};

struct GroupDescription {
  // A rebalance is under way: assignments are about to change.
  bool rebalancing = false;
  std::vector<GroupMember> members;
};

class Admin {
 public:
  virtual ~Admin() = default;
  // kAlreadyExists if the topic exists; kInvalidArgument for a bad name, count or config.
  // Either way, describe_topic() finds the topic afterwards.
  virtual Status create_topic(const NewTopic& topic) = 0;
  virtual Status delete_topic(const std::string& name) = 0;
  virtual Result<std::vector<std::string>> list_topics() = 0;
  // kNotFound naming the topic if it does not exist. A topic counts as unknown to the Kafka
  // backend only once its brokers have not known it for a few seconds (kTopicPropagation):
  // they learn of a new topic one after another, so one created moments before is found.
  virtual Result<TopicDescription> describe_topic(const std::string& name) = 0;
  virtual Result<Offset> list_offset(const TopicPartition& partition, OffsetSpec spec) = 0;
  virtual Status delete_records_before(const TopicPartition& partition, Offset offset) = 0;
  // The active members of consumer group `group` with their current assignments; no members
  // if it has none or does not exist.
  virtual Result<GroupDescription> describe_group(const std::string& group) = 0;
  // The consumer groups that have committed offsets or active members, sorted.
  virtual Result<std::vector<std::string>> list_groups() = 0;
  // The offsets `group` has committed, by partition; empty if none or no such group.
  virtual Result<std::map<TopicPartition, OffsetAndMetadata>> committed_offsets(
      const std::string& group) = 0;
};

struct ProducerConfig {
  std::string client_id;
  // Non-empty: a transactional producer. Records sent between begin_transaction() and
  // commit_transaction() become visible to read_committed consumers together, with the
  // offsets sent to the transaction; abort (or a crash) discards them.
  std::string transactional_id;
  // How long a transaction may stay open before the log aborts it (Kafka's
  // transaction.timeout.ms; its broker refuses more than transaction.max.timeout.ms, 15 min by
  // default). Zero: the backend's default, 10 s on Kafka. The embedded log has no timeout: a
  // crashed producer's open transaction is gone with its process.
  std::chrono::milliseconds transaction_timeout{0};
  // Called with each record the log refuses (unknown topic or partition, too large, a write
  // that failed for good): ok drops the record and goes on; an error is returned by the
  // producer's current or next call. Unset: every refusal is an error.
  std::function<Status(const Status& refusal)> on_refused;
};

// What a producer of `config` makes of a refused record: its handler's answer, else the error.
inline Status refuse(const ProducerConfig& config, Status refusal) {
  return config.on_refused ? config.on_refused(refusal) : refusal;
}

// The consumer-group state that offsets sent to a transaction are committed under: a member
// that was fenced out of the group (an older generation) cannot commit them. Each backend
// accepts only its own.
class GroupMetadata {
 public:
  virtual ~GroupMetadata() = default;
};

class Producer {
 public:
  virtual ~Producer() = default;
  // Queues a record for `topic`, copying its bytes. Without a partition, non-null keys go to
  // murmur2(key) % partitions (as the Java client) and null keys to a partition chosen
  // round-robin. kNotFound for an unknown topic (as describe_topic() tells it). Errors of the
  // write itself may surface here or from flush().
  virtual Status send(const std::string& topic, const OutgoingRecord& record) = 0;
  Status send(const ProducerRecord& record) { return send(record.topic, outgoing(record)); }
  // The number of partitions of `topic` (cached after the first call), for callers that choose
  // a record's partition themselves; kNotFound for an unknown topic.
  virtual Result<std::int32_t> partitions(const std::string& topic) = 0;
  // Returns once every record sent so far is acknowledged (durable by the backend's rules).
  virtual Status flush() = 0;
  // Gets the records sent so far on their way without waiting for acknowledgements (the
  // embedded log writes them; a Kafka producer sends within its linger time anyway) and
  // returns the failures known so far. Outside transactions: at-least-once output appears
  // promptly without a round trip per batch.
  virtual Status dispatch() = 0;

  virtual Status begin_transaction() = 0;
  // Commits `offsets` (the next offset to read per partition, with its metadata) for the
  // group with the transaction. kTaskMigrated if the member was fenced out of the group or the
  // producer by a newer one with its transactional id: the transaction must be aborted.
  virtual Status send_offsets_to_transaction(
      const std::map<TopicPartition, OffsetAndMetadata>& offsets, const GroupMetadata& group) = 0;
  virtual Status commit_transaction() = 0;
  virtual Status abort_transaction() = 0;
};

// Called from inside Consumer::poll() on the polling thread when the group's assignment
// changes: revoked first (commit what was processed), then assigned.
class RebalanceListener {
 public:
  virtual ~RebalanceListener() = default;
  virtual void on_partitions_revoked(const std::vector<TopicPartition>& partitions) = 0;
  virtual void on_partitions_assigned(const std::vector<TopicPartition>& partitions) = 0;
  // The member lost `partitions` without a chance to commit (it missed the group's session
  // timeout): what was processed since the last commit must be dropped, not committed.
  virtual void on_partitions_lost(const std::vector<TopicPartition>& partitions) = 0;
};

struct ConsumerConfig {
  std::string group_id;   // required for subscribe() and commit()
  std::string client_id;  // orders members in assignments
  // Non-empty: static membership (Kafka's group.instance.id): a restart within the session
  // timeout gets the same partitions back without a rebalance. Unique per consumer.
  std::string group_instance_id;
  bool read_committed = true;
  std::size_t max_poll_records = 1000;
};

// Not thread-safe: one thread polls a consumer.
class Consumer {
 public:
  virtual ~Consumer() = default;
  // Joins the group and subscribes to `topics`. Partitions with the same number of topics
  // that have equal partition counts go to the same member (range assignment).
  virtual Status subscribe(const std::vector<std::string>& topics, RebalanceListener* listener) = 0;
  // Reads exactly these partitions, outside any group (restoration, the CLI).
  virtual Status assign(const std::vector<TopicPartition>& partitions) = 0;
  virtual std::vector<TopicPartition> assignment() const = 0;
  // Records of the assigned partitions from each one's position, waiting up to `timeout` for
  // some. Each partition starts at its committed offset, else the earliest.
  virtual Result<std::vector<ConsumerRecord>> poll(std::chrono::milliseconds timeout) = 0;
  // poll() as batches, one per partition read (or run of records of one partition), whose
  // records view the bytes they were read into: one copy of the keys and values per batch
  // instead of two strings per record. poll() is these batches, copied into records.
  virtual Result<std::vector<RecordBatch>> poll_batches(std::chrono::milliseconds timeout) = 0;
  // Only for partitions given to assign().
  virtual Status seek(const TopicPartition& partition, Offset offset) = 0;
  // poll() stops reading `partitions` until resume(); positions are kept. A task restoring
  // its stores waits without its input piling up in memory. A new assignment of a partition
  // starts unpaused. kFailedPrecondition, changing nothing, if one is not assigned.
  virtual Status pause(const std::vector<TopicPartition>& partitions) = 0;
  virtual Status resume(const std::vector<TopicPartition>& partitions) = 0;
  // The next offset poll() reads from the partition: one past the last record returned, and
  // past transaction markers, aborted records and compaction gaps once poll() has reached the
  // readable end (the last stable offset). kFailedPrecondition while not known yet.
  virtual Result<Offset> position(const TopicPartition& partition) const = 0;
  // How many records the log holds for the assigned partition after its position, as far as
  // the consumer knows without asking the log again; 0 once poll() has reached the readable
  // end. nullopt while not known (nothing read yet). For a task waiting for its inputs.
  virtual std::optional<std::int64_t> lag(const TopicPartition& partition) const = 0;
  // Commits the next offsets to read, each with its metadata, synchronously. kTaskMigrated if
  // the member is no longer in the group's current generation (its partitions moved);
  // kInvalidArgument for metadata the log cannot keep (not UTF-8; too long for the broker).
  virtual Status commit_with_metadata(
      const std::map<TopicPartition, OffsetAndMetadata>& offsets) = 0;
  // commit_with_metadata() with empty metadata.
  Status commit(const std::map<TopicPartition, Offset>& offsets);
  // The committed offsets, with their metadata, of those of `partitions` the group has
  // committed (asked in one request).
  virtual Result<std::map<TopicPartition, OffsetAndMetadata>> committed_with_metadata(
      const std::vector<TopicPartition>& partitions) = 0;
  // The committed offset of `partition`; nullopt if the group has none.
  Result<std::optional<Offset>> committed(const TopicPartition& partition);
  // This member's current group state, for Producer::send_offsets_to_transaction().
  virtual std::unique_ptr<GroupMetadata> group_metadata() const = 0;
  // Leaves the group (its partitions go to the other members) without calling the listener.
  virtual Status close() = 0;
};

class LogBackend {
 public:
  virtual ~LogBackend() = default;
  virtual Admin& admin() = 0;
  virtual Result<std::unique_ptr<Producer>> make_producer(const ProducerConfig& config) = 0;
  virtual Result<std::unique_ptr<Consumer>> make_consumer(const ConsumerConfig& config) = 0;
};

}  // namespace brook::internal

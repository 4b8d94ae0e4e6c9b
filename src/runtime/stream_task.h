// StreamTask: runs one task (sub-topology x partition) of a topology. It buffers records per
// input partition, always processes next the head record with the smallest (log) timestamp,
// tracks partition and stream time from the timestamps its sources extract (and, if
// configured, from the wall clock while idle), fires punctuations and applies the error
// handlers. Single-threaded:
// every call comes from the thread that owns the task. The test driver and the real runtime
// run the very same class.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "brook/error_handling.h"
#include "brook/internal/topology_data.h"
#include "brook/metrics.h"
#include "runtime/read_ahead.h"
#include "runtime/record_boundary.h"
#include "runtime/task_stores.h"

namespace brook::internal {

// Where a task's output records go (sinks and the dead-letter topic).
class RecordCollector {
 public:
  virtual ~RecordCollector() = default;
  // Copies the record's bytes before it returns.
  virtual void send(const std::string& topic, const OutgoingRecord& record) = 0;
  // The partition count of `topic`, for sinks that choose partitions themselves.
  virtual Result<std::int32_t> partitions(const std::string& topic) = 0;
};

// How a task with several input partitions waits for one that has nothing buffered, so that
// it processes its inputs in timestamp order across partitions (Kafka's max.task.idle.ms):
// while the log holds more records for that partition (or may: its lag is not known yet), then
// up to max_idle longer for new ones; after that it processes the others without it.
struct InputWait {
  std::chrono::milliseconds max_idle{0};
  std::vector<TopicPartition> partitions;  // the task's input partitions
  // Records the log holds for a partition after what was handed to the task; nullopt: unknown.
  std::function<std::optional<std::int64_t>(const TopicPartition&)> lag;
};

struct TaskConfig {
  std::string application_id;
  ErrorHandling errors;
  std::function<Timestamp()> clock;  // the system clock as the task sees it
  StateConfig state;
  // Set: once the task has had no record to process for this long by `clock`, its stream
  // time moves with `clock` (see punctuate_wall_clock()). Unset: stream time moves only with
  // records.
  std::optional<std::chrono::milliseconds> idle_advance;
  // Set: the task waits for its inputs (max.task.idle.ms >= 0); unset: it processes whatever
  // is buffered at once.
  std::optional<InputWait> input_wait;
};

// The commit metadata that keeps an input partition's partition time with its committed
// offset, in the format of Kafka Streams' TopicPartitionMetadata: base64 of a version byte
// (2) and the partition time as a big-endian i64 (-1 while unknown), so each reads what the
// other committed.
std::string encode_partition_time(Timestamp partition_time);
// The partition time in such metadata (versions 1 and 2; version 2's processor metadata is
// ignored); nullopt for empty metadata or an unknown time; kInvalidArgument, saying why, for
// metadata in another format.
Result<std::optional<Timestamp>> decode_partition_time(std::string_view metadata);

// A task's life, as Kafka Streams' Task.State: init() takes a CREATED task to RESTORING (its
// stores open and its nodes initialised; stores with a changelog may still be restoring);
// restored() takes it to RUNNING once they are; close() takes any state to CLOSED. The legal
// transitions are the table in stream_task.cc; another is a bug, thrown as std::logic_error.
enum class TaskState { kCreated, kRestoring, kRunning, kClosed };
const char* to_string(TaskState state);
bool is_legal_transition(TaskState from, TaskState to);

class StreamTask final : public TaskContext {
 public:
  StreamTask(TaskId id, std::shared_ptr<const TopologyData> topology, TaskConfig config,
             RecordCollector& collector, Metrics& metrics);
  ~StreamTask() override;

  // Opens the stores, then creates and initialises the nodes: CREATED -> RESTORING. Must
  // succeed before anything else is called. Stores with a changelog still have to be restored
  // (see stores()); restored() says they are.
  Status init();
  // RESTORING -> RUNNING: its stores are restored (or had nothing to restore).
  void restored();
  TaskState state() const { return state_; }
  // Buffers records of one of this task's source partitions. Their bytes stay in the batch
  // until its last record is processed; the source node deserialises from them.
  void add_batch(RecordBatch batch);
  std::size_t buffered() const { return buffered_; }
  // The records buffered per input partition, as (topic, partition) -> count.
  std::map<TopicPartition, std::size_t> buffered_per_input() const;
  // Processes the buffered record with the smallest timestamp, then due stream-time
  // punctuations. False if nothing was buffered or the task waits for an input (see
  // InputWait); an error if a handler said kFail.
  Result<bool> process_one();
  // Fires the wall-clock punctuations that are due at clock(). With idle_advance set, first
  // advances stream time if the task has had nothing to process for at least idle_advance:
  // by the clock time elapsed since its last record (or since the previous advance), never
  // backwards, only once a first record set stream time; due stream-time punctuations fire.
  // Returns how many punctuators it called.
  Result<int> punctuate_wall_clock();
  // The next offset to consume, per input (topic, partition), after the records processed.
  std::map<TopicPartition, Offset> consumed() const;
  // What to commit with the next offset of input `partition`: its partition time, as
  // encode_partition_time() writes it.
  std::string commit_metadata(const TopicPartition& partition) const;
  // After init(), before the first record: restores the partition time of input `partition`
  // from the metadata committed with its offset, and stream time to the largest partition time
  // (as Kafka Streams does), so that lateness after a restart is judged as before it. Metadata
  // in another format is logged and ignored.
  void restore_partition_time(const TopicPartition& partition, std::string_view metadata);
  // Flushes the record caches: their updates run through the downstream nodes. Before the
  // output is committed.
  Status flush_state();
  // Commits the stores after the output and changelog writes committed.
  Status commit_state(const std::function<Result<Offset>(const TopicPartition&)>& changelog_end);
  const TaskStores& stores() const { return stores_; }
  // Closes every node, then the stores (writes since commit_state() are lost): -> CLOSED.
  // Idempotent.
  void close();

  // TaskContext
  std::optional<RecordMetadata> record_metadata() const override {
    const SourceRecord* current = boundary_.current();  // built only if a processor asks
    if (current == nullptr) return std::nullopt;
    return RecordMetadata{std::string(current->topic), current->partition, current->offset};
  }
  Timestamp stream_time() const override { return stream_time_; }
  Timestamp partition_time() const override {
    return current_input_ == nullptr ? Timestamp::min() : current_input_->partition_time;
  }
  std::optional<Timestamp> accept_timestamp(Timestamp timestamp,
                                            InvalidTimestamp on_invalid) override;
  Timestamp system_time() const override { return config_.clock(); }
  TaskId task_id() const override { return id_; }
  std::string_view application_id() const override { return config_.application_id; }
  Cancellable schedule(std::string_view node, std::chrono::milliseconds interval,
                       PunctuationType type, Punctuator punctuator) override;
  void drop_record(std::string_view node, std::string_view reason) override;
  void send(const std::string& topic, const OutgoingRecord& record) override {
    collector_.send(topic, record);
  }
  Result<std::int32_t> partitions(const std::string& topic) override {
    return collector_.partitions(topic);
  }
  StoreAccess state_store(std::string_view node, std::string_view store) override;

 private:
  struct Schedule {
    std::string node;
    std::chrono::milliseconds interval;
    PunctuationType type;
    Punctuator punctuator;
    Timestamp next;
    std::shared_ptr<bool> cancelled;
  };

  // Calls the punctuators of `type` due at `now`; returns how many.
  Result<int> punctuate(PunctuationType type, Timestamp now);

  TaskId id_;
  std::shared_ptr<const TopologyData> topology_;
  TaskConfig config_;
  RecordCollector& collector_;
  RecordBoundary boundary_;
  TaskStores stores_;
  TaskGraph graph_;
  // One input partition of the task: its buffered records, the source node that reads it
  // (null for a topic no source reads), the next offset after the last processed record and
  // the partition time (the largest timestamp its source accepted).
  // With input_wait, `idle_deadline` is when the task stops waiting for the empty partition.
  struct Input {
    // The buffered records: those of batches.front() from `next` on, then the later batches'.
    std::deque<RecordBatch> batches;
    std::size_t next = 0;
    std::size_t buffered = 0;  // their number, kept rather than summed over the batches
    const ConsumedRecord& front() const { return batches.front().records[next]; }
    // The buffered record `n` after front(), if in the front batch or the one after it.
    const ConsumedRecord* ahead(std::size_t n) const {
      if (n >= buffered) return nullptr;
      const auto& first = batches.front().records;
      if (next + n < first.size()) return &first[next + n];
      const std::size_t rest = next + n - first.size();
      return batches.size() > 1 && rest < batches[1].records.size() ? &batches[1].records[rest]
                                                                    : nullptr;
    }
    void pop_front() {
      --buffered;
      if (++next == batches.front().records.size()) {
        batches.pop_front();
        next = 0;
      }
    }
    SourceNodeBase* source = nullptr;
    std::optional<Offset> consumed;
    Timestamp partition_time = Timestamp::min();
    std::optional<Timestamp> idle_deadline;
  };
  using Inputs = std::map<TopicPartition, Input>;
  Input& input(const TopicPartition& partition);
  // With input_wait: whether every input partition has a record buffered or has been waited
  // for long enough (see InputWait).
  bool inputs_ready();
  // Runs `record`, the next record of `in`, through the sub-topology; a non-ok Status means:
  // stop the task (a handler said kFail, or a store failed).
  Status process(Input& in, const SourceRecord& record);
  // Prefetches what the records a few after in.front() will read (ReadAhead).
  void read_ahead(const Input& in);
  ReadAhead read_ahead_;
  void transition_to(TaskState next);
  Inputs inputs_;
  std::size_t buffered_ = 0;
  std::vector<Schedule> schedules_;
  Input* current_input_ = nullptr;  // where the record being processed came from
  Timestamp current_timestamp_{0};  // its timestamp as its source accepted it
  Timestamp stream_time_ = Timestamp::min();
  // With idle_advance: the clock when the task last processed a record, and up to when the
  // clock has already advanced stream time since.
  Timestamp idle_since_ = Timestamp::min();
  Timestamp idle_advanced_to_ = Timestamp::min();
  TaskState state_ = TaskState::kCreated;

  Metrics::Counter& enforced_processing_;  // records processed while an input was empty
};

}  // namespace brook::internal

// StreamThread: one thread of a Streams application. It owns a consumer in the application's
// group and a producer, creates a StreamTask for each (sub-topology, partition) the group
// assigns it, and loops: poll, hand records to their tasks, process, punctuate, commit.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "backend/log_backend.h"
#include "runtime/global_stream_thread.h"
#include "runtime/stream_task.h"
#include "runtime/streams_config.h"
#include "runtime/task_manager.h"

namespace brook::internal {

class StreamThread final : public RebalanceListener, public RecordCollector {
 public:
  // A thread starts, joins the group (rebalancing), runs its tasks once they are assigned and
  // restored, rebalances again when the assignment changes, and stops. The legal changes are
  // the table in stream_thread.cc; another is a bug, thrown as std::logic_error.
  enum class Phase { kStarting, kRebalancing, kRunning, kStopped };
  static const char* to_string(Phase phase);
  static bool is_legal_change(Phase from, Phase to);
  // Called from the thread whenever its phase changes; with kStopped, `error` is what stopped
  // the thread (ok after request_stop()).
  using PhaseListener = std::function<void(int index, Phase phase, const Status& error)>;

  // `state`: where the tasks keep their stores (the thread adds its own record cache).
  StreamThread(int index, const StreamsConfig& config, std::shared_ptr<const TopologyData> topology,
               LogBackend& backend, Metrics& metrics, StateConfig state,
               std::shared_ptr<StateRestoreListener> restore_listener, PhaseListener on_phase);
  ~StreamThread() override;

  // Creates the clients and starts the thread.
  Status start();
  // Before start(): the thread joins the group only once `gate` opens (the global stores are
  // restored), and stops with the global thread's error if it fails.
  void set_global_gate(std::shared_ptr<const GlobalGate> gate) { global_gate_ = std::move(gate); }
  // Before start(): the instance's standby replicas, which hand over the stores of a task
  // assigned here.
  void set_standbys(StandbyTasks* standbys) { standbys_ = standbys; }
  // Asks the loop to finish: it commits, closes its tasks and leaves the group.
  void request_stop() { stop_.store(true); }
  // Waits for the thread to end; the error that stopped it, if any.
  Status join();

  // RebalanceListener, called inside poll() on this thread.
  void on_partitions_revoked(const std::vector<TopicPartition>& partitions) override;
  void on_partitions_assigned(const std::vector<TopicPartition>& partitions) override;
  void on_partitions_lost(const std::vector<TopicPartition>& partitions) override;
  // RecordCollector: sink output of this thread's tasks.
  void send(const std::string& topic, const OutgoingRecord& record) override;
  Result<std::int32_t> partitions(const std::string& topic) override {
    return producer_->partitions(topic);
  }

 private:
  void run();
  Status loop();
  // The main consumer (subscribed) and the producer, made afresh by rejoin().
  Status make_clients();
  std::string client_id() const;
  // Subscribes to the source topics (and begins a transaction under exactly once).
  Status subscribe();
  // One pass of the loop: restore, poll, process, punctuate, commit when due.
  Status step();
  // After kTaskMigrated: drops every task's uncommitted work (aborting the transaction),
  // leaves the group and joins it again, so the tasks restart from their committed state.
  Status rejoin(const Status& cause);
  // production.exception.handler=log-and-continue: logs (rate-limited) and counts a record
  // the log refused; ok, so the producer drops it.
  Status drop_refused(const Status& refusal);
  // A new task `id` reading `inputs`, for the task manager.
  std::unique_ptr<StreamTask> make_task(TaskId id, const std::vector<TopicPartition>& inputs);
  // The next offset to read per input partition of the running tasks: after the last record
  // processed, and past transaction markers once everything read has been processed.
  std::map<TopicPartition, Offset> offsets_to_commit();
  // `offsets` with each input partition's partition time as their metadata (as Kafka Streams
  // commits them; restored when a task is created).
  std::map<TopicPartition, OffsetAndMetadata> with_partition_times(
      const std::map<TopicPartition, Offset>& offsets) const;
  Status restore();
  // Processes the tasks' buffered records, round-robin, until none is left or every task with
  // records waits for an input.
  Status process_buffered();
  // Pauses the input partitions with buffered_records_per_partition records buffered (a task
  // waiting for another input, say), and resumes them once they have fewer.
  Status limit_buffers();
  // How a task with `inputs` waits for them (max.task.idle.ms); none for a single input.
  std::optional<InputWait> input_wait(const std::vector<TopicPartition>& inputs) const;
  Status commit();
  // Deletes the records of repartition topics before `offsets`, once they are committed.
  void purge_repartition_topics(const std::map<TopicPartition, Offset>& offsets);
  // Tells the listener of a change of phase; setting the current phase again changes nothing.
  void set_phase(Phase phase);
  // Closes every task, dirty, and forgets which inputs were paused as full.
  void close_tasks();

  int index_;
  const StreamsConfig& config_;
  std::shared_ptr<const TopologyData> topology_;
  LogBackend& backend_;
  Metrics& metrics_;
  Metrics::Counter& dropped_;  // records the log refused, under log-and-continue
  // Kafka Streams' thread-level sensors: each poll() (waiting included), each pass over the
  // buffered records (per record), each wall-clock punctuation, each commit.
  Sensor& poll_sensor_;
  Sensor& process_sensor_;
  Sensor& punctuate_sensor_;
  Sensor& commit_sensor_;
  StateConfig state_;
  std::shared_ptr<StateRestoreListener> restore_listener_;
  PhaseListener on_phase_;
  std::optional<Phase> phase_;                     // none before run()
  std::shared_ptr<const GlobalGate> global_gate_;  // null: no global stores
  StandbyTasks* standbys_ = nullptr;               // null: none

  std::unique_ptr<Consumer> consumer_;
  std::unique_ptr<Producer> producer_;
  std::unique_ptr<TaskManager> tasks_;          // made by start()
  std::set<TopicPartition> full_;               // inputs paused by limit_buffers()
  std::map<TopicPartition, Offset> committed_;  // the last offsets committed
  std::chrono::steady_clock::time_point last_commit_;
  Status fatal_;  // set by callbacks; stops the loop
  std::atomic<bool> stop_ = false;
  std::thread thread_;
  Status result_;
};

}  // namespace brook::internal

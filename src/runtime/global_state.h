// The global stores of an application instance and what keeps them up to date (Kafka Streams'
// GlobalStateManager and GlobalStateUpdateTask). One store per global table, in
// <state dir>/global/<store>, fed with the records of every partition of its topic by the
// nodes of its global sub-topology, read by every task (LocalStore locks each call). Used by the
// global thread and by the test driver.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "brook/error_handling.h"
#include "brook/internal/topology_data.h"
#include "brook/metrics.h"
#include "runtime/record_boundary.h"
#include "runtime/stream_task.h"
#include "runtime/task_stores.h"

namespace brook::internal {

using GlobalStores = std::map<std::string, std::shared_ptr<LocalStore>, std::less<>>;

// The task id global stores report as theirs (restore listener, errors): global sub-topology
// `id`, partition `partition` of its topic.
inline TaskId global_task_id(int id, std::int32_t partition = 0) { return {id, partition}; }

// Opens every global store of `topology` under `state.dir`/global and registers it for queries
// (partition 0: every key is local). An error names the store.
Result<GlobalStores> open_global_stores(const TopologyData& topology, const StateConfig& state);
// Unregisters and closes `stores` (writes since their last commit are lost).
void close_global_stores(GlobalStores& stores, StoreRegistry* registry);

// Runs the global sub-topologies: each record of a global topic goes through its source (the
// deserialisation handler and Consumed's timestamp settings apply) into its store. Not
// thread-safe: one thread (the global thread, or the test driver) drives it.
class GlobalStateUpdater final : public TaskContext {
 public:
  struct Config {
    std::string application_id;
    ErrorHandling errors;
    std::function<Timestamp()> clock;
    RecordCollector* dead_letters = nullptr;  // with ErrorAction::kDeadLetter; null: log only
  };

  GlobalStateUpdater(std::shared_ptr<const TopologyData> topology, GlobalStores stores,
                     Config config, Metrics& metrics);
  ~GlobalStateUpdater() override;

  // Creates and initialises the nodes.
  Status init();
  // The global topics (one per global sub-topology).
  std::vector<std::string> topics() const;
  // The stores fed by `topic`.
  std::vector<LocalStore*> stores_of(std::string_view topic) const;
  // Applies one record of a global topic. A malformed record or a failing processor go to the
  // error handlers; a non-ok Status means: stop (kFail, an invalid timestamp, a store failure).
  Status process(const ConsumerRecord& record);
  // Commits every store with the next offset of each partition of its topic (`positions`).
  Status commit(const std::map<TopicPartition, Offset>& positions);
  // Closes the nodes. Idempotent.
  void close();

  // TaskContext
  std::optional<RecordMetadata> record_metadata() const override;
  Timestamp stream_time() const override { return stream_time_; }
  Timestamp system_time() const override { return config_.clock(); }
  TaskId task_id() const override { return task_; }
  std::string_view application_id() const override { return config_.application_id; }
  Cancellable schedule(std::string_view node, std::chrono::milliseconds interval,
                       PunctuationType type, Punctuator punctuator) override;
  Timestamp partition_time() const override;
  std::optional<Timestamp> accept_timestamp(Timestamp timestamp,
                                            InvalidTimestamp on_invalid) override;
  void drop_record(std::string_view node, std::string_view reason) override;
  void send(const std::string& topic, const OutgoingRecord& record) override;
  Result<std::int32_t> partitions(const std::string& topic) override;
  StoreAccess state_store(std::string_view node, std::string_view store) override;

 private:
  std::shared_ptr<const TopologyData> topology_;
  GlobalStores stores_;
  Config config_;
  RecordBoundary boundary_;
  std::vector<TaskGraph> graphs_;  // one per global sub-topology
  std::map<std::string, std::pair<SourceNodeBase*, int>, std::less<>> source_of_topic_;
  std::map<TopicPartition, Timestamp> partition_time_;
  TaskId task_{0, 0};
  Timestamp stream_time_ = Timestamp::min();
  bool initialised_ = false;
  bool closed_ = false;
};

}  // namespace brook::internal

// StandbyTasks: the standby replicas one application instance keeps (num.standby.replicas,
// Kafka Streams' standby tasks). A thread of its own describes the application's consumer group
// every second, places the standbys (standby_placement.h) and keeps, for each task placed here,
// the task's persistent logged stores in their usual directory, current from their changelogs:
// records read (read committed) go into the stores as restoration's do, each batch with the
// changelog offset it reached. When the task becomes active on this instance, its stream thread
// claims it: the standby loads what it buffered and closes, and the task's restoration reads
// only the changelog's tail from where the standby stopped.
//
// Before the instance's stream threads join the group, the same thread warms up (Kafka
// Streams' warm-up replicas, KIP-441): if the group has members, it opens as standbys the
// stateful tasks the range assignment will give this instance once it joins, up to
// max.warmup.replicas at a time, and lets the threads join once each is within
// acceptable.recovery.lag records of its changelogs' ends. Meanwhile those tasks' owners keep
// processing them; when they move here they restore only what is left.
//
// Interactive queries that allow stale answers read the standbys' stores (StoreRegistry).
//
// A standby is an optimisation: if it fails (the group cannot be described, a store cannot be
// opened or written), it logs why and is tried again at the next placement; the active tasks
// are not affected. In-memory stores, and stores whose changelog is their table's source topic,
// keep no standby.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backend/log_backend.h"
#include "runtime/standby_placement.h"
#include "runtime/streams_config.h"
#include "runtime/task_ids.h"
#include "runtime/task_stores.h"

namespace brook::internal {

class StandbyTasks {
 public:
  // `state`: where the stores live (its record cache is not used) and where queries allowed
  // stale answers find them.
  StandbyTasks(const StreamsConfig& config, std::shared_ptr<const TopologyData> topology,
               LogBackend& backend, StateConfig state);
  ~StandbyTasks();
  StandbyTasks(const StandbyTasks&) = delete;
  StandbyTasks& operator=(const StandbyTasks&) = delete;

  // Starts the thread.
  void start();
  // Stops the thread and closes every standby (what they buffered loaded).
  void stop();
  // For the stream threads, before they join: waits up to `timeout` for the warm-up to end;
  // true once it has.
  bool wait_for_warm_up(std::chrono::milliseconds timeout);

  // From a stream thread: `task` is about to become active here. Its standby, if any, closes
  // first, and none opens until release().
  void claim(TaskId task);
  // From a stream thread: `task` is no longer active here (its stores are closed).
  void release(TaskId task);

 private:
  struct Position {
    LocalStore* store;
    Offset next;  // the next changelog offset to apply
  };

  void run();
  // Describes the group and opens and closes standbys to match the placement.
  void place();
  // One step of the warm-up: describes the group, opens the warm-ups of the tasks this
  // instance will get, and ends the warm-up once they caught up.
  void warm_up();
  // Whether warm-ups wait for their tasks (the stream threads have not got them yet).
  bool has_warm_ups() const;
  // Under mutex_: ends the warm-up (the stream threads join).
  void end_warm_up(const std::string& why);
  // Under mutex_: whether every store of the open standby `task` is within
  // acceptable.recovery.lag records of its changelog's end.
  Result<bool> caught_up(TaskId task);
  // The group's members as they will be once this instance's stream threads join.
  std::vector<GroupMember> joining_members() const;
  // Under mutex_: opens the standby of `task`, reading its stores' changelogs from the offsets
  // they hold.
  Status open(TaskId task);
  // Under mutex_: loads what the standby of `task` buffered and closes it.
  void close(TaskId task);
  // Under mutex_: loads what every standby buffered into its store.
  void load();
  // Under mutex_: points the consumer at the open standbys' changelogs.
  Status reassign();
  // Under mutex_: applies changelog records to their standby stores.
  Status apply(const std::vector<RecordBatch>& batches);
  // Whether a standby of the stores of sub-topology `subtopology` is worth keeping.
  bool has_standby_stores(int subtopology) const;

  const StreamsConfig& config_;
  std::shared_ptr<const TopologyData> topology_;
  LogBackend& backend_;
  StateConfig state_;
  const std::string instance_;  // this instance's name in its members' client ids
  TaskIds task_ids_;
  TaskOfPartition task_of_;             // task_ids_, for the placement
  std::unique_ptr<Consumer> consumer_;  // the thread's only; made by the first open()

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable warmed_up_;
  bool stop_ = false;
  bool warming_up_;            // the stream threads have not joined yet
  std::set<TaskId> warm_ups_;  // standbys opened by the warm-up
  bool reassign_ = false;      // the standbys changed since the consumer was pointed at them
  std::set<TaskId> claimed_;   // active on this instance
  std::map<TaskId, std::unique_ptr<TaskStores>> standbys_;
  std::map<TopicPartition, Position> positions_;
  std::thread thread_;
};

}  // namespace brook::internal

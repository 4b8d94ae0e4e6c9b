// TaskManager: the tasks of one stream thread, between the thread and them (Kafka Streams'
// TaskManager). It knows which task reads a partition, creates the tasks of assigned partitions
// (initialised, their partition times back from the commit metadata, their stores handed to
// the restorer, their inputs paused until restored), moves them to RUNNING as the restorer
// finishes, and closes them, claiming a task's stores from this instance's standby replicas
// while it is active here. The thread polls, processes and commits through it. Single-threaded: the
// stream thread calls it, also from its rebalance callbacks.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <ranges>
#include <string>
#include <string_view>
#include <vector>

#include "backend/log_backend.h"
#include "runtime/standby_tasks.h"
#include "runtime/state_restorer.h"
#include "runtime/store_registry.h"
#include "runtime/stream_task.h"
#include "runtime/task_ids.h"

namespace brook::internal {

class TaskManager {
 public:
  // Makes the (not yet initialised) task `id`, which reads `inputs`.
  using TaskFactory =
      std::function<std::unique_ptr<StreamTask>(TaskId id, std::vector<TopicPartition> inputs)>;

  // `registry`, if any, learns which tasks thread `thread` runs (the instance's metadata);
  // `standbys`, if any, hands over the stores of a task becoming active here.
  TaskManager(int thread, const TopologyData& topology, TaskFactory make_task,
              std::unique_ptr<StateRestorer> restorer, StoreRegistry* registry,
              StandbyTasks* standbys);
  ~TaskManager();
  TaskManager(const TaskManager&) = delete;
  TaskManager& operator=(const TaskManager&) = delete;

  // The source topics of the topology, which the thread subscribes to.
  std::vector<std::string> source_topics() const { return task_ids_.source_topics(); }
  bool is_repartition_topic(std::string_view topic) const;

  // Creates the tasks of `assigned` partitions that have none yet (see above). `consumer` is
  // the thread's: it gives the committed metadata and the assignment, and pauses inputs.
  Status create(const std::vector<TopicPartition>& assigned, Consumer& consumer);
  // Closes the tasks of `revoked` partitions (after the thread committed them); the input
  // partitions they had consumed from or buffered.
  Result<std::vector<TopicPartition>> close(const std::vector<TopicPartition>& revoked);
  // Closes every task, dirty (what they did since the last commit is dropped).
  void close_all();

  // Restores for up to `budget`; the tasks restored start RUNNING and read their inputs
  // again.
  Status restore(std::chrono::milliseconds budget, Consumer& consumer);
  // Whether a task is still restoring.
  bool restoring() const { return restorer_->busy(); }

  // The task that reads `partition` (which must be an input of one of them).
  StreamTask& task_of(const TopicPartition& partition) const;
  // The task that reads `partition`, if it is RUNNING; else null.
  StreamTask* running_task_of(const TopicPartition& partition) const;
  // The RUNNING tasks, in task order: a view (no copy), valid while no task is created or
  // closed.
  auto running() const {
    return tasks_ | std::views::values | std::views::filter([](const auto& task) {
             return task->state() == TaskState::kRunning;
           }) |
           std::views::transform([](const auto& task) { return task.get(); });
  }

 private:
  TaskId id_of(const TopicPartition& partition) const;
  // The task's input partitions among those assigned to `consumer`.
  std::vector<TopicPartition> inputs_of(TaskId task, const Consumer& consumer) const;
  // Tells the registry which tasks this thread runs now.
  void report() const;

  int thread_;
  std::vector<std::string> repartition_topics_;
  TaskFactory make_task_;
  std::unique_ptr<StateRestorer> restorer_;
  StoreRegistry* registry_;
  StandbyTasks* standbys_;
  TaskIds task_ids_;
  std::map<TaskId, std::unique_ptr<StreamTask>> tasks_;
};

}  // namespace brook::internal

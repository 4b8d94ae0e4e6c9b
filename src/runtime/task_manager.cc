#include "runtime/task_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/log.h"

namespace brook::internal {

TaskManager::TaskManager(int thread, const TopologyData& topology, TaskFactory make_task,
                         std::unique_ptr<StateRestorer> restorer, StoreRegistry* registry,
                         StandbyTasks* standbys)
    : thread_(thread),
      make_task_(std::move(make_task)),
      restorer_(std::move(restorer)),
      registry_(registry),
      standbys_(standbys),
      task_ids_(topology) {
  for (const auto& topic : topology.repartition_topics) repartition_topics_.push_back(topic.name);
}

TaskManager::~TaskManager() = default;  // each task closes as it goes

bool TaskManager::is_repartition_topic(std::string_view topic) const {
  return std::find(repartition_topics_.begin(), repartition_topics_.end(), topic) !=
         repartition_topics_.end();
}

TaskId TaskManager::id_of(const TopicPartition& partition) const {
  return task_ids_.of(partition).value();
}

std::vector<TopicPartition> TaskManager::inputs_of(TaskId task, const Consumer& consumer) const {
  std::vector<TopicPartition> out;
  for (auto& tp : consumer.assignment()) {
    if (task_ids_.of(tp) == task) {
      out.push_back(std::move(tp));
    }
  }
  return out;
}

Status TaskManager::create(const std::vector<TopicPartition>& assigned, Consumer& consumer) {
  for (const auto& tp : assigned) {
    const TaskId id = id_of(tp);
    if (tasks_.contains(id)) continue;
    auto inputs = inputs_of(id, consumer);
    if (standbys_ != nullptr) standbys_->claim(id);  // its stores, before the task opens them
    auto task = make_task_(id, inputs);
    if (auto s = task->init(); !s.ok()) return s;
    // As Kafka Streams: partition times come back from the commit metadata.
    auto committed = consumer.committed_with_metadata(inputs);
    if (!committed) return committed.error();
    for (const auto& [input, offset] : *committed) {
      task->restore_partition_time(input, offset.metadata);
    }
    auto restoring = restorer_->add(*task);
    if (!restoring) return restoring.error();
    if (!*restoring) task->restored();
    // A restoring task's input waits in the log; a partition paused for an earlier task of
    // the same number reads again.
    if (auto s = *restoring ? consumer.pause(inputs) : consumer.resume(inputs); !s.ok()) return s;
    log(LogLevel::kDebug, "stream thread {}: task {} created", thread_, id.to_string());
    tasks_.emplace(id, std::move(task));
  }
  report();
  return {};
}

Result<std::vector<TopicPartition>> TaskManager::close(const std::vector<TopicPartition>& revoked) {
  std::vector<TopicPartition> inputs;
  Status status;
  for (const auto& tp : revoked) {
    auto id = task_ids_.of(tp);
    if (!id) continue;
    auto it = tasks_.find(*id);
    if (it == tasks_.end()) continue;
    for (const auto& [partition, offset] : it->second->consumed()) inputs.push_back(partition);
    for (const auto& [partition, count] : it->second->buffered_per_input()) {
      inputs.push_back(partition);
    }
    if (it->second->state() == TaskState::kRestoring) {
      if (auto s = restorer_->remove(it->first); !s.ok() && status.ok()) status = s;
    }
    it->second->close();
    if (standbys_ != nullptr) standbys_->release(it->first);
    tasks_.erase(it);
  }
  report();
  if (!status.ok()) return error(std::move(status));
  return inputs;
}

void TaskManager::close_all() {
  for (auto& [id, task] : tasks_) {
    if (task->state() != TaskState::kRestoring) continue;
    if (auto s = restorer_->remove(id); !s.ok()) {
      log(LogLevel::kWarn, "stream thread {}: {}", thread_, s.to_string());
    }
  }
  for (auto& [id, task] : tasks_) {
    task->close();
    if (standbys_ != nullptr) standbys_->release(id);
  }
  tasks_.clear();
  report();
}

Status TaskManager::restore(std::chrono::milliseconds budget, Consumer& consumer) {
  if (!restorer_->busy()) return {};
  auto ready = restorer_->restore(budget);
  if (!ready) return ready.error();
  for (TaskId id : *ready) {
    tasks_.at(id)->restored();
    if (auto s = consumer.resume(inputs_of(id, consumer)); !s.ok()) return s;
  }
  return {};
}

StreamTask& TaskManager::task_of(const TopicPartition& partition) const {
  return *tasks_.at(id_of(partition));
}

StreamTask* TaskManager::running_task_of(const TopicPartition& partition) const {
  auto it = tasks_.find(id_of(partition));
  if (it == tasks_.end() || it->second->state() != TaskState::kRunning) return nullptr;
  return it->second.get();
}

void TaskManager::report() const {
  if (registry_ == nullptr) return;
  std::set<TaskId> ids;
  for (const auto& [id, task] : tasks_) ids.insert(id);
  registry_->set_tasks(thread_, std::move(ids));
}

}  // namespace brook::internal

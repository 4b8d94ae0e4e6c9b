// StateRestorer: brings the stores of a thread's new tasks up to date from their changelog
// partitions before the tasks process anything. Restoration starts at the offset each store
// committed with its data (a RocksDB store after a clean stop: nothing to read), reads to the
// changelog's end as it was when the task was created (a table's source topic serving as its
// store's changelog: to the application's committed offset), and runs in bounded steps inside
// the thread's loop. Progress goes to the log, the metrics and a StateRestoreListener.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/log_backend.h"
#include "brook/metrics.h"
#include "brook/restore_listener.h"
#include "runtime/stream_task.h"

namespace brook::internal {

// The first changelog offset `store` lacks: after what it committed with its data, or the
// earliest the changelog still holds.
Result<Offset> first_missing_offset(Admin& admin, const LocalStore& store);

class StateRestorer {
 public:
  // `group`: the application's consumer group, whose committed offsets end the restoration
  // of a store whose changelog is its table's source topic.
  StateRestorer(std::unique_ptr<Consumer> consumer, Admin& admin, std::string group,
                Metrics& metrics, std::shared_ptr<StateRestoreListener> listener);

  // Starts restoring the logged stores of `task`. False if there is nothing to restore (the
  // task may run right away).
  Result<bool> add(StreamTask& task);
  // Stops restoring the stores of a task that is being closed.
  Status remove(TaskId task);
  bool busy() const { return !partitions_.empty(); }
  // Reads and applies changelog records for up to `budget`; the tasks whose stores are
  // all restored now.
  Result<std::vector<TaskId>> restore(std::chrono::milliseconds budget);

 private:
  struct Restoring {
    LocalStore* store;
    Offset position;
    Offset end;
    std::chrono::steady_clock::time_point started;
    std::chrono::steady_clock::time_point last_report;
    Metrics::Counter* restored;
  };
  Status reassign();
  Status apply(const std::vector<RecordBatch>& batches);
  // A partition read to its end: the store loads what it buffered and becomes active.
  Status finish(Restoring& r);
  // Logs the progress of a restoration still running.
  void report(Restoring& r);
  static double rate(const Restoring& r);

  std::unique_ptr<Consumer> consumer_;
  // Where restoring `store` from `changelog` ends: the changelog's high watermark, or for a
  // table's source topic what the application committed of it (nothing: no end yet).
  Result<std::optional<Offset>> restore_end(const LocalStore& store,
                                            const TopicPartition& changelog);

  Admin& admin_;
  std::string group_;
  Metrics& metrics_;
  std::shared_ptr<StateRestoreListener> listener_;
  std::map<TopicPartition, Restoring> partitions_;
};

}  // namespace brook::internal

// StoreRegistry: the stores of every running task of one application instance, and of its
// standby replicas, by name and partition, for interactive queries, with what the application's
// state means for them; and the active tasks of each stream thread, for the instance's
// metadata. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "runtime/local_store.h"

namespace brook::internal {

class StoreRegistry {
 public:
  // The local instances of one store at one moment.
  struct Snapshot {
    std::map<std::int32_t, std::shared_ptr<LocalStore>> stores;    // by partition
    std::map<std::int32_t, std::shared_ptr<LocalStore>> standbys;  // the standby replicas'
    // Ok if this instance has all its tasks in place (the application is RUNNING), so an
    // answer over every local task is complete; else why not (kUnavailable while it
    // rebalances: retry).
    Status complete;
    std::uint64_t version;  // see unchanged_since()
  };

  // `standby`: the store is a standby replica's (num.standby.replicas).
  void add(std::shared_ptr<LocalStore> store, bool standby = false);
  void remove(const LocalStore& store);
  // Called on every change of the application's state: ok while RUNNING, else what a query
  // over all local tasks answers.
  void set_complete(Status complete);
  Snapshot find(std::string_view name) const;
  // Every store's local partitions (tasks created, restoring or active), by store name.
  std::map<std::string, std::vector<std::int32_t>> partitions() const;
  // The same for the standby replicas' stores.
  std::map<std::string, std::vector<std::int32_t>> standby_partitions() const;
  // Stream thread `thread` now runs `tasks` (replacing what it ran before).
  void set_tasks(int thread, std::set<TaskId> tasks);
  // The active tasks of every stream thread, in order.
  std::vector<TaskId> tasks() const;
  // Bumped by every change above and by set_complete(), except standbys coming and going.
  std::uint64_t version() const;
  // Bumped by standbys coming and going.
  std::uint64_t standby_version() const;
  // True if no store came or went and the application's state did not change since the
  // snapshot `version` was taken: an answer read from that snapshot is still whole.
  bool unchanged_since(std::uint64_t version) const;

 private:
  mutable std::mutex mutex_;
  using ByPartition = std::map<std::int32_t, std::shared_ptr<LocalStore>>;
  static std::map<std::string, std::vector<std::int32_t>> partitions_of(
      const std::map<std::string, ByPartition, std::less<>>& stores);

  std::map<std::string, ByPartition, std::less<>> stores_;
  std::map<std::string, ByPartition, std::less<>> standbys_;
  std::map<int, std::set<TaskId>> tasks_;  // by thread
  Status complete_ = Status::failed_precondition("the application has not started");
  std::uint64_t version_ = 0;
  std::uint64_t standby_version_ = 0;
};

}  // namespace brook::internal

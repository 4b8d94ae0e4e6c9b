#include "runtime/store_registry.h"

namespace brook::internal {

void StoreRegistry::add(std::shared_ptr<LocalStore> store, bool standby) {
  std::lock_guard lock(mutex_);
  const auto partition = store->task().partition;
  auto& stores = standby ? standbys_ : stores_;
  stores[store->name()][partition] = std::move(store);
  ++(standby ? standby_version_ : version_);
}

void StoreRegistry::remove(const LocalStore& store) {
  std::lock_guard lock(mutex_);
  for (auto* stores : {&stores_, &standbys_}) {
    auto it = stores->find(store.name());
    if (it == stores->end()) continue;
    auto entry = it->second.find(store.task().partition);
    if (entry == it->second.end() || entry->second.get() != &store) continue;
    it->second.erase(entry);
    ++(stores == &standbys_ ? standby_version_ : version_);
  }
}

void StoreRegistry::set_complete(Status complete) {
  std::lock_guard lock(mutex_);
  complete_ = std::move(complete);
  ++version_;
}

StoreRegistry::Snapshot StoreRegistry::find(std::string_view name) const {
  std::lock_guard lock(mutex_);
  Snapshot out{.complete = complete_, .version = version_};
  if (auto it = stores_.find(name); it != stores_.end()) out.stores = it->second;
  if (auto it = standbys_.find(name); it != standbys_.end()) out.standbys = it->second;
  return out;
}

std::map<std::string, std::vector<std::int32_t>> StoreRegistry::partitions_of(
    const std::map<std::string, ByPartition, std::less<>>& stores) {
  std::map<std::string, std::vector<std::int32_t>> out;
  for (const auto& [name, by_partition] : stores) {
    if (by_partition.empty()) continue;
    auto& list = out[name];
    for (const auto& [partition, store] : by_partition) list.push_back(partition);
  }
  return out;
}

std::map<std::string, std::vector<std::int32_t>> StoreRegistry::partitions() const {
  std::lock_guard lock(mutex_);
  return partitions_of(stores_);
}

std::map<std::string, std::vector<std::int32_t>> StoreRegistry::standby_partitions() const {
  std::lock_guard lock(mutex_);
  return partitions_of(standbys_);
}

void StoreRegistry::set_tasks(int thread, std::set<TaskId> tasks) {
  std::lock_guard lock(mutex_);
  tasks_[thread] = std::move(tasks);
  ++version_;
}

std::vector<TaskId> StoreRegistry::tasks() const {
  std::lock_guard lock(mutex_);
  std::set<TaskId> all;
  for (const auto& [thread, tasks] : tasks_) all.insert(tasks.begin(), tasks.end());
  return {all.begin(), all.end()};
}

std::uint64_t StoreRegistry::version() const {
  std::lock_guard lock(mutex_);
  return version_;
}

std::uint64_t StoreRegistry::standby_version() const {
  std::lock_guard lock(mutex_);
  return standby_version_;
}

bool StoreRegistry::unchanged_since(std::uint64_t version) const {
  std::lock_guard lock(mutex_);
  return version_ == version;
}

}  // namespace brook::internal

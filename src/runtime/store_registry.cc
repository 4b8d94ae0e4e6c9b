#include "runtime/store_registry.h"

namespace brook::internal {

void StoreRegistry::add(std::shared_ptr<LocalStore> store) {
  std::lock_guard lock(mutex_);
  const auto partition = store->task().partition;
  stores_[store->name()][partition] = std::move(store);
  ++version_;
}

void StoreRegistry::remove(const LocalStore& store) {
  std::lock_guard lock(mutex_);
  auto it = stores_.find(store.name());
  if (it == stores_.end()) return;
  auto entry = it->second.find(store.task().partition);
  if (entry != it->second.end() && entry->second.get() == &store) it->second.erase(entry);
  ++version_;
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
  return out;
}

std::map<std::string, std::vector<std::int32_t>> StoreRegistry::partitions() const {
  std::lock_guard lock(mutex_);
  std::map<std::string, std::vector<std::int32_t>> out;
  for (const auto& [name, stores] : stores_) {
    if (stores.empty()) continue;
    auto& list = out[name];
    for (const auto& [partition, store] : stores) list.push_back(partition);
  }
  return out;
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

bool StoreRegistry::unchanged_since(std::uint64_t version) const {
  std::lock_guard lock(mutex_);
  return version_ == version;
}

}  // namespace brook::internal

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

bool StoreRegistry::unchanged_since(std::uint64_t version) const {
  std::lock_guard lock(mutex_);
  return version_ == version;
}

}  // namespace brook::internal

#include "runtime/store_registry.h"

namespace brook::internal {

void StoreRegistry::add(std::shared_ptr<LocalStore> store) {
  std::lock_guard lock(mutex_);
  const auto partition = store->task().partition;
  stores_[store->name()][partition] = std::move(store);
}

void StoreRegistry::remove(const LocalStore& store) {
  std::lock_guard lock(mutex_);
  auto it = stores_.find(store.name());
  if (it == stores_.end()) return;
  auto entry = it->second.find(store.task().partition);
  if (entry != it->second.end() && entry->second.get() == &store) it->second.erase(entry);
}

std::map<std::int32_t, std::shared_ptr<LocalStore>> StoreRegistry::find(
    std::string_view name) const {
  std::lock_guard lock(mutex_);
  auto it = stores_.find(name);
  if (it == stores_.end()) return {};
  return it->second;
}

}  // namespace brook::internal

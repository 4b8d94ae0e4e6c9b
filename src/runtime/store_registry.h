// StoreRegistry: the stores of every running task of one application instance, by name and
// partition, for interactive queries. Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/local_store.h"

namespace brook::internal {

class StoreRegistry {
 public:
  void add(std::shared_ptr<LocalStore> store);
  void remove(const LocalStore& store);
  // The local instances of store `name`, by partition.
  std::map<std::int32_t, std::shared_ptr<LocalStore>> find(std::string_view name) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::map<std::int32_t, std::shared_ptr<LocalStore>>, std::less<>> stores_;
};

}  // namespace brook::internal

#include "runtime/local_store_query.h"

#include <fmt/format.h>

namespace brook::internal {

Result<std::optional<std::string>> LocalStoreQuery::get(std::string_view key) {
  const Partition partition = partition_for_key(key, partitions_);
  auto stores = registry_.find(spec_.name);
  auto it = stores.find(partition.value());
  if (it == stores.end()) {
    return error(Status::not_found(
        fmt::format("store {}: the key's partition {} is not on this instance (its task runs on "
                    "another instance, or is being reassigned)",
                    spec_.name, partition.value())));
  }
  return it->second->query([&](KeyValueBytesStore& store) { return store.get(key); });
}

Status LocalStoreQuery::scan(const KeyRange& range, const ScanVisitor& visit) {
  bool stopped = false;
  for (const auto& [partition, store] : registry_.find(spec_.name)) {
    auto scanned = store->query([&](KeyValueBytesStore& s) -> Result<bool> {
      auto status = s.scan(range, [&](std::string_view k, std::string_view v) {
        stopped = !visit(k, v);
        return !stopped;
      });
      if (!status.ok()) return error(std::move(status));
      return true;
    });
    if (!scanned) return scanned.error();
    if (stopped) break;
  }
  return {};
}

Result<std::int64_t> LocalStoreQuery::approximate_count() {
  std::int64_t total = 0;
  for (const auto& [partition, store] : registry_.find(spec_.name)) {
    auto count = store->query([](KeyValueBytesStore& s) { return s.approximate_count(); });
    if (!count) return error(std::move(count.error()));
    total += *count;
  }
  return total;
}

}  // namespace brook::internal

#include "runtime/local_store_query.h"

#include <fmt/format.h>

namespace brook::internal {

Result<std::shared_ptr<LocalStore>> LocalStoreQuery::owner(std::string_view partition_key) const {
  const Partition partition = partition_for_key(partition_key, partitions_);
  auto stores = registry_.find(spec_.name);
  auto it = stores.find(partition.value());
  if (it == stores.end()) {
    return error(Status::not_found(
        fmt::format("store {}: the key's partition {} is not on this instance (its task runs on "
                    "another instance, or is being reassigned)",
                    spec_.name, partition.value())));
  }
  return it->second;
}

Result<std::optional<std::string>> LocalStoreQuery::get(std::string_view key) {
  return get_keyed(key, key);
}

Result<std::optional<std::string>> LocalStoreQuery::get_keyed(std::string_view partition_key,
                                                              std::string_view key) {
  auto store = owner(partition_key);
  if (!store) return error(std::move(store.error()));
  return (*store)->query([&](KeyValueBytesStore& s) { return s.get(key); });
}

Status LocalStoreQuery::scan_keyed(std::string_view partition_key, const KeyRange& range,
                                   const ScanVisitor& visit) {
  auto store = owner(partition_key);
  if (!store) return store.error();
  auto scanned = (*store)->query([&](KeyValueBytesStore& s) -> Result<bool> {
    auto status = s.scan(range, visit);
    if (!status.ok()) return error(std::move(status));
    return true;
  });
  if (!scanned) return scanned.error();
  return {};
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

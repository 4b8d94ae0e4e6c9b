#include "runtime/local_store_query.h"

#include <fmt/format.h>

namespace brook::internal {

Result<std::shared_ptr<LocalStore>> LocalStoreQuery::owner(std::string_view partition_key) const {
  return owner(partition_for_key(partition_key, partitions_));
}

Result<std::shared_ptr<LocalStore>> LocalStoreQuery::owner(Partition partition) const {
  auto snapshot = registry_.find(spec_.name);
  auto it = snapshot.stores.find(partition.value());
  if (it != snapshot.stores.end()) return it->second;
  if (allow_stale_) {
    if (auto standby = snapshot.standbys.find(partition.value());
        standby != snapshot.standbys.end()) {
      return standby->second;
    }
  }
  if (!spec_.global && !snapshot.complete.ok()) {
    return error(
        Status(snapshot.complete.code(),
               fmt::format("store {}: the key's partition {} is not on this instance now: {}",
                           spec_.name, partition.value(), snapshot.complete.message())));
  }
  return error(Status::not_found(fmt::format(
      "store {}: the key's partition {} is not on this instance (its task runs on another "
      "instance{})",
      spec_.name, partition.value(), allow_stale_ ? ", and no standby of it is kept here" : "")));
}

Result<std::optional<std::string>> LocalStoreQuery::get(std::string_view key) {
  return get_keyed(key, key);
}

Result<std::optional<std::string>> LocalStoreQuery::get_keyed(std::string_view partition_key,
                                                              std::string_view key) {
  auto store = owner(partition_key);
  if (!store) return error(std::move(store.error()));
  return (*store)->query([&](KeyValueBytesStore& s) { return s.read(key); }, allow_stale_);
}

Status LocalStoreQuery::scan_store(LocalStore& store, const KeyRange& range,
                                   const ScanVisitor& visit) const {
  auto scanned = store.query(
      [&](KeyValueBytesStore& s) -> Result<bool> {
        auto status = s.scan(range, visit);
        if (!status.ok()) return error(std::move(status));
        return true;
      },
      allow_stale_);
  if (!scanned) return scanned.error();
  return {};
}

Status LocalStoreQuery::scan_keyed(std::string_view partition_key, const KeyRange& range,
                                   const ScanVisitor& visit) {
  auto store = owner(partition_key);
  if (!store) return store.error();
  return scan_store(**store, range, visit);
}

Status LocalStoreQuery::scan_partition(std::int32_t partition, const KeyRange& range,
                                       const ScanVisitor& visit) {
  if (partition < 0 || partition >= partitions_) {
    return Status::invalid_argument(fmt::format("store {} has partitions 0 to {}, not {}",
                                                spec_.name, partitions_ - 1, partition));
  }
  auto store = owner(Partition(partition));
  if (!store) return store.error();
  return scan_store(**store, range, visit);
}

Status LocalStoreQuery::scan(const KeyRange& range, const ScanVisitor& visit) {
  return over_all_tasks([&](KeyValueBytesStore& s) -> Result<bool> {
    bool stopped = false;
    auto status = s.scan(range, [&](std::string_view k, std::string_view v) {
      stopped = !visit(k, v);
      return !stopped;
    });
    if (!status.ok()) return error(std::move(status));
    return !stopped;
  });
}

Result<std::int64_t> LocalStoreQuery::approximate_count() {
  std::int64_t total = 0;
  auto counted = over_all_tasks([&](KeyValueBytesStore& s) -> Result<bool> {
    auto count = s.approximate_count();
    if (!count) return error(std::move(count.error()));
    total += *count;
    return true;
  });
  if (!counted.ok()) return error(std::move(counted));
  return total;
}

Status LocalStoreQuery::over_all_tasks(const std::function<Result<bool>(KeyValueBytesStore&)>& fn) {
  auto snapshot = registry_.find(spec_.name);
  // A stale answer needs no settled application: every partition held here, read once.
  const bool whole = !allow_stale_ && !spec_.global;
  if (whole && !snapshot.complete.ok()) {
    return Status(
        snapshot.complete.code(),
        fmt::format("store {}: an answer over this instance's tasks could be incomplete: {}",
                    spec_.name, snapshot.complete.message()));
  }
  if (allow_stale_) snapshot.stores.merge(snapshot.standbys);  // the active store where both are
  for (const auto& [partition, store] : snapshot.stores) {
    auto more = store->query(fn, allow_stale_);
    if (!more) return more.error();
    if (!*more) break;
  }
  if (whole && !registry_.unchanged_since(snapshot.version)) {
    return Status::unavailable(fmt::format(
        "store {}: its tasks moved while it was read (a rebalance started); query again",
        spec_.name));
  }
  return {};
}

}  // namespace brook::internal

// LocalStoreQuery: an interactive query over the instances of one store that run on this
// application instance, found through the StoreRegistry on every call (tasks come and go).
// An answer over every local task (scan, count) is refused unless the application is RUNNING
// and no task came or went while it was read; a keyed answer needs the key's task to be here
// and active. Global stores hold every partition: only their own phase matters.
//
// A query that allows stale answers (StoreQueryOptions::allow_stale) also reads restoring
// stores and the standby replicas' (the active task's store first), and answers over every
// local store whatever the application's state.
#pragma once

#include <functional>

#include "brook/internal/store_query.h"
#include "runtime/store_registry.h"

namespace brook::internal {

class LocalStoreQuery final : public StoreQuery {
 public:
  // `partitions`: how many tasks (partitions) the store has in all.
  LocalStoreQuery(const StoreSpec& spec, std::int32_t partitions, const StoreRegistry& registry,
                  bool allow_stale)
      : spec_(spec), partitions_(partitions), registry_(registry), allow_stale_(allow_stale) {}

  const StoreSpec& spec() const override { return spec_; }
  std::int32_t partitions() const override { return partitions_; }
  Result<std::optional<std::string>> get(std::string_view key) override;
  Status scan(const KeyRange& range, const ScanVisitor& visit) override;
  Result<std::optional<std::string>> get_keyed(std::string_view partition_key,
                                               std::string_view key) override;
  Status scan_keyed(std::string_view partition_key, const KeyRange& range,
                    const ScanVisitor& visit) override;
  Result<std::int64_t> approximate_count() override;
  Status scan_partition(std::int32_t partition, const KeyRange& range,
                        const ScanVisitor& visit) override;

 private:
  // The local store of the task owning `partition_key`'s partition (or of its standby, if
  // allowed); kNotFound if neither is here, kUnavailable if that is not settled (the
  // application rebalances).
  Result<std::shared_ptr<LocalStore>> owner(std::string_view partition_key) const;
  Result<std::shared_ptr<LocalStore>> owner(Partition partition) const;
  // Scans `store` (under its lock, if it is active).
  Status scan_store(LocalStore& store, const KeyRange& range, const ScanVisitor& visit) const;
  // Calls `fn` on each local task's store (and standby's, if allowed), in partition order,
  // until it returns false.
  Status over_all_tasks(const std::function<Result<bool>(KeyValueBytesStore&)>& fn);

  const StoreSpec& spec_;
  std::int32_t partitions_;
  const StoreRegistry& registry_;
  bool allow_stale_;
};

}  // namespace brook::internal

// StoreQuery: the untyped side of an interactive query over the local instances of one store.
// Implemented by the runtime. Not for users.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "brook/internal/bytes_store.h"
#include "brook/internal/store_spec.h"

namespace brook::internal {

class StoreQuery {
 public:
  virtual ~StoreQuery() = default;
  virtual const StoreSpec& spec() const = 0;
  // How many partitions (tasks) the store has over all instances; 1 for a global store.
  virtual std::int32_t partitions() const = 0;
  // The value of `key` from the task of the key's partition.
  virtual Result<std::optional<std::string>> get(std::string_view key) = 0;
  // Each local task's entries in `range`, partition after partition.
  virtual Status scan(const KeyRange& range, const ScanVisitor& visit) = 0;
  // Keyed reads of window and session stores, whose keys embed the plain key the task's
  // partition derives from: the value of `key`, and the entries in `range`, from the task of
  // the partition of `partition_key` (the plain serialised key).
  virtual Result<std::optional<std::string>> get_keyed(std::string_view partition_key,
                                                       std::string_view key) = 0;
  virtual Status scan_keyed(std::string_view partition_key, const KeyRange& range,
                            const ScanVisitor& visit) = 0;
  virtual Result<std::int64_t> approximate_count() = 0;
  // The entries in `range` of the task of `partition` only: kNotFound if that task runs on
  // another instance, kUnavailable while that is not settled or the store restores.
  virtual Status scan_partition(std::int32_t partition, const KeyRange& range,
                                const ScanVisitor& visit) = 0;
};

}  // namespace brook::internal

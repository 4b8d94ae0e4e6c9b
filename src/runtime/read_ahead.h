// ReadAhead: a task's prefetches of the store entries its next records will read
// (StoreSpec::read_by), so that the processor finds them in the CPU's cache instead of waiting
// for memory once per record: a record some way ahead has its stores' slots loaded (kSlot),
// one half as far ahead the entries those slots point at (kEntry). Only hints: a store whose
// keys are not what its spec says costs wasted prefetches, nothing else.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/record_batch.h"
#include "brook/internal/bytes_store.h"
#include "brook/internal/store_spec.h"
#include "brook/windows.h"

namespace brook::internal {

class ReadAhead {
 public:
  // How many records ahead of the one processed the slots are loaded (the entries half as far).
  static constexpr std::size_t kDistance = 8;

  // Hints `store` (which must outlive this) with the keys `spec` says its processor reads; a
  // spec whose read keys are unknown adds nothing.
  void add(const StoreSpec& spec, const KeyValueBytesStore& store);
  bool empty() const { return stores_.empty(); }
  // Hints the keys `record` will read, as deep as `step`.
  void hint(const ConsumedRecord& record, KeyValueBytesStore::PrefetchStep step);

 private:
  struct Store {
    const KeyValueBytesStore* store;
    StoreSpec::ReadBy read_by;
    TimeWindows windows;  // kTimeWindows: those of the aggregation (grace does not matter)
  };
  std::vector<Store> stores_;
  std::string window_key_;  // reused: a window key built for a hint
};

}  // namespace brook::internal

// The in-memory key-value store. Each entry is one heap block holding its key and value (the
// record cache's layout, state/cache_entry.h, always clean), found through the record cache's
// open-addressing table (state/cache_table.h): a lookup reads the table's slots and one block,
// and both can be prefetched, the block once the slots have arrived. Scans and range deletions
// go to an ordered index of the blocks, built at the first of them (one sort) and kept up to
// date from then on, so a store read only by key never pays for ordering, and a window or
// session store (whose segmented store scans from the start) keeps both.
// Nothing survives the process, so it has no committed offset and is restored from its whole
// changelog whenever its task starts, into a map sized beforehand for the changelog's records.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "brook/internal/bytes_store.h"
#include "state/cache_table.h"

namespace brook::internal {

class InMemoryStore final : public KeyValueBytesStore {
 public:
  explicit InMemoryStore(std::string name);
  ~InMemoryStore() override;

  const std::string& name() const override { return name_; }
  Result<std::optional<std::string>> get(std::string_view key) override;
  Result<bool> get_into(std::string_view key, std::string& value) override;
  Status put(std::string_view key, std::optional<std::string_view> value) override;
  // Its slots (kSlot), then the blocks they point at whose tags match (kEntry).
  void prefetch(std::string_view key, PrefetchStep step) const override;
  // Makes room for `records` more keys, so that restoration never rehashes.
  void reserve_for_restore(std::int64_t records) override;
  Status scan(const KeyRange& range, const ScanVisitor& visit) override;
  Status delete_range(const KeyRange& range) override;
  Result<std::int64_t> approximate_count() override {
    return static_cast<std::int64_t>(table_.size());
  }
  // Shrinks the table if a restoration reserved far more room than it filled.
  Status flush() override;
  Status commit(std::optional<Offset>) override { return {}; }
  std::optional<Offset> committed_offset() const override { return std::nullopt; }
  bool persistent() const override { return false; }

  // Whether the ordered index exists (a scan or range deletion came), for tests.
  bool ordered() const { return index_ != nullptr; }

 private:
  struct Index;  // the blocks in key order (in_memory_store.cc)

  // The ordered index, built from the table if it does not exist yet.
  Index& index();
  // Removes the entry in `slot` from the table and the index, and frees its block.
  void erase(std::size_t slot);

  std::string name_;
  CacheTable table_;
  std::unique_ptr<Index> index_;  // null until the first scan or range deletion
};

}  // namespace brook::internal

// The in-memory key-value store. Point lookups and writes go to a hash map (absl's
// node_hash_map: open addressing over pointers to the entries, which never move); scans and
// range deletions to an ordered index of the map's entries, built at the first of them (one
// sort) and kept up to date from then on, so a store read only by key never pays for ordering,
// and a window or session store (whose segmented store scans from the start) keeps both.
// Nothing survives the process, so it has no committed offset and is restored from its whole
// changelog whenever its task starts, into a map sized beforehand for the changelog's records.
#pragma once

#include <absl/container/node_hash_map.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "brook/internal/bytes_store.h"
#include "core/bytes_hash.h"

namespace brook::internal {

class InMemoryStore final : public KeyValueBytesStore {
 public:
  explicit InMemoryStore(std::string name);
  ~InMemoryStore() override;

  const std::string& name() const override { return name_; }
  Result<std::optional<std::string>> get(std::string_view key) override;
  Result<bool> get_into(std::string_view key, std::string& value) override;
  Status put(std::string_view key, std::optional<std::string_view> value) override;
  // Its slot (kSlot); the node behind it is not reached.
  void prefetch(std::string_view key, PrefetchStep step) const override {
    if (step == PrefetchStep::kSlot) entries_.prefetch(key);
  }
  // Makes room for `records` more keys, so that restoration never rehashes.
  void reserve_for_restore(std::int64_t records) override;
  Status scan(const KeyRange& range, const ScanVisitor& visit) override;
  Status delete_range(const KeyRange& range) override;
  Result<std::int64_t> approximate_count() override {
    return static_cast<std::int64_t>(entries_.size());
  }
  // Shrinks the map if a restoration reserved far more room than it filled.
  Status flush() override;
  Status commit(std::optional<Offset>) override { return {}; }
  std::optional<Offset> committed_offset() const override { return std::nullopt; }
  bool persistent() const override { return false; }

  // Whether the ordered index exists (a scan or range deletion came), for tests.
  bool ordered() const { return index_ != nullptr; }

 private:
  using Map = absl::node_hash_map<std::string, std::string, BytesHash, std::equal_to<>>;
  using Entry = Map::value_type;  // a map node's content: its address never changes
  struct Index;                   // the map's entries in key order (in_memory_store.cc)

  // The ordered index, built from the map if it does not exist yet.
  Index& index();

  std::string name_;
  Map entries_;
  std::unique_ptr<Index> index_;  // null until the first scan or range deletion
};

}  // namespace brook::internal

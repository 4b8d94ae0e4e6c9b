// Restoration's writes to a RocksDB store (rocksdb_store.h), held in memory until the store loads
// them in one go: the latest write of each key (a value or a deletion) and the range deletions
// that came before them. Every buffered write is newer than every range deletion that covers
// its key (a range deletion drops the buffered writes it covers), so loading applies the range
// deletions to the store first, then the writes.
//
// Free of RocksDB; not thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "state/bytes_hash.h"

namespace brook::internal {

class RestoreBuffer {
 public:
  // Roughly what a buffered write costs besides its key and value bytes: its map node (links,
  // hash code, two strings), its share of the buckets, the allocator's headers.
  static constexpr std::size_t kEntryOverhead = 128;

  // Writes `value` to `key`; nullopt deletes the key.
  void put(std::string_view key, std::optional<std::string_view> value);
  // Deletes the keys in [from, to): those buffered now, and at loading those of the store.
  void delete_range(std::string from, std::string to);
  // Makes room for `keys` keys.
  void reserve(std::size_t keys) { writes_.reserve(keys); }

  bool empty() const { return writes_.empty() && ranges_.empty(); }
  std::size_t writes() const { return writes_.size(); }
  // Roughly the memory it takes.
  std::size_t bytes() const { return bytes_; }
  const std::vector<std::pair<std::string, std::string>>& ranges() const { return ranges_; }

  // Calls visit(key, value) for each buffered write, in key order if `sorted` (else in no
  // particular order); a deletion has no value.
  template <class Visit>
  void for_each(bool sorted, Visit visit) const {
    if (!sorted) {
      for (const auto& [key, write] : writes_) visit(key, value_of(write));
      return;
    }
    for (const Entry* entry : sorted_entries()) visit(entry->first, value_of(entry->second));
  }

  void clear();

 private:
  struct Write {
    std::string value;
    bool deleted = false;
  };
  using Map = BytesMap<Write>;
  using Entry = Map::value_type;

  static std::optional<std::string_view> value_of(const Write& write) {
    if (write.deleted) return std::nullopt;
    return std::string_view(write.value);
  }
  std::vector<const Entry*> sorted_entries() const;

  Map writes_;
  std::vector<std::pair<std::string, std::string>> ranges_;  // [from, to), in order
  std::size_t bytes_ = 0;
};

}  // namespace brook::internal

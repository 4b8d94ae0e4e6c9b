// The writes a RocksDB store holds between two commits: the newest write of each key (a value
// or a deletion), and the range deletions [from, to) since the last commit. A range deletion
// erases the entries it covers, so every entry came after every range, and a commit applies the
// ranges first, then the entries in key order (sorted writes are also the cheapest for RocksDB's
// memtable). Reads consult it before the database: an entry answers; else a key in a range is
// deleted; else the database has the answer. Keys and values are copied into an arena, cleared
// with the rest: no allocation per write.
//
// The entries sit in a hash map, so that a write and a point read cost a hash look-up however
// many there are (a store whose cache evicts writes down all through a long commit interval holds
// millions), and are sorted once, at the commit. The first read in key order of some entries
// (entries(): a scan) moves them into an ordered map, where they stay from then on, across
// commits: a store read in key order while it has pending writes is read so again. Not
// thread-safe.
#pragma once

#include <absl/container/btree_map.h>
#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/record_arena.h"

namespace brook::internal {

class PendingWrites {
 public:
  // Views of the arena; a value nullopt is a deletion.
  using Value = std::optional<std::string_view>;
  using Entries = absl::btree_map<std::string_view, Value>;
  using Range = std::pair<std::string, std::string>;  // [from, to)

  bool empty() const { return !has_entries() && ranges_.empty(); }
  bool has_entries() const { return ordered_ ? !by_order_.empty() : !by_hash_.empty(); }

  // `value` nullopt: a deletion.
  void put(std::string_view key, Value value);
  // Deletes [from, to): the entries in it, and the database's keys at commit.
  void delete_range(std::string from, std::string to);

  // What the pending writes say of `key`: nullopt if nothing (read the database), else its
  // value, nullopt if deleted.
  std::optional<Value> find(std::string_view key) const;
  // Whether a range deletion covers `key` (for a database key no entry overrides).
  bool in_range(std::string_view key) const;

  // The entries in key order; from the first call with entries on, they are kept in order.
  const Entries& entries();
  // Calls visit(key, value) for every entry, in key order.
  template <class Visit>
  void for_each_in_order(Visit visit) const;

  const std::vector<Range>& ranges() const { return ranges_; }
  // Hands the ranges over (restoration takes them), leaving none.
  std::vector<Range> take_ranges() { return std::exchange(ranges_, {}); }

  void clear() {
    by_hash_.clear();
    by_order_.clear();
    ranges_.clear();
    arena_.clear();
  }

 private:
  static constexpr std::size_t kFirstBlockBytes = 64 << 10;

  RecordArena arena_{kFirstBlockBytes};
  absl::flat_hash_map<std::string_view, Value> by_hash_;  // until the first entries()
  Entries by_order_;                                      // from then on
  bool ordered_ = false;
  std::vector<Range> ranges_;
};

template <class Visit>
void PendingWrites::for_each_in_order(Visit visit) const {
  if (ordered_) {
    for (const auto& [key, value] : by_order_) visit(key, value);
    return;
  }
  std::vector<std::pair<std::string_view, Value>> sorted(by_hash_.begin(), by_hash_.end());
  std::ranges::sort(sorted, {}, &std::pair<std::string_view, Value>::first);
  for (const auto& [key, value] : sorted) visit(key, value);
}

}  // namespace brook::internal

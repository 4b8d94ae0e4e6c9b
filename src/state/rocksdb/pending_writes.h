// The writes a RocksDB store holds between two commits: the newest write of each key (a value
// or a deletion) in key order, and the range deletions [from, to) since the last commit. A
// range deletion erases the entries it covers, so every entry came after every range, and a
// commit applies the ranges first, then the entries in key order (sorted writes are also the
// cheapest for RocksDB's memtable). Reads consult it before the database: an entry answers;
// else a key in a range is deleted; else the database has the answer. Keys and values are
// copied into an arena, cleared with the rest: no allocation per write. Not thread-safe.
#pragma once

#include <absl/container/btree_map.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/record_arena.h"

namespace brook::internal {

class PendingWrites {
 public:
  // Views of the arena.
  using Entries = absl::btree_map<std::string_view, std::optional<std::string_view>>;
  using Range = std::pair<std::string, std::string>;  // [from, to)

  bool empty() const { return entries_.empty() && ranges_.empty(); }
  bool has_entries() const { return !entries_.empty(); }

  // `value` nullopt: a deletion.
  void put(std::string_view key, std::optional<std::string_view> value);
  // Deletes [from, to): the entries in it, and the database's keys at commit.
  void delete_range(std::string from, std::string to);

  // What the pending writes say of `key`: nullopt if nothing (read the database), else its
  // value, nullopt if deleted.
  std::optional<std::optional<std::string_view>> find(std::string_view key) const;
  // Whether a range deletion covers `key` (for a database key no entry overrides).
  bool in_range(std::string_view key) const;

  const Entries& entries() const { return entries_; }
  const std::vector<Range>& ranges() const { return ranges_; }
  // Hands the ranges over (restoration takes them), leaving none.
  std::vector<Range> take_ranges() { return std::exchange(ranges_, {}); }

  void clear() {
    entries_.clear();
    ranges_.clear();
    arena_.clear();
  }

 private:
  static constexpr std::size_t kFirstBlockBytes = 64 << 10;

  RecordArena arena_{kFirstBlockBytes};
  Entries entries_;
  std::vector<Range> ranges_;
};

}  // namespace brook::internal

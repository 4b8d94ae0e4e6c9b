// The memory index of a SegmentedStore (state/segmented_store.h): every live entry of a window
// or session store, grouped by record key (a stored key without its fixed-size time suffix,
// brook/internal/window_keys.h). Within a group the entries are sorted by suffix, which is
// their key order. So the reads a stream-stream join or a sliding window makes on every record,
// one record key's windows in a time range, cost a hash lookup and a binary search over that
// key's few entries, whatever the store holds. An entry's time is the first 8 bytes of its
// suffix (the time the store files it under); a write to a key drops that key's entries older
// than the retention asks, so that the index holds about the retention's worth of entries, not
// whole segments.
//
// Any other read is answered in key order too: the entries in range are collected and sorted.
// A range between two keys of one record key may also hold keys of a record key that begins
// with it or that it begins with ("a\0" followed by a time may sort between "a" followed by two
// times, and the other way round); the index counts, per group, the groups so related to it,
// and a read of such a group also looks at the related groups whose keys may fall in its range
// (numeric keys "1", "10", "100", ... are all related). Not thread-safe.
#pragma once

#include <absl/container/btree_set.h>
#include <absl/container/flat_hash_map.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "brook/internal/bytes_store.h"

namespace brook::internal {

class WindowMemoryIndex {
 public:
  // `suffix`: the bytes of a stored key after its record key, 9 to 16.
  explicit WindowMemoryIndex(std::size_t suffix) : suffix_(suffix) {}

  // The value of `key` (at least `suffix` bytes) if it is held with a time >= `min_time`.
  std::optional<std::string_view> get(std::string_view key, std::int64_t min_time) const;
  // Sets (nullopt: removes) `key`, at least `suffix` bytes, after dropping the entries of its
  // record key with a time below `keep_from`.
  void put(std::string_view key, std::optional<std::string_view> value, std::int64_t keep_from);
  // The entries held.
  std::size_t size() const { return size_; }
  // Forgets every entry with a time below `time`.
  void drop_below(std::int64_t time);
  // Visits, in key order, the entries in `range` with a time >= `min_time`, until `visit`
  // returns false. `visit` must not change the index.
  void scan(const KeyRange& range, std::int64_t min_time, const ScanVisitor& visit) const;

 private:
  // A key's suffix as two numbers that order as its bytes: the first 8 bytes, then the rest
  // (left-aligned), both big-endian. Kept in the entry itself, so that a search reads no
  // other memory.
  struct Suffix {
    std::uint64_t high;
    std::uint64_t low;
    auto operator<=>(const Suffix&) const = default;
  };
  struct Entry {
    Suffix suffix;
    std::string value;

    std::int64_t time() const { return static_cast<std::int64_t>(suffix.high); }
  };
  struct Group {
    std::vector<Entry> entries;  // by suffix
    std::size_t related = 0;  // groups whose record key begins with this one's, or it with theirs
  };

  // The Suffix of `bytes`, a key's last suffix_ bytes.
  Suffix suffix_of(std::string_view bytes) const;
  // Writes the suffix_ bytes of `suffix` at `out`; append() adds them to `out`.
  void write(char* out, Suffix suffix) const;
  void append(std::string& out, Suffix suffix) const;
  // The first entry of `group` whose suffix is not below `suffix`.
  static std::vector<Entry>::const_iterator lower_bound(const Group& group, Suffix suffix);
  // Calls visit(its record key, group) for each other group of `index` whose record key begins
  // with `record_key` or that `record_key` begins with, until visit returns false; false if it
  // did.
  template <class Index, class Visit>
  static bool for_each_related(Index& index, std::string_view record_key, Visit visit);
  bool has_related(std::string_view record_key) const;
  void add_group(const std::string& record_key, Group& group);
  void remove_group(std::string_view record_key);
  using Found = std::pair<std::string, std::string_view>;  // a key in range, its value
  // Adds the entries of `group` (record key `record_key`) in range with a time >= min_time.
  void collect(std::string_view record_key, const Group& group, const KeyRange& range,
               std::int64_t min_time, std::vector<Found>& found) const;
  static void visit_sorted(std::vector<Found>& found, const ScanVisitor& visit);
  // The general scan: collects what is in range, sorts it and visits it.
  void scan_all(const KeyRange& range, std::int64_t min_time, const ScanVisitor& visit) const;
  // A scan of one record key's range (both bounds begin with `record_key`) when related
  // groups exist: the same, over that key's group and the related groups only.
  void scan_related(std::string_view record_key, const KeyRange& range, std::int64_t min_time,
                    const ScanVisitor& visit) const;

  // Looked up by std::string_view (which this abseil's own string_view is not).
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  struct Equal {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };

  std::size_t suffix_;
  std::size_t size_ = 0;
  absl::flat_hash_map<std::string, Group, Hash, Equal> groups_;
  absl::btree_set<std::string, std::less<>> record_keys_;  // of groups_, in order: who extends whom
  std::map<std::size_t, std::size_t> key_lengths_;         // record key length -> groups
};

}  // namespace brook::internal

// The keys written to the segments of a SegmentedStore (state/segmented_store.h) that held no
// key when the store was opened, as 64-bit hashes. A key whose hash a tracked segment lacks was
// never written to it, so its read needs no look below: a window or session store whose keys
// are mostly new (each record opens a window) skips a RocksDB lookup per new key. A hash shared
// by two keys only costs that look below.
//
// The tracked hashes of all segments are bounded (`max_keys`): a write that would take them past
// it first stops tracking the oldest segments, up to the written one (their reads go below
// again). An expired segment's hashes are dropped with it. Not thread-safe.
#pragma once

#include <absl/container/flat_hash_set.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string_view>

namespace brook::internal {

class FreshSegmentKeys {
 public:
  explicit FreshSegmentKeys(std::size_t max_keys) : max_keys_(max_keys) {}

  // Segments from `first` on held no key at open: tracked from now on. Until called, none is.
  void start_at(std::int64_t first) { first_ = first; }
  // Records that `key` was written (or deleted) in `segment`.
  void written(std::int64_t segment, std::string_view key);
  // True if `key` was certainly never written to `segment` since the store was opened, and the
  // segment held no key then.
  bool never_written(std::int64_t segment, std::string_view key) const;
  // Starts loading where written() and never_written() look for `key` in `segment`.
  void prefetch(std::int64_t segment, std::string_view key) const;
  // Forgets the segments below `segment` (expired and dropped).
  void drop_below(std::int64_t segment);
  // The hashes held, over every tracked segment.
  std::size_t keys() const { return keys_; }

 private:
  struct Segment {
    bool tracked = true;  // else its hashes were dropped to stay within the bound
    absl::flat_hash_set<std::uint64_t> hashes;
  };

  static std::uint64_t hash(std::string_view key);
  void untrack(Segment& s);

  std::size_t max_keys_;
  std::size_t keys_ = 0;
  std::int64_t first_ = std::numeric_limits<std::int64_t>::max();
  std::map<std::int64_t, Segment> segments_;  // those from first_ on that were written
};

}  // namespace brook::internal

// SegmentedStore: the bottom of a window or session store's stack (DESIGN.md, state layer),
// over an in-memory or RocksDB store, as Kafka Streams' segmented bytes stores.
//
// Its keys are window keys (filed under their window start) or session keys (filed under their
// session end), see brook/internal/window_keys.h. Time is cut into segments of
// `segment_interval`; segment id = time / segment_interval. The inner store holds each key as
// [8-byte big-endian segment id][key], so one segment's keys are contiguous in it and a whole
// segment goes with one range deletion.
//
// Observed time is the largest time of a key put or restored. A segment is expired when every
// time it spans is at most observed time - retention: writes to it are ignored (and succeed),
// reads never return its keys, and it is dropped from the inner store (one delete_range over
// every segment that expired since the last drop) as soon as observed time moves past it. So
// expiry drops whole segments, never single keys: a key stays until its whole segment expires,
// and retention is a lower bound on how long a key is kept (as in Kafka Streams).
//
// Reads of keys in segments that held no key at open skip the inner store when the key was
// never written since (state/fresh_segment_keys.h; persistent inner stores without a memory
// index only): most windows a windowed aggregation reads are new.
//
// Reopening a RocksDB store: observed time is not stored; the first call sets it to the start
// of the newest segment on disk (found with a binary search of seeks), a lower bound of the
// real one.
// Segments that expired before the close may therefore still be read until the first write
// after the reopen advances observed time and drops them; that is acceptable, retention being a
// lower bound.
//
// scan() visits keys in key order across segments: one live segment streams directly from the
// inner store; several are merged, reading each in chunks (bounded memory, one seek per chunk).
//
// With a memory index (state/window_memory_index.h), the live entries are also kept in memory,
// and get() and scan() answer from it: they never reach the inner store, which is only written
// (and read once, at the first call, for what it held at open); an inner store that is not
// persistent is not used at all. The index drops a record key's entries once retention has
// passed them (at its next write), not at their segment's expiry, so its reads may miss keys
// the inner store still holds; retention stays a lower bound. For stores read on every record
// whose content the retention keeps small: the records of stream-stream joins and of sliding
// windows. Not thread-safe, like every KeyValueBytesStore.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "brook/internal/bytes_store.h"
#include "brook/internal/store_spec.h"
#include "state/fresh_segment_keys.h"
#include "state/window_memory_index.h"

namespace brook::internal {

// The bytes of the segment id before each key in the inner store.
inline constexpr std::size_t kSegmentIdBytes = 8;

// Kafka Streams' default segment interval: max(retention / 2, 60 s).
std::chrono::milliseconds segment_interval_for(std::chrono::milliseconds retention);

class SegmentedStore final : public KeyValueBytesStore {
 public:
  // `kind`: kWindow or kSession. `segment_interval` must be positive; a negative retention
  // counts as 0.
  SegmentedStore(std::unique_ptr<KeyValueBytesStore> inner, StoreKind kind,
                 std::chrono::milliseconds retention, std::chrono::milliseconds segment_interval,
                 bool memory_index = false);

  const std::string& name() const override { return inner_->name(); }
  // A key too short for the store's kind is kInvalidArgument.
  Result<std::optional<std::string>> get(std::string_view key) override;
  Status put(std::string_view key, std::optional<std::string_view> value) override;
  // kSlot: where the key's segment keeps its written keys (state/fresh_segment_keys.h).
  void prefetch(std::string_view key, PrefetchStep step) const override;
  Status restore(std::string_view key, std::optional<std::string_view> value) override;
  void reserve_for_restore(std::int64_t records) override { inner_->reserve_for_restore(records); }
  Status scan(const KeyRange& range, const ScanVisitor& visit) override;
  Result<std::int64_t> approximate_count() override;
  Status flush() override { return inner_->flush(); }
  Status commit(std::optional<Offset> changelog_next) override {
    return inner_->commit(changelog_next);
  }
  std::optional<Offset> committed_offset() const override { return inner_->committed_offset(); }
  bool persistent() const override { return inner_->persistent(); }

  // For tests and metrics: the largest time seen (-1: none) and the oldest live segment.
  std::int64_t observed_time() const { return observed_; }
  std::int64_t min_live_segment() const;
  KeyValueBytesStore& inner() { return *inner_; }

 private:
  // The time `key` is filed under, or kInvalidArgument.
  Result<std::int64_t> time_of(std::string_view key) const;
  std::int64_t segment_of(std::int64_t time) const { return time / interval_; }
  // The first time of the oldest live segment.
  std::int64_t min_live_time() const { return min_live_segment() * interval_; }
  // The oldest time retention asks to keep: observed time - retention, excluded.
  std::int64_t retained_from() const { return observed_ - retention_ + 1; }
  // The memory index is the store: the inner one would keep nothing after a restart either.
  bool index_only() const { return memory_ && !inner_->persistent(); }
  // Advances observed time to `time` and drops the segments that expired.
  Status observe(std::int64_t time);
  // Finds the oldest and newest segments on disk (a reopened persistent store).
  Status recover();
  // `write` is put or restore of the inner store.
  template <class Write>
  Status write(std::string_view key, std::optional<std::string_view> value, Write inner_write);

  std::unique_ptr<KeyValueBytesStore> inner_;
  StoreKind kind_;
  std::int64_t retention_;
  std::int64_t interval_;
  std::int64_t observed_ = -1;
  std::int64_t dropped_below_ = 0;           // every segment below this was deleted from inner_
  bool recovered_ = false;                   // recover() ran (lazily: restoration may come first)
  std::optional<WindowMemoryIndex> memory_;  // keys as given, not as stored below
  FreshSegmentKeys fresh_;                   // tracking from recover() on, unless memory_
};

}  // namespace brook::internal

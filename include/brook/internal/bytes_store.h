// The bytes-only key-value store every store stack is made of (DESIGN.md, state layer):
// the in-memory and RocksDB stores at the bottom and the caching and change-logging
// decorators above them. Typed facades (brook/state_store.h) serialise in front of it.
// Not for users.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "brook/headers.h"
#include "brook/status.h"
#include "brook/types.h"

namespace brook::internal {

// Bounds of a scan over serialised keys, both inclusive; an absent bound is open.
struct KeyRange {
  std::optional<std::string> from;
  std::optional<std::string> to;
};

// Called for each entry of a scan, in key order; returning false stops the scan.
using ScanVisitor = std::function<bool(std::string_view key, std::string_view value)>;

// Told about each key a record cache writes down: its new value (nullopt: deleted), the value
// the store below held before (nullopt: absent), i.e. the value from before the first of the
// updates the cache collapsed, and the headers of the record that made the last update.
using CacheFlushListener =
    std::function<void(std::string_view key, std::optional<std::string_view> new_value,
                       std::optional<std::string_view> old_value, const Headers& headers)>;

// Keys are ordered by unsigned byte comparison (memcmp). Not thread-safe: the owner
// serialises every call. A failed call leaves the store as it was.
class KeyValueBytesStore {
 public:
  virtual ~KeyValueBytesStore() = default;

  virtual const std::string& name() const = 0;
  // The value of `key`; nullopt if absent.
  virtual Result<std::optional<std::string>> get(std::string_view key) = 0;
  // get() into `value`, its content replaced (true), reusing its capacity; false, `value`
  // unchanged, if `key` is absent. The typed stores read into a buffer they keep, so that
  // a store which overrides this (the record cache's hit) allocates nothing per read.
  virtual Result<bool> get_into(std::string_view key, std::string& value) {
    auto found = get(key);
    if (!found) return error(std::move(found.error()));
    if (!*found) return false;
    value = std::move(**found);
    return true;
  }
  // get() for a query from another thread, made under the owner's lock: the same answer,
  // without changing what a record cache holds.
  virtual Result<std::optional<std::string>> read(std::string_view key) { return get(key); }
  // Sets `key` to `value`; nullopt deletes the key (absent keys are fine).
  virtual Status put(std::string_view key, std::optional<std::string_view> value) = 0;
  // put() for restoration from the changelog, which neither reads nor puts before the next
  // commit(): a store may keep such writes unreadable until then (RocksDB does not index them).
  // Mixing restore() with get(), scan() or put() between two commits is kFailedPrecondition
  // wherever that matters.
  virtual Status restore(std::string_view key, std::optional<std::string_view> value) {
    return put(key, value);
  }
  // How deep a prefetch() reaches: a store's first level (the in-memory store's slot, the
  // record cache's slots), or what that level points at (the record cache's entry), best
  // hinted some time after kSlot, once the slots have arrived.
  enum class PrefetchStep { kSlot, kEntry };
  // A hint that `key` is about to be read or written: a store may start loading where it
  // would look for it, so that the cache misses of several keys overlap (a batch of writes,
  // the records a task is about to process). Only a hint; it changes nothing.
  virtual void prefetch(std::string_view /*key*/, PrefetchStep /*step*/) const {}
  // Restoration is about to restore up to `records` changelog records: a store may size itself
  // for them (the in-memory store reserves room for as many keys). Only a hint.
  virtual void reserve_for_restore(std::int64_t /*records*/) {}
  // Visits the entries in `range` in key order. Writes made by `visit` are not allowed.
  virtual Status scan(const KeyRange& range, const ScanVisitor& visit) = 0;
  // Deletes every key in `range`, as put(key, nullopt) of each would. This default scans, then
  // deletes; the bottom stores do it cheaply. Only the segmented store calls it, on the store
  // below it: decorators (cache, change logging) do not forward it and a range deletion is
  // never logged to the changelog.
  virtual Status delete_range(const KeyRange& range) {
    std::vector<std::string> keys;
    auto scanned = scan(range, [&](std::string_view key, std::string_view) {
      keys.emplace_back(key);
      return true;
    });
    if (!scanned.ok()) return scanned;
    for (const auto& key : keys) {
      if (auto s = put(key, std::nullopt); !s.ok()) return s;
    }
    return {};
  }
  // The number of entries: exact in memory, RocksDB's estimate on disk.
  virtual Result<std::int64_t> approximate_count() = 0;

  // Pushes writes buffered above the bottom store down to it (the record cache flushes its
  // dirty entries, forwarding them to its listener). Called before the task's output and
  // changelog are committed.
  virtual Status flush() = 0;
  // Called after the task's output and changelog writes are committed: makes every write so
  // far durable together with `changelog_next`, the changelog offset restoration resumes
  // from (nullopt: the store has no changelog). A persistent store writes both atomically,
  // so after a crash it holds exactly the state of one of its commits: the last one, or, for
  // a store with a changelog (which recovers from it), possibly an earlier one, whose offset
  // restoration then resumes from. No-op in memory.
  virtual Status commit(std::optional<Offset> changelog_next) = 0;
  // The changelog offset stored by the last commit(); nullopt if there is none (a new or
  // in-memory store): restoration then starts from the changelog's beginning.
  virtual std::optional<Offset> committed_offset() const = 0;
  // Stores fed by every partition of a topic (a global table's, which has no changelog: its
  // topic is its changelog): commit() with the next offset to read of each partition instead
  // of one changelog offset. A persistent store writes them atomically with its data, one
  // small metadata entry per partition, and committed_positions() gives them back after a
  // reopen (only the partitions committed so far). This default commits without positions and
  // remembers none (in memory: the store is read from the beginning on every start).
  virtual Status commit_positions(const std::map<std::int32_t, Offset>& /*next*/) {
    return commit(std::nullopt);
  }
  virtual std::map<std::int32_t, Offset> committed_positions() const { return {}; }
  // True if the store's content survives the process (RocksDB).
  virtual bool persistent() const = 0;
  // Installs the listener of the record cache in this stack, if there is one. False if
  // there is none: the caller then forwards its changes itself, as it writes them.
  virtual bool set_flush_listener(CacheFlushListener /*listener*/) { return false; }
  // The headers of the record the next put()s are made for, until the next call (null: none,
  // as in a punctuation); they must stay valid until then. A record cache keeps them with each
  // entry it writes and gives them to its flush listener; other stores ignore them.
  virtual void set_record_headers(const Headers* /*headers*/) {}
};

// Tells `store` the headers of the record that the writes made in this scope are for.
class RecordHeadersScope {
 public:
  RecordHeadersScope(KeyValueBytesStore& store, const Headers& headers) : store_(store) {
    store_.set_record_headers(&headers);
  }
  ~RecordHeadersScope() { store_.set_record_headers(nullptr); }
  RecordHeadersScope(const RecordHeadersScope&) = delete;
  RecordHeadersScope& operator=(const RecordHeadersScope&) = delete;

 private:
  KeyValueBytesStore& store_;
};

}  // namespace brook::internal

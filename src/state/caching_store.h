// The record cache (DESIGN.md, state layer), as Kafka Streams' CachingKeyValueStore over its
// ThreadCache: a store decorator that keeps writes in memory, collapses several updates of a
// key into one, and writes them down to the store below on flush() or when the stream
// thread's cache budget forces an eviction. Its flush listener sees one (new, old) change
// per key per write-down (SEMANTICS.md, "KTable changes").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "brook/internal/bytes_store.h"

namespace brook::internal {

// The cache memory of one stream thread (statestore.cache.max.bytes divided among the
// threads), shared by every caching store of that thread's tasks. An entry is charged
// entry_bytes(): its key and value bytes plus kEntryOverhead. Single-threaded.
class CacheBudget {
 public:
  // Roughly what an entry costs besides its bytes: its map node with LRU links, the
  // allocator's header.
  static constexpr std::size_t kEntryOverhead = 144;
  static constexpr std::size_t entry_bytes(std::size_t key_size, std::size_t value_size) {
    return key_size + value_size + kEntryOverhead;
  }

  explicit CacheBudget(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  std::size_t max_bytes() const { return max_bytes_; }
  std::size_t used_bytes() const { return used_bytes_; }
  // True if giving back `release` bytes and taking `take` bytes stays within the budget.
  bool fits(std::size_t release, std::size_t take) const {
    return used_bytes_ - release + take <= max_bytes_;
  }
  // Charges `bytes`; may go over the budget (the caller then evicts).
  void take(std::size_t bytes) { used_bytes_ += bytes; }
  // Gives back `bytes` taken earlier.
  void release(std::size_t bytes) { used_bytes_ -= bytes; }

 private:
  std::size_t max_bytes_;
  std::size_t used_bytes_ = 0;
};

// put() only writes into the cache (a dirty entry; a delete is a dirty tombstone); get()
// answers from the cache, else reads below and caches what it found (clean). A write-down of
// a key reads the value below (unless the cache knows it: the key was cached clean before its
// first update since the last write-down), writes the new one and tells the listener; flush()
// writes every dirty key down in key order; when an insertion would take the budget over its
// maximum, this store first writes down and drops its own least recently used entries, and
// if the entry still does not fit it is written straight down (a budget of 0 turns the
// cache off). Destroying the store drops unflushed writes, as a dirty close must.
class CachingStore final : public KeyValueBytesStore {
 public:
  // `budget` must not be null.
  CachingStore(std::unique_ptr<KeyValueBytesStore> inner, std::shared_ptr<CacheBudget> budget);
  ~CachingStore() override;
  CachingStore(const CachingStore&) = delete;
  CachingStore& operator=(const CachingStore&) = delete;

  bool set_flush_listener(CacheFlushListener listener) override {
    listener_ = std::move(listener);
    return true;
  }
  KeyValueBytesStore& inner() { return *inner_; }

  const std::string& name() const override { return inner_->name(); }
  // A miss may evict (writing entries down) to make room for what it caches; the status of
  // such a write-down is returned.
  Result<std::optional<std::string>> get(std::string_view key) override;
  // An error comes from a write-down; the logical content is then as before the call.
  Status put(std::string_view key, std::optional<std::string_view> value) override;
  // The cache merged over the store below; `visit` must not call this store at all.
  Status scan(const KeyRange& range, const ScanVisitor& visit) override;
  // The store below's count: unflushed writes are not counted.
  Result<std::int64_t> approximate_count() override { return inner_->approximate_count(); }
  // Writes every dirty entry down (keeping values cached, dropping tombstones), then flushes
  // the store below. Stops at the first error and returns it.
  Status flush() override;
  // FailedPrecondition if writes were made since the last flush(); else commits below.
  Status commit(std::optional<Offset> changelog_next) override;
  std::optional<Offset> committed_offset() const override { return inner_->committed_offset(); }
  bool persistent() const override { return inner_->persistent(); }

 private:
  struct Entry;
  using Node = std::pair<const std::string, Entry>;
  struct Entry {
    std::optional<std::string> value;  // nullopt: a tombstone
    bool dirty = false;
    // A dirty entry's value below (nullopt: absent), if known: its clean value before the
    // update. Spares write_down() a read; charged to the budget like the value.
    bool below_known = false;
    std::optional<std::string> below;
    Node* older = nullptr;  // LRU links
    Node* newer = nullptr;
  };
  using Entries = std::map<std::string, Entry, std::less<>>;
  // What the store below holds for a key if the cache knows it: the value, nullopt if absent.
  using KnownBelow = std::optional<std::optional<std::string_view>>;

  static std::size_t charge(const Node& node);
  static KnownBelow known_below(const Entry& entry);
  void link_newest(Node& node);
  void unlink(Node& node);
  void touch(Node& node);
  // Drops `it` from the cache without writing it down; returns the next entry.
  Entries::iterator erase(Entries::iterator it);
  // Evicts least recently used entries other than `keep` until releasing `release` bytes and
  // taking `take` fits the budget, or only `keep` is left.
  Status make_room(const Node* keep, std::size_t release, std::size_t take);
  // Writes `value` for `key` down and tells the listener; reads the value below first unless
  // `below` has it.
  Status write_down(std::string_view key, std::optional<std::string_view> value, KnownBelow below);

  std::unique_ptr<KeyValueBytesStore> inner_;
  std::shared_ptr<CacheBudget> budget_;
  CacheFlushListener listener_;
  Entries entries_;
  Node* oldest_ = nullptr;
  Node* newest_ = nullptr;
  std::size_t bytes_ = 0;  // charged to budget_ for entries_
  // The dirty entries in key order: flush() writes them down without visiting clean ones.
  struct KeyOrder {
    bool operator()(const Node* a, const Node* b) const { return a->first < b->first; }
  };
  std::set<Node*, KeyOrder> dirty_;
};

}  // namespace brook::internal

// The record cache of one store (DESIGN.md, state layer), as Kafka Streams' CachingKeyValueStore
// over its ThreadCache: a store decorator that keeps writes in memory, collapses several updates
// of a key into one, and writes them down to the store below on flush() or when the stream
// thread's budget (state/record_cache.h) forces an eviction. Its flush listener sees one
// (new, old) change per key per write-down, with the headers of the record that wrote the key
// last (SEMANTICS.md, "KTable changes").
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "brook/internal/bytes_store.h"
#include "brook/metrics.h"
#include "state/cache_entry.h"
#include "state/cache_table.h"
#include "state/record_cache.h"

namespace brook::internal {

// put() only writes into the cache (a dirty entry; a delete is a dirty tombstone); get()
// answers from the cache, else reads below and caches what it found (clean) if that fits
// without evicting anything: a read never makes room, so a lookup of a table larger than the
// budget costs no eviction, and what is cached stays until writes need its room. A write-down
// of a key reads the value below unless the cache knows it (the key was cached clean before its
// first update since the last write-down, or was the last one read below), writes the new one
// and tells the listener; flush() writes every dirty key down. An insertion that would take the
// budget over its maximum first makes room (RecordCache::make_room), and if the entry still
// does not fit it is written straight down (a budget of 0 turns the cache off). Destroying
// the store drops unflushed writes, as a dirty close must.
class CachingStore final : public KeyValueBytesStore {
 public:
  // `hit_ratio`, if given, records each get(): 1 if it did not read below, 0 if it did.
  CachingStore(std::unique_ptr<KeyValueBytesStore> inner, std::shared_ptr<RecordCache> cache,
               Sensor* hit_ratio = nullptr);
  ~CachingStore() override;
  CachingStore(const CachingStore&) = delete;
  CachingStore& operator=(const CachingStore&) = delete;

  bool set_flush_listener(CacheFlushListener listener) override {
    listener_ = std::move(listener);
    return true;
  }
  KeyValueBytesStore& inner() { return *inner_; }

  const std::string& name() const override { return inner_->name(); }
  // A miss may make room for what it caches, writing entries down: such a write-down's
  // failure is returned.
  Result<std::optional<std::string>> get(std::string_view key) override;
  Result<bool> get_into(std::string_view key, std::string& value) override;
  // Answers like get() without changing the cache (for queries from other threads).
  Result<std::optional<std::string>> read(std::string_view key) override;
  // Starts loading the slots of `key` (kSlot), or the entry they point at (kEntry). Never
  // reads below.
  void prefetch(std::string_view key, PrefetchStep step) const override;
  // An error comes from a write-down; the logical content is then as before the call.
  Status put(std::string_view key, std::optional<std::string_view> value) override;
  void set_record_headers(const Headers* headers) override { headers_ = headers; }
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

  // The bytes this store has charged to the budget.
  std::size_t charged_bytes() const { return charged_; }
  std::size_t entries() const { return table_.size(); }

  // RecordCache::make_room(): sweeps this store's clean entries, or its dirty ones, `turns`
  // times around until `done()`, evicting those not used since the sweep last passed them:
  // clean ones dropped, dirty ones written down first. The others are passed over, their use
  // unseen.
  Status evict(bool dirty, int turns, const std::function<bool()>& done);

 private:
  class OrderedIndex;

  // Makes room for an entry of `key` that needs `bytes`, keeping the one in `slot` (kNone:
  // none) cached. Returns the entry's slot afterwards (it may move), kNone if it has none.
  Result<std::size_t> make_room(std::size_t bytes, std::string_view key, std::size_t hash,
                                std::size_t slot);
  // What an entry of `bytes` needs beyond what the one in `slot` (kNone: none) is charged.
  std::size_t extra_for(std::size_t bytes, std::size_t slot) const;
  // What get() answers, as a view valid until the next call on this store.
  Result<std::optional<std::string_view>> lookup(std::string_view key);
  // Caches `value` of `key` read from below, clean, if it fits without making room: its slot,
  // kNone if it did not fit.
  std::size_t cache_clean(std::string_view key, std::size_t hash, std::string_view value);
  std::size_t insert(char* block, std::size_t hash);
  // After the entry in `slot` was written: malloc may have given its block more than
  // estimated; evicts others if that took the budget over its maximum.
  Status settle(std::size_t slot);
  // Replaces the block in `slot` with the entry's new content.
  void rewrite(std::size_t slot, KnownBelow below, std::optional<std::string_view> value,
               std::string_view headers, bool dirty);
  void erase(std::size_t slot);
  // Writes the entry in `slot` down and tells the listener; the entry stays dirty.
  Status write_down(std::size_t slot);
  // Writes `value` for `key` straight down, telling the listener.
  Status write_through(std::string_view key, std::optional<std::string_view> value,
                       KnownBelow below, std::string_view headers);
  // What a put or a cached read costs beyond the block: the index's growth.
  std::size_t index_growth() const;
  void recharge(std::ptrdiff_t delta);
  std::string_view current_headers();

  std::unique_ptr<KeyValueBytesStore> inner_;
  std::shared_ptr<RecordCache> cache_;
  Sensor* hit_ratio_;
  CacheFlushListener listener_;
  CacheTable table_;
  std::unique_ptr<OrderedIndex> ordered_;  // made by the first scan, kept from then on
  std::size_t charged_ = 0;
  std::size_t hand_ = 0;   // the eviction sweep's position in table_
  std::size_t dirty_ = 0;  // dirty entries
  // What get() last read below and did not cache (absent, or no room), until the key is put
  // or the store flushed: the put of a read-modify-write then knows what is below.
  struct LastRead {
    std::string key;
    std::string value;
    bool present = false;  // else the key is absent below
    bool valid = false;

    bool holds(std::string_view k) const { return valid && key == k; }
    std::optional<std::string_view> below() const {
      return present ? std::optional<std::string_view>(value) : std::nullopt;
    }
  };
  LastRead last_read_;
  std::string put_below_;             // the value put() took out of last_read_
  const Headers* headers_ = nullptr;  // set_record_headers()
  std::string encoded_headers_;
};

}  // namespace brook::internal

// LocalStore: one store of one task as the rest of the application sees it. It is the top
// of the store's decorator stack: it serialises every call with a lock (interactive queries
// read from other threads), notes whether the task wrote since the last commit, and tracks
// the store's phase and restoration progress. The stores of one stream thread share one lock,
// as they share its record cache (an eviction for one store may drop another's entries).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "backend/log_backend.h"
#include "brook/internal/store_spec.h"
#include "state/store_stack.h"

namespace brook::internal {

class LocalStore final : public KeyValueBytesStore {
 public:
  enum class Phase { kRestoring, kActive, kClosed };

  // `changelog`: the partition that logs this store, if it has one. `lock`: the lock shared
  // with the other stores of the same record cache; null: a lock of its own.
  LocalStore(const StoreSpec& spec, TaskId task, StoreStack stack,
             std::optional<TopicPartition> changelog,
             std::shared_ptr<std::recursive_mutex> lock = nullptr);

  const StoreSpec& spec() const { return spec_; }
  TaskId task() const { return task_; }
  const std::optional<TopicPartition>& changelog() const { return changelog_; }

  // KeyValueBytesStore, each call under the lock.
  const std::string& name() const override { return spec_.name; }
  Result<std::optional<std::string>> get(std::string_view key) override;
  Result<bool> get_into(std::string_view key, std::string& value) override;
  // Without the lock: a hint reads nothing another thread writes (only the task's thread
  // writes its stores).
  void prefetch(std::string_view key, PrefetchStep step) const override {
    stack_.top->prefetch(key, step);
  }
  Status put(std::string_view key, std::optional<std::string_view> value) override;
  Status scan(const KeyRange& range, const ScanVisitor& visit) override;
  Result<std::int64_t> approximate_count() override;
  Status flush() override;
  Status commit(std::optional<Offset> changelog_next) override;
  std::optional<Offset> committed_offset() const override;
  Status commit_positions(const std::map<std::int32_t, Offset>& next) override;
  std::map<std::int32_t, Offset> committed_positions() const override;
  bool persistent() const override;
  bool set_flush_listener(CacheFlushListener listener) override;
  void set_record_headers(const Headers* headers) override;

  // True (and reset) if anything was written since the last call.
  bool take_written();

  // Restoration: changelog records go straight to the bottom store, below cache and log.
  // `restored`/`total` count records for progress reports; `total` also sizes the bottom store
  // (KeyValueBytesStore::reserve_for_restore).
  void start_restoring(std::int64_t total);
  // Restores a batch of one changelog partition's records (`parts`, in offset order) and the
  // offset it reaches, `next`, under one lock: a query sees the batch whole or not at all.
  Status restore_batch(std::span<const std::span<const ConsumedRecord>> parts, Offset next);
  // Ends a restoration from the changelog: the bottom store loads what it buffered (flush()),
  // then the store is active. On failure it stays restoring.
  Status finish_restore();
  // Ends a restoration with nothing buffered (a global store's, made with put()).
  void activate();
  std::int64_t restored() const;
  // True while the store restores (for its lag).
  bool restoring() const;
  // committed_offset() for other threads: kUnavailable once the store is closed.
  Result<std::optional<Offset>> changelog_position() const;
  // The end of the changelog as the thread restoring the store last saw it (a standby's
  // consumer knows it from its fetches), if it said: its lag without asking the log.
  void set_seen_changelog_end(Offset end);
  std::optional<Offset> seen_changelog_end() const;

  // For interactive queries from other threads: `fn(store)` under the lock if the store is
  // active, or, with `allow_stale`, restoring (a standby's store restores for good: it is read
  // only with `allow_stale`); otherwise kUnavailable saying why it cannot answer (restoring,
  // with its progress; closed: the task migrated).
  template <class Fn>
  auto query(Fn fn, bool allow_stale = false) -> decltype(fn(std::declval<KeyValueBytesStore&>())) {
    std::lock_guard lock(*mutex_);
    if (phase_ != Phase::kActive && !(allow_stale && phase_ == Phase::kRestoring)) {
      return error(unavailable());
    }
    return fn(*stack_.top);
  }

  // Closes the stack. Writes since the last commit are lost (a dirty close) unless commit()
  // came first. Queries after this say the store migrated.
  void close();

 private:
  Status unavailable() const;
  // Restores `records` into the bottom store, under the lock.
  Status restore_records(std::span<const ConsumedRecord> records);

  const StoreSpec& spec_;
  TaskId task_;
  std::optional<TopicPartition> changelog_;
  // Recursive: a cache flush may come back in through a listener.
  std::shared_ptr<std::recursive_mutex> mutex_;
  StoreStack stack_;
  Phase phase_ = Phase::kActive;
  std::optional<Offset> seen_end_;
  bool written_ = false;
  std::int64_t restored_ = 0;
  std::int64_t to_restore_ = 0;
};

}  // namespace brook::internal

#include "runtime/local_store.h"

#include <fmt/format.h>

#include "brook/internal/coding.h"

namespace brook::internal {

LocalStore::LocalStore(const StoreSpec& spec, TaskId task, StoreStack stack,
                       std::optional<TopicPartition> changelog,
                       std::shared_ptr<std::recursive_mutex> lock)
    : spec_(spec),
      task_(task),
      changelog_(std::move(changelog)),
      mutex_(lock ? std::move(lock) : std::make_shared<std::recursive_mutex>()),
      stack_(std::move(stack)) {}

Result<std::optional<std::string>> LocalStore::get(std::string_view key) {
  std::lock_guard lock(*mutex_);
  return stack_.top->get(key);
}

Result<bool> LocalStore::get_into(std::string_view key, std::string& value) {
  std::lock_guard lock(*mutex_);
  return stack_.top->get_into(key, value);
}

Status LocalStore::put(std::string_view key, std::optional<std::string_view> value) {
  std::lock_guard lock(*mutex_);
  written_ = true;
  return stack_.top->put(key, value);
}

Status LocalStore::scan(const KeyRange& range, const ScanVisitor& visit) {
  std::lock_guard lock(*mutex_);
  return stack_.top->scan(range, visit);
}

Result<std::int64_t> LocalStore::approximate_count() {
  std::lock_guard lock(*mutex_);
  return stack_.top->approximate_count();
}

Status LocalStore::flush() {
  std::lock_guard lock(*mutex_);
  return stack_.top->flush();
}

Status LocalStore::commit(std::optional<Offset> changelog_next) {
  std::lock_guard lock(*mutex_);
  return stack_.top->commit(changelog_next);
}

std::optional<Offset> LocalStore::committed_offset() const {
  std::lock_guard lock(*mutex_);
  return stack_.top->committed_offset();
}

Status LocalStore::commit_positions(const std::map<std::int32_t, Offset>& next) {
  std::lock_guard lock(*mutex_);
  return stack_.top->commit_positions(next);
}

std::map<std::int32_t, Offset> LocalStore::committed_positions() const {
  std::lock_guard lock(*mutex_);
  return stack_.top->committed_positions();
}

bool LocalStore::persistent() const {
  std::lock_guard lock(*mutex_);
  return stack_.top->persistent();
}

bool LocalStore::set_flush_listener(CacheFlushListener listener) {
  std::lock_guard lock(*mutex_);
  return stack_.top->set_flush_listener(std::move(listener));
}

void LocalStore::set_record_headers(const Headers* headers) {
  std::lock_guard lock(*mutex_);
  stack_.top->set_record_headers(headers);
}

bool LocalStore::take_written() {
  std::lock_guard lock(*mutex_);
  return std::exchange(written_, false);
}

void LocalStore::start_restoring(std::int64_t total) {
  std::lock_guard lock(*mutex_);
  phase_ = Phase::kRestoring;
  restored_ = 0;
  to_restore_ = total;
  stack_.bottom->reserve_for_restore(total);
}

Status LocalStore::restore_batch(std::span<const std::span<const ConsumedRecord>> parts,
                                 Offset next) {
  std::lock_guard lock(*mutex_);
  for (const auto& records : parts) {
    if (auto s = restore_records(records); !s.ok()) return s;
  }
  return stack_.bottom->commit(next);
}

Status LocalStore::restore_records(std::span<const ConsumedRecord> records) {
  // The store starts looking for a key this many records before it is restored (its slots),
  // and half as many before, what they point at: a restored key is rarely in a CPU cache, and
  // the lookups' misses then overlap.
  constexpr std::size_t kPrefetchAhead = 16;
  std::string timestamped;  // a timestamped store's value: [record timestamp][changelog value]
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (i + kPrefetchAhead < records.size() && records[i + kPrefetchAhead].key) {
      stack_.bottom->prefetch(*records[i + kPrefetchAhead].key, PrefetchStep::kSlot);
    }
    if (i + kPrefetchAhead / 2 < records.size() && records[i + kPrefetchAhead / 2].key) {
      stack_.bottom->prefetch(*records[i + kPrefetchAhead / 2].key, PrefetchStep::kEntry);
    }
    const ConsumedRecord& record = records[i];
    std::optional<StoreEntry> row;  // a table's source topic: the record as the store's row
    if (spec_.from_source) {
      row = spec_.from_source(record.key, record.value, record.timestamp);
      if (!row) continue;  // as the table's source skipped it
    } else if (!record.key) {
      continue;  // a changelog record always has a key; skip anything else
    }
    ++restored_;
    std::optional<std::string_view> value = record.value;
    if (spec_.timestamped && !row && value) {
      timestamped.resize(8);
      put_big_endian(timestamped.data(), record.timestamp.value());
      value = timestamped.append(*value);
    }
    auto s = row ? stack_.bottom->restore(row->key, row->value)
                 : stack_.bottom->restore(*record.key, value);
    if (!s.ok()) return s;
  }
  return {};
}

Status LocalStore::finish_restore() {
  std::lock_guard lock(*mutex_);
  if (auto s = stack_.bottom->flush(); !s.ok()) return s;
  phase_ = Phase::kActive;
  return {};
}

void LocalStore::activate() {
  std::lock_guard lock(*mutex_);
  phase_ = Phase::kActive;
}

std::int64_t LocalStore::restored() const {
  std::lock_guard lock(*mutex_);
  return restored_;
}

bool LocalStore::restoring() const {
  std::lock_guard lock(*mutex_);
  return phase_ == Phase::kRestoring;
}

Result<std::optional<Offset>> LocalStore::changelog_position() const {
  std::lock_guard lock(*mutex_);
  if (phase_ == Phase::kClosed) return error(unavailable());
  return stack_.top->committed_offset();
}

void LocalStore::set_seen_changelog_end(Offset end) {
  std::lock_guard lock(*mutex_);
  seen_end_ = end;
}

std::optional<Offset> LocalStore::seen_changelog_end() const {
  std::lock_guard lock(*mutex_);
  return seen_end_;
}

Status LocalStore::unavailable() const {
  if (phase_ == Phase::kRestoring) {
    return Status::unavailable(
        fmt::format("store {} of task {} is restoring ({} of about {} changelog records so far); "
                    "query again when it is done",
                    spec_.name, task_.to_string(), restored_, to_restore_));
  }
  return Status::unavailable(
      fmt::format("store {} of task {} is closed: the task migrated or the application stopped",
                  spec_.name, task_.to_string()));
}

void LocalStore::close() {
  std::lock_guard lock(*mutex_);
  phase_ = Phase::kClosed;
  stack_.top.reset();
  stack_.bottom = nullptr;
}

}  // namespace brook::internal

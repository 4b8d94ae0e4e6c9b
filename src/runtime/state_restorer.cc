#include "runtime/state_restorer.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <span>

#include "core/log.h"

namespace brook::internal {
namespace {

constexpr auto kProgressInterval = std::chrono::seconds(10);

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Result<Offset> first_missing_offset(Admin& admin, const LocalStore& store) {
  auto earliest = admin.list_offset(*store.changelog(), {.kind = OffsetSpec::Kind::kEarliest});
  if (!earliest) return error(std::move(earliest.error()));
  return std::max(store.committed_offset().value_or(*earliest), *earliest);
}

StateRestorer::StateRestorer(std::unique_ptr<Consumer> consumer, Admin& admin, std::string group,
                             Metrics& metrics, std::shared_ptr<StateRestoreListener> listener)
    : consumer_(std::move(consumer)),
      admin_(admin),
      group_(std::move(group)),
      metrics_(metrics),
      listener_(std::move(listener)) {}

Result<bool> StateRestorer::add(StreamTask& task) {
  bool added = false;
  for (const auto& store : task.stores().stores()) {
    if (!store->changelog()) continue;
    const TopicPartition& tp = *store->changelog();
    auto first = first_missing_offset(admin_, *store);
    if (!first) return error(std::move(first.error()));
    auto found_end = restore_end(*store, tp);
    if (!found_end) return error(std::move(found_end.error()));
    if (!*found_end) continue;
    const Offset end = **found_end;
    const Offset start = *first;
    if (start >= end) continue;
    store->start_restoring(end.value() - start.value());
    const auto now = std::chrono::steady_clock::now();
    partitions_[tp] = {
        .store = store.get(),
        .position = start,
        .end = end,
        .started = now,
        .last_report = now,
        .restored = &metrics_.counter(
            {.group = "stream-state-metrics",
             .name = "restore-total",
             .tags = {{"task-id", store->task().to_string()}, {"store", store->name()}}})};
    log(LogLevel::kInfo, "task {}: restoring store {} from {} offsets {} to {}",
        store->task().to_string(), store->name(), tp.to_string(), start.value(), end.value());
    if (listener_) listener_->on_restore_start(store->name(), store->task(), start, end);
    added = true;
  }
  if (added) {
    if (auto s = reassign(); !s.ok()) return error(std::move(s));
  }
  return added;
}

Result<std::optional<Offset>> StateRestorer::restore_end(const LocalStore& store,
                                                         const TopicPartition& changelog) {
  if (store.spec().source_topic.empty()) {
    // The high watermark, not the stable end: a transaction the previous owner left open (or
    // just committed, markers pending) is waited for, so nothing it committed is missed.
    auto end = admin_.list_offset(changelog, {.kind = OffsetSpec::Kind::kHighWatermark});
    if (!end) return error(std::move(end.error()));
    return std::optional<Offset>(*end);
  }
  // Past the committed offset the task processes the records itself.
  auto committed = admin_.committed_offsets(group_);
  if (!committed) return error(std::move(committed.error()));
  auto it = committed->find(changelog);
  if (it == committed->end()) return std::optional<Offset>();
  return std::optional<Offset>(it->second.offset);
}

Status StateRestorer::remove(TaskId task) {
  const auto before = partitions_.size();
  std::erase_if(partitions_, [&](const auto& entry) { return entry.second.store->task() == task; });
  return partitions_.size() == before ? Status() : reassign();
}

Status StateRestorer::reassign() {
  std::vector<TopicPartition> assignment;
  for (const auto& [tp, r] : partitions_) assignment.push_back(tp);
  if (auto s = consumer_->assign(assignment); !s.ok()) return s;
  for (const auto& [tp, r] : partitions_) {
    if (auto s = consumer_->seek(tp, r.position); !s.ok()) return s;
  }
  return {};
}

Result<std::vector<TaskId>> StateRestorer::restore(std::chrono::milliseconds budget) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  std::vector<TaskId> ready;
  while (busy() && std::chrono::steady_clock::now() < deadline) {
    // Short waits: a remote log delivers in fetches, an empty read moves positions to the end.
    auto batches = consumer_->poll_batches(std::chrono::milliseconds(10));
    if (!batches) return error(std::move(batches.error()));
    if (auto s = apply(*batches); !s.ok()) return error(std::move(s));
    std::vector<TaskId> finished;
    for (auto it = partitions_.begin(); it != partitions_.end();) {
      if (it->second.position < it->second.end) {
        ++it;
        continue;
      }
      if (auto s = finish(it->second); !s.ok()) return error(std::move(s));
      finished.push_back(it->second.store->task());
      it = partitions_.erase(it);
    }
    for (TaskId task : finished) {
      const bool more = std::any_of(partitions_.begin(), partitions_.end(),
                                    [&](const auto& e) { return e.second.store->task() == task; });
      if (!more && std::find(ready.begin(), ready.end(), task) == ready.end()) {
        ready.push_back(task);
      }
    }
    if (!finished.empty() && busy()) {
      if (auto s = reassign(); !s.ok()) return error(std::move(s));
    }
  }
  return ready;
}

Status StateRestorer::apply(const std::vector<RecordBatch>& batches) {
  // The stores whose position moved, with the records read for each.
  std::map<Restoring*, std::vector<std::span<const ConsumedRecord>>> touched;
  for (const RecordBatch& batch : batches) {
    auto it = partitions_.find(batch.partition);
    if (it == partitions_.end()) continue;
    Restoring& r = it->second;
    auto& parts = touched[&r];
    // Offsets ascend: the records up to the end found at the start.
    const auto last =
        std::find_if(batch.records.begin(), batch.records.end(),
                     [&](const ConsumedRecord& record) { return record.offset >= r.end; });
    if (last == batch.records.begin()) continue;
    const std::span<const ConsumedRecord> restored(batch.records.begin(), last);
    parts.push_back(restored);
    r.position = Offset(restored.back().offset.value() + 1);
    *r.restored += static_cast<std::int64_t>(restored.size());
  }
  for (auto& [tp, r] : partitions_) {
    // Past transaction markers and compacted gaps too.
    auto position = consumer_->position(tp);
    if (position && *position > r.position) {
      r.position = std::min(*position, r.end);
      touched.try_emplace(&r);
    }
  }
  for (auto& [r, parts] : touched) {
    // The records and the offset they reach land together: a crash now resumes from here.
    if (auto s = r->store->restore_batch(parts, r->position); !s.ok()) return s;
    if (listener_) {
      listener_->on_batch_restored(r->store->name(), r->store->task(), r->position,
                                   r->store->restored());
    }
    if (std::chrono::steady_clock::now() - r->last_report >= kProgressInterval) report(*r);
  }
  return {};
}

double StateRestorer::rate(const Restoring& r) {
  const double elapsed = seconds_since(r.started);
  return elapsed > 0 ? static_cast<double>(r.store->restored()) / elapsed : 0;
}

Status StateRestorer::finish(Restoring& r) {
  if (auto s = r.store->finish_restore(); !s.ok()) return s;
  const auto restored = r.store->restored();
  log(LogLevel::kInfo, "task {}: restored store {}: {} records in {:.1f} s ({:.0f} records/s)",
      r.store->task().to_string(), r.store->name(), restored, seconds_since(r.started), rate(r));
  if (listener_) listener_->on_restore_end(r.store->name(), r.store->task(), restored);
  return {};
}

void StateRestorer::report(Restoring& r) {
  r.last_report = std::chrono::steady_clock::now();
  log(LogLevel::kInfo,
      "task {}: restoring store {}: {} records so far, offset {} of {} ({:.0f} records/s)",
      r.store->task().to_string(), r.store->name(), r.store->restored(), r.position.value(),
      r.end.value(), rate(r));
}

}  // namespace brook::internal

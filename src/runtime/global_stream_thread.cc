#include "runtime/global_stream_thread.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/log.h"
#include "core/wall_clock.h"

namespace brook::internal {
namespace {

// What the restore listener is told for partition `tp` of a global store's topic.
TaskId task_of(const LocalStore& store, const TopicPartition& tp) {
  return global_task_id(store.task().subtopology, tp.partition.value());
}

}  // namespace

void GlobalGate::open() {
  {
    std::lock_guard lock(mutex_);
    open_ = true;
  }
  changed_.notify_all();
}

void GlobalGate::fail(Status status) {
  {
    std::lock_guard lock(mutex_);
    failure_ = std::move(status);
    failed_.store(true);
  }
  changed_.notify_all();
}

bool GlobalGate::wait(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return open_ || failed_.load(); });
}

Status GlobalGate::status() const {
  if (!failed_.load()) return {};
  std::lock_guard lock(mutex_);
  return failure_;
}

GlobalStreamThread::GlobalStreamThread(const StreamsConfig& config,
                                       std::shared_ptr<const TopologyData> topology,
                                       LogBackend& backend, Metrics& metrics, StateConfig state,
                                       std::shared_ptr<StateRestoreListener> restore_listener,
                                       FailureListener on_failure)
    : config_(config),
      topology_(std::move(topology)),
      backend_(backend),
      metrics_(metrics),
      state_(std::move(state)),
      restore_listener_(std::move(restore_listener)),
      on_failure_(std::move(on_failure)) {}

GlobalStreamThread::~GlobalStreamThread() {
  request_stop();
  (void)join();
}

Status GlobalStreamThread::start() {
  auto stores = open_global_stores(*topology_, state_);
  if (!stores) return stores.error();
  stores_ = std::move(*stores);
  const std::string client_id = config_.application_id + "-GlobalStreamThread";
  auto consumer = backend_.make_consumer(
      {.client_id = client_id, .read_committed = true, .max_poll_records = 10'000});
  if (!consumer) return consumer.error();
  consumer_ = std::move(*consumer);
  if (config_.errors.on_deserialization_error == ErrorAction::kDeadLetter ||
      config_.errors.on_processing_error == ErrorAction::kDeadLetter) {
    auto producer = backend_.make_producer({.client_id = client_id});
    if (!producer) return producer.error();
    producer_ = std::move(*producer);
  }
  updater_ = std::make_unique<GlobalStateUpdater>(
      topology_, stores_,
      GlobalStateUpdater::Config{.application_id = config_.application_id,
                                 .errors = config_.errors,
                                 .clock = wall_clock,
                                 .dead_letters = producer_ ? this : nullptr},
      metrics_);
  if (auto s = updater_->init(); !s.ok()) return s;
  thread_ = std::thread([this] { run(); });
  return {};
}

Status GlobalStreamThread::join() {
  if (thread_.joinable()) thread_.join();
  if (updater_) updater_->close();
  updater_.reset();
  close_global_stores(stores_, state_.registry);
  return result_;
}

void GlobalStreamThread::send(const std::string& topic, const OutgoingRecord& record) {
  if (!fatal_.ok()) return;
  if (auto s = producer_->send(topic, record); !s.ok()) fatal_ = s;
}

void GlobalStreamThread::run() {
  result_ = loop();
  if (!result_.ok()) {
    log(LogLevel::kError, "global thread stopped: {}", result_.to_string());
    gate_->fail(result_);
    if (on_failure_) on_failure_(result_);
  }
  if (auto s = consumer_->close(); !s.ok() && result_.ok()) result_ = s;
}

Status GlobalStreamThread::loop() {
  auto& admin = backend_.admin();
  // Where each partition starts: the position its stores committed (the smallest, if several
  // stores read one topic), else the beginning; and where restoration ends.
  std::map<TopicPartition, Offset> start, end;
  for (const auto& topic : updater_->topics()) {
    auto description = admin.describe_topic(topic);
    if (!description) return description.error();
    const auto stores = updater_->stores_of(topic);
    for (std::int32_t p = 0; p < description->partitions; ++p) {
      const TopicPartition tp{topic, Partition(p)};
      auto earliest = admin.list_offset(tp, {.kind = OffsetSpec::Kind::kEarliest});
      if (!earliest) return earliest.error();
      auto latest = admin.list_offset(tp, {.kind = OffsetSpec::Kind::kLatest});
      if (!latest) return latest.error();
      std::optional<Offset> from;
      for (LocalStore* store : stores) {
        auto committed = store->committed_positions();
        auto it = committed.find(p);
        const Offset at = it == committed.end() ? *earliest : std::max(it->second, *earliest);
        from = from ? std::min(*from, at) : at;
      }
      start[tp] = from.value_or(*earliest);
      end[tp] = *latest;
      partitions_.push_back(tp);
    }
  }
  if (auto s = consumer_->assign(partitions_); !s.ok()) return s;
  for (const auto& [tp, offset] : start) {
    if (auto s = consumer_->seek(tp, offset); !s.ok()) return s;
  }

  // Restoration: to the end offsets found above, before any stream thread processes.
  const auto started = std::chrono::steady_clock::now();
  std::map<std::string, std::int64_t> to_restore;  // by store
  for (const auto& [tp, to] : end) {
    if (start.at(tp) >= to) continue;
    for (LocalStore* store : updater_->stores_of(tp.topic)) {
      to_restore[store->name()] += to.value() - start.at(tp).value();
      log(LogLevel::kInfo, "global store {}: restoring from {} offsets {} to {}", store->name(),
          tp.to_string(), start.at(tp).value(), to.value());
      if (restore_listener_) {
        restore_listener_->on_restore_start(store->name(), task_of(*store, tp), start.at(tp), to);
      }
    }
  }
  for (const auto& [name, total] : to_restore) stores_.at(name)->start_restoring(total);
  auto restored_of = [&](const std::string& store) -> Metrics::Counter& {
    return metrics_.counter({.group = "stream-state-metrics",
                             .name = "restore-total",
                             .tags = {{"task-id", "global"}, {"store", store}}});
  };
  std::map<TopicPartition, std::int64_t> restored;
  std::map<TopicPartition, Offset> reached = start;  // past records read, markers, gaps
  auto behind = [&] {
    return std::any_of(end.begin(), end.end(),
                       [&](const auto& e) { return reached.at(e.first) < e.second; });
  };
  while (!stop_.load() && behind()) {
    auto records = consumer_->poll(std::chrono::milliseconds(10));
    if (!records) return records.error();
    for (auto& record : *records) {
      const TopicPartition tp{record.topic, record.partition};
      if (auto s = updater_->process(record); !s.ok()) return s;
      reached[tp] = std::max(reached[tp], Offset(record.offset.value() + 1));
      if (record.offset < end.at(tp)) {
        ++restored[tp];
        for (LocalStore* store : updater_->stores_of(record.topic)) ++restored_of(store->name());
      }
    }
    if (!fatal_.ok()) return fatal_;
    for (auto& [tp, at] : reached) {
      if (auto position = consumer_->position(tp); position && *position > at) at = *position;
    }
    if (records->empty()) continue;
    if (auto s = commit(); !s.ok()) return s;
    if (restore_listener_) {
      for (const auto& [tp, count] : restored) {
        for (LocalStore* store : updater_->stores_of(tp.topic)) {
          restore_listener_->on_batch_restored(store->name(), task_of(*store, tp), reached.at(tp),
                                               count);
        }
      }
    }
  }
  if (stop_.load()) return commit();
  for (const auto& [tp, to] : end) {
    if (start.at(tp) >= to) continue;
    for (LocalStore* store : updater_->stores_of(tp.topic)) {
      if (restore_listener_) {
        restore_listener_->on_restore_end(store->name(), task_of(*store, tp), restored[tp]);
      }
    }
  }
  for (auto& [name, store] : stores_) store->activate();
  if (!to_restore.empty()) {
    log(LogLevel::kInfo, "global stores restored in {:.1f} s",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
  gate_->open();

  // Then on: apply records as they arrive, commit the stores at the commit interval.
  last_commit_ = std::chrono::steady_clock::now();
  while (!stop_.load()) {
    auto records = consumer_->poll(config_.poll);
    if (!records) return records.error();
    for (auto& record : *records) {
      if (auto s = updater_->process(record); !s.ok()) return s;
    }
    if (!fatal_.ok()) return fatal_;
    dirty_ = dirty_ || !records->empty();
    if (dirty_ && std::chrono::steady_clock::now() - last_commit_ >= config_.commit_interval) {
      if (auto s = commit(); !s.ok()) return s;
    }
  }
  return commit();
}

Status GlobalStreamThread::commit() {
  if (producer_) {
    if (auto s = producer_->flush(); !s.ok()) return s;
  }
  std::map<TopicPartition, Offset> positions;
  for (const auto& tp : partitions_) {
    if (auto position = consumer_->position(tp)) positions.emplace(tp, *position);
  }
  if (auto s = updater_->commit(positions); !s.ok()) return s;
  dirty_ = false;
  last_commit_ = std::chrono::steady_clock::now();
  return {};
}

}  // namespace brook::internal

#include "runtime/stream_thread.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "core/log.h"
#include "core/transition_table.h"
#include "core/wall_clock.h"
#include "runtime/state_restorer.h"

namespace brook::internal {

namespace {

Sensor& thread_sensor(Metrics& metrics, const char* name, int index) {
  return metrics.sensor({.group = "stream-thread-metrics",
                         .name = name,
                         .tags = {{"thread-id", std::to_string(index)}}},
                        Metrics::SensorKind::kLatency);
}

}  // namespace

StreamThread::StreamThread(int index, const StreamsConfig& config,
                           std::shared_ptr<const TopologyData> topology, LogBackend& backend,
                           Metrics& metrics, StateConfig state,
                           std::shared_ptr<StateRestoreListener> restore_listener,
                           PhaseListener on_phase)
    : index_(index),
      config_(config),
      topology_(std::move(topology)),
      backend_(backend),
      metrics_(metrics),
      dropped_(metrics.counter({.group = "stream-thread-metrics",
                                .name = "dropped-records-total",
                                .tags = {{"thread-id", std::to_string(index)}}})),
      poll_sensor_(thread_sensor(metrics, "poll", index)),
      process_sensor_(thread_sensor(metrics, "process", index)),
      punctuate_sensor_(thread_sensor(metrics, "punctuate", index)),
      commit_sensor_(thread_sensor(metrics, "commit", index)),
      state_(std::move(state)),
      restore_listener_(std::move(restore_listener)),
      on_phase_(std::move(on_phase)) {
  state_.cache = std::make_shared<RecordCache>(config_.cache_max_bytes / config_.num_threads);
  state_.cache_lock = std::make_shared<std::recursive_mutex>();
  state_.thread_id = std::to_string(index);
}

StreamThread::~StreamThread() {
  request_stop();
  if (thread_.joinable()) thread_.join();
}

Status StreamThread::start() {
  if (auto s = make_clients(); !s.ok()) return s;
  auto restore_consumer = backend_.make_consumer(
      {.client_id = client_id() + "-restore", .read_committed = true, .max_poll_records = 10'000});
  if (!restore_consumer) return restore_consumer.error();
  auto restorer =
      std::make_unique<StateRestorer>(std::move(*restore_consumer), backend_.admin(),
                                      config_.application_id, metrics_, restore_listener_);
  tasks_ = std::make_unique<TaskManager>(
      index_, *topology_,
      [this](TaskId id, std::vector<TopicPartition> inputs) { return make_task(id, inputs); },
      std::move(restorer), state_.registry, standbys_);
  thread_ = std::thread([this] { run(); });
  return {};
}

std::unique_ptr<StreamTask> StreamThread::make_task(TaskId id,
                                                    const std::vector<TopicPartition>& inputs) {
  return std::make_unique<StreamTask>(id, topology_,
                                      TaskConfig{.application_id = config_.application_id,
                                                 .errors = config_.errors,
                                                 .clock = wall_clock,
                                                 .state = state_,
                                                 .idle_advance = config_.stream_time_idle_advance,
                                                 .input_wait = input_wait(inputs)},
                                      *this, metrics_);
}

std::string StreamThread::client_id() const { return thread_client_id(config_, index_); }

Status StreamThread::make_clients() {
  // Static members and transactional producers need names unique across the instances.
  auto consumer =
      backend_.make_consumer({.group_id = config_.application_id,
                              .client_id = client_id(),
                              .group_instance_id = thread_group_instance_id(config_, index_),
                              .read_committed = true,
                              .max_poll_records = config_.max_poll_records});
  if (!consumer) return consumer.error();
  std::string transactional_id;
  if (config_.exactly_once) {
    transactional_id =
        fmt::format("{}-{}{}", config_.application_id,
                    config_.process_id.empty() ? "" : config_.process_id + "-", index_);
  }
  producer_.reset();  // the old one's transactional id is reused
  ProducerConfig producer_config{.client_id = client_id(), .transactional_id = transactional_id};
  if (config_.errors.on_production_error == ErrorAction::kLogAndContinue) {
    producer_config.on_refused = [this](const Status& refusal) { return drop_refused(refusal); };
  }
  auto producer = backend_.make_producer(producer_config);
  if (!producer) return producer.error();
  consumer_ = std::move(*consumer);
  producer_ = std::move(*producer);
  return {};
}

Status StreamThread::rejoin(const Status& cause) {
  log(LogLevel::kWarn, "stream thread {}: {}; dropping uncommitted work and rejoining the group",
      index_, cause.to_string());
  fatal_ = {};
  if (config_.exactly_once) (void)producer_->abort_transaction();  // fenced: made anew below
  close_tasks();
  committed_.clear();
  (void)consumer_->close();
  if (auto s = make_clients(); !s.ok()) return s;
  return subscribe();
}

Status StreamThread::join() {
  if (thread_.joinable()) thread_.join();
  return result_;
}

const char* StreamThread::to_string(Phase phase) {
  switch (phase) {
    case Phase::kStarting: return "STARTING";
    case Phase::kRebalancing: return "REBALANCING";
    case Phase::kRunning: return "RUNNING";
    case Phase::kStopped: return "STOPPED";
  }
  return "UNKNOWN";
}

bool StreamThread::is_legal_change(Phase from, Phase to) {
  using enum Phase;
  static constexpr std::pair<Phase, Phase> kLegal[] = {
      {kStarting, kRebalancing}, {kStarting, kStopped},    {kRebalancing, kRunning},
      {kRebalancing, kStopped},  {kRunning, kRebalancing}, {kRunning, kStopped},
  };
  return is_listed(kLegal, from, to);
}

void StreamThread::set_phase(Phase phase) {
  if (phase_ == phase) return;
  if (phase_ && !is_legal_change(*phase_, phase)) {
    throw std::logic_error(fmt::format("stream thread {}: no change of phase from {} to {}", index_,
                                       to_string(*phase_), to_string(phase)));
  }
  phase_ = phase;
  on_phase_(index_, phase, phase == Phase::kStopped ? result_ : Status());
}

void StreamThread::run() {
  set_phase(Phase::kStarting);
  result_ = loop();
  if (!result_.ok()) {
    log(LogLevel::kError, "stream thread {} stopped: {}", index_, result_.to_string());
    // No producer if making one anew (rejoin()) failed.
    if (config_.exactly_once && producer_) (void)producer_->abort_transaction();
    close_tasks();  // dirty: nothing more is committed, the failed records are read again
  }
  if (auto s = consumer_->close(); !s.ok() && result_.ok()) result_ = s;
  set_phase(Phase::kStopped);
}

Status StreamThread::subscribe() {
  if (auto s = consumer_->subscribe(tasks_->source_topics(), this); !s.ok()) return s;
  if (config_.exactly_once) {
    if (auto s = producer_->begin_transaction(); !s.ok()) return s;
  }
  set_phase(Phase::kRebalancing);
  return {};
}

Status StreamThread::loop() {
  if (global_gate_) {  // the global stores are restored before any task processes
    while (!stop_.load() && !global_gate_->wait(config_.poll)) {
    }
    if (auto s = global_gate_->status(); !s.ok()) return s;
    if (stop_.load()) return {};
  }
  if (standbys_ != nullptr) {  // the stores of the tasks it will get are warm first
    while (!stop_.load() && !standbys_->wait_for_warm_up(config_.poll)) {
    }
    if (stop_.load()) return {};
  }
  if (auto s = subscribe(); !s.ok()) return s;
  last_commit_ = std::chrono::steady_clock::now();
  while (!stop_.load()) {
    Status s = step();
    if (s.code() == StatusCode::kTaskMigrated) s = rejoin(s);
    if (!s.ok()) return s;
  }
  if (auto s = commit(); !s.ok()) return s;
  close_tasks();
  return {};
}

Status StreamThread::step() {
  if (global_gate_) {
    if (auto s = global_gate_->status(); !s.ok()) return s;
  }
  if (auto s = restore(); !s.ok()) return s;
  const Stopwatch polling;
  auto batches =
      consumer_->poll_batches(tasks_->restoring() ? std::chrono::milliseconds(0) : config_.poll);
  polling.record(poll_sensor_);
  if (!fatal_.ok()) return fatal_;
  if (!batches) return batches.error();
  for (auto& batch : *batches) tasks_->task_of(batch.partition).add_batch(std::move(batch));
  if (auto s = process_buffered(); !s.ok()) return s;
  if (auto s = limit_buffers(); !s.ok()) return s;
  // At least once: output goes out as soon as it is produced, acknowledged by the commit
  // (offsets follow it); exactly once: it lands with the transaction.
  if (!config_.exactly_once) {
    if (auto s = producer_->dispatch(); !s.ok()) return s;
  }
  for (StreamTask* task : tasks_->running()) {
    const Stopwatch punctuating;
    auto fired = task->punctuate_wall_clock();
    if (!fired) return fired.error();
    punctuating.record(punctuate_sensor_, *fired);
  }
  if (!fatal_.ok()) return fatal_;
  if (std::chrono::steady_clock::now() - last_commit_ >= config_.commit_interval) return commit();
  return {};
}

Status StreamThread::restore() {
  if (!tasks_->restoring()) return {};
  // Restoring tasks wait; the others go on between steps of at most one poll interval.
  if (auto s = tasks_->restore(config_.poll, *consumer_); !s.ok()) return s;
  if (!tasks_->restoring()) set_phase(Phase::kRunning);
  return {};
}

Status StreamThread::process_buffered() {
  // Round-robin over tasks, a bounded number of records each per pass, until all are empty.
  const Stopwatch processing;
  std::int64_t records = 0;
  bool more = true;
  while (more && fatal_.ok()) {
    more = false;
    for (StreamTask* task : tasks_->running()) {
      std::size_t processed = 0;
      for (; processed < config_.max_poll_records; ++processed) {
        auto one = task->process_one();
        if (!one) return one.error();
        if (!*one) break;  // nothing buffered, or waiting for an input
      }
      records += static_cast<std::int64_t>(processed);
      more = more || processed == config_.max_poll_records;
    }
  }
  processing.record(process_sensor_, records);
  return fatal_;
}

Status StreamThread::limit_buffers() {
  std::vector<TopicPartition> pause;
  std::vector<TopicPartition> resume;
  for (StreamTask* task : tasks_->running()) {
    for (const auto& [tp, count] : task->buffered_per_input()) {
      const bool full = count >= config_.buffered_records_per_partition;
      if (full == full_.contains(tp)) continue;
      if (full) {
        full_.insert(tp);
        pause.push_back(std::move(tp));
      } else {
        full_.erase(tp);
        resume.push_back(std::move(tp));
      }
    }
  }
  if (!pause.empty()) {
    if (auto s = consumer_->pause(pause); !s.ok()) return s;
  }
  if (!resume.empty()) return consumer_->resume(resume);
  return {};
}

Status StreamThread::commit() {
  const Stopwatch committing;
  for (StreamTask* task : tasks_->running()) {
    if (auto s = task->flush_state(); !s.ok()) return s;
  }
  if (!fatal_.ok()) return fatal_;
  const auto offsets = offsets_to_commit();
  last_commit_ = std::chrono::steady_clock::now();
  // Output and changelog writes first; then the stores, with the changelog offsets they
  // reached; then (at least once) the input offsets.
  if (config_.exactly_once) {
    if (auto s = producer_->send_offsets_to_transaction(with_partition_times(offsets),
                                                        *consumer_->group_metadata());
        !s.ok()) {
      return s;
    }
    if (auto s = producer_->commit_transaction(); !s.ok()) return s;
  } else if (auto s = producer_->flush(); !s.ok()) {
    return s;
  }
  auto changelog_end = [this](const TopicPartition& tp) {
    // Past this thread's records just committed, whose markers may still be on their way.
    return backend_.admin().list_offset(tp, {.kind = OffsetSpec::Kind::kHighWatermark});
  };
  for (StreamTask* task : tasks_->running()) {
    if (auto s = task->commit_state(changelog_end); !s.ok()) return s;
  }
  if (config_.exactly_once) {
    if (auto s = producer_->begin_transaction(); !s.ok()) return s;
  } else if (!offsets.empty()) {
    if (auto s = consumer_->commit_with_metadata(with_partition_times(offsets)); !s.ok()) return s;
  }
  for (const auto& [tp, offset] : offsets) committed_[tp] = offset;
  purge_repartition_topics(offsets);
  committing.record(commit_sensor_);
  return {};
}

std::map<TopicPartition, Offset> StreamThread::offsets_to_commit() {
  std::map<TopicPartition, Offset> offsets;
  for (StreamTask* task : tasks_->running()) {
    for (const auto& [partition, next] : task->consumed()) offsets[partition] = next;
  }
  for (const auto& tp : consumer_->assignment()) {
    const StreamTask* task = tasks_->running_task_of(tp);
    if (task == nullptr || task->buffered() > 0) continue;
    auto position = consumer_->position(tp);
    if (!position) continue;
    auto [it, added] = offsets.emplace(tp, *position);
    if (!added && *position > it->second) it->second = *position;
  }
  std::erase_if(offsets, [&](const auto& entry) {
    auto last = committed_.find(entry.first);
    return last != committed_.end() && last->second == entry.second;
  });
  return offsets;
}

std::map<TopicPartition, OffsetAndMetadata> StreamThread::with_partition_times(
    const std::map<TopicPartition, Offset>& offsets) const {
  std::map<TopicPartition, OffsetAndMetadata> out;
  for (const auto& [tp, offset] : offsets) {
    out.emplace(tp, OffsetAndMetadata{offset, tasks_->task_of(tp).commit_metadata(tp)});
  }
  return out;
}

void StreamThread::purge_repartition_topics(const std::map<TopicPartition, Offset>& offsets) {
  for (const auto& [tp, offset] : offsets) {
    if (!tasks_->is_repartition_topic(tp.topic)) continue;
    if (auto s = backend_.admin().delete_records_before(tp, offset); !s.ok()) {
      log(LogLevel::kWarn, "stream thread {}: cannot purge {} before {}: {}", index_,
          tp.to_string(), offset.value(), s.to_string());
    }
  }
}

std::optional<InputWait> StreamThread::input_wait(const std::vector<TopicPartition>& inputs) const {
  if (!config_.max_task_idle || inputs.size() < 2) return std::nullopt;
  return InputWait{.max_idle = *config_.max_task_idle,
                   .partitions = inputs,
                   .lag = [this](const TopicPartition& tp) { return consumer_->lag(tp); }};
}

void StreamThread::close_tasks() {
  tasks_->close_all();
  full_.clear();
}

void StreamThread::on_partitions_revoked(const std::vector<TopicPartition>& partitions) {
  set_phase(Phase::kRebalancing);
  if (!fatal_.ok()) return;
  // Finish what was read, then hand the partitions over with their offsets committed.
  if (auto s = process_buffered(); !s.ok()) {
    fatal_ = s;
    return;
  }
  if (auto s = commit(); !s.ok()) {
    fatal_ = s;
    return;
  }
  auto inputs = tasks_->close(partitions);
  if (!inputs) {
    fatal_ = inputs.error();
    return;
  }
  for (const auto& input : *inputs) {
    committed_.erase(input);
    full_.erase(input);
  }
}

Status StreamThread::drop_refused(const Status& refusal) {
  const auto dropped = ++dropped_;
  if (worth_logging(dropped)) {
    log(LogLevel::kWarn, "stream thread {}: dropped a record the log refused (#{}{}): {}", index_,
        dropped, rate_limit_note(dropped), refusal.to_string());
  }
  return {};
}

void StreamThread::on_partitions_lost(const std::vector<TopicPartition>& partitions) {
  // Others own them now: nothing of this thread's open work may be committed.
  if (fatal_.ok()) {
    fatal_ = Status::task_migrated(fmt::format("lost {} partitions", partitions.size()));
  }
}

void StreamThread::on_partitions_assigned(const std::vector<TopicPartition>& partitions) {
  if (auto s = tasks_->create(partitions, *consumer_); !s.ok()) {
    fatal_ = s;
    return;
  }
  if (!tasks_->restoring()) set_phase(Phase::kRunning);
}

void StreamThread::send(const std::string& topic, const OutgoingRecord& record) {
  if (!fatal_.ok()) return;
  if (auto s = producer_->send(topic, record); !s.ok()) fatal_ = s;
}

}  // namespace brook::internal

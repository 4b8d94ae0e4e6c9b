#include "runtime/standby_tasks.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "core/log.h"
#include "runtime/state_restorer.h"

namespace brook::internal {
namespace {

constexpr auto kPlacementInterval = std::chrono::seconds(1);
// How often a standby's buffered records go into its store: a standby killed with its
// instance reads at most this much of its changelog again.
constexpr auto kLoadInterval = std::chrono::seconds(10);

// A store worth a standby: on disk, so that the active task can take it over, and logged to a
// changelog of its own (a table's source topic is read by its task up to what it committed).
bool keeps_standby(const StoreSpec& spec) {
  return spec.type == StoreType::kRocksDb && spec.logging && !spec.global &&
         spec.source_topic.empty();
}

std::string member_instance(const GroupMember& member) {
  return instance_of_client(member.client_id);
}

}  // namespace

StandbyTasks::StandbyTasks(const StreamsConfig& config,
                           std::shared_ptr<const TopologyData> topology, LogBackend& backend,
                           StateConfig state)
    : config_(config),
      topology_(std::move(topology)),
      backend_(backend),
      state_(std::move(state)),
      instance_(instance_name(config)),
      task_ids_(*topology_),
      warming_up_(config.max_warmup_replicas > 0) {
  state_.cache = nullptr;
  state_.cache_lock = nullptr;
  state_.standby = true;
  state_.metrics = nullptr;
  task_of_ = [this](const TopicPartition& tp) { return task_ids_.of(tp); };
}

StandbyTasks::~StandbyTasks() { stop(); }

void StandbyTasks::start() {
  thread_ = std::thread([this] { run(); });
}

void StandbyTasks::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  while (!standbys_.empty()) close(standbys_.begin()->first);
}

bool StandbyTasks::wait_for_warm_up(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return warmed_up_.wait_for(lock, timeout, [&] { return !warming_up_; });
}

bool StandbyTasks::has_warm_ups() const {
  std::lock_guard lock(mutex_);
  return !warm_ups_.empty();
}

void StandbyTasks::claim(TaskId task) {
  std::lock_guard lock(mutex_);
  claimed_.insert(task);
  if (standbys_.contains(task)) close(task);
}

void StandbyTasks::release(TaskId task) {
  std::lock_guard lock(mutex_);
  claimed_.erase(task);
}

void StandbyTasks::run() {
  auto next_placement = std::chrono::steady_clock::now();
  auto next_load = next_placement + kLoadInterval;
  std::unique_lock lock(mutex_);
  while (!stop_) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_placement) {
      lock.unlock();  // the group's description is a request to the log
      if (warming_up_) {
        warm_up();
      } else if (config_.num_standby_replicas > 0 || has_warm_ups()) {
        place();
      }
      lock.lock();
      next_placement = now + kPlacementInterval;
    }
    if (now >= next_load) {
      load();
      next_load = now + kLoadInterval;
    }
    if (std::exchange(reassign_, false)) {
      if (auto s = reassign(); !s.ok()) {
        log(LogLevel::kWarn, "standby tasks: {}", s.to_string());
        reassign_ = true;
      }
    }
    if (positions_.empty()) {
      wake_.wait_until(lock, next_placement, [&] { return stop_; });
      continue;
    }
    lock.unlock();
    auto batches = consumer_->poll_batches(std::chrono::milliseconds(100));
    lock.lock();
    if (!batches) {
      log(LogLevel::kWarn, "standby tasks: reading changelogs: {}", batches.error().to_string());
      wake_.wait_until(lock, next_placement, [&] { return stop_; });
      continue;
    }
    if (auto s = apply(*batches); !s.ok()) {
      // The store that failed may be fine when opened again: start over from what they hold.
      log(LogLevel::kWarn, "standby tasks: {}; reopening them", s.to_string());
      while (!standbys_.empty()) close(standbys_.begin()->first);
    }
  }
}

std::vector<GroupMember> StandbyTasks::joining_members() const {
  std::vector<GroupMember> out;
  for (int i = 0; i < config_.num_threads; ++i) {
    const std::string client_id = thread_client_id(config_, i);
    // The coordinator names a member "<client id>-<uuid>": that sorts as this does.
    out.push_back({.member_id = client_id + "-",
                   .client_id = client_id,
                   .group_instance_id = thread_group_instance_id(config_, i)});
  }
  return out;
}

void StandbyTasks::warm_up() {
  auto group = backend_.admin().describe_group(config_.application_id);
  std::lock_guard lock(mutex_);
  if (!group) return end_warm_up("the group cannot be described: " + group.error().to_string());
  if (group->rebalancing) return;  // the assignment is about to change
  std::set<TaskId> mine;
  for (TaskId task :
       tasks_after_join(group->members, joining_members(), instance_, task_of_, member_instance)) {
    if (has_standby_stores(task.subtopology)) mine.insert(task);
  }
  for (auto it = warm_ups_.begin(); it != warm_ups_.end();) {  // the group changed
    const TaskId task = *it++;                                 // close() erases it
    if (!mine.contains(task)) close(task);
  }
  std::map<TaskId, bool> ready;  // the open warm-ups: caught up?
  for (TaskId task : warm_ups_) {
    auto done = caught_up(task);
    if (!done) return end_warm_up(done.error().to_string());
    ready[task] = *done;
  }
  int warming = static_cast<int>(
      std::count_if(ready.begin(), ready.end(), [](const auto& entry) { return !entry.second; }));
  bool all_caught_up = true;
  for (TaskId task : mine) {
    if (auto it = ready.find(task); it != ready.end()) {
      all_caught_up = all_caught_up && it->second;
      continue;
    }
    all_caught_up = false;
    if (warming >= config_.max_warmup_replicas) continue;
    if (auto s = open(task); !s.ok()) return end_warm_up(s.to_string());
    warm_ups_.insert(task);
    ++warming;
  }
  if (all_caught_up) {
    end_warm_up(mine.empty() ? "no stateful task to warm up"
                             : fmt::format("{} task(s) caught up", mine.size()));
  }
}

void StandbyTasks::end_warm_up(const std::string& why) {
  warming_up_ = false;
  warmed_up_.notify_all();
  log(LogLevel::kInfo, "warm-up before joining the group done: {}", why);
}

Result<bool> StandbyTasks::caught_up(TaskId task) {
  for (const auto& store : standbys_.at(task)->stores()) {
    const TopicPartition& changelog = *store->changelog();
    auto end = backend_.admin().list_offset(changelog, {.kind = OffsetSpec::Kind::kHighWatermark});
    if (!end) return error(std::move(end.error()));
    if (end->value() - positions_.at(changelog).next.value() > config_.acceptable_recovery_lag) {
      return false;
    }
  }
  return true;
}

void StandbyTasks::place() {
  auto group = backend_.admin().describe_group(config_.application_id);
  if (!group) {
    log(LogLevel::kWarn, "standby tasks: {}", group.error().to_string());
    return;
  }
  if (group->rebalancing) return;  // the assignment is about to change
  const auto placement =
      place_standbys(group->members, config_.num_standby_replicas, task_of_, member_instance);
  std::set<TaskId> wanted;
  for (const auto& [task, instances] : placement) {
    if (std::find(instances.begin(), instances.end(), instance_) != instances.end() &&
        has_standby_stores(task.subtopology)) {
      wanted.insert(task);
    }
  }
  std::lock_guard lock(mutex_);
  // The warm-ups wait for their tasks until this instance's threads are in the group; then
  // they are standbys like any other.
  if (std::any_of(group->members.begin(), group->members.end(),
                  [&](const GroupMember& m) { return member_instance(m) == instance_; })) {
    warm_ups_.clear();
  }
  for (auto it = standbys_.begin(); it != standbys_.end();) {
    const TaskId task = (it++)->first;  // close() erases it
    if (!wanted.contains(task) && !warm_ups_.contains(task)) close(task);
  }
  for (TaskId task : wanted) {
    if (standbys_.contains(task) || claimed_.contains(task)) continue;
    if (auto s = open(task); !s.ok()) {
      log(LogLevel::kWarn, "standby task {}: {}", task.to_string(), s.to_string());
    }
  }
}

bool StandbyTasks::has_standby_stores(int subtopology) const {
  for (std::size_t node : topology_->subtopologies.at(subtopology).nodes) {
    for (const auto& name : topology_->nodes[node].stores) {
      if (keeps_standby(*topology_->store(name))) return true;
    }
  }
  return false;
}

Status StandbyTasks::open(TaskId task) {
  if (!consumer_) {  // made with the first standby: most instances only warm up, if that
    auto consumer = backend_.make_consumer(
        {.client_id = instance_ + "-standby", .read_committed = true, .max_poll_records = 10'000});
    if (!consumer) return consumer.error();
    consumer_ = std::move(*consumer);
  }
  auto stores = std::make_unique<TaskStores>(task, state_);
  auto never_sent = [](const std::string&, const OutgoingRecord&) {};  // a standby never writes
  if (auto s = stores->open(
          *topology_, config_.application_id, never_sent, [] { return Timestamp(0); },
          keeps_standby);
      !s.ok()) {
    return s;
  }
  std::map<TopicPartition, Position> positions;
  for (const auto& store : stores->stores()) {
    const TopicPartition& changelog = *store->changelog();
    auto next = first_missing_offset(backend_.admin(), *store);
    if (!next) return next.error();
    store->start_restoring(0);
    positions.emplace(changelog, Position{store.get(), *next});
    log(LogLevel::kInfo, "standby task {}: keeping store {} from {} offset {}", task.to_string(),
        store->name(), changelog.to_string(), next->value());
  }
  positions_.merge(positions);
  standbys_.emplace(task, std::move(stores));
  reassign_ = true;
  return {};
}

void StandbyTasks::close(TaskId task) {
  auto it = standbys_.find(task);
  for (const auto& store : it->second->stores()) {
    if (auto s = store->finish_restore(); !s.ok()) {
      log(LogLevel::kWarn, "standby task {}: {}", task.to_string(), s.to_string());
    }
    positions_.erase(*store->changelog());
  }
  it->second->close();
  standbys_.erase(it);
  warm_ups_.erase(task);
  reassign_ = true;
  log(LogLevel::kInfo, "standby task {}: closed", task.to_string());
}

void StandbyTasks::load() {
  for (const auto& [task, stores] : standbys_) {
    for (const auto& store : stores->stores()) {
      if (auto s = store->finish_restore(); !s.ok()) {
        log(LogLevel::kWarn, "standby task {}: {}", task.to_string(), s.to_string());
      }
    }
  }
}

Status StandbyTasks::reassign() {
  std::vector<TopicPartition> assignment;
  for (const auto& [tp, position] : positions_) assignment.push_back(tp);
  if (auto s = consumer_->assign(assignment); !s.ok()) return s;
  for (const auto& [tp, position] : positions_) {
    if (auto s = consumer_->seek(tp, position.next); !s.ok()) return s;
  }
  return {};
}

Status StandbyTasks::apply(const std::vector<RecordBatch>& batches) {
  std::map<Position*, std::vector<std::span<const ConsumedRecord>>> touched;
  for (const RecordBatch& batch : batches) {
    auto it = positions_.find(batch.partition);
    if (it == positions_.end() || batch.records.empty()) continue;  // closed since the poll
    Position& position = it->second;
    // A batch read before a seek may start before the position: skip what is applied.
    const auto first =
        std::find_if(batch.records.begin(), batch.records.end(),
                     [&](const ConsumedRecord& record) { return record.offset >= position.next; });
    if (first == batch.records.end()) continue;
    touched[&position].emplace_back(first, batch.records.end());
    position.next = Offset(batch.records.back().offset.value() + 1);
  }
  for (auto& [tp, position] : positions_) {
    // Past transaction markers and compacted gaps too.
    auto read_to = consumer_->position(tp);
    if (read_to && *read_to > position.next) {
      position.next = *read_to;
      touched[&position];
    }
    // The changelog's end as the last fetch saw it: the standby's lag for queries.
    if (auto lag = consumer_->lag(tp); lag && read_to) {
      position.store->set_seen_changelog_end(Offset(read_to->value() + *lag));
    }
  }
  for (auto& [position, parts] : touched) {
    // The records and the offset they reach land together.
    if (auto s = position->store->restore_batch(parts, position->next); !s.ok()) return s;
  }
  return {};
}

}  // namespace brook::internal

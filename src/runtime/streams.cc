#include "brook/streams.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <ranges>
#include <set>
#include <utility>

#include "backend/embedded/dir_lock.h"
#include "backend/open_backend.h"
#include "brook/internal/topic_plan.h"
#include "core/log.h"
#include "core/transition_table.h"
#include "runtime/global_stream_thread.h"
#include "runtime/instance_directory.h"
#include "runtime/local_store_query.h"
#include "runtime/standby_tasks.h"
#include "runtime/store_registry.h"
#include "runtime/stream_thread.h"
#include "runtime/streams_config.h"

namespace brook {

using internal::StreamThread;
using State = Streams::State;

std::string_view to_string(State state) {
  switch (state) {
    case State::kCreated: return "CREATED";
    case State::kRebalancing: return "REBALANCING";
    case State::kRunning: return "RUNNING";
    case State::kPendingShutdown: return "PENDING_SHUTDOWN";
    case State::kNotRunning: return "NOT_RUNNING";
    case State::kError: return "ERROR";
  }
  return "?";
}

namespace {

// The application's legal state transitions, as in Kafka Streams' KafkaStreams.State.
constexpr std::pair<State, State> kTransitions[] = {
    {State::kCreated, State::kRebalancing},
    {State::kCreated, State::kPendingShutdown},
    {State::kCreated, State::kError},
    {State::kRebalancing, State::kRunning},
    {State::kRebalancing, State::kPendingShutdown},
    {State::kRebalancing, State::kError},
    {State::kRunning, State::kRebalancing},
    {State::kRunning, State::kPendingShutdown},
    {State::kRunning, State::kError},
    {State::kPendingShutdown, State::kNotRunning},
    {State::kError, State::kPendingShutdown},
};

// What an interactive query over all of this instance's tasks can expect in `state`.
Status query_completeness(State state) {
  switch (state) {
    case State::kRunning: return {};
    case State::kRebalancing:
      return Status::unavailable(
          "the application is REBALANCING (its tasks are being assigned to the instances or "
          "restored); query again once it is RUNNING");
    default:
      return Status::failed_precondition(fmt::format("the application is {}", to_string(state)));
  }
}

bool legal(State from, State to) { return internal::is_listed(kTransitions, from, to); }

// True if a sequence of legal transitions leads from `from` to `to` (or they are equal).
bool reachable(State from, State to) {
  std::set<State> seen{from};
  std::vector<State> next{from};
  while (!next.empty()) {
    const State at = next.back();
    next.pop_back();
    if (at == to) return true;
    for (const auto& [a, b] : kTransitions) {
      if (a == at && seen.insert(b).second) next.push_back(b);
    }
  }
  return false;
}

}  // namespace

struct Streams::Impl {
  Topology topology;
  std::map<std::string, std::string> raw_config;
  internal::StreamsConfig config;
  std::shared_ptr<const internal::TopologyData> resolved;  // internal topics named
  std::map<std::string, std::int32_t, std::less<>> store_partitions;
  internal::StoreRegistry stores;
  std::shared_ptr<internal::RocksDbMemory> rocksdb_memory;
  std::shared_ptr<StateRestoreListener> restore_listener;
  std::optional<internal::DirLock> state_lock;    // state.dir/<application.id>, while started
  std::shared_ptr<internal::LogBackend> backend;  // shared with log_backend()'s callers
  std::vector<std::unique_ptr<StreamThread>> threads;
  std::unique_ptr<internal::GlobalStreamThread> global;    // if the topology has global stores
  std::unique_ptr<internal::InstanceDirectory> directory;  // with an application.server
  std::unique_ptr<internal::StandbyTasks> standbys;        // standbys and warm-ups, on Kafka
  std::mutex lag_mutex;                                    // guards lag_reader
  std::unique_ptr<internal::Consumer> lag_reader;          // reads the committed offsets for lag()
  Metrics metrics;

  // The lag of `store`, a local store (a standby replica's if `standby`), under lag_mutex.
  Result<LagInfo> lag_of(const internal::LocalStore& store, bool standby);

  std::mutex close_mutex;                 // one close() at a time
  std::recursive_mutex transition_mutex;  // serialises transitions and listener calls
  mutable std::mutex mutex;
  mutable std::condition_variable state_changed;
  State state = State::kCreated;
  StateListener listener;
  std::vector<StreamThread::Phase> phases;
  Status failure;

  Impl(Topology t, std::map<std::string, std::string> c)
      : topology(std::move(t)), raw_config(std::move(c)) {}

  // Moves to `to` if legal from the current state; false otherwise.
  bool transition(State to) {
    // One transition at a time, its listener call included: a listener sees the changes in
    // order and is never called from two threads at once (it may call back into Streams).
    std::lock_guard serial(transition_mutex);
    StateListener notify;
    State from;
    {
      std::lock_guard lock(mutex);
      from = state;
      if (!legal(from, to)) return false;
      state = to;
      notify = listener;
    }
    stores.set_complete(query_completeness(to));
    log(internal::LogLevel::kInfo, "application {}: {} -> {}", config.application_id,
        to_string(from), to_string(to));
    state_changed.notify_all();
    if (notify) notify(to, from);
    return true;
  }

  // Remembers the first error that stopped the application (start(), a thread, the global
  // thread); close() returns it.
  void record_failure(const Status& error) {
    std::lock_guard lock(mutex);
    if (failure.ok()) failure = error;
  }
  Status first_failure() const {
    std::lock_guard lock(mutex);
    return failure;
  }

  void on_thread_phase(int index, StreamThread::Phase phase, const Status& error) {
    if (!error.ok()) record_failure(error);
    bool all_running, any_stopped;
    {
      std::lock_guard lock(mutex);
      phases[index] = phase;
      all_running = std::all_of(phases.begin(), phases.end(),
                                [](auto p) { return p == StreamThread::Phase::kRunning; });
      any_stopped = phase == StreamThread::Phase::kStopped;
    }
    if (any_stopped) {
      // A thread that ends while the application is not shutting down has failed.
      transition(State::kError);
      state_changed.notify_all();
    } else if (all_running) {
      transition(State::kRunning);
    } else if (phase == StreamThread::Phase::kRebalancing) {
      transition(State::kRebalancing);
    }
  }

  // This instance's metadata now.
  StreamsMetadata local_metadata() const {
    return {.server = config.application_server,
            .state = std::string(to_string(current_state())),
            .local = true,
            .store_partitions = stores.partitions(),
            .standby_store_partitions = stores.standby_partitions(),
            .tasks = stores.tasks()};
  }
  State current_state() const {
    std::lock_guard lock(mutex);
    return state;
  }
  std::vector<internal::Announcement> other_instances() const {
    return directory ? directory->others() : std::vector<internal::Announcement>();
  }

  std::filesystem::path app_state_dir() const {
    return std::filesystem::path(config.state_dir) / config.application_id;
  }

  // The source topics (repartition topics aside) whose partitions hold no record now.
  Result<std::vector<std::string>> empty_source_topics() {
    std::vector<std::string> empty;
    auto& admin = backend->admin();
    for (const auto& topic : topology.source_topics()) {
      auto description = admin.describe_topic(topic);
      if (!description) return error(description.error());
      bool records = false;
      for (std::int32_t p = 0; p < description->partitions && !records; ++p) {
        const internal::TopicPartition tp{topic, Partition(p)};
        auto start = admin.list_offset(tp, {.kind = internal::OffsetSpec::Kind::kEarliest});
        if (!start) return error(start.error());
        auto end = admin.list_offset(tp, {.kind = internal::OffsetSpec::Kind::kLatest});
        if (!end) return error(end.error());
        records = *end != *start;
      }
      if (!records) empty.push_back(topic);
    }
    return empty;
  }

  Status check_topics() {
    std::vector<std::string> problems;
    auto& admin = backend->admin();
    auto require = [&](const std::string& topic, std::string_view role) {
      if (auto d = admin.describe_topic(topic); !d) {
        problems.push_back(
            d.error().code() == StatusCode::kNotFound
                ? fmt::format("{} topic '{}' does not exist", role, topic)
                : fmt::format("{} topic '{}': {}", role, topic, d.error().to_string()));
      }
    };
    for (const auto& topic : topology.source_topics()) require(topic, "source");
    for (const auto& topic : topology.sink_topics()) require(topic, "sink");
    if (!config.errors.dead_letter_topic.empty()) {
      require(config.errors.dead_letter_topic, "dead-letter");
    }
    if (problems.empty()) return {};
    return Status::not_found(fmt::format("application {} cannot start:\n  - {}",
                                         config.application_id, fmt::join(problems, "\n  - ")));
  }

  // A changelog keeps the newest record per key; a window or session store's also drops records
  // older than the store's retention + windowstore.changelog.additional.retention.ms, as the
  // store itself forgets them.
  // On the embedded log, changelogs roll small segments, by size and by age: compaction never
  // touches the active segment, so that segment bounds what a restore reads beyond the
  // compacted part (about the live keys, and as much again not compacted yet at
  // min.cleanable.dirty.ratio 0.5). 4 MiB is some 50 k records of a small store (16 times below
  // the embedded log's default), and still few files per partition; 10 minutes (what Kafka
  // Streams gives repartition topics) caps how long updates to a quiet store wait for
  // compaction. On Kafka the broker's defaults apply, as for Kafka Streams' changelogs: there
  // the cluster's operators size segments.
  std::map<std::string, std::string> changelog_configs(const internal::StoreSpec& store) const {
    constexpr std::int64_t kChangelogSegmentBytes = 4 << 20;
    constexpr std::int64_t kChangelogSegmentMs = 10 * 60 * 1000;
    std::map<std::string, std::string> configs;
    if (config.bootstrap_servers.empty()) {
      configs = {{"segment.bytes", std::to_string(kChangelogSegmentBytes)},
                 {"segment.ms", std::to_string(kChangelogSegmentMs)}};
    }
    if (store.kind == internal::StoreKind::kKeyValue) {
      configs.emplace("cleanup.policy", "compact");
      return configs;
    }
    const std::int64_t extra = config.changelog_extra_retention.count();
    const std::int64_t retention =
        store.retention.count() > std::numeric_limits<std::int64_t>::max() - extra
            ? std::numeric_limits<std::int64_t>::max()
            : store.retention.count() + extra;
    configs.emplace("cleanup.policy", "compact,delete");
    configs.emplace("retention.ms", std::to_string(retention));
    return configs;
  }
  // Cleanup policies as sets: "compact,delete" is "delete,compact" (brokers may reorder them).
  static bool same_cleanup_policy(std::string_view a, std::string_view b) {
    auto parts = [](std::string_view policy) {
      std::set<std::string, std::less<>> out;
      for (auto part : std::views::split(policy, ',')) {
        std::string_view p(part.begin(), part.end());
        while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
        while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
        out.emplace(p);
      }
      return out;
    };
    return parts(a) == parts(b);
  }

  // Creates the repartition and changelog topics that do not exist yet, as many partitions as
  // plan_topics() gives each.
  Status create_internal_topics() {
    auto& admin = backend->admin();
    const auto& data = *resolved;
    std::map<std::string, std::int32_t, std::less<>> source_partitions;
    for (const auto& topic : topology.source_topics()) {
      auto d = admin.describe_topic(topic);
      if (!d) return d.error();
      source_partitions[topic] = d->partitions;
    }
    auto plan = internal::plan_topics(data, source_partitions);
    if (!plan) return plan.error();
    store_partitions = plan->store_partitions;
    // Creates `topic`, or checks the one there (another instance may be creating it now).
    auto ensure = [&](const internal::NewTopic& topic) -> Status {
      auto created = admin.create_topic(topic);
      if (created.ok()) {
        log(internal::LogLevel::kInfo, "application {}: created internal topic {} ({} partitions)",
            config.application_id, topic.name, topic.partitions);
        return {};
      }
      if (created.code() != StatusCode::kAlreadyExists) return created;
      auto existing = admin.describe_topic(topic.name);
      if (!existing) return existing.error();
      if (existing->partitions != topic.partitions) {
        return Status::invalid_argument(fmt::format(
            "internal topic {} has {} partitions, the topology needs {}: the input topics changed "
            "since it was created; delete the application's internal topics and state to "
            "reprocess",
            topic.name, existing->partitions, topic.partitions));
      }
      const auto policy = existing->configs.find("cleanup.policy");
      const std::string have = policy == existing->configs.end() ? "delete" : policy->second;
      if (!same_cleanup_policy(have, topic.configs.at("cleanup.policy"))) {
        return Status::invalid_argument(
            fmt::format("internal topic {} has cleanup.policy={}, Brook needs {}", topic.name, have,
                        topic.configs.at("cleanup.policy")));
      }
      return {};
    };
    for (const auto& topic : data.repartition_topics) {
      if (auto s = ensure({.name = topic.name,
                           .partitions = plan->partitions.at(topic.name),
                           // Purged after each commit, never by age (old event times
                           // would expire at once), as in Kafka Streams.
                           .configs = {{"cleanup.policy", "delete"}, {"retention.ms", "-1"}}});
          !s.ok()) {
        return s;
      }
    }
    for (const auto& store : data.stores) {
      auto partitions = plan->store_partitions.find(store.name);
      if (!store.logging || store.global || partitions == plan->store_partitions.end()) continue;
      if (auto s = ensure({.name = internal::changelog_topic(config.application_id, store.name),
                           .partitions = partitions->second,
                           .configs = changelog_configs(store)});
          !s.ok()) {
        return s;
      }
    }
    if (config.application_server.empty()) return {};
    // The instances' announcements (instance_directory.h): live ones are re-sent every
    // second, so an hour of retention forgets only the long gone.
    return ensure({.name = instances_topic(),
                   .partitions = 1,
                   .configs = {{"cleanup.policy", "compact,delete"},
                               {"retention.ms", "3600000"},
                               {"segment.ms", "600000"}}});
  }
  std::string instances_topic() const { return config.application_id + "-instances"; }
};

Streams::Streams(Topology topology, std::map<std::string, std::string> config)
    : impl_(std::make_unique<Impl>(std::move(topology), std::move(config))) {}

Streams::~Streams() {
  // The threads use this object: wait for them however long they take.
  while (state() != State::kNotRunning) (void)close();
}

namespace {

// The embedded log in data.dir, or the Kafka cluster at bootstrap.servers. On Kafka, names
// the process for its transactional producers: its group.instance.id, else a random id.
Result<std::unique_ptr<internal::LogBackend>> backend_of(internal::StreamsConfig& config) {
  if (!config.bootstrap_servers.empty()) {
    config.process_id = config.group_instance_id;
    if (config.process_id.empty()) {
      config.process_id =
          fmt::format("{:016x}", std::random_device()() * 0x100000000ULL ^ std::random_device()());
    }
  }
  return internal::open_backend(
      {.bootstrap_servers = config.bootstrap_servers,
       .common = config.kafka,
       .producer = config.kafka_producer,
       .consumer = config.kafka_consumer,
       .retry_timeout = config.task_timeout},
      {.data_dir = config.data_dir, .fsync = config.fsync, .batching = config.batching});
}

}  // namespace

Status Streams::start() {
  if (state() != State::kCreated) {
    return Status::failed_precondition("Streams::start() may be called once, in CREATED");
  }
  auto fail = [this](Status s) {
    impl_->record_failure(s);
    impl_->transition(State::kError);
    return s;
  };
  auto config = internal::parse_streams_config(impl_->raw_config);
  if (!config) return fail(config.error());
  impl_->config = std::move(*config);
  const auto& built_with = internal::topology_data(impl_->topology).optimizations;
  if (impl_->config.optimizations && *impl_->config.optimizations != built_with) {
    return fail(Status::invalid_argument(
        fmt::format("topology.optimization is '{}' but the topology was built with '{}': give "
                    "StreamsBuilder::build() the configuration given to Streams",
                    to_string(*impl_->config.optimizations), to_string(built_with))));
  }
  auto state_lock = internal::DirLock::acquire(impl_->app_state_dir(), "state dir");
  if (!state_lock) return fail(state_lock.error());
  impl_->state_lock.emplace(std::move(*state_lock));
  auto backend = backend_of(impl_->config);
  if (!backend) return fail(backend.error());
  {
    std::lock_guard lock(impl_->mutex);
    impl_->backend = std::move(*backend);
  }
  if (auto s = impl_->check_topics(); !s.ok()) return fail(s);
  impl_->resolved = internal::resolve_internal_topics(internal::topology_data(impl_->topology),
                                                      impl_->config.application_id);
  if (auto s = impl_->create_internal_topics(); !s.ok()) return fail(s);
  impl_->rocksdb_memory =
      std::make_shared<internal::RocksDbMemory>(impl_->config.rocksdb_memory_bytes);
  impl_->metrics.gauge(
      {.group = "stream-state-metrics", .name = "block-cache-usage"},
      [memory = impl_->rocksdb_memory] { return static_cast<double>(memory->cache_usage()); });
  impl_->metrics.gauge(
      {.group = "stream-state-metrics", .name = "block-cache-capacity"},
      [memory = impl_->rocksdb_memory] { return static_cast<double>(memory->cache_capacity()); });
  internal::StateConfig state{.dir = impl_->app_state_dir(),
                              .rocksdb_memory = impl_->rocksdb_memory,
                              .sync = impl_->config.fsync,
                              .registry = &impl_->stores,
                              .metrics = &impl_->metrics,
                              .debug_metrics = impl_->config.debug_metrics};

  impl_->phases.assign(impl_->config.num_threads, StreamThread::Phase::kStarting);
  impl_->transition(State::kRebalancing);
  // The global thread restores the global stores while the application is REBALANCING; the
  // stream threads join the group once it is done.
  if (!impl_->resolved->global_subtopologies.empty()) {
    impl_->global = std::make_unique<internal::GlobalStreamThread>(
        impl_->config, impl_->resolved, *impl_->backend, impl_->metrics, state,
        impl_->restore_listener, [impl = impl_.get()](const Status& error) {
          // Fatal for the instance: the stream threads stop with this error too.
          impl->record_failure(error);
          impl->transition(State::kError);
        });
    if (auto s = impl_->global->start(); !s.ok()) {
      {
        std::lock_guard lock(impl_->mutex);
        std::fill(impl_->phases.begin(), impl_->phases.end(), StreamThread::Phase::kStopped);
      }
      impl_->record_failure(s);
      (void)close();
      return s;
    }
    state.global_stores = impl_->global->stores();
  }
  if (impl_->config.num_standby_replicas > 0 && impl_->config.bootstrap_servers.empty()) {
    internal::log(internal::LogLevel::kWarn,
                  "num.standby.replicas is {}, but the embedded log runs in one process, so "
                  "there is no other instance to keep standbys on: none are kept",
                  impl_->config.num_standby_replicas);
  } else if (!impl_->config.bootstrap_servers.empty() &&
             (impl_->config.num_standby_replicas > 0 || impl_->config.max_warmup_replicas > 0)) {
    impl_->standbys = std::make_unique<internal::StandbyTasks>(impl_->config, impl_->resolved,
                                                               *impl_->backend, state);
    impl_->standbys->start();
  }
  for (int i = 0; i < impl_->config.num_threads; ++i) {
    impl_->threads.push_back(std::make_unique<StreamThread>(
        i, impl_->config, impl_->resolved, *impl_->backend, impl_->metrics, state,
        impl_->restore_listener,
        [impl = impl_.get()](int index, StreamThread::Phase phase, const Status& error) {
          impl->on_thread_phase(index, phase, error);
        }));
    if (impl_->global) impl_->threads.back()->set_global_gate(impl_->global->gate());
    impl_->threads.back()->set_standbys(impl_->standbys.get());
  }
  for (std::size_t i = 0; i < impl_->threads.size(); ++i) {
    if (auto s = impl_->threads[i]->start(); !s.ok()) {
      {
        std::lock_guard lock(impl_->mutex);  // the unstarted ones will never report
        std::fill(impl_->phases.begin() + i, impl_->phases.end(), StreamThread::Phase::kStopped);
      }
      (void)close();
      return s;
    }
  }
  if (!impl_->config.application_server.empty()) {
    impl_->directory = std::make_unique<internal::InstanceDirectory>(
        *impl_->backend,
        internal::InstanceDirectory::Options{.topic = impl_->instances_topic(),
                                             .server = impl_->config.application_server},
        [impl = impl_.get()] { return impl->local_metadata(); },
        // Both only grow: their sum changes whenever either does.
        [impl = impl_.get()] { return impl->stores.version() + impl->stores.standby_version(); });
    if (auto s = impl_->directory->start(); !s.ok()) {
      impl_->record_failure(s);
      (void)close();
      return s;
    }
  }
  return {};
}

Status Streams::close(std::chrono::milliseconds timeout) {
  std::lock_guard closing(impl_->close_mutex);
  if (state() == State::kNotRunning) return impl_->first_failure();
  impl_->transition(State::kPendingShutdown);  // no-op when already shutting down
  for (auto& thread : impl_->threads) thread->request_stop();
  if (impl_->global) impl_->global->request_stop();
  {
    std::unique_lock lock(impl_->mutex);
    const bool stopped = impl_->state_changed.wait_for(lock, timeout, [&] {
      return std::all_of(impl_->phases.begin(), impl_->phases.end(),
                         [](auto p) { return p == StreamThread::Phase::kStopped; });
    });
    if (!stopped) {
      return Status::failed_precondition(fmt::format(
          "close: the stream threads did not finish within {} ms (they commit and stop after "
          "what they are processing); close() again waits for them",
          timeout.count()));
    }
  }
  for (auto& thread : impl_->threads) {
    if (auto s = thread->join(); !s.ok()) impl_->record_failure(s);
  }
  impl_->threads.clear();
  impl_->standbys.reset();  // after the tasks, which claim their stores from it
  if (impl_->directory) {   // withdraws this instance's announcement
    impl_->directory->stop();
    impl_->directory.reset();
  }
  if (impl_->global) {  // after the tasks, which read its stores
    if (auto s = impl_->global->join(); !s.ok()) impl_->record_failure(s);
    impl_->global.reset();
  }
  {
    std::lock_guard lag(impl_->lag_mutex);
    impl_->lag_reader.reset();
  }
  {
    std::lock_guard lock(impl_->mutex);
    impl_->backend.reset();  // releases the data dir, once no source shares it
  }
  impl_->state_lock.reset();
  impl_->transition(State::kNotRunning);
  return impl_->first_failure();
}

std::shared_ptr<internal::LogBackend> Streams::log_backend() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->backend;
}

int Streams::run_until_signal() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  // Blocked before the threads start, so they inherit the mask and only sigtimedwait sees them.
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  if (state() == State::kCreated) {
    if (auto s = start(); !s.ok()) return report(s);
  }
  const timespec tick{.tv_sec = 0, .tv_nsec = 100'000'000};
  while (sigtimedwait(&signals, nullptr, &tick) < 0) {
    std::lock_guard lock(impl_->mutex);
    const bool stopped = std::any_of(impl_->phases.begin(), impl_->phases.end(),
                                     [](auto p) { return p == StreamThread::Phase::kStopped; });
    if (stopped) break;  // a thread died: shut the application down
  }
  auto status = close();
  return status.ok() ? 0 : report(status);
}

Status Streams::run_until_idle(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  if (state() == State::kCreated) {
    if (auto s = start(); !s.ok()) return s;
    auto empty = impl_->empty_source_topics();
    if (!empty) {
      Status closed = close();
      return closed.ok() ? empty.error() : closed;
    }
    if (!empty->empty()) {
      log(internal::LogLevel::kWarn,
          "application {}: no records to process in topic(s) {}: empty, or retention deleted their "
          "records",
          impl_->config.application_id, fmt::join(*empty, ", "));
    }
  }
  Status waited;
  while (true) {
    auto lag = this->lag();
    if (!lag) {
      waited = lag.error();
      break;
    }
    if (*lag == 0) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      waited = Status::deadline_exceeded(
          fmt::format("application {}: {} input records were still to be processed after {} ms",
                      impl_->config.application_id, *lag, timeout.count()));
      break;
    }
    // The lag moves with commits: look again shortly, at once if the application fails.
    std::unique_lock lock(impl_->mutex);
    if (impl_->state_changed.wait_for(lock, std::chrono::milliseconds(20),
                                      [&] { return impl_->state == State::kError; })) {
      break;
    }
  }
  Status closed = close();
  return closed.ok() ? waited : closed;
}

Status Streams::cleanup() {
  const State now = state();
  if (now != State::kCreated && now != State::kNotRunning) {
    return Status::failed_precondition(fmt::format(
        "cleanup() deletes the local state: call it before start() or after close() (the "
        "application is {})",
        to_string(now)));
  }
  auto config = internal::parse_streams_config(impl_->raw_config);
  if (!config) return config.error();
  const auto dir = std::filesystem::path(config->state_dir) / config->application_id;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return {};
  // Another process running this application on the same state dir holds the lock.
  auto lock = internal::DirLock::acquire(dir, "state dir");
  if (!lock) return lock.error();
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().filename() == ".lock") continue;
    std::filesystem::remove_all(entry.path(), ec);
    if (ec) {
      return Status::io_error(
          fmt::format("cleanup: cannot delete {}: {}", entry.path().string(), ec.message()));
    }
  }
  if (ec)
    return Status::io_error(fmt::format("cleanup: cannot read {}: {}", dir.string(), ec.message()));
  log(internal::LogLevel::kInfo, "application {}: deleted its local state in {}",
      config->application_id, dir.string());
  return {};
}

State Streams::state() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->state;
}

void Streams::set_state_listener(StateListener listener) {
  std::lock_guard lock(impl_->mutex);
  impl_->listener = std::move(listener);
}

Status Streams::wait_for_state(State target, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(impl_->mutex);
  const State& state = impl_->state;
  const bool settled = impl_->state_changed.wait_for(
      lock, timeout, [&] { return state == target || !reachable(state, target); });
  if (state == target) return {};
  if (!settled) {
    return Status::deadline_exceeded(fmt::format("application {} is {}, not {}, after {} ms",
                                                 impl_->config.application_id, to_string(state),
                                                 to_string(target), timeout.count()));
  }
  if (state == State::kError && !impl_->failure.ok()) return impl_->failure;
  return Status::failed_precondition(fmt::format("application {} is {}: it cannot become {}",
                                                 impl_->config.application_id, to_string(state),
                                                 to_string(target)));
}

Result<std::int64_t> Streams::lag() const {
  auto lags = partition_lags();
  if (!lags) return error(std::move(lags.error()));
  std::int64_t lag = 0;
  for (const auto& [topic, partitions] : *lags) {
    for (const auto& [partition, records] : partitions) lag += records;
  }
  return lag;
}

Result<std::map<std::string, std::map<std::int32_t, std::int64_t>>> Streams::partition_lags()
    const {
  if (!impl_->backend || !impl_->resolved) {
    return error(Status::failed_precondition("the application is not running"));
  }
  std::lock_guard lock(impl_->lag_mutex);
  if (!impl_->lag_reader) {
    auto consumer = impl_->backend->make_consumer({.group_id = impl_->config.application_id});
    if (!consumer) return error(consumer.error());
    impl_->lag_reader = std::move(*consumer);
  }
  auto& consumer = impl_->lag_reader;
  auto& admin = impl_->backend->admin();
  // Repartition topics count too. Every committed offset is read before any end offset: a
  // task commits its input only after writing what it derived from it, so a record derived
  // from input committed before the first pass is in the log by the second, however the
  // sub-topologies feed each other (a foreign-key join's two topics feed each other in a
  // cycle). 0 then means nothing was left at one moment.
  std::vector<std::pair<internal::TopicPartition, Offset>> committed_offsets;
  for (const auto& sub : impl_->resolved->subtopologies) {
    for (const auto& topic : sub.source_topics) {
      auto description = admin.describe_topic(topic);
      if (!description) return error(description.error());
      for (std::int32_t p = 0; p < description->partitions; ++p) {
        const internal::TopicPartition tp{topic, Partition(p)};
        auto committed = consumer->committed(tp);
        if (!committed) return error(committed.error());
        if (*committed) {
          committed_offsets.emplace_back(tp, **committed);
          continue;
        }
        auto start = admin.list_offset(tp, {.kind = internal::OffsetSpec::Kind::kEarliest});
        if (!start) return error(start.error());
        committed_offsets.emplace_back(tp, *start);
      }
    }
  }
  std::map<std::string, std::map<std::int32_t, std::int64_t>> lags;
  for (const auto& [tp, from] : committed_offsets) {
    auto end = admin.list_offset(tp, {.kind = internal::OffsetSpec::Kind::kLatest});
    if (!end) return error(end.error());
    lags[tp.topic][tp.partition.value()] = end->value() - from.value();
  }
  return lags;
}

const Metrics& Streams::metrics() const { return impl_->metrics; }

const Topology& Streams::topology() const { return impl_->topology; }

const std::map<std::string, std::string>& Streams::config() const { return impl_->raw_config; }

std::vector<StreamsMetadata> Streams::metadata_for_all_clients() const {
  if (!impl_->resolved) return {};
  std::vector<StreamsMetadata> out{impl_->local_metadata()};
  for (auto& other : impl_->other_instances()) out.push_back(std::move(other.metadata));
  return out;
}

Result<std::vector<StreamsMetadata>> Streams::metadata_for_store(std::string_view store) const {
  if (internal::topology_data(impl_->topology).store(store) == nullptr) {
    return error(Status::not_found(fmt::format("the topology has no store named '{}'", store)));
  }
  std::vector<StreamsMetadata> out;
  for (auto& instance : metadata_for_all_clients()) {
    if (instance.store_partitions.contains(std::string(store)) ||
        instance.standby_store_partitions.contains(std::string(store))) {
      out.push_back(std::move(instance));
    }
  }
  return out;
}

Result<KeyQueryMetadata> Streams::query_metadata_for_serialized_key(std::string_view store,
                                                                    std::string_view key) const {
  auto query = store_query(store);
  if (!query) return error(std::move(query.error()));
  const auto& spec = (*query)->spec();
  const std::int32_t partitions = impl_->store_partitions.find(store)->second;
  const Partition partition =
      spec.global ? Partition(0) : internal::partition_for_key(key, partitions);
  const auto local = impl_->local_metadata();
  if (spec.global)
    return KeyQueryMetadata{.active_server = local.server, .local = true, .partition = partition};
  const auto others = impl_->other_instances();
  auto owner = internal::owner_of(local, others, spec.name, partition.value());
  auto standbys = internal::standbys_of(local, others, spec.name, partition.value());
  if (!owner && standbys.empty()) {
    return error(Status::unavailable(fmt::format(
        "store {}: no instance holds the key's partition {} now (the application is {} here; a "
        "rebalance may be moving it, or its instance has not announced itself yet); query again "
        "shortly",
        spec.name, partition.value(), local.state)));
  }
  const bool here = owner == local.server && local.store_partitions.contains(spec.name) &&
                    std::ranges::find(local.store_partitions.at(spec.name), partition.value()) !=
                        local.store_partitions.at(spec.name).end();
  return KeyQueryMetadata{.active_server = owner.value_or(""),
                          .local = here,
                          .standby_servers = std::move(standbys),
                          .partition = partition};
}

Result<LagInfo> Streams::Impl::lag_of(const internal::LocalStore& store, bool standby) {
  LagInfo info{.restoring = !standby && store.restoring(), .standby = standby};
  if (!store.changelog()) return info;
  auto position = store.changelog_position();
  if (!position) return error(std::move(position.error()));
  // A standby's consumer saw the end in its last fetch; else ask the log.
  const auto seen_end = standby ? store.seen_changelog_end() : std::nullopt;
  auto end = seen_end
                 ? Result<Offset>(*seen_end)
                 : backend->admin().list_offset(
                       *store.changelog(), {.kind = internal::OffsetSpec::Kind::kHighWatermark});
  if (!end) return error(std::move(end.error()));
  info.end_offset = end->value();
  info.current_offset = position->value_or(Offset(0)).value();
  info.lag = std::max<std::int64_t>(0, info.end_offset - info.current_offset);
  return info;
}

Result<std::map<std::string, std::map<std::int32_t, LagInfo>>> Streams::local_store_lags() const {
  if (!impl_->backend || !impl_->resolved) {
    return error(Status::failed_precondition("the application is not running"));
  }
  const auto version = impl_->stores.version();
  std::map<std::string, std::map<std::int32_t, LagInfo>> out;
  std::lock_guard lock(impl_->lag_mutex);  // the admin client is shared with lag()
  for (const auto& spec : internal::topology_data(impl_->topology).stores) {
    auto snapshot = impl_->stores.find(spec.name);
    for (const auto& [partition, store] : snapshot.stores) {
      auto info = impl_->lag_of(*store, false);
      if (!info) return error(std::move(info.error()));
      out[spec.name][partition] = *info;
    }
    for (const auto& [partition, store] : snapshot.standbys) {
      auto info = impl_->lag_of(*store, true);
      if (!info) continue;  // closed since: its task moved here
      out[spec.name].try_emplace(partition, *info);
    }
  }
  if (!impl_->stores.unchanged_since(version)) {
    return error(Status::unavailable("tasks moved while their lags were read; ask again"));
  }
  return out;
}

Result<LagInfo> Streams::local_store_lag(std::string_view store, std::int32_t partition) const {
  if (!impl_->backend || !impl_->resolved) {
    return error(Status::failed_precondition("the application is not running"));
  }
  auto snapshot = impl_->stores.find(store);
  std::lock_guard lock(impl_->lag_mutex);  // the admin client is shared with lag()
  if (auto it = snapshot.stores.find(partition); it != snapshot.stores.end()) {
    return impl_->lag_of(*it->second, false);
  }
  if (auto it = snapshot.standbys.find(partition); it != snapshot.standbys.end()) {
    return impl_->lag_of(*it->second, true);
  }
  return error(Status::not_found(
      fmt::format("store {}: partition {} is neither active nor a standby on this instance", store,
                  partition)));
}

void Streams::set_restore_listener(std::shared_ptr<StateRestoreListener> listener) {
  impl_->restore_listener = std::move(listener);
}

Result<std::shared_ptr<internal::StoreQuery>> Streams::store_query(
    std::string_view name, StoreQueryOptions options) const {
  const auto* spec = internal::topology_data(impl_->topology).store(name);
  if (spec == nullptr) {
    return error(Status::not_found(fmt::format("the topology has no store named '{}'", name)));
  }
  auto partitions = impl_->store_partitions.find(name);
  if (!impl_->resolved || partitions == impl_->store_partitions.end()) {
    return error(Status::failed_precondition(
        fmt::format("store {} can be queried once the application has started", name)));
  }
  // A global store is registered as partition 0 of 1: every key is local.
  return std::make_shared<internal::LocalStoreQuery>(*spec, partitions->second, impl_->stores,
                                                     options.allow_stale);
}

}  // namespace brook

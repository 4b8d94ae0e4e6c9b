#include "brook/testing/topology_test_driver.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <set>

#include "runtime/global_state.h"
#include "runtime/stream_task.h"

namespace brook::testing {

using internal::StreamTask;

namespace {

// A fresh directory for the driver's RocksDB stores.
std::filesystem::path make_state_dir() {
  static std::atomic<int> counter{0};
  auto dir = std::filesystem::temp_directory_path() /
             fmt::format("brook-test-driver-{}-{}", ::getpid(), counter++);
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace

struct TopologyTestDriver::Impl final : internal::RecordCollector {
  ~Impl() {
    tasks.clear();  // closes the stores before their directory goes
    global.reset();
    internal::close_global_stores(global_stores, nullptr);
    std::filesystem::remove_all(state_dir);
  }

  std::filesystem::path state_dir = make_state_dir();
  std::shared_ptr<const internal::TopologyData> topology;
  Metrics metrics;
  Timestamp clock;
  std::vector<std::unique_ptr<StreamTask>> tasks;
  std::map<std::string, StreamTask*, std::less<>> task_of_topic;
  std::map<std::string, std::int64_t, std::less<>> next_offset;
  std::map<std::string, std::deque<ProducerRecord>, std::less<>> outputs;
  std::deque<ConsumerRecord> pending;  // output fed back into a source topic
  internal::GlobalStores global_stores;
  std::unique_ptr<internal::GlobalStateUpdater> global;  // null without global stores
  std::set<std::string, std::less<>> global_topics;

  bool reads(std::string_view topic) const {
    return task_of_topic.contains(topic) || global_topics.contains(topic);
  }

  void send(const std::string& topic, const OutgoingRecord& sent) override {
    ProducerRecord record = to_producer_record(topic, sent);
    if (reads(topic)) {
      pending.push_back(
          to_input(topic, record.key, record.value, record.timestamp, record.headers));
    } else {
      ++next_offset[topic];  // where changelog restoration would resume
    }
    outputs[topic].push_back(std::move(record));
  }

  // Every topic of the driver has one partition.
  Result<std::int32_t> partitions(const std::string&) override { return 1; }

  ConsumerRecord to_input(const std::string& topic, std::optional<std::string> key,
                          std::optional<std::string> value, Timestamp timestamp, Headers headers) {
    return {.topic = topic,
            .partition = Partition(0),
            .offset = Offset(next_offset[topic]++),
            .timestamp = timestamp,
            .key = std::move(key),
            .value = std::move(value),
            .headers = std::move(headers)};
  }

  static void check(const Status& status) {
    if (!status.ok()) throw TaskFailed(status);
  }

  // Processes `record` and then whatever it wrote back into source topics, committing after
  // each record as if the commit interval were zero.
  void run(ConsumerRecord record) {
    pending.push_back(std::move(record));
    while (!pending.empty()) {
      ConsumerRecord next = std::move(pending.front());
      pending.pop_front();
      if (global_topics.contains(next.topic)) {  // the global store, at once
        check(global->process(next));
        check(global->commit({{{next.topic, next.partition}, Offset(next.offset.value() + 1)}}));
        continue;
      }
      StreamTask& task = *task_of_topic.at(next.topic);
      // The task processes the record before `next` goes: the batch views it in place.
      task.add_batch(internal::batch_of(next));
      while (task.buffered() > 0) {
        auto processed = task.process_one();
        if (!processed) throw TaskFailed(processed.error());
      }
      commit();
    }
  }

  void commit() {
    for (auto& task : tasks) check(task->flush_state());
    auto changelog_end = [this](const internal::TopicPartition& tp) -> Result<Offset> {
      return Offset(next_offset[tp.topic]);
    };
    for (auto& task : tasks) check(task->commit_state(changelog_end));
  }
};

TopologyTestDriver::TopologyTestDriver(const Topology& topology, TestDriverConfig config)
    : impl_(std::make_unique<Impl>()) {
  impl_->topology =
      internal::resolve_internal_topics(internal::topology_data(topology), config.application_id);
  impl_->clock = config.wall_clock_start;
  internal::StateConfig state{.dir = impl_->state_dir,
                              .rocksdb_memory = std::make_shared<internal::RocksDbMemory>(64 << 20),
                              .cache = std::make_shared<internal::RecordCache>(10 << 20)};
  if (!impl_->topology->global_subtopologies.empty()) {
    auto stores = internal::open_global_stores(*impl_->topology, state);
    if (!stores) throw TaskFailed(stores.error());
    impl_->global_stores = std::move(*stores);
    impl_->global = std::make_unique<internal::GlobalStateUpdater>(
        impl_->topology, impl_->global_stores,
        internal::GlobalStateUpdater::Config{.application_id = config.application_id,
                                             .errors = config.errors,
                                             .clock = [impl = impl_.get()] { return impl->clock; },
                                             .dead_letters = impl_.get()},
        impl_->metrics);
    Impl::check(impl_->global->init());
    for (const auto& topic : impl_->global->topics()) impl_->global_topics.insert(topic);
    state.global_stores = impl_->global_stores;
  }
  for (const auto& sub : impl_->topology->subtopologies) {
    internal::TaskConfig task_config{.application_id = config.application_id,
                                     .errors = config.errors,
                                     .clock = [impl = impl_.get()] { return impl->clock; },
                                     .state = state,
                                     .idle_advance = config.stream_time_idle_advance};
    auto task = std::make_unique<StreamTask>(TaskId{sub.id, 0}, impl_->topology,
                                             std::move(task_config), *impl_, impl_->metrics);
    Impl::check(task->init());
    task->restored();  // its stores start empty: nothing to restore
    for (const auto& topic : sub.source_topics) impl_->task_of_topic.emplace(topic, task.get());
    impl_->tasks.push_back(std::move(task));
  }
}

TopologyTestDriver::~TopologyTestDriver() = default;

void TopologyTestDriver::pipe_raw_input(const std::string& topic, std::optional<std::string> key,
                                        std::optional<std::string> value, Timestamp timestamp,
                                        Headers headers) {
  if (!impl_->reads(topic)) {
    throw std::invalid_argument(fmt::format("topic '{}' is not read by the topology", topic));
  }
  impl_->run(
      impl_->to_input(topic, std::move(key), std::move(value), timestamp, std::move(headers)));
}

void TopologyTestDriver::advance_wall_clock_time(std::chrono::milliseconds by) {
  impl_->clock = impl_->clock + by;
  for (auto& task : impl_->tasks) {
    auto fired = task->punctuate_wall_clock();
    if (!fired) Impl::check(fired.error());
  }
  impl_->commit();
  if (!impl_->pending.empty()) {
    ConsumerRecord first = std::move(impl_->pending.front());
    impl_->pending.pop_front();
    impl_->run(std::move(first));
  }
}

Timestamp TopologyTestDriver::wall_clock_time() const { return impl_->clock; }

internal::StoreAccess TopologyTestDriver::state_store(std::string_view name) {
  for (auto& task : impl_->tasks) {
    if (auto* store = task->stores().find(name)) return {*store, store->spec()};
  }
  if (auto global = impl_->global_stores.find(name); global != impl_->global_stores.end()) {
    return {*global->second, global->second->spec()};
  }
  throw std::invalid_argument(fmt::format("the topology has no store named '{}'", name));
}

const Metrics& TopologyTestDriver::metrics() const { return impl_->metrics; }

std::deque<ProducerRecord>& TopologyTestDriver::output_queue(const std::string& topic) {
  return impl_->outputs[topic];
}

std::vector<std::string> TopologyTestDriver::output_topics() const {
  std::vector<std::string> topics;
  for (const auto& [topic, queue] : impl_->outputs) topics.push_back(topic);
  return topics;
}

}  // namespace brook::testing

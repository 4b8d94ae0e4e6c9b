#include "brook/testing/topology_test_driver.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>

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

  void send(ProducerRecord&& record) override {
    if (task_of_topic.contains(record.topic)) {
      pending.push_back(
          to_input(record.topic, record.key, record.value, record.timestamp, record.headers));
    } else {
      ++next_offset[record.topic];  // where changelog restoration would resume
    }
    outputs[record.topic].push_back(std::move(record));
  }

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
      StreamTask& task = *task_of_topic.at(next.topic);
      task.add_record(std::move(next));
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
  impl_->topology = internal::resolve_internal_topics(topology.data(), config.application_id);
  impl_->clock = config.wall_clock_start;
  const internal::StateConfig state{
      .dir = impl_->state_dir,
      .rocksdb_memory = std::make_shared<internal::RocksDbMemory>(64 << 20),
      .cache = std::make_shared<internal::CacheBudget>(10 << 20)};
  for (const auto& sub : impl_->topology->subtopologies) {
    internal::TaskConfig task_config{.application_id = config.application_id,
                                     .errors = config.errors,
                                     .clock = [impl = impl_.get()] { return impl->clock; },
                                     .state = state,
                                     .idle_advance = config.stream_time_idle_advance};
    auto task = std::make_unique<StreamTask>(TaskId{sub.id, 0}, impl_->topology,
                                             std::move(task_config), *impl_, impl_->metrics);
    Impl::check(task->init());
    for (const auto& topic : sub.source_topics) impl_->task_of_topic.emplace(topic, task.get());
    impl_->tasks.push_back(std::move(task));
  }
}

TopologyTestDriver::~TopologyTestDriver() = default;

void TopologyTestDriver::pipe_raw_input(const std::string& topic, std::optional<std::string> key,
                                        std::optional<std::string> value, Timestamp timestamp,
                                        Headers headers) {
  if (!impl_->task_of_topic.contains(topic)) {
    throw std::invalid_argument(fmt::format("topic '{}' is not read by the topology", topic));
  }
  impl_->run(
      impl_->to_input(topic, std::move(key), std::move(value), timestamp, std::move(headers)));
}

void TopologyTestDriver::advance_wall_clock_time(std::chrono::milliseconds by) {
  impl_->clock = impl_->clock + by;
  for (auto& task : impl_->tasks) Impl::check(task->punctuate_wall_clock());
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

#include "brook/testing/topology_test_driver.h"

#include <fmt/format.h>

#include <map>

#include "runtime/stream_task.h"

namespace brook::testing {

using internal::StreamTask;

struct TopologyTestDriver::Impl final : internal::RecordCollector {
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

  // Processes `record` and then whatever it wrote back into source topics.
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
    }
  }
};

TopologyTestDriver::TopologyTestDriver(const Topology& topology, TestDriverConfig config)
    : impl_(std::make_unique<Impl>()) {
  impl_->topology = topology.shared_data();
  impl_->clock = config.wall_clock_start;
  for (const auto& sub : impl_->topology->subtopologies) {
    internal::TaskConfig task_config{.application_id = config.application_id,
                                     .errors = config.errors,
                                     .clock = [impl = impl_.get()] { return impl->clock; }};
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
  if (!impl_->pending.empty()) {
    ConsumerRecord first = std::move(impl_->pending.front());
    impl_->pending.pop_front();
    impl_->run(std::move(first));
  }
}

Timestamp TopologyTestDriver::wall_clock_time() const { return impl_->clock; }

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

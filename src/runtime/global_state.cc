#include "runtime/global_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/log.h"

namespace brook::internal {
namespace {

MetricName global_metric(const char* name) {
  return {.group = "stream-task-metrics", .name = name, .tags = {{"task-id", "global"}}};
}

std::string position(const ConsumerRecord& record) {
  return fmt::format("{}-{}@{}", record.topic, record.partition.value(), record.offset.value());
}

}  // namespace

Result<GlobalStores> open_global_stores(const TopologyData& topology, const StateConfig& state) {
  GlobalStores stores;
  for (const auto& global : topology.global_subtopologies) {
    for (const auto& name : global.stores) {
      if (stores.contains(name)) continue;
      const StoreSpec* spec = topology.store(name);
      StoreEnvironment env{.dir = state.dir / "global" / spec->name,
                           .rocksdb_memory = state.rocksdb_memory,
                           .sync = state.sync};
      auto stack = open_store_stack(*spec, env);
      if (!stack) {
        close_global_stores(stores, state.registry);
        return error(Status(
            stack.error().code(),
            fmt::format("cannot open global store {}: {}", spec->name, stack.error().message())));
      }
      auto store = std::make_shared<LocalStore>(*spec, global_task_id(global.id), std::move(*stack),
                                                std::nullopt);
      if (state.registry != nullptr) state.registry->add(store);
      stores.emplace(name, std::move(store));
    }
  }
  return stores;
}

void close_global_stores(GlobalStores& stores, StoreRegistry* registry) {
  for (auto& [name, store] : stores) {
    if (registry != nullptr) registry->remove(*store);
    store->close();
  }
  stores.clear();
}

GlobalStateUpdater::GlobalStateUpdater(std::shared_ptr<const TopologyData> topology,
                                       GlobalStores stores, Config config, Metrics& metrics)
    : topology_(std::move(topology)),
      stores_(std::move(stores)),
      config_(std::move(config)),
      processed_(metrics.counter(global_metric("process-total"))),
      deserialization_errors_(metrics.counter(global_metric("deserialization-errors-total"))),
      processing_errors_(metrics.counter(global_metric("processing-errors-total"))),
      dropped_(metrics.counter(global_metric("dropped-records-total"))),
      dead_lettered_(metrics.counter(global_metric("dead-letter-records-total"))) {}

GlobalStateUpdater::~GlobalStateUpdater() { close(); }

Status GlobalStateUpdater::init() {
  if (auto s = validate(config_.errors); !s.ok()) return s;
  for (std::size_t g = 0; g < topology_->global_subtopologies.size(); ++g) {
    auto graph = instantiate_global(*topology_, static_cast<int>(g));
    if (!graph) return graph.error();
    const int id = topology_->global_subtopologies[g].id;
    for (const auto& [topic, source] : graph->sources_by_topic) {
      source_of_topic_.emplace(topic, std::pair{source, id});
    }
    graphs_.push_back(std::move(*graph));
  }
  for (auto& graph : graphs_) {
    for (auto& node : graph.nodes) {
      try {
        node->init(*this);
      } catch (const std::exception& e) {
        return Status::invalid_argument(
            fmt::format("global store node {} failed to initialise: {}", node->name(), e.what()));
      }
    }
  }
  initialised_ = true;
  return {};
}

std::vector<std::string> GlobalStateUpdater::topics() const {
  std::vector<std::string> out;
  for (const auto& global : topology_->global_subtopologies) out.push_back(global.topic);
  return out;
}

std::vector<LocalStore*> GlobalStateUpdater::stores_of(std::string_view topic) const {
  std::vector<LocalStore*> out;
  for (const auto& global : topology_->global_subtopologies) {
    if (global.topic != topic) continue;
    for (const auto& name : global.stores) out.push_back(stores_.at(name).get());
  }
  return out;
}

Status GlobalStateUpdater::process(const ConsumerRecord& record) {
  auto source = source_of_topic_.find(record.topic);
  if (source == source_of_topic_.end()) {
    return Status::not_found(
        fmt::format("global thread: no global store reads topic '{}'", record.topic));
  }
  current_ = &record;
  task_ = global_task_id(source->second.second, record.partition.value());
  ++processed_;
  Status outcome;
  try {
    Status read = source->second.first->process_raw({.topic = record.topic,
                                                     .partition = record.partition,
                                                     .offset = record.offset,
                                                     .timestamp = record.timestamp,
                                                     .key = record.key,
                                                     .value = record.value,
                                                     .headers = record.headers});
    if (!read.ok()) {
      ++deserialization_errors_;
      outcome = handle_error("deserialization", config_.errors.on_deserialization_error,
                             source->second.first->name(), read.message(), record);
    }
  } catch (const NodeError& e) {
    ++processing_errors_;
    outcome =
        handle_error("processing", config_.errors.on_processing_error, e.node(), e.what(), record);
  } catch (const StoreError& e) {
    outcome = Status::io_error(fmt::format("global thread: {}", e.what()));
  }
  current_ = nullptr;
  if (!timestamp_error_.ok()) outcome = std::exchange(timestamp_error_, Status());
  return outcome;
}

Status GlobalStateUpdater::commit(const std::map<TopicPartition, Offset>& positions) {
  for (const auto& global : topology_->global_subtopologies) {
    std::map<std::int32_t, Offset> next;
    for (const auto& [tp, offset] : positions) {
      if (tp.topic == global.topic) next.emplace(tp.partition.value(), offset);
    }
    for (const auto& name : global.stores) {
      auto& store = *stores_.at(name);
      if (auto s = store.flush(); !s.ok()) return s;
      if (auto s = store.commit_positions(next); !s.ok()) return s;
      (void)store.take_written();
    }
  }
  return {};
}

void GlobalStateUpdater::close() {
  if (closed_) return;
  closed_ = true;
  if (!initialised_) return;
  for (auto& graph : graphs_) {
    for (auto& node : graph.nodes) {
      try {
        node->close();
      } catch (const std::exception& e) {
        log(LogLevel::kWarn, "global store node {} failed to close: {}", node->name(), e.what());
      }
    }
  }
}

std::optional<RecordMetadata> GlobalStateUpdater::record_metadata() const {
  if (current_ == nullptr) return std::nullopt;
  return RecordMetadata{current_->topic, current_->partition, current_->offset};
}

Cancellable GlobalStateUpdater::schedule(std::string_view node, std::chrono::milliseconds,
                                         PunctuationType, Punctuator) {
  throw std::invalid_argument(
      fmt::format("node {}: a global store's processors cannot schedule punctuations", node));
}

Timestamp GlobalStateUpdater::partition_time() const {
  if (current_ == nullptr) return Timestamp::min();
  auto it = partition_time_.find({current_->topic, current_->partition.value()});
  return it == partition_time_.end() ? Timestamp::min() : it->second;
}

std::optional<Timestamp> GlobalStateUpdater::accept_timestamp(Timestamp timestamp,
                                                              InvalidTimestamp on_invalid) {
  if (current_ == nullptr) {
    throw std::logic_error("accept_timestamp() outside a record read by a source");
  }
  auto& partition_time =
      partition_time_.try_emplace({current_->topic, current_->partition.value()}, Timestamp::min())
          .first->second;
  if (timestamp.value() < 0) {
    const std::string what = fmt::format("global thread: invalid timestamp {} of record {}",
                                         timestamp.value(), position(*current_));
    switch (on_invalid) {
      case InvalidTimestamp::kSkip:
        ++dropped_;
        if (worth_logging(++handled_)) {
          log(LogLevel::kWarn, "{}: dropped (InvalidTimestamp::kSkip{})", what,
              rate_limit_note(handled_));
        }
        return std::nullopt;
      case InvalidTimestamp::kUsePartitionTime:
        if (partition_time != Timestamp::min()) {
          timestamp = partition_time;
          break;
        }
        timestamp_error_ = Status::invalid_argument(
            what +
            ", and no partition time yet to use instead (InvalidTimestamp::kUsePartitionTime)");
        return std::nullopt;
      case InvalidTimestamp::kFail:
        timestamp_error_ = Status::invalid_argument(what + " (InvalidTimestamp::kFail)");
        return std::nullopt;
    }
  }
  partition_time = std::max(partition_time, timestamp);
  stream_time_ = std::max(stream_time_, timestamp);
  return timestamp;
}

void GlobalStateUpdater::drop_record(std::string_view node, std::string_view reason) {
  ++dropped_;
  if (worth_logging(++handled_)) {
    log(LogLevel::kWarn, "global thread: node {} dropped the record from {}{}: {}", node,
        current_ == nullptr ? std::string("a punctuation") : position(*current_),
        rate_limit_note(handled_), reason);
  }
}

void GlobalStateUpdater::send(ProducerRecord&&) {
  throw std::invalid_argument("a global store's nodes cannot write to topics");
}

Result<std::int32_t> GlobalStateUpdater::partitions(const std::string&) {
  throw std::invalid_argument("a global store's nodes cannot write to topics");
}

StoreAccess GlobalStateUpdater::state_store(std::string_view node, std::string_view store) {
  auto local = stores_.find(store);
  const bool connected =
      std::any_of(topology_->nodes.begin(), topology_->nodes.end(), [&](auto& n) {
        return n.global && n.name == node &&
               std::find(n.stores.begin(), n.stores.end(), store) != n.stores.end();
      });
  if (local == stores_.end() || !connected) {
    throw std::invalid_argument(fmt::format("global node {} has no state store '{}'", node, store));
  }
  return {*local->second, local->second->spec()};
}

Status GlobalStateUpdater::handle_error(std::string_view kind, ErrorAction action,
                                        const std::string& node, const std::string& message,
                                        const ConsumerRecord& record) {
  if (action == ErrorAction::kFail) {
    return Status::invalid_argument(fmt::format("global thread: {} error in node {} at {}: {}",
                                                kind, node, position(record), message));
  }
  if (worth_logging(++handled_)) {
    log(LogLevel::kWarn, "global thread: {} error in node {} at {} (skipped{}): {}", kind, node,
        position(record), rate_limit_note(handled_), message);
  }
  if (action == ErrorAction::kDeadLetter && config_.dead_letters != nullptr) {
    ProducerRecord dead{.topic = config_.errors.dead_letter_topic,
                        .timestamp = record.timestamp,
                        .key = record.key,
                        .value = record.value,
                        .headers = record.headers};
    dead.headers.add(std::string(kErrorKindHeader), std::string(kind));
    dead.headers.add(std::string(kErrorMessageHeader), message);
    dead.headers.add(std::string(kErrorNodeHeader), node);
    dead.headers.add(std::string(kErrorTopicHeader), record.topic);
    dead.headers.add(std::string(kErrorPartitionHeader), std::to_string(record.partition.value()));
    dead.headers.add(std::string(kErrorOffsetHeader), std::to_string(record.offset.value()));
    config_.dead_letters->send(std::move(dead));
    ++dead_lettered_;
  } else {
    ++dropped_;
  }
  return {};
}

}  // namespace brook::internal

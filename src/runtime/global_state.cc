#include "runtime/global_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/log.h"

namespace brook::internal {

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
      boundary_("global thread", "global", config_.errors, config_.dead_letters, metrics) {}

GlobalStateUpdater::~GlobalStateUpdater() { close(); }

Status GlobalStateUpdater::init() {
  if (auto s = validate(boundary_.errors()); !s.ok()) return s;
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
  const SourceRecord source_record{.topic = record.topic,
                                   .partition = record.partition,
                                   .offset = record.offset,
                                   .timestamp = record.timestamp,
                                   .key = record.key,
                                   .value = record.value,
                                   .headers = record.headers};
  task_ = global_task_id(source->second.second, record.partition.value());
  return boundary_.process(*source->second.first, source_record);
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
  const SourceRecord* current = boundary_.current();
  if (current == nullptr) return std::nullopt;
  return RecordMetadata{std::string(current->topic), current->partition, current->offset};
}

Cancellable GlobalStateUpdater::schedule(std::string_view node, std::chrono::milliseconds,
                                         PunctuationType, Punctuator) {
  throw std::invalid_argument(
      fmt::format("node {}: a global store's processors cannot schedule punctuations", node));
}

Timestamp GlobalStateUpdater::partition_time() const {
  const SourceRecord* current = boundary_.current();
  if (current == nullptr) return Timestamp::min();
  auto it = partition_time_.find({std::string(current->topic), current->partition});
  return it == partition_time_.end() ? Timestamp::min() : it->second;
}

std::optional<Timestamp> GlobalStateUpdater::accept_timestamp(Timestamp timestamp,
                                                              InvalidTimestamp on_invalid) {
  const SourceRecord* current = boundary_.current();
  if (current == nullptr) {
    throw std::logic_error("accept_timestamp() outside a record read by a source");
  }
  auto& partition_time =
      partition_time_
          .try_emplace({std::string(current->topic), current->partition}, Timestamp::min())
          .first->second;
  auto accepted = boundary_.accept_timestamp(timestamp, on_invalid, partition_time);
  if (!accepted) return std::nullopt;
  partition_time = std::max(partition_time, *accepted);
  stream_time_ = std::max(stream_time_, *accepted);
  return accepted;
}

void GlobalStateUpdater::drop_record(std::string_view node, std::string_view reason) {
  boundary_.drop_record(node, reason);
}

void GlobalStateUpdater::send(const std::string&, const OutgoingRecord&) {
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

}  // namespace brook::internal

#include "runtime/task_stores.h"

#include <fmt/format.h>

#include <algorithm>

#include "brook/internal/coding.h"

namespace brook::internal {

Status TaskStores::open(const TopologyData& topology, std::string_view application_id, Send send,
                        std::function<Timestamp()> now,
                        const std::function<bool(const StoreSpec&)>& keep) {
  std::vector<const StoreSpec*> used;
  for (std::size_t i : topology.subtopologies.at(task_.subtopology).nodes) {
    for (const auto& name : topology.nodes[i].stores) {
      const StoreSpec* spec = topology.store(name);
      if (spec->global) continue;  // the instance's, not the task's
      if (keep && !keep(*spec)) continue;
      if (std::find(used.begin(), used.end(), spec) == used.end()) used.push_back(spec);
    }
  }
  for (const StoreSpec* spec : used) {
    std::optional<TopicPartition> changelog;
    if (spec->logging) {
      changelog =
          TopicPartition{changelog_topic(application_id, spec->name), Partition(task_.partition)};
    } else if (!spec->source_topic.empty()) {
      changelog = TopicPartition{spec->source_topic, Partition(task_.partition)};
    }
    StoreEnvironment env{
        .dir = config_.dir / task_.to_string() / spec->name,
        .rocksdb_memory = config_.rocksdb_memory,
        .sync = config_.sync,
        .cache = config_.cache,
        .log =
            [topic = changelog ? changelog->topic : "", partition = Partition(task_.partition),
             timestamped = spec->timestamped, send,
             now](std::string_view key, std::optional<std::string_view> value) {
              OutgoingRecord record{.partition = partition, .timestamp = now(), .key = key};
              if (value && timestamped) {
                // TimestampedSerde always writes the 8 bytes
                record.timestamp = Timestamp(get_big_endian<std::int64_t>(value->data()));
                value->remove_prefix(8);
              }
              record.value = value;
              send(topic, record);
            },
        .metrics = config_.metrics,
        .metric_tags = {{"thread-id", config_.thread_id}, {"task-id", task_.to_string()}},
        .debug_metrics = config_.debug_metrics};
    auto stack = open_store_stack(*spec, env);
    if (!stack) {
      return Status(stack.error().code(),
                    fmt::format("task {}: cannot open store {}: {}", task_.to_string(), spec->name,
                                stack.error().message()));
    }
    auto store = std::make_shared<LocalStore>(*spec, task_, std::move(*stack), changelog,
                                              config_.cache_lock);
    if (config_.registry != nullptr) config_.registry->add(store, config_.standby);
    stores_.push_back(std::move(store));
  }
  return {};
}

LocalStore* TaskStores::find(std::string_view name) const {
  for (const auto& store : stores_) {
    if (store->name() == name) return store.get();
  }
  if (auto global = config_.global_stores.find(name); global != config_.global_stores.end()) {
    return global->second.get();
  }
  return nullptr;
}

Status TaskStores::flush() {
  for (const auto& store : stores_) {
    if (auto s = store->flush(); !s.ok()) return s;
  }
  return {};
}

Status TaskStores::commit(const std::function<Result<Offset>(const TopicPartition&)>& end_of) {
  for (const auto& store : stores_) {
    if (!store->take_written()) continue;
    std::optional<Offset> next;
    if (store->changelog()) {
      auto end = end_of(*store->changelog());
      if (!end) return end.error();
      next = *end;
    }
    if (auto s = store->commit(next); !s.ok()) return s;
  }
  return {};
}

void TaskStores::close() {
  for (const auto& store : stores_) {
    if (config_.registry != nullptr) config_.registry->remove(*store);
    store->close();
  }
  stores_.clear();
}

}  // namespace brook::internal

#include "state/store_stack.h"

#include <fmt/format.h>

#include "brook/state_store.h"
#include "state/in_memory_store.h"
#include "state/metered_store.h"
#include "state/segmented_store.h"

namespace brook::internal {

namespace {

// Kafka Streams' tag for a store in stream-state-metrics: rocksdb-window-state-id, ...
std::string state_id_tag(const StoreSpec& spec) {
  const char* type = spec.type == StoreType::kInMemory ? "in-memory" : "rocksdb";
  const char* kind = spec.kind == StoreKind::kWindow    ? "-window"
                     : spec.kind == StoreKind::kSession ? "-session"
                                                        : "";
  return fmt::format("{}{}-state-id", type, kind);
}

Sensor& store_sensor(const StoreEnvironment& env, const char* group, std::string tag,
                     const StoreSpec& spec, const char* name, Metrics::SensorKind kind) {
  auto tags = env.metric_tags;
  tags[std::move(tag)] = spec.name;
  return env.metrics->sensor({.group = group, .name = name, .tags = std::move(tags)}, kind);
}

}  // namespace

Result<StoreStack> open_store_stack(const StoreSpec& spec, const StoreEnvironment& env) {
  StoreStack stack;
  if (spec.type == StoreType::kInMemory) {
    stack.top = std::make_unique<InMemoryStore>(spec.name);
  } else {
    // Under a memory index (the segmented store below keeps one), read only when it opens.
    const bool written_only = spec.reads_in_memory && spec.kind != StoreKind::kKeyValue;
    // Only the segmented store below a window or session store deletes ranges, from bare
    // segment ids, shorter than any key it stores.
    const std::size_t hinted = spec.kind == StoreKind::kKeyValue ? 0 : kSegmentIdBytes + 1;
    auto store = open_rocksdb_store(
        spec.name, env.dir, env.rocksdb_memory,
        {.sync = env.sync, .written_only = written_only, .insert_hints_from_key_bytes = hinted});
    if (!store) return error(std::move(store.error()));
    stack.top = std::move(*store);
  }
  if (spec.kind != StoreKind::kKeyValue) {  // keys translated to [segment id][key] below
    stack.top = std::make_unique<SegmentedStore>(std::move(stack.top), spec.kind, spec.retention,
                                                 segment_interval_for(spec.retention),
                                                 spec.reads_in_memory);
  }
  stack.bottom = stack.top.get();
  if (spec.logging) {
    stack.top = std::make_unique<ChangeLoggingStore>(std::move(stack.top), env.log);
  }
  if (spec.caching && env.cache != nullptr) {
    // DEBUG only, as Kafka Streams' record cache metrics: recorded on every read.
    Sensor* hit_ratio = env.metrics == nullptr || !env.debug_metrics
                            ? nullptr
                            : &store_sensor(env, "stream-record-cache-metrics", "record-cache-id",
                                            spec, "hit-ratio", Metrics::SensorKind::kRatio);
    stack.top = std::make_unique<CachingStore>(std::move(stack.top), env.cache, hit_ratio);
  }
  if (env.metrics != nullptr && env.debug_metrics) {
    auto sensor = [&](const char* name) -> Sensor& {
      return store_sensor(env, "stream-state-metrics", state_id_tag(spec), spec, name,
                          Metrics::SensorKind::kLatency);
    };
    stack.top = std::make_unique<MeteredStore>(std::move(stack.top), sensor("get"), sensor("put"));
  }
  return stack;
}

}  // namespace brook::internal

// What the DSL classes (KStream, KTable, grouped streams and tables) share when they add
// nodes, stores and repartition topics to the graph being described. Not for users.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "brook/internal/graph_builder.h"
#include "brook/internal/node.h"
#include "brook/internal/stateful.h"
#include "brook/internal/stateless.h"
#include "brook/internal/type_name.h"
#include "brook/options.h"

namespace brook::internal {

// Inner, left or outer (brook/stream_stream_join.h).
enum class StreamJoinKind { kInner, kLeft, kOuter };

// Records that node `name` has no serde for `type` (kind "source", what "key", options
// "Consumed").
void missing_serde(GraphBuilder& graph, const std::string& name, std::string_view kind,
                   std::string_view what, std::string_view options, std::string_view type);

// `given`, or T's default serde; records a missing one against node `name`.
template <class T>
SerdePtr<SerdeTargetT<T>> serde_or_default(GraphBuilder& graph, SerdePtr<SerdeTargetT<T>> given,
                                           const std::string& name, std::string_view kind,
                                           std::string_view what, std::string_view options) {
  if (given) return given;
  auto serde = default_serde<T>();
  if (!serde) missing_serde(graph, name, kind, what, options, type_name<SerdeTargetT<T>>());
  return serde;
}

// Adds a processor node, the node `make(name)` returns; its name.
template <class MakeNode>
std::string add_node(GraphBuilder& graph, std::string_view prefix, const std::string& user_name,
                     std::vector<std::string> parents, MakeNode make,
                     std::vector<std::string> stores = {}) {
  auto name = graph.name_for(user_name, prefix);
  graph.add({.name = name,
             .kind = NodeKind::kProcessor,
             .parents = std::move(parents),
             .stores = std::move(stores),
             .factory = [name, make]() mutable -> std::unique_ptr<Node> { return make(name); }});
  return name;
}

// What add_node() takes to add a node running the processor `make()` returns.
template <class KIn, class VIn, class KOut, class VOut, class MakeProcessor>
auto processor_node(MakeProcessor make) {
  return [make](const std::string& name) mutable -> std::unique_ptr<Node> {
    return std::make_unique<ProcessorNode<KIn, VIn, KOut, VOut>>(name, make());
  };
}

// Adds a processor node running the processor `make()` returns; its name.
template <class KIn, class VIn, class KOut, class VOut, class MakeProcessor>
std::string add_processor(GraphBuilder& graph, std::string_view prefix,
                          const std::string& user_name, std::vector<std::string> parents,
                          MakeProcessor make, std::vector<std::string> stores = {}) {
  return add_node(graph, prefix, user_name, std::move(parents),
                  processor_node<KIn, VIn, KOut, VOut>(std::move(make)), std::move(stores));
}

// Adds a node that passes the records of its parents on unchanged (a merge); its name.
template <class K, class V>
std::string add_pass_through(GraphBuilder& graph, std::string_view prefix,
                             const std::string& user_name, std::vector<std::string> parents) {
  return add_node(graph, prefix, user_name, std::move(parents), [](const std::string& name) {
    return std::make_unique<PassThroughNode<K, V>>(name);
  });
}

template <class K, class V>
std::string add_source(GraphBuilder& graph, const std::string& name,
                       std::vector<std::string> topics, bool internal,
                       SerdePtr<SerdeTargetT<K>> key_serde, SerdePtr<SerdeTargetT<V>> value_serde,
                       SourceTimestamps<K, V> timestamps = {},
                       NullKeys null_keys = NullKeys::kRead) {
  graph.add(
      {.name = name,
       .kind = NodeKind::kSource,
       .topics = std::move(topics),
       .internal_topics = internal,
       .factory = [name, key_serde, value_serde, timestamps, null_keys] -> std::unique_ptr<Node> {
         return std::make_unique<SourceNode<K, V>>(name, key_serde, value_serde, timestamps,
                                                   null_keys);
       }});
  return name;
}

// A store just declared: its name and the serdes of its facade's key and (unwrapped) value.
template <class K, class V>
struct DeclaredStore {
  std::string name;
  SerdePtr<K> key_serde;
  SerdePtr<V> value_serde;
};

// What a window or session store keeps (StoreSpec's fields); the default is a key-value store.
struct StoreShape {
  StoreKind kind = StoreKind::kKeyValue;
  std::chrono::milliseconds retention{0};
  std::chrono::milliseconds window_size{0};
  std::chrono::milliseconds window_advance{0};  // time windows: every record reads its windows
};

// Declares the timestamped store of a table or aggregation, named `options.name` or
// "<prefix>-STATE-STORE-<counter>".
template <class K, class V>
DeclaredStore<K, V> add_table_store(GraphBuilder& graph, const Materialized<K, V>& options,
                                    std::string_view prefix, StoreShape shape = {}) {
  auto name = graph.given_or_generated(options.name, std::string(prefix) + "-STATE-STORE");
  auto key_serde =
      serde_or_default<K>(graph, options.key_serde, name, "store", "key", "Materialized");
  auto value_serde =
      serde_or_default<V>(graph, options.value_serde, name, "store", "value", "Materialized");
  SerdePtr<ValueAndTimestamp<V>> stored;
  if (value_serde) stored = std::make_shared<const TimestampedSerde<V>>(value_serde);
  auto spec = StoreSpec::make<K, ValueAndTimestamp<V>>(name, options.type, options.logging,
                                                       options.caching, key_serde, stored);
  spec.kind = shape.kind;
  spec.retention = shape.retention;
  spec.window_size = shape.window_size;
  spec.window_advance = shape.window_advance;
  if (shape.kind == StoreKind::kKeyValue) {
    spec.read_by = StoreSpec::ReadBy::kRecordKey;
  } else if (shape.window_advance.count() > 0) {
    spec.read_by = StoreSpec::ReadBy::kTimeWindows;
  }
  graph.add_store(std::move(spec));
  return {std::move(name), std::move(key_serde), std::move(value_serde)};
}

// How a record of a table's source topic becomes the entry TableSourceProcessor writes to
// the table's store: the key in the store's serde, the value with the record's timestamp in
// front (TimestampedSerde), a null value a delete. Empty if a serde is missing (reported
// elsewhere).
template <class K, class V>
FromSourceRecord table_entry_of(SerdePtr<K> source_key, SerdePtr<V> source_value,
                                SerdePtr<K> store_key, SerdePtr<V> store_value) {
  if (!source_key || !source_value || !store_key || !store_value) return {};
  return [=, stored = TimestampedSerde<V>(store_value)](
             std::optional<std::string_view> key_bytes, std::optional<std::string_view> value_bytes,
             Timestamp timestamp) -> std::optional<StoreEntry> {
    if (!key_bytes || timestamp.value() < 0) return std::nullopt;
    auto key = source_key->deserialize(*key_bytes);
    auto value = decode<std::optional<V>>(*source_value, value_bytes);
    if (!key || !value) return std::nullopt;
    auto store_key_bytes = store_key->serialize(*key);
    if (!store_key_bytes) return std::nullopt;
    StoreEntry entry{.key = std::move(*store_key_bytes), .value = std::nullopt};
    if (*value) {
      auto bytes = stored.serialize({std::move(**value), timestamp});
      if (!bytes) return std::nullopt;
      entry.value = std::move(*bytes);
    }
    return entry;
  };
}

// Adds the aggregation node `name` of the records of node `input` into the table store `store`
// (see AggregateProcessor); its name.
template <class K, class VIn, class VA, class F>
std::string add_aggregate(GraphBuilder& graph, const std::string& name, const std::string& store,
                          const std::string& input, F f) {
  return add_processor<K, VIn, K, Change<VA>>(
      graph, "", name, {input},
      [store, f] { return std::make_unique<AggregateProcessor<K, VIn, VA, F>>(store, f); },
      {store});
}

// Why a repartition topic exists.
enum class Repartitioning {
  kAsked,         // asked for by the operator itself (repartition(), a table's group_by, ...)
  kForKeyChange,  // only because the keys changed upstream: may merge with others
};

// The nodes of a repartition, named as Kafka Streams names them for the same DSL.
enum class RepartitionShape {
  // A stream's (repartition(), and before a key-based operator): the filter Kafka Streams puts
  // before the sink, which passes every record (since 3.7 records without a key are
  // repartitioned too), then the sink. Named "<topic>-filter", "<topic>-sink" and
  // "<topic>-source", or generated names if `topic` is a generated name + "-repartition";
  // numbers for the three are taken either way.
  kStream,
  // A grouped table's: the sink and the source, with generated names.
  kTable,
};

// Whether `name` is a generated name: "KSTREAM...-<10 digits>".
bool is_generated_stream_name(std::string_view name);

// Writes the records of the nodes `parents` with the sink `sink` to the internal topic
// <application.id>-<topic> (`partitions`: 0 for as many as the topology's plan gives it), each
// to the partition `partition_of` picks or else its key's, and reads them back with the source
// `source`, whose name it returns. This is where a sub-topology ends and the next begins.
template <class K, class V>
std::string add_internal_topic(GraphBuilder& graph, std::vector<std::string> parents,
                               const std::string& topic, std::int32_t partitions,
                               const std::string& sink, const std::string& source,
                               SerdePtr<SerdeTargetT<K>> key_serde,
                               SerdePtr<SerdeTargetT<V>> value_serde,
                               RecordPartitioner<K, V> partition_of = {}) {
  graph.add(
      {.name = sink,
       .kind = NodeKind::kSink,
       .parents = std::move(parents),
       .topics = {topic},
       .internal_topics = true,
       .factory = [sink, topic, key_serde, value_serde, partition_of] -> std::unique_ptr<Node> {
         return std::make_unique<SinkNode<K, V>>(sink, InternalTopic{topic}, key_serde, value_serde,
                                                 partition_of);
       }});
  graph.add_repartition_topic({.name = topic, .partitions = partitions});
  return add_source<K, V>(graph, source, {topic}, true, key_serde, value_serde);
}

// Repartitions the records of node `parent` through the internal topic
// <application.id>-<topic> (add_internal_topic), with the given serdes or the types' defaults;
// the reading source's name.
template <class K, class V>
std::string add_repartition(GraphBuilder& graph, const std::string& parent,
                            const std::string& topic, std::int32_t partitions,
                            SerdePtr<SerdeTargetT<K>> key_serde,
                            SerdePtr<SerdeTargetT<V>> value_serde, RepartitionShape shape,
                            Repartitioning why = Repartitioning::kAsked) {
  std::string sink, filter, source;
  if (shape == RepartitionShape::kStream) {
    constexpr std::string_view kSuffix = "-repartition";
    const auto prefix = std::string_view(topic).substr(
        0, topic.ends_with(kSuffix) ? topic.size() - kSuffix.size() : topic.size());
    const bool generated = is_generated_stream_name(prefix);
    sink = graph.name_for(generated ? "" : topic + "-sink", "KSTREAM-SINK");
    filter = graph.name_for(generated ? "" : topic + "-filter", "KSTREAM-FILTER");
    source = graph.name_for(generated ? "" : topic + "-source", "KSTREAM-SOURCE");
  } else {
    sink = graph.name_for("", "KSTREAM-SINK");
    source = graph.name_for("", "KSTREAM-SOURCE");
  }
  key_serde = serde_or_default<K>(graph, key_serde, sink, "repartition", "key", "Grouped");
  value_serde = serde_or_default<V>(graph, value_serde, sink, "repartition", "value", "Grouped");
  if (!filter.empty()) add_pass_through<K, V>(graph, "", filter, {parent});
  if (why == Repartitioning::kForKeyChange) {
    graph.add_mergeable_repartition(
        {.topic = topic, .filter = filter, .sink = sink, .source = source});
  }
  return add_internal_topic<K, V>(graph, {filter.empty() ? parent : filter}, topic, partitions,
                                  sink, source, key_serde, value_serde);
}

}  // namespace brook::internal

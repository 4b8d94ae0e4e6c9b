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
std::string add_node(GraphBuilder& graph, std::string_view prefix, const std::string& user_name,
                     std::vector<std::string> parents, NodeFactory make,
                     std::vector<std::string> stores = {});

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

// Adds the source node `name` of `topics` (internal: <application.id>-<topic>), the node
// `make(name)` returns.
void add_source_node(GraphBuilder& graph, const std::string& name, std::vector<std::string> topics,
                     bool internal, NodeFactory make);

template <class K, class V>
std::string add_source(GraphBuilder& graph, const std::string& name,
                       std::vector<std::string> topics, bool internal,
                       SerdePtr<SerdeTargetT<K>> key_serde, SerdePtr<SerdeTargetT<V>> value_serde,
                       SourceTimestamps<K, V> timestamps = {},
                       NullKeys null_keys = NullKeys::kRead) {
  add_source_node(graph, name, std::move(topics), internal,
                  [key_serde, value_serde, timestamps,
                   null_keys](const std::string& node_name) -> std::unique_ptr<Node> {
                    return std::make_unique<SourceNode<K, V>>(node_name, key_serde, value_serde,
                                                              timestamps, null_keys);
                  });
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

// Adds the store `spec` with the kind, retention and windows of `shape`, and the way a table's
// node of that shape reads it (StoreSpec::read_by).
void add_shaped_store(GraphBuilder& graph, StoreSpec spec, const StoreShape& shape);

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
  add_shaped_store(graph,
                   StoreSpec::make<K, ValueAndTimestamp<V>>(name, options.type, options.logging,
                                                            options.caching, key_serde, stored),
                   shape);
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

// Names the nodes of a repartition through `topic` shaped `shape` (taking their numbers).
MergeableRepartition name_repartition(GraphBuilder& graph, const std::string& topic,
                                      RepartitionShape shape);

// Adds the sink node `name` of the records of `parents` to `topics` (internal:
// <application.id>-<topic>) or the topic a record's `topic_extractor` (its description)
// names, the node `make(name)` returns.
void add_sink_node(GraphBuilder& graph, const std::string& name, std::vector<std::string> parents,
                   std::vector<std::string> topics, bool internal, std::string topic_extractor,
                   NodeFactory make);

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
  add_sink_node(graph, sink, std::move(parents), {topic}, true, "",
                [topic, key_serde, value_serde,
                 partition_of](const std::string& node_name) -> std::unique_ptr<Node> {
                  return std::make_unique<SinkNode<K, V>>(node_name, InternalTopic{topic},
                                                          key_serde, value_serde, partition_of);
                });
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
  auto nodes = name_repartition(graph, topic, shape);
  key_serde = serde_or_default<K>(graph, key_serde, nodes.sink, "repartition", "key", "Grouped");
  value_serde =
      serde_or_default<V>(graph, value_serde, nodes.sink, "repartition", "value", "Grouped");
  if (!nodes.filter.empty()) add_pass_through<K, V>(graph, "", nodes.filter, {parent});
  if (why == Repartitioning::kForKeyChange) graph.add_mergeable_repartition(nodes);
  return add_internal_topic<K, V>(graph, {nodes.filter.empty() ? parent : nodes.filter}, topic,
                                  partitions, nodes.sink, nodes.source, key_serde, value_serde);
}

}  // namespace brook::internal

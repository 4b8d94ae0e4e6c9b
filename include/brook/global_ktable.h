// GlobalKTable<K, V>: a table replicated in full on every application instance, and the joins
// of a stream with it (DESIGN.md pattern 4, without co-partitioning).
//
//   auto products = builder.global_table<std::string, Product>("products", {}, {.name =
//   "products"}); orders.join(products,
//               [](const std::string&, const Order& o) { return o.product_id; },  // lookup key
//               [](const Order& o, const Product& p) { return Priced{o, p.price}; });
//
// A global table reads every partition of its topic (best a compacted topic: it is the table's
// only log, there is no changelog) into one store per application instance, shared read-only by
// all stream threads. Streams::start() restores it from its topic to the end before any stream
// thread processes a record (the application stays REBALANCING until then); afterwards a global
// thread applies new records as they arrive. A null value deletes its key; a record with a
// null key is dropped, counted in dropped-records and logged (a row needs a key). The store is
// RocksDB or in memory as Materialized says (`logging` and `caching` do not apply): a RocksDB
// store keeps the offset it reached per partition with its data, so a restart reads only what
// is new; an in-memory one reads the whole topic on every start.
//
// Joins: the stream record's key and value give the lookup key (`key_mapper`), so the stream
// needs no co-partitioning with the table and is never repartitioned, re-keyed or not. Only
// stream records trigger output; the output has the stream record's key, timestamp and
// headers. A key mapper returning std::optional<KG> may return nullopt (no lookup key): join()
// drops the record, counted in dropped-records, and left_join() emits joiner(value, nullopt).
// A lookup sees the table as the global thread last applied it: it is not synchronised with
// the stream's time (as in Kafka Streams).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "brook/internal/dsl_support.h"
#include "brook/internal/stateful.h"
#include "brook/kstream.h"
#include "brook/options.h"
#include "brook/stream_table_join.h"

namespace brook {

// A handle on a global table: the store it lives in. Cheap to copy.
template <class K, class V>
class GlobalKTable {
 public:
  using key_type = K;
  using value_type = V;

  GlobalKTable(std::shared_ptr<internal::GraphBuilder> graph, std::string node, std::string store)
      : graph_(std::move(graph)), node_(std::move(node)), store_(std::move(store)) {}

  // The node that writes the store (the table's source processor).
  const std::string& node_name() const { return node_; }
  // The global store: query it with Streams::store<K, V>(store_name()) on any instance.
  const std::string& store_name() const { return store_; }

 private:
  std::shared_ptr<internal::GraphBuilder> graph_;
  std::string node_;
  std::string store_;
};

namespace internal {

// Declares the global table of `topic`: its store (timestamped, neither logged nor cached), its
// source and the processor writing the store, all marked global.
template <class K, class V>
GlobalKTable<K, V> add_global_table(const std::shared_ptr<GraphBuilder>& graph, std::string topic,
                                    const Consumed<K, std::optional<V>>& consumed,
                                    const Materialized<K, V>& materialized) {
  using In = std::optional<V>;
  const auto source = graph->name_for(consumed.name, "KSTREAM-SOURCE");
  auto key_serde =
      serde_or_default<K>(*graph, consumed.key_serde, source, "source", "key", "Consumed");
  auto value_serde =
      serde_or_default<In>(*graph, consumed.value_serde, source, "source", "value", "Consumed");
  if (consumed.timestamp_extractor && consumed.wall_clock_time) {
    graph->add_error(Status::invalid_argument(
        "source " + source +
        ": Consumed sets both timestamp_extractor and wall_clock_time; choose one"));
  }
  const SourceTimestamps<K, In> timestamps{.extractor = consumed.timestamp_extractor,
                                           .wall_clock = consumed.wall_clock_time,
                                           .on_invalid = consumed.on_invalid_timestamp};

  const auto store = graph->given_or_generated(materialized.name, topic + "-STATE-STORE");
  auto store_key_serde =
      serde_or_default<K>(*graph, materialized.key_serde, store, "store", "key", "Materialized");
  auto store_value_serde = serde_or_default<V>(*graph, materialized.value_serde, store, "store",
                                               "value", "Materialized");
  SerdePtr<ValueAndTimestamp<V>> stored;
  if (store_value_serde) stored = std::make_shared<const TimestampedSerde<V>>(store_value_serde);
  auto spec = StoreSpec::make<K, ValueAndTimestamp<V>>(store, materialized.type,
                                                       /*logging=*/false, /*caching=*/false,
                                                       store_key_serde, stored);
  spec.global = true;
  graph->add_store(std::move(spec));

  graph->add({.name = source,
              .kind = NodeKind::kSource,
              .topics = {std::move(topic)},
              .global = true,
              .factory = [key_serde, value_serde,
                          timestamps](const std::string& node_name) -> std::unique_ptr<Node> {
                return std::make_unique<SourceNode<K, In>>(node_name, key_serde, value_serde,
                                                           timestamps, NullKeys::kDrop);
              }});
  const auto node = graph->name_for("", "KTABLE-SOURCE");
  graph->add({.name = node,
              .kind = NodeKind::kProcessor,
              .parents = {source},
              .stores = {store},
              .global = true,
              .factory = [store](const std::string& node_name) -> std::unique_ptr<Node> {
                return std::make_unique<ProcessorNode<K, In, K, Change<V>>>(
                    node_name, std::make_unique<TableSourceProcessor<K, In>>(store));
              }});
  return GlobalKTable<K, V>(graph, node, store);
}

}  // namespace internal

template <class K, class V>
template <bool kLeft, class KG, class VG, class VR, class KM, class F>
KStream<K, VR> KStream<K, V>::global_table_join(const GlobalKTable<KG, VG>& table, KM key_mapper,
                                                F joiner, Named named) const {
  static_assert(
      std::is_convertible_v<std::invoke_result_t<KM&, const K&, const V&>, std::optional<KG>>,
      "join with a GlobalKTable<KG, VG>: key_mapper(const K&, const V&) must return the "
      "table's key type KG, or std::optional<KG>");
  const std::string store = table.store_name();
  // Not re-keyed downstream either: the output keeps this stream's keys.
  return add<K, VR>(
      "KSTREAM-JOIN", named,
      [store, key_mapper, joiner] {
        return std::make_unique<internal::TableLookupJoinProcessor<K, V, KG, VG, VR, KM, F, kLeft>>(
            store, key_mapper, joiner);
      },
      {}, {store});
}

template <class K, class V>
template <class KG, class VG, class KM, class F, class VR>
KStream<K, VR> KStream<K, V>::join(const GlobalKTable<KG, VG>& table, KM key_mapper, F joiner,
                                   Named named) const {
  return global_table_join<false, KG, VG, VR>(table, std::move(key_mapper), std::move(joiner),
                                              std::move(named));
}

template <class K, class V>
template <class KG, class VG, class KM, class F, class VR>
KStream<K, VR> KStream<K, V>::left_join(const GlobalKTable<KG, VG>& table, KM key_mapper, F joiner,
                                        Named named) const {
  return global_table_join<true, KG, VG, VR>(table, std::move(key_mapper), std::move(joiner),
                                             std::move(named));
}

}  // namespace brook

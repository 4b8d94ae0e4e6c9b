// KGroupedStream<K, V>: a stream grouped by key, ready for an aggregation (group_by_key or
// group_by on a KStream). Each aggregation keeps its table in a state store, one per task,
// backed by a changelog topic, and returns it as a KTable whose updates flow downstream.
//
// Update semantics: with the record cache on (Materialized::caching, the default) downstream
// sees the latest aggregate per key once per commit; with it off, one update per record.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "brook/kstream.h"
#include "brook/windows.h"

namespace brook {

template <class K, class V, class W>
class TimeWindowedKStream;
template <class K, class V>
class SessionWindowedKStream;

template <class K, class V>
class KGroupedStream {
 public:
  KGroupedStream(std::shared_ptr<internal::GraphBuilder> graph, std::string node, bool rekeyed,
                 Grouped<K, V> grouped)
      : graph_(std::move(graph)),
        node_(std::move(node)),
        rekeyed_(rekeyed),
        grouped_(std::move(grouped)) {}

  // The number of records per key.
  KTable<K, std::int64_t> count(Materialized<K, std::int64_t> materialized = {}) const {
    return add<std::int64_t>("KSTREAM-AGGREGATE", materialized,
                             [](const K&, const V&, const std::int64_t* count) {
                               return count ? *count + 1 : std::int64_t{1};
                             });
  }

  // Combines the values per key: reducer(aggregate, value) -> aggregate; a key's first value
  // is its first aggregate.
  template <std::invocable<const V&, const V&> F>
  KTable<K, V> reduce(F reducer, Materialized<K, V> materialized = {}) const {
    return add<V>("KSTREAM-REDUCE", materialized,
                  [reducer](const K&, const V& value, const V* current) mutable {
                    return current ? V(reducer(*current, value)) : value;
                  });
  }

  // Folds the values per key: aggregator(key, value, aggregate) -> aggregate, starting from
  // initializer() for a key's first value.
  template <class Init, class Agg, class VA = std::decay_t<std::invoke_result_t<Init&>>>
  KTable<K, VA> aggregate(Init initializer, Agg aggregator,
                          Materialized<K, VA> materialized = {}) const {
    return add<VA>(
        "KSTREAM-AGGREGATE", materialized,
        [initializer, aggregator](const K& key, const V& value, const VA* current) mutable {
          return VA(aggregator(key, value, current ? *current : VA(initializer())));
        });
  }

  // Aggregations per window (brook/windowed_kstream.h): tumbling or hopping windows,
  // sliding windows, session windows.
  TimeWindowedKStream<K, V, TimeWindows> windowed_by(TimeWindows windows) const;
  TimeWindowedKStream<K, V, SlidingWindows> windowed_by(SlidingWindows windows) const;
  SessionWindowedKStream<K, V> windowed_by(SessionWindows windows) const;

 private:
  template <class, class, class>
  friend class TimeWindowedKStream;
  template <class, class>
  friend class SessionWindowedKStream;

  // The aggregation node (named "<prefix>-<number>") into its store, after the repartition if
  // re-keyed: names taken in Kafka Streams' order, the store's, the node's, the repartition's.
  template <class VA, class F>
  KTable<K, VA> add(std::string_view prefix, const Materialized<K, VA>& materialized, F f) const {
    auto store = internal::add_table_store<K, VA>(*graph_, materialized, prefix).name;
    const auto name = graph_->name_for("", prefix);
    const auto input = input_for(store);
    return KTable<K, VA>(graph_, internal::add_aggregate<K, V, VA>(*graph_, name, store, input, f),
                         store);
  }
  // The node an aggregation into `store` reads: through a repartition topic if re-keyed.
  std::string input_for(const std::string& store) const {
    return KStream<K, V>(graph_, node_, rekeyed_)
        .repartitioned_if_needed((grouped_.name.empty() ? store : grouped_.name) + "-repartition",
                                 grouped_.partitions, grouped_.key_serde, grouped_.value_serde)
        .node_name();
  }

  std::shared_ptr<internal::GraphBuilder> graph_;
  std::string node_;
  bool rekeyed_;
  Grouped<K, V> grouped_;
};

}  // namespace brook

#include "brook/windowed_kstream.h"

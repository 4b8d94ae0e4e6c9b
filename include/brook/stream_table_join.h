// KStream::join / left_join with a KTable (DESIGN.md pattern 4): enrich each record with the
// table's current value for its key, by a local lookup.
//
//   clicks.left_join(profiles, [](const Click& c, const std::optional<Profile>& p) {
//     return Enriched{c, p ? p->age : -1};
//   });
//
// Only stream records trigger output; a table update changes the results of later records,
// never of earlier ones (the task processes its inputs in timestamp order). The output has the
// stream record's key, timestamp and headers. Stream and table must be co-partitioned: the
// application refuses to start if their topics' partition counts differ, naming both. A
// stream whose keys may have changed is repartitioned first. A table without a store of its
// own (a filtered table, say) is materialised for the lookups.
//
// Null keys: a stream keyed by std::optional<K> joins a table keyed by K (a present key is
// written with K's serde, so the two still co-partition; a null-keyed record goes through a
// repartition topic to any partition). A null key matches no row: join() drops the record,
// counted in dropped-records and logged; left_join() emits joiner(value, nullopt) under the
// null key.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "brook/internal/dsl_support.h"
#include "brook/internal/stream_table_join_impl.h"
#include "brook/kstream.h"
#include "brook/ktable.h"

namespace brook {
namespace internal {

// The lookup key of a stream-table join: the record's own key.
template <class K, class V>
struct RecordKey {
  const K& operator()(const K& key, const V&) const { return key; }
};

// The join node `name` of the stream node `input` (repartitioned if it was re-keyed) with
// `table`, materialised if it has no store; the two are one co-partition group. The stream's
// keys are the table's (KT), or std::optional<KT>.
template <bool kLeft, class K, class V, class VR, class KT, class VT, class F>
KStream<K, VR> add_stream_table_join(const std::shared_ptr<GraphBuilder>& graph,
                                     const std::string& name, const std::string& input,
                                     const KTable<KT, VT>& table, F joiner) {
  const auto lookup = table.materialize();
  const std::string store = lookup.store_name();
  auto node = add_processor<K, V, K, VR>(
      *graph, "", name, {input},
      [store, joiner] {
        return std::make_unique<
            TableLookupJoinProcessor<K, V, KT, VT, VR, RecordKey<K, V>, F, kLeft>>(
            store, RecordKey<K, V>{}, joiner);
      },
      {store});
  graph->add_copartition_group({.join = name, .inputs = {input, lookup.node_name()}});
  return KStream<K, VR>(graph, std::move(node));
}

}  // namespace internal

template <class K, class V>
template <bool kLeft, class VT, class VR, class F>
KStream<K, VR> KStream<K, V>::table_join(const KTable<internal::UnwrappedT<K>, VT>& table, F joiner,
                                         Joined<K, V> joined) const {
  const auto name = graph_->name_for(joined.name, "KSTREAM-JOIN");
  const auto input = repartitioned_if_needed(name + "-repartition", 0, std::move(joined.key_serde),
                                             std::move(joined.value_serde));
  return internal::add_stream_table_join<kLeft, K, V, VR>(graph_, name, input.node_name(), table,
                                                          std::move(joiner));
}

template <class K, class V>
template <class VT, class F, class VR>
KStream<K, VR> KStream<K, V>::join(const KTable<internal::UnwrappedT<K>, VT>& table, F joiner,
                                   Joined<K, V> joined) const {
  return table_join<false, VT, VR>(table, std::move(joiner), std::move(joined));
}

template <class K, class V>
template <class VT, class F, class VR>
KStream<K, VR> KStream<K, V>::left_join(const KTable<internal::UnwrappedT<K>, VT>& table, F joiner,
                                        Joined<K, V> joined) const {
  return table_join<true, VT, VR>(table, std::move(joiner), std::move(joined));
}

}  // namespace brook

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

#include "brook/kstream.h"
#include "brook/ktable.h"

namespace brook {
namespace internal {

// Looks each record up in the table store `store` under key_of(key, value) (the record's key
// for a table, a key mapper's result for a global table); kLeft: also without a match. A
// lookup key of type std::optional may be null: it matches no row, so the inner join drops
// the record (counted in dropped-records) and the left join emits it unmatched.
template <class K, class V, class KT, class VT, class VR, class KeyOf, class F, bool kLeft>
class TableLookupJoinProcessor final : public Processor<K, V, K, VR> {
 public:
  TableLookupJoinProcessor(std::string store, KeyOf key_of, F joiner)
      : store_name_(std::move(store)), key_of_(std::move(key_of)), joiner_(std::move(joiner)) {}

  void init(ProcessorContext<K, VR>& context) override {
    Processor<K, V, K, VR>::init(context);
    table_.emplace(context.template timestamped_key_value_store<KT, VT>(store_name_));
  }

  void process(Record<K, V> r) override {
    const auto& key = key_of_(std::as_const(r.key), std::as_const(r.value));
    if constexpr (kIsOptional<std::remove_cvref_t<decltype(key)>>) {
      if (key) {
        emit(std::move(r), table_->get(*key));
      } else if constexpr (kLeft) {
        emit(std::move(r), std::nullopt);
      } else {
        this->context().drop_record("its join key is null, which matches no table row");
      }
    } else {
      emit(std::move(r), table_->get(key));
    }
  }

 private:
  // Forwards the join of `r` with the table row `found`, where the join kind has a result.
  void emit(Record<K, V>&& r, std::optional<ValueAndTimestamp<VT>> found) {
    std::optional<VR> out;
    if constexpr (kLeft) {
      std::optional<VT> value;
      if (found) value = std::move(found->value);
      out.emplace(joiner_(std::as_const(r.value), std::as_const(value)));
    } else {
      if (!found) return;
      out.emplace(joiner_(std::as_const(r.value), std::as_const(found->value)));
    }
    this->context().forward(
        Record<K, VR>{std::move(r.key), std::move(*out), r.timestamp, std::move(r.headers)});
  }

  std::string store_name_;
  KeyOf key_of_;
  F joiner_;
  std::optional<TimestampedKeyValueStore<KT, VT>> table_;
};

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

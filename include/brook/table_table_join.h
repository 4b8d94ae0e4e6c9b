// KTable::join / left_join / outer_join with another table on the key (DESIGN.md pattern 5).
//
//   auto enriched = orders.left_join(customers, [](const Order& o, const std::optional<Customer>&
//   c) {
//     return Enriched{o, c ? c->name : ""};
//   });
//
// Both sides trigger. An update of one side looks its key up in the other side's store and
// emits Change{new, old} of the joined value: new = joiner(the side's new value, the other
// side's current value), old = joiner(the side's old value, the same current value), each
// only where the join kind has a result (inner: both values; left: the left value; outer:
// either). An update that has neither an old nor a new result emits nothing; a delete emits
// a tombstone (new absent) where a result existed. The result's timestamp is the larger of
// the update's and the other side's stored value's. The tables must be co-partitioned: the
// application refuses to start if their topics' partition counts differ. A side without a
// store of its own is materialised; the result is materialised if `materialized` names a store.
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "brook/internal/dsl_support.h"
#include "brook/internal/table_table_join_impl.h"
#include "brook/kstream.h"
#include "brook/ktable.h"

namespace brook {

template <class K, class V>
template <class VO, class VR, class Fn>
KTable<K, VR> KTable<K, V>::key_join(const KTable<K, VO>& other, Fn f, Named named,
                                     Materialized<K, VR> materialized) const {
  const auto name = graph_->name_for(named.name, "KTABLE-MERGE");
  const auto left = materialize();
  const auto right = other.materialize();
  auto this_side = internal::add_processor<K, internal::Change<V>, K, internal::Change<VR>>(
      *graph_, "KTABLE-JOINTHIS", name + "-join-this", {left.node_name()},
      [store = right.store_name(), f] {
        return std::make_unique<internal::TableTableJoinProcessor<K, V, VO, VR, Fn, true>>(store,
                                                                                           f);
      },
      {right.store_name()});
  auto other_side = internal::add_processor<K, internal::Change<VO>, K, internal::Change<VR>>(
      *graph_, "KTABLE-JOINOTHER", name + "-join-other", {right.node_name()},
      [store = left.store_name(), f] {
        return std::make_unique<internal::TableTableJoinProcessor<K, VO, V, VR, Fn, false>>(store,
                                                                                            f);
      },
      {left.store_name()});
  auto merged = internal::add_pass_through<K, internal::Change<VR>>(*graph_, "KTABLE-MERGE", name,
                                                                    {this_side, other_side});
  graph_->add_copartition_group({.join = name, .inputs = {left.node_name(), right.node_name()}});
  KTable<K, VR> result(graph_, std::move(merged), "",
                       {.key_serde = left.traits_.key_serde,
                        .value_serde = materialized.value_serde,
                        .close_delay = std::nullopt});
  if (materialized.name.empty()) return result;
  if (!materialized.key_serde) materialized.key_serde = left.traits_.key_serde;
  return result.materialize(std::move(materialized));
}

template <class K, class V>
template <class VO, class F, class VR>
KTable<K, VR> KTable<K, V>::join(const KTable<K, VO>& other, F joiner, Named named,
                                 Materialized<K, VR> materialized) const {
  return key_join<VO, VR>(
      other,
      [joiner](const std::optional<V>& l, const std::optional<VO>& r) mutable {
        std::optional<VR> out;
        if (l && r) out.emplace(joiner(*l, *r));
        return out;
      },
      std::move(named), std::move(materialized));
}

template <class K, class V>
template <class VO, class F, class VR>
KTable<K, VR> KTable<K, V>::left_join(const KTable<K, VO>& other, F joiner, Named named,
                                      Materialized<K, VR> materialized) const {
  return key_join<VO, VR>(
      other,
      [joiner](const std::optional<V>& l, const std::optional<VO>& r) mutable {
        std::optional<VR> out;
        if (l) out.emplace(joiner(*l, r));
        return out;
      },
      std::move(named), std::move(materialized));
}

template <class K, class V>
template <class VO, class F, class VR>
KTable<K, VR> KTable<K, V>::outer_join(const KTable<K, VO>& other, F joiner, Named named,
                                       Materialized<K, VR> materialized) const {
  return key_join<VO, VR>(
      other,
      [joiner](const std::optional<V>& l, const std::optional<VO>& r) mutable {
        std::optional<VR> out;
        if (l || r) out.emplace(joiner(l, r));
        return out;
      },
      std::move(named), std::move(materialized));
}

}  // namespace brook

// KTable<K, V>: a changelog stream seen as a table, the latest value per key.
//
// Every update flows downstream as a change of one key: its new value and the value it
// replaced (either may be absent: an insert, a delete). Tables come from a topic
// (StreamsBuilder::table), a stream (KStream::to_table) or an aggregation. Callables take
// (key, value) or (value), as on KStream.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "brook/internal/stateless.h"
#include "brook/internal/suppress.h"
#include "brook/kstream.h"
#include "brook/suppressed.h"

namespace brook {

template <class K, class V>
class KGroupedTable;

template <class K, class V>
class KTable {
 public:
  using key_type = K;
  using value_type = V;

  // What the operator that made a table knows about it, for operators downstream.
  struct Traits {
    SerdePtr<K> key_serde;    // null: K's default serde
    SerdePtr<V> value_serde;  // null: V's default serde
    // Windowed tables: a window closes when stream time reaches its end + this delay.
    std::optional<std::chrono::milliseconds> close_delay;
  };

  // `store`: the store that materialises this table, empty if it has none.
  KTable(std::shared_ptr<internal::GraphBuilder> graph, std::string node, std::string store = {},
         Traits traits = {})
      : graph_(std::move(graph)),
        node_(std::move(node)),
        store_(std::move(store)),
        traits_(std::move(traits)) {}

  const std::string& node_name() const { return node_; }
  // The store holding this table (query it with Streams::store), or empty.
  const std::string& store_name() const { return store_; }

  // Keeps the keys whose value matches; a value that stops matching deletes its key.
  template <std::predicate<const K&, const V&> Pred>
  KTable filter(Pred pred, Named named = {}) const {
    return same_values(add<V>("KTABLE-FILTER", named, [pred](const std::string& name) {
      return std::make_unique<internal::TableFilterNode<K, V, Pred>>(name, pred, true);
    }));
  }
  template <std::predicate<const K&, const V&> Pred>
  KTable filter_not(Pred pred, Named named = {}) const {
    return same_values(add<V>("KTABLE-FILTER", named, [pred](const std::string& name) {
      return std::make_unique<internal::TableFilterNode<K, V, Pred>>(name, pred, false);
    }));
  }

  // Holds updates back (see brook/suppressed.h): until_window_closes() emits each window's
  // final result once, for a windowed table (a windowed aggregation's, or filtered from one);
  // until_time_limit() at most one update per key per time limit, for any table. The buffer
  // is the store "<name>-store" (name: Suppressed::name, else generated).
  KTable suppress(Suppressed suppressed) const {
    const auto name = graph_->name_for(suppressed.name, "KTABLE-SUPPRESS");
    typename internal::SuppressProcessor<K, V>::DueTime due;
    if (suppressed.until == Suppressed::Until::kTimeLimit) {
      if (suppressed.time_limit.count() < 0) {
        graph_->add_error(Status::invalid_argument(
            "suppress " + name + ": the time limit must not be negative, got " +
            std::to_string(suppressed.time_limit.count()) + " ms"));
      }
      due = [limit = suppressed.time_limit](const Record<K, internal::Change<V>>& r) {
        return r.timestamp + limit;
      };
    } else if constexpr (internal::kIsWindowed<K>) {
      if (!traits_.close_delay) {
        graph_->add_error(Status::invalid_argument(
            "suppress " + name +
            ": until_window_closes() needs the table of a windowed "
            "aggregation (or one filtered from it), whose grace period tells when windows close"));
      } else if (suppressed.buffer.when_full == BufferFull::kEmitEarly) {
        graph_->add_error(Status::invalid_argument(
            "suppress " + name +
            ": until_window_closes() cannot emit early when its buffer is "
            "full (that would emit results that are not final); use BufferFull::kShutdown"));
      }
      due = [delay = traits_.close_delay.value_or(std::chrono::milliseconds(0))](
                const Record<K, internal::Change<V>>& r) { return r.key.window.end + delay; };
    } else {
      graph_->add_error(
          Status::invalid_argument("suppress " + name +
                                   ": until_window_closes() needs a windowed table (keys "
                                   "brook::Windowed<K>), not <" +
                                   internal::type_name<K>() + ", ...>"));
    }
    const std::string store = name + "-store";
    auto key_serde = traits_.key_serde ? traits_.key_serde : default_serde<K>();
    auto value_serde = traits_.value_serde ? traits_.value_serde : default_serde<V>();
    if (!key_serde)
      internal::missing_serde(*graph_, name, "suppress", "key", "Materialized",
                              internal::type_name<SerdeTargetT<K>>());
    if (!value_serde)
      internal::missing_serde(*graph_, name, "suppress", "value", "Materialized",
                              internal::type_name<SerdeTargetT<V>>());
    SerdePtr<internal::BufferedChange<V>> buffered;
    if (value_serde)
      buffered = std::make_shared<const internal::BufferedChangeSerde<V>>(value_serde);
    graph_->add_store(internal::StoreSpec::make<K, internal::BufferedChange<V>>(
        store, suppressed.store_type, true, false, key_serde, buffered));
    auto node = internal::add_processor<K, internal::Change<V>, K, internal::Change<V>>(
        *graph_, "KTABLE-SUPPRESS", name, {node_},
        [store, due, bounds = suppressed.buffer,
         leaves = suppressed.until == Suppressed::Until::kWindowCloses
                      ? internal::SuppressionBuffer::Leaves::kFinalResults
                      : internal::SuppressionBuffer::Leaves::kEveryChange] {
          return std::make_unique<internal::SuppressProcessor<K, V>>(store, due, bounds, leaves);
        },
        {store});
    return KTable(graph_, std::move(node), store_, traits_);
  }

  template <class F, class VOut = internal::ValueFnResult<F, K, V>>
  KTable<K, VOut> map_values(F f, Named named = {}) const {
    return add<VOut>("KTABLE-MAPVALUES", named, [f](const std::string& name) {
      return std::make_unique<internal::TableMapValuesNode<K, V, VOut, F>>(name, f);
    });
  }

  // This table kept in a store of its own (for lookups by joins, or queries): this table if
  // it has a store and no other name is asked for, else a node writing it to the store
  // `materialized.name` (or a generated one).
  KTable materialize(Materialized<K, V> materialized = {}) const {
    if (!store_.empty() && (materialized.name.empty() || materialized.name == store_)) {
      return *this;
    }
    auto store = internal::add_table_store<K, V>(*graph_, materialized, "KTABLE-MATERIALIZE");
    auto node = internal::add_processor<K, internal::Change<V>, K, internal::Change<V>>(
        *graph_, "KTABLE-MATERIALIZE", "", {node_},
        [name = store.name] {
          return std::make_unique<internal::TableMaterializeProcessor<K, V>>(name);
        },
        {store.name});
    return KTable(graph_, std::move(node), store.name,
                  {.key_serde = traits_.key_serde,
                   .value_serde = store.value_serde,
                   .close_delay = traits_.close_delay});
  }

  // Joins with another table on the key (brook/table_table_join.h).
  // joiner(left value, right value) -> the joined value, for keys both tables hold. Both
  // sides trigger; each update of either side emits Change{new, old} of the joined value
  // (old: the side's old value joined with the other side's current value); the result's
  // timestamp is the larger of the two values'. The tables must be co-partitioned (checked
  // at start). A side without a store is materialised; `materialized` with a name
  // materialises the result too. `named` names the node emitting the result.
  template <class VO, class F,
            class VR = std::decay_t<std::invoke_result_t<F&, const V&, const VO&>>>
  KTable<K, VR> join(const KTable<K, VO>& other, F joiner, Named named = {},
                     Materialized<K, VR> materialized = {}) const;
  // joiner(left value, std::optional right value): every key of this table.
  template <class VO, class F,
            class VR = std::decay_t<std::invoke_result_t<F&, const V&, const std::optional<VO>&>>>
  KTable<K, VR> left_join(const KTable<K, VO>& other, F joiner, Named named = {},
                          Materialized<K, VR> materialized = {}) const;
  // joiner(std::optional left, std::optional right): every key of either table.
  template <class VO, class F,
            class VR = std::decay_t<
                std::invoke_result_t<F&, const std::optional<V>&, const std::optional<VO>&>>>
  KTable<K, VR> outer_join(const KTable<K, VO>& other, F joiner, Named named = {},
                           Materialized<K, VR> materialized = {}) const;

  // Joins on a foreign key (brook/foreign_key_join.h).
  // foreign_key(value) -> the key of `other` this row refers to (KO, or std::optional<KO>
  // where nullopt means: no reference); joiner(value, other's value) -> the joined value. The
  // result has this table's keys. Both sides trigger: an update of `other` re-emits the
  // result of every row referring to it. Inner join: a row without a match has no result (a
  // tombstone is emitted when it loses its match or its foreign key; a row without a foreign
  // key that had none is dropped and counted). The tables need not be co-partitioned: rows
  // travel through the internal topics <app>-<name>-subscription-registration-topic (as many
  // partitions as other's topic) and <app>-<name>-subscription-response-topic (as many as this
  // table's), and `other`'s side keeps the store <name>-subscription-store (name:
  // TableJoined::name, else generated). The nodes are named as Kafka Streams names them
  // (<name>-subscription-registration-processor, ..., <name>-result). Without a name in
  // `materialized` the result's changes carry no old value; with one, <name>-result keeps
  // the result in that store.
  template <class KO, class VO, class FK, class F,
            class VR = std::decay_t<std::invoke_result_t<F&, const V&, const VO&>>,
            class = std::invoke_result_t<FK&, const V&>>
  KTable<K, VR> join(const KTable<KO, VO>& other, FK foreign_key, F joiner,
                     TableJoined table_joined = {}, Materialized<K, VR> materialized = {}) const;
  // joiner(value, std::optional other value): every row of this table has a result.
  template <class KO, class VO, class FK, class F,
            class VR = std::decay_t<std::invoke_result_t<F&, const V&, const std::optional<VO>&>>,
            class = std::invoke_result_t<FK&, const V&>>
  KTable<K, VR> left_join(const KTable<KO, VO>& other, FK foreign_key, F joiner,
                          TableJoined table_joined = {},
                          Materialized<K, VR> materialized = {}) const;

  // The stream of updates: each key's new value, nullopt where the key was deleted (written
  // to a topic, that is a tombstone).
  KStream<K, std::optional<V>> to_stream(Named named = {}) const {
    return KStream<K, std::optional<V>>(
        graph_, internal::add_node(
                    *graph_, "KTABLE-TOSTREAM", named.name, {node_}, [](const std::string& name) {
                      return std::make_unique<internal::TableToStreamNode<K, V>>(name);
                    }));
  }

  // Re-keys the table for an aggregation: f(key, value) returns the new key and value
  // (KeyValue or std::pair). Always repartitions. When a key's update maps to another group,
  // the old group first loses the old value, then the new group gains the new one.
  template <class F, class R = std::invoke_result_t<F&, const K&, const V&>,
            class KOut = typename internal::KeyValueTraits<R>::key_type,
            class VOut = typename internal::KeyValueTraits<R>::value_type>
  KGroupedTable<KOut, VOut> group_by(F f, Grouped<KOut, VOut> grouped = {}) const {
    auto node = internal::add_node(
        *graph_, "KTABLE-SELECT", grouped.name, {node_}, [f](const std::string& name) {
          return std::make_unique<internal::TableRekeyNode<K, V, KOut, VOut, F>>(name, f);
        });
    return KGroupedTable<KOut, VOut>(graph_, std::move(node), std::move(grouped));
  }

 private:
  template <class, class>
  friend class KTable;
  // The table-table joins: f(optional left, optional right) -> optional joined value.
  template <class VO, class VR, class Fn>
  KTable<K, VR> key_join(const KTable<K, VO>& other, Fn f, Named named,
                         Materialized<K, VR> materialized) const;
  template <bool kLeft, class KO, class VO, class VR, class FK, class F>
  KTable<K, VR> foreign_key_join(const KTable<KO, VO>& other, FK foreign_key, F joiner,
                                 TableJoined table_joined, Materialized<K, VR> materialized) const;
  template <class, class>
  friend class KStream;

  // `table` (a node after this one) with this table's value serde too: same values.
  KTable same_values(KTable table) const {
    table.traits_.value_serde = traits_.value_serde;
    return table;
  }
  // A table after a node keeping its keys, the node `make(name)` returns: their serde and
  // window close delay carry over.
  template <class VOut, class MakeNode>
  KTable<K, VOut> add(std::string_view prefix, const Named& named, MakeNode make) const {
    return KTable<K, VOut>(
        graph_, internal::add_node(*graph_, prefix, named.name, {node_}, std::move(make)), "",
        {.key_serde = traits_.key_serde, .close_delay = traits_.close_delay});
  }

  std::shared_ptr<internal::GraphBuilder> graph_;
  std::string node_;
  std::string store_;
  Traits traits_;
};

// A re-keyed table, ready for an aggregation with an adder and a subtractor. Its changes
// travel through the repartition topic <application.id>-<name>-repartition (name: the
// Grouped name, else the store's).
template <class K, class V>
class KGroupedTable {
 public:
  KGroupedTable(std::shared_ptr<internal::GraphBuilder> graph, std::string node,
                Grouped<K, V> grouped)
      : graph_(std::move(graph)), node_(std::move(node)), grouped_(std::move(grouped)) {}

  // The number of values per key.
  KTable<K, std::int64_t> count(Materialized<K, std::int64_t> materialized = {}) const {
    return add<std::int64_t>(
        "KTABLE-AGGREGATE", materialized,
        [](const K&, const internal::Change<V>& change, const std::int64_t* count) {
          return std::optional<std::int64_t>((count ? *count : 0) - (change.old_value ? 1 : 0) +
                                             (change.new_value ? 1 : 0));
        });
  }

  // adder(key, value, aggregate) for a value joining the key's group, subtractor(key, value,
  // aggregate) for one leaving it; a key's first aggregate is initializer().
  template <class Init, class Add, class Sub, class VA = std::decay_t<std::invoke_result_t<Init&>>>
  KTable<K, VA> aggregate(Init initializer, Add adder, Sub subtractor,
                          Materialized<K, VA> materialized = {}) const {
    return add<VA>("KTABLE-AGGREGATE", materialized,
                   [initializer, adder, subtractor](const K& key, const internal::Change<V>& change,
                                                    const VA* current) mutable {
                     VA aggregate = current ? *current : VA(initializer());
                     if (change.old_value)
                       aggregate = VA(subtractor(key, *change.old_value, aggregate));
                     if (change.new_value) aggregate = VA(adder(key, *change.new_value, aggregate));
                     return std::optional<VA>(std::move(aggregate));
                   });
  }

  // adder(aggregate, value) and subtractor(aggregate, value); a key's first value is its
  // first aggregate.
  template <std::invocable<const V&, const V&> Add, std::invocable<const V&, const V&> Sub>
  KTable<K, V> reduce(Add adder, Sub subtractor, Materialized<K, V> materialized = {}) const {
    return add<V>(
        "KTABLE-REDUCE", materialized,
        [adder, subtractor](const K&, const internal::Change<V>& change, const V* current) mutable {
          std::optional<V> aggregate;
          if (current) aggregate = *current;
          if (change.old_value && aggregate)
            aggregate = V(subtractor(*aggregate, *change.old_value));
          if (change.new_value) {
            aggregate = aggregate ? V(adder(*aggregate, *change.new_value)) : *change.new_value;
          }
          return aggregate;
        });
  }

 private:
  // The aggregation node (named "<prefix>-<number>") into its store, after the repartition.
  template <class VA, class F>
  KTable<K, VA> add(std::string_view prefix, const Materialized<K, VA>& materialized, F f) const {
    auto store = internal::add_table_store<K, VA>(*graph_, materialized, prefix).name;
    auto value_serde = grouped_.value_serde ? grouped_.value_serde : default_serde<V>();
    SerdePtr<internal::Change<V>> change_serde;
    if (value_serde) change_serde = std::make_shared<const internal::ChangeSerde<V>>(value_serde);
    auto source = internal::add_repartition<K, internal::Change<V>>(
        *graph_, node_, (grouped_.name.empty() ? store : grouped_.name) + "-repartition",
        grouped_.partitions, grouped_.key_serde, change_serde, internal::RepartitionShape::kTable);
    const auto name = graph_->name_for("", prefix);  // after the repartition's, as Kafka Streams
    return KTable<K, VA>(
        graph_,
        internal::add_aggregate<K, internal::Change<V>, VA>(*graph_, name, store, source, f),
        store);
  }

  std::shared_ptr<internal::GraphBuilder> graph_;
  std::string node_;
  Grouped<K, V> grouped_;
};

template <class K, class V>
KTable<K, internal::UnwrappedT<V>> KStream<K, V>::to_table(
    Materialized<K, internal::UnwrappedT<V>> materialized) const {
  using VT = internal::UnwrappedT<V>;
  const auto name = graph_->name_for("", "KSTREAM-TOTABLE");  // names in Kafka Streams' order
  auto store = internal::add_table_store<K, VT>(*graph_, materialized, "KSTREAM-TOTABLE").name;
  auto input = repartitioned_if_needed(name + "-repartition", 0, nullptr, nullptr);
  auto node = internal::add_processor<K, V, K, internal::Change<VT>>(
      *graph_, "", name, {input.node_name()},
      [store] { return std::make_unique<internal::TableSourceProcessor<K, V>>(store); }, {store});
  return KTable<K, VT>(graph_, node, store);
}

}  // namespace brook

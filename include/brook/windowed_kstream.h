// Windowed aggregations: group_by_key().windowed_by(windows).count() / reduce / aggregate.
//
// Each returns a KTable<Windowed<K>, VA> of one result per key and window, kept in a window
// (or session) store named by Materialized and logged to a changelog topic (cleanup policy
// compact,delete, kept for the store's retention + 1 day). A late record within the grace
// period updates its window and the window's result is emitted again; a record whose windows
// have all closed is dropped, counted in dropped-records and logged (see brook/windows.h).
// The result's timestamp is the largest of the records in the window.
//
//   builder.stream<std::string, Reading>("readings")
//       .group_by_key()
//       .windowed_by(brook::TimeWindows::of_size_and_grace(1h, 3h))
//       .aggregate(Stats{}, [](const std::string&, const Reading& r, Stats s) { return s.add(r); },
//                  {.name = "hourly"})
//       .to_stream()
//       .to("hourly-stats");   // keys [key][8-byte window start] (brook::TimeWindowedSerde)
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "brook/internal/suppress.h"
#include "brook/internal/windowed_aggregate.h"
#include "brook/kgrouped_stream.h"
#include "brook/ktable.h"
#include "brook/windows.h"

namespace brook {

namespace internal {

// Checks `windows` and the retention asked for; the retention the store gets (at least
// `needed`, the windows' size + grace).
std::chrono::milliseconds window_retention(GraphBuilder& graph, const Status& windows,
                                           const std::string& store,
                                           std::chrono::milliseconds asked,
                                           std::chrono::milliseconds needed);

// `materialized` with its store's name: the given one, or a generated one.
template <class K, class V>
Materialized<K, V> store_named(GraphBuilder& graph, Materialized<K, V> materialized) {
  materialized.name = graph.given_or_generated(materialized.name, "KSTREAM-AGGREGATE-STATE-STORE");
  return materialized;
}

// With EmitStrategy::kOnWindowClose, adds the store of the buffer that holds the windows of the
// aggregation store `store` until they close (`close_delay` after their end) to the graph and
// to `stores` (the node's), and returns what the node needs to hold them; else nullopt.
std::optional<EmitOnClose> emit_on_close(GraphBuilder& graph, const std::string& store,
                                         std::chrono::milliseconds close_delay, EmitStrategy emit,
                                         std::vector<std::string>& stores);

// The table of a windowed aggregation into `store`, made by node `node`.
template <class K, class VA>
KTable<Windowed<K>, VA> windowed_table(const std::shared_ptr<GraphBuilder>& graph, std::string node,
                                       const DeclaredStore<K, VA>& store,
                                       std::chrono::milliseconds close_delay) {
  SerdePtr<Windowed<K>> key_serde;
  if (store.key_serde) key_serde = std::make_shared<const FullWindowedSerde<K>>(store.key_serde);
  return KTable<Windowed<K>, VA>(graph, std::move(node), store.name,
                                 {.key_serde = std::move(key_serde),
                                  .value_serde = store.value_serde,
                                  .close_delay = close_delay});
}

}  // namespace internal

// A grouped stream with time windows (W = TimeWindows: tumbling, hopping) or sliding windows
// (W = SlidingWindows). The kind is part of the type, so that an aggregation compiles only its
// own windows' processor.
template <class K, class V, class W>
class TimeWindowedKStream {
  static_assert(std::is_same_v<W, TimeWindows> || std::is_same_v<W, SlidingWindows>);

 public:
  TimeWindowedKStream(KGroupedStream<K, V> grouped, W windows,
                      EmitStrategy emit = EmitStrategy::kOnWindowUpdate)
      : grouped_(std::move(grouped)), windows_(windows), emit_(emit) {}

  // kOnWindowClose: each window's result once, when it closes (no updates before).
  TimeWindowedKStream emit_strategy(EmitStrategy emit) const {
    return TimeWindowedKStream(grouped_, windows_, emit);
  }

  KTable<Windowed<K>, std::int64_t> count(Materialized<K, std::int64_t> materialized = {}) const {
    return add<std::int64_t>(materialized, [](const K&, const V&, const std::int64_t* count) {
      return count ? *count + 1 : std::int64_t{1};
    });
  }

  // reducer(aggregate, value) -> aggregate; a window's first value is its first aggregate.
  template <std::invocable<const V&, const V&> F>
  KTable<Windowed<K>, V> reduce(F reducer, Materialized<K, V> materialized = {}) const {
    return add<V>(materialized, [reducer](const K&, const V& value, const V* current) mutable {
      return current ? V(reducer(*current, value)) : value;
    });
  }

  // aggregator(key, value, aggregate) -> aggregate, from initializer() in each window.
  template <class Init, class Agg, class VA = std::decay_t<std::invoke_result_t<Init&>>>
  KTable<Windowed<K>, VA> aggregate(Init initializer, Agg aggregator,
                                    Materialized<K, VA> materialized = {}) const {
    return add<VA>(materialized, [initializer, aggregator](const K& key, const V& value,
                                                           const VA* current) mutable {
      return VA(aggregator(key, value, current ? *current : VA(initializer())));
    });
  }

 private:
  template <class VA, class F>
  KTable<Windowed<K>, VA> add(const Materialized<K, VA>& materialized, F f) const {
    auto& graph = *grouped_.graph_;
    constexpr bool kTime = std::is_same_v<W, TimeWindows>;
    std::chrono::milliseconds size, advance(0);  // sliding: the time difference, no advance
    if constexpr (kTime) {
      size = windows_.size();
      advance = windows_.advance();
    } else {
      size = windows_.time_difference();
    }
    const auto grace = windows_.grace();

    auto named = internal::store_named(graph, materialized);
    const auto retention = internal::window_retention(graph, windows_.validate(), named.name,
                                                      materialized.retention, size + grace);
    auto store =
        internal::add_table_store<K, VA>(graph, named, "KSTREAM-AGGREGATE",
                                         {internal::StoreKind::kWindow, retention, size, advance});
    std::vector<std::string> stores{store.name};
    auto final_only = internal::emit_on_close(graph, store.name, grace, emit_, stores);
    const auto name = graph.name_for("", "KSTREAM-AGGREGATE");  // before the repartition's
    const std::string input = grouped_.input_for(store.name);
    std::string node;
    if constexpr (kTime) {
      node = internal::add_processor<K, V, Windowed<K>, internal::Change<VA>>(
          graph, "", name, {input},
          [name = store.name, windows = windows_, f, final_only] {
            return std::make_unique<internal::TimeWindowAggregateProcessor<K, V, VA, F>>(
                name, windows, f, final_only);
          },
          stores);
    } else {
      // The records, for windows that appear later: as long as an open window may hold them.
      const std::string records = store.name + "-records";
      auto value_serde = internal::serde_or_default<V>(graph, grouped_.grouped_.value_serde,
                                                       records, "store", "value", "Grouped");
      auto records_spec = internal::StoreSpec::make<K, V>(
          records, materialized.type, materialized.logging, false, store.key_serde, value_serde);
      records_spec.kind = internal::StoreKind::kWindow;
      records_spec.retain_duplicates = true;
      records_spec.reads_in_memory = true;  // fetched on every record
      records_spec.retention = 2 * size + grace + std::chrono::milliseconds(1);
      graph.add_store(std::move(records_spec));
      stores.push_back(records);
      node = internal::add_processor<K, V, Windowed<K>, internal::Change<VA>>(
          graph, "", name, {input},
          [name = store.name, records, windows = windows_, f, final_only] {
            return std::make_unique<internal::SlidingWindowAggregateProcessor<K, V, VA, F>>(
                name, records, windows, f, final_only);
          },
          stores);
    }
    return internal::windowed_table(grouped_.graph_, std::move(node), store, grace);
  }

  KGroupedStream<K, V> grouped_;
  W windows_;
  EmitStrategy emit_;
};

// A grouped stream with session windows.
template <class K, class V>
class SessionWindowedKStream {
 public:
  SessionWindowedKStream(KGroupedStream<K, V> grouped, SessionWindows windows,
                         EmitStrategy emit = EmitStrategy::kOnWindowUpdate)
      : grouped_(std::move(grouped)), windows_(windows), emit_(emit) {}

  SessionWindowedKStream emit_strategy(EmitStrategy emit) const {
    return SessionWindowedKStream(grouped_, windows_, emit);
  }

  KTable<Windowed<K>, std::int64_t> count(Materialized<K, std::int64_t> materialized = {}) const {
    return add<std::int64_t>(
        materialized,
        [](const K&, const V&, const std::int64_t* count) {
          return count ? *count + 1 : std::int64_t{1};
        },
        [](const K&, std::int64_t a, std::int64_t b) { return a + b; });
  }

  // reducer(aggregate, value) -> aggregate; merging sessions reduces their aggregates too.
  template <std::invocable<const V&, const V&> F>
  KTable<Windowed<K>, V> reduce(F reducer, Materialized<K, V> materialized = {}) const {
    return add<V>(
        materialized,
        [reducer](const K&, const V& value, const V* current) mutable {
          return current ? V(reducer(*current, value)) : value;
        },
        [reducer](const K&, const V& a, const V& b) mutable { return V(reducer(a, b)); });
  }

  // aggregator(key, value, aggregate) -> aggregate from initializer() per session;
  // merger(key, a, b) -> the aggregate of two sessions a record bridges.
  template <class Init, class Agg, class Merge,
            class VA = std::decay_t<std::invoke_result_t<Init&>>>
  KTable<Windowed<K>, VA> aggregate(Init initializer, Agg aggregator, Merge merger,
                                    Materialized<K, VA> materialized = {}) const {
    return add<VA>(
        materialized,
        [initializer, aggregator](const K& key, const V& value, const VA* current) mutable {
          return VA(aggregator(key, value, current ? *current : VA(initializer())));
        },
        [merger](const K& key, const VA& a, const VA& b) mutable { return VA(merger(key, a, b)); });
  }

 private:
  template <class VA, class F, class M>
  KTable<Windowed<K>, VA> add(const Materialized<K, VA>& materialized, F f, M merger) const {
    auto& graph = *grouped_.graph_;
    const auto close_delay = windows_.gap() + windows_.grace();
    auto named = internal::store_named(graph, materialized);
    const auto retention = internal::window_retention(graph, windows_.validate(), named.name,
                                                      materialized.retention, close_delay);
    auto store = internal::add_table_store<K, VA>(graph, named, "KSTREAM-AGGREGATE",
                                                  {internal::StoreKind::kSession, retention});
    std::vector<std::string> stores{store.name};
    auto final_only = internal::emit_on_close(graph, store.name, close_delay, emit_, stores);
    const auto name = graph.name_for("", "KSTREAM-AGGREGATE");  // before the repartition's
    const std::string input = grouped_.input_for(store.name);
    auto node = internal::add_processor<K, V, Windowed<K>, internal::Change<VA>>(
        graph, "", name, {input},
        [name = store.name, windows = windows_, f, merger, final_only] {
          return std::make_unique<internal::SessionWindowAggregateProcessor<K, V, VA, F, M>>(
              name, windows, f, merger, final_only);
        },
        stores);
    return internal::windowed_table(grouped_.graph_, std::move(node), store, close_delay);
  }

  KGroupedStream<K, V> grouped_;
  SessionWindows windows_;
  EmitStrategy emit_;
};

template <class K, class V>
TimeWindowedKStream<K, V, TimeWindows> KGroupedStream<K, V>::windowed_by(
    TimeWindows windows) const {
  return TimeWindowedKStream<K, V, TimeWindows>(*this, windows);
}
template <class K, class V>
TimeWindowedKStream<K, V, SlidingWindows> KGroupedStream<K, V>::windowed_by(
    SlidingWindows windows) const {
  return TimeWindowedKStream<K, V, SlidingWindows>(*this, windows);
}
template <class K, class V>
SessionWindowedKStream<K, V> KGroupedStream<K, V>::windowed_by(SessionWindows windows) const {
  return SessionWindowedKStream<K, V>(*this, windows);
}

}  // namespace brook

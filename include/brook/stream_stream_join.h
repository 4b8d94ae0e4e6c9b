// KStream::join / left_join / outer_join with another KStream (DESIGN.md pattern 6): windowed
// stream-stream joins.
//
//   searches.join(clicks, [](const Search& s, const Click& c) { return Hit{s.query, c.result}; },
//                 JoinWindows::of_time_difference_and_grace(5s, 1s),
//                 {.name = "search-clicks", .store_name = "search-clicks"});
//
// How it runs (nodes and stores named as Kafka Streams names them, see StreamJoined). Each side
// has two nodes: a windowed node (<name>-this-windowed, <name>-other-windowed) that admits a
// record of its side into the side's window store, and a join processor (<name>-this-join,
// <name>-other-join; -outer-this-join / -outer-other-join for the sides whose unmatched records
// are emitted) that joins it with the other side's store; both join processors feed <name>-merge,
// the join's output. A record at t is first checked for lateness by its windowed node: its window
// on the other side, [t - before, t + after] for this stream and [t - after, t + before] for the
// other, is closed once its end + grace is before stream time; then it is dropped
// (dropped-records, logged). Otherwise it is added to its side's window store (duplicates
// retained, retention before + after + grace + 1 ms) and joined with every record of the other
// side's store within its window, in the other store's time order.
//
// Unmatched records (left and outer joins): a record that found no match is written to the
// shared store (key-value), keyed [8-byte time][side][key][4-byte sequence], and removed from
// it as soon as a record of the other side matches it. Whenever stream time moves (a
// stream-time punctuation every 1 ms, so stream.time.idle.advance.ms moves it without
// records too), the records with t + before + after + grace < stream time are emitted as
// joiner(value, nullopt) / joiner(nullopt, other value), with their own timestamp, and removed.
// That bound is when no match can be accepted any more: the latest record of the other side
// that could match (at t + after) is itself accepted while stream time <= t + after + before +
// grace. Kafka Streams emits at t + after + grace already, and may then still join the record
// with a late one within grace; Brook waits `before` longer and never contradicts itself.
//
// Both inputs are one co-partition group; a re-keyed input is first written to a repartition
// topic. Joining a stream with itself works: each record reaches both sides, so it also joins
// itself. Value types must not be std::optional (the stores keep plain values); keys may.
// Streams keyed by std::optional<K> keep their records under K; a null-keyed record, which can
// match nothing, is neither stored nor checked for lateness: an outer side (the left of a left
// join, both of an outer join) emits it at once as joiner(value, nullopt) /
// joiner(nullopt, value) with its own timestamp and headers, an inner side drops it
// (dropped-records, logged).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "brook/internal/dsl_support.h"
#include "brook/internal/stream_join_names.h"
#include "brook/internal/stream_stream_join_impl.h"
#include "brook/kstream.h"
#include "brook/window_store.h"
#include "brook/windows.h"

namespace brook {

template <class K, class V>
template <internal::StreamJoinKind kKind, class VO, class VR, class F>
KStream<K, VR> KStream<K, V>::stream_join(const KStream<K, VO>& other, F joiner,
                                          JoinWindows windows,
                                          StreamJoined<K, V, VO> joined) const {
  static_assert(!internal::kIsOptional<V> && !internal::kIsOptional<VO>,
                "KStream::join with a stream: value types must not be std::optional");
  using StoreKey = internal::UnwrappedT<K>;  // null keys are never stored
  auto& graph = *graph_;
  const std::string& named = joined.name;
  const auto left =
      repartitioned_if_needed((named.empty() ? node_name() : named + "-left") + "-repartition", 0,
                              joined.key_serde, joined.value_serde);
  const auto right = other.repartitioned_if_needed(
      (named.empty() ? other.node_name() : named + "-right") + "-repartition", 0, joined.key_serde,
      joined.other_value_serde);
  constexpr bool kOuterThis = kKind == internal::StreamJoinKind::kOuter;
  constexpr bool kOuterOther = kKind != internal::StreamJoinKind::kInner;
  const auto names =
      internal::stream_join_names(graph, named, joined.store_name, kOuterThis, kOuterOther);
  const std::string& name = named.empty() ? names.merge : named;
  if (auto valid = windows.validate(); !valid.ok()) {
    graph.add_error(Status::invalid_argument("join " + name + ": " + valid.message()));
  }

  const internal::StreamJoinSerdes<StoreKey, V, VO> serdes{
      internal::serde_or_default<K>(graph, joined.key_serde, names.this_store, "store", "key",
                                    "StreamJoined"),
      internal::serde_or_default<V>(graph, joined.value_serde, names.this_store, "store", "value",
                                    "StreamJoined"),
      internal::serde_or_default<VO>(graph, joined.other_value_serde, names.other_store, "store",
                                     "other_value", "StreamJoined")};
  internal::add_join_store<StoreKey, V>(graph, names.this_store, joined.type, joined.logging,
                                        serdes.key, serdes.left, windows);
  internal::add_join_store<StoreKey, VO>(graph, names.other_store, joined.type, joined.logging,
                                         serdes.key, serdes.right, windows);
  // Each join processor reads the other side's store, and both the shared one.
  std::vector<std::string> this_join_stores{names.other_store};
  std::vector<std::string> other_join_stores{names.this_store};
  if (!names.shared_store.empty()) {
    auto bytes = std::make_shared<const StringSerde>();
    graph.add_store(internal::StoreSpec::make<std::string, std::string>(
        names.shared_store, joined.type, joined.logging, false, bytes, bytes));
    this_join_stores.push_back(names.shared_store);
    other_join_stores.push_back(names.shared_store);
  }

  const auto this_windowed = internal::add_processor<K, V, K, V>(
      graph, "", names.this_windowed, {left.node_name()},
      [store = names.this_store, windows] {
        return std::make_unique<internal::JoinWindowProcessor<K, V>>(store, windows.after(),
                                                                     windows.grace());
      },
      {names.this_store});
  const auto other_windowed = internal::add_processor<K, VO, K, VO>(
      graph, "", names.other_windowed, {right.node_name()},
      [store = names.other_store, windows] {
        return std::make_unique<internal::JoinWindowProcessor<K, VO>>(store, windows.before(),
                                                                      windows.grace());
      },
      {names.other_store});
  const auto this_join = internal::add_processor<K, V, K, VR>(
      graph, "", names.this_join, {this_windowed},
      [other = names.other_store, shared = names.shared_store, serdes, windows, joiner] {
        return std::make_unique<internal::StreamStreamJoinProcessor<K, V, VO, VR, F, kKind, true>>(
            other, shared, serdes, windows, joiner);
      },
      this_join_stores);
  const auto other_join = internal::add_processor<K, VO, K, VR>(
      graph, "", names.other_join, {other_windowed},
      [other = names.this_store, shared = names.shared_store, serdes, windows, joiner] {
        return std::make_unique<internal::StreamStreamJoinProcessor<K, V, VO, VR, F, kKind, false>>(
            other, shared, serdes, windows, joiner);
      },
      other_join_stores);
  graph.add_copartition_group({.join = name, .inputs = {left.node_name(), right.node_name()}});
  auto merged = internal::add_pass_through<K, VR>(graph, "", names.merge, {this_join, other_join});
  return KStream<K, VR>(graph_, std::move(merged));
}

template <class K, class V>
template <class VO, class F, class VR>
KStream<K, VR> KStream<K, V>::join(const KStream<K, VO>& other, F joiner, JoinWindows windows,
                                   StreamJoined<K, V, VO> joined) const {
  return stream_join<internal::StreamJoinKind::kInner, VO, VR>(other, std::move(joiner), windows,
                                                               std::move(joined));
}

template <class K, class V>
template <class VO, class F, class VR>
KStream<K, VR> KStream<K, V>::left_join(const KStream<K, VO>& other, F joiner, JoinWindows windows,
                                        StreamJoined<K, V, VO> joined) const {
  return stream_join<internal::StreamJoinKind::kLeft, VO, VR>(other, std::move(joiner), windows,
                                                              std::move(joined));
}

template <class K, class V>
template <class VO, class F, class VR>
KStream<K, VR> KStream<K, V>::outer_join(const KStream<K, VO>& other, F joiner, JoinWindows windows,
                                         StreamJoined<K, V, VO> joined) const {
  return stream_join<internal::StreamJoinKind::kOuter, VO, VR>(other, std::move(joiner), windows,
                                                               std::move(joined));
}

}  // namespace brook

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

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "brook/internal/dsl_support.h"
#include "brook/internal/stream_join_names.h"
#include "brook/internal/suppress.h"
#include "brook/kstream.h"
#include "brook/window_store.h"
#include "brook/windows.h"

namespace brook {
namespace internal {

// Calls the user's joiner with a pair of values, or one value alone (left and outer joins).
template <class VL, class VRt, class VOut, class F, StreamJoinKind kKind>
struct StreamJoiner {
  F f;

  VOut both(const VL& left, const VRt& right) {
    if constexpr (kKind == StreamJoinKind::kInner) {
      return f(left, right);
    } else if constexpr (kKind == StreamJoinKind::kLeft) {
      return f(left, std::optional<VRt>(right));
    } else {
      return f(std::optional<VL>(left), std::optional<VRt>(right));
    }
  }
  VOut left_only(const VL& left) {
    if constexpr (kKind == StreamJoinKind::kLeft) {
      return f(left, std::optional<VRt>());
    } else {
      return f(std::optional<VL>(left), std::optional<VRt>());
    }
  }
  VOut right_only(const VRt& right) { return f(std::optional<VL>(), std::optional<VRt>(right)); }
};

// Keys of the shared store of unmatched records: [8-byte big-endian time][side: 0 left, 1 right]
// [key][4-byte sequence]. Times are not negative, so the store's key order is time order.
inline std::string outer_join_prefix(Timestamp t, bool left, std::string_view key) {
  std::string out;
  out.reserve(8 + 1 + key.size() + 4);
  put_time(out, t);
  out.push_back(left ? '\0' : '\1');
  out.append(key);
  return out;
}
inline constexpr std::size_t kOuterJoinKeyOverhead = 8 + 1 + 4;

// The windowed node of one side: drops a record whose window on the other side, up to
// `look_ahead` after it, closed `grace` ago, adds the others to the side's window store `store`
// and forwards them to the side's join processor. Records without a key pass unstored.
template <class K, class V>
class JoinWindowProcessor final : public Processor<K, V, K, V> {
 public:
  JoinWindowProcessor(std::string store, std::chrono::milliseconds look_ahead,
                      std::chrono::milliseconds grace)
      : store_name_(std::move(store)), look_ahead_(look_ahead), grace_(grace) {}

  void init(ProcessorContext<K, V>& context) override {
    Processor<K, V, K, V>::init(context);
    store_.emplace(context.template window_store<UnwrappedT<K>, V>(store_name_));
  }

  void process(Record<K, V> r) override {
    if constexpr (kIsOptional<K>) {
      if (!r.key) return this->context().forward(std::move(r));
      admit(*r.key, std::move(r));
    } else {
      admit(r.key, std::move(r));
    }
  }

 private:
  void admit(const UnwrappedT<K>& key, Record<K, V>&& r) {
    const Timestamp t = r.timestamp;
    const Timestamp now = this->context().current_stream_time();
    if (now != Timestamp::min() && t + look_ahead_ + grace_ < now) {
      this->context().drop_record("record at " + std::to_string(t.value()) +
                                  " is too late for the join: its window ended at " +
                                  std::to_string((t + look_ahead_).value()) +
                                  ", closed after grace " + std::to_string(grace_.count()) +
                                  " ms (stream time " + std::to_string(now.value()) + ")");
      return;
    }
    store_->put(key, r.value, t);
    this->context().forward(std::move(r));
  }

  std::string store_name_;
  std::chrono::milliseconds look_ahead_;
  std::chrono::milliseconds grace_;
  std::optional<WindowStore<UnwrappedT<K>, V>> store_;
};

// The serdes of a join's stores: keys, this stream's values, the other's.
template <class K, class VL, class VRt>
struct StreamJoinSerdes {
  SerdePtr<K> key;
  SerdePtr<VL> left;
  SerdePtr<VRt> right;
};

// The join processor of one side (kLeftSide: this stream's records) of a stream-stream join:
// joins each record its windowed node admitted with the other side's window store
// `other_store`, keeping unmatched records in `shared_store` (left and outer joins).
// Keys K, or std::optional<K> (records stored under K; see the top of this file for null keys).
template <class K, class VL, class VRt, class VOut, class F, StreamJoinKind kKind, bool kLeftSide>
class StreamStreamJoinProcessor final
    : public Processor<K, std::conditional_t<kLeftSide, VL, VRt>, K, VOut> {
 public:
  using VThis = std::conditional_t<kLeftSide, VL, VRt>;
  using VOther = std::conditional_t<kLeftSide, VRt, VL>;
  using StoreKey = UnwrappedT<K>;
  static constexpr bool kHasOuterStore = kKind != StreamJoinKind::kInner;
  // Whether this side's unmatched records are emitted.
  static constexpr bool kThisOuter =
      kKind == StreamJoinKind::kOuter || (kKind == StreamJoinKind::kLeft && kLeftSide);

  StreamStreamJoinProcessor(std::string other_store, std::string shared_store,
                            StreamJoinSerdes<StoreKey, VL, VRt> serdes, JoinWindows windows,
                            F joiner)
      : other_store_name_(std::move(other_store)),
        shared_store_name_(std::move(shared_store)),
        serdes_(std::move(serdes)),
        windows_(windows),
        joiner_{std::move(joiner)} {}

  void init(ProcessorContext<K, VOut>& context) override {
    Processor<K, VThis, K, VOut>::init(context);
    other_store_.emplace(context.template window_store<StoreKey, VOther>(other_store_name_));
    if constexpr (kHasOuterStore) {
      outer_ = &store_access(context, shared_store_name_).store;
      // Fires whenever stream time moves, also when it moves without records (idle advance).
      context.schedule(std::chrono::milliseconds(1), PunctuationType::kStreamTime,
                       [this](Timestamp) { emit_closed(); });
    }
  }

  void process(Record<K, VThis> r) override {
    if constexpr (kIsOptional<K>) {
      if (!r.key) return join_null_key(std::move(r));
      process_keyed(*r.key, std::move(r));
    } else {
      process_keyed(r.key, std::move(r));
    }
  }

 private:
  // Joins `r`, whose key is `key`, with the other side's records in its window.
  void process_keyed(const StoreKey& key, Record<K, VThis>&& r) {
    const Timestamp t = r.timestamp;
    // The other side's records this one joins: [t - look_back, t + look_ahead].
    const auto look_back = kLeftSide ? windows_.before() : windows_.after();
    const auto look_ahead = kLeftSide ? windows_.after() : windows_.before();
    const auto matches =
        other_store_->fetch(key, std::max(t - look_back, Timestamp(0)), t + look_ahead);
    std::string key_bytes;
    if constexpr (kHasOuterStore) key_bytes = check(serdes_.key->serialize(key));
    std::optional<Timestamp> unlisted;  // the other side's time whose entries are removed
    for (const auto& [at, value] : matches) {
      if constexpr (kHasOuterStore) {
        if (unlisted != at) remove_outer(at, !kLeftSide, key_bytes);
        unlisted = at;
      }
      std::optional<VOut> out;
      if constexpr (kLeftSide) {
        out.emplace(joiner_.both(r.value, value));
      } else {
        out.emplace(joiner_.both(value, r.value));
      }
      this->context().forward(Record<K, VOut>{r.key, std::move(*out), std::max(t, at), r.headers});
    }
    if constexpr (kThisOuter) {
      if (matches.empty()) add_outer(t, key_bytes, r.value);
    }
    if constexpr (kHasOuterStore) emit_closed();
  }

  // A record without a key can match nothing: an outer side emits it at once, an inner one
  // drops it.
  void join_null_key(Record<K, VThis>&& r) {
    if constexpr (kThisOuter) {
      forward_unmatched<kLeftSide>(std::move(r.key), r.value, r.timestamp, std::move(r.headers));
    } else {
      this->context().drop_record("its key is null, so it can match no record of the join");
    }
  }

  // Forwards joiner(value, nullopt) for a left `value`, joiner(nullopt, value) for a right one.
  template <bool kLeftValue, class Value>
  void forward_unmatched(K key, const Value& value, Timestamp t, Headers headers = {}) {
    std::optional<VOut> out;
    if constexpr (kLeftValue) {
      out.emplace(joiner_.left_only(value));
    } else {
      out.emplace(joiner_.right_only(value));
    }
    this->context().forward(
        Record<K, VOut>{std::move(key), std::move(*out), t, std::move(headers)});
  }

  // Adds an unmatched record of this side to the shared store.
  void add_outer(Timestamp t, const std::string& key_bytes, const VThis& value) {
    const std::string key =
        check(unused_sequence_key(*outer_, outer_join_prefix(t, kLeftSide, key_bytes)));
    const auto& serde = kLeftSide ? *serdes_.left : *serdes_.right;
    ok(outer_->put(key, check(serde.serialize(value))));
  }

  // Removes the unmatched records of side `left` at `t` with key `key_bytes`: they have a match.
  void remove_outer(Timestamp t, bool left, const std::string& key_bytes) {
    std::vector<std::string> found;
    for_each_outer(outer_join_prefix(t, left, key_bytes),
                   [&](std::string_view k) { found.emplace_back(k); });
    for (const auto& k : found) ok(outer_->put(k, std::nullopt));
  }

  // Calls f(key) for each shared store key that is `prefix` + a 4-byte sequence.
  template <class Visit>
  void for_each_outer(const std::string& prefix, Visit f) {
    KeyRange range{.from = prefix, .to = prefix + std::string(4, '\xff')};
    ok(outer_->scan(range, [&](std::string_view k, std::string_view) {
      if (k.size() == prefix.size() + 4) f(k);
      return true;
    }));
  }

  // Emits and removes the unmatched records no match can reach any more.
  void emit_closed() {
    const Timestamp now = this->context().current_stream_time();
    if (now == Timestamp::min()) return;
    const Timestamp threshold = now - windows_.size() - windows_.grace();  // emit t < threshold
    if (threshold <= emitted_below_) return;  // later entries are never below an old threshold
    emitted_below_ = threshold;
    std::vector<std::pair<std::string, std::string>> due;
    ok(outer_->scan({}, [&](std::string_view k, std::string_view v) {
      if (k.size() < kOuterJoinKeyOverhead) return true;
      if (get_time(k) >= threshold) return false;
      due.emplace_back(k, v);
      return true;
    }));
    for (auto& [k, v] : due) {
      ok(outer_->put(k, std::nullopt));
      const Timestamp t = get_time(k);
      K key = check(serdes_.key->deserialize(
          std::string_view(k).substr(9, k.size() - kOuterJoinKeyOverhead)));
      if (k[8] == '\0') {
        if constexpr (kKind != StreamJoinKind::kInner) {
          forward_unmatched<true>(std::move(key), check(serdes_.left->deserialize(v)), t);
        }
      } else {
        if constexpr (kKind == StreamJoinKind::kOuter) {
          forward_unmatched<false>(std::move(key), check(serdes_.right->deserialize(v)), t);
        }
      }
    }
  }

  template <class T>
  T check(Result<T> result) {
    return value_or_throw(std::move(result), shared_store_name_);
  }
  void ok(const Status& status) { ok_or_throw(status, shared_store_name_); }

  std::string other_store_name_;
  std::string shared_store_name_;
  StreamJoinSerdes<StoreKey, VL, VRt> serdes_;
  JoinWindows windows_;
  StreamJoiner<VL, VRt, VOut, F, kKind> joiner_;
  std::optional<WindowStore<StoreKey, VOther>> other_store_;
  KeyValueBytesStore* outer_ = nullptr;
  Timestamp emitted_below_ = Timestamp::min();
};

// Declares the window store `name` of one side's records.
template <class K, class V>
void add_join_store(GraphBuilder& graph, const std::string& name, StoreType type, bool logging,
                    SerdePtr<K> key_serde, SerdePtr<V> value_serde, const JoinWindows& windows) {
  auto spec = StoreSpec::make<K, V>(name, type, logging, false, std::move(key_serde),
                                    std::move(value_serde));
  spec.kind = StoreKind::kWindow;
  spec.retain_duplicates = true;
  spec.reads_in_memory = true;  // fetched on every record of the other side
  spec.window_size = std::max(windows.size(), std::chrono::milliseconds(0));
  spec.retention = std::max(windows.size(), std::chrono::milliseconds(0)) +
                   std::max(windows.grace(), std::chrono::milliseconds(0)) +
                   std::chrono::milliseconds(1);
  graph.add_store(std::move(spec));
}

}  // namespace internal

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

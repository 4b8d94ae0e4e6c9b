// The nodes of a windowed stream-stream join (brook/stream_stream_join.h builds joins from
// them and says how they run). Not for users.
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "brook/internal/change.h"
#include "brook/internal/dsl_support.h"
#include "brook/internal/suppress.h"
#include "brook/processor.h"
#include "brook/window_store.h"
#include "brook/windows.h"

namespace brook::internal {

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

}  // namespace brook::internal

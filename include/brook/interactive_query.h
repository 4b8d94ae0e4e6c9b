// Interactive queries: read a running application's stores from any thread.
//
//   auto counts = app.store<std::string, std::int64_t>("counts");
//   if (counts) auto n = counts->get("alice");   // Result<std::optional<std::int64_t>>
//
// A view covers the store's tasks on this instance. get() asks the task that owns the key's
// partition (by the default partitioner over the serialised key, as the input was written).
// Each call returns a Status instead of an answer whenever the answer could be wrong or
// incomplete, never a partial answer:
//   kUnavailable         retry later: the key's task is restoring (with its progress) or just
//                        migrated; the application is REBALANCING, so the key's partition may
//                        be on its way here or a call over all local tasks (range(), all(),
//                        approximate_num_entries(), fetch_all()) could miss some; or tasks
//                        moved while such a call read them
//   kNotFound            the application is RUNNING and the key's partition is on another
//                        instance
//   kFailedPrecondition  the application is not running (not started, stopped, failed)
// or the store's own error. Reads see every write the task made, including those still in the
// record cache. Stores of tables and aggregations hold
// ValueAndTimestamp<V>: query them as <K, V> (timestamps dropped) or <K, ValueAndTimestamp<V>>.
//
// Window and session stores (of windowed aggregations) have their own views, from
// Streams::window_store<K, V>() and Streams::session_store<K, V>():
//
//   auto daily = app.window_store<std::string, std::int64_t>("day-counts");
//   auto today = daily->fetch("alice", midnight);              // Result<std::optional<V>>
//   auto week = daily->fetch("alice", midnight - 6 * 24h, midnight);  // (start, value)s
//
// Their keyed calls ask the task of the key's partition, as get() does; fetch_all() and all()
// read every local task.
//
// Stale reads (Kafka Streams' StoreQueryParameters.enableStaleStores()): a view made with
// StoreQueryOptions{.allow_stale = true} also answers from this instance's standby replicas
// (num.standby.replicas) and from tasks still restoring, and while the application rebalances:
//
//   auto counts = app.store<std::string, std::int64_t>("counts", {.allow_stale = true});
//
// Such an answer may be behind the changelog by what local_store_lags() says for the
// partition (Streams::local_store_lag()): a standby applies its changelog as it is written,
// read committed. A keyed call answers from the active task of the key's partition if it is
// here, else from its standby; kNotFound if this instance holds neither. A call over all local
// tasks reads each partition held here once, active or standby, without the checks above
// (an answer from a rebalancing instance may miss partitions on their way).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "brook/internal/store_query.h"
#include "brook/internal/window_keys.h"
#include "brook/record.h"
#include "brook/state_store.h"
#include "brook/windowed.h"

namespace brook {

// How an interactive query may answer (Kafka Streams' StoreQueryParameters).
struct StoreQueryOptions {
  // Also from standby replicas and restoring tasks, and while the application rebalances: the
  // answer may be stale (see above).
  bool allow_stale = false;
};

template <class K, class V>
class ReadOnlyKeyValueStore {
 public:
  using DecodeValue = std::function<Result<V>(std::string_view)>;
  ReadOnlyKeyValueStore(std::shared_ptr<internal::StoreQuery> query, SerdePtr<K> key_serde,
                        DecodeValue decode_value)
      : query_(std::move(query)),
        key_serde_(std::move(key_serde)),
        decode_value_(std::move(decode_value)) {}

  Result<std::optional<V>> get(const K& key) const {
    auto bytes = key_serde_->serialize(key);
    if (!bytes) return error(std::move(bytes.error()));
    auto value = query_->get(*bytes);
    if (!value) return error(std::move(value.error()));
    if (!*value) return std::optional<V>();
    auto decoded = decode_value_(**value);
    if (!decoded) return error(std::move(decoded.error()));
    return std::optional<V>(std::move(*decoded));
  }
  // Entries with from <= key <= to by serialised key; ordered within each partition.
  Result<std::vector<KeyValue<K, V>>> range(const K& from, const K& to) const {
    auto f = key_serde_->serialize(from);
    if (!f) return error(std::move(f.error()));
    auto t = key_serde_->serialize(to);
    if (!t) return error(std::move(t.error()));
    return collect({.from = std::move(*f), .to = std::move(*t)});
  }
  Result<std::vector<KeyValue<K, V>>> all() const { return collect({}); }
  Result<std::int64_t> approximate_num_entries() const { return query_->approximate_count(); }

 private:
  Result<std::vector<KeyValue<K, V>>> collect(const internal::KeyRange& range) const {
    std::vector<KeyValue<K, V>> out;
    Status failure;
    auto scanned = query_->scan(range, [&](std::string_view k, std::string_view v) {
      auto key = key_serde_->deserialize(k);
      auto value = key ? decode_value_(v) : Result<V>(error(key.error()));
      if (!key || !value) {
        failure = key ? value.error() : key.error();
        return false;
      }
      out.push_back({std::move(*key), std::move(*value)});
      return true;
    });
    if (!scanned.ok()) return error(std::move(scanned));
    if (!failure.ok()) return error(std::move(failure));
    return out;
  }

  std::shared_ptr<internal::StoreQuery> query_;
  SerdePtr<K> key_serde_;
  DecodeValue decode_value_;
};

namespace internal {

// Decodes a store's value bytes as V, for stores holding V or ValueAndTimestamp<V>.
template <class V>
using DecodeValue = std::function<Result<V>(std::string_view)>;

// The decoder of the values of `spec` as V, or kInvalidArgument if the store is not of kind
// `kind` or does not hold <K, V> or <K, ValueAndTimestamp<V>>.
template <class K, class V>
Result<DecodeValue<V>> query_value_decoder(const StoreSpec& spec, StoreKind kind) {
  if (auto wrong = spec.kind_mismatch(kind); !wrong.empty()) {
    return error(Status::invalid_argument(std::move(wrong)));
  }
  const bool timestamped = spec.template holds<K, ValueAndTimestamp<V>>();
  if (!timestamped && !spec.template holds<K, V>()) {
    return error(Status::invalid_argument(spec.template mismatch<K, V>()));
  }
  if (timestamped) {
    auto serde = std::static_pointer_cast<const Serde<ValueAndTimestamp<V>>>(spec.value_serde);
    return DecodeValue<V>([serde](std::string_view bytes) -> Result<V> {
      auto v = serde->deserialize(bytes);
      if (!v) return error(std::move(v.error()));
      return std::move(v->value);
    });
  }
  auto serde = std::static_pointer_cast<const Serde<V>>(spec.value_serde);
  return DecodeValue<V>([serde](std::string_view bytes) { return serde->deserialize(bytes); });
}

}  // namespace internal

// A window store of a running application. Cheap to copy; thread-safe.
template <class K, class V>
class ReadOnlyWindowStore {
 public:
  ReadOnlyWindowStore(std::shared_ptr<internal::StoreQuery> query, SerdePtr<K> key_serde,
                      internal::DecodeValue<V> decode_value, std::chrono::milliseconds window_size)
      : query_(std::move(query)),
        key_serde_(std::move(key_serde)),
        decode_value_(std::move(decode_value)),
        window_size_(window_size) {}

  // The value of `key` in the window starting at `window_start`, or nullopt.
  Result<std::optional<V>> fetch(const K& key, Timestamp window_start) const {
    auto k = key_serde_->serialize(key);
    if (!k) return error(std::move(k.error()));
    auto value = query_->get_keyed(*k, internal::window_key(*k, window_start, 0));
    if (!value) return error(std::move(value.error()));
    if (!*value) return std::optional<V>();
    auto decoded = decode_value_(**value);
    if (!decoded) return error(std::move(decoded.error()));
    return std::optional<V>(std::move(*decoded));
  }
  // The windows of `key` with from <= start <= to, in start order: (start, value) pairs.
  Result<std::vector<std::pair<Timestamp, V>>> fetch(const K& key, Timestamp from,
                                                     Timestamp to) const {
    auto k = key_serde_->serialize(key);
    if (!k) return error(std::move(k.error()));
    std::vector<std::pair<Timestamp, V>> out;
    if (to < from || to.value() < 0) return out;
    Status failure;
    auto scanned = query_->scan_keyed(
        *k, internal::window_key_range(*k, from, to), [&](std::string_view wk, std::string_view v) {
          if (!internal::window_key_is(wk, *k)) return true;
          auto value = decode_value_(v);
          if (!value) {
            failure = std::move(value.error());
            return false;
          }
          out.emplace_back(internal::window_key_start(wk), std::move(*value));
          return true;
        });
    if (!scanned.ok()) return error(std::move(scanned));
    if (!failure.ok()) return error(std::move(failure));
    return out;
  }
  // Every window with from <= start <= to of the local tasks (ordered within each task).
  Result<std::vector<KeyValue<Windowed<K>, V>>> fetch_all(Timestamp from, Timestamp to) const {
    std::vector<KeyValue<Windowed<K>, V>> out;
    Status failure;
    auto scanned = query_->scan({}, [&](std::string_view wk, std::string_view v) {
      if (wk.size() < internal::kWindowKeySuffix) return true;
      const Timestamp start = internal::window_key_start(wk);
      if (start < from || start > to) return true;
      auto key = key_serde_->deserialize(internal::window_key_key(wk));
      auto value = key ? decode_value_(v) : Result<V>(error(key.error()));
      if (!key || !value) {
        failure = key ? value.error() : key.error();
        return false;
      }
      out.push_back(
          {{std::move(*key), {.start = start, .end = start + window_size_}}, std::move(*value)});
      return true;
    });
    if (!scanned.ok()) return error(std::move(scanned));
    if (!failure.ok()) return error(std::move(failure));
    return out;
  }
  Result<std::vector<KeyValue<Windowed<K>, V>>> all() const {
    return fetch_all(Timestamp(0), internal::kMaxKeyTime);
  }

 private:
  std::shared_ptr<internal::StoreQuery> query_;
  SerdePtr<K> key_serde_;
  internal::DecodeValue<V> decode_value_;
  std::chrono::milliseconds window_size_;
};

// A session store of a running application. Cheap to copy; thread-safe.
template <class K, class V>
class ReadOnlySessionStore {
 public:
  ReadOnlySessionStore(std::shared_ptr<internal::StoreQuery> query, SerdePtr<K> key_serde,
                       internal::DecodeValue<V> decode_value)
      : query_(std::move(query)),
        key_serde_(std::move(key_serde)),
        decode_value_(std::move(decode_value)) {}

  // Every session of `key`, in end order.
  Result<std::vector<KeyValue<Windowed<K>, V>>> fetch(const K& key) const {
    return find_sessions(key, Timestamp(0), internal::kMaxKeyTime);
  }
  // The sessions of `key` with end >= earliest_end and start <= latest_start, in end order.
  Result<std::vector<KeyValue<Windowed<K>, V>>> find_sessions(const K& key, Timestamp earliest_end,
                                                              Timestamp latest_start) const {
    auto k = key_serde_->serialize(key);
    if (!k) return error(std::move(k.error()));
    std::vector<KeyValue<Windowed<K>, V>> out;
    Status failure;
    auto scanned = query_->scan_keyed(*k, internal::session_key_range(*k, earliest_end),
                                      [&](std::string_view sk, std::string_view v) {
                                        if (!internal::session_key_is(sk, *k)) return true;
                                        const Window window = internal::session_key_window(sk);
                                        if (window.start > latest_start) return true;
                                        auto value = decode_value_(v);
                                        if (!value) {
                                          failure = std::move(value.error());
                                          return false;
                                        }
                                        out.push_back({{key, window}, std::move(*value)});
                                        return true;
                                      });
    if (!scanned.ok()) return error(std::move(scanned));
    if (!failure.ok()) return error(std::move(failure));
    return out;
  }

 private:
  std::shared_ptr<internal::StoreQuery> query_;
  SerdePtr<K> key_serde_;
  internal::DecodeValue<V> decode_value_;
};

}  // namespace brook

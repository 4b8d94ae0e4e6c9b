// Window and session stores as processors see them: typed facades over a task's window or
// session store (declared with StoreKind kWindow / kSession, see brook/internal/store_spec.h).
//
// A window store holds one value per key and window start (or, with retain_duplicates, every
// value put, in insertion order); a session store one value per key and session. Both keep
// data for their retention period at least: whole time segments older than that are dropped
// (src/state/segmented_store.h), and writes into them are ignored. Keys are laid out as in
// Kafka Streams (brook/internal/window_keys.h): entries of one key are in time order.
//
// As KeyValueStore: a facade is a cheap view, valid while its task runs; every call runs on
// the task's thread; store failures throw brook::StoreError. Timestamps are non-negative.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "brook/internal/bytes_store.h"
#include "brook/internal/store_spec.h"
#include "brook/internal/window_keys.h"
#include "brook/record.h"
#include "brook/serde.h"
#include "brook/state_store.h"
#include "brook/windowed.h"

namespace brook {

namespace internal {
// Adds `value` to the window store `store` as one more value of the key bytes `key` in the
// window starting at `start` (retain_duplicates), under the next unused sequence number;
// `last` is the window key this added last, and becomes the new one. Throws StoreError.
void put_duplicate(KeyValueBytesStore& store, std::string_view key, Timestamp start,
                   std::string_view value, std::string& last);
}  // namespace internal

template <class K, class V>
class WindowStore {
 public:
  // `window_size`: a window's end is start + window_size ([start, end), as time windows).
  WindowStore(internal::KeyValueBytesStore& store, SerdePtr<K> key_serde, SerdePtr<V> value_serde,
              std::chrono::milliseconds window_size, bool retain_duplicates)
      : store_(&store),
        key_serde_(std::move(key_serde)),
        value_serde_(std::move(value_serde)),
        window_size_(window_size),
        retain_duplicates_(retain_duplicates) {}

  const std::string& name() const { return store_->name(); }
  std::chrono::milliseconds window_size() const { return window_size_; }
  bool retain_duplicates() const { return retain_duplicates_; }

  // Sets the value of `key` in the window starting at `window_start`. With retain_duplicates it
  // adds one more value instead (the next sequence number of that key and window), keeping
  // the earlier ones.
  void put(const K& key, const V& value, Timestamp window_start) {
    value_buffer_.clear();
    internal::ok_or_throw(value_serde_->serialize_into(value, value_buffer_), name());
    const std::string_view bytes = value_buffer_;
    if (!retain_duplicates_) {
      internal::ok_or_throw(store_->put(window_key_of(key, window_start), bytes), name());
      return;
    }
    internal::put_duplicate(*store_, key_bytes(key), window_start, bytes, last_duplicate_);
  }
  // Deletes the value of `key` in the window starting at `window_start` (with retain_duplicates:
  // every value of that key and window).
  void remove(const K& key, Timestamp window_start) {
    const auto k = key_bytes(key);
    if (!retain_duplicates_) {
      internal::ok_or_throw(store_->put(internal::window_key(k, window_start, 0), std::nullopt),
                            name());
      return;
    }
    last_duplicate_.clear();
    std::vector<std::string> keys;
    internal::ok_or_throw(store_->scan(internal::window_key_range(k, window_start, window_start),
                                       [&](std::string_view wk, std::string_view) {
                                         if (internal::window_key_is(wk, k)) keys.emplace_back(wk);
                                         return true;
                                       }),
                          name());
    for (const auto& wk : keys) internal::ok_or_throw(store_->put(wk, std::nullopt), name());
  }
  // The value of `key` in the window starting at `window_start` (with retain_duplicates: the
  // first one put), or nullopt.
  std::optional<V> fetch(const K& key, Timestamp window_start) {
    const std::string_view window_key = window_key_of(key, window_start);
    if (!internal::value_or_throw(store_->get_into(window_key, value_buffer_), name())) {
      return std::nullopt;
    }
    return decode_value(value_buffer_);
  }
  // The windows of `key` with from <= start <= to, in start order (duplicates in insertion
  // order).
  std::vector<std::pair<Timestamp, V>> fetch(const K& key, Timestamp from, Timestamp to) {
    std::vector<std::pair<Timestamp, V>> out;
    if (to < from || to.value() < 0) return out;
    const auto k = key_bytes(key);
    internal::ok_or_throw(store_->scan(internal::window_key_range(k, from, to),
                                       [&](std::string_view wk, std::string_view v) {
                                         if (internal::window_key_is(wk, k)) {
                                           out.emplace_back(internal::window_key_start(wk),
                                                            decode_value(v));
                                         }
                                         return true;
                                       }),
                          name());
    return out;
  }
  // Every window with from <= start <= to, of any key, in key order (by serialised key), then
  // start order.
  std::vector<KeyValue<Windowed<K>, V>> fetch_all(Timestamp from, Timestamp to) {
    return collect(from, to);
  }
  std::vector<KeyValue<Windowed<K>, V>> all() {
    return collect(Timestamp(0), internal::kMaxKeyTime);
  }

 private:
  std::string key_bytes(const K& key) {
    return internal::value_or_throw(key_serde_->serialize(key), name());
  }
  // `key`'s window key at `window_start` (sequence 0), in a buffer each call reuses: no
  // allocation per window read or written.
  std::string_view window_key_of(const K& key, Timestamp window_start) {
    window_key_.clear();
    internal::ok_or_throw(key_serde_->serialize_into(key, window_key_), name());
    internal::append_window_key_suffix(window_key_, window_start, 0);
    return window_key_;
  }
  V decode_value(std::string_view bytes) {
    return internal::value_or_throw(value_serde_->deserialize(bytes), name());
  }
  std::vector<KeyValue<Windowed<K>, V>> collect(Timestamp from, Timestamp to) {
    std::vector<KeyValue<Windowed<K>, V>> out;
    internal::ok_or_throw(
        store_->scan({},
                     [&](std::string_view wk, std::string_view v) {
                       if (wk.size() < internal::kWindowKeySuffix) return true;
                       const Timestamp start = internal::window_key_start(wk);
                       if (start < from || start > to) return true;
                       out.push_back(
                           {{internal::value_or_throw(
                                 key_serde_->deserialize(internal::window_key_key(wk)), name()),
                             {.start = start, .end = start + window_size_}},
                            decode_value(v)});
                       return true;
                     }),
        name());
    return out;
  }

  internal::KeyValueBytesStore* store_;
  SerdePtr<K> key_serde_;
  SerdePtr<V> value_serde_;
  std::chrono::milliseconds window_size_;
  bool retain_duplicates_;
  std::string last_duplicate_;  // with retain_duplicates: the window key of the last put
  std::string window_key_;      // window_key_of()'s buffer
  std::string value_buffer_;    // the buffer of put() and fetch(key, start)
};

template <class K, class V>
using TimestampedWindowStore = WindowStore<K, ValueAndTimestamp<V>>;

template <class K, class V>
class SessionStore {
 public:
  SessionStore(internal::KeyValueBytesStore& store, SerdePtr<K> key_serde, SerdePtr<V> value_serde)
      : store_(&store), key_serde_(std::move(key_serde)), value_serde_(std::move(value_serde)) {}

  const std::string& name() const { return store_->name(); }

  // Sets the value of the session (its key and window [start, end], both inclusive).
  void put(const Windowed<K>& session, const V& value) {
    auto bytes = internal::value_or_throw(value_serde_->serialize(value), name());
    internal::ok_or_throw(
        store_->put(internal::session_key(key_bytes(session.key), session.window), bytes), name());
  }
  void remove(const Windowed<K>& session) {
    internal::ok_or_throw(
        store_->put(internal::session_key(key_bytes(session.key), session.window), std::nullopt),
        name());
  }
  // The value of the session of `key` from `start` to `end`, or nullopt.
  std::optional<V> fetch_session(const K& key, Timestamp start, Timestamp end) {
    auto bytes = internal::value_or_throw(
        store_->get(internal::session_key(key_bytes(key), {.start = start, .end = end})), name());
    if (!bytes) return std::nullopt;
    return internal::value_or_throw(value_serde_->deserialize(*bytes), name());
  }
  // The sessions of `key` with end >= earliest_end and start <= latest_start (those that
  // overlap or touch [earliest_end, latest_start]), in end order (then start order).
  std::vector<KeyValue<Windowed<K>, V>> find_sessions(const K& key, Timestamp earliest_end,
                                                      Timestamp latest_start) {
    return collect(key, earliest_end, latest_start);
  }
  // Every session of `key`, in end order.
  std::vector<KeyValue<Windowed<K>, V>> fetch(const K& key) {
    return collect(key, Timestamp(0), internal::kMaxKeyTime);
  }

 private:
  std::string key_bytes(const K& key) {
    return internal::value_or_throw(key_serde_->serialize(key), name());
  }
  std::vector<KeyValue<Windowed<K>, V>> collect(const K& key, Timestamp earliest_end,
                                                Timestamp latest_start) {
    std::vector<KeyValue<Windowed<K>, V>> out;
    const auto k = key_bytes(key);
    internal::ok_or_throw(store_->scan(internal::session_key_range(k, earliest_end),
                                       [&](std::string_view sk, std::string_view v) {
                                         if (!internal::session_key_is(sk, k)) return true;
                                         const Window window = internal::session_key_window(sk);
                                         if (window.start > latest_start) return true;
                                         out.push_back({{key, window},
                                                        internal::value_or_throw(
                                                            value_serde_->deserialize(v), name())});
                                         return true;
                                       }),
                          name());
    return out;
  }

  internal::KeyValueBytesStore* store_;
  SerdePtr<K> key_serde_;
  SerdePtr<V> value_serde_;
};

namespace internal {

// The typed facades of `access`. Throw std::invalid_argument naming the store if it is not a
// window (session) store or holds other types.
template <class K, class V>
WindowStore<K, V> typed_window_store(const StoreAccess& access) {
  if (auto wrong = access.spec.kind_mismatch(StoreKind::kWindow); !wrong.empty()) {
    throw std::invalid_argument(wrong);
  }
  if (!access.spec.holds<K, V>()) throw std::invalid_argument(access.spec.mismatch<K, V>());
  return WindowStore<K, V>(access.store,
                           std::static_pointer_cast<const Serde<K>>(access.spec.key_serde),
                           std::static_pointer_cast<const Serde<V>>(access.spec.value_serde),
                           access.spec.window_size, access.spec.retain_duplicates);
}

template <class K, class V>
SessionStore<K, V> typed_session_store(const StoreAccess& access) {
  if (auto wrong = access.spec.kind_mismatch(StoreKind::kSession); !wrong.empty()) {
    throw std::invalid_argument(wrong);
  }
  if (!access.spec.holds<K, V>()) throw std::invalid_argument(access.spec.mismatch<K, V>());
  return SessionStore<K, V>(access.store,
                            std::static_pointer_cast<const Serde<K>>(access.spec.key_serde),
                            std::static_pointer_cast<const Serde<V>>(access.spec.value_serde));
}

}  // namespace internal
}  // namespace brook

// The processors behind tables and aggregations. Each keeps its table in a timestamped
// key-value store and forwards every change as Change{new, old}: right away, or when the
// record cache of its store flushes (then one change per key per flush). A change carries the
// headers of the record that caused it (with the cache: of the last one collapsed into it).
// Not for users.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "brook/internal/change.h"
#include "brook/processor.h"

namespace brook::internal {

// T for both T and std::optional<T>: the value type of a table built from either, the key
// type of a table joined by a stream with either.
template <class T>
using UnwrappedT = SerdeTargetT<T>;

// A table held in the store `store`, whose changes go to `context`'s children.
template <class K, class V>
class TableState {
 public:
  using Stored = ValueAndTimestamp<V>;

  void init(ProcessorContext<K, Change<V>>& context, const std::string& store) {
    context_ = &context;
    store_.emplace(context.template timestamped_key_value_store<K, V>(store));
    bytes_ = &store_access(context, store).store;
    cached_ = bytes_->set_flush_listener(
        [this](std::string_view key, std::optional<std::string_view> new_value,
               std::optional<std::string_view> old_value,
               const Headers& headers) { forward_flushed(key, new_value, old_value, headers); });
  }

  std::optional<Stored> get(const K& key) { return store_->get(key); }

  // Sets `key` to `value` (nullopt deletes it) at `timestamp` for a record with `headers`;
  // `old` is what get() returned.
  void put(const K& key, std::optional<V> value, Timestamp timestamp, std::optional<Stored> old,
           const Headers& headers) {
    {
      RecordHeadersScope record(*bytes_, headers);
      if (value) {
        store_->put(key, Stored{*value, timestamp});
      } else {
        if (!old) return;  // deleting what is not there changes nothing
        store_->remove(key);
      }
    }
    if (cached_) return;  // the cache forwards the change when it flushes
    std::optional<V> old_value;
    if (old) old_value = std::move(old->value);
    context_->forward(
        Record<K, Change<V>>{key, {std::move(value), std::move(old_value)}, timestamp, headers});
  }

 private:
  void forward_flushed(std::string_view key, std::optional<std::string_view> new_bytes,
                       std::optional<std::string_view> old_bytes, const Headers& headers) {
    auto decoded_key = value_or_throw(store_->key_serde().deserialize(key), store_->name());
    auto new_value = decode(new_bytes);
    auto old_value = decode(old_bytes);
    const Timestamp timestamp = new_value ? new_value->timestamp : context_->current_stream_time();
    Change<V> change;
    if (new_value) change.new_value = std::move(new_value->value);
    if (old_value) change.old_value = std::move(old_value->value);
    context_->forward(
        Record<K, Change<V>>{std::move(decoded_key), std::move(change), timestamp, headers});
  }
  std::optional<Stored> decode(std::optional<std::string_view> bytes) {
    if (!bytes) return std::nullopt;
    return value_or_throw(store_->value_serde().deserialize(*bytes), store_->name());
  }

  ProcessorContext<K, Change<V>>* context_ = nullptr;
  std::optional<TimestampedKeyValueStore<K, V>> store_;
  KeyValueBytesStore* bytes_ = nullptr;  // the same store, for the record's headers
  bool cached_ = false;
};

// A table from a stream of upserts: each record sets its key's value; with an optional value
// type, nullopt (a null on the topic) deletes the key.
template <class K, class VIn>
class TableSourceProcessor final : public Processor<K, VIn, K, Change<UnwrappedT<VIn>>> {
 public:
  using V = UnwrappedT<VIn>;
  explicit TableSourceProcessor(std::string store) : store_name_(std::move(store)) {}
  void init(ProcessorContext<K, Change<V>>& context) override {
    Processor<K, VIn, K, Change<V>>::init(context);
    state_.init(context, store_name_);
  }
  void process(Record<K, VIn> r) override {
    state_.put(r.key, std::optional<V>(std::move(r.value)), r.timestamp, state_.get(r.key),
               r.headers);
  }

 private:
  std::string store_name_;
  TableState<K, V> state_;
};

// Materialises a table that has no store of its own: each change's new value is written to
// the store (nullopt deletes the key) and passed on with the old value the store held.
template <class K, class V>
class TableMaterializeProcessor final : public Processor<K, Change<V>, K, Change<V>> {
 public:
  explicit TableMaterializeProcessor(std::string store) : store_name_(std::move(store)) {}
  void init(ProcessorContext<K, Change<V>>& context) override {
    Processor<K, Change<V>, K, Change<V>>::init(context);
    state_.init(context, store_name_);
  }
  void process(Record<K, Change<V>> r) override {
    state_.put(r.key, std::move(r.value.new_value), r.timestamp, state_.get(r.key), r.headers);
  }

 private:
  std::string store_name_;
  TableState<K, V> state_;
};

// An aggregation: f(key, value, current) -> the new aggregate, or nullopt to delete the row,
// where `current` is null for a key's first value. Over a grouped stream the value is a
// record's value; over a grouped table it is a Change, whose old value f subtracts and whose
// new value it adds. The result's timestamp is the largest of the records that built it.
template <class K, class VIn, class VA, class F>
class AggregateProcessor final : public Processor<K, VIn, K, Change<VA>> {
 public:
  AggregateProcessor(std::string store, F f) : store_name_(std::move(store)), f_(std::move(f)) {}
  void init(ProcessorContext<K, Change<VA>>& context) override {
    Processor<K, VIn, K, Change<VA>>::init(context);
    state_.init(context, store_name_);
  }
  void process(Record<K, VIn> r) override {
    auto old = state_.get(r.key);
    std::optional<VA> next = f_(r.key, r.value, old ? &old->value : nullptr);
    const Timestamp ts = old ? std::max(old->timestamp, r.timestamp) : r.timestamp;
    state_.put(r.key, std::move(next), ts, std::move(old), r.headers);
  }

 private:
  std::string store_name_;
  F f_;
  TableState<K, VA> state_;
};

}  // namespace brook::internal

// State stores as processors see them: typed key-value facades over a task's local store.
//
// A store belongs to one task (one partition of its sub-topology) and holds exactly the
// keys of that partition. Every call runs on the task's thread; the facade serialises keys
// and values with the store's serdes. Keys are ordered by their serialised bytes (as in
// Kafka Streams), so range() over integer keys follows their big-endian encoding.
//
// Failures of the store itself (a full disk, a corrupt file) throw brook::StoreError. The
// task stops on it, whatever the processing-error handler says: skipping a record whose
// state could not be written would lose data.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "brook/internal/bytes_store.h"
#include "brook/internal/coding.h"
#include "brook/record.h"
#include "brook/serde.h"

namespace brook {

enum class StoreType {
  kRocksDb,   // on local disk, survives restarts; restores only the changelog's tail
  kInMemory,  // an ordered map; restored from the whole changelog whenever its task starts
};

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace internal {
[[noreturn]] void throw_store_error(const std::string& store, const Status& status);

template <class T>
T value_or_throw(Result<T> result, const std::string& store) {
  if (!result) throw_store_error(store, result.error());
  return std::move(*result);
}
inline void ok_or_throw(const Status& status, const std::string& store) {
  if (!status.ok()) throw_store_error(store, status);
}
}  // namespace internal

// A key-value store of a task: a view of it with buffers of its own, cheap to copy; valid
// while its task runs.
template <class K, class V>
class KeyValueStore {
 public:
  KeyValueStore(internal::KeyValueBytesStore& store, SerdePtr<K> key_serde, SerdePtr<V> value_serde)
      : store_(&store), key_serde_(std::move(key_serde)), value_serde_(std::move(value_serde)) {}

  const std::string& name() const { return store_->name(); }
  const Serde<K>& key_serde() const { return *key_serde_; }
  const Serde<V>& value_serde() const { return *value_serde_; }

  // The value of `key`, or nullopt if it has none.
  std::optional<V> get(const K& key) {
    if (!internal::value_or_throw(store_->get_into(serialized_key(key), value_buffer_), name())) {
      return std::nullopt;
    }
    return decode_value(value_buffer_);
  }
  void put(const K& key, const V& value) {
    value_buffer_.clear();
    internal::ok_or_throw(value_serde_->serialize_into(value, value_buffer_), name());
    internal::ok_or_throw(store_->put(serialized_key(key), value_buffer_), name());
  }
  void remove(const K& key) { internal::ok_or_throw(store_->put(serialized_key(key), {}), name()); }

  // The entries with from <= key <= to (by serialised key), in key order.
  std::vector<KeyValue<K, V>> range(const K& from, const K& to) {
    return collect({.from = key_bytes(from), .to = key_bytes(to)});
  }
  std::vector<KeyValue<K, V>> all() { return collect({}); }
  std::int64_t approximate_num_entries() {
    return internal::value_or_throw(store_->approximate_count(), name());
  }

 private:
  std::string key_bytes(const K& key) {
    return internal::value_or_throw(key_serde_->serialize(key), name());
  }
  // `key`'s bytes in a buffer each call reuses: no allocation per get or put.
  std::string_view serialized_key(const K& key) {
    key_buffer_.clear();
    internal::ok_or_throw(key_serde_->serialize_into(key, key_buffer_), name());
    return key_buffer_;
  }
  V decode_value(std::string_view bytes) {
    return internal::value_or_throw(value_serde_->deserialize(bytes), name());
  }
  std::vector<KeyValue<K, V>> collect(const internal::KeyRange& range) {
    std::vector<KeyValue<K, V>> out;
    internal::ok_or_throw(
        store_->scan(range,
                     [&](std::string_view k, std::string_view v) {
                       out.push_back({internal::value_or_throw(key_serde_->deserialize(k), name()),
                                      decode_value(v)});
                       return true;
                     }),
        name());
    return out;
  }

  internal::KeyValueBytesStore* store_;
  SerdePtr<K> key_serde_;
  SerdePtr<V> value_serde_;
  std::string key_buffer_, value_buffer_;  // buffers of get() and put()
};

// A value and the timestamp of the record that last updated it.
template <class V>
struct ValueAndTimestamp {
  V value{};
  Timestamp timestamp{0};
  friend bool operator==(const ValueAndTimestamp&, const ValueAndTimestamp&) = default;
};

// Stores ValueAndTimestamp<V> as [8-byte big-endian timestamp][V's bytes], as Kafka Streams
// lays out timestamped stores.
template <class V>
class TimestampedSerde final : public Serde<ValueAndTimestamp<V>> {
 public:
  explicit TimestampedSerde(SerdePtr<V> inner) : inner_(std::move(inner)) {}
  // The serde of the value after the timestamp.
  const SerdePtr<V>& inner() const { return inner_; }
  std::string_view name() const override { return inner_->name(); }
  Result<std::string> serialize(const ValueAndTimestamp<V>& v) const override {
    return internal::serialize_by_appending<ValueAndTimestamp<V>>(*this, v);
  }
  Status serialize_into(const ValueAndTimestamp<V>& v, std::string& out) const override {
    internal::append_big_endian(out, static_cast<std::uint64_t>(v.timestamp.value()), 8);
    return inner_->serialize_into(v.value, out);
  }
  Result<ValueAndTimestamp<V>> deserialize(std::string_view bytes) const override {
    if (bytes.size() < 8) {
      return error(internal::too_few_bytes("timestamped", name(), "value", bytes.size(), 8));
    }
    const auto ts = internal::get_big_endian<std::int64_t>(bytes.data());
    auto value = inner_->deserialize(bytes.substr(8));
    if (!value) return error(std::move(value.error()));
    return ValueAndTimestamp<V>{std::move(*value), Timestamp(ts)};
  }

 private:
  SerdePtr<V> inner_;
};

template <class K, class V>
using TimestampedKeyValueStore = KeyValueStore<K, ValueAndTimestamp<V>>;

}  // namespace brook

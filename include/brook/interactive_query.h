// Interactive queries: read a running application's stores from any thread.
//
//   auto counts = app.store<std::string, std::int64_t>("counts");
//   if (counts) auto n = counts->get("alice");   // Result<std::optional<std::int64_t>>
//
// A view covers the store's tasks on this instance. get() asks the task that owns the key's
// partition (by the default partitioner over the serialised key, as the input was written).
// Each call returns a Status instead of an answer when it cannot give a correct one: the
// task is still restoring (kFailedPrecondition, with its progress), the key's partition is
// not on this instance (kNotFound), or the store failed. Reads see every write the task made,
// including those still in the record cache. Stores of tables and aggregations hold
// ValueAndTimestamp<V>: query them as <K, V> (timestamps dropped) or <K, ValueAndTimestamp<V>>.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "brook/internal/store_query.h"
#include "brook/record.h"
#include "brook/state_store.h"

namespace brook {

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

}  // namespace brook

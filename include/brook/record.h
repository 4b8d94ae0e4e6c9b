// Records: typed ones flow between processors; raw ones (bytes) cross the log boundary.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "brook/headers.h"
#include "brook/types.h"

namespace brook {

// A typed record inside a topology. Processors receive and forward these by value.
template <class K, class V>
struct Record {
  K key{};
  V value{};
  Timestamp timestamp{0};
  Headers headers;

  template <class V2>
  Record<K, V2> with_value(V2 v) const {
    return {key, std::move(v), timestamp, headers};
  }
  template <class K2>
  Record<K2, V> with_key(K2 k) const {
    return {std::move(k), value, timestamp, headers};
  }
  friend bool operator==(const Record&, const Record&) = default;
};

// A key/value pair, as returned by map and flat_map lambdas.
template <class K, class V>
struct KeyValue {
  K key;
  V value;
  friend bool operator==(const KeyValue&, const KeyValue&) = default;
};
template <class K, class V>
KeyValue(K, V) -> KeyValue<K, V>;

// Where the record being processed came from. Absent inside punctuations.
struct RecordMetadata {
  std::string topic;
  Partition partition;
  Offset offset;
};

// A record as read from a log: bytes, with its position. A null key or value is nullopt.
struct ConsumerRecord {
  std::string topic;
  Partition partition{0};
  Offset offset{0};
  Timestamp timestamp{0};
  std::optional<std::string> key;
  std::optional<std::string> value;
  Headers headers;
};

// A record to write to a log. No partition means: the backend's partitioner chooses.
struct ProducerRecord {
  std::string topic;
  std::optional<Partition> partition;
  Timestamp timestamp{0};
  std::optional<std::string> key;
  std::optional<std::string> value;
  Headers headers;
};

// A record on its way to a topic, viewing bytes that its sender keeps until the call taking it
// returns: sinks and changelogs hand these to the producer, which copies what it keeps, so a
// record costs no string per field on the way out.
struct OutgoingRecord {
  std::optional<Partition> partition;  // none: the backend's partitioner chooses
  Timestamp timestamp{0};
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  const Headers* headers = nullptr;  // none if null
};

// A view of `record`, valid while it is.
inline OutgoingRecord outgoing(const ProducerRecord& record) {
  return {.partition = record.partition,
          .timestamp = record.timestamp,
          .key = record.key,
          .value = record.value,
          .headers = &record.headers};
}

// An owned copy of `record`, for `topic`.
inline ProducerRecord to_producer_record(std::string topic, const OutgoingRecord& record) {
  return {.topic = std::move(topic),
          .partition = record.partition,
          .timestamp = record.timestamp,
          .key = std::optional<std::string>(record.key),
          .value = std::optional<std::string>(record.value),
          .headers = record.headers ? *record.headers : Headers()};
}

}  // namespace brook

// TopologyTestDriver: runs a Topology in the calling thread, deterministically, with no log
// and no threads. Records piped into input topics are processed at once, in timestamp order
// per task, by the same task code the real runtime runs; records written to output topics
// wait in memory to be read. Output written to a topic the topology also reads is fed back
// in. Wall-clock time is a mock clock moved only by advance_wall_clock_time().
//
// State stores are real (RocksDB ones in a temporary directory removed with the driver). The
// driver commits after every piped record, so record caches flush at once and table updates
// appear immediately; changelog records land in output_queue("<app>-<store>-changelog").
// Repartition topics are fed back in, so multi-phase topologies run whole.
//
// Not thread-safe. A task that stops with an error (ErrorAction::kFail) makes the piping
// call throw TaskFailed; the driver is unusable afterwards.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "brook/error_handling.h"
#include "brook/internal/store_spec.h"
#include "brook/metrics.h"
#include "brook/record.h"
#include "brook/serde.h"
#include "brook/state_store.h"
#include "brook/topology.h"
#include "brook/window_store.h"

namespace brook::testing {

struct TestDriverConfig {
  std::string application_id = "brook-test";
  Timestamp wall_clock_start{0};
  ErrorHandling errors;
  // As the Streams key stream.time.idle.advance.ms: once a task has had nothing to process
  // for this long by the mock clock, advance_wall_clock_time() moves its stream time along.
  std::optional<std::chrono::milliseconds> stream_time_idle_advance;
};

class TaskFailed : public std::runtime_error {
 public:
  explicit TaskFailed(Status status)
      : std::runtime_error(status.to_string()), status_(std::move(status)) {}
  const Status& status() const { return status_; }

 private:
  Status status_;
};

template <class K, class V>
class TestInputTopic;
template <class K, class V>
class TestOutputTopic;

class TopologyTestDriver {
 public:
  // Throws TaskFailed if the configuration is invalid or a node fails to initialise.
  explicit TopologyTestDriver(const Topology& topology, TestDriverConfig config = {});
  ~TopologyTestDriver();
  TopologyTestDriver(const TopologyTestDriver&) = delete;
  TopologyTestDriver& operator=(const TopologyTestDriver&) = delete;

  // Null serdes mean: the type's DefaultSerde. Throws std::invalid_argument if there is none.
  template <class K, class V>
  TestInputTopic<K, V> create_input_topic(std::string topic,
                                          SerdePtr<SerdeTargetT<K>> key_serde = nullptr,
                                          SerdePtr<SerdeTargetT<V>> value_serde = nullptr);
  template <class K, class V>
  TestOutputTopic<K, V> create_output_topic(std::string topic,
                                            SerdePtr<SerdeTargetT<K>> key_serde = nullptr,
                                            SerdePtr<SerdeTargetT<V>> value_serde = nullptr);

  // Appends a record of bytes to `topic` (a source topic of the topology) and processes it
  // and everything it causes. Throws std::invalid_argument for a topic no source reads.
  void pipe_raw_input(const std::string& topic, std::optional<std::string> key,
                      std::optional<std::string> value, Timestamp timestamp, Headers headers = {});

  // Moves the mock clock forward and fires the wall-clock punctuations that became due (and,
  // with stream_time_idle_advance, advances the stream time of idle tasks and fires the
  // stream-time punctuations that became due).
  void advance_wall_clock_time(std::chrono::milliseconds by);
  Timestamp wall_clock_time() const;

  const Metrics& metrics() const;
  // Records written to `topic` and not read yet, oldest first.
  std::deque<ProducerRecord>& output_queue(const std::string& topic);
  // Every topic something was written to.
  std::vector<std::string> output_topics() const;

  // The store `name` (of any task), typed as declared; throws std::invalid_argument if there is
  // no such store or its types differ. Stores of tables and aggregations hold
  // ValueAndTimestamp<V>: use timestamped_key_value_store<K, V>().
  template <class K, class V>
  KeyValueStore<K, V> key_value_store(std::string_view name) {
    return internal::typed_store<K, V>(state_store(name));
  }
  template <class K, class V>
  TimestampedKeyValueStore<K, V> timestamped_key_value_store(std::string_view name) {
    return key_value_store<K, ValueAndTimestamp<V>>(name);
  }

  // The window (session) store `name`, as key_value_store(); windowed aggregations hold
  // ValueAndTimestamp<V>: use WindowStore<K, ValueAndTimestamp<V>>.
  template <class K, class V>
  WindowStore<K, V> window_store(std::string_view name) {
    return internal::typed_window_store<K, V>(state_store(name));
  }
  template <class K, class V>
  TimestampedWindowStore<K, V> timestamped_window_store(std::string_view name) {
    return window_store<K, ValueAndTimestamp<V>>(name);
  }
  template <class K, class V>
  SessionStore<K, V> session_store(std::string_view name) {
    return internal::typed_session_store<K, V>(state_store(name));
  }

 private:
  internal::StoreAccess state_store(std::string_view name);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads the serde of T for a test topic: the given one, else the default, else throws.
template <class T>
SerdePtr<SerdeTargetT<T>> serde_or_default(SerdePtr<SerdeTargetT<T>> given,
                                           const std::string& topic) {
  if (given) return given;
  if (auto serde = default_serde<T>()) return serde;
  throw std::invalid_argument("test topic " + topic + ": no default serde for type " +
                              internal::type_name<SerdeTargetT<T>>() +
                              " (a type with to_json/from_json: include brook/json_serde.h)");
}

template <class K, class V>
class TestInputTopic {
 public:
  TestInputTopic(TopologyTestDriver& driver, std::string topic, SerdePtr<SerdeTargetT<K>> key_serde,
                 SerdePtr<SerdeTargetT<V>> value_serde)
      : driver_(&driver),
        topic_(std::move(topic)),
        key_serde_(serde_or_default<K>(std::move(key_serde), topic_)),
        value_serde_(serde_or_default<V>(std::move(value_serde), topic_)) {}

  void pipe_input(const K& key, const V& value, Timestamp timestamp, Headers headers = {}) {
    driver_->pipe_raw_input(topic_, encode_or_throw<K>(*key_serde_, key),
                            encode_or_throw<V>(*value_serde_, value), timestamp,
                            std::move(headers));
  }
  // Uses the topic's current time, then advances it by the auto-advance step.
  void pipe_input(const K& key, const V& value) { pipe_input(key, value, next_time()); }
  // A record with a null key.
  void pipe_value(const V& value, std::optional<Timestamp> timestamp = std::nullopt) {
    driver_->pipe_raw_input(topic_, std::nullopt, encode_or_throw<V>(*value_serde_, value),
                            timestamp ? *timestamp : next_time());
  }
  void pipe_key_value_list(const std::vector<KeyValue<K, V>>& records) {
    for (const auto& kv : records) pipe_input(kv.key, kv.value);
  }
  // Sets the time of the next record without a timestamp, and the step after each one.
  void set_time(Timestamp start, std::chrono::milliseconds auto_advance = {}) {
    current_time_ = start;
    auto_advance_ = auto_advance;
  }

 private:
  template <class T>
  static std::optional<std::string> encode_or_throw(const Serde<SerdeTargetT<T>>& serde,
                                                    const T& value) {
    auto bytes = encode<T>(serde, value);
    if (!bytes) throw std::invalid_argument(bytes.error().to_string());
    return std::move(*bytes);
  }
  Timestamp next_time() {
    const Timestamp t = current_time_;
    current_time_ = current_time_ + auto_advance_;
    return t;
  }

  TopologyTestDriver* driver_;
  std::string topic_;
  SerdePtr<SerdeTargetT<K>> key_serde_;
  SerdePtr<SerdeTargetT<V>> value_serde_;
  Timestamp current_time_{0};
  std::chrono::milliseconds auto_advance_{0};
};

template <class K, class V>
class TestOutputTopic {
 public:
  TestOutputTopic(TopologyTestDriver& driver, std::string topic,
                  SerdePtr<SerdeTargetT<K>> key_serde, SerdePtr<SerdeTargetT<V>> value_serde)
      : driver_(&driver),
        topic_(std::move(topic)),
        key_serde_(serde_or_default<K>(std::move(key_serde), topic_)),
        value_serde_(serde_or_default<V>(std::move(value_serde), topic_)) {}

  bool is_empty() const { return queue().empty(); }
  std::size_t queue_size() const { return queue().size(); }

  // The oldest unread record. Throws std::out_of_range if there is none and
  // std::runtime_error if its bytes do not decode with this topic's serdes.
  Record<K, V> read_record() {
    auto& q = queue();
    if (q.empty()) throw std::out_of_range("test output topic " + topic_ + " is empty");
    ProducerRecord raw = std::move(q.front());
    q.pop_front();
    auto key = decode<K>(*key_serde_, raw.key);
    if (!key) throw std::runtime_error("topic " + topic_ + ": " + key.error().to_string());
    auto value = decode<V>(*value_serde_, raw.value);
    if (!value) throw std::runtime_error("topic " + topic_ + ": " + value.error().to_string());
    return {std::move(*key), std::move(*value), raw.timestamp, std::move(raw.headers)};
  }
  V read_value() { return read_record().value; }
  KeyValue<K, V> read_key_value() {
    auto r = read_record();
    return {std::move(r.key), std::move(r.value)};
  }
  std::vector<Record<K, V>> read_records_to_list() {
    return drain([this] { return read_record(); });
  }
  std::vector<V> read_values_to_list() {
    return drain([this] { return read_value(); });
  }
  std::vector<KeyValue<K, V>> read_key_values_to_list() {
    return drain([this] { return read_key_value(); });
  }

 private:
  std::deque<ProducerRecord>& queue() const { return driver_->output_queue(topic_); }
  template <class F>
  auto drain(F read_one) {
    std::vector<decltype(read_one())> out;
    while (!is_empty()) out.push_back(read_one());
    return out;
  }

  TopologyTestDriver* driver_;
  std::string topic_;
  SerdePtr<SerdeTargetT<K>> key_serde_;
  SerdePtr<SerdeTargetT<V>> value_serde_;
};

template <class K, class V>
TestInputTopic<K, V> TopologyTestDriver::create_input_topic(std::string topic,
                                                            SerdePtr<SerdeTargetT<K>> key_serde,
                                                            SerdePtr<SerdeTargetT<V>> value_serde) {
  return TestInputTopic<K, V>(*this, std::move(topic), std::move(key_serde),
                              std::move(value_serde));
}

template <class K, class V>
TestOutputTopic<K, V> TopologyTestDriver::create_output_topic(
    std::string topic, SerdePtr<SerdeTargetT<K>> key_serde, SerdePtr<SerdeTargetT<V>> value_serde) {
  return TestOutputTopic<K, V>(*this, std::move(topic), std::move(key_serde),
                               std::move(value_serde));
}

}  // namespace brook::testing

// Runtime nodes: the instances a task wires together from a Topology. Not for users.
//
// A task owns one instance of every node of its sub-topology. Typed records travel between
// them by direct calls (no serialisation per hop): a node with output types <K, V> holds
// pointers to children of type InputNode<K, V>.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "brook/internal/partitioner.h"
#include "brook/internal/store_spec.h"
#include "brook/processor.h"
#include "brook/record.h"
#include "brook/serde.h"
#include "brook/status.h"
#include "brook/timestamps.h"
#include "brook/windowed.h"

namespace brook::internal {

// What a node needs from the task that runs it. Implemented by the runtime.
class TaskContext {
 public:
  virtual ~TaskContext() = default;
  virtual std::optional<RecordMetadata> record_metadata() const = 0;
  virtual Timestamp stream_time() const = 0;
  virtual Timestamp system_time() const = 0;
  virtual TaskId task_id() const = 0;
  virtual std::string_view application_id() const = 0;
  // Exceptions thrown by `punctuator` are reported against `node`.
  virtual Cancellable schedule(std::string_view node, std::chrono::milliseconds interval,
                               PunctuationType type, Punctuator punctuator) = 0;
  // Source nodes: the largest valid timestamp accepted so far from the input partition of the
  // record being read (Timestamp::min() before the first).
  virtual Timestamp partition_time() const = 0;
  // Source nodes, once they extracted `timestamp` from the record being read and before they
  // forward it: applies `on_invalid` if it is negative, then advances the partition time and
  // the stream time. Returns the timestamp the record carries downstream, or nullopt if the
  // source must drop it (kSkip; or the task stops with an error once process_raw() returns).
  virtual std::optional<Timestamp> accept_timestamp(Timestamp timestamp,
                                                    InvalidTimestamp on_invalid) = 0;
  // Counts the record being processed as dropped by `node` on purpose (dropped-records) and
  // logs `reason`, rate-limited.
  virtual void drop_record(std::string_view node, std::string_view reason) = 0;
  // Hands a serialised record for `topic` to the task's record collector (sink nodes); its
  // bytes are copied before this returns.
  virtual void send(const std::string& topic, const OutgoingRecord& record) = 0;
  // The partition count of `topic` (sink nodes that choose a record's partition); kNotFound
  // for an unknown topic.
  virtual Result<std::int32_t> partitions(const std::string& topic) = 0;
  // The store `store` of this task, which must be connected to `node`; throws
  // std::invalid_argument naming both otherwise.
  virtual StoreAccess state_store(std::string_view node, std::string_view store) = 0;
};

// Thrown through the node graph when code running inside `node` failed. The task catches it
// at its boundary and hands it to the processing-error handler.
class NodeError : public std::runtime_error {
 public:
  NodeError(std::string node, const std::string& what)
      : std::runtime_error(what), node_(std::move(node)) {}
  const std::string& node() const { return node_; }

 private:
  std::string node_;
};

class Node {
 public:
  explicit Node(std::string name) : name_(std::move(name)) {}
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  const std::string& name() const { return name_; }
  virtual void init(TaskContext& task) { task_ = &task; }
  virtual void close() {}
  // Connects `child` downstream of this node. False if it cannot take this node's output.
  virtual bool add_child(Node& /*child*/) { return false; }

 protected:
  TaskContext& task() { return *task_; }

 private:
  std::string name_;
  TaskContext* task_ = nullptr;
};

template <class K, class V>
class InputNode : public Node {
 public:
  using Node::Node;
  // Takes the record over: callers pass it on with std::move (one record, no copies per hop).
  virtual void process(Record<K, V>&& record) = 0;
};

// Throws the std::invalid_argument of a forward() to `child`, which is not a child.
[[noreturn]] void no_such_child(std::string_view child);

// The typed children of a node and how records reach them.
template <class K, class V>
class Children {
 public:
  bool add(Node& child) {
    auto* typed = dynamic_cast<InputNode<K, V>*>(&child);
    if (typed != nullptr) nodes_.push_back(typed);
    return typed != nullptr;
  }
  void forward(Record<K, V>&& record) {
    if (nodes_.empty()) return;
    for (std::size_t i = 0; i + 1 < nodes_.size(); ++i) nodes_[i]->process(Record<K, V>(record));
    nodes_.back()->process(std::move(record));
  }
  void forward(Record<K, V>&& record, std::string_view child) {
    for (auto* node : nodes_) {
      if (node->name() == child) return node->process(std::move(record));
    }
    no_such_child(child);
  }

 private:
  std::vector<InputNode<K, V>*> nodes_;
};

// Called in a catch block: rethrows a NodeError or StoreError (not the node's fault: the task
// stops) as it is, and any other exception as a NodeError naming `node`.
[[noreturn]] void rethrow_in_node(const std::string& node);

// Runs `fn` and returns what it returns, turning any exception other than a NodeError or
// StoreError into a NodeError naming `node`.
template <class Fn>
decltype(auto) run_in_node(const std::string& node, Fn&& fn) {
  try {
    return fn();
  } catch (...) {
    rethrow_in_node(node);
  }
}

// A node that runs a user or DSL Processor and is its ProcessorContext.
template <class KIn, class VIn, class KOut, class VOut>
class ProcessorNode final : public InputNode<KIn, VIn>, public ProcessorContext<KOut, VOut> {
 public:
  ProcessorNode(std::string name, std::unique_ptr<Processor<KIn, VIn, KOut, VOut>> processor)
      : InputNode<KIn, VIn>(std::move(name)),
        ProcessorContext<KOut, VOut>(Node::name()),
        processor_(std::move(processor)) {}

  void init(TaskContext& task) override {
    Node::init(task);
    this->attach(task);
    run_in_node(this->name(), [&] { processor_->init(*this); });
  }
  void close() override {
    run_in_node(this->name(), [&] { processor_->close(); });
  }
  bool add_child(Node& child) override { return children_.add(child); }

  void process(Record<KIn, VIn>&& record) override {
    run_in_node(this->name(), [&] { processor_->process(std::move(record)); });
  }

  // ProcessorContext
  void forward(Record<KOut, VOut> record) override { children_.forward(std::move(record)); }
  void forward(Record<KOut, VOut> record, std::string_view child) override {
    children_.forward(std::move(record), child);
  }

 private:
  std::unique_ptr<Processor<KIn, VIn, KOut, VOut>> processor_;
  Children<KOut, VOut> children_;
};

// A record of a source topic as read: its key, value and headers belong to the reader, which
// keeps them for the duration of the call it passes them to.
struct SourceRecord {
  std::string_view topic;
  Partition partition;
  Offset offset;
  Timestamp timestamp;
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  const Headers& headers;
};

// The error of source `node` that could not deserialize the `what` ("key", "value") of `raw`.
Status cannot_deserialize(const std::string& node, const SourceRecord& raw, std::string_view what,
                          const Status& cause);
// The full name of the internal topic `topic` of application `application_id`:
// "<application.id>-<topic>".
std::string internal_topic_name(std::string_view application_id, std::string_view topic);
// Throws the NodeError of sink `node`: `what` went wrong, because of `cause` if given.
[[noreturn]] void sink_failed(const std::string& node, std::string_view what, const Status* cause);

// The entry of a sub-topology: turns bytes from its topics into typed records.
class SourceNodeBase : public Node {
 public:
  using Node::Node;
  // Deserialises `record`, settles its timestamp (TaskContext::accept_timestamp()) and
  // forwards it, unless the task says to drop it. A non-ok Status means the bytes were
  // malformed and nothing was forwarded; exceptions from the timestamp extractor and
  // downstream nodes propagate as NodeError.
  virtual Status process_raw(const SourceRecord& record) = 0;
};

// What a source does with a record whose key is null: reads it (as std::nullopt, or a
// value-initialised K), or drops it before deserialising anything, counted in dropped-records
// and logged (TaskContext::drop_record): a table's source, as a table row needs a key.
enum class NullKeys { kRead, kDrop };

// Where a source takes its records' timestamps from (see Consumed).
template <class K, class V>
struct SourceTimestamps {
  TimestampExtractor<K, V> extractor;  // null: the log's timestamp
  bool wall_clock = false;             // the task's system time instead
  InvalidTimestamp on_invalid = InvalidTimestamp::kFail;
};

template <class K, class V>
class SourceNode final : public SourceNodeBase {
 public:
  SourceNode(std::string name, SerdePtr<SerdeTargetT<K>> key_serde,
             SerdePtr<SerdeTargetT<V>> value_serde, SourceTimestamps<K, V> timestamps = {},
             NullKeys null_keys = NullKeys::kRead)
      : SourceNodeBase(std::move(name)),
        key_serde_(std::move(key_serde)),
        value_serde_(std::move(value_serde)),
        timestamps_(std::move(timestamps)),
        null_keys_(null_keys) {}

  bool add_child(Node& child) override { return children_.add(child); }

  Status process_raw(const SourceRecord& raw) override {
    if (null_keys_ == NullKeys::kDrop && !raw.key) {
      task().drop_record(name(), "its key is null, and a table row needs a key");
      return {};
    }
    auto key = decode<K>(*key_serde_, raw.key);
    if (!key) return describe(raw, "key", key.error());
    auto value = decode<V>(*value_serde_, raw.value);
    if (!value) return describe(raw, "value", value.error());
    Record<K, V> record{std::move(*key), std::move(*value), raw.timestamp, raw.headers};
    Timestamp extracted = raw.timestamp;
    if (timestamps_.wall_clock) {
      extracted = task().system_time();
    } else if (timestamps_.extractor) {
      run_in_node(name(), [&] {
        extracted = timestamps_.extractor(std::as_const(record), task().partition_time());
      });
    }
    auto accepted = task().accept_timestamp(extracted, timestamps_.on_invalid);
    if (!accepted) return {};
    record.timestamp = *accepted;
    children_.forward(std::move(record));
    return {};
  }

 private:
  Status describe(const SourceRecord& raw, std::string_view what, const Status& cause) {
    return cannot_deserialize(name(), raw, what, cause);
  }

  SerdePtr<SerdeTargetT<K>> key_serde_;
  SerdePtr<SerdeTargetT<V>> value_serde_;
  SourceTimestamps<K, V> timestamps_;
  NullKeys null_keys_;
  Children<K, V> children_;
};

// A sink's key serde if it says where a windowed key's own key ends (the sink then partitions
// by that alone), else null; std::nullptr_t for keys that are not windowed.
template <class K>
std::nullptr_t windowed_key_serde(const Serde<K>&) {
  return nullptr;
}
template <class K>
const WindowedSerde<K>* windowed_key_serde(const Serde<Windowed<K>>& serde) {
  return dynamic_cast<const WindowedSerde<K>*>(&serde);
}

// Chooses the topic of each record for a sink with a dynamic destination.
template <class K, class V>
using TopicNameExtractor = std::function<std::string(const Record<K, V>&)>;

// The partition of the output topic a record goes to (empty function: the key's).
template <class K, class V>
using RecordPartitioner = std::function<Partition(const Record<K, V>&)>;

// The name of an internal topic of the application: a sink writes <application.id>-<name>.
struct InternalTopic {
  std::string name;
};

// The exit of a sub-topology: serialises records and hands them to the task's collector.
template <class K, class V>
class SinkNode final : public InputNode<K, V> {
 public:
  // A sink writing each record to `topic`, or to the topic `extract_topic` names if it is set.
  SinkNode(std::string name, std::string topic, TopicNameExtractor<K, V> extract_topic,
           SerdePtr<SerdeTargetT<K>> key_serde, SerdePtr<SerdeTargetT<V>> value_serde)
      : InputNode<K, V>(std::move(name)),
        topic_(std::move(topic)),
        extract_topic_(std::move(extract_topic)),
        key_serde_(std::move(key_serde)),
        value_serde_(std::move(value_serde)),
        windowed_(windowed_key_serde(*key_serde_)) {}
  // A sink writing an internal topic, each record to the partition `partition_of` picks (if
  // given).
  SinkNode(std::string name, InternalTopic topic, SerdePtr<SerdeTargetT<K>> key_serde,
           SerdePtr<SerdeTargetT<V>> value_serde, RecordPartitioner<K, V> partition_of = {})
      : SinkNode(std::move(name), std::string(), TopicNameExtractor<K, V>(), std::move(key_serde),
                 std::move(value_serde)) {
    internal_topic_ = std::move(topic.name);
    partition_of_ = std::move(partition_of);
  }

  void init(TaskContext& task) override {
    Node::init(task);
    if (!internal_topic_.empty())
      topic_ = internal_topic_name(task.application_id(), internal_topic_);
  }

  void process(Record<K, V>&& record) override {
    const std::string* topic = &topic_;
    std::string extracted;
    if (extract_topic_) {
      run_in_node(this->name(), [&] { extracted = extract_topic_(record); });
      if (extracted.empty()) fail("the topic name extractor returned an empty topic");
      topic = &extracted;
    }
    OutgoingRecord out{.timestamp = record.timestamp, .headers = &record.headers};
    if (partition_of_) out.partition = partition_of_(record);
    // Views of the record's own bytes (strings) or of this sink's buffers: no allocation.
    const auto key = encode_view<K>(*key_serde_, record.key, key_buffer_);
    if (!key) fail("cannot serialize key", &key.error());
    const auto value = encode_view<V>(*value_serde_, record.value, value_buffer_);
    if (!value) fail("cannot serialize value", &value.error());
    out.key = *key;
    out.value = *value;
    if constexpr (!std::is_null_pointer_v<WindowedKeySerde>) {
      if (windowed_ != nullptr && out.key) partition_by_base_key(*topic, out);
    }
    this->task().send(*topic, out);
  }

 private:
  [[noreturn]] void fail(std::string_view what, const Status* cause = nullptr) {
    sink_failed(this->name(), what, cause);
  }
  // The partition the default partitioner gives the windowed key's own key. An unknown topic
  // is left to the send, which reports it.
  void partition_by_base_key(const std::string& topic, OutgoingRecord& out) {
    auto partitions = this->task().partitions(topic);
    if (!partitions) return;
    out.partition = partition_for_key(windowed_->base_key(*out.key), *partitions);
  }

  std::string topic_;  // fixed, or the internal topic's full name once initialised
  TopicNameExtractor<K, V> extract_topic_;
  std::string internal_topic_;
  RecordPartitioner<K, V> partition_of_;
  SerdePtr<SerdeTargetT<K>> key_serde_;
  SerdePtr<SerdeTargetT<V>> value_serde_;
  std::string key_buffer_, value_buffer_;  // what the serdes write, reused record after record
  using WindowedKeySerde =
      decltype(windowed_key_serde(std::declval<const Serde<SerdeTargetT<K>>&>()));
  WindowedKeySerde windowed_;
};

}  // namespace brook::internal

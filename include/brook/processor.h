// The Processor API: write a node of the topology by hand.
//
// A Processor receives typed records one at a time on its task's thread and forwards any
// number of records to its children through the ProcessorContext. Brook creates one
// processor instance per task (see ProcessorSupplier) and calls, in order: init() once,
// process() per record and punctuator callbacks interleaved, close() once. No call is
// concurrent with another on the same instance. An exception thrown from process() or a
// punctuator goes to the processing-error handler of the application.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "brook/internal/store_spec.h"
#include "brook/record.h"
#include "brook/state_store.h"
#include "brook/types.h"
#include "brook/window_store.h"

namespace brook {

enum class PunctuationType {
  kStreamTime,     // fires as the task's stream time passes each interval (needs new records)
  kWallClockTime,  // fires from the poll loop as the system clock passes each interval
};

using Punctuator = std::function<void(Timestamp now)>;

// A handle to a scheduled punctuation. cancel() stops it; destroying the handle does not.
class Cancellable {
 public:
  Cancellable() = default;
  explicit Cancellable(std::shared_ptr<bool> cancelled) : cancelled_(std::move(cancelled)) {}
  void cancel() {
    if (cancelled_) *cancelled_ = true;
  }

 private:
  std::shared_ptr<bool> cancelled_;
};

class ProcessorContextBase;

namespace internal {
class TaskContext;
// The untyped store `name` of the node whose context this is, for the DSL's processors (users
// call key_value_store() and its siblings). Throws std::invalid_argument if the node has no
// store of that name.
StoreAccess store_access(ProcessorContextBase& context, std::string_view name);
}  // namespace internal

// What a processor's context offers besides forwarding. It does not depend on the types a
// node forwards, so the library implements it once; ProcessorContext<KOut, VOut> adds
// forward().
class ProcessorContextBase {
 public:
  // Calls `punctuator` every `interval`. Stream-time punctuations are aligned to multiples of
  // the interval and fire once per jump of stream time, however many intervals it skipped.
  Cancellable schedule(std::chrono::milliseconds interval, PunctuationType type,
                       Punctuator punctuator);

  // Topic, partition and offset of the record being processed; nullopt in a punctuation.
  std::optional<RecordMetadata> record_metadata() const;
  // The largest timestamp this task has processed (Timestamp::min() before the first).
  Timestamp current_stream_time() const;
  // The task's view of the system clock (the test driver's mock clock in tests).
  Timestamp current_system_time() const;
  TaskId task_id() const;
  std::string_view application_id() const;
  // Drops the record being processed on purpose (a late event, say): counts it in the task's
  // dropped-records metric and logs `reason` with where the record came from, rate-limited.
  void drop_record(std::string_view reason);

  // The task's instance of the store `name`, typed. The store must be connected to this node
  // (Processed{.stores}) and declared with exactly these key and value types; otherwise this
  // throws std::invalid_argument naming the store. Call it in init() and keep the result.
  template <class K, class V>
  KeyValueStore<K, V> key_value_store(std::string_view name) {
    return internal::typed_store<K, V>(state_store(name));
  }
  template <class K, class V>
  TimestampedKeyValueStore<K, V> timestamped_key_value_store(std::string_view name) {
    return key_value_store<K, ValueAndTimestamp<V>>(name);
  }

  // The task's instance of the window store `name` (declared as a window store with these
  // types; otherwise std::invalid_argument naming the store). Stores of windowed aggregations
  // hold ValueAndTimestamp<V>: use timestamped_window_store<K, V>().
  template <class K, class V>
  WindowStore<K, V> window_store(std::string_view name) {
    return internal::typed_window_store<K, V>(state_store(name));
  }
  template <class K, class V>
  TimestampedWindowStore<K, V> timestamped_window_store(std::string_view name) {
    return window_store<K, ValueAndTimestamp<V>>(name);
  }
  // The task's instance of the session store `name`, as window_store().
  template <class K, class V>
  SessionStore<K, V> session_store(std::string_view name) {
    return internal::typed_session_store<K, V>(state_store(name));
  }

 protected:
  // The context of the node named `node` (a string that outlives it), in the task given to
  // attach() before any other call.
  explicit ProcessorContextBase(const std::string& node) : node_(node) {}
  ~ProcessorContextBase() = default;
  ProcessorContextBase(const ProcessorContextBase&) = delete;
  ProcessorContextBase& operator=(const ProcessorContextBase&) = delete;
  void attach(internal::TaskContext& task) { task_ = &task; }

 private:
  friend internal::StoreAccess internal::store_access(ProcessorContextBase&, std::string_view);
  // The untyped store behind key_value_store(); throws std::invalid_argument if this node has
  // no store of that name.
  internal::StoreAccess state_store(std::string_view name);

  const std::string& node_;
  internal::TaskContext* task_ = nullptr;
};

template <class KOut, class VOut>
class ProcessorContext : public ProcessorContextBase {
 public:
  // Sends a record to every child of this node, in the order the children were added.
  virtual void forward(Record<KOut, VOut> record) = 0;
  // Sends a record to the child with this name only. Throws std::invalid_argument if this
  // node has no such child.
  virtual void forward(Record<KOut, VOut> record, std::string_view child) = 0;

 protected:
  using ProcessorContextBase::ProcessorContextBase;
  ~ProcessorContext() = default;
};

template <class KIn, class VIn, class KOut, class VOut>
class Processor {
 public:
  using KeyIn = KIn;
  using ValueIn = VIn;
  using KeyOut = KOut;
  using ValueOut = VOut;
  virtual ~Processor() = default;
  // `context` stays valid until close() returns.
  virtual void init(ProcessorContext<KOut, VOut>& context) { context_ = &context; }
  virtual void process(Record<KIn, VIn> record) = 0;
  virtual void close() {}

 protected:
  ProcessorContext<KOut, VOut>& context() { return *context_; }

 private:
  ProcessorContext<KOut, VOut>* context_ = nullptr;
};

// Makes a fresh processor for each task. Must return a new instance on every call.
template <class KIn, class VIn, class KOut, class VOut>
using ProcessorSupplier = std::function<std::unique_ptr<Processor<KIn, VIn, KOut, VOut>>()>;

}  // namespace brook

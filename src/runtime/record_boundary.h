// Where a task, or the global thread, hands a source record to its nodes, and what happens
// there when the record cannot be processed as it is (SEMANTICS.md, error handling): a
// malformed record or a failing node goes to the error policy (fail, log and continue, or the
// dead-letter topic with the error headers), an invalid timestamp to Consumed's
// InvalidTimestamp, and a record a node drops on purpose is counted and logged. Each with its
// counter (stream-task-metrics) and rate-limited log lines. One per task and one for the
// global thread, which differ only in their name and what they can write to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "brook/error_handling.h"
#include "brook/internal/node.h"
#include "brook/metrics.h"

namespace brook::internal {

class RecordCollector;

// The name of the stream-task-metrics counter `name` of task `task_id` ("0_1", "global").
MetricName task_metric(std::string_view name, std::string_view task_id);

// A non-ok Status if `errors` is unusable, naming what is missing.
Status validate(const ErrorHandling& errors);

class RecordBoundary {
 public:
  // `who` names the boundary in messages ("task 0_1", "global thread"); its counters carry the
  // tag task-id=`metrics_id`. Dead letters go to `dead_letters`; without one (null) they are
  // logged and dropped.
  RecordBoundary(std::string who, std::string_view metrics_id, ErrorHandling errors,
                 RecordCollector* dead_letters, Metrics& metrics);

  const std::string& who() const { return who_; }
  const ErrorHandling& errors() const { return errors_; }
  // The record process() is running through the nodes; null outside (a punctuation, a flush).
  const SourceRecord* current() const { return current_; }

  // Runs `record` through `source` and the nodes below it. A non-ok Status means: stop (a
  // handler said kFail, an invalid timestamp said so, or a store failed).
  Status process(SourceNodeBase& source, const SourceRecord& record);
  // Runs `fn` (a punctuation, a flush) outside any record: a failing node goes to the
  // processing-error handler (no dead letter: there is no record), a failing store stops.
  template <class Fn>
  Status run_outside_record(Fn fn) {
    try {
      fn();
    } catch (const NodeError& e) {
      return processing_error(e, nullptr);
    } catch (const StoreError& e) {
      return store_failed(e);
    }
    return {};
  }

  // TaskContext::accept_timestamp() for current(), whose partition's time is `partition_time`
  // (Timestamp::min() if unknown): the timestamp to use, or nullopt to drop the record; an
  // InvalidTimestamp that says stop makes process() return the reason. Only during process().
  std::optional<Timestamp> accept_timestamp(Timestamp timestamp, InvalidTimestamp on_invalid,
                                            Timestamp partition_time);
  // TaskContext::drop_record(): `node` dropped current() (none: in a punctuation) on purpose.
  void drop_record(std::string_view node, std::string_view reason);

 private:
  Status processing_error(const NodeError& e, const SourceRecord* record);
  Status store_failed(const StoreError& e);
  Status handle_error(std::string_view kind, ErrorAction action, const std::string& node,
                      const std::string& message, const SourceRecord* record);

  std::string who_;
  ErrorHandling errors_;
  RecordCollector* dead_letters_;
  const SourceRecord* current_ = nullptr;           // during process()
  const SourceNodeBase* current_source_ = nullptr;  // its source
  Status timestamp_error_;                          // set by accept_timestamp() to stop
  std::int64_t invalid_timestamps_ = 0;  // skipped for their timestamp, for rate-limited logging
  std::int64_t handled_errors_ = 0;      // skipped or dead-lettered, for rate-limited logging
  std::int64_t dropped_by_nodes_ = 0;    // drop_record() calls, for rate-limited logging

  Metrics::Counter& processed_;
  Metrics::Counter& deserialization_errors_;
  Metrics::Counter& processing_errors_;
  Metrics::Counter& dropped_;
  Metrics::Counter& dead_lettered_;
};

}  // namespace brook::internal

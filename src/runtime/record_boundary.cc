#include "runtime/record_boundary.h"

#include <fmt/format.h>

#include <utility>

#include "backend/record_batch.h"
#include "core/log.h"
#include "runtime/stream_task.h"

namespace brook::internal {
namespace {

std::string_view action_name(ErrorAction action) {
  switch (action) {
    case ErrorAction::kFail: return "fail";
    case ErrorAction::kLogAndContinue: return "log-and-continue";
    case ErrorAction::kDeadLetter: return "dead-letter";
  }
  return "?";
}

// "<topic>-<partition>@<offset>", or "a punctuation" without a record.
std::string position(const SourceRecord* record) {
  if (record == nullptr) return "a punctuation";
  return fmt::format("{}-{}@{}", record->topic, record->partition.value(), record->offset.value());
}

}  // namespace

MetricName task_metric(std::string_view name, std::string_view task_id) {
  return {.group = "stream-task-metrics",
          .name = std::string(name),
          .tags = {{"task-id", std::string(task_id)}}};
}

Status validate(const ErrorHandling& errors) {
  const bool dead_letter = errors.on_deserialization_error == ErrorAction::kDeadLetter ||
                           errors.on_processing_error == ErrorAction::kDeadLetter;
  if (dead_letter && errors.dead_letter_topic.empty()) {
    return Status::invalid_argument(
        "error handling: ErrorAction::kDeadLetter needs ErrorHandling::dead_letter_topic");
  }
  if (errors.on_production_error == ErrorAction::kDeadLetter) {
    return Status::invalid_argument(
        "error handling: production errors can fail or log-and-continue, not dead-letter");
  }
  return {};
}

RecordBoundary::RecordBoundary(std::string who, std::string_view metrics_id, ErrorHandling errors,
                               RecordCollector* dead_letters, Metrics& metrics)
    : who_(std::move(who)),
      errors_(std::move(errors)),
      dead_letters_(dead_letters),
      processed_(metrics.counter(task_metric("process-total", metrics_id))),
      deserialization_errors_(
          metrics.counter(task_metric("deserialization-errors-total", metrics_id))),
      processing_errors_(metrics.counter(task_metric("processing-errors-total", metrics_id))),
      dropped_(metrics.counter(task_metric("dropped-records-total", metrics_id))),
      dead_lettered_(metrics.counter(task_metric("dead-letter-records-total", metrics_id))) {}

Status RecordBoundary::process(SourceNodeBase& source, const SourceRecord& record) {
  ++processed_;
  current_ = &record;
  current_source_ = &source;
  Status outcome;
  try {
    Status read = source.process_raw(record);
    if (!read.ok()) {
      ++deserialization_errors_;
      outcome = handle_error("deserialization", errors_.on_deserialization_error, source.name(),
                             read.message(), &record);
    }
  } catch (const NodeError& e) {
    outcome = processing_error(e, &record);
  } catch (const StoreError& e) {
    outcome = store_failed(e);
  }
  current_ = nullptr;
  current_source_ = nullptr;
  if (!timestamp_error_.ok()) {  // the source dropped the record and returned ok
    outcome = std::exchange(timestamp_error_, Status());
  }
  return outcome;
}

std::optional<Timestamp> RecordBoundary::accept_timestamp(Timestamp timestamp,
                                                          InvalidTimestamp on_invalid,
                                                          Timestamp partition_time) {
  if (timestamp.value() >= 0) return timestamp;
  const std::string what =
      fmt::format("invalid timestamp {} of record {} (source {})", timestamp.value(),
                  position(current_), current_source_->name());
  switch (on_invalid) {
    case InvalidTimestamp::kSkip:
      ++dropped_;
      if (worth_logging(++invalid_timestamps_)) {
        log(LogLevel::kWarn, "{}: dropped the record with an {} (InvalidTimestamp::kSkip, #{}{})",
            who_, what, invalid_timestamps_, rate_limit_note(invalid_timestamps_));
      }
      return std::nullopt;
    case InvalidTimestamp::kUsePartitionTime:
      if (partition_time != Timestamp::min()) return partition_time;
      timestamp_error_ =
          Status::invalid_argument(fmt::format("{}: {}, and no partition time yet to use instead "
                                               "(InvalidTimestamp::kUsePartitionTime)",
                                               who_, what));
      return std::nullopt;
    case InvalidTimestamp::kFail:
      timestamp_error_ =
          Status::invalid_argument(fmt::format("{}: {} (InvalidTimestamp::kFail)", who_, what));
      return std::nullopt;
  }
  return std::nullopt;
}

void RecordBoundary::drop_record(std::string_view node, std::string_view reason) {
  ++dropped_;
  if (!worth_logging(++dropped_by_nodes_)) return;
  log(LogLevel::kWarn, "{}: node {} dropped the record from {} (drop #{}{}): {}", who_, node,
      position(current_), dropped_by_nodes_, rate_limit_note(dropped_by_nodes_), reason);
}

Status RecordBoundary::processing_error(const NodeError& e, const SourceRecord* record) {
  ++processing_errors_;
  return handle_error("processing", errors_.on_processing_error, e.node(), e.what(), record);
}

Status RecordBoundary::store_failed(const StoreError& e) {
  return Status::io_error(fmt::format("{}: {}", who_, e.what()));
}

Status RecordBoundary::handle_error(std::string_view kind, ErrorAction action,
                                    const std::string& node, const std::string& message,
                                    const SourceRecord* record) {
  const std::string where = position(record);
  if (action == ErrorAction::kFail) {
    return Status::invalid_argument(
        fmt::format("{}: {} error in node {} at {}: {}", who_, kind, node, where, message));
  }
  if (worth_logging(++handled_errors_)) {
    log(LogLevel::kWarn, "{}: {} error in node {} at {} ({}, error #{}{}): {}", who_, kind, node,
        where, action_name(action), handled_errors_, rate_limit_note(handled_errors_), message);
  }
  if (action == ErrorAction::kDeadLetter && record != nullptr && dead_letters_ != nullptr) {
    ProducerRecord dead{.topic = errors_.dead_letter_topic,
                        .timestamp = record->timestamp,
                        .key = owned(record->key),
                        .value = owned(record->value),
                        .headers = record->headers};
    dead.headers.add(std::string(kErrorKindHeader), std::string(kind));
    dead.headers.add(std::string(kErrorMessageHeader), message);
    dead.headers.add(std::string(kErrorNodeHeader), node);
    dead.headers.add(std::string(kErrorTopicHeader), std::string(record->topic));
    dead.headers.add(std::string(kErrorPartitionHeader), std::to_string(record->partition.value()));
    dead.headers.add(std::string(kErrorOffsetHeader), std::to_string(record->offset.value()));
    dead_letters_->send(dead.topic, outgoing(dead));
    ++dead_lettered_;
  } else {
    ++dropped_;
  }
  return {};
}

}  // namespace brook::internal

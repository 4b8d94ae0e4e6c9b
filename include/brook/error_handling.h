// What happens to a record that cannot be read or whose processing throws.
//
// Bad input never crashes the application silently and is never lost silently: every
// failure is logged and counted in Metrics, and with kDeadLetter the original record (its
// bytes, unchanged) is written to the dead-letter topic with the reason in its headers:
//   __brook.errors.kind       "deserialization" | "processing"
//   __brook.errors.message    what was wrong
//   __brook.errors.node       the node at fault
//   __brook.errors.topic / .partition / .offset   where the record was read
#pragma once

#include <string>
#include <string_view>

namespace brook {

enum class ErrorAction {
  kFail,            // stop the task with an error (the default, as in Kafka Streams)
  kLogAndContinue,  // log, count, skip the record
  kDeadLetter,      // log, count, write the record to ErrorHandling::dead_letter_topic
};

struct ErrorHandling {
  ErrorAction on_deserialization_error = ErrorAction::kFail;
  // Exceptions thrown by user code (processors, lambdas, punctuators) and failed
  // serialisation at sinks. A failed punctuation has no record: kDeadLetter logs and counts.
  ErrorAction on_processing_error = ErrorAction::kFail;
  std::string dead_letter_topic;  // required if either action is kDeadLetter
  // A record the log refuses: an unknown topic or partition, a record too large, and (at
  // least once) a write the cluster failed after retries. kFail or kLogAndContinue (the
  // record is dropped, logged and counted in dropped-records-total). Under exactly_once_v2
  // a failed write aborts the transaction whatever this says.
  ErrorAction on_production_error = ErrorAction::kFail;
};

inline constexpr std::string_view kErrorKindHeader = "__brook.errors.kind";
inline constexpr std::string_view kErrorMessageHeader = "__brook.errors.message";
inline constexpr std::string_view kErrorNodeHeader = "__brook.errors.node";
inline constexpr std::string_view kErrorTopicHeader = "__brook.errors.topic";
inline constexpr std::string_view kErrorPartitionHeader = "__brook.errors.partition";
inline constexpr std::string_view kErrorOffsetHeader = "__brook.errors.offset";

}  // namespace brook

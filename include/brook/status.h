// Status and Result<T>: how every I/O and runtime path in Brook reports failure.
//
// A Status is either ok() or carries a code and a message that names what was wrong
// (the serde, node, topic or config key at fault). Result<T> is std::expected<T, Status>.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <utility>

namespace brook {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // bad input from a caller: config, topology, record bytes
  kNotFound,            // an unknown topic, store, node or key
  kAlreadyExists,       // a duplicate name
  kCorruption,          // data that cannot be decoded
  kIoError,             // the operating system or a backend failed
  kFailedPrecondition,  // the object is not in a state that allows the call
  kInternal,            // a bug in Brook
  kTaskMigrated,        // the task's partitions moved to another instance (or its producer was
                        // fenced): its uncommitted work is dropped and the group rejoined
  kUnavailable,         // no correct answer right now (a rebalance, a restoration): retry later
  kDeadlineExceeded,    // a wait ended before what it waited for happened
};

// Returns the name of a code, e.g. "InvalidArgument".
std::string_view to_string(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok_status() { return {}; }
  static Status invalid_argument(std::string m) {
    return {StatusCode::kInvalidArgument, std::move(m)};
  }
  static Status not_found(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status already_exists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status io_error(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status failed_precondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
  static Status task_migrated(std::string m) { return {StatusCode::kTaskMigrated, std::move(m)}; }
  static Status unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status deadline_exceeded(std::string m) {
    return {StatusCode::kDeadlineExceeded, std::move(m)};
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "InvalidArgument: <message>", or "OK".
  std::string to_string() const;

  friend bool operator==(const Status&, const Status&) = default;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <class T>
using Result = std::expected<T, Status>;

// Prints `status` to stderr as "brook: <status>" and returns 1: `return brook::report(s);` in
// main().
int report(const Status& status);

// Wraps a non-ok Status for returning from a function that yields Result<T>.
inline std::unexpected<Status> error(Status status) { return std::unexpected(std::move(status)); }

}  // namespace brook

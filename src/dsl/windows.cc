// What makes windows invalid (brook/windows.h).
#include "brook/windows.h"

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace brook {
namespace {

// "<windows>: the <what> must be positive", or the grace period must not be negative.
Status validate_length_and_grace(std::string_view windows, std::string_view what,
                                 std::chrono::milliseconds length,
                                 std::chrono::milliseconds grace) {
  if (length.count() <= 0) {
    return Status::invalid_argument(
        fmt::format("{}: the {} must be positive, got {} ms", windows, what, length.count()));
  }
  if (grace.count() < 0) {
    return Status::invalid_argument(fmt::format(
        "{}: the grace period must not be negative, got {} ms", windows, grace.count()));
  }
  return {};
}

}  // namespace

Status TimeWindows::validate() const {
  if (size_.count() <= 0) return invalid("the window size must be positive", size_);
  if (advance_.count() <= 0 || advance_ > size_) {
    return invalid("the advance must be positive and at most the size " +
                       std::to_string(size_.count()) + " ms",
                   advance_);
  }
  if (grace_.count() < 0) return invalid("the grace period must not be negative", grace_);
  return {};
}

Status SlidingWindows::validate() const {
  return validate_length_and_grace("SlidingWindows", "time difference", difference_, grace_);
}

Status SessionWindows::validate() const {
  return validate_length_and_grace("SessionWindows", "inactivity gap", gap_, grace_);
}

Status JoinWindows::validate() const {
  if (size().count() < 0) {
    return Status::invalid_argument("JoinWindows: before + after must not be negative, got " +
                                    std::to_string(before_.count()) + " + " +
                                    std::to_string(after_.count()) + " ms");
  }
  if (grace_.count() < 0) {
    return Status::invalid_argument("JoinWindows: the grace period must not be negative, got " +
                                    std::to_string(grace_.count()) + " ms");
  }
  return {};
}

Status TimeWindows::invalid(const std::string& what, std::chrono::milliseconds got) {
  return Status::invalid_argument("TimeWindows: " + what + ", got " + std::to_string(got.count()) +
                                  " ms");
}

}  // namespace brook

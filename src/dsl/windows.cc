// What makes windows invalid (brook/windows.h).
#include "brook/windows.h"

#include <string>

namespace brook {

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
  if (difference_.count() <= 0) {
    return Status::invalid_argument("SlidingWindows: the time difference must be positive, got " +
                                    std::to_string(difference_.count()) + " ms");
  }
  if (grace_.count() < 0) {
    return Status::invalid_argument("SlidingWindows: the grace period must not be negative, got " +
                                    std::to_string(grace_.count()) + " ms");
  }
  return {};
}

Status SessionWindows::validate() const {
  if (gap_.count() <= 0) {
    return Status::invalid_argument("SessionWindows: the inactivity gap must be positive, got " +
                                    std::to_string(gap_.count()) + " ms");
  }
  if (grace_.count() < 0) {
    return Status::invalid_argument("SessionWindows: the grace period must not be negative, got " +
                                    std::to_string(grace_.count()) + " ms");
  }
  return {};
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

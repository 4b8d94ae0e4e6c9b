#include "brook/internal/windowed_aggregate.h"

#include <fmt/format.h>

namespace brook::internal {

std::string too_late(Timestamp record, Timestamp close, Timestamp now) {
  return fmt::format(
      "record at {} is too late: its windows closed at {} (stream time {} minus the grace period)",
      record.value(), close.value(), now.value());
}

std::string too_late_for(Timestamp record, const Window& window, Timestamp close, Timestamp now) {
  return fmt::format(
      "record at {} is too late for its window [{}, {}): windows ending by {} are closed (stream "
      "time {} minus the grace period)",
      record.value(), window.start.value(), window.end.value(), close.value(), now.value());
}

}  // namespace brook::internal

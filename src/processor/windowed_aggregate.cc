#include "brook/internal/windowed_aggregate.h"

#include <fmt/format.h>

namespace brook::internal {

std::string too_late(Timestamp record, Timestamp close, Timestamp now) {
  return fmt::format(
      "record at {} is too late: its windows closed at {} (stream time {} minus the grace period)",
      record.value(), close.value(), now.value());
}

}  // namespace brook::internal

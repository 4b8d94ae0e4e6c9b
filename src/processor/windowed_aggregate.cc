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

WindowKeySplit window_key_split(std::chrono::milliseconds size) {
  return [size](std::string_view bytes) {
    const Timestamp start = window_key_start(bytes);
    return std::pair(window_key_key(bytes), Window{start, start + size});
  };
}

WindowKeySplit session_key_split() {
  return [](std::string_view bytes) {
    return std::pair(session_key_key(bytes), session_key_window(bytes));
  };
}

std::optional<std::string_view> timestamped_value(std::optional<std::string_view> stored,
                                                  const std::string& store) {
  if (!stored) return std::nullopt;
  if (stored->size() < 8) {
    throw_store_error(
        store, Status::corruption(
                   fmt::format("timestamped value of {} bytes, needs at least 8", stored->size())));
  }
  return stored->substr(8);
}

}  // namespace brook::internal

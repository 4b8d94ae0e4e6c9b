// The wall clock, as the library stamps records, events and announcements with it.
#pragma once

#include <chrono>
#include <cstdint>

#include "brook/types.h"

namespace brook::internal {

// Milliseconds since the Unix epoch.
inline std::int64_t wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline Timestamp wall_clock() { return Timestamp(wall_clock_ms()); }

}  // namespace brook::internal

// wk(key, start, seq): the window-store key of `key` in the window starting at `start` (ms).
// Shared by Brook's own tests (not installed).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "brook/internal/window_keys.h"

namespace brook::testing {

inline std::string wk(std::string_view key, std::int64_t start, std::uint32_t seq = 0) {
  return internal::window_key(key, Timestamp(start), seq);
}

}  // namespace brook::testing

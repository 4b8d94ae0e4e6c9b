// Durations in milliseconds, the unit of the demo's event times.
#pragma once

#include <cstdint>

namespace brook::demo {

inline constexpr std::int64_t kSecond = 1'000;
inline constexpr std::int64_t kMinute = 60 * kSecond;
inline constexpr std::int64_t kHour = 60 * kMinute;
inline constexpr std::int64_t kDay = 24 * kHour;

}  // namespace brook::demo

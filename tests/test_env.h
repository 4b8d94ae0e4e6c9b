// Settings a test reads from its environment (campaign lengths, seeds).
#pragma once

#include <cstdint>
#include <cstdlib>

namespace brook::testing {

// The integer in environment variable `name`, or `fallback` if it is not set.
inline std::int64_t env_or(const char* name, std::int64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::atoll(value) : fallback;
}

}  // namespace brook::testing

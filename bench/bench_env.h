// The benchmarks' parameters from the environment.
#pragma once

#include <cstdint>
#include <cstdlib>

namespace brook::bench {

// The integer in environment variable `name`, else (unset or empty) `fallback`.
inline std::int64_t env_or(const char* name, std::int64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::atoll(value) : fallback;
}

}  // namespace brook::bench

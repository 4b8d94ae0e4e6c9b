// The embedded log of a benchmark's data directory (for benchmarks that use Brook's internals).
#pragma once

#include <chrono>
#include <memory>

#include "backend/embedded/embedded_log.h"
#include "state_workload.h"

namespace brook::bench {

// The embedded log in `dir`, without background maintenance.
inline std::unique_ptr<internal::EmbeddedLog> open_log(const BenchDir& dir) {
  return std::move(*internal::open_embedded_log(
      {.data_dir = dir.path(), .maintenance_interval = std::chrono::milliseconds(0)}));
}

}  // namespace brook::bench

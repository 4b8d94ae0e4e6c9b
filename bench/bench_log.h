// The embedded log of a benchmark's data directory (for benchmarks that use Brook's internals).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "backend/embedded/embedded_log.h"
#include "state_workload.h"

namespace brook::bench {

// The embedded log in `dir`, without background maintenance.
inline std::unique_ptr<internal::EmbeddedLog> open_log(const BenchDir& dir) {
  return std::move(*internal::open_embedded_log(
      {.data_dir = dir.path(), .maintenance_interval = std::chrono::milliseconds(0)}));
}

// A benchmark's data directory: a scratch directory whose embedded log `fill` writes once, when
// the BenchData is made (untimed), and which lives as long as it.
class BenchData {
 public:
  BenchData(const std::string& name, const std::function<void(internal::EmbeddedLog&)>& fill)
      : dir_(name) {
    fill(*open());
  }
  const std::filesystem::path& dir() const { return dir_.path(); }
  std::unique_ptr<internal::EmbeddedLog> open() const { return open_log(dir_); }
  // Deletes `topic` and creates it anew, empty, with one partition.
  void recreate(const std::string& topic) const {
    auto log = open();
    (void)log->admin().delete_topic(topic);
    (void)log->admin().create_topic({topic, 1});
  }

 private:
  BenchDir dir_;
};

}  // namespace brook::bench

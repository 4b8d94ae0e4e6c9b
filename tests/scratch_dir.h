// ScratchDir: a fresh, empty directory for one test, removed when the object goes away.
// Shared by Brook's own tests (not installed).
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <string_view>

namespace brook::testing {

class ScratchDir {
 public:
  // <system temp dir>/<prefix>-<pid>-<n>, unique within the process.
  explicit ScratchDir(std::string_view prefix) {
    static std::atomic<int> counter{0};
    path_ =
        std::filesystem::temp_directory_path() /
        (std::string(prefix) + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace brook::testing

// Capturing the lines Brook logs (core/log.h) in tests. Shared by Brook's own tests (not
// installed).
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/log.h"

namespace brook::testing {

// While alive, the lines Brook logs at or above its log level (BROOK_LOG_LEVEL, default
// info) are kept here instead of going to stderr. One at a time.
class LogCapture {
 public:
  LogCapture() {
    previous_ = internal::set_log_sink([this](internal::LogLevel level, std::string_view line) {
      std::lock_guard lock(mutex_);
      lines_.emplace_back(level, line);
    });
  }
  ~LogCapture() { internal::set_log_sink(std::move(previous_)); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  // The messages logged at `level` so far, in order.
  std::vector<std::string> at(internal::LogLevel level) const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [l, line] : lines_) {
      if (l == level) out.push_back(line);
    }
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<internal::LogLevel, std::string>> lines_;
  internal::LogSink previous_;
};

}  // namespace brook::testing

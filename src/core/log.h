// A minimal logger for Brook's own messages: one line to stderr per event.
// BROOK_LOG_LEVEL=debug|info|warn|error (default info) selects what is printed.
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace brook::internal {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

bool log_enabled(LogLevel level);
void log_line(LogLevel level, std::string_view message);

template <class... Args>
void log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (log_enabled(level)) log_line(level, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace brook::internal

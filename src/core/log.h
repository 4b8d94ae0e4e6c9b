// A minimal logger for Brook's own messages: one line to stderr per event.
// BROOK_LOG_LEVEL=debug|info|warn|error (default info) selects what is printed.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <string_view>

namespace brook::internal {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

bool log_enabled(LogLevel level);
void log_line(LogLevel level, std::string_view message);

// Where log lines go: to stderr, or while a sink is set (a test capturing what Brook logs) to
// the sink. Returns the sink replaced (empty: stderr). Thread-safe; the sink is called with a
// lock held, so it must not log itself.
using LogSink = std::function<void(LogLevel level, std::string_view message)>;
LogSink set_log_sink(LogSink sink);

// Repeated errors are rate-limited so a flood of bad records cannot flood the log (metrics
// count them all): the first 10 occurrences are logged, then every 1000th.
bool worth_logging(std::int64_t occurrence);
// "; from now on only every 1000th is logged" at the last occurrence logged in full, else "".
std::string_view rate_limit_note(std::int64_t occurrence);

template <class... Args>
void log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (log_enabled(level)) log_line(level, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace brook::internal

#include "core/log.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>

namespace brook::internal {
namespace {

LogLevel configured_level() {
  const char* env = std::getenv("BROOK_LOG_LEVEL");
  const std::string level = env ? env : "info";
  if (level == "debug") return LogLevel::kDebug;
  if (level == "warn") return LogLevel::kWarn;
  if (level == "error") return LogLevel::kError;
  return LogLevel::kInfo;
}

std::string_view label(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "DEBUG";
    case LogLevel::kInfo: return "INFO";
    case LogLevel::kWarn: return "WARN";
    case LogLevel::kError: return "ERROR";
  }
  return "?";
}

std::mutex& sink_mutex() {
  static std::mutex mutex;
  return mutex;
}

LogSink& sink() {
  static LogSink sink;
  return sink;
}

}  // namespace

bool log_enabled(LogLevel level) {
  static const LogLevel kThreshold = configured_level();
  return level >= kThreshold;
}

constexpr std::int64_t kLoggedInFull = 10;
constexpr std::int64_t kLogInterval = 1000;

bool worth_logging(std::int64_t occurrence) {
  return occurrence <= kLoggedInFull || occurrence % kLogInterval == 0;
}

std::string_view rate_limit_note(std::int64_t occurrence) {
  return occurrence == kLoggedInFull ? "; from now on only every 1000th is logged" : "";
}

LogSink set_log_sink(LogSink replacement) {
  std::lock_guard lock(sink_mutex());
  return std::exchange(sink(), std::move(replacement));
}

void log_line(LogLevel level, std::string_view message) {
  std::lock_guard lock(sink_mutex());
  if (sink()) {
    sink()(level, message);
    return;
  }
  std::fprintf(stderr, "brook %s %.*s\n", label(level).data(), static_cast<int>(message.size()),
               message.data());
}

}  // namespace brook::internal

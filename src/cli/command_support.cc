#include "cli/command_support.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

namespace brook::cli {

int usage_error(std::string_view command, const Status& problem) {
  const std::string prefix = command.empty() ? "brook" : fmt::format("brook {}", command);
  fmt::print(stderr, "{}: {}\nTry '{} --help'.\n", prefix, problem.message(), prefix);
  return kExitUsage;
}

int print_help(std::string_view text) {
  fmt::print("{}", text);
  return kExitOk;
}

Result<std::unique_ptr<internal::EmbeddedLog>> open_data_dir(const ParsedArgs& args, bool create) {
  const std::filesystem::path dir = args.value_or("data-dir", std::string(kDefaultDataDir));
  std::error_code ec;
  if (!create && !std::filesystem::is_directory(dir, ec)) {
    return error(Status::not_found(
        fmt::format("data dir {} does not exist (brook topics create makes it)", dir.string())));
  }
  // A short-lived command: no background retention or compaction.
  auto log = internal::open_embedded_log(
      {.data_dir = dir, .maintenance_interval = std::chrono::milliseconds(0)});
  if (!log) return error(log.error());
  return std::move(*log);
}

}  // namespace brook::cli

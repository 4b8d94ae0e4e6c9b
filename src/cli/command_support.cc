#include "cli/command_support.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "backend/open_backend.h"

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

Status check_log_choice(const ParsedArgs& args, std::string_view prefix) {
  const std::string data_dir = fmt::format("{}data-dir", prefix);
  const std::string servers = fmt::format("{}bootstrap-servers", prefix);
  if (args.has(data_dir) && args.has(servers)) {
    return Status::invalid_argument(
        fmt::format("--{} and --{} name two logs: give one (the embedded data dir or a Kafka "
                    "cluster)",
                    data_dir, servers));
  }
  if (args.has(servers) && args.value_or(servers, "").empty()) {
    return Status::invalid_argument(fmt::format("--{} must not be empty", servers));
  }
  return {};
}

Result<std::unique_ptr<internal::LogBackend>> open_log(const ParsedArgs& args, bool create_dir,
                                                       std::string_view prefix) {
  // The parser refuses an empty --bootstrap-servers: empty means none given.
  const std::string servers =
      args.value_or(fmt::format("{}bootstrap-servers", prefix), std::string());
  const std::filesystem::path dir =
      args.value_or(fmt::format("{}data-dir", prefix), std::string(kDefaultDataDir));
  std::error_code ec;
  if (servers.empty() && !create_dir && !std::filesystem::is_directory(dir, ec)) {
    return error(Status::not_found(
        fmt::format("data dir {} does not exist (brook topics create makes it)", dir.string())));
  }
  // A short-lived command: no background retention or compaction.
  return internal::open_backend(
      {.bootstrap_servers = servers},
      {.data_dir = dir, .maintenance_interval = std::chrono::milliseconds(0)});
}

}  // namespace brook::cli

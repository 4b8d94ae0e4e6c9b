#include "cli/command_support.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "backend/embedded/embedded_log.h"
#include "backend/kafka/kafka_backend.h"

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

namespace {

Result<std::unique_ptr<internal::LogBackend>> open_data_dir(const std::filesystem::path& dir,
                                                            bool create_dir) {
  std::error_code ec;
  if (!create_dir && !std::filesystem::is_directory(dir, ec)) {
    return error(Status::not_found(
        fmt::format("data dir {} does not exist (brook topics create makes it)", dir.string())));
  }
  // A short-lived command: no background retention or compaction.
  auto log = internal::open_embedded_log(
      {.data_dir = dir, .maintenance_interval = std::chrono::milliseconds(0)});
  if (!log) return error(log.error());
  return std::unique_ptr<internal::LogBackend>(std::move(*log));
}

}  // namespace

Result<std::unique_ptr<internal::LogBackend>> open_log(const ParsedArgs& args, bool create_dir,
                                                       std::string_view prefix) {
  if (auto servers = args.value(fmt::format("{}bootstrap-servers", prefix))) {
    return internal::open_kafka_backend({.bootstrap_servers = *servers});
  }
  return open_data_dir(
      args.value_or(fmt::format("{}data-dir", prefix), std::string(kDefaultDataDir)), create_dir);
}

}  // namespace brook::cli

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

Status check_log_choice(const ParsedArgs& args) {
  if (args.has("data-dir") && args.has("bootstrap-servers")) {
    return Status::invalid_argument(
        "--data-dir and --bootstrap-servers name two logs: give one (the embedded data dir or "
        "a Kafka cluster)");
  }
  if (args.has("bootstrap-servers") && args.value_or("bootstrap-servers", "").empty()) {
    return Status::invalid_argument("--bootstrap-servers must not be empty");
  }
  return {};
}

namespace {

Result<std::unique_ptr<internal::LogBackend>> open_data_dir(const ParsedArgs& args,
                                                            bool create_dir) {
  const std::filesystem::path dir = args.value_or("data-dir", std::string(kDefaultDataDir));
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

Result<std::unique_ptr<internal::LogBackend>> open_log(const ParsedArgs& args, bool create_dir) {
  if (auto servers = args.value("bootstrap-servers")) {
    return internal::open_kafka_backend({.bootstrap_servers = *servers});
  }
  return open_data_dir(args, create_dir);
}

}  // namespace brook::cli

// The commands of the `brook` tool. Each takes the arguments after its command words and
// returns the process exit code (cli/command_support.h: 0 ok, 1 log error, 2 usage error).
#pragma once

#include <span>
#include <string>

namespace brook::cli {

// `brook topics list|create|describe|delete ...`: args after "topics".
int run_topics(std::span<const std::string> args);
// `brook produce TOPIC ...`: args after "produce".
int run_produce(std::span<const std::string> args);
// `brook consume TOPIC ...`: args after "consume".
int run_consume(std::span<const std::string> args);
// `brook groups list|describe ...`: args after "groups".
int run_groups(std::span<const std::string> args);
// `brook app reset|describe ...`: args after "app".
int run_app_command(std::span<const std::string> args);
// `brook cdc postgres ...`: args after "cdc".
int run_cdc(std::span<const std::string> args);

}  // namespace brook::cli

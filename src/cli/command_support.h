// What every `brook` command shares: exit codes, the options that choose the log (--data-dir
// or --bootstrap-servers), opening it, and how usage errors and help are printed.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "backend/log_backend.h"
#include "brook/status.h"
#include "cli/args.h"

namespace brook::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;  // the log refused: unknown topic, locked data dir, ...
inline constexpr int kExitUsage = 2;  // bad command line

// Every command works on one log: an embedded data dir (the default) or a Kafka cluster.
inline constexpr OptionSpec kDataDirOption{.name = "data-dir", .takes_value = true};
inline constexpr OptionSpec kBootstrapServersOption{.name = "bootstrap-servers",
                                                    .takes_value = true};
inline constexpr std::string_view kDefaultDataDir = "./brook-data";

// Prints "brook <command>: <problem>" and a hint to run `brook <command> --help` to stderr;
// returns kExitUsage.
int usage_error(std::string_view command, const Status& problem);

// Prints `text` to stdout; returns kExitOk.
int print_help(std::string_view text);

// OK unless the command line names two logs (--data-dir and --bootstrap-servers) or an empty
// --bootstrap-servers: kInvalidArgument saying so. With a `prefix`, of the options
// --<prefix>data-dir and --<prefix>bootstrap-servers (a second log).
Status check_log_choice(const ParsedArgs& args, std::string_view prefix = "");

// Opens the log the command line names: the Kafka cluster of --bootstrap-servers (kIoError
// naming it if it does not answer), else the data dir of --data-dir (default ./brook-data);
// with a `prefix`, of --<prefix>bootstrap-servers and --<prefix>data-dir. Unless `create_dir`
// is set the data dir must exist: kNotFound otherwise, so a mistyped path is not silently
// created. kFailedPrecondition if another process holds it.
Result<std::unique_ptr<internal::LogBackend>> open_log(const ParsedArgs& args, bool create_dir,
                                                       std::string_view prefix = "");

// Every command's shape: --help prints `usage`; otherwise parse `args` with `specs`, turn them
// into options with `make_options` (Result<Options>; an error is a usage error, as is naming
// two logs), open the log, run `body(log, options)` (Status; an error is printed). Returns the
// exit code.
template <class MakeOptions, class Body>
int run_command(std::string_view command, std::string_view usage, std::span<const std::string> args,
                std::span<const OptionSpec> specs, bool create_dir, MakeOptions make_options,
                Body body) {
  if (wants_help(args)) return print_help(usage);
  auto parsed = parse_args(args, specs);
  if (!parsed) return usage_error(command, parsed.error());
  if (auto s = check_log_choice(*parsed); !s.ok()) return usage_error(command, s);
  auto options = make_options(*parsed);
  if (!options) return usage_error(command, options.error());
  auto log = open_log(*parsed, create_dir);
  if (!log) return report(log.error());
  if (auto s = body(**log, *options); !s.ok()) return report(s);
  return kExitOk;
}

// run_command()'s `make_options` for commands whose options are their positionals: the parsed
// arguments themselves, once they hold between `required` and all of `names`.
inline auto positionals(std::span<const std::string_view> names, std::size_t required) {
  return [names, required](const ParsedArgs& parsed) -> Result<ParsedArgs> {
    if (auto s = check_positionals(parsed, names, required); !s.ok()) return error(s);
    return parsed;
  };
}

// "1 record", "2 records".
inline std::string count_of(std::int64_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

}  // namespace brook::cli

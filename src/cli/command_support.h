// What every `brook` command shares: exit codes, the --data-dir option, opening the data dir,
// and how usage errors and help are printed.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "backend/embedded/embedded_log.h"
#include "brook/status.h"
#include "cli/args.h"

namespace brook::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;  // the log refused: unknown topic, locked data dir, ...
inline constexpr int kExitUsage = 2;  // bad command line

inline constexpr OptionSpec kDataDirOption{.name = "data-dir", .takes_value = true};
inline constexpr std::string_view kDefaultDataDir = "./brook-data";

// Prints "brook <command>: <problem>" and a hint to run `brook <command> --help` to stderr;
// returns kExitUsage.
int usage_error(std::string_view command, const Status& problem);

// Prints `text` to stdout; returns kExitOk.
int print_help(std::string_view text);

// Opens the data dir named by --data-dir (default ./brook-data). Unless `create` is set the
// directory must exist: kNotFound otherwise, so a mistyped path is not silently created.
// kFailedPrecondition if another process holds it.
Result<std::unique_ptr<internal::EmbeddedLog>> open_data_dir(const ParsedArgs& args, bool create);

// Every command's shape: --help prints `usage`; otherwise parse `args` with `specs`, turn them
// into options with `make_options` (Result<Options>; an error is a usage error), open the
// data dir, run `body(log, options)` (Status; an error is printed). Returns the exit code.
template <class MakeOptions, class Body>
int run_command(std::string_view command, std::string_view usage, std::span<const std::string> args,
                std::span<const OptionSpec> specs, bool create_dir, MakeOptions make_options,
                Body body) {
  if (wants_help(args)) return print_help(usage);
  auto parsed = parse_args(args, specs);
  if (!parsed) return usage_error(command, parsed.error());
  auto options = make_options(*parsed);
  if (!options) return usage_error(command, options.error());
  auto log = open_data_dir(*parsed, create_dir);
  if (!log) return report(log.error());
  if (auto s = body(**log, *options); !s.ok()) return report(s);
  return kExitOk;
}

// "1 record", "2 records".
inline std::string count_of(std::int64_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

}  // namespace brook::cli

// What every `brook` command shares: exit codes, the --data-dir option, opening the data dir,
// and how usage errors and help are printed.
#pragma once

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

}  // namespace brook::cli

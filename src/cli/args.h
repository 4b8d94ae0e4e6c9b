// Command-line parsing for the `brook` command: options (`--name VALUE`, `--name=VALUE`,
// switches `--name`) and positional arguments, with errors that name the offending argument.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "brook/status.h"

namespace brook::cli {

// One option a command accepts, named without its leading "--".
struct OptionSpec {
  std::string_view name;
  bool takes_value = false;
  bool repeatable = false;  // else given twice is an error
};

// A command line split into options and positionals.
class ParsedArgs {
 public:
  bool has(std::string_view name) const { return options_.contains(name); }
  // The option's value, or nullopt if it was not given.
  std::optional<std::string> value(std::string_view name) const;
  std::string value_or(std::string_view name, std::string fallback) const;
  // Every value of a repeatable option, in order.
  std::vector<std::string> values(std::string_view name) const;
  // The option as an integer in [min, max]; nullopt if not given; kInvalidArgument naming the
  // option if it is not a number or out of range.
  Result<std::optional<std::int64_t>> int_value(std::string_view name, std::int64_t min,
                                                std::int64_t max) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

 private:
  friend Result<ParsedArgs> parse_args(std::span<const std::string> args,
                                       std::span<const OptionSpec> specs);
  std::map<std::string, std::vector<std::string>, std::less<>> options_;
  std::vector<std::string> positionals_;
};

// Parses `args`. Anything starting with "-" (except "-" itself) is an option until "--", after
// which everything is positional. kInvalidArgument for an unknown option, a missing value, a
// value given to a switch, or a non-repeatable option given twice.
Result<ParsedArgs> parse_args(std::span<const std::string> args, std::span<const OptionSpec> specs);

// OK if `args` has between `required` and names.size() positionals; else kInvalidArgument
// naming the first missing one (e.g. "missing TOPIC") or the first unexpected one.
Status check_positionals(const ParsedArgs& args, std::span<const std::string_view> names,
                         std::size_t required);

// True if "-h" or "--help" appears before any "--".
bool wants_help(std::span<const std::string> args);

}  // namespace brook::cli

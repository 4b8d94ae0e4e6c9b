// Fuzzes the `brook` command's argument parsing (src/cli/args.h): parse_args, the integer
// options (ParsedArgs::int_value), check_positionals and wants_help. The input, split at NUL
// bytes, is the argument vector after "brook"; its first words name a command, whose option
// specs parse the rest. The tables below are modelled on the commands' (private to their .cc
// files) for realistic seeds, but need not follow them: one parser reads every table, and the
// properties hold for any.
//
// Properties:
// - parse_args gives parsed arguments or kInvalidArgument quoting the argument at fault (up to
//   its '='); never a crash or UB.
// - What it parses is consistent: an option is had exactly when it has values, its value is
//   the last of them, a non-repeatable option has one, a switch's is empty; the positionals
//   are arguments, in their order. Written back canonically ("--name=value" or "--name" for
//   each value, "--", the positionals) it parses to the same options and positionals.
// - int_value gives nothing for an option not given, the number the text is when it is an
//   integer in [min, max], else kInvalidArgument naming the option.
// - check_positionals is OK for between `required` and all of the names, else says
//   "missing <the first missing name>" or "unexpected argument '<the first extra one>'".
// - wants_help is true exactly when "-h" or "--help" comes before the first "--".
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.h"
#include "cli/command_support.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace brook;
using brook::cli::OptionSpec;
using brook::cli::ParsedArgs;

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

struct IntegerOption {
  std::string_view name;
  std::int64_t min, max;
};

struct Command {
  std::vector<std::string_view> words;  // after "brook"
  std::vector<OptionSpec> options;
  std::vector<std::string_view> positionals;  // their names
  std::size_t required = 0;                   // how many positionals must be given
  std::vector<IntegerOption> integers;
};

OptionSpec value(std::string_view name, bool repeatable = false) {
  return {.name = name, .takes_value = true, .repeatable = repeatable};
}
OptionSpec flag(std::string_view name) { return {.name = name}; }

// With the options every command has: the log's.
std::vector<OptionSpec> with_log(std::vector<OptionSpec> options) {
  options.insert(options.begin(), {cli::kDataDirOption, cli::kBootstrapServersOption});
  return options;
}

const std::vector<Command>& commands() {
  static const std::vector<Command> all = {
      {.words = {"topics", "list"}, .options = with_log({})},
      {.words = {"topics", "create"},
       .options = with_log({value("partitions"), value("config", /*repeatable=*/true)}),
       .positionals = {"NAME"},
       .required = 1,
       .integers = {{"partitions", 1, kInt32Max}}},
      {.words = {"topics", "describe"}, .options = with_log({}), .positionals = {"NAME"}},
      {.words = {"topics", "delete"},
       .options = with_log({}),
       .positionals = {"NAME"},
       .required = 1},
      {.words = {"topics", "diff"},
       .options =
           with_log({value("b-data-dir"), value("b-bootstrap-servers"), value("value-format"),
                     value("key-format"), flag("json"), value("limit")}),
       .positionals = {"TOPIC_A", "TOPIC_B"},
       .required = 2,
       .integers = {{"limit", 0, kInt64Max}}},
      {.words = {"produce"},
       .options =
           with_log({value("format"), value("partition"), value("timestamp"),
                     value("timestamp-field"), value("key-separator"), value("null-marker")}),
       .positionals = {"TOPIC"},
       .required = 1,
       .integers = {{"partition", 0, kInt32Max}, {"timestamp", 0, kInt64Max}}},
      {.words = {"consume"},
       .options = with_log({flag("from-beginning"), value("group"), value("partition"),
                            value("max"), value("timeout-ms"), value("format"), value("key-format"),
                            value("value-format"), flag("print-partition"), flag("print-offset"),
                            flag("print-timestamp"), flag("print-key")}),
       .positionals = {"TOPIC"},
       .required = 1,
       .integers = {{"partition", 0, kInt32Max},
                    {"max", 1, kInt64Max},
                    {"timeout-ms", 0, kInt32Max}}},
      {.words = {"cdc", "postgres"},
       .options =
           with_log({value("dsn"), value("publication"), value("slot"), value("topic-prefix"),
                     value("partitions"), value("offsets-topic"), value("max-batch-changes")}),
       .integers = {{"partitions", 1, kInt32Max}, {"max-batch-changes", 1, kInt64Max}}},
      {.words = {"groups", "list"}, .options = with_log({})},
      {.words = {"groups", "describe"},
       .options = with_log({}),
       .positionals = {"GROUP"},
       .required = 1},
      {.words = {"app", "describe"},
       .options = with_log({value("application-id"), value("local-state-dir")})},
      {.words = {"app", "reset"},
       .options = with_log({value("application-id"), value("input-topics"), flag("to-earliest"),
                            flag("to-latest"), value("to-offset"), value("to-datetime"),
                            value("by-duration"), value("local-state-dir"), flag("dry-run")}),
       .integers = {{"to-offset", 0, kInt64Max},
                    {"to-datetime", 0, kInt64Max},
                    {"by-duration", 0, kInt64Max / 1000}}},
  };
  return all;
}

// The command `args` starts with, if any.
const Command* command_of(std::span<const std::string> args) {
  for (const Command& command : commands()) {
    if (args.size() >= command.words.size() &&
        std::equal(command.words.begin(), command.words.end(), args.begin())) {
      return &command;
    }
  }
  return nullptr;
}

// An error must quote an argument, or its part before '=' ("--name" of "--name=value").
void check_error(const Status& status, std::span<const std::string> args) {
  FUZZ_CHECK(status.code() == StatusCode::kInvalidArgument);
  const std::string& message = status.message();
  const auto open = message.find('\'');
  const auto close = message.rfind('\'');
  FUZZ_CHECK(open != std::string::npos && close > open);
  const std::string quoted = message.substr(open + 1, close - open - 1);
  FUZZ_CHECK(std::any_of(args.begin(), args.end(), [&](const std::string& arg) {
    return quoted == arg || quoted == arg.substr(0, arg.find('='));
  }));
}

bool same_parse(const Command& command, const ParsedArgs& a, const ParsedArgs& b) {
  return a.positionals() == b.positionals() &&
         std::all_of(command.options.begin(), command.options.end(), [&](const OptionSpec& spec) {
           return a.values(spec.name) == b.values(spec.name);
         });
}

void check_consistent(const Command& command, const ParsedArgs& parsed,
                      std::span<const std::string> args) {
  for (const OptionSpec& spec : command.options) {
    const std::vector<std::string> values = parsed.values(spec.name);
    FUZZ_CHECK(parsed.has(spec.name) == !values.empty());
    FUZZ_CHECK(parsed.value(spec.name) ==
               (values.empty() ? std::nullopt : std::optional(values.back())));
    FUZZ_CHECK(spec.repeatable || values.size() <= 1);
    FUZZ_CHECK(spec.takes_value || std::all_of(values.begin(), values.end(),
                                               [](const std::string& v) { return v.empty(); }));
  }
  auto arg = args.begin();
  for (const std::string& positional : parsed.positionals()) {
    arg = std::find(arg, args.end(), positional);
    FUZZ_CHECK(arg != args.end());
    ++arg;
  }
}

void check_canonical_form(const Command& command, const ParsedArgs& parsed) {
  std::vector<std::string> canonical;
  for (const OptionSpec& spec : command.options) {
    for (const std::string& value : parsed.values(spec.name)) {
      const std::string option = "--" + std::string(spec.name);
      canonical.push_back(spec.takes_value ? option + "=" + value : option);
    }
  }
  canonical.push_back("--");
  canonical.insert(canonical.end(), parsed.positionals().begin(), parsed.positionals().end());
  const auto again = cli::parse_args(canonical, command.options);
  FUZZ_CHECK(again.has_value() && same_parse(command, parsed, *again));
}

void check_integer(const ParsedArgs& parsed, const IntegerOption& option) {
  const auto number = parsed.int_value(option.name, option.min, option.max);
  const auto text = parsed.value(option.name);
  if (!text) {
    FUZZ_CHECK(number.has_value() && !number->has_value());
    return;
  }
  std::int64_t exact = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), exact);
  const bool fits = ec == std::errc() && end == text->data() + text->size() &&
                    exact >= option.min && exact <= option.max;
  FUZZ_CHECK(number.has_value() == fits);
  if (number) {
    FUZZ_CHECK(*number == exact);
  } else {
    FUZZ_CHECK(number.error().code() == StatusCode::kInvalidArgument);
    FUZZ_CHECK(number.error().message().starts_with("--" + std::string(option.name) + ": '"));
  }
}

void check_positionals(const Command& command, const ParsedArgs& parsed) {
  const Status status = cli::check_positionals(parsed, command.positionals, command.required);
  const auto& given = parsed.positionals();
  if (given.size() < command.required) {
    FUZZ_CHECK(status.code() == StatusCode::kInvalidArgument &&
               status.message() == "missing " + std::string(command.positionals[given.size()]));
  } else if (given.size() > command.positionals.size()) {
    FUZZ_CHECK(status.code() == StatusCode::kInvalidArgument &&
               status.message() ==
                   "unexpected argument '" + given[command.positionals.size()] + "'");
  } else {
    FUZZ_CHECK(status.ok());
  }
}

void check_command(const Command& command, std::span<const std::string> args) {
  const auto parsed = cli::parse_args(args, command.options);
  if (!parsed) {
    check_error(parsed.error(), args);
    return;
  }
  check_consistent(command, *parsed, args);
  check_canonical_form(command, *parsed);
  for (const IntegerOption& option : command.integers) check_integer(*parsed, option);
  check_positionals(command, *parsed);
}

void check_wants_help(std::span<const std::string> args) {
  const auto help = std::find_if(args.begin(), args.end(), [](const std::string& arg) {
    return arg == "-h" || arg == "--help";
  });
  const auto end_of_options = std::find(args.begin(), args.end(), "--");
  FUZZ_CHECK(cli::wants_help(args) == (help < end_of_options));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  for (std::size_t start = 0; start < input.size();) {
    const std::size_t end = std::min(input.find('\0', start), input.size());
    args.emplace_back(input.substr(start, end - start));
    start = end + 1;
  }
  check_wants_help(args);
  if (const Command* command = command_of(args)) {
    const auto rest = std::span<const std::string>(args).subspan(command->words.size());
    check_wants_help(rest);
    check_command(*command, rest);
  }
  return 0;
}

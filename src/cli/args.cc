#include "cli/args.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/text_numbers.h"

namespace brook::cli {

std::optional<std::string> ParsedArgs::value(std::string_view name) const {
  auto it = options_.find(name);
  if (it == options_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::string ParsedArgs::value_or(std::string_view name, std::string fallback) const {
  auto v = value(name);
  return v ? *v : std::move(fallback);
}

std::vector<std::string> ParsedArgs::values(std::string_view name) const {
  auto it = options_.find(name);
  return it == options_.end() ? std::vector<std::string>{} : it->second;
}

Result<std::optional<std::int64_t>> ParsedArgs::int_value(std::string_view name, std::int64_t min,
                                                          std::int64_t max) const {
  auto text = value(name);
  if (!text) return std::nullopt;
  auto number = internal::parse_integer_in(fmt::format("--{}", name), *text, min, max);
  if (!number) return error(number.error());
  return *number;
}

Result<ParsedArgs> parse_args(std::span<const std::string> args,
                              std::span<const OptionSpec> specs) {
  ParsedArgs parsed;
  bool options_done = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_done || arg == "-" || !arg.starts_with("-")) {
      parsed.positionals_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (!arg.starts_with("--")) {
      return error(Status::invalid_argument(fmt::format("unknown option '{}'", arg)));
    }
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    auto spec = std::ranges::find(specs, std::string_view(name), &OptionSpec::name);
    if (spec == specs.end()) {
      return error(Status::invalid_argument(fmt::format("unknown option '--{}'", name)));
    }
    std::string value;
    if (spec->takes_value) {
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return error(Status::invalid_argument(fmt::format("option '--{}' needs a value", name)));
      }
    } else if (eq != std::string::npos) {
      return error(Status::invalid_argument(fmt::format("option '--{}' takes no value", name)));
    }
    auto& values = parsed.options_[name];
    if (!values.empty() && !spec->repeatable) {
      return error(Status::invalid_argument(fmt::format("option '--{}' given twice", name)));
    }
    values.push_back(std::move(value));
  }
  return parsed;
}

Status check_positionals(const ParsedArgs& args, std::span<const std::string_view> names,
                         std::size_t required) {
  const auto& given = args.positionals();
  if (given.size() < required) {
    return Status::invalid_argument(fmt::format("missing {}", names[given.size()]));
  }
  if (given.size() > names.size()) {
    return Status::invalid_argument(fmt::format("unexpected argument '{}'", given[names.size()]));
  }
  return {};
}

bool wants_help(std::span<const std::string> args) {
  for (const auto& arg : args) {
    if (arg == "--") return false;
    if (arg == "-h" || arg == "--help") return true;
  }
  return false;
}

}  // namespace brook::cli

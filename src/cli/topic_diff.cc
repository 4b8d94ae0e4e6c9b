#include "cli/topic_diff.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "cli/byte_format.h"
#include "cli/command_support.h"
#include "cli/topic_reader.h"

namespace brook::cli {
namespace {

using Json = nlohmann::json;
using namespace std::chrono_literals;

constexpr std::string_view kUsage =
    R"(usage: brook topics diff TOPIC_A TOPIC_B [options]

Compares the final value per key of two topics: for each key its latest record (a null value
deletes the key, as compaction and a KTable do). Prints the keys only in A, only in B, and
those whose values differ, then the counts. Records without a key are counted, not compared.
Exit code: 0 equal, 1 different, 2 could not compare (a usage error, an unknown topic, a value
that is not JSON with --value-format json).

  --value-format F      string (default: compare bytes, print them as text), json (compare as
                        JSON documents, so key order and spacing do not count; print the
                        differences as a JSON Patch) or hex
  --key-format F        how keys print: string (default), int32, int64, double, hex, base64,
                        windowed:<F>, session:<F> (as brook consume --key-format)
  --json                print one JSON document instead of text
  --limit N             text: print at most N keys of each kind (default 20; the counts are
                        always whole)
  --data-dir DIR | --bootstrap-servers HOST:PORT[,...]
                        the log of TOPIC_A (default ./brook-data)
  --b-data-dir DIR | --b-bootstrap-servers HOST:PORT[,...]
                        the log of TOPIC_B, if not the same (e.g. the embedded log against Kafka)

example:
  brook topics diff stock-averages stock-averages-v2 --value-format json
)";

constexpr OptionSpec kOptions[] = {
    kDataDirOption,
    kBootstrapServersOption,
    {.name = "b-data-dir", .takes_value = true},
    {.name = "b-bootstrap-servers", .takes_value = true},
    {.name = "value-format", .takes_value = true},
    {.name = "key-format", .takes_value = true},
    {.name = "json"},
    {.name = "limit", .takes_value = true},
};
constexpr std::string_view kTopics[] = {"TOPIC_A", "TOPIC_B"};

enum class Format { kString, kJson, kHex };

struct DiffOptions {
  std::string topic_a, topic_b;
  Format value_format = Format::kString;
  ByteFormat key_format;
  bool json_output = false;
  std::int64_t limit = 20;
};

Result<Format> value_format(const ParsedArgs& args) {
  const std::string value = args.value_or("value-format", "string");
  if (value == "string") return Format::kString;
  if (value == "hex") return Format::kHex;
  if (value == "json") return Format::kJson;
  return error(Status::invalid_argument(
      fmt::format("--value-format: '{}' is not string, json or hex", value)));
}

Result<DiffOptions> diff_options(const ParsedArgs& args) {
  if (auto s = check_positionals(args, kTopics, 2); !s.ok()) return error(s);
  if (auto s = check_log_choice(args, "b-"); !s.ok()) return error(s);
  DiffOptions options{.topic_a = args.positionals()[0],
                      .topic_b = args.positionals()[1],
                      .json_output = args.has("json")};
  auto values = value_format(args);
  if (!values) return error(values.error());
  options.value_format = *values;
  if (auto text = args.value("key-format")) {
    auto keys = parse_byte_format(*text);
    if (!keys) {
      return error(
          Status::invalid_argument(fmt::format("--key-format: {}", keys.error().message())));
    }
    options.key_format = *keys;
  }
  auto limit = args.int_value("limit", 0, std::numeric_limits<std::int64_t>::max());
  if (!limit) return error(limit.error());
  if (*limit) options.limit = **limit;
  return options;
}

// The latest value per key of a topic, with what was read.
struct TopicRows {
  std::map<std::string, std::string> rows;
  std::int64_t records = 0;
  std::int64_t without_key = 0;
};

Result<TopicRows> read_rows(internal::LogBackend& log, const std::string& topic) {
  auto reader = open_topic_reader(log, topic, std::nullopt, "", /*from_beginning=*/true);
  if (!reader) return error(reader.error());
  TopicRows out;
  while (true) {
    auto at_end = reader->reached_end();
    if (!at_end) return error(at_end.error());
    if (*at_end) break;
    auto records = reader->consumer->poll(100ms);
    if (!records) return error(records.error());
    for (auto& record : *records) {
      ++out.records;
      if (!record.key) {
        ++out.without_key;
      } else if (record.value) {
        out.rows[std::move(*record.key)] = std::move(*record.value);
      } else {
        out.rows.erase(*record.key);
      }
    }
  }
  if (auto s = reader->consumer->close(); !s.ok()) return error(s);
  return out;
}

std::string hex(std::string_view bytes) {
  return *format_bytes({.kind = ByteFormat::Kind::kHex}, bytes);
}

// Bytes as the format prints them.
std::string shown(std::string_view bytes, Format format) {
  return format == Format::kHex ? hex(bytes) : std::string(bytes);
}

// A key as --key-format prints it, or "0x" and its hex if it is not of that format.
std::string shown(std::string_view key, const ByteFormat& format) {
  auto text = format_bytes(format, key);
  return text ? *text : "0x" + hex(key);
}

// The JSON document a value holds (--value-format json); kInvalidArgument naming it if none.
Result<Json> parse_value(const std::string& topic, const std::string& key, const std::string& value,
                         const ByteFormat& key_format) {
  Json json = Json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return error(Status::invalid_argument(
        fmt::format("the value of key '{}' in topic '{}' is not JSON (--value-format json): {}",
                    shown(key, key_format), topic, value.substr(0, 80))));
  }
  return json;
}

struct Difference {
  std::string key;
  std::string a, b;
  Json patch;  // --value-format json: the JSON Patch from a to b
};

struct Comparison {
  std::vector<std::pair<std::string, std::string>> only_a, only_b;
  std::vector<Difference> different;
  std::int64_t equal = 0;
};

Result<Comparison> compare(const DiffOptions& options, const TopicRows& a, const TopicRows& b) {
  Comparison out;
  for (const auto& [key, value] : a.rows) {
    auto other = b.rows.find(key);
    if (other == b.rows.end()) {
      out.only_a.emplace_back(key, value);
      continue;
    }
    if (options.value_format != Format::kJson) {
      if (value == other->second) {
        ++out.equal;
      } else {
        out.different.push_back({key, value, other->second, Json()});
      }
      continue;
    }
    auto json_a = parse_value(options.topic_a, key, value, options.key_format);
    if (!json_a) return error(json_a.error());
    auto json_b = parse_value(options.topic_b, key, other->second, options.key_format);
    if (!json_b) return error(json_b.error());
    if (*json_a == *json_b) {
      ++out.equal;
    } else {
      out.different.push_back({key, value, other->second, Json::diff(*json_a, *json_b)});
    }
  }
  for (const auto& [key, value] : b.rows) {
    if (!a.rows.contains(key)) out.only_b.emplace_back(key, value);
  }
  if (options.value_format == Format::kJson) {
    for (const auto& rows : {&out.only_a, &out.only_b}) {
      for (const auto& [key, value] : *rows) {
        const auto& topic = rows == &out.only_a ? options.topic_a : options.topic_b;
        if (auto json = parse_value(topic, key, value, options.key_format); !json) {
          return error(json.error());
        }
      }
    }
  }
  return out;
}

// A value as --json prints it: the document itself for JSON values, else a string.
Json json_value(const std::string& value, Format format) {
  return format == Format::kJson ? Json::parse(value) : Json(shown(value, format));
}

void print_json(const DiffOptions& options, const TopicRows& a, const TopicRows& b,
                const Comparison& c) {
  Json out = {{"equal", c.only_a.empty() && c.only_b.empty() && c.different.empty()},
              {"a",
               {{"topic", options.topic_a},
                {"keys", a.rows.size()},
                {"records", a.records},
                {"records_without_key", a.without_key}}},
              {"b",
               {{"topic", options.topic_b},
                {"keys", b.rows.size()},
                {"records", b.records},
                {"records_without_key", b.without_key}}},
              {"counts",
               {{"equal", c.equal},
                {"only_in_a", c.only_a.size()},
                {"only_in_b", c.only_b.size()},
                {"different", c.different.size()}}},
              {"only_in_a", Json::array()},
              {"only_in_b", Json::array()},
              {"different", Json::array()}};
  for (const auto& [name, rows] :
       {std::pair{"only_in_a", &c.only_a}, std::pair{"only_in_b", &c.only_b}}) {
    for (const auto& [key, value] : *rows) {
      out[name].push_back({{"key", shown(key, options.key_format)},
                           {"value", json_value(value, options.value_format)}});
    }
  }
  for (const auto& d : c.different) {
    Json entry = {{"key", shown(d.key, options.key_format)},
                  {"a", json_value(d.a, options.value_format)},
                  {"b", json_value(d.b, options.value_format)}};
    if (options.value_format == Format::kJson) entry["patch"] = d.patch;
    out["different"].push_back(std::move(entry));
  }
  fmt::print("{}\n", out.dump(2));
}

void print_text(const DiffOptions& options, const TopicRows& a, const TopicRows& b,
                const Comparison& c) {
  auto heading = [&](std::string_view what, std::size_t n) {
    fmt::print("{} ({}):\n", what, count_of(static_cast<std::int64_t>(n), "key"));
  };
  auto more = [&](std::size_t n) {
    if (n > static_cast<std::size_t>(options.limit)) {
      fmt::print("  ... and {} more\n", n - options.limit);
    }
  };
  for (const auto& [what, rows] :
       {std::pair{"only in A", &c.only_a}, std::pair{"only in B", &c.only_b}}) {
    if (rows->empty()) continue;
    heading(what, rows->size());
    for (std::size_t i = 0; i < rows->size() && i < static_cast<std::size_t>(options.limit); ++i) {
      fmt::print("  {}\t{}\n", shown((*rows)[i].first, options.key_format),
                 shown((*rows)[i].second, options.value_format));
    }
    more(rows->size());
  }
  if (!c.different.empty()) {
    heading("different", c.different.size());
    for (std::size_t i = 0; i < c.different.size() && i < static_cast<std::size_t>(options.limit);
         ++i) {
      const auto& d = c.different[i];
      fmt::print("  {}\n    A: {}\n    B: {}\n", shown(d.key, options.key_format),
                 shown(d.a, options.value_format), shown(d.b, options.value_format));
      const Json before = d.patch.empty() ? Json() : Json::parse(d.a);
      for (const auto& op : d.patch) {
        // "replace /price: 1 -> 2", "add /note: "x"", "remove /old: 3". The old value is A's
        // at the path, when A has one there (an earlier operation on an array may have moved
        // its elements).
        const std::string path = op["path"].get<std::string>();
        const std::string name = op["op"].get<std::string>();
        const Json::json_pointer pointer(path);
        const std::string old_value =
            name != "add" && before.contains(pointer) ? before.at(pointer).dump() : "";
        const std::string new_value = op.contains("value") ? op["value"].dump() : "";
        fmt::print("    {} {}: {}{}{}\n", name, path, old_value,
                   !old_value.empty() && !new_value.empty() ? " -> " : "", new_value);
      }
    }
    more(c.different.size());
  }
  fmt::print(
      "A: {}, {} ({}{}); B: {}, {} ({}{})\n", options.topic_a,
      count_of(static_cast<std::int64_t>(a.rows.size()), "key"), count_of(a.records, "record"),
      a.without_key > 0 ? fmt::format(", {} without a key", a.without_key) : "", options.topic_b,
      count_of(static_cast<std::int64_t>(b.rows.size()), "key"), count_of(b.records, "record"),
      b.without_key > 0 ? fmt::format(", {} without a key", b.without_key) : "");
  fmt::print("equal: {}, only in A: {}, only in B: {}, different: {}\n", c.equal, c.only_a.size(),
             c.only_b.size(), c.different.size());
}

// Prints the problem; exit code 2 (1 says "different").
int could_not_compare(const Status& problem) {
  report(problem);
  return kExitUsage;
}

// Compares; returns the exit code.
int diff(internal::LogBackend& log_a, internal::LogBackend& log_b, const DiffOptions& options) {
  auto a = read_rows(log_a, options.topic_a);
  if (!a) return could_not_compare(a.error());
  auto b = read_rows(log_b, options.topic_b);
  if (!b) return could_not_compare(b.error());
  auto comparison = compare(options, *a, *b);
  if (!comparison) return could_not_compare(comparison.error());
  if (options.json_output) {
    print_json(options, *a, *b, *comparison);
  } else {
    print_text(options, *a, *b, *comparison);
  }
  const bool equal =
      comparison->only_a.empty() && comparison->only_b.empty() && comparison->different.empty();
  return equal ? kExitOk : kExitError;
}

}  // namespace

int topics_diff(std::span<const std::string> args) {
  constexpr std::string_view kCommand = "topics diff";
  if (wants_help(args)) return print_help(kUsage);
  auto parsed = parse_args(args, kOptions);
  if (!parsed) return usage_error(kCommand, parsed.error());
  if (auto s = check_log_choice(*parsed); !s.ok()) return usage_error(kCommand, s);
  auto options = diff_options(*parsed);
  if (!options) return usage_error(kCommand, options.error());
  auto log_a = open_log(*parsed, false);
  if (!log_a) return could_not_compare(log_a.error());
  if (!parsed->has("b-data-dir") && !parsed->has("b-bootstrap-servers")) {
    return diff(**log_a, **log_a, *options);
  }
  auto log_b = open_log(*parsed, false, "b-");
  if (!log_b) return could_not_compare(log_b.error());
  return diff(**log_a, **log_b, *options);
}

}  // namespace brook::cli

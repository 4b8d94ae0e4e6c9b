// `brook topics list|create|describe|delete`.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_support.h"
#include "cli/commands.h"
#include "cli/topic_diff.h"
#include "cli/topic_reader.h"

namespace brook::cli {
namespace {

using internal::LogBackend;

constexpr std::string_view kTopicsUsage = R"(usage: brook topics <subcommand> [options]

subcommands:
  list                  print the name of every topic, one per line
  create NAME           create a topic
  describe [NAME]       print a topic's partitions, configs and offsets (every topic without NAME)
  delete NAME           delete a topic and its records
  diff TOPIC_A TOPIC_B  compare the final value per key of two topics

options of every subcommand (one of them):
  --data-dir DIR                the embedded data dir (default ./brook-data)
  --bootstrap-servers HOST:PORT[,HOST:PORT...]
                                the Kafka cluster to work on instead

Run 'brook topics <subcommand> --help' for details.
)";

constexpr std::string_view kListUsage =
    R"(usage: brook topics list [--data-dir DIR | --bootstrap-servers HOST:PORT]

Prints the name of every topic, one per line, sorted (on Kafka without its internal
topics, those starting with "__").
)";

constexpr std::string_view kCreateUsage =
    R"(usage: brook topics create NAME --partitions N [--config KEY=VALUE]...
                          [--data-dir DIR | --bootstrap-servers HOST:PORT]

Creates topic NAME (ASCII letters, digits, '.', '_', '-') with N partitions. Creates the
data dir if it does not exist. On Kafka the topic gets the broker's default replication
factor.

  --partitions N        number of partitions (required, >= 1)
  --config KEY=VALUE    a topic config; repeat for several (on Kafka any topic config the
                        broker accepts; the embedded log knows these):
                          cleanup.policy       delete (default) | compact | compact,delete
                          retention.ms         delete segments older than this (-1: keep, default)
                          retention.bytes      keep at most this many bytes per partition (-1: keep)
                          delete.retention.ms  how long compaction keeps tombstones (default 1 day)
                          segment.bytes        segment file size (>= 1024, default 64 MiB)
  --data-dir DIR        the embedded data dir (default ./brook-data)
  --bootstrap-servers HOST:PORT[,HOST:PORT...]
                        the Kafka cluster to create it on instead
)";

constexpr std::string_view kDescribeUsage =
    R"(usage: brook topics describe [NAME] [--data-dir DIR | --bootstrap-servers HOST:PORT]

Prints topic NAME (every topic without NAME): a line with its partition count and configs
(those set on the topic), then one line per partition with its start offset (the first
stored record) and end offset (the end read_committed consumers reach: the next to be
written unless a transaction is open). Fields are tab-separated:

  Topic: orders	Partitions: 2	Configs: cleanup.policy=compact
  	Partition: 0	Start: 0	End: 12
  	Partition: 1	Start: 0	End: 9
)";

constexpr std::string_view kDeleteUsage =
    R"(usage: brook topics delete NAME [--data-dir DIR | --bootstrap-servers HOST:PORT]

Deletes topic NAME and every record in it. Kafka deletes in the background: for a moment
after this returns, the topic may still be listed.
)";

constexpr OptionSpec kLogOnly[] = {kDataDirOption, kBootstrapServersOption};
constexpr OptionSpec kCreateOptions[] = {
    kDataDirOption,
    kBootstrapServersOption,
    {.name = "partitions", .takes_value = true},
    {.name = "config", .takes_value = true, .repeatable = true},
};
constexpr std::string_view kName[] = {"NAME"};

// The topic `brook topics create` asks for, or a usage error.
Result<internal::NewTopic> new_topic(const ParsedArgs& args) {
  if (auto s = check_positionals(args, kName, 1); !s.ok()) return error(s);
  internal::NewTopic topic{.name = args.positionals()[0]};
  auto partitions = args.int_value("partitions", 1, std::numeric_limits<std::int32_t>::max());
  if (!partitions) return error(partitions.error());
  if (!*partitions) return error(Status::invalid_argument("missing --partitions N"));
  topic.partitions = static_cast<std::int32_t>(**partitions);
  for (const auto& config : args.values("config")) {
    const auto eq = config.find('=');
    if (eq == std::string::npos || eq == 0) {
      return error(
          Status::invalid_argument(fmt::format("--config: '{}' is not KEY=VALUE", config)));
    }
    if (!topic.configs.emplace(config.substr(0, eq), config.substr(eq + 1)).second) {
      return error(
          Status::invalid_argument(fmt::format("--config: {} given twice", config.substr(0, eq))));
    }
  }
  return topic;
}

Status describe(LogBackend& log, const std::string& name) {
  auto description = log.admin().describe_topic(name);
  if (!description) return description.error();
  std::vector<std::string> configs;
  for (const auto& [key, value] : description->configs) {
    configs.push_back(fmt::format("{}={}", key, value));
  }
  fmt::print("Topic: {}\tPartitions: {}\tConfigs: {}\n", name, description->partitions,
             configs.empty() ? "(defaults)" : fmt::format("{}", fmt::join(configs, " ")));
  auto ranges = partition_ranges(log, name, description->partitions);
  if (!ranges) return ranges.error();
  for (std::size_t p = 0; p < ranges->size(); ++p) {
    fmt::print("\tPartition: {}\tStart: {}\tEnd: {}\n", p, (*ranges)[p].start.value(),
               (*ranges)[p].end.value());
  }
  return {};
}

int topics_list(std::span<const std::string> args) {
  return run_command("topics list", kListUsage, args, kLogOnly, false, positionals({}, 0),
                     [](LogBackend& log, const ParsedArgs&) -> Status {
                       auto names = log.admin().list_topics();
                       if (!names) return names.error();
                       for (const auto& name : *names) fmt::print("{}\n", name);
                       return {};
                     });
}

int topics_create(std::span<const std::string> args) {
  return run_command("topics create", kCreateUsage, args, kCreateOptions, true, new_topic,
                     [](LogBackend& log, const internal::NewTopic& topic) -> Status {
                       if (auto s = log.admin().create_topic(topic); !s.ok()) return s;
                       fmt::print("created topic {} with {}\n", topic.name,
                                  count_of(topic.partitions, "partition"));
                       return {};
                     });
}

int topics_describe(std::span<const std::string> args) {
  return run_command("topics describe", kDescribeUsage, args, kLogOnly, false,
                     positionals(kName, 0),
                     [](LogBackend& log, const ParsedArgs& parsed) -> Status {
                       if (!parsed.positionals().empty()) {
                         return describe(log, parsed.positionals()[0]);
                       }
                       auto names = log.admin().list_topics();
                       if (!names) return names.error();
                       for (const auto& name : *names) {
                         if (auto s = describe(log, name); !s.ok()) return s;
                       }
                       return {};
                     });
}

int topics_delete(std::span<const std::string> args) {
  return run_command("topics delete", kDeleteUsage, args, kLogOnly, false, positionals(kName, 1),
                     [](LogBackend& log, const ParsedArgs& parsed) -> Status {
                       const auto& name = parsed.positionals()[0];
                       if (auto s = log.admin().delete_topic(name); !s.ok()) return s;
                       fmt::print("deleted topic {}\n", name);
                       return {};
                     });
}

}  // namespace

int run_topics(std::span<const std::string> args) {
  if (args.empty()) {
    return usage_error("topics", Status::invalid_argument("missing subcommand"));
  }
  const std::string& sub = args[0];
  const auto rest = args.subspan(1);
  if (sub == "list") return topics_list(rest);
  if (sub == "create") return topics_create(rest);
  if (sub == "describe") return topics_describe(rest);
  if (sub == "delete") return topics_delete(rest);
  if (sub == "diff") return topics_diff(rest);
  if (sub == "-h" || sub == "--help" || sub == "help") return print_help(kTopicsUsage);
  return usage_error("topics",
                     Status::invalid_argument(fmt::format(
                         "unknown subcommand '{}' (list, create, describe, delete, diff)", sub)));
}

}  // namespace brook::cli

// `brook app describe|reset`: a Streams application as the log and its local state show it, and
// Kafka's kafka-streams-application-reset for Brook applications, on the embedded log or Kafka.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_support.h"
#include "cli/commands.h"
#include "cli/group_lag.h"
#include "cli/topic_reader.h"
#include "core/wall_clock.h"

namespace brook::cli {
namespace {

using internal::LogBackend;
using internal::OffsetSpec;
using internal::TopicPartition;

constexpr std::string_view kAppUsage = R"(usage: brook app <subcommand> [options]

subcommands:
  describe              print an application's members, internal topics, stores and lag
  reset                 reset an application for reprocessing its input from the start (or
                        another point)

Run 'brook app <subcommand> --help' for details.
)";

constexpr std::string_view kDescribeUsage =
    R"(usage: brook app describe --application-id ID [--local-state-dir DIR]
                          [--data-dir DIR | --bootstrap-servers HOST:PORT]

Prints Streams application ID as the log and its local state show it: a line with its active
members and total lag; its internal topics (<ID>-...-changelog, -repartition, FK
subscription topics) with their partitions and records (end minus start offsets, summed:
compaction may have removed some); its stores (from the changelog topics and the local
state) with their changelog and their bytes on disk here, by task; and, as `brook groups
describe`, the committed offset, end and lag of every partition it reads. Fails (exit 1) if
the application has no consumer group, internal topic or local state.

  --local-state-dir DIR the application's state.dir (default <data dir>/state on the embedded
                        log; on Kafka, without it, local sizes are not printed)

  Application: wc	Members: none	Lag: 0
  Internal topics:
  	wc-counts-changelog	Partitions: 2	Records: 14
  	wc-counts-repartition	Partitions: 2	Records: 30
  Stores:
  	counts	Changelog: wc-counts-changelog	Local: 12288 bytes in tasks 1_0, 1_1
  Offsets:
  	Topic: wc-counts-repartition	Partition: 0	Committed: 16	End: 16	Lag: 0
  	...
)";

constexpr std::string_view kResetUsage =
    R"(usage: brook app reset --application-id ID [--input-topics T[,T...]] [where]
                       [--local-state-dir DIR] [--dry-run]
                       [--data-dir DIR | --bootstrap-servers HOST:PORT]

Resets application ID so that its next run reprocesses its input, as Kafka's
kafka-streams-application-reset: the group's committed offsets of the input topics move to
where --to-* says (the earliest offset by default); the application's internal topics
(<ID>-...-changelog, <ID>-...-repartition, <ID>-...-subscription-registration-topic and
-response-topic) are deleted, with their records; with --local-state-dir, its local state
(DIR/<ID>) is deleted too. Output topics are left as they are. Refuses while the group has
active members (naming them): stop every instance first. Prints each step; with --dry-run
only prints what it would do.

where the input offsets go (one of):
  --to-earliest         the first record still stored (default)
  --to-latest           the end: skip everything there is now
  --to-offset N         offset N (the earliest or the end if N is outside)
  --to-datetime MS      the first record with a timestamp >= MS (ms since the Unix epoch)
  --by-duration S       the first record of the last S seconds

  --input-topics T,...  the application's source topics (default: none; their offsets stay)
  --local-state-dir DIR the application's state.dir (default <data dir>/state on the embedded
                        log; on Kafka, without it, no local state is deleted: the state of
                        each instance must be deleted where it runs)
  --dry-run             print what would be done, do nothing
)";

constexpr OptionSpec kDescribeOptions[] = {
    kDataDirOption,
    kBootstrapServersOption,
    {.name = "application-id", .takes_value = true},
    {.name = "local-state-dir", .takes_value = true},
};

constexpr OptionSpec kResetOptions[] = {
    kDataDirOption,
    kBootstrapServersOption,
    {.name = "application-id", .takes_value = true},
    {.name = "input-topics", .takes_value = true},
    {.name = "to-earliest"},
    {.name = "to-latest"},
    {.name = "to-offset", .takes_value = true},
    {.name = "to-datetime", .takes_value = true},
    {.name = "by-duration", .takes_value = true},
    {.name = "local-state-dir", .takes_value = true},
    {.name = "dry-run"},
};

struct ResetOptions {
  std::string application_id;
  std::vector<std::string> input_topics;
  // Where the offsets go: to `offset` if given (--to-offset), else to what `kind` and
  // `timestamp` (--to-datetime, --by-duration) name.
  OffsetSpec::Kind kind = OffsetSpec::Kind::kEarliest;
  std::optional<std::int64_t> offset;
  Timestamp timestamp{0};
  std::optional<std::filesystem::path> local_state_dir;
  bool dry_run = false;
};

// The application's state.dir: --local-state-dir, else on the embedded log <data dir>/state
// (Streams' default there); on Kafka nullopt unless given.
std::optional<std::filesystem::path> local_state_dir(const ParsedArgs& args) {
  if (auto dir = args.value("local-state-dir")) return *dir;
  if (args.has("bootstrap-servers")) return std::nullopt;
  return std::filesystem::path(args.value_or("data-dir", std::string(kDefaultDataDir))) / "state";
}

Result<std::string> application_id(const ParsedArgs& args) {
  auto id = args.value_or("application-id", "");
  if (id.empty()) return error(Status::invalid_argument("missing --application-id ID"));
  return id;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const auto end = comma == std::string::npos ? text.size() : comma;
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

Result<ResetOptions> reset_options(const ParsedArgs& args) {
  if (auto s = check_positionals(args, {}, 0); !s.ok()) return error(s);
  auto id = application_id(args);
  if (!id) return error(id.error());
  ResetOptions options{.application_id = *id,
                       .input_topics = split_commas(args.value_or("input-topics", "")),
                       .local_state_dir = local_state_dir(args),
                       .dry_run = args.has("dry-run")};
  int where = 0;
  for (const char* name : {"to-earliest", "to-latest", "to-offset", "to-datetime", "by-duration"}) {
    where += args.has(name) ? 1 : 0;
  }
  if (where > 1) {
    return error(Status::invalid_argument(
        "give one of --to-earliest, --to-latest, --to-offset, --to-datetime, --by-duration"));
  }
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  if (args.has("to-latest")) options.kind = OffsetSpec::Kind::kLatest;
  auto offset = args.int_value("to-offset", 0, max);
  if (!offset) return error(offset.error());
  options.offset = *offset;
  auto datetime = args.int_value("to-datetime", 0, max);
  if (!datetime) return error(datetime.error());
  auto duration = args.int_value("by-duration", 0, max / 1000);
  if (!duration) return error(duration.error());
  if (*datetime || *duration) {
    options.kind = OffsetSpec::Kind::kTimestamp;
    const std::int64_t now = internal::wall_clock_ms();
    options.timestamp = Timestamp(*datetime ? **datetime : now - **duration * 1000);
  }
  return options;
}

// Whether `topic` is one of the internal topics of `application_id` (Kafka's rule).
bool is_internal_topic(std::string_view topic, std::string_view application_id) {
  if (!topic.starts_with(application_id) || !topic.substr(application_id.size()).starts_with('-')) {
    return false;
  }
  for (std::string_view suffix : {"-changelog", "-repartition", "-subscription-registration-topic",
                                  "-subscription-response-topic"}) {
    if (topic.ends_with(suffix)) return true;
  }
  return false;
}

// Where the group's offset of `tp` goes. A time with no record at or after it gives the end.
Result<Offset> target_offset(LogBackend& log, const TopicPartition& tp,
                             const ResetOptions& options) {
  if (!options.offset) {
    return log.admin().list_offset(tp, {.kind = options.kind, .timestamp = options.timestamp});
  }
  auto earliest = log.admin().list_offset(tp, {.kind = OffsetSpec::Kind::kEarliest});
  if (!earliest) return earliest;
  auto latest = log.admin().list_offset(tp, {.kind = OffsetSpec::Kind::kLatest});
  if (!latest) return latest;
  return Offset(std::clamp(*options.offset, earliest->value(), latest->value()));
}

Status reset_offsets(LogBackend& log, const ResetOptions& options) {
  std::map<TopicPartition, Offset> targets;
  for (const auto& topic : options.input_topics) {
    auto description = log.admin().describe_topic(topic);
    if (!description) return description.error();
    for (std::int32_t p = 0; p < description->partitions; ++p) {
      const TopicPartition tp{topic, Partition(p)};
      auto target = target_offset(log, tp, options);
      if (!target) return target.error();
      targets.emplace(tp, *target);
    }
  }
  if (targets.empty()) return Status();
  for (const auto& [tp, offset] : targets) {
    fmt::print("{}reset the offset of {}-{} to {}\n", options.dry_run ? "would " : "", tp.topic,
               tp.partition.value(), offset.value());
  }
  if (options.dry_run) return Status();
  auto consumer = log.make_consumer({.group_id = options.application_id, .client_id = "brook-cli"});
  if (!consumer) return consumer.error();
  std::vector<TopicPartition> partitions;
  for (const auto& [tp, offset] : targets) partitions.push_back(tp);
  if (auto s = (*consumer)->assign(partitions); !s.ok()) return s;
  if (auto s = (*consumer)->commit(targets); !s.ok()) return s;
  return (*consumer)->close();
}

Status reset(LogBackend& log, const ResetOptions& options) {
  auto group = log.admin().describe_group(options.application_id);
  if (!group) return group.error();
  if (const auto& members = group->members; !members.empty()) {
    return Status::failed_precondition(fmt::format(
        "application {} is running: its group has {} active member(s): {}; stop every "
        "instance first",
        options.application_id, members.size(), fmt::join(member_names(members), ", ")));
  }
  if (auto s = reset_offsets(log, options); !s.ok()) return s;
  auto topics = log.admin().list_topics();
  if (!topics) return topics.error();
  for (const auto& topic : *topics) {
    if (!is_internal_topic(topic, options.application_id)) continue;
    fmt::print("{}delete internal topic {}\n", options.dry_run ? "would " : "", topic);
    if (options.dry_run) continue;
    if (auto s = log.admin().delete_topic(topic); !s.ok()) return s;
  }
  if (options.local_state_dir) {
    const auto dir = *options.local_state_dir / options.application_id;
    std::error_code ec;
    if (std::filesystem::exists(dir, ec)) {
      fmt::print("{}delete local state {}\n", options.dry_run ? "would " : "", dir.string());
      if (!options.dry_run &&
          std::filesystem::remove_all(dir, ec) == static_cast<std::uintmax_t>(-1)) {
        return Status::io_error(fmt::format("cannot delete {}: {}", dir.string(), ec.message()));
      }
    }
  }
  fmt::print("{} {}\n", options.dry_run ? "dry run: nothing done for" : "reset application",
             options.application_id);
  return Status();
}

struct DescribeOptions {
  std::string application_id;
  std::optional<std::filesystem::path> local_state_dir;
};

Result<DescribeOptions> describe_options(const ParsedArgs& args) {
  if (auto s = check_positionals(args, {}, 0); !s.ok()) return error(s);
  auto id = application_id(args);
  if (!id) return error(id.error());
  return DescribeOptions{.application_id = *id, .local_state_dir = local_state_dir(args)};
}

// A store of the application: its changelog topic, if it has one, and what it holds on disk
// under the local state dir, by task.
struct StoreReport {
  std::string changelog;
  std::uintmax_t bytes = 0;
  std::vector<std::string> tasks;
};

std::uintmax_t bytes_under(const std::filesystem::path& dir) {
  std::uintmax_t bytes = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec)) bytes += entry.file_size(ec);
  }
  return bytes;
}

// Adds the stores in `app_dir` (<state.dir>/<application.id>: a directory per task, "global"
// for global stores, holding a directory per store) to `stores`.
void add_local_stores(const std::filesystem::path& app_dir,
                      std::map<std::string, StoreReport>& stores) {
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(app_dir, ec)) {
    if (!task.is_directory(ec)) continue;
    for (const auto& store : std::filesystem::directory_iterator(task.path(), ec)) {
      if (!store.is_directory(ec)) continue;
      auto& report = stores[store.path().filename().string()];
      report.bytes += bytes_under(store.path());
      report.tasks.push_back(task.path().filename().string());
    }
  }
  for (auto& [name, report] : stores) std::sort(report.tasks.begin(), report.tasks.end());
}

Status describe(LogBackend& log, const DescribeOptions& options) {
  const std::string& id = options.application_id;
  auto groups = log.admin().list_groups();
  if (!groups) return groups.error();
  const bool has_group = std::find(groups->begin(), groups->end(), id) != groups->end();
  auto topics = log.admin().list_topics();
  if (!topics) return topics.error();
  std::vector<std::string> internal_topics;
  std::map<std::string, StoreReport> stores;
  constexpr std::string_view kChangelog = "-changelog";
  for (const auto& topic : *topics) {
    if (!is_internal_topic(topic, id)) continue;
    internal_topics.push_back(topic);
    if (topic.ends_with(kChangelog)) {
      const auto name_length = topic.size() - id.size() - 1 - kChangelog.size();
      stores[topic.substr(id.size() + 1, name_length)].changelog = topic;
    }
  }
  std::error_code ec;
  const auto app_dir = options.local_state_dir.value_or("") / id;
  const bool has_local = options.local_state_dir && std::filesystem::is_directory(app_dir, ec);
  if (has_local) add_local_stores(app_dir, stores);
  if (!has_group && internal_topics.empty() && !has_local) {
    return Status::not_found(
        fmt::format("application {} has no consumer group, internal topic or local state{}", id,
                    options.local_state_dir ? " in " + options.local_state_dir->string() : ""));
  }

  auto group = log.admin().describe_group(id);
  if (!group) return group.error();
  auto lags = group_lag(log, id);
  if (!lags) return lags.error();
  fmt::print("Application: {}\tMembers: {}\tLag: {}\n", id, members_text(group->members),
             total_lag(*lags));
  fmt::print("Internal topics:{}\n", internal_topics.empty() ? " none" : "");
  for (const auto& topic : internal_topics) {
    auto description = log.admin().describe_topic(topic);
    if (!description) return description.error();
    auto ranges = partition_ranges(log, topic, description->partitions);
    if (!ranges) return ranges.error();
    std::int64_t records = 0;
    for (const auto& range : *ranges) records += range.end.value() - range.start.value();
    fmt::print("\t{}\tPartitions: {}\tRecords: {}\n", topic, description->partitions, records);
  }
  fmt::print("Stores:{}\n", stores.empty() ? " none" : "");
  for (const auto& [name, report] : stores) {
    std::string local;
    if (options.local_state_dir) {
      local = report.tasks.empty() ? "\tLocal: none"
                                   : fmt::format("\tLocal: {} bytes in tasks {}", report.bytes,
                                                 fmt::join(report.tasks, ", "));
    }
    fmt::print("\t{}\tChangelog: {}{}\n", name,
               report.changelog.empty() ? "none" : report.changelog, local);
  }
  fmt::print("Offsets:{}\n", lags->empty() ? " none" : "");
  print_lag(*lags);
  return Status();
}

}  // namespace

int run_app_command(std::span<const std::string> args) {
  if (args.empty()) return usage_error("app", Status::invalid_argument("missing subcommand"));
  const std::string& sub = args[0];
  if (sub == "reset") {
    return run_command("app reset", kResetUsage, args.subspan(1), kResetOptions, false,
                       reset_options, reset);
  }
  if (sub == "describe") {
    return run_command("app describe", kDescribeUsage, args.subspan(1), kDescribeOptions, false,
                       describe_options, describe);
  }
  if (sub == "-h" || sub == "--help" || sub == "help") return print_help(kAppUsage);
  return usage_error("app", Status::invalid_argument(
                                fmt::format("unknown subcommand '{}' (describe, reset)", sub)));
}

}  // namespace brook::cli

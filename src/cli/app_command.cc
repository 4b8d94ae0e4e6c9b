// `brook app reset`: Kafka's kafka-streams-application-reset for Brook applications, on the
// embedded log or Kafka.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_support.h"
#include "cli/commands.h"

namespace brook::cli {
namespace {

using internal::LogBackend;
using internal::OffsetSpec;
using internal::TopicPartition;

constexpr std::string_view kAppUsage = R"(usage: brook app <subcommand> [options]

subcommands:
  reset                 reset an application for reprocessing its input from the start (or
                        another point)

Run 'brook app reset --help' for details.
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
                        log; the state of an instance elsewhere must be deleted there)
  --dry-run             print what would be done, do nothing
)";

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
  ResetOptions options{.application_id = args.value_or("application-id", ""),
                       .input_topics = split_commas(args.value_or("input-topics", "")),
                       .dry_run = args.has("dry-run")};
  if (options.application_id.empty()) {
    return error(Status::invalid_argument("missing --application-id ID"));
  }
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
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    options.timestamp = Timestamp(*datetime ? **datetime : now - **duration * 1000);
  }
  if (auto dir = args.value("local-state-dir")) options.local_state_dir = *dir;
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
  auto members = log.admin().group_members(options.application_id);
  if (!members) return members.error();
  if (!members->empty()) {
    return Status::failed_precondition(
        fmt::format("application {} is running: its group has {} active member(s): {}; stop every "
                    "instance first",
                    options.application_id, members->size(), fmt::join(*members, ", ")));
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

}  // namespace

int run_app_command(std::span<const std::string> args) {
  if (args.empty()) return usage_error("app", Status::invalid_argument("missing subcommand"));
  const std::string& sub = args[0];
  if (sub == "reset") {
    return run_command("app reset", kResetUsage, args.subspan(1), kResetOptions, false,
                       reset_options, reset);
  }
  if (sub == "-h" || sub == "--help" || sub == "help") return print_help(kAppUsage);
  return usage_error("app",
                     Status::invalid_argument(fmt::format("unknown subcommand '{}' (reset)", sub)));
}

}  // namespace brook::cli

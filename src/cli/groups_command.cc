// `brook groups list|describe`: consumer groups, their committed offsets and lag, as Kafka's
// kafka-consumer-groups.sh.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "cli/command_support.h"
#include "cli/commands.h"
#include "cli/group_lag.h"

namespace brook::cli {
namespace {

using internal::LogBackend;

constexpr std::string_view kGroupsUsage = R"(usage: brook groups <subcommand> [options]

subcommands:
  list                  print the name of every consumer group, one per line
  describe GROUP        print a group's members, committed offsets, end offsets and lag

options of every subcommand (one of them):
  --data-dir DIR                the embedded data dir (default ./brook-data)
  --bootstrap-servers HOST:PORT[,HOST:PORT...]
                                the Kafka cluster to work on instead

Run 'brook groups <subcommand> --help' for details.
)";

constexpr std::string_view kListUsage =
    R"(usage: brook groups list [--data-dir DIR | --bootstrap-servers HOST:PORT]

Prints the name of every consumer group that has committed offsets or active members, one
per line, sorted. A Streams application's group is its application.id.
)";

constexpr std::string_view kDescribeUsage =
    R"(usage: brook groups describe GROUP [--data-dir DIR | --bootstrap-servers HOST:PORT]

Prints consumer group GROUP: a line with its active members (client-id@host on Kafka) and
its total lag, then one line per partition it has committed an offset for: the committed
offset (the next record the group reads), the end offset (the end read_committed consumers
reach) and the lag between them ("-" if the topic no longer exists). Fields are
tab-separated:

  Group: wc	Members: none	Lag: 3
  	Topic: words	Partition: 0	Committed: 10	End: 12	Lag: 2
  	Topic: words	Partition: 1	Committed: 7	End: 8	Lag: 1

Fails (exit 1) if no group GROUP has committed offsets or members.
)";

constexpr OptionSpec kLogOnly[] = {kDataDirOption, kBootstrapServersOption};
constexpr std::string_view kGroup[] = {"GROUP"};

Status list(LogBackend& log, const ParsedArgs&) {
  auto groups = log.admin().list_groups();
  if (!groups) return groups.error();
  for (const auto& group : *groups) fmt::print("{}\n", group);
  return Status();
}

Status describe(LogBackend& log, const ParsedArgs& args) {
  const std::string& group = args.positionals()[0];
  auto groups = log.admin().list_groups();
  if (!groups) return groups.error();
  if (std::find(groups->begin(), groups->end(), group) == groups->end()) {
    return Status::not_found(
        fmt::format("consumer group {} has no committed offsets or members", group));
  }
  auto description = log.admin().describe_group(group);
  if (!description) return description.error();
  auto lags = group_lag(log, group);
  if (!lags) return lags.error();
  fmt::print("Group: {}\tMembers: {}\tLag: {}\n", group, members_text(description->members),
             total_lag(*lags));
  print_lag(*lags);
  return Status();
}

}  // namespace

int run_groups(std::span<const std::string> args) {
  if (args.empty()) return usage_error("groups", Status::invalid_argument("missing subcommand"));
  const std::string& sub = args[0];
  const auto rest = args.subspan(1);
  if (sub == "list") {
    return run_command("groups list", kListUsage, rest, kLogOnly, false, positionals({}, 0), list);
  }
  if (sub == "describe") {
    return run_command("groups describe", kDescribeUsage, rest, kLogOnly, false,
                       positionals(kGroup, 1), describe);
  }
  if (sub == "-h" || sub == "--help" || sub == "help") return print_help(kGroupsUsage);
  return usage_error("groups", Status::invalid_argument(
                                   fmt::format("unknown subcommand '{}' (list, describe)", sub)));
}

}  // namespace brook::cli

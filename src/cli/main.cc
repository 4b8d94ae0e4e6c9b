// The `brook` command: topics, produce, consume, groups, app and cdc on an embedded data dir or
// a Kafka cluster.
#include <fmt/format.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_support.h"
#include "cli/commands.h"

namespace brook::cli {
namespace {

constexpr std::string_view kUsage = R"(usage: brook <command> [options]

Works on an embedded data dir: --data-dir DIR, default ./brook-data. One process at a time
may open a data dir; while another holds it, a command fails with "... is locked by another
process". With --bootstrap-servers HOST:PORT[,HOST:PORT...] instead, every command works on
that Kafka cluster (giving both options is a usage error).

commands:
  topics list                       list topics
  topics create NAME --partitions N [--config KEY=VALUE]...
                                    create a topic
  topics describe [NAME]            partitions, configs and offsets of topics
  topics delete NAME                delete a topic
  produce TOPIC                     write lines of stdin (KEY<TAB>VALUE or VALUE) as records
  consume TOPIC                     print records, one per line
  cdc postgres --dsn DSN --publication NAME --slot NAME --topic-prefix PREFIX
                                    write a PostgreSQL database's changes as Debezium events
  groups list                       list consumer groups
  groups describe GROUP             committed offsets, end offsets and lag of a group
  app describe --application-id ID  internal topics, stores and lag of an application
  app reset --application-id ID [--input-topics T,...]
                                    reset an application to reprocess its input

Run 'brook <command> --help' for the options of a command.

exit status: 0 success, 1 the log refused (e.g. unknown topic, existing topic, locked data
dir, unreachable cluster; printed as "brook: <status>"), 2 bad command line.
)";

int run(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage_error("", Status::invalid_argument("missing command"));
  const std::string& command = args[0];
  const std::span<const std::string> rest = std::span(args).subspan(1);
  if (command == "-h" || command == "--help" || command == "help") return print_help(kUsage);
  if (command == "topics") return run_topics(rest);
  if (command == "produce") return run_produce(rest);
  if (command == "consume") return run_consume(rest);
  if (command == "cdc") return run_cdc(rest);
  if (command == "groups") return run_groups(rest);
  if (command == "app") return run_app_command(rest);
  return usage_error("", Status::invalid_argument(fmt::format("unknown command '{}'", command)));
}

}  // namespace
}  // namespace brook::cli

int main(int argc, char** argv) { return brook::cli::run(argc, argv); }

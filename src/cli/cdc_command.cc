// `brook cdc postgres`: the PostgreSQL source (brook/postgres_source.h) as a process of its own.
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <future>
#include <limits>
#include <stop_token>
#include <thread>

#include "cdc/postgres_source.h"
#include "cli/command_support.h"
#include "cli/commands.h"

namespace brook::cli {
namespace {

constexpr std::string_view kCommand = "cdc postgres";

constexpr std::string_view kUsage =
    R"(usage: brook cdc postgres --dsn DSN --publication NAME --slot NAME --topic-prefix PREFIX [options]

Change data capture from PostgreSQL: writes the changes of the tables of a publication to the
log as Debezium's change events, one topic per table, PREFIX.<schema>.<table>, keyed by the
primary key. First a snapshot of every table (creating the replication slot), then the changes
committed after it, exactly once, until SIGINT or SIGTERM. The server needs wal_level=logical,
the publication, and a user that may replicate and read the tables (docs/patterns/cdc.md).

  --dsn DSN             libpq connection string, e.g. "host=db user=cdc password=... dbname=shop"
  --publication NAME    CREATE PUBLICATION NAME FOR TABLE ... (or FOR ALL TABLES)
  --slot NAME           the logical replication slot (lower-case letters, digits, _)
  --topic-prefix PREFIX the topics' prefix (Debezium's topic.prefix)
  --partitions N        partitions of the topics created (default 1)
  --offsets-topic NAME  where the source keeps its position (default PREFIX.cdc-offsets)
  --max-batch-changes N the most changes one log transaction holds (default 10000)
  --data-dir DIR        the embedded data dir (default ./brook-data)
  --bootstrap-servers HOST:PORT[,HOST:PORT...]
                        the Kafka cluster to write to instead

example:
  brook cdc postgres --dsn "host=localhost dbname=shop user=cdc" --publication brook \
      --slot brook_shop --topic-prefix pg --data-dir ./brook-data
)";

constexpr OptionSpec kOptions[] = {
    kDataDirOption,
    kBootstrapServersOption,
    {.name = "dsn", .takes_value = true},
    {.name = "publication", .takes_value = true},
    {.name = "slot", .takes_value = true},
    {.name = "topic-prefix", .takes_value = true},
    {.name = "partitions", .takes_value = true},
    {.name = "offsets-topic", .takes_value = true},
    {.name = "max-batch-changes", .takes_value = true},
};

Result<PostgresSourceConfig> source_config(const ParsedArgs& args) {
  if (!args.positionals().empty()) {
    return error(Status::invalid_argument(
        fmt::format("unexpected argument '{}'", args.positionals().front())));
  }
  PostgresSourceConfig config;
  for (auto [name, field] :
       {std::pair{"dsn", &config.dsn}, std::pair{"publication", &config.publication},
        std::pair{"slot", &config.slot}, std::pair{"topic-prefix", &config.topic_prefix}}) {
    auto value = args.value(name);
    if (!value) return error(Status::invalid_argument(fmt::format("--{} is required", name)));
    *field = *value;
  }
  auto partitions = args.int_value("partitions", 1, std::numeric_limits<std::int32_t>::max());
  if (!partitions) return error(partitions.error());
  config.partitions = static_cast<std::int32_t>(partitions->value_or(1));
  auto batch = args.int_value("max-batch-changes", 1, std::numeric_limits<std::int64_t>::max());
  if (!batch) return error(batch.error());
  config.max_batch_changes = batch->value_or(config.max_batch_changes);
  config.offsets_topic = args.value_or("offsets-topic", "");
  return config;
}

// SIGINT and SIGTERM, which stop the source.
sigset_t stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

// Runs the source until SIGINT or SIGTERM (then it commits what it read and stops) or an error.
Status run_source(internal::LogBackend& log, const PostgresSourceConfig& config) {
  const sigset_t signals = stop_signals();
  std::stop_source stop;
  auto source = std::async(std::launch::async, [&] {
    return internal::run_postgres_source(config, log, stop.get_token());
  });
  const timespec tick{.tv_sec = 0, .tv_nsec = 100'000'000};
  while (source.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    if (sigtimedwait(&signals, nullptr, &tick) >= 0) stop.request_stop();
  }
  return source.get();
}

}  // namespace

int run_cdc(std::span<const std::string> args) {
  if (args.empty() || args[0] != "postgres") {
    if (!args.empty() && wants_help(args)) return print_help(kUsage);
    return usage_error(
        "cdc", Status::invalid_argument("the only source is postgres: brook cdc postgres --help"));
  }
  // Blocked from the start, so a signal that comes while the log opens still stops the source
  // cleanly (sigtimedwait sees it pending); the source's thread inherits the mask.
  const sigset_t signals = stop_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return run_command(kCommand, kUsage, args.subspan(1), kOptions, /*create_dir=*/true,
                     source_config, run_source);
}

}  // namespace brook::cli

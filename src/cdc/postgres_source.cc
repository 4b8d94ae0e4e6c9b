// run_postgres_source(): checks, the snapshot if the log does not hold one, then the slot's
// changes, reconnecting whenever the server or the network goes away.
#include "cdc/postgres_source.h"

#include <fmt/format.h>

#include <condition_variable>
#include <mutex>

#include "backend/open_backend.h"
#include "brook/streams.h"
#include "cdc/change_streamer.h"
#include "cdc/pg_catalog.h"
#include "cdc/snapshot.h"
#include "core/log.h"

namespace brook::internal {
namespace {

// How long the source waits for its slot to be free before it gives up.
constexpr std::chrono::seconds kSlotInUseWait{30};

Status check_config(const PostgresSourceConfig& config) {
  std::vector<std::string> problems;
  for (auto [name, value] :
       {std::pair{"dsn", &config.dsn}, std::pair{"publication", &config.publication},
        std::pair{"slot", &config.slot}, std::pair{"topic_prefix", &config.topic_prefix}}) {
    if (value->empty()) problems.push_back(fmt::format("{} is required", name));
  }
  // PostgreSQL's rule for slot names.
  if (!std::all_of(config.slot.begin(), config.slot.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      })) {
    problems.push_back(fmt::format(
        "slot '{}' may hold only lower-case letters, digits and underscores", config.slot));
  }
  if (config.partitions < 1) problems.push_back("partitions must be at least 1");
  if (config.max_batch_changes < 1) problems.push_back("max_batch_changes must be at least 1");
  if (config.status_interval.count() < 1) problems.push_back("status_interval must be positive");
  if (problems.empty()) return Status();
  std::string message = "cdc: the PostgreSQL source's config is wrong:";
  for (const auto& problem : problems) message += "\n  " + problem;
  return Status::invalid_argument(std::move(message));
}

// Waits `delay` or until a stop is requested.
void pause(std::chrono::milliseconds delay, const std::stop_token& stop) {
  std::mutex mutex;
  std::condition_variable_any woken;
  std::unique_lock lock(mutex);
  woken.wait_for(lock, stop, delay, [] { return false; });
}

// Checks the slot against what the log says, once no connection uses it: where the source
// starts. Drops a slot whose snapshot never reached the log (it is taken again).
Status check_slot(PgConnection& sql, const PostgresSourceConfig& config,
                  const std::optional<SourcePosition>& position, const std::stop_token& stop) {
  auto slot = find_slot(sql, config.slot);
  // A slot in use: a source killed a moment ago (its walsender has not noticed yet), or
  // another source of the same slot.
  const auto deadline = std::chrono::steady_clock::now() + kSlotInUseWait;
  while (slot && *slot && (*slot)->active && !stop.stop_requested()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::failed_precondition(fmt::format(
          "cdc: replication slot {} is in use by another connection (another source of the "
          "same slot?) for over {} s",
          config.slot, kSlotInUseWait.count()));
    }
    pause(std::chrono::milliseconds(100), stop);
    slot = find_slot(sql, config.slot);
  }
  if (!slot) return slot.error();
  const bool snapshot_done = position && position->snapshot_done;
  if (!*slot) {
    if (!snapshot_done) return Status();
    return Status::failed_precondition(fmt::format(
        "cdc: replication slot {} is gone, but the log holds its changes up to LSN {} (topic "
        "{}): the changes since are lost. To start over with a new snapshot, delete the "
        "position (the topic's record for the slot) or choose another slot",
        config.slot, lsn_text(position->commit_lsn), offsets_topic(config)));
  }
  if ((*slot)->plugin != "pgoutput" || (*slot)->database != sql.database()) {
    return Status::failed_precondition(
        fmt::format("cdc: replication slot {} is of plugin {} in database {}, not of pgoutput in "
                    "database {}",
                    config.slot, (*slot)->plugin, (*slot)->database, sql.database()));
  }
  if (snapshot_done) return Status();
  log(LogLevel::kWarn,
      "cdc: slot {} exists but its snapshot is not in the log (a source stopped while taking "
      "it): dropping the slot and taking the snapshot again",
      config.slot);
  return sql.execute("drop the replication slot", "SELECT pg_drop_replication_slot($1)",
                     {config.slot});
}

// Streams the slot's changes, reconnecting (both connections) after each kUnavailable.
Status stream_changes(PgConnection sql, const PostgresSourceConfig& config,
                      const ChangeRecords& records, ChangeLogWriter& writer,
                      const std::stop_token& stop) {
  ChangeStreamer streamer(config, records, writer, sql.database());
  std::optional<PgConnection> catalog(std::move(sql));
  while (!stop.stop_requested()) {
    Status status;
    if (!catalog) {
      auto reconnected = PgConnection::connect(config.dsn, PgConnection::Kind::kSql);
      if (reconnected) catalog = std::move(*reconnected);
      status = reconnected ? Status() : reconnected.error();
    }
    if (status.ok()) {
      auto replication = PgConnection::connect(config.dsn, PgConnection::Kind::kReplication);
      auto stream =
          replication ? ReplicationStream::start(std::move(*replication), config.slot,
                                                 writer.committed().commit_lsn, config.publication)
                      : Result<ReplicationStream>(error(replication.error()));
      status = stream ? streamer.stream(*catalog, *stream, stop) : stream.error();
    }
    if (status.code() != StatusCode::kUnavailable) return status;
    log(LogLevel::kWarn, "cdc: {}; reconnecting in {} ms", status.message(),
        config.reconnect_delay.count());
    if (auto s = writer.abort(); !s.ok()) return s;
    streamer.reset();
    catalog.reset();
    pause(config.reconnect_delay, stop);
  }
  return Status();
}

}  // namespace

std::string offsets_topic(const PostgresSourceConfig& config) {
  return config.offsets_topic.empty() ? config.topic_prefix + ".cdc-offsets" : config.offsets_topic;
}

Status run_postgres_source(const PostgresSourceConfig& config, LogBackend& log,
                           std::stop_token stop) {
  if (auto s = check_config(config); !s.ok()) return s;
  auto sql = PgConnection::connect(config.dsn, PgConnection::Kind::kSql);
  if (!sql) return sql.error();
  if (auto s = check_source_preconditions(*sql, config.publication); !s.ok()) return s;
  auto position = read_position(log, offsets_topic(config), config.slot);
  if (!position) return position.error();
  if (auto s = check_slot(*sql, config, *position, stop); !s.ok()) return s;
  const ChangeRecords records(config.topic_prefix);
  SourcePosition start = position->value_or(SourcePosition{});
  if (!start.snapshot_done) {
    auto taken = take_snapshot(*sql, config, records, log, stop);
    if (!taken) return taken.error();
    if (stop.stop_requested()) return Status();
    start = *taken;
  }
  auto writer = ChangeLogWriter::open(log, config, start);
  if (!writer) return writer.error();
  return stream_changes(std::move(*sql), config, records, *writer, stop);
}

}  // namespace brook::internal

namespace brook {

Status run_postgres_source(const PostgresSourceConfig& config,
                           const std::map<std::string, std::string>& log, std::stop_token stop) {
  for (const auto& [key, value] : log) {
    if (key != "bootstrap.servers" && key != "data.dir") {
      return Status::invalid_argument(fmt::format(
          "cdc: unknown log setting '{}' (the source takes bootstrap.servers or data.dir)", key));
    }
  }
  const auto servers = log.find("bootstrap.servers");
  const auto dir = log.find("data.dir");
  if (servers != log.end() && dir != log.end()) {
    return Status::invalid_argument("cdc: give bootstrap.servers or data.dir, not both");
  }
  if (servers != log.end() && servers->second.empty()) {
    return Status::invalid_argument("cdc: bootstrap.servers names no servers");
  }
  auto backend =
      internal::open_backend({.bootstrap_servers = servers == log.end() ? "" : servers->second},
                             {.data_dir = dir == log.end() ? "brook-data" : dir->second});
  if (!backend) return backend.error();
  return internal::run_postgres_source(config, **backend, std::move(stop));
}

Status run_postgres_source(const PostgresSourceConfig& config, const Streams& app,
                           std::stop_token stop) {
  auto backend = app.log_backend();
  if (!backend) {
    return Status::failed_precondition(
        "cdc: the application the source writes into is not running (start() it first)");
  }
  return internal::run_postgres_source(config, *backend, std::move(stop));
}

}  // namespace brook

// The PostgreSQL source's throughput: rows/s of one UPDATE of every row of a table (1 M rows,
// one transaction) from the COMMIT until the source has written every change event to the
// embedded log and confirmed it, next to pg_recvlogical (PostgreSQL's own client) reading the
// same changes from a slot of its own to /dev/null, with the ratio. Also the initial snapshot's
// rows/s. Both sides decode through the server's pgoutput, so the baseline is what the server
// and the protocol allow; the difference is the source's own work (decoding the messages,
// building Debezium's JSON envelopes, writing them in log transactions with its position).
//
// Needs a PostgreSQL server with wal_level=logical: BROOK_POSTGRES_DSN, as printed by
// scripts/postgres.sh start. BROOK_CDC_ROWS changes the table's size (default 1000000),
// BROOK_CDC_BURSTS the number of bursts (default 5; the first to read a burst alternates, the
// median ratio is printed last). Files go to $BROOK_BENCH_DIR, else the system temporary
// directory.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "backend/embedded/embedded_log.h"
#include "bench_env.h"
#include "cdc/postgres_source.h"
#include "postgres_sql.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string& what) { brook::bench::fail("cdc_postgres_bench", what); }

using brook::bench::Sql;

// Runs the source on `log` until the slot has confirmed `until` (an LSN); returns the seconds.
double run_source_until(const brook::PostgresSourceConfig& config, brook::internal::LogBackend& log,
                        Sql& sql, const std::string& until) {
  const auto start = Clock::now();
  brook::Status status;
  std::jthread source([&](std::stop_token stop) {
    status = brook::internal::run_postgres_source(config, log, stop);
  });
  // Streaming (past the snapshot: its walsender is in catchup or streaming state) and
  // confirmed up to `until`.
  const std::string reached = fmt::format(
      "SELECT s.confirmed_flush_lsn >= '{}' FROM pg_replication_slots s JOIN "
      "pg_stat_replication r ON r.pid = s.active_pid WHERE r.state IN ('catchup', 'streaming') "
      "AND s.slot_name = '{}'",
      until, config.slot);
  while (sql.run(reached) != "t") {
    if (!status.ok()) fail(status.to_string());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polls the server
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  source.request_stop();
  source.join();
  if (!status.ok()) fail(status.to_string());
  return seconds;
}

}  // namespace

int main() {
  const std::string server = brook::bench::postgres_server("cdc_postgres_bench");
  const std::int64_t rows = brook::bench::env_or("BROOK_CDC_ROWS", 1'000'000);
  const std::int64_t bursts =
      std::max<std::int64_t>(1, brook::bench::env_or("BROOK_CDC_BURSTS", 5));
  const char* bench_dir = std::getenv("BROOK_BENCH_DIR");
  const fs::path dir = fs::path(bench_dir ? bench_dir : fs::temp_directory_path().string()) /
                       fmt::format("brook-cdc-bench-{}", ::getpid());
  const std::string database = fmt::format("brook_bench_{}", ::getpid());
  const std::string dsn = brook::bench::create_database(server, database);
  Sql sql(dsn);
  sql.run("CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL, label text NOT NULL)");
  sql.run(
      fmt::format("INSERT INTO t SELECT g, 0, 'row ' || g FROM generate_series(1, {}) g", rows));
  sql.run("CREATE PUBLICATION brook FOR TABLE t");

  fs::remove_all(dir);
  auto log = brook::internal::open_embedded_log({.data_dir = dir});
  if (!log) fail(log.error().to_string());
  const brook::PostgresSourceConfig config{
      .dsn = dsn, .publication = "brook", .slot = database, .topic_prefix = "pg"};

  // The snapshot: from the start until the source streams (its slot is then active).
  const double snapshot =
      run_source_until(config, **log, sql, sql.run("SELECT pg_current_wal_insert_lsn()"));

  // The bursts: one transaction each, read by the source and by pg_recvlogical from its own
  // slot, in turns (the first to read a burst may pay for reading its WAL cold).
  const std::string baseline_slot = database + "_baseline";
  sql.run(
      fmt::format("SELECT pg_create_logical_replication_slot('{}', 'pgoutput')", baseline_slot));
  auto run_baseline = [&](const std::string& end) {
    const auto start = Clock::now();
    const std::string recvlogical = fmt::format(
        "/usr/lib/postgresql/15/bin/pg_recvlogical -d '{}' --slot {} --start --no-loop "
        "-o proto_version=1 -o publication_names=brook -E {} -f /dev/null",
        dsn, baseline_slot, end);
    if (std::system(recvlogical.c_str()) != 0) fail("pg_recvlogical failed: " + recvlogical);
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  fmt::print("PostgreSQL source, {} rows (one UPDATE of all of them, one transaction a burst)\n",
             rows);
  fmt::print("{:<44}{:>14}{:>16}{:>10}\n", "case", "brook rows/s", "baseline rows/s", "ratio");
  fmt::print("{:<44}{:>14.0f}{:>16}{:>10}\n", "initial snapshot (no baseline)", rows / snapshot,
             "-", "-");
  std::vector<double> ratios;
  for (std::int64_t burst = 0; burst < bursts; ++burst) {
    sql.run("UPDATE t SET n = n + 1");
    const std::string end = sql.run("SELECT pg_current_wal_insert_lsn()");
    const bool brook_first = burst % 2 == 0;
    double brook_seconds = 0, baseline_seconds = 0;
    if (brook_first) brook_seconds = run_source_until(config, **log, sql, end);
    baseline_seconds = run_baseline(end);
    if (!brook_first) brook_seconds = run_source_until(config, **log, sql, end);
    ratios.push_back(baseline_seconds / brook_seconds);
    fmt::print("{:<44}{:>14.0f}{:>16.0f}{:>10.2f}\n",
               fmt::format("update burst {} ({} first)", burst + 1,
                           brook_first ? "Brook" : "pg_recvlogical"),
               rows / brook_seconds, rows / baseline_seconds, ratios.back());
  }
  std::sort(ratios.begin(), ratios.end());
  fmt::print("{:<44}{:>14}{:>16}{:>10.2f}\n", "update burst, median ratio", "", "",
             ratios[ratios.size() / 2]);

  log->reset();
  fs::remove_all(dir);
  brook::bench::drop_database(server, database);
  return 0;
}

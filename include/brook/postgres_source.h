// Change data capture from PostgreSQL, built in: the changes of the tables of a publication,
// read by logical replication (the pgoutput plugin, PostgreSQL 10 and later), written to the
// log as the change events Debezium's PostgreSQL connector writes (brook/change_event.h), one
// topic per table, `<topic_prefix>.<schema>.<table>`, keyed by the primary key.
//
//   brook::PostgresSourceConfig config{.dsn = "host=db user=cdc dbname=shop",
//                                      .publication = "brook", .slot = "brook_shop",
//                                      .topic_prefix = "pg"};
//   std::jthread cdc([&](std::stop_token stop) {
//     if (auto s = brook::run_postgres_source(config, {{"bootstrap.servers", "kafka:9092"}}, stop);
//         !s.ok()) brook::report(s);
//   });
//
// First a snapshot: the slot is created with an exported snapshot and every row of every table
// of the publication is read in it (`r` events), written in one log transaction (whole or not
// at all); then the changes committed after it, from the slot. Exactly once: the changes and the
// source's position (the offsets topic) are written in one log transaction, and the slot's
// confirmed LSN advances only after that transaction commits, so a killed source, a restarted
// server or a broken network loses and repeats nothing. See docs/patterns/cdc.md for the server's
// setup, the types and the limits.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <stop_token>
#include <string>

#include "brook/status.h"

namespace brook {

class Streams;

struct PostgresSourceConfig {
  std::string dsn;           // libpq connection string or URI: host, port, user, password, dbname
  std::string publication;   // CREATE PUBLICATION <publication> FOR TABLE ... | FOR ALL TABLES
  std::string slot;          // the logical replication slot, created with the snapshot
  std::string topic_prefix;  // Debezium's topic.prefix: topics <prefix>.<schema>.<table>
  std::int32_t partitions = 1;  // of the topics the source creates
  // The source's position: a compacted topic, one record per slot. Default
  // `<topic_prefix>.cdc-offsets`.
  std::string offsets_topic;
  // A log transaction of changes holds at most this many, and is committed at the latest this
  // long after its first change (sooner when PostgreSQL has nothing more to send). The
  // snapshot is one transaction, whatever its size.
  std::int64_t max_batch_changes = 10'000;
  std::chrono::milliseconds max_batch_delay{100};
  // How often the source tells the server how far it got, at the least. Keep it well below
  // the server's wal_sender_timeout (60 s by default).
  std::chrono::milliseconds status_interval{10'000};
  // The wait before reconnecting after the server or the network went away.
  std::chrono::milliseconds reconnect_delay{1'000};
};

// Runs the source until `stop` is requested (then commits what it read and returns OK) or it
// meets an error it cannot recover from. `log` chooses the log as for brook::Streams:
// "bootstrap.servers" (Kafka) or "data.dir" (the embedded log, default ./brook-data; it must not
// be open in another process). Before anything runs, kInvalidArgument for a config field
// missing or out of range, and kFailedPrecondition naming every reason the server refuses (a
// wrong password, wal_level not logical, no such publication, no permission to replicate or
// to read a table), or saying the slot is lost (the log says the snapshot was taken, but the
// slot is gone: its changes since are lost, and the source does not silently take a new
// snapshot). While running it reconnects whenever the server or network goes away.
Status run_postgres_source(const PostgresSourceConfig& config,
                           const std::map<std::string, std::string>& log, std::stop_token stop);

// The same, inside an application: writes to the log that `app` runs on (the way to feed an
// application on the embedded log, whose data dir is one process's). `app` must be started;
// kFailedPrecondition otherwise. The log stays open until the source returns, even if `app`
// is closed first.
Status run_postgres_source(const PostgresSourceConfig& config, const Streams& app,
                           std::stop_token stop);

}  // namespace brook

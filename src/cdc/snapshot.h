// The PostgreSQL source's initial snapshot: the slot is created with an exported snapshot, and
// every row of every table of the publication, as of that snapshot, is written as a read (`r`)
// event, all in one log transaction: a snapshot is in the log whole or not at all, so a source
// stopped while taking it (killed, or a row deleted before it is taken again) leaves neither
// repeated nor stale rows. The changes the slot streams afterwards are exactly those committed
// after it.
#pragma once

#include <chrono>
#include <stop_token>

#include "brook/postgres_source.h"
#include "cdc/change_log_writer.h"
#include "cdc/change_records.h"
#include "cdc/pg_connection.h"

namespace brook::internal {

// How long the snapshot's log transaction may stay open: Kafka brokers allow at most 15 min.
inline constexpr std::chrono::minutes kSnapshotTransactionTimeout{15};

// Creates `config.slot` (pgoutput) on a replication connection of its own, reads the snapshot
// on `sql`, and writes it to `log` in one transaction whose position says the snapshot is done,
// at the slot's consistent point: the position returned. A stop request aborts the
// transaction and returns the position with the snapshot not done (a restart redoes it).
Result<SourcePosition> take_snapshot(PgConnection& sql, const PostgresSourceConfig& config,
                                     const ChangeRecords& records, LogBackend& log,
                                     std::stop_token stop);

}  // namespace brook::internal

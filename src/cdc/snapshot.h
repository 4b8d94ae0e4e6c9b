// The PostgreSQL source's initial snapshot: the slot is created with an exported snapshot, and
// every row of every table of the publication, as of that snapshot, is written as a read (`r`)
// event. The changes the slot streams afterwards are exactly those committed after it.
#pragma once

#include <stop_token>

#include "brook/postgres_source.h"
#include "cdc/change_log_writer.h"
#include "cdc/change_records.h"
#include "cdc/pg_connection.h"

namespace brook::internal {

// Creates `config.slot` (pgoutput) on `replication`, reads the snapshot on `sql`, and writes it
// through `writer` in transactions of at most config.max_batch_changes rows; the last one's
// position says the snapshot is done, at the slot's consistent point. A stop request aborts
// the open transaction and returns OK with the snapshot not done (a restart redoes it).
Status take_snapshot(PgConnection& sql, PgConnection& replication,
                     const PostgresSourceConfig& config, const ChangeRecords& records,
                     ChangeLogWriter& writer, std::stop_token stop);

}  // namespace brook::internal

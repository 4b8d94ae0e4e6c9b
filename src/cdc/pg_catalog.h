// What the PostgreSQL source asks the server's catalog: whether it can run at all (checked
// before anything runs), the tables of a publication, a table's columns and primary key, and
// the replication slot.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "brook/status.h"
#include "cdc/pg_connection.h"
#include "cdc/pgoutput.h"

namespace brook::internal {

// Every reason the source cannot run, at once (kFailedPrecondition, one line each): wal_level
// is not logical; `publication` does not exist; the user may neither replicate (REPLICATION)
// nor is a superuser; a table of the publication the user may not SELECT.
Status check_source_preconditions(PgConnection& sql, const std::string& publication);

// The tables of `publication` (schema, name, and oid), in a stable order.
Result<std::vector<PgRelation>> publication_tables(PgConnection& sql,
                                                   const std::string& publication);

// The relation `oid` as the catalog describes it now: its columns in order, each marked as
// part of the primary key or not (none when it has no primary key). kNotFound if it is gone.
Result<PgRelation> describe_relation(PgConnection& sql, std::uint32_t oid);

// The names of the primary-key columns of relation `oid` (empty: none).
Result<std::vector<std::string>> primary_key_columns(PgConnection& sql, std::uint32_t oid);

struct SlotState {
  std::string plugin;
  std::string database;
  bool active = false;
  std::optional<Lsn> confirmed_flush;
};
// The logical replication slot `slot`, if it exists.
Result<std::optional<SlotState>> find_slot(PgConnection& sql, const std::string& slot);

}  // namespace brook::internal

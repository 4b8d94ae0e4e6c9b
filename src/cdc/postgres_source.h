// The PostgreSQL source on a log (brook/postgres_source.h): the snapshot, then the changes of
// the replication stream, written in log transactions with the source's position.
#pragma once

#include <stop_token>

#include "backend/log_backend.h"
#include "brook/postgres_source.h"

namespace brook::internal {

// run_postgres_source() on an open log (the CLI's, a test's).
Status run_postgres_source(const PostgresSourceConfig& config, LogBackend& log,
                           std::stop_token stop);

// The config's offsets topic, with its default filled in.
std::string offsets_topic(const PostgresSourceConfig& config);

}  // namespace brook::internal

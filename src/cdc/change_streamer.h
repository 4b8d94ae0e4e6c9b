// The PostgreSQL source after its snapshot: the slot's changes, decoded (pgoutput.h), turned
// into Debezium's records (change_records.h) and written in log transactions
// (change_log_writer.h); the slot's confirmed LSN advances only past changes the log has
// committed.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <stop_token>

#include "brook/postgres_source.h"
#include "cdc/change_log_writer.h"
#include "cdc/change_records.h"
#include "cdc/pg_connection.h"
#include "cdc/replication_stream.h"

namespace brook::internal {

class ChangeStreamer {
 public:
  ChangeStreamer(const PostgresSourceConfig& config, const ChangeRecords& records,
                 ChangeLogWriter& writer, const std::string& database);

  // Streams `stream` until `stop` is requested (commits what was read, confirms it, returns
  // OK) or an error: kUnavailable when the server or the network went away (abort the log's
  // transaction, reconnect, call again: the server resends from the confirmed LSN and what the
  // log holds is skipped), anything else for good. `sql` reads the catalog (primary keys).
  Status stream(PgConnection& sql, ReplicationStream& stream, const std::stop_token& stop);

  // Forgets the transaction being read and what waited for the log's aborted transaction
  // (after a broken connection: the server sends it again).
  void reset() {
    transaction_.reset();
    on_commit_ = 0;
  }

 private:
  struct Transaction {
    Lsn final_lsn = 0;
    std::uint32_t xid = 0;
    std::int64_t commit_ms = 0;
    std::int64_t changes = 0;  // read so far
  };

  Status on_message(PgConnection& sql, const PgMessage& message, Lsn lsn);
  Status on_relation(PgConnection& sql, PgRelation relation);
  Status on_change(const PgMessage& message, Lsn lsn);
  Status commit(ReplicationStream& stream);
  Status confirm(ReplicationStream& stream);

  const PostgresSourceConfig& config_;
  const ChangeRecords& records_;
  ChangeLogWriter& writer_;
  ChangeSource source_;  // of the change being written: one, its strings reused
  std::map<std::uint32_t, PgRelation> relations_;  // by oid, keyed by their primary keys
  std::optional<Transaction> transaction_;
  std::vector<ProducerRecord> out_;
  Lsn confirmable_ = 0;  // every change before it is committed in the log
  Lsn on_commit_ = 0;    // confirmable once the log's open transaction commits
  Lsn confirmed_ = 0;    // the last LSN sent to the server
  std::chrono::steady_clock::time_point last_status_;
};

}  // namespace brook::internal

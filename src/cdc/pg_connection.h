// A PostgreSQL connection through libpq: plain SQL, and the replication protocol's commands
// (a connection opened with replication=database). The only place besides the replication
// stream (replication_stream.h) that calls libpq.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "brook/status.h"

struct pg_conn;
struct pg_result;

namespace brook::internal {

// The rows of a query's result, as text (nullopt for SQL NULL), with each column's name and
// type.
struct PgRows {
  std::vector<std::string> names;
  std::vector<std::uint32_t> type_oids;
  std::vector<std::vector<std::optional<std::string>>> rows;
};

class PgConnection {
 public:
  enum class Kind { kSql, kReplication };

  // Connects to `dsn` (a libpq connection string or URI). kReplication adds
  // replication=database. Every connection's session uses the settings Brook reads values
  // with (DateStyle ISO, TimeZone UTC, extra_float_digits 3, client_encoding UTF8). kUnavailable
  // with libpq's message when the server cannot be reached (it may be restarting),
  // kFailedPrecondition when it refuses the login (a wrong password, no such user or database, no
  // replication permission in pg_hba.conf).
  static Result<PgConnection> connect(const std::string& dsn, Kind kind);

  PgConnection(PgConnection&&) noexcept = default;
  PgConnection& operator=(PgConnection&&) noexcept = default;
  ~PgConnection();

  // Runs `sql` (one statement, or a replication command), with `params` bound to $1, $2, ...
  // (text; kSql only). The error names `what` and the server's message: kUnavailable if the
  // connection broke, kFailedPrecondition for an error the server reported.
  Result<PgRows> query(std::string_view what, const std::string& sql,
                       const std::vector<std::string>& params = {});
  Status execute(std::string_view what, const std::string& sql,
                 const std::vector<std::string>& params = {});

  // `name` quoted as an SQL identifier ("my table" -> "\"my table\"").
  std::string quote_identifier(std::string_view name) const;
  // `text` quoted as an SQL string literal ("it's" -> "'it''s'").
  std::string quote_literal(std::string_view text) const;
  // The database this connection is to.
  std::string database() const;
  pg_conn* raw() const { return conn_.get(); }

 private:
  struct Closer {
    void operator()(pg_conn* conn) const;
  };
  explicit PgConnection(pg_conn* conn) : conn_(conn) {}

  std::unique_ptr<pg_conn, Closer> conn_;
};

// A connection's error: its message, trimmed, naming `what` was being done.
Status pg_error(pg_conn* conn, std::string_view what);

}  // namespace brook::internal

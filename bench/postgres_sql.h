// A plain SQL connection for the PostgreSQL benchmarks; any error ends the run.
#pragma once

#include <fmt/format.h>
#include <libpq-fe.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace brook::bench {

[[noreturn]] inline void fail(const std::string& program, const std::string& what) {
  fmt::print(stderr, "{}: {}\n", program, what);
  std::exit(1);
}

// The server of BROOK_POSTGRES_DSN (as scripts/postgres.sh start prints it); ends the run
// saying how to start one if it is not set.
inline std::string postgres_server(const std::string& program) {
  const char* server = std::getenv("BROOK_POSTGRES_DSN");
  if (server == nullptr) {
    fail(program, "BROOK_POSTGRES_DSN is not set: start a server with scripts/postgres.sh start");
  }
  return server;
}

class Sql {
 public:
  explicit Sql(const std::string& dsn) : conn_(PQconnectdb(dsn.c_str()), &PQfinish) {
    if (PQstatus(conn_.get()) != CONNECTION_OK) fail("sql", PQerrorMessage(conn_.get()));
  }
  // The first column of the first row, or "" for none.
  std::string run(const std::string& sql) {
    std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn_.get(), sql.c_str()),
                                                         &PQclear);
    const auto status = PQresultStatus(result.get());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      fail("sql", sql + ": " + PQerrorMessage(conn_.get()));
    }
    return PQntuples(result.get()) > 0 && !PQgetisnull(result.get(), 0, 0)
               ? PQgetvalue(result.get(), 0, 0)
               : "";
  }

 private:
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
};

// Creates `database` on the server at `server_dsn`; returns the database's connection string.
inline std::string create_database(const std::string& server_dsn, const std::string& database) {
  Sql(server_dsn).run("CREATE DATABASE " + database);
  return server_dsn + " dbname=" + database;
}

// Drops `database` of the server at `server_dsn`, with its replication slots.
inline void drop_database(const std::string& server_dsn, const std::string& database) {
  Sql(server_dsn)
      .run(fmt::format(
          "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = "
          "'{}'",
          database));
  Sql(server_dsn).run("DROP DATABASE " + database + " WITH (FORCE)");
}

}  // namespace brook::bench

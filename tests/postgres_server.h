// The PostgreSQL server the CDC tests run against: scripts/test.sh starts one
// (scripts/postgres.sh) and exports its connection string as BROOK_POSTGRES_DSN. Tests share
// it, so each works in a database of its own (PostgresFixture).
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "unique_name.h"

namespace brook::testing {

// The server's connection string. Fails the test (with what to do) when no server was
// started.
inline std::string postgres_dsn() {
  const char* dsn = std::getenv("BROOK_POSTGRES_DSN");
  if (dsn == nullptr || *dsn == '\0') {
    ADD_FAILURE() << "BROOK_POSTGRES_DSN is not set: run the tests with scripts/test.sh, or "
                     "start a server with scripts/postgres.sh start (needs the Debian packages "
                     "postgresql-15 and libpq-dev) and export BROOK_POSTGRES_DSN=<the connection "
                     "string it prints>";
    return "";
  }
  return dsn;
}

// `dsn` with its dbname (if any) replaced by `database`: "host=... port=... dbname=<database>".
// Values with spaces, quotes or backslashes are quoted as libpq reads them.
inline std::string dsn_with_database(const std::string& dsn, const std::string& database) {
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> options(
      PQconninfoParse(dsn.c_str(), &error), &PQconninfoFree);
  if (options == nullptr) {
    ADD_FAILURE() << "not a libpq connection string (" << dsn
                  << "): " << (error != nullptr ? error : "out of memory");
    PQfreemem(error);
    return dsn + " dbname=" + database;
  }
  const auto quoted = [](const std::string& value) {
    if (!value.empty() && value.find_first_of(" \t\n\r\f\v'\\") == std::string::npos) return value;
    std::string out = "'";
    for (char c : value) {
      if (c == '\'' || c == '\\') out += '\\';
      out += c;
    }
    return out + "'";
  };
  std::string out;
  for (const PQconninfoOption* option = options.get(); option->keyword != nullptr; ++option) {
    if (option->val == nullptr || std::string_view(option->keyword) == "dbname") continue;
    out += std::string(option->keyword) + "=" + quoted(option->val) + " ";
  }
  return out + "dbname=" + quoted(database);
}

using SqlRows = std::vector<std::vector<std::optional<std::string>>>;

// A plain SQL connection; a failed connect and every error fail the test, naming the
// statement.
class PgSession {
 public:
  explicit PgSession(const std::string& dsn) : conn_(PQconnectdb(dsn.c_str()), &PQfinish) {
    if (!ok()) {
      ADD_FAILURE() << "cannot connect to PostgreSQL (" << dsn
                    << "): " << PQerrorMessage(conn_.get());
    }
  }

  // Whether the session is connected.
  bool ok() const { return PQstatus(conn_.get()) == CONNECTION_OK; }

  // Runs `sql`; returns its rows (nullopt for NULL).
  SqlRows exec(const std::string& sql) {
    std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn_.get(), sql.c_str()),
                                                         &PQclear);
    const auto status = PQresultStatus(result.get());
    SqlRows rows;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      ADD_FAILURE() << "SQL failed: " << sql << ": " << PQerrorMessage(conn_.get());
      return rows;
    }
    for (int r = 0; r < PQntuples(result.get()); ++r) {
      auto& row = rows.emplace_back();
      for (int c = 0; c < PQnfields(result.get()); ++c) {
        if (PQgetisnull(result.get(), r, c)) {
          row.emplace_back();
        } else {
          row.emplace_back(PQgetvalue(result.get(), r, c));
        }
      }
    }
    return rows;
  }

 private:
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
};

// A test in a fresh database of its own (dropped at the end, with its replication slots).
class PostgresFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    server_dsn_ = postgres_dsn();
    ASSERT_FALSE(server_dsn_.empty());
    auto server = std::make_unique<PgSession>(server_dsn_);
    ASSERT_TRUE(server->ok());
    const std::string database = unique_name("brook", '_');
    server->exec("CREATE DATABASE " + database);
    ASSERT_FALSE(HasFailure()) << "cannot create the test's database";
    database_ = database;
    reconnect();
    ASSERT_TRUE(session_->ok());
  }

  void TearDown() override {
    session_.reset();
    if (database_.empty()) return;  // SetUp failed
    PgSession server(server_dsn_);
    // A slot still in use cannot be dropped: end its walsender first.
    server.exec(
        "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE "
        "database = '" +
        database_ + "' AND active_pid IS NOT NULL");
    wait_until_slots_idle(server);
    server.exec(
        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE "
        "database = '" +
        database_ + "'");
    server.exec("DROP DATABASE IF EXISTS " + database_ + " WITH (FORCE)");
  }

  // The test's database (a unique name, also good for the test's replication slot: slots
  // belong to the server), and its connection string.
  const std::string& database() const { return database_; }
  std::string dsn() const { return dsn_with_database(server_dsn_, database_); }
  // Runs `sql` in the test's database.
  SqlRows exec(const std::string& sql) {
    if (session_ == nullptr) {
      ADD_FAILURE() << "no session for " << sql << " (call reconnect() after restart_postgres())";
      return {};
    }
    return session_->exec(sql);
  }
  // Opens the test's session again (after restart_postgres()).
  void reconnect() { session_ = std::make_unique<PgSession>(dsn()); }

  // Stops the server (fast: sessions are ended) and starts it again with the same data, with
  // scripts/postgres.sh restart, which finds it by the BROOK_POSTGRES_PORT and
  // BROOK_POSTGRES_DIR the tests inherit. Call reconnect() after it.
  void restart_postgres() {
    session_.reset();
    const std::string command = std::string(BROOK_POSTGRES_SCRIPT) + " restart >/dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }

  // Whether a source streams `slot` (past its snapshot: a walsender in catchup or streaming
  // state holds it) and has confirmed it up to `lsn` (empty: any position).
  bool slot_streams_past(const std::string& slot, const std::string& lsn = "") {
    return !exec(
                "SELECT 1 FROM pg_replication_slots s JOIN pg_stat_replication r ON r.pid = "
                "s.active_pid WHERE r.state IN ('catchup', 'streaming') AND s.slot_name = '" +
                slot + "'" + (lsn.empty() ? "" : " AND s.confirmed_flush_lsn >= '" + lsn + "'"))
                .empty();
  }

  // Waits until a source streams `slot` (fails the test after a minute).
  void wait_until_streaming(const std::string& slot) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (!slot_streams_past(slot)) {
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "no source streamed slot " << slot << " within a minute";
        return;
      }
      usleep(20'000);  // polls the server
    }
  }

  // Waits until no replication slot of the test's database is in use (a stopped source's
  // walsender ends a moment after its connection does).
  void wait_until_slots_idle(PgSession& session) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!session
                .exec("SELECT 1 FROM pg_replication_slots WHERE active AND database = '" +
                      database_ + "'")
                .empty()) {
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "a replication slot of " << database_ << " stayed in use";
        return;
      }
      usleep(10'000);
    }
  }
  void wait_until_slots_idle() { wait_until_slots_idle(*session_); }

 private:
  std::string server_dsn_;
  std::string database_;
  std::unique_ptr<PgSession> session_;
};

}  // namespace brook::testing

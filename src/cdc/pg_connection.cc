#include "cdc/pg_connection.h"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <array>

namespace brook::internal {
namespace {

// Values come in PostgreSQL's text form; these settings make that form the one pg_value.h
// reads, whatever the server's defaults.
constexpr const char* kSessionOptions =
    "-c DateStyle=ISO,YMD -c TimeZone=UTC -c IntervalStyle=postgres -c extra_float_digits=3 "
    "-c client_encoding=UTF8";

std::string trimmed(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  return std::string(text);
}

// Whether a failed connection attempt may succeed later: the server is down, restarting or
// out of reach, rather than refusing this login.
bool transient(std::string_view message) {
  constexpr std::array<std::string_view, 6> kTransient{
      "could not connect",         "Connection refused", "timeout expired",
      "the database system is st", "server closed the",  "Network is unreachable"};
  for (auto marker : kTransient) {
    if (message.find(marker) != std::string_view::npos) return true;
  }
  return false;
}

struct ResultCloser {
  void operator()(PGresult* result) const { PQclear(result); }
};

}  // namespace

void PgConnection::Closer::operator()(pg_conn* conn) const { PQfinish(conn); }

Status pg_error(pg_conn* conn, std::string_view what) {
  std::string message = trimmed(PQerrorMessage(conn));
  if (PQstatus(conn) == CONNECTION_BAD) {
    return Status::unavailable(
        fmt::format("postgres: {}: the connection broke: {}", what, message));
  }
  return Status::failed_precondition(fmt::format("postgres: {}: {}", what, message));
}

Result<PgConnection> PgConnection::connect(const std::string& dsn, Kind kind) {
  const bool replication = kind == Kind::kReplication;
  const std::array<const char*, 5> keywords{"dbname", "options", "application_name",
                                            replication ? "replication" : nullptr, nullptr};
  const std::array<const char*, 5> values{dsn.c_str(), kSessionOptions, "brook-cdc",
                                          replication ? "database" : nullptr, nullptr};
  PgConnection connection(PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/1));
  pg_conn* conn = connection.conn_.get();
  if (conn == nullptr) return error(Status::internal("postgres: libpq could not allocate"));
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = trimmed(PQerrorMessage(conn));
    std::string text = fmt::format("postgres: cannot connect{}: {}",
                                   replication ? " for replication" : "", message);
    return error(transient(message) ? Status::unavailable(std::move(text))
                                    : Status::failed_precondition(std::move(text)));
  }
  return connection;
}

PgConnection::~PgConnection() = default;

Result<PgRows> PgConnection::query(std::string_view what, const std::string& sql,
                                   const std::vector<std::string>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& param : params) values.push_back(param.c_str());
  std::unique_ptr<PGresult, ResultCloser> result(
      params.empty() ? PQexec(conn_.get(), sql.c_str())
                     : PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(values.size()),
                                    nullptr, values.data(), nullptr, nullptr, 0));
  const auto status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    if (result && PQstatus(conn_.get()) != CONNECTION_BAD) {
      return error(Status::failed_precondition(
          fmt::format("postgres: {}: {}", what, trimmed(PQresultErrorMessage(result.get())))));
    }
    return error(pg_error(conn_.get(), what));
  }
  PgRows rows;
  const int columns = PQnfields(result.get());
  for (int c = 0; c < columns; ++c) {
    rows.names.emplace_back(PQfname(result.get(), c));
    rows.type_oids.push_back(PQftype(result.get(), c));
  }
  const int count = PQntuples(result.get());
  rows.rows.reserve(count);
  for (int r = 0; r < count; ++r) {
    auto& row = rows.rows.emplace_back();
    row.reserve(columns);
    for (int c = 0; c < columns; ++c) {
      if (PQgetisnull(result.get(), r, c)) {
        row.emplace_back();
      } else {
        row.emplace_back(std::string(PQgetvalue(result.get(), r, c),
                                     static_cast<std::size_t>(PQgetlength(result.get(), r, c))));
      }
    }
  }
  return rows;
}

Status PgConnection::execute(std::string_view what, const std::string& sql,
                             const std::vector<std::string>& params) {
  auto rows = query(what, sql, params);
  return rows ? Status() : rows.error();
}

std::string PgConnection::quote_identifier(std::string_view name) const {
  std::unique_ptr<char, decltype(&PQfreemem)> quoted(
      PQescapeIdentifier(conn_.get(), name.data(), name.size()), &PQfreemem);
  return quoted ? std::string(quoted.get()) : std::string();
}

std::string PgConnection::quote_literal(std::string_view text) const {
  std::unique_ptr<char, decltype(&PQfreemem)> quoted(
      PQescapeLiteral(conn_.get(), text.data(), text.size()), &PQfreemem);
  return quoted ? std::string(quoted.get()) : std::string();
}

std::string PgConnection::database() const { return PQdb(conn_.get()); }

}  // namespace brook::internal
